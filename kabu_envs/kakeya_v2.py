"""Kakeya, version 2: ``env(**options)`` (wrapped) and ``raw_env(**options)``.

See ``kabu_envs.kakeya.env`` for the environment card and docs/kakeya.md for the rules and API (what v2
changed: docs/kakeya.md#version-history; ``kakeya_v1`` and ``kakeya_v0`` still play their rules).
Importing it registers the game's id (``ENV_ID``, ``kabu_envs/Kakeya-v2``, from its registry record) in
PettingZoo's AEC registry when the installed PettingZoo has one.
"""

from kabu_envs import registry as _registry
from kabu_envs.kakeya.actions import Action
from kabu_envs.kakeya.config import make_config
from kabu_envs.kakeya.env import env, raw_env

ENV_ID = _registry.get("kakeya").pettingzoo_id
_registry.register_pettingzoo()  # importing the PettingZoo module makes its id known to PettingZoo

__all__ = ["env", "raw_env", "Action", "make_config", "ENV_ID"]
