"""Toy Card's agents (the registry record names them; ``random`` and trained models are generic)."""

from kabu_envs.toy_card.agents.scripted import ScriptedAgent

__all__ = ["ScriptedAgent"]
