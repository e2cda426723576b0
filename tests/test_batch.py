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


@pytest.mark.parametrize(("game", "options"), CASES)
def test_batch_runs_in_lockstep_with_aec_envs(game, options):
    B = 6
    spec = registry.get(game)
    env = batch.make(game, batch_size=B, **options)
    seeds = [1000 + 7 * b for b in range(B)]
    env.reset(seeds=seeds)
    aecs = [spec.make_raw_env(**options) for _ in range(B)]
    for a, s in zip(aecs, seeds, strict=True):
        a.reset(seed=s)
    names = aecs[0].possible_agents
    rng = np.random.default_rng(3)
    summed_aec = np.zeros((B, len(names)))
    summed_batch = np.zeros((B, len(names)))
    for _ in range(400):
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


@pytest.mark.parametrize("game", ["toy_card", "oicho_kabu"])
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
