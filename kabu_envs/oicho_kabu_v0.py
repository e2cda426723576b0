"""Oicho-Kabu, version 0: ``env(**options)`` (wrapped) and ``raw_env(**options)``.

See ``kabu_envs.oicho_kabu.env`` for the environment card. Importing this module registers
``kabu_envs/oicho_kabu-v0`` in PettingZoo's AEC registry when the installed PettingZoo has one.
"""

from kabu_envs.oicho_kabu.actions import Action
from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.env import env, raw_env

__all__ = ["env", "raw_env", "Action", "make_config", "ENV_ID"]

ENV_ID = "kabu_envs/oicho_kabu-v0"


def _register() -> None:
    try:
        from pettingzoo.env_registry.registration import aec_registry, register
    except ImportError:  # PettingZoo without a registry (< 1.26): nothing to do
        return
    if ENV_ID not in aec_registry:
        register("aec", ENV_ID, entry_point="kabu_envs.oicho_kabu_v0:env")


_register()
