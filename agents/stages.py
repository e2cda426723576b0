"""Policy stages: a game's split of its decisions into named stages, so that an ensemble may give each
stage its own members.

Why: one network fitted to every decision of a game spends its capacity where most decisions are, and a
clone of a search can be far worse in one part of the game than in the rest (in Kakeya the last tricks,
where the search reads the remaining cards exactly;
docs/studies/kakeya_models.md#where-the-clone-loses). A specialist fitted to that stage's decisions
alone can replace the generalists there, at no more cost a decision: each decision runs only the
members of its stage.

Protocol: a game's module ``stages.py`` holds ``POLICY_STAGES``, a mapping of names to ``PolicyStages``
(``GameSpec.hook("stages", "POLICY_STAGES")``); a game without it has none. A split's ``of`` is a pure
numpy function of the observation, so a staged policy still sees only what its seat may see.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from kabu_envs.agents.declared import declared, pick
from kabu_envs.core.declared import STAGES_HOOK, PolicyStages


def known_stages(game: str) -> dict[str, PolicyStages]:
    """The stage splits ``game`` declares (name -> record), none when it declares none."""
    return declared(game, STAGES_HOOK)


def get_stages(game: str, name: str) -> PolicyStages:
    """The record of ``name``; an unknown name raises naming the game's splits."""
    return pick(known_stages(game), "policy stages", game, name)


class StageSplit:
    """The stages of a batch of decisions under split ``name`` of ``game``'s table."""

    def __init__(self, game: str, name: str, env_options: Mapping[str, Any]) -> None:
        self.name = name
        self.record = get_stages(game, name)
        self.env_options = dict(env_options)
        names = self.record.names
        if len(names) < 2 or len(set(names)) != len(names):
            raise ValueError(f"policy stages {name!r}: needs two or more distinct stage names, got {names}")
        self.names = tuple(names)

    def index(self, stage: str) -> int:
        """The index of ``stage``; an unknown stage raises naming the split's stages."""
        if stage not in self.names:
            known = list(self.names)
            raise ValueError(f"policy stages {self.name!r} have no stage {stage!r}; stages: {known}")
        return self.names.index(stage)

    def of(self, observations: np.ndarray) -> np.ndarray:
        """``(B,)`` int64 stage indices of a batch ``(B, obs_size)``, checked to be in range."""
        obs = np.asarray(observations, dtype=np.float32)
        stage = np.asarray(self.record.of(obs, self.env_options), dtype=np.int64).reshape(-1)
        if stage.shape != (len(obs),) or (len(stage) and (stage.min() < 0 or stage.max() >= len(self.names))):
            raise ValueError(f"policy stages {self.name!r}: stage indices out of range for {len(obs)} rows")
        return stage
