"""Kakeya: rules engine (pure Python/numpy) and its PettingZoo adapter."""

from kabu_envs.kakeya.actions import NUM_ACTIONS, Action, action_name, card_id, card_name
from kabu_envs.kakeya.config import KakeyaConfig, make_config

__all__ = ["Action", "action_name", "card_id", "card_name", "NUM_ACTIONS", "KakeyaConfig", "make_config"]
