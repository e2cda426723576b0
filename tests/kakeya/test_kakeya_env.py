"""The Kakeya PettingZoo env: API and seed tests, masks, observations, hidden information,
global RNG, render, registry and the lean wrappers."""

import random
import warnings

import numpy as np
import pytest
from kakeya_testlib import deal_order, deck_for, ids, suit_hands
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper

from kabu_envs import kakeya_v2
from kabu_envs.core import IllegalActionError
from kabu_envs.kakeya import Action, Phase
from kabu_envs.kakeya.cards import egara16
from kabu_envs.kakeya.observation import obs_spec

MODES = [
    {},
    {"num_players": 6, "six_player_mode": "dealers_sit_out"},
    {"num_players": 6, "six_player_mode": "all_play"},
    {"max_deals": 3, "reward": "egara", "rensho_rule": "seed"},
    {"num_players": 6, "six_player_mode": "all_play", "max_deals": 2, "dealers_choose_trump": False},
]
MODE_IDS = ["4p", "6p_sit_out", "6p_all_play", "4p_match_egara_seed", "6p_all_play_match"]


@pytest.mark.parametrize("opts", MODES, ids=MODE_IDS)
def test_pettingzoo_api_and_seed_tests(opts):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(kakeya_v2.env(**opts), num_cycles=200)
        api_test(kakeya_v2.raw_env(**opts), num_cycles=50)
        seed_test(lambda: kakeya_v2.env(**opts), num_cycles=200)


def random_episode(env, rng, check_obs=None) -> dict[str, float]:
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.any()
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        if check_obs:
            check_obs(env, agent, obs["observation"])
        legal = np.flatnonzero(mask)
        assert list(legal) == env.unwrapped.game.legal_actions()
        env.step(int(legal[rng.integers(legal.size)]))
        steps += 1
        assert steps < 5000
    return totals


@pytest.mark.parametrize("opts", MODES, ids=MODE_IDS)
def test_random_episodes_through_the_env(opts):
    env = kakeya_v2.env(**opts)
    rng = np.random.default_rng(0)
    n = env.unwrapped.config.num_players
    for seed in range(25):
        env.reset(seed=seed)
        totals = random_episode(env, rng, check_obs=check_observation if seed < 5 else None)
        values = list(totals.values())
        assert abs(sum(values)) < 1e-9
        assert all(values[s] == values[(s + n // 2) % n] for s in range(n))
        played = env.unwrapped.game
        assert played.terminal and not any(played.hands)


def check_observation(env, agent, vec):
    """Every observation piece against the engine, decoded through the obs spec (relative seats)."""
    raw = env.unwrapped
    g = raw.game
    seat = int(agent.split("_")[1])
    n, num_partnerships = g.num_players, g.num_partnerships
    mine = seat % num_partnerships  # restated: seat i is in partnership i % (n // 2)
    spec = obs_spec(raw.config)
    assert vec.shape == (spec.size,) and vec.dtype == np.float32
    d = {k: np.asarray(v) for k, v in spec.decode(vec).items()}

    def cards(bits):
        return np.array([(bits >> c) & 1 for c in range(52)], dtype=np.float32)

    np.testing.assert_array_equal(d["hand"], cards(g.hands[seat]))
    np.testing.assert_array_equal(d["played"], cards(g.played))
    np.testing.assert_array_equal(d["gone"], cards(g.played | g.hands[seat]))
    trick = np.zeros((n, 52))
    for s, c in zip(g.trick.seats, g.trick.cards, strict=True) if g.trick else []:
        trick[(s - seat) % n, c] = 1
    np.testing.assert_array_equal(d["trick"].reshape(n, 52), trick)
    for k in range(num_partnerships):
        e16 = egara16(g.captured[(mine + k) % num_partnerships])
        assert list(d["egara"][16 * k : 16 * k + 16]) == [(e16 >> i) & 1 for i in range(16)]
    assert np.argmax(d["trump"]) == g.trump and d["trump"].sum() == 1
    assert d["rensho"].tolist() == ([1, 0] if g.rensho == 12 else [0, 1])
    assert d["led_suit"].sum() == (1 if g.led_suit >= 0 else 0)
    if g.phase is Phase.PLAY:
        assert d["leader"].sum() == 1 and np.argmax(d["leader"]) == (g.trick.leader - seat) % n
    else:
        assert not d["leader"].any() and not d["trick"].any()
    assert np.argmax(d["first_dealer"]) == (g.first_dealer - seat) % n
    assert np.argmax(d["partnership"]) == mine
    assert d["role"].tolist() == [mine == g.dealer_partnership, not g.active[seat], g.active[seat]]
    assert d["phase"].tolist() == [float(k is g.phase) for k in Phase]
    np.testing.assert_allclose(d["hand_counts"], [g.hand_counts[(seat + k) % n] / 13 for k in range(n)])
    assert d["deal"][0] == pytest.approx(g.deal_no / g.cfg.max_deals)
    relative = [(mine + k) % num_partnerships for k in range(num_partnerships)]
    stones = [sum(g.stones[p::num_partnerships]) for p in relative]
    np.testing.assert_allclose(d["stones"], np.array(stones) / (g.cfg.stones_per_player * n), rtol=1e-6)
    assert all(0.0 <= x <= 1.0 for x in vec)


def test_dealer_sees_no_hand_while_choosing_trump():
    env = kakeya_v2.env()
    env.reset(seed=3)
    assert env.agent_selection == "player_1"
    obs = env.observe("player_1")
    spec = obs_spec(env.unwrapped.config)
    assert not obs["observation"][spec.slices["hand"]].any()
    assert obs["observation"][spec.slices["phase"]].tolist() == [float(k is Phase.TRUMP) for k in Phase]
    assert np.flatnonzero(obs["action_mask"]).tolist() == [52, 53, 54, 55]


def test_stacked_deck_through_reset_and_known_rewards():
    env = kakeya_v2.env()
    env.reset(seed=1, options={"deck": deck_for(suit_hands(), deal_order(4, 1))})
    env.step(Action.TRUMP(0))
    env.step(Action.LEAD_SELF)
    while not all(env.terminations.values()):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert env.rewards == {"player_0": 4.0, "player_1": -4.0, "player_2": 4.0, "player_3": -4.0}
    assert env.unwrapped.stones == [7, 3, 7, 3]


@pytest.mark.parametrize(
    "deck, words",
    [
        ([3, 3], "twice"),
        ([60], "out of range"),
        ("AS", "sequence of card ids"),
        # accepted (as [3]) or a TypeError before the deck was checked as given
        (
            {3: 1},
            r"deck must be a sequence of card ids in deal order .*got a dict \{3: 1\}: it has no deal order",
        ),
        ({3, 1}, "got a set .*it has no deal order"),
        (np.array(5), r"deck must be a sequence .*got a 0-D array array\(5\)"),
        (np.array([[3, 1]]), "got a 2-D array"),
    ],
)
def test_bad_decks_raise(deck, words):
    env = kakeya_v2.env()
    with pytest.raises(ValueError, match=words):
        env.reset(seed=0, options={"deck": deck})


def test_a_deck_may_be_a_list_a_tuple_a_1d_array_or_an_iterator():
    deck = deck_for(suit_hands(), deal_order(4, 1))
    hands = []
    for given in (deck, tuple(deck), np.array(deck), iter(deck)):
        env = kakeya_v2.env(dealers_choose_trump=False)
        env.reset(seed=0, options={"deck": given})
        hands.append(list(env.unwrapped.game.dealt))
    assert hands[1:] == hands[:1] * 3 and hands[0][0] == sum(1 << c for c in range(13))


def test_bad_options_and_illegal_actions_raise():
    with pytest.raises(ValueError, match="unknown Kakeya option"):
        kakeya_v2.env(num_player=4)
    with pytest.raises(ValueError, match="six_player_mode"):
        kakeya_v2.raw_env(num_players=6, six_player_mode="everyone")
    with pytest.raises(ValueError, match="render_mode"):
        kakeya_v2.env(render_mode="rgb")
    with pytest.raises(ValueError, match=r"option 'num_players' = array\(\[4\]\) is invalid: allowed: 4, 6"):
        kakeya_v2.env(num_players=np.array([4]))
    with pytest.raises(ValueError, match="'six_player_mode' = 'all_play' has no meaning with num_players=4"):
        kakeya_v2.env(six_player_mode="all_play")
    env = kakeya_v2.env()
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"illegal action 0 \(PLAY\(2C\)\).*52=TRUMP\(clubs\)"):
        env.step(0)
    with pytest.raises(AssertionError, match="action space"):
        env.step(58)


def test_information_hiding_swapping_unseen_cards():
    """Swap same-suit cards between seats 1 and 3: seat 0's (and 2's) observations stay equal
    until one of the swapped cards is played; seat 1's own observation does change."""
    base = suit_hands()
    base[1], base[3] = (
        ids(["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "10D", "JD", "QD", "KD", "2S"]),
        ids(["AD", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS", "AS"]),
    )
    swapped = {s: list(h) for s, h in base.items()}
    swapped[1][0], swapped[3][0] = ids(["AD"])[0], ids(["2D"])[0]  # 2D <-> AD
    watched = ids(["2D", "AD"])
    envs = [kakeya_v2.env(), kakeya_v2.env()]
    for e, hands in zip(envs, (base, swapped), strict=True):
        e.reset(seed=5, options={"deck": deck_for(hands, deal_order(4, 1))})
    compared = 0
    while True:
        agent = envs[0].agent_selection
        for seat in ("player_0", "player_2"):
            a, b = (e.observe(seat)["observation"] for e in envs)
            np.testing.assert_array_equal(a, b)
            compared += 1
        masks = [np.flatnonzero(e.observe(agent)["action_mask"]) for e in envs]
        common = [int(x) for x in masks[0] if x in masks[1] and x not in watched]
        if not common or envs[0].unwrapped.game.played & sum(1 << c for c in watched):
            break
        for e in envs:
            e.step(common[0])
    assert compared > 20
    p1 = [e.observe("player_1")["observation"] for e in envs]
    assert not np.array_equal(*p1)


def test_global_rng_untouched():
    py_state = random.getstate()
    np_state = np.random.get_state()
    env = kakeya_v2.env(num_players=6, six_player_mode="all_play", max_deals=2)
    rng = np.random.default_rng(1)
    for seed in range(5):
        env.reset(seed=seed)
        random_episode(env, rng)
    env.reset()  # no seed: OS entropy, still not the global RNG
    assert random.getstate() == py_state
    after = np.random.get_state()
    assert after[0] == np_state[0] and np.array_equal(after[1], np_state[1]) and after[2:] == np_state[2:]


def test_same_seed_same_game_and_reset_without_seed_continues():
    def trace(env, seed):
        env.reset(seed=seed)
        out = []
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            a = int(np.flatnonzero(obs["action_mask"])[-1])
            out.append((agent, a, obs["observation"].tobytes()))
            env.step(a)
        return out

    assert trace(kakeya_v2.env(), 7) == trace(kakeya_v2.env(), 7)
    assert trace(kakeya_v2.env(), 7) != trace(kakeya_v2.env(), 8)


@pytest.mark.parametrize("mode", ["ansi", "human"])
def test_render_shows_hands_trick_egara_and_score(mode, capsys):
    env = kakeya_v2.env(render_mode=mode, rensho_rule="traditional")
    env.reset(seed=0, options={"deck": deck_for(suit_hands(), deal_order(4, 1))})
    for a in (Action.TRUMP(0), Action.LEAD_SELF, 26, 39, 0):
        env.step(a)
    text = env.render() if mode == "ansi" else capsys.readouterr().out
    assert "trump=clubs" in text and "Rensho=AS" in text
    assert "player_1 [p1, dealer, to act]" in text and "2D 3D" in text  # god view: every hand
    assert "trick 1: player_2:2H, player_3:2S, player_0:2C" in text
    assert "partnership 0: egara= 0" in text


def test_wrappers_are_the_standard_ones_and_keep_their_checks():
    env = kakeya_v2.env()
    assert isinstance(env, OrderEnforcingWrapper) and isinstance(env.env, AssertOutOfBoundsWrapper)
    with pytest.raises(AttributeError, match="cannot be accessed before reset"):
        _ = env.agent_selection
    with pytest.raises(AttributeError, match="cannot be accessed before reset"):
        env.last()
    env.reset(seed=0)
    assert env.action_space("player_0").contains(np.int64(5)) and not env.action_space("player_0").contains(
        58
    )
    assert not env.action_space("player_0").contains(5.0)
    with pytest.raises(AssertionError):
        env.step(None)  # None only for a dead agent
    assert env.agent_selection == env.unwrapped.agent_selection and env.rewards is env.unwrapped.rewards


def test_registered_in_pettingzoo_registry():
    from pettingzoo.env_registry.registration import make

    env = make("aec", "kabu_envs/Kakeya-v2", num_players=6)
    env.reset(seed=0)
    assert env.unwrapped.config.num_players == 6 and len(env.agents) == 6


def test_illegal_reward_wrapper_terminates_with_penalty():
    env = kakeya_v2.env(illegal_reward=-3.0)
    env.reset(seed=0)
    offender = env.agent_selection
    mask = env.observe(offender)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(bad)
    assert all(env.terminations.values())
    assert env.rewards[offender] == -3.0
    assert sum(v for a, v in env.rewards.items() if a != offender) == 0


def test_render_seat_shows_only_that_seats_hand():
    env = kakeya_v2.env(render_mode="ansi", render_seat=0)
    env.reset(seed=0, options={"deck": deck_for(suit_hands(), deal_order(4, 1))})
    for a in (Action.TRUMP(0), Action.LEAD_SELF):
        env.step(a)
    text = env.render()
    own = [ln for ln in text.splitlines() if ln.startswith("  player_0 ")][0]
    others = [
        ln for ln in text.splitlines() if ln.startswith("  player_") and not ln.startswith("  player_0 ")
    ]
    assert "hidden" not in own and "2C" in own
    assert len(others) == 3 and all("13 cards (hidden)" in ln for ln in others)
    assert "2D 3D" not in text  # player_1's diamonds stay hidden
    for bad in (4, -1, True, 1.0, "0"):
        with pytest.raises(ValueError, match="render_seat"):
            kakeya_v2.env(render_seat=bad)
    assert kakeya_v2.env(render_seat=np.int64(2)).unwrapped.render_seat == 2


@pytest.mark.parametrize("rensho_follow", ["free", "must_follow"])
def test_mask_and_voids_follow_rensho_follow(rensho_follow):
    """Through the env: seat 3 holds Rensho AS as its only spade and faces a spade lead. The mask is
    its whole hand ("free") or Rensho alone ("must_follow"); once it shows out of spades, every seat
    sees the void (which with "free" means: no spade but perhaps Rensho)."""
    hands = {
        3: ids(["AS", "2H", "3H", "4H", "5H", "6H", "7H", "2D", "3D", "4D", "5D", "6D", "7D"]),
        2: ids(["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS", "2C"]),
        0: list(range(1, 13)) + ids(["8H"]),  # 3C..AC
        1: ids(["8D", "9D", "10D", "JD", "QD", "KD", "AD", "9H", "10H", "JH", "QH", "KH", "AH"]),
    }
    env = kakeya_v2.env(dealers_choose_trump=False, rensho_follow=rensho_follow, rensho_rule="traditional")
    env.reset(seed=0, options={"deck": deck_for(hands, deal_order(4, 1))})
    env.step(Action.LEAD_SELF)
    env.step(ids(["2S"])[0])
    assert env.agent_selection == "player_3"
    mask = env.observe("player_3")["action_mask"]
    assert np.flatnonzero(mask).tolist() == (sorted(hands[3]) if rensho_follow == "free" else ids(["AS"]))
    env.step(ids(["2H" if rensho_follow == "free" else "AS"])[0])
    spec = obs_spec(env.unwrapped.config)
    for seat in range(4):
        voids = np.asarray(spec.decode(env.observe(f"player_{seat}")["observation"])["voids"]).reshape(4, 4)
        shown = voids[(3 - seat) % 4].tolist()  # seat 3, relative to the observer
        assert shown == ([0, 0, 0, 1] if rensho_follow == "free" else [0, 0, 0, 0])
