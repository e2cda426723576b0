"""Kakeya: rules engine (Python and numpy) and its PettingZoo adapter.

The batch engine and the search run a numba kernel (``kernel/``), loaded and compiled on their first
use only. This package's import pulls in only the engine (no gymnasium/pettingzoo, no numba); the
PettingZoo env lives in ``kabu_envs.kakeya.env`` and is published as ``kabu_envs.kakeya_v2``.
"""

from kabu_envs.kakeya.actions import NUM_ACTIONS, Action, action_name
from kabu_envs.kakeya.cards import card_id, card_name
from kabu_envs.kakeya.config import Config, make_config
from kabu_envs.kakeya.game import Game, Phase
from kabu_envs.kakeya.observation import Encoder, obs_spec

__all__ = [
    "Action",
    "action_name",
    "card_id",
    "card_name",
    "NUM_ACTIONS",
    "Config",
    "make_config",
    "Game",
    "Phase",
    "Encoder",
    "obs_spec",
]
