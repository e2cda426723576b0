"""Agents: the protocol (``base``), shared batching helpers, policy files, ensembles."""

from kabu_envs.agents.base import Agent, BaseAgent, Capabilities, RandomAgent, as_agent, legal_from_mask

__all__ = ["Agent", "BaseAgent", "Capabilities", "RandomAgent", "as_agent", "legal_from_mask"]
