"""Oicho-Kabu: rules engine (pure Python/numpy) and its PettingZoo adapter."""

from kabu_envs.oicho_kabu.actions import Action, action_name, num_actions

__all__ = ["Action", "action_name", "num_actions"]
