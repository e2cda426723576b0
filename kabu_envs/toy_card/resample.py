"""Toy Card's resampling hook for search bots (``RESAMPLER``; read by ``kabu_envs.openspiel.bots``).

A seat sees only its own card's value (card ``order[seat]`` of the deal, value ``card // 4``), so a
world consistent with it puts a uniformly drawn card of that value in the seat's place and shuffles
every other card: uniform over the decks the seat cannot tell from the true one. (The generic hook,
which keeps the cards the viewer shows, would draw such decks only by rejection.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kabu_envs.toy_card.game import card_value


class ToyCardResampler:
    """``resample_deck(raw_env, seat, deck, rng)``: a deck whose card ``seat`` has the seat's value."""

    def resample_deck(
        self, raw_env: Any, seat: int, deck: Sequence[int], rng: np.random.Generator
    ) -> list[int]:
        value = raw_env.unwrapped.game.values[seat]  # the seat's own card: what its observation shows
        mine = sorted(c for c in deck if card_value(c) == value)
        card = mine[int(rng.integers(len(mine)))]
        rest = sorted(c for c in deck if c != card)
        order = [rest[int(k)] for k in rng.permutation(len(rest))]
        return [*order[:seat], card, *order[seat:]]


RESAMPLER = ToyCardResampler()
