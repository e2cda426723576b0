"""Agents that play kabu-envs games through observations and action masks."""

from agents.base import Agent, BaseAgent, RandomAgent, legal_from_mask

__all__ = ["Agent", "BaseAgent", "RandomAgent", "legal_from_mask"]
