"""Oicho-Kabu, version 1: ``env(**options)`` (wrapped) and ``raw_env(**options)``.

See ``kabu_envs.oicho_kabu.env`` for the environment card and its version history (what v1 changed)
and docs/oicho_kabu.md for the rules and API. Importing it registers the game's id (``ENV_ID``,
``kabu_envs/oicho_kabu-v1``, from its registry record) in PettingZoo's AEC
registry when the installed PettingZoo has one.
"""

from kabu_envs import registry as _registry
from kabu_envs.oicho_kabu.actions import Action
from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.env import env, raw_env

ENV_ID = _registry.get("oicho_kabu").pettingzoo_id
_registry.register_pettingzoo()  # importing the PettingZoo module makes its id known to PettingZoo

__all__ = ["env", "raw_env", "Action", "make_config", "ENV_ID"]
