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


def test_agent_families_register_themselves_through_entry_points(monkeypatch):
    """``<family>:<rest>`` names come from the ``kabu_envs.agents`` entry points (OpenSpiel's bots are
    one, declared in pyproject.toml), so the agents' registry imports no family; a family whose module
    cannot be imported is refused naming the extra that brings its dependencies."""
    from importlib import metadata

    from kabu_envs.agents import registry as agents

    assert agents.agent_families()["openspiel"].value == "kabu_envs.openspiel.bots:make_named_bot [openspiel]"
    fake = metadata.EntryPoint("nofamily", "kabu_envs_no_such_module:make [extra1]", agents.AGENT_FAMILIES)
    monkeypatch.setattr(agents, "agent_families", lambda: {"nofamily": fake})
    with pytest.raises(ValueError, match=r"pip install 'kabu-envs\[extra1\]'"):
        agents.make_agent("toy_card", "nofamily:x", 0)
    with pytest.raises(ValueError, match=r"or 'nofamily:\.\.\.'"):
        agents.make_agent("toy_card", "nosuchagent", 0)
