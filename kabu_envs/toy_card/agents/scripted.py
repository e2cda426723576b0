"""Toy Card's scripted agent: raise a winning card, pass a losing one (the optimal policy)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kabu_envs.agents.base import BaseAgent
from kabu_envs.toy_card.game import NUM_ACTIONS, Action


class ScriptedAgent(BaseAgent):
    """RAISE when it is legal (the card wins), else PASS. Deterministic: the seed is unused."""

    name = "scripted"

    def __init__(self, seed: int | None = None, **rule_options: Any) -> None:
        super().__init__(seed=seed)

    def act_batch(
        self,
        observations: np.ndarray,
        action_masks: np.ndarray,
        rngs: Sequence[np.random.Generator] | None = None,
    ) -> np.ndarray:
        """``act`` for every row of ``(B, A)`` masks at once (deterministic: ``rngs`` is unused)."""
        masks = np.asarray(action_masks).astype(bool)
        if masks.ndim != 2 or masks.shape[1] != NUM_ACTIONS:
            raise ValueError(f"act_batch needs (B, {NUM_ACTIONS}) action masks, got shape {masks.shape}")
        return np.where(masks[:, Action.RAISE], int(Action.RAISE), int(Action.PASS)).astype(np.int64)
