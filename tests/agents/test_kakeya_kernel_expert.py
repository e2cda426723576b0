"""The Kakeya expert (``expert``, kabu_envs/kakeya/agents/kernel_expert.py) and its kernel parts:
the sampler on the kernel (kabu_envs/kakeya/kernel/sample.py), the trick's inference weight and the race
(kabu_envs/kakeya/kernel/decide.py)."""

from __future__ import annotations

import copy
import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

from kabu_envs import kakeya_v2
from kabu_envs.agents.base import BaseAgent
from kabu_envs.agents.registry import make_agent
from kabu_envs.kakeya import make_config
from kabu_envs.kakeya.agents.kernel_expert import KERNEL_PARAMS, KakeyaKernelExpertAgent, KernelSearch
from kabu_envs.kakeya.agents.net_expert import SEARCH_PARAMS, KakeyaNetExpertAgent
from kabu_envs.kakeya.agents.scripted import KakeyaScriptedAgent
from kabu_envs.kakeya.agents.search import Deal, Position
from kabu_envs.kakeya.cards import NUM_CARDS, NUM_RANKS, bits_to_cards
from kabu_envs.kakeya.game import Game, Phase
from kabu_envs.kakeya.observation import Encoder

_spec = importlib.util.spec_from_file_location(
    "kakeya_expert_tests", Path(__file__).parent / "test_kakeya_expert.py"
)
assert _spec is not None and _spec.loader is not None
_base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_base)  # the sampler's cases and the game helpers of the expert's tests
CASES, MODES, MODE_IDS = _base.CASES, _base.MODES, _base.MODE_IDS
brute_force_deals, game_states = _base.brute_force_deals, _base.game_states

ALL = (1 << NUM_CARDS) - 1


def kernel_draws(search: KernelSearch, pos: Position, deal: Deal, counts: list[int], k: int, tries: int):
    """``k`` samples of the kernel sampler from ``pos`` as seat 0 sees it: (k, n) hands."""
    kernel = search._k
    search.load(search.TEMPLATE, pos, deal, counts)
    search.sm[0][kernel.sample.I_TRIES] = tries
    out = np.zeros((k, search.n), dtype=np.uint64)
    code = kernel.sample.draw_many(search.TEMPLATE, 1, search.state, search.opts, search.sm, search.rng, out)
    return code, out


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("free", [True, False])
@pytest.mark.parametrize("tries", [8, 0])
def test_kernel_sampler_is_uniform_over_the_consistent_deals(case, free, tries):
    """The sampler tests' cases (tests/agents/test_kakeya_expert.py): every consistent deal comes up
    equally often (chi-square at p = 0.001), through the shuffles and through the counting tables."""
    rensho = 51
    unseen = sum(1 << c for c in (0, 1, 2, 13, 14, 51, 39))
    seats, counts, voids = CASES[case]
    n = max(seats) + 1
    deals = brute_force_deals(unseen, seats, counts, voids, rensho, free)
    index = {d: i for i, d in enumerate(deals)}
    cfg = make_config(num_players=n, rensho_follow="free" if free else "must_follow")
    search = KernelSearch(cfg)
    search.seed(3)
    mine = 1 << 3  # the deciding seat's one card; every other card is played
    m = n // 2
    pos = Position(
        [mine] + [0] * (n - 1), [0] * m, ALL & ~(unseen | mine), list(voids) + [0] * (n - len(voids)), [0]
    )
    all_counts = [1] + [counts[seats.index(s)] if s in seats else 0 for s in range(1, n)]
    draws = 100 * len(deals)
    code, out = kernel_draws(search, pos, Deal(3, rensho, 1, (10,) * m), all_counts, draws, tries)
    assert code == 0
    hits = np.zeros(len(deals))
    for row in out:
        hits[index[tuple(int(row[s]) for s in seats)]] += 1  # a KeyError = an inconsistent deal
    expected = draws / len(deals)
    chi2 = float(((hits - expected) ** 2 / expected).sum())
    df = len(deals) - 1
    critical = df * (1 - 2 / (9 * df) + 3.09 * math.sqrt(2 / (9 * df))) ** 3
    assert chi2 < critical, (chi2, critical)


@pytest.mark.parametrize("opts", MODES, ids=MODE_IDS)
def test_kernel_sampled_deals_respect_counts_and_voids(opts):
    agent = KakeyaKernelExpertAgent(seed=0, **opts)
    search = agent.search
    search.seed(1)
    free = make_config(**opts).rensho_follow == "free"
    checked = 0
    for game, enc in game_states(opts, 4, seed=100):
        if game.phase is not Phase.PLAY:
            continue
        seat, n = game.current_player, game.num_players
        view = agent.decoder.decode(enc.encode(game, seat))
        for tries in (8, 0):
            code, out = kernel_draws(
                search,
                agent.position(view, {}),
                agent._deal(view, view.trump),
                list(view.hand_counts),
                3,
                tries,
            )
            assert code == 0
            for row in out:
                union = 0
                for k in range(1, n):
                    hand = int(row[k])
                    assert hand.bit_count() == game.hand_counts[(seat + k) % n]
                    assert not hand & union
                    union |= hand
                    for card in bits_to_cards(hand):
                        if (view.voids[k] >> (card // NUM_RANKS)) & 1:
                            assert free and card == game.rensho
                assert union == view.unseen
        checked += 1
    assert checked > 50


def test_kernel_sampler_reports_impossible_voids():
    cfg = make_config()
    search = KernelSearch(cfg)
    # seats 1 and 2 shown out of clubs, seat 3 holds nothing: the club 2 fits nowhere
    pos = Position([1 << 5, 0, 0, 0], [0, 0], ALL & ~(1 | 1 << 5), [0, 1, 1, 0], [0])
    code, _ = kernel_draws(search, pos, Deal(3, 51, 1, (10, 10)), [1, 1, 0, 0], 1, 4)
    assert code == search._k.sample.NO_DEAL


def snapshots(games: int, seed: int):
    """(game, observation, mask, the trick's earlier plays as (observation, mask, card)) at the card
    decisions of all-scripted games whose trick so far has every seat following suit (so rewinding the
    trick is exact: no void shown in it)."""
    cfg = make_config()
    enc = Encoder(cfg)
    scripted = KakeyaScriptedAgent()
    for g in range(games):
        game = Game(cfg, np.random.Generator(np.random.PCG64(seed + g)))
        earlier: list[tuple[np.ndarray, np.ndarray, int]] = []
        while not game.terminal:
            obs, mask = enc.encode_with_mask(game, game.current_player, game.legal_bits())
            playing = game.phase is Phase.PLAY
            if playing:
                trick = game.trick
                if trick is None or not trick.cards:
                    earlier = []
                elif all(c // NUM_RANKS == trick.led_suit for _, _, c in earlier):
                    yield game, obs, mask, list(earlier)
            action = scripted.act(obs, mask)
            if playing:
                earlier.append((obs, mask, action))
            game.apply_action(action)


def test_trick_weight_is_the_play_models_likelihood_of_the_trick():
    """On the true deal of all-scripted games, the weight of the trick's earlier cards is (1 - eps) per
    card; with a card the policy would not have played, eps over the seat's other legal cards."""
    eps = 0.25
    agent = KakeyaKernelExpertAgent(seed=0, eps=eps)
    search = agent.search
    kernel = search._k
    checked = deviated = 0
    for game, obs, _, earlier in snapshots(6, seed=900):
        view = agent.decoder.decode(obs)
        seat, n = game.current_player, game.num_players
        hands = [game.hands[(seat + k) % n] for k in range(n)]
        pos = agent.position(view, {})
        pos.hands = hands
        search.load(1, pos, agent._deal(view, view.trump))
        w = kernel.decide.trick_weight(
            1, 2, search.rmin, eps, search.state, search.opts, search.rewards, search.over
        )
        assert w == pytest.approx((1 - eps) ** len(earlier)), earlier
        checked += 1
        # the leader's card swapped with another card of its suit it held: a deviation
        leader = view.leader
        led_card = view.trick[leader]
        same = [c for c in bits_to_cards(hands[leader]) if c // NUM_RANKS == led_card // NUM_RANKS]
        if len(earlier) == 1 and same:
            other = copy.deepcopy(pos)
            other.hands = list(hands)
            other.hands[leader] = hands[leader] ^ (1 << same[0]) ^ (1 << led_card)
            other.trick = [same[0]]
            other.played = pos.played ^ (1 << led_card) ^ (1 << same[0])
            search.load(1, other, agent._deal(view, view.trump))
            legal = (other.hands[leader] | (1 << same[0])).bit_count()
            w2 = kernel.decide.trick_weight(
                1, 2, search.rmin, eps, search.state, search.opts, search.rewards, search.over
            )
            policy_card = KakeyaScriptedAgent().act(*earlier[0][:2])
            expect = 1 - eps if policy_card == same[0] else eps / (legal - 1)
            assert w2 == pytest.approx(expect)
            deviated += 1
    assert checked > 100 and deviated > 20


def test_race_drops_a_clearly_worse_candidate_and_stops_on_ties():
    from kabu_envs.kakeya.kernel import decide

    # (rows wider than the candidates, as decide_cards passes them)
    values = np.zeros((4, 8))
    values[:, :3] = [[1.0, 0.0, 1.0], [2.0, 0.0, 2.0], [1.0, -1.0, 1.0], [3.0, 0.0, 3.0]]
    weights = np.ones(4)
    alive = np.ones(3, dtype=np.bool_)
    # candidate 1 is below on every deal; 0 and 2 tie on every deal: nothing more to learn
    assert decide.race(4, values, weights, alive, 2.0, 0.0) == 0
    assert alive.tolist() == [True, False, True]
    alive[:] = True
    noisy = np.zeros((4, 8))
    noisy[:, :2] = [[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]
    assert decide.race(4, noisy, weights, alive[:2], 2.0, 0.0) == 2 and alive[:2].all()
    # within delta: a small difference, surely below 1 stone a deal, is not worth more deals
    close = np.zeros((16, 8))
    close[:, 0] = np.tile([1.0, 0.0], 8)
    close[:, 1] = np.tile([0.0, 1.0], 8)
    close[0, 0] = 1.25  # (candidate 0 best, by a little)
    alive[:] = True
    assert decide.race(16, close, np.ones(16), alive[:2], 2.0, 0.0) == 2
    assert decide.race(16, close, np.ones(16), alive[:2], 2.0, 1.0) == 0 and alive[:2].all()


# --- the agent -------------------------------------------------------------------------------------
def play_games(opts: dict, games: int, params: dict | None = None, seed: int = 0) -> list[int]:
    """The kernel expert's partnership 0 vs scripted seats; its actions in order."""
    actions = []
    for g in range(games):
        env = kakeya_v2.env(**opts)
        env.reset(seed=seed + g)
        n = len(env.possible_agents)
        agents = [
            KakeyaKernelExpertAgent(seed=seed + g, **opts, **(params or {}))
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
def test_kernel_expert_plays_legal_actions_and_is_deterministic_for_a_seed(opts):
    params = {"samples": 24, "min_samples": 8, "check_every": 4, "eps": 0.3}
    first = play_games(opts, 2, params)
    assert first == play_games(opts, 2, params)
    assert first != play_games(opts, 2, params, seed=1)


def test_kernel_expert_decides_from_its_observation_only(kakeya_testlib):
    """Swap unseen cards between two other seats mid-deal (``kakeya_testlib.swapped_unseen``): the
    observation is unchanged and so is the decision, for every seed."""
    for obs, mask, obs2, mask2 in kakeya_testlib.swapped_unseen():
        for s in range(3):
            params = {"samples": 8, "min_samples": 4, "eps": 0.3}
            first = KakeyaKernelExpertAgent(seed=s, **params).act(obs, mask)
            assert first == KakeyaKernelExpertAgent(seed=s, **params).act(obs2, mask2)


def test_kernel_expert_is_registered_loadable_and_checks_its_parameters(tmp_path):
    agent = make_agent("kakeya", "expert", 3, num_players=6)
    assert type(agent) is KakeyaNetExpertAgent and agent.cfg.num_players == 6
    want = {**KERNEL_PARAMS, **SEARCH_PARAMS}  # the kernel expert's defaults, the network search's budget
    assert {k: agent.params[k] for k in KERNEL_PARAMS} == want and agent.params["samples"] == 320
    named = make_agent("kakeya", "expert:samples=64,z=1.5", 3, num_players=6)  # parameters in the name
    assert type(named) is KakeyaNetExpertAgent and named.cfg.num_players == 6
    assert named.params == {**agent.params, "samples": 64, "z": 1.5}
    with pytest.raises(ValueError, match="unknown agent 'expert_kernel'"):  # one name per agent
        make_agent("kakeya", "expert_kernel", 3)
    path = tmp_path / "expert.json"
    KakeyaKernelExpertAgent(seed=0, samples=40, z=1.5).save(path)
    loaded = BaseAgent.load(path)
    assert loaded.params["samples"] == 40 and loaded.params["z"] == 1.5
    for bad in (
        {"min_samples": 0},
        {"check_every": 1.5},
        {"z": -1},
        {"delta": -0.1},
        {"eps": 0},
        {"eps": 1.5},
        {"samplez": 3},
    ):
        with pytest.raises(ValueError, match=next(iter(bad))):
            KakeyaKernelExpertAgent(**bad)


def test_a_time_cap_bounds_the_deals_of_a_decision():
    """``max_ms=0``: a decision draws one deal (for a card, the probe's time is already over the cap)."""
    one = {"samples": 1, "min_samples": 1, "lead_samples": 1, "trump_samples": 1}
    assert play_games({}, 1, {"max_ms": 0, "min_samples": 1}, seed=5) == play_games({}, 1, one, seed=5)


def test_kernel_expert_beats_scripted_on_duplicate_deals():
    from kabu_envs.eval.games import matchup

    agent, scripted = KakeyaKernelExpertAgent(seed=0), KakeyaScriptedAgent()
    res = matchup("kakeya", agent, scripted, "partnership", deals=40, seed=11)
    assert res.summary().mean > 0.1, res.summary()


_PLAIN = """
import numpy as np
from kabu_envs import kakeya_v2
from kabu_envs.kakeya.agents.kernel_expert import KakeyaKernelExpertAgent
env = kakeya_v2.env()
env.reset(seed=3)
agent = KakeyaKernelExpertAgent(seed=1, samples=6, min_samples=2, check_every=2, eps=0.3, dd_tricks=1)
moves = 0
for name in env.agent_iter():
    obs, _, term, trunc, _ = env.last()
    if term or trunc:
        env.step(None)
        continue
    env.step(agent.act(obs["observation"], obs["action_mask"]))
    moves += 1
print("plain python ok", moves)
"""


def test_the_kernel_expert_runs_as_plain_python(plain_python):
    assert "plain python ok" in plain_python(_PLAIN)


@pytest.mark.parametrize(
    "opts",
    [{}, {"num_players": 6, "six_player_mode": "all_play"}, {"num_players": 6}, {"rensho_rule": "seed"}],
    ids=["4p", "6p_all_play", "6p_sit_out", "seed_rule"],
)
def test_trump_totals_play_out_the_expert_models_deal(opts):
    """The kernel's trump play-outs (``decide.trump_totals``, one pack) equal ``expert.py``'s model on
    the same pack: dealt to the receivers in turn, the chooser leading when strong, played out by
    ``Search.playout_many`` under each trump."""
    from kabu_envs.core import kernel as core
    from kabu_envs.kakeya.agents.search import trick_order

    agent = KakeyaKernelExpertAgent(seed=0, **opts)
    search = agent.search
    cfg = agent.cfg
    n, m = cfg.num_players, cfg.num_partnerships
    for first_dealer, key in [(n - 1, 5), (1, 6), (0, 7)]:
        dealers = first_dealer % m
        receivers = [
            s
            for s in ((first_dealer + k) % n for k in range(1, n + 1))
            if not (cfg.dealers_sit_out and s % m == dealers)
        ]
        chooser = receivers[0]
        partner = next(s for s in range(chooser % m, n, m) if s != chooser)
        stones = tuple(range(10, 10 + m))
        deals = [Deal(t, 51 if t != 3 else 38, dealers, stones) for t in range(4)]
        if cfg.rensho_rule == "seed":
            deals = [Deal(t, 12 if t == 0 else 51, dealers, stones) for t in range(4)]
        rng = np.zeros(1, dtype=np.uint64)
        rng[0] = core.seed_state(np.uint64(key), np.uint64(0), np.uint64(0))
        pack = np.arange(NUM_CARDS, dtype=np.int64)
        core.shuffle(rng, 0, pack, NUM_CARDS)
        hands = [0] * n
        for i, card in enumerate(pack.tolist()):
            hands[receivers[i % len(receivers)]] |= 1 << card
        rows = []
        for deal in deals:
            leader = chooser if agent._strength(hands[chooser], deal.trump, deal.rensho) else partner
            rows.append((Position(hands[:], [0] * m, 0, [0] * n, trick_order(leader, hands)), deal))
        expect = search.playout_many(rows)
        empty = Position([0] * n, [0] * m, 0, [0] * n, [chooser])
        for j, deal in enumerate(deals):
            search.load(j, empty, deal)
        totals = np.zeros(4)
        search.seed(key)
        search._k.decide.trump_totals(
            np.arange(4, dtype=np.int64),
            np.asarray(receivers, dtype=np.int64),
            chooser,
            partner,
            agent.params["lead_self_strength"],
            1,
            search.rmin,
            search.st,
            search.opts,
            search.rewards,
            search.over,
            search.rng,
            search.perm,
            totals,
        )
        assert totals.tolist() == expect.tolist()
