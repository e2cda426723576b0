"""Batched agents: one call for a batch of decisions, the same choices as ``act`` row by row."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import RandomAgent
from agents.registry import make_agent
from kabu_envs import batch


def _decisions(game: str, n: int, seed: int = 0, **options):
    """``n`` real (observation, mask) pairs of a game, from a batch of random play."""
    env = batch.make(game, batch_size=64, autoreset=True, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    while sum(len(o) for o in obs) < n:
        obs.append(env.observation.copy())
        masks.append(env.legal_action_mask.copy())
        env.step((rng.random(env.legal_action_mask.shape) * env.legal_action_mask).argmax(axis=1))
    return np.concatenate(obs)[:n], np.concatenate(masks)[:n]


@pytest.mark.parametrize(
    ("game", "model", "role"),
    [("kakeya", "ppo_kakeya", "partnership"), ("oicho_kabu", "ppo_oicho_bettor", None)],
)
def test_policy_act_batch_equals_act_row_by_row(game, model, role):
    obs, masks = _decisions(game, 1500)
    agent = make_agent(game, model, 0, role=role)
    batched = agent.act_batch(obs, masks)
    rowwise = np.array([agent.act(o, m.astype(np.int8)) for o, m in zip(obs, masks, strict=True)])
    assert np.array_equal(batched, rowwise)
    assert masks[np.arange(len(obs)), batched].all()


def test_random_act_batch_is_legal_seeded_and_uniform():
    masks = np.zeros((20000, 5), dtype=bool)
    masks[:, [1, 3, 4]] = True
    masks[:5000] = [True, False, False, False, False]
    a = RandomAgent(seed=3).act_batch(None, masks)
    assert np.array_equal(a, RandomAgent(seed=3).act_batch(None, masks))
    assert masks[np.arange(len(a)), a].all() and (a[:5000] == 0).all()
    counts = np.bincount(a[5000:], minlength=5)[[1, 3, 4]] / 15000
    assert np.allclose(counts, 1 / 3, atol=0.02)
    with pytest.raises(ValueError, match="legal action in every row"):
        RandomAgent(seed=0).act_batch(None, np.zeros((2, 3), dtype=bool))


def test_act_batch_refuses_what_it_cannot_do():
    agent = make_agent("kakeya", "ppo_kakeya", 0)
    obs, masks = _decisions("kakeya", 4)
    with pytest.raises(ValueError, match="observations of shape"):
        agent.act_batch(obs[:, :10], masks)
    agent.deterministic = False
    with pytest.raises(ValueError, match="deterministic"):
        agent.act_batch(obs, masks)
