"""The batch engines: lockstep with B AEC envs (turns, masks, observations, rewards), step by step."""

from __future__ import annotations

import numpy as np
import pytest

from kabu_envs import batch, registry
from kabu_envs.core.errors import IllegalActionError

# (game, rule options) per case; the vectorised engines are checked against the AEC envs here, and the
# reference loop (games without one) against its definition.
CASES = [
    ("toy_card", {}),
    ("toy_card", {"num_players": 5, "raise_threshold": 3}),
    ("oicho_kabu", {}),
    ("oicho_kabu", {"rules": "kansai", "num_players": 5}),
    ("kakeya", {}),
    ("kakeya", {"num_players": 6, "six_player_mode": "all_play"}),
]


def _aec_state(env, names):
    """(current seat, mask, observation) of an AEC env after skipping dead agents' steps."""
    if not env.agents or all(env.terminations[a] or env.truncations[a] for a in env.agents):
        return -1, None, None
    agent = env.agent_selection
    obs = env.observe(agent)
    return names.index(agent), obs["action_mask"].astype(bool), obs["observation"]


def _lockstep(game, options, B=6, seeds=None, decks=None, max_steps=400, engine=None):
    """Step ``batch.make(game, ...)`` and B AEC envs with the same random legal actions until every game
    ends, checking turns, masks, observations and summed rewards at every step."""
    spec = registry.get(game)
    env = batch.make(game, batch_size=B, **options)
    if engine is not None:
        assert type(env).__name__ == engine
    seeds = seeds if seeds is not None else [1000 + 7 * b for b in range(B)]
    decks = decks if decks is not None else [None] * B
    env.reset(seeds=seeds, decks=decks)
    aecs = [spec.make_raw_env(**options) for _ in range(B)]
    for a, s, d in zip(aecs, seeds, decks, strict=True):
        a.reset(seed=s, options=None if d is None else {"deck": d})
    names = aecs[0].possible_agents
    rng = np.random.default_rng(3)
    summed_aec = np.zeros((B, len(names)))
    summed_batch = np.zeros((B, len(names)))
    for _ in range(max_steps):
        acts = np.zeros(B, dtype=np.int64)
        for b, a in enumerate(aecs):
            seat, mask, obs = _aec_state(a, names)
            assert env.current_player[b] == seat
            if seat < 0:
                assert env.terminated[b]
                continue
            assert np.array_equal(env.legal_action_mask[b], mask)
            assert np.array_equal(env.observation[b], obs)
            acts[b] = rng.choice(np.flatnonzero(mask))
        env.step(acts)
        summed_batch += env.rewards
        for b, a in enumerate(aecs):
            if env.current_player[b] < 0 and _aec_state(a, names)[0] < 0:
                continue
            a.step(int(acts[b]))
            summed_aec[b] += [a.rewards.get(n, 0.0) for n in names]
            while a.agents and a.terminations[a.agent_selection]:
                if all(a.terminations[x] for x in a.agents):
                    break
                a.step(None)
                summed_aec[b] += [a.rewards.get(n, 0.0) for n in names]
        np.testing.assert_allclose(summed_batch, summed_aec, atol=1e-9)
        if env.terminated.all():
            break
    assert env.terminated.all()
    return env


@pytest.mark.parametrize(("game", "options"), CASES)
def test_batch_runs_in_lockstep_with_aec_envs(game, options):
    _lockstep(game, options)


# Kakeya's vectorised engine (kabu_envs.kakeya.batch), option set by option set: B = 8 matches, two seed
# sets, the first with stacked decks (a full deck, short prefixes, both Rensho candidates first).
KAKEYA_CASES = [
    {},
    {"rensho_rule": "traditional"},  # v1's default (kakeya_v1)
    {"num_players": 6},  # v2's default for six: all play
    {"num_players": 6, "six_player_mode": "dealers_sit_out", "rensho_rule": "traditional", "max_deals": 3},
    {"rensho_follow": "must_follow"},
    {"rensho_rule": "seed", "default_trump": "spades"},
    {"rensho_rule": "seed", "rensho_follow": "must_follow", "default_trump": 0},
    {"dealers_choose_trump": False, "default_trump": "hearts"},
    {"dealers_choose_trump": False, "rensho_rule": "seed"},
    {"num_players": 6, "six_player_mode": "dealers_sit_out"},
    {"num_players": 6, "six_player_mode": "all_play"},
    {
        "num_players": 6,
        "six_player_mode": "all_play",
        "rensho_follow": "must_follow",
        "dealers_choose_trump": False,
    },
    {"reward": "egara"},
    {"num_players": 6, "six_player_mode": "all_play", "reward": "egara", "max_deals": 4},
    {"num_players": 6, "reward": "egara", "max_deals": 3},
    {"max_deals": 6, "stones_per_player": 2},
    {"max_deals": 20, "stones_per_player": 1},  # matches end when a partnership is broke
    {"num_players": 6, "max_deals": 20, "stones_per_player": 1, "dealers_choose_trump": False},
    # v1's all_play payment (each loser pays the table's amount), kept by kakeya_v1
    {"num_players": 6, "all_play_payment": "each_loser", "max_deals": 20, "stones_per_player": 2},
    {"num_players": 6, "max_deals": 20, "stones_per_player": 2},  # v2's: the losers share it
]
_STACKED = [
    list(range(52))[::-1],
    None,
    list(range(8)),
    None,
    [51, 12],  # AS, AC
    list(range(52)),
    None,
    [12, 51, 25, 38],
]


@pytest.mark.parametrize(
    "options", KAKEYA_CASES, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default"
)
@pytest.mark.parametrize("seed_set", [0, 1])
def test_kakeya_vectorised_engine_in_lockstep(options, seed_set):
    seeds = [97 * seed_set + 13 * b for b in range(8)]
    decks = _STACKED if seed_set == 0 else None
    _lockstep("kakeya", options, B=8, seeds=seeds, decks=decks, max_steps=2000, engine="KakeyaBatch")


@pytest.mark.parametrize("game", ["toy_card", "kakeya"])
def test_stacked_decks_and_seed_streams(game):
    spec = registry.get(game)
    env = batch.make(game, batch_size=3)
    raw = spec.make_raw_env()
    deck = list(range(8))
    env.reset(seeds=[5, 6, 7], decks=[deck, None, deck])
    raw.reset(seed=5, options={"deck": deck})
    assert np.array_equal(env.observation[0], raw.observe(raw.agent_selection)["observation"])
    raw.reset(seed=7, options={"deck": deck})
    assert np.array_equal(env.observation[2], raw.observe(raw.agent_selection)["observation"])
    a, b = batch.make(game, batch_size=4), batch.make(game, batch_size=4)
    a.reset(seed=11)
    b.reset(seed=11)
    assert np.array_equal(a.observation, b.observation)
    seeds = batch.derive_seeds(11, 4)
    assert len(set(seeds)) == 4 and all(0 <= s < 2**63 for s in seeds)


@pytest.mark.parametrize("game", ["toy_card", "oicho_kabu", "kakeya"])
def test_autoreset_restarts_finished_games_and_reports_their_end(game):
    env = batch.make(game, batch_size=8, autoreset=True)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(200):
        assert (env.current_player >= 0).all() and env.legal_action_mask.any(axis=1).all()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in env.legal_action_mask])
        env.step(acts)
        ends += int(env.terminated.sum())
        np.testing.assert_allclose(env.rewards.sum(axis=1), 0.0, atol=1e-9)
    assert ends > 8


def test_bad_batch_input_is_named():
    env = batch.make("toy_card", batch_size=2)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="game 0 of the batch"):
        env.step(np.array([2, 0]) if not env.legal_action_mask[0, 2] else np.array([7, 0]))
    with pytest.raises(ValueError, match="2 integer action ids"):
        env.step(np.array([0.5, 1.0]))
    with pytest.raises(ValueError, match="3 seeds for a batch of 2"):
        env.reset(seeds=[1, 2, 3])
    with pytest.raises(ValueError, match="positive integer"):
        batch.make("toy_card", batch_size=0)
    with pytest.raises(ValueError, match="unknown game"):
        batch.make("chess", batch_size=2)


def _engines(game: str, B: int, **kw):
    """The game's vectorised engine and the reference loop, each with its twin."""
    return [(batch.make(game, batch_size=B, **kw), batch.make(game, batch_size=B, **kw))] + [
        (batch.LoopBatchEnv(game, batch_size=B, **kw), batch.LoopBatchEnv(game, batch_size=B, **kw))
    ]


@pytest.mark.parametrize("game", ["oicho_kabu", "kakeya", "toy_card"])
def test_seeds_are_checked_as_the_aec_env_checks_them(game):
    """``reset(seeds=[1.7])``, ``["5"]``, ``[True]`` were dealt as 1, 5, 1 (issue #25); the AEC env
    refuses them, so does every engine, naming the game; NumPy integers stay seeds."""
    aec = registry.get(game).make_raw_env()
    for env, _ in _engines(game, 2):
        for bad in (1.7, "5", True, np.float64(3.0), -1):
            with pytest.raises((TypeError, ValueError)) as err:
                aec.reset(seed=bad)
            with pytest.raises(type(err.value), match=r"reset\(seeds=...\)\[1\]: seed="):
                env.reset(seeds=[3, bad])
            with pytest.raises(type(err.value), match=r"reset\(seed=...\): seed="):
                env.reset(seed=bad)
        env.reset(seeds=[np.int64(3), np.uint32(4)])
        aec.reset(seed=4)
        assert env.current_player[1] == aec.possible_agents.index(aec.agent_selection)


@pytest.mark.parametrize("game", ["oicho_kabu", "kakeya", "toy_card"])
def test_a_refused_reset_changes_nothing(game):
    """A whole-batch reset refused for a bad stacked deck of its last game left the autoreset stream
    re-seeded (and the loop's first games dealt): the contract is "raises before anything changes".
    The engine and its twin (never asked the bad reset) deal the same games afterwards."""
    bad_deck = [0, 0] if game != "kakeya" else [5, 5]
    for env, twin in _engines(game, 3, autoreset=True):
        for e in (env, twin):
            e.reset(seed=7)
        with pytest.raises(ValueError):
            env.reset(seed=99, decks=[None, None, bad_deck])
        with pytest.raises(ValueError):
            env.reset(seeds=[1, 2, 3], decks=[None, [1, 2, 99], None], rows=None)
        rng = np.random.default_rng(0)
        ends = 0
        for _ in range(300):
            assert np.array_equal(env.observation, twin.observation)
            assert np.array_equal(env.current_player, twin.current_player)
            acts = np.array([rng.choice(np.flatnonzero(m)) for m in env.legal_action_mask])
            env.step(acts)
            twin.step(acts)
            assert np.array_equal(env.rewards, twin.rewards)
            ends += int(env.terminated.sum())
        assert ends >= 3  # autoreset dealt from the stream


@pytest.mark.parametrize("game", ["oicho_kabu", "kakeya", "toy_card"])
def test_out_of_range_action_ids_are_refused_and_named_as_given(game):
    """``step`` checks each id with one unsigned compare and a clipped gather: a negative id, one past
    the last action and a uint64 id above 2**63 (negative as int64) are refused and named as given;
    legal ids of any integer dtype step as int64 ones do."""
    env = batch.make(game, batch_size=3)
    twin = batch.make(game, batch_size=3)
    env.reset(seed=2)
    twin.reset(seed=2)
    legal = np.array([int(np.flatnonzero(m)[0]) for m in env.legal_action_mask])
    for bad, dtype in ((-1, np.int64), (env.num_actions, np.int64), (2**64 - 1, np.uint64)):
        acts = legal.astype(dtype)
        acts[1] = bad
        with pytest.raises(IllegalActionError, match="game 1 of the batch") as err:
            env.step(acts)
        assert str(bad) in str(err.value)
    env.step(legal.astype(np.uint8))
    twin.step(legal)
    assert np.array_equal(env.observation, twin.observation)
    assert np.array_equal(env.legal_action_mask, twin.legal_action_mask)


def test_kakeya_batch_refuses_illegal_actions_and_reports_state_bytes():
    env = batch.make("kakeya", batch_size=3)
    env.reset(seed=4)
    acts = np.array([int(np.flatnonzero(m)[0]) for m in env.legal_action_mask])
    bad = acts.copy()
    bad[1] = 0  # PLAY(2C) in the trump phase
    with pytest.raises(IllegalActionError, match="game 1 of the batch"):
        env.step(bad)
    with pytest.raises(ValueError, match="3 integer action ids"):
        env.step(acts[:2])
    env.step(acts)  # nothing changed by the refused steps
    assert (env.legal_action_mask.sum(axis=1) == 2).all()  # LEAD_SELF / LEAD_PARTNER
    assert env.state_nbytes() > env.observation.nbytes


@pytest.mark.parametrize(
    "options", [{}, {"num_players": 6, "six_player_mode": "all_play", "max_deals": 3, "reward": "egara"}]
)
def test_kakeya_autoreset_reports_the_end_and_starts_a_new_match(options):
    """An autoreset batch plays as its twin without autoreset until a match ends; on that step it
    reports the same payout and ``terminated``, and the game is already at the new match's first
    decision (the default trump, full stones, deal 0); the new matches deal from the batch's stream."""
    B = 8
    auto = batch.make("kakeya", batch_size=B, autoreset=True, **options)
    plain = batch.make("kakeya", batch_size=B, **options)
    auto.reset(seed=5)
    plain.reset(seed=5)
    fresh = batch.make("kakeya", batch_size=1, **options)
    fresh.reset(seeds=[0])
    spec = auto._off, auto._sl
    rng = np.random.default_rng(1)
    restarted = np.zeros(B, dtype=bool)
    for _ in range(600):
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in auto.legal_action_mask])
        same = ~restarted
        plain.step(np.where(same & (plain.current_player >= 0), acts, 0))
        auto.step(acts)
        assert (auto.current_player >= 0).all()
        np.testing.assert_allclose(auto.rewards[same], plain.rewards[same], atol=1e-12)
        assert np.array_equal(auto.terminated[same], plain.terminated[same])
        for b in np.flatnonzero(same & plain.terminated):
            obs = auto.observation[b]
            assert obs[spec[0]["phase"] + 0] == 1.0  # TRUMP: the new match's first decision
            assert np.array_equal(obs[spec[1]["stones"]], fresh.observation[0][spec[1]["stones"]])
            assert obs[spec[0]["deal"]] == 0.0
            assert auto.current_player[b] == fresh.current_player[0]
        still = same & ~plain.terminated
        assert np.array_equal(auto.observation[still], plain.observation[still])
        restarted |= plain.terminated
        if restarted.all():
            break
    assert restarted.all()
    np.testing.assert_allclose(auto.rewards.sum(axis=1), 0.0, atol=1e-9)


def test_kakeya_batch_checks_stacked_decks_at_reset():
    env = batch.make("kakeya", batch_size=2)
    with pytest.raises(ValueError):
        env.reset(seeds=[1, 2], decks=[None, [3, 3]])
    with pytest.raises(ValueError):
        env.reset(seeds=[1, 2], decks=[[52], None])


def _aec_step(aec, action, names):
    """Step one AEC env (then its dead agents' steps); the summed rewards of those steps."""
    aec.step(int(action))
    paid = np.array([aec.rewards.get(n, 0.0) for n in names])
    while aec.agents and aec.terminations[aec.agent_selection]:
        if all(aec.terminations[x] for x in aec.agents):
            break
        aec.step(None)
        paid += [aec.rewards.get(n, 0.0) for n in names]
    return paid


@pytest.mark.parametrize(("game", "options"), CASES)
def test_partial_steps_and_row_resets_in_lockstep_with_aec_envs(game, options):
    """``step(actions, active=...)`` moves only the active games (the others report no reward and
    ``terminated`` = over) and ``reset(rows=..., seeds=...)`` deals only those games, exactly as the
    AEC envs of those games: what the training VecEnv builds on."""
    B = 6
    spec = registry.get(game)
    env = batch.make(game, batch_size=B, **options)
    seeds = [300 + 11 * b for b in range(B)]
    env.reset(seeds=seeds)
    aecs = [spec.make_raw_env(**options) for _ in range(B)]
    for a, s in zip(aecs, seeds, strict=True):
        a.reset(seed=s)
    names = aecs[0].possible_agents
    rng = np.random.default_rng(7)
    resets = 0
    for step in range(300):
        for b, a in enumerate(aecs):
            seat, mask, obs = _aec_state(a, names)
            assert env.current_player[b] == seat
            if seat >= 0:
                assert np.array_equal(env.legal_action_mask[b], mask)
                assert np.array_equal(env.observation[b], obs)
        over = np.flatnonzero(env.current_player < 0)
        if len(over) and step % 3 == 0:  # deal some finished games anew, the others keep on
            rows = over[: max(1, len(over) // 2)]
            new = [int(s) for s in rng.integers(2**40, size=len(rows))]
            env.reset(rows=rows, seeds=new)
            for b, s in zip(rows.tolist(), new, strict=True):
                aecs[b].reset(seed=s)
            resets += len(rows)
            assert not env.rewards[rows].any() and not env.terminated[rows].any()
            continue
        active = rng.random(B) < 0.6
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in env.legal_action_mask])
        before = env.current_player < 0
        env.step(acts, active=active)
        for b, a in enumerate(aecs):
            if before[b] or not active[b]:
                assert not env.rewards[b].any() and env.terminated[b] == before[b]
                continue
            np.testing.assert_allclose(env.rewards[b], _aec_step(a, acts[b], names), atol=1e-12)
            assert env.terminated[b] == (_aec_state(a, names)[0] < 0)
    assert resets > 0


def test_row_resets_and_active_masks_are_checked():
    env = batch.make("toy_card", batch_size=3)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="distinct indices"):
        env.reset(rows=[0, 0], seeds=[1, 2])
    with pytest.raises(ValueError, match="2 seeds for rows= of 1"):
        env.reset(rows=[1], seeds=[1, 2])
    with pytest.raises(ValueError, match="one seed per row"):
        env.reset(rows=[1], seed=4)
    with pytest.raises(ValueError, match=r"\(3,\) bool array"):
        env.step(np.zeros(3, dtype=np.int64), active=[1, 0, 1])
    held = env.observation.copy()
    bad = np.full(3, 7, dtype=np.int64)  # illegal, but only game 1 moves: checked there alone
    bad[1] = int(np.flatnonzero(env.legal_action_mask[1])[0])
    env.step(bad, active=np.array([False, True, False]))
    assert np.array_equal(env.observation[[0, 2]], held[[0, 2]])
