"""The expert Kakeya player (kabu_envs/kakeya/agents/expert.py) and its parts: the observation decoder, the
consistent-deal sampler, the play-out policy and the double-dummy solver (on the kernel:
kabu_envs/kakeya/agents/search.py, kabu_envs/kakeya/kernel/search.py)."""

from __future__ import annotations

import copy
import itertools
import json
import math

import numpy as np
import pytest

from kabu_envs import kakeya_v2
from kabu_envs.agents.base import BaseAgent
from kabu_envs.agents.registry import make_agent
from kabu_envs.kakeya import make_config
from kabu_envs.kakeya.agents.expert import KakeyaExpertAgent
from kabu_envs.kakeya.agents.scripted import KakeyaScriptedAgent
from kabu_envs.kakeya.agents.search import Deal, Position, Search
from kabu_envs.kakeya.cards import NUM_CARDS, NUM_RANKS, bits_to_cards
from kabu_envs.kakeya.game import Game, Phase
from kabu_envs.kakeya.knowledge import ViewDecoder
from kabu_envs.kakeya.observation import Encoder
from kabu_envs.kakeya.sampler import DealSampler

MODES = [
    {},
    {"num_players": 6, "six_player_mode": "dealers_sit_out"},
    {"num_players": 6, "six_player_mode": "all_play"},
    {"rensho_follow": "must_follow"},
    {"rensho_rule": "seed", "default_trump": "spades"},
    {"rensho_rule": "traditional"},
]
MODE_IDS = ["4p", "6p_sit_out", "6p_all_play", "must_follow", "seed_rule", "traditional_rule"]


def game_states(opts: dict, games: int, seed: int = 0):
    """(game, encoder) at every decision of ``games`` random deals (the game is played on after)."""
    cfg = make_config(**opts)
    enc = Encoder(cfg)
    for g in range(games):
        rng = np.random.default_rng(seed + g)
        game = Game(cfg, np.random.Generator(np.random.PCG64(seed + g)))
        while not game.terminal:
            yield game, enc
            legal = game.legal_actions()
            game.apply_action(legal[int(rng.integers(len(legal)))])


def rel(seq, seat):
    """``seq`` (indexed by absolute seat or partnership) rotated so that ``seat`` is index 0."""
    return list(seq[seat:]) + list(seq[:seat])


def true_position(game: Game, root: int | None = None) -> Position:
    """The engine's position from ``root``'s side (relative seats; default: the seat to play): reads
    every hand."""
    seat = game.current_player if root is None else root
    n = game.num_players
    m = n // 2
    trick = game.trick
    assert trick is not None
    return Position(
        rel(game.hands, seat),
        rel(game.captured, seat % m),
        game.played,
        [(game.void_bits >> (4 * ((seat + k) % n))) & 0xF for k in range(n)],
        [(s - seat) % n for s in trick.order],
        list(trick.cards),
    )


_SEARCHES: dict[object, Search] = {}


def search_for(game: Game, root: int | None = None) -> tuple[Search, Deal]:
    """The kernel's search for the game's rules and the deal's facts from ``root``'s side."""
    cfg = game.cfg
    seat = game.current_player if root is None else root
    m = cfg.num_partnerships
    search = _SEARCHES.get(cfg)
    if search is None:
        search = _SEARCHES[cfg] = Search(cfg)
    dealers = (game.first_dealer - seat) % m
    return search, Deal(game.trump, game.rensho, dealers, tuple(rel(game.partnership_totals, seat % m)))


# --- the decoder ----------------------------------------------------------------------------------
@pytest.mark.parametrize("opts", MODES + [{"max_deals": 3, "stones_per_player": 2}], ids=[*MODE_IDS, "match"])
def test_decoder_reads_back_what_the_engine_shows_the_seat(opts):
    decoder = None
    checked = 0
    for game, enc in game_states(opts, 6):
        seat, n = game.current_player, game.num_players
        m = n // 2
        decoder = decoder or ViewDecoder(game.cfg)
        view = decoder.decode(enc.encode(game, seat))
        assert view.phase is game.phase
        assert view.trump == game.trump and view.rensho == game.rensho
        assert view.hand == game.hands[seat] and view.played == game.played
        assert view.first_dealer == (game.first_dealer - seat) % n
        assert list(view.hand_counts) == rel(game.hand_counts, seat)
        assert list(view.stones) == rel(game.partnership_totals, seat % m)
        assert view.partnership == seat % m
        assert list(view.captured) == rel(game.captured, seat % m)
        assert list(view.voids) == [(game.void_bits >> (4 * ((seat + k) % n))) & 0xF for k in range(n)]
        trick = game.trick
        if game.phase is Phase.PLAY:
            assert trick is not None
            assert view.led_suit == trick.led_suit
            assert view.leader == (trick.leader - seat) % n
            expect = [-1] * n
            for s, c in zip(trick.seats, trick.cards, strict=True):
                expect[(s - seat) % n] = c
            assert list(view.trick) == expect
            checked += 1
    assert checked > 50


def test_decoder_refuses_a_wrong_size():
    with pytest.raises(ValueError, match="shape"):
        ViewDecoder(make_config()).decode(np.zeros(3, dtype=np.float32))


# --- the sampler ----------------------------------------------------------------------------------
@pytest.mark.parametrize("opts", MODES, ids=MODE_IDS)
def test_sampled_deals_respect_counts_and_voids_and_hold_the_unseen_cards(opts):
    agent = KakeyaExpertAgent(seed=0, **opts)
    rng = np.random.default_rng(1)
    voided = 0
    for game, enc in game_states(opts, 4, seed=100):
        if game.phase is not Phase.PLAY:
            continue
        seat, n = game.current_player, game.num_players
        view = agent.decoder.decode(enc.encode(game, seat))
        sampler = agent.sampler(view)
        free = game.cfg.rensho_follow == "free"
        for tries in (8, 0):  # the shuffle path and the counting path
            for _ in range(3):
                hands = sampler.sample(rng, tries=tries)
                union = 0
                for k in range(1, n):
                    hand = hands[k]
                    assert hand.bit_count() == game.hand_counts[(seat + k) % n]
                    assert not hand & union
                    union |= hand
                    for card in bits_to_cards(hand):
                        if (view.voids[k] >> (card // NUM_RANKS)) & 1:
                            assert free and card == game.rensho, (k, card)
                            voided += 1
                assert union == view.unseen
    assert voided == 0 or opts.get("rensho_follow") != "must_follow"


def brute_force_deals(unseen, seats, counts, voids, rensho, free):
    """Every consistent deal, by enumeration (small cases): no seat holds a card of a suit it has
    shown out of, except Rensho when it is free to follow."""
    cards = bits_to_cards(unseen)

    def fits(card, seat):
        return (card == rensho and free) or not (voids[seat] >> (card // NUM_RANKS)) & 1

    out = []
    for owners in itertools.product(range(len(seats)), repeat=len(cards)):
        if any(owners.count(i) != counts[i] for i in range(len(seats))):
            continue
        if all(fits(c, seats[o]) for c, o in zip(cards, owners, strict=True)):
            hands = [0] * len(seats)
            for c, o in zip(cards, owners, strict=True):
                hands[o] |= 1 << c
            out.append(tuple(hands))
    return out


CASES = {  # (seats, counts, voids by seat): 7 unseen cards, clubs 2-4, diamonds 2-3, AS (Rensho), 2S
    "two_voids": ([1, 2, 3], [3, 2, 2], [0, 0b0001, 0b1000, 0]),
    "three_free_seats": ([1, 2, 3, 4, 5], [2, 2, 1, 1, 1], [0, 0b0001, 0, 0, 0, 0]),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("free", [True, False])
@pytest.mark.parametrize("tries", [8, 0])
def test_sampler_is_uniform_over_the_consistent_deals(case, free, tries):
    """Every consistent deal must come up equally often (chi-square at p = 0.001, Wilson-Hilferty
    quantile), through both sampling paths (shuffles, counting tables); in the first case seat 1 has
    shown out of clubs and seat 2 of spades, in the second only seat 1 (the other seats are one
    pseudo-seat for the counting)."""
    rensho = 51
    unseen = sum(1 << c for c in (0, 1, 2, 13, 14, 51, 39))
    seats, counts, voids = CASES[case]
    deals = brute_force_deals(unseen, seats, counts, voids, rensho, free)
    sampler = DealSampler(unseen, seats, counts, voids, rensho, free)
    assert sampler.total == len(deals) > 10
    index = {d: i for i, d in enumerate(deals)}
    rng = np.random.default_rng(7)
    draws = 100 * len(deals)
    hits = np.zeros(len(deals))
    for _ in range(draws):
        hands = sampler.sample(rng, tries=tries)
        hits[index[tuple(hands[s] for s in seats)]] += 1  # a KeyError = an inconsistent deal
    expected = draws / len(deals)
    chi2 = float(((hits - expected) ** 2 / expected).sum())
    df = len(deals) - 1
    critical = df * (1 - 2 / (9 * df) + 3.09 * math.sqrt(2 / (9 * df))) ** 3
    assert chi2 < critical, (chi2, critical)


def test_sampler_refuses_counts_that_do_not_add_up_and_impossible_voids():
    with pytest.raises(ValueError, match="unseen"):
        DealSampler(0b111, [1, 2], [1, 1], [0, 0, 0], 51, True)
    # both seats shown out of clubs: the club 2 fits nowhere
    sampler = DealSampler(0b1, [1, 2], [1, 0], [0, 1, 1], 51, True)
    with pytest.raises(ValueError, match="no deal"):
        sampler.sample(np.random.default_rng(0))


# --- the play-out policy ------------------------------------------------------------------------------
@pytest.mark.parametrize("opts", MODES, ids=MODE_IDS)
def test_playout_policy_is_the_scripted_player(opts):
    """At every card decision of random games, the policy (from the seat's own view: others' hands
    unknown) plays what KakeyaScriptedAgent plays."""
    expert = KakeyaExpertAgent(seed=0, **opts)
    scripted = KakeyaScriptedAgent(**opts)
    checked = 0
    for game, enc in game_states(opts, 4, seed=200):
        if game.phase is not Phase.PLAY:
            continue
        obs, mask = enc.encode_with_mask(game, game.current_player, game.legal_bits())
        view = expert.decoder.decode(obs)
        own = expert.position(view, {})
        deal = expert._deal(view, view.trump)
        assert expert.search.policy(own, deal, view.hand_counts) == scripted.act(obs, mask)
        checked += 1
    assert checked > 100


@pytest.mark.parametrize(
    "opts",
    [*MODES, {"stones_per_player": 1}, {"reward": "egara", "num_players": 6}],
    ids=[*MODE_IDS, "capped", "egara_6p"],
)
def test_playout_is_the_engine_playing_the_policy(opts):
    """The kernel's play-out of a position = the scalar engine playing the policy's card move by move
    from it: the same cards, and the value is the reward the engine pays the root seat (the 8-8 rule,
    the stones table, capped payments, the egara reward)."""
    checked = 0
    games = [g for left in (13, 7, 3) for g in endings(opts, left, 10, seed=300 + left)]
    for game in games:
        root = game.current_player
        search, deal = search_for(game)
        value = search.playout(true_position(game), deal)
        game.pop_rewards()
        while game.phase is Phase.PLAY:
            card = search.policy(true_position(game, root), deal)
            assert card in game.legal_actions()
            game.apply_action(card)
        assert value == game.pop_rewards()[root]
        checked += 1
    assert checked == 30


# --- the double-dummy solver -----------------------------------------------------------------------
def brute_force(game: Game, root_seat: int) -> float:
    """Minimax over copies of the engine itself (no pruning, no table): the root seat's partnership
    maximises its deal reward, every other partnership minimises it."""
    if game.phase is not Phase.PLAY:
        return float(game.pop_rewards()[root_seat])
    m = game.num_partnerships
    maximise = game.current_player % m == root_seat % m
    values = []
    for card in game.legal_actions():
        child = copy.deepcopy(game)
        child.apply_action(card)
        values.append(brute_force(child, root_seat))
    return max(values) if maximise else min(values)


def endings(opts: dict, cards_left: int, count: int, seed: int):
    """Random-play games stopped at a decision with at most ``cards_left`` cards in the mover's hand."""
    cfg = make_config(dealers_choose_trump=False, max_deals=1, **opts)
    out = []
    g = 0
    while len(out) < count:
        rng = np.random.default_rng(seed + g)
        game = Game(cfg, np.random.Generator(np.random.PCG64(seed + g)))
        g += 1
        target = int(rng.integers(0, cfg.num_players))  # stop at varying trick positions
        while not game.terminal:
            if (
                game.phase is Phase.PLAY
                and game.hand_counts[game.current_player] <= cards_left
                and (game.trick is None or len(game.trick.cards) == target % len(game.trick.order))
            ):
                out.append(game)
                break
            legal = game.legal_actions()
            game.apply_action(legal[int(rng.integers(len(legal)))])
    return out


@pytest.mark.parametrize(
    "opts, cards_left, count",
    [
        ({}, 3, 12),
        ({"stones_per_player": 1}, 3, 8),  # payments capped by what a partnership holds
        ({"rensho_follow": "must_follow", "rensho_rule": "seed"}, 3, 8),
        ({"reward": "egara"}, 2, 8),
        ({"rensho_rule": "traditional"}, 3, 8),
        ({"num_players": 6, "six_player_mode": "dealers_sit_out"}, 3, 6),
        ({"num_players": 6, "six_player_mode": "all_play"}, 2, 6),
    ],
    ids=["4p", "capped", "must_follow_seed", "egara", "traditional", "6p_sit_out", "6p_all_play"],
)
def test_double_dummy_solver_matches_brute_force(opts, cards_left, count):
    for game in endings(opts, cards_left, count, seed=1000):
        search, deal = search_for(game)
        pos = true_position(game)
        cards = game.legal_actions()
        solved = search.solve(pos, deal, cards)
        for card, value in zip(cards, solved, strict=True):
            child = copy.deepcopy(game)
            child.apply_action(card)
            assert value == pytest.approx(brute_force(child, game.current_player)), (card, opts)


# --- the agent -------------------------------------------------------------------------------------
def play_games(opts: dict, games: int, expert_params: dict | None = None, seed: int = 0):
    """Expert partnership 0 vs scripted seats; returns the expert's actions in order."""
    actions = []
    for g in range(games):
        env = kakeya_v2.env(**opts)
        env.reset(seed=seed + g)
        n = len(env.possible_agents)
        agents = [
            KakeyaExpertAgent(seed=seed + g, **opts, **(expert_params or {}))
            if s % (n // 2) == 0
            else KakeyaScriptedAgent(**opts)
            for s in range(n)
        ]
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = int(name.split("_")[1])
            action = agents[seat].act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action] == 1
            if seat % (n // 2) == 0:
                actions.append(action)
            env.step(action)
    return actions


@pytest.mark.parametrize(
    "opts", [*MODES, {"reward": "egara", "max_deals": 2}], ids=[*MODE_IDS, "egara_match"]
)
def test_expert_plays_legal_actions_and_is_deterministic_for_a_seed(opts):
    params = {"samples": 4, "lead_samples": 4, "trump_samples": 2}
    first = play_games(opts, 2, params)
    assert first == play_games(opts, 2, params)
    assert any(a >= NUM_CARDS for a in first) or opts.get("num_players") == 6  # lead / trump decisions


def test_expert_decides_from_its_observation_only(kakeya_testlib):
    """Swap unseen cards between two other seats mid-deal (``kakeya_testlib.swapped_unseen``): the seat's
    observation is unchanged, and so is the expert's decision for every seed (the same decision
    distribution)."""
    for obs, mask, obs2, mask2 in kakeya_testlib.swapped_unseen():
        for s in range(3):
            params = {"samples": 3}
            assert KakeyaExpertAgent(seed=s, **params).act(obs, mask) == KakeyaExpertAgent(
                seed=s, **params
            ).act(obs2, mask2)


def test_the_search_is_loadable_and_checks_its_parameters(tmp_path):
    agent = KakeyaExpertAgent(3, num_players=6)
    assert agent.cfg.num_players == 6
    assert agent.capabilities.batch and not KakeyaExpertAgent(3, max_ms=5).capabilities.batch
    path = tmp_path / "expert.json"
    KakeyaExpertAgent(seed=0, samples=5).save(path)
    assert BaseAgent.load(path).params["samples"] == 5
    with pytest.raises(ValueError, match="unknown option"):
        KakeyaExpertAgent(samplez=3)
    with pytest.raises(ValueError, match="samples"):
        KakeyaExpertAgent(samples=0)
    with pytest.raises(ValueError, match="max_ms"):
        KakeyaExpertAgent(max_ms=-1)


@pytest.mark.parametrize(
    "cls",
    ["kabu_envs.kakeya.agents.expert.KakeyaExpertAgent", "kabu_envs.agents.kakeya_expert.KakeyaExpertAgent"],
)
def test_an_agent_file_of_0_2s_expert_loads_as_that_player(tmp_path, cls):
    """The registry's ``expert`` is the kernel search now; a file 0.2's ``expert`` saved (its class, its
    parameters; or a bare class, its defaults) still loads as 0.2's search: ``expert_0_2``'s decisions."""
    from kabu_envs.kakeya.agents.expert import EXPERT_0_2

    reference = make_agent("kakeya", "expert_0_2", 0)
    for params in (dict(EXPERT_0_2), {}):
        path = tmp_path / "expert.json"
        path.write_text(json.dumps({"class": cls, "params": params}))
        loaded = BaseAgent.load(path, seed=0)
        assert type(loaded) is KakeyaExpertAgent and loaded.params == EXPERT_0_2 == reference.params
        for k, (game, enc) in enumerate(itertools.islice(game_states({}, 2, seed=9), 0, 60, 5)):
            obs, mask = enc.encode_with_mask(game, game.current_player, game.legal_bits())
            loaded.reset(k)
            reference.reset(k)
            assert loaded.act(obs, mask) == reference.act(obs, mask), k


def test_a_zero_time_cap_stops_after_one_sample():
    """``max_ms`` caps the CPU time: at 0 every decision uses exactly one sampled deal."""
    one = {"samples": 1, "lead_samples": 1, "trump_samples": 1}
    assert play_games({}, 2, {"max_ms": 0}, seed=50) == play_games({}, 2, one, seed=50)
    assert play_games({}, 2, {"samples": 2}, seed=50) != play_games({}, 2, one, seed=50)


def test_expert_beats_scripted_on_duplicate_deals():
    """A short duplicate match (the demo measures 1000+ deals): the expert's partnership gains stones."""
    from kabu_envs.eval.games import matchup

    agent, scripted = KakeyaExpertAgent(seed=0), KakeyaScriptedAgent()
    res = matchup("kakeya", agent, scripted, "partnership", deals=40, seed=11)
    assert res.summary().mean > 0.1, res.summary()


def test_the_search_readies_only_the_kernel_modules_it_calls(monkeypatch):
    """A search never calls the batch functions: asking for their (empty) cache would print the
    compile line at every start."""
    from kabu_envs.core import kernel as core

    seen: list[str] = []
    monkeypatch.setattr(core, "prepare", lambda title, *args, **kw: seen.append(title) or False)
    Search(make_config())
    assert seen == ["Kakeya kabu_envs.kakeya.kernel.rules", "Kakeya kabu_envs.kakeya.kernel.search"]
