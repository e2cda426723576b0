"""Oicho-Kabu: rules engine (pure Python/numpy) and its PettingZoo adapter.

This package's import pulls in only the pure engine (no gymnasium/pettingzoo); the PettingZoo env lives
in ``kabu_envs.oicho_kabu.env`` and is published as ``kabu_envs.oicho_kabu_v0``.
"""

from kabu_envs.oicho_kabu.actions import Action, action_name, num_actions
from kabu_envs.oicho_kabu.config import OichoConfig, make_config
from kabu_envs.oicho_kabu.deck import card_ids
from kabu_envs.oicho_kabu.game import Game, Phase
from kabu_envs.oicho_kabu.observation import Encoder, encode, obs_spec

__all__ = [
    "Action",
    "action_name",
    "num_actions",
    "OichoConfig",
    "make_config",
    "card_ids",
    "Game",
    "Phase",
    "Encoder",
    "encode",
    "obs_spec",
]
