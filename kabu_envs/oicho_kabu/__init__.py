"""Oicho-Kabu: rules engine (Python and numpy) and its PettingZoo adapter; the batch engine's numba
kernel (``kernel/``) is loaded and compiled on its first use only.

The template names every game package exports: ``Config`` (one validated rule set, built by
``make_config``), ``Game`` (the state machine), ``Phase``, ``Action``, ``Encoder`` and ``obs_spec`` (the
observation). This package's import pulls in only the engine (no gymnasium/pettingzoo, no numba); the
PettingZoo env lives in ``kabu_envs.oicho_kabu.env`` and is published as ``kabu_envs.oicho_kabu_v2``
(``kabu_envs.oicho_kabu_v1``: v1's rules, deprecated).
The rules are docs/oicho_kabu.md.
"""

from kabu_envs.oicho_kabu.actions import Action, action_name, num_actions
from kabu_envs.oicho_kabu.config import Config, make_config
from kabu_envs.oicho_kabu.deck import card_ids
from kabu_envs.oicho_kabu.game import Game, Phase
from kabu_envs.oicho_kabu.observation import Encoder, encode, obs_spec

__all__ = [
    "Config",
    "Game",
    "Encoder",
    "Phase",
    "make_config",
    "obs_spec",
    "Action",
    "action_name",
    "num_actions",
    "card_ids",
    "encode",
]
