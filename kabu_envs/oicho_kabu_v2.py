"""Oicho-Kabu, version 2: ``env(**options)`` (wrapped) and ``raw_env(**options)``.

See ``kabu_envs.oicho_kabu.env`` for the environment card and its version history (what v2 changed)
and docs/oicho_kabu.md for the rules and API. Importing it registers the game's id
(``ENV_ID``, ``kabu_envs/OichoKabu-v2``, from its registry record) in PettingZoo's AEC registry when the
installed PettingZoo has one. ``kabu_envs.oicho_kabu_v1`` still plays v1's rules, for one release.
"""

from kabu_envs import registry as _registry
from kabu_envs.oicho_kabu.actions import Action
from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.env import env, raw_env

ENV_ID = _registry.get("oicho_kabu").pettingzoo_id
_registry.register_pettingzoo()  # importing the PettingZoo module makes its id known to PettingZoo

__all__ = ["env", "raw_env", "Action", "make_config", "ENV_ID"]
