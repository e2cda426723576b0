"""Toy Card observation: named pieces (the space, the encoder and the docs come from them)."""

from __future__ import annotations

import numpy as np

from kabu_envs.core.obs_spec import ObsPiece, ObsSpec
from kabu_envs.toy_card.config import Config
from kabu_envs.toy_card.game import NUM_VALUES, Game

MAX_SEATS = 8


def obs_spec(config: Config | None = None) -> ObsSpec:
    return ObsSpec(
        (
            ObsPiece("own_card", NUM_VALUES, "one-hot value of the seat's own card"),
            ObsPiece("seat", MAX_SEATS, "one-hot own seat index"),
        )
    )


class Encoder:
    """Writes a seat's observation: its own card and seat, nothing of the other hands."""

    def __init__(self, config: Config) -> None:
        self.spec = obs_spec(config)
        self._card = self.spec.offsets["own_card"]
        self._seat = self.spec.offsets["seat"]

    def encode(self, game: Game, seat: int) -> np.ndarray:
        obs = np.zeros(self.spec.size, dtype=np.float32)
        obs[self._card + game.values[seat]] = 1.0
        obs[self._seat + seat] = 1.0
        return obs
