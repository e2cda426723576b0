"""Batched agents: one call for a batch of decisions, the same choices as ``act`` row by row."""

from __future__ import annotations

import numpy as np
import pytest

from kabu_envs import batch
from kabu_envs.agents.base import ActAgent, RandomAgent, as_agent
from kabu_envs.agents.ppo_agent import PPOAgent
from kabu_envs.agents.registry import make_agent


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
    with pytest.raises(ValueError, match=r"not to act \(batch rows \[0, 1\]\)"):
        RandomAgent(seed=0).act_batch(None, np.zeros((2, 3), dtype=bool))


def _generators(seed: int, n: int) -> list[np.random.Generator]:
    return [np.random.Generator(np.random.PCG64(seed + i)) for i in range(n)]


def _rowwise_with_rngs(agent, obs, masks, rngs) -> np.ndarray:
    """``act`` row by row with ``agent.rng`` = ``rngs[i]`` (the protocol's definition of row i)."""
    out = []
    for o, m, g in zip(obs, masks, rngs, strict=True):
        agent.rng = g
        out.append(agent.act(o, m.astype(np.int8)))
    return np.array(out)


def _states(rngs) -> list:
    return [g.bit_generator.state for g in rngs]


@pytest.mark.parametrize(
    ("game", "name", "role", "deterministic"),
    [
        ("kakeya", "random", None, True),
        ("oicho_kabu", "random", None, True),
        ("kakeya", "ppo_kakeya", "partnership", False),
        ("oicho_kabu", "ppo_oicho_bettor", "bettor", False),
        ("oicho_kabu", "ppo_oicho_dealer", "dealer", False),
        ("oicho_kabu", "ppo_oicho_dealer", "dealer", True),
    ],
)
def test_act_batch_with_rngs_replays_act_row_by_row(game, name, role, deterministic):
    """Row i = ``act`` with ``self.rng`` = ``rngs[i]``, and each generator ends in the same state."""
    obs, masks = _decisions(game, 1200, seed=5)
    agent = make_agent(game, name, 0, role=role)
    agent.deterministic = deterministic
    batched_rngs, scalar_rngs = _generators(11, len(obs)), _generators(11, len(obs))
    batched = agent.act_batch(obs, masks, rngs=batched_rngs)
    assert batched.dtype == np.int64
    assert np.array_equal(batched, _rowwise_with_rngs(agent, obs, masks, scalar_rngs))
    assert _states(batched_rngs) == _states(scalar_rngs)


@pytest.mark.parametrize("name", ["expert", "expert_0_2"])
def test_the_kakeya_searches_act_batch_as_act_row_by_row(name):
    """The searches decide row by row (a search per decision) under the same protocol: row i is ``act``
    with ``self.rng`` = ``rngs[i]``, each generator left as that call leaves it, and without ``rngs`` the
    agent's own generator row after row; with a CPU cap (``max_ms``) they do not claim it."""
    obs, masks = _decisions("kakeya", 160, seed=9)
    agent = make_agent("kakeya", name, 0)
    assert agent.capabilities.batch and agent.capabilities.values
    if name == "expert":  # (expert_0_2's parameters are fixed; its class is the capped one's parent)
        from kabu_envs.kakeya.agents.expert import KakeyaExpertAgent

        assert not make_agent("kakeya", name, 0, max_ms=5).capabilities.batch
        assert not KakeyaExpertAgent(0, max_ms=5).capabilities.batch
        assert type(agent).capabilities.batch  # the cap is the instance's declaration, not the class's
    batched_rngs, scalar_rngs = _generators(3, len(obs)), _generators(3, len(obs))
    batched = agent.act_batch(obs, masks, rngs=batched_rngs)
    assert batched.dtype == np.int64 and masks[np.arange(len(obs)), batched].all()
    assert np.array_equal(batched, _rowwise_with_rngs(agent, obs, masks, scalar_rngs))
    assert _states(batched_rngs) == _states(scalar_rngs)
    own, again = make_agent("kakeya", name, 4), make_agent("kakeya", name, 4)
    rowwise = [again.act(o, m.astype(np.int8)) for o, m in zip(obs, masks, strict=True)]
    assert np.array_equal(own.act_batch(obs, masks), rowwise)
    with pytest.raises(ValueError, match="observations of shape"):
        agent.act_batch(obs[:, :10], masks)


def test_stochastic_policy_batch_probabilities_equal_action_probs():
    """``choice`` draws the same only from the same numbers: the batch's probabilities are exact."""
    obs, masks = _decisions("kakeya", 800, seed=2)
    agent = make_agent("kakeya", "ppo_kakeya", 0, role="partnership")
    batch_probs = agent.policy.masked_probs_batch(obs, masks)
    for o, m, p in zip(obs, masks, batch_probs, strict=True):
        assert np.array_equal(agent.policy.masked_probs(o, m), p)


def test_declared_capabilities():
    assert RandomAgent(seed=0).capabilities.batch and RandomAgent(seed=0).capabilities.engine
    stochastic = make_agent("kakeya", "ppo_kakeya", 0)
    stochastic.deterministic = False
    assert make_agent("kakeya", "ppo_kakeya", 0).capabilities.batch and stochastic.capabilities.batch

    class Model:  # an in-memory model decides one row at a time: act_batch asks act row by row
        def predict(self, obs, action_masks, deterministic):
            return int(np.flatnonzero(action_masks)[-1]), None

    in_memory = PPOAgent(model=Model())
    masks = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1]], bool)
    assert in_memory.act_batch(np.zeros((3, 4), np.float32), masks).tolist() == [1, 0, 2]

    class ScalarOnly:
        def act(self, observation, action_mask):
            return 0

    adapted = as_agent(ScalarOnly())
    assert isinstance(adapted, ActAgent) and not adapted.capabilities.batch and adapted.name == "ScalarOnly"
    assert adapted.act_batch(np.zeros((2, 3)), np.ones((2, 2), bool)).tolist() == [0, 0]


def test_act_batch_refuses_what_it_cannot_do():
    agent = make_agent("kakeya", "ppo_kakeya", 0)
    obs, masks = _decisions("kakeya", 4)
    with pytest.raises(ValueError, match="observations of shape"):
        agent.act_batch(obs[:, :10], masks)
    with pytest.raises(ValueError, match="one per row"):
        agent.act_batch(obs, masks, rngs=_generators(0, 3))
    with pytest.raises(ValueError, match="one per row"):
        RandomAgent(seed=0).act_batch(None, masks, rngs=_generators(0, 5))


def test_sequential_sum_adds_in_order_as_a_python_loop():
    """``sequential_sum`` (with a mask, or ``None``: every term) is a Python loop's float sum, term by
    term in order, bit for bit (``np.sum``'s pairwise order can differ in the last bit)."""
    from kabu_envs.agents.batching import sequential_sum

    rng = np.random.default_rng(4)
    terms = (rng.random((200, 7)) * 10.0 ** rng.integers(-8, 8, (200, 7))).astype(np.float32)
    include = rng.random((200, 7)) < 0.6
    for inc in (include, None):
        got = sequential_sum(terms, inc)
        for i in range(len(terms)):
            acc = np.float32(0.0)
            for k in range(terms.shape[1]):
                if inc is None or inc[i, k]:
                    acc = np.float32(acc + terms[i, k])
            assert got[i] == acc and got.dtype == np.float32
    ints = rng.integers(-5, 5, (3, 4, 5))
    np.testing.assert_array_equal(sequential_sum(ints, None, axis=1), ints.sum(axis=1).astype(np.float64))
