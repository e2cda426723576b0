"""Any registered game as an RLlib multi-agent env: the AEC env behind RLlib's PettingZoo wrapper.

RLlib's action-masking RLModule (``ActionMaskingTorchRLModule``) reads a dict observation with the
keys ``"observations"`` and ``"action_mask"``; the games' AEC envs give ``{"observation",
"action_mask"}``. ``RLlibObservation`` renames the one key, nothing else: the values (the ``int8``
mask included: torch's ``log`` promotes it to float in the module), the game, its turn order, its
rewards and what each seat may see are the env's own. ``rllib_env`` puts that behind
``ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv``, which turns the turn-by-turn AEC protocol
into RLlib's ``MultiAgentEnv`` (one acting seat per step; every seat's last reward at the end).

This module imports neither ray nor torch at import time (the wrapper is tested without them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from pettingzoo.utils import BaseWrapper

from kabu_envs import registry

OBS_KEY = "observations"
MASK_KEY = "action_mask"


class RLlibObservation(BaseWrapper):
    """An AEC env whose observations are ``{"observations": obs, "action_mask": mask}``."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        # one space object per seat, as PettingZoo asks (seeding a space must stick)
        self._spaces: dict[str, gymnasium.spaces.Dict] = {}

    def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
        if agent not in self._spaces:
            inner = self.env.observation_space(agent)
            self._spaces[agent] = gymnasium.spaces.Dict(
                {OBS_KEY: inner["observation"], MASK_KEY: inner["action_mask"]}
            )
        return self._spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray] | None:
        obs = self.env.observe(agent)
        if obs is None:
            return None
        return {OBS_KEY: obs["observation"], MASK_KEY: obs["action_mask"]}


def make_aec(game: str, env_options: Mapping[str, Any] | None = None) -> RLlibObservation:
    """The game's wrapped AEC env (from the registry) with RLlib's observation keys."""
    return RLlibObservation(registry.get(game).make_env(**dict(env_options or {})))


def rllib_env(env_config: Mapping[str, Any]) -> Any:
    """RLlib's env creator: ``env_config = {"game": id, "env_options": {...}}`` -> ``PettingZooEnv``."""
    from ray.rllib.env.wrappers.pettingzoo_env import (  # type: ignore[import-not-found,unused-ignore]
        PettingZooEnv,
    )

    return PettingZooEnv(make_aec(str(env_config["game"]), env_config.get("env_options")))
