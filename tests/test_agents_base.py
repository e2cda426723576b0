import numpy as np
import pytest

from kabu_envs.agents import Agent, BaseAgent, RandomAgent


def test_random_agent_only_legal_and_seeded(tmp_path):
    mask = np.zeros(10, dtype=np.int8)
    mask[[2, 5, 7]] = 1
    a, b = RandomAgent(seed=1), RandomAgent(seed=1)
    seq_a = [a.act(None, mask) for _ in range(50)]
    assert seq_a == [b.act(None, mask) for _ in range(50)]
    assert set(seq_a) == {2, 5, 7}
    assert isinstance(a, Agent)
    a.save(tmp_path / "r.json")
    assert isinstance(BaseAgent.load(tmp_path / "r.json", seed=0), RandomAgent)


def test_random_agent_rejects_empty_mask():
    with pytest.raises(ValueError, match="not to act"):
        RandomAgent(seed=0).act(None, np.zeros(4, dtype=np.int8))
