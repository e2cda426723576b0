"""Kakeya v0: ``env()``, ``raw_env()``, ``Action`` and ``make_config`` (rules and API: docs/kakeya.md)."""

from kabu_envs.kakeya.actions import Action
from kabu_envs.kakeya.config import make_config
from kabu_envs.kakeya.env import env, raw_env

ENV_ID = "kabu_envs/kakeya-v0"

try:  # PettingZoo >= 1.25 has a registry; older versions simply skip this
    from pettingzoo.env_registry.registration import aec_registry, register

    if ENV_ID not in aec_registry:
        register("aec", ENV_ID, entry_point="kabu_envs.kakeya_v0:env")
except ImportError:  # pragma: no cover - depends on the installed pettingzoo
    pass

__all__ = ["env", "raw_env", "Action", "make_config", "ENV_ID"]
