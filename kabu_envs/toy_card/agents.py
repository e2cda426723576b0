"""Toy Card's scripted agent: raise a winning card, pass a losing one (the optimal policy)."""

from __future__ import annotations

from typing import Any

import numpy as np

from kabu_envs.toy_card.game import Action


class ScriptedAgent:
    """RAISE when it is legal (the card wins), else PASS. Deterministic: the seed is unused."""

    name = "scripted"

    def __init__(self, seed: int | None = None, **rule_options: Any) -> None:
        self.seed = seed

    def reset(self, seed: int | None = None) -> None:
        self.seed = seed

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(Action.RAISE) if action_mask[Action.RAISE] else int(Action.PASS)
