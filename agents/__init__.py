"""Agents that play kabu-envs games through observations and action masks."""

from kabu_envs.agents.base import Agent, BaseAgent, RandomAgent, can_act_batched, legal_from_mask

__all__ = ["Agent", "BaseAgent", "RandomAgent", "can_act_batched", "legal_from_mask"]
