"""The engines' shuffles as chance outcomes: a stand-in for the env's generator that OpenSpiel drives.

Every engine draws its randomness through its env's generator, and only by shuffling cards
(``rng.permutation(n)`` for a fresh deck, ``rng.shuffle(cards)`` for a stacked deck's rest or a
reshuffle). ``ChanceRng`` answers those two calls from a list of chance outcomes, one card at a time,
top first (as OpenSpiel's hearts deals): a shuffle of ``m`` cards reads ``m - 1`` outcomes (the last
card is forced). When the outcomes run out mid-shuffle it raises ``NeedChance`` naming the cards still
to order, and the OpenSpiel state becomes a chance node over them, each with probability
``1 / len(cards)`` (a uniform shuffle, as numpy's). So a fixed chance sequence is a stacked deck: the
first deal's outcomes are the ``deck`` of ``reset(options={"deck": [...]})``.

No numpy generator is built here: anything else an engine asks of its generator raises, naming it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


class NeedChance(Exception):  # noqa: N818 - a signal, not an error
    """The engine asked for a shuffle the outcomes so far do not finish; ``cards``: the ones left."""

    def __init__(self, cards: list[int]) -> None:
        super().__init__(f"a shuffle needs a chance outcome among {len(cards)} cards")
        self.cards = cards


class ChanceRng:
    """Shuffles read from ``outcomes`` (card ids, in the order they are dealt)."""

    def __init__(self, outcomes: Sequence[int]) -> None:
        self.outcomes = outcomes
        self.used = 0  # outcomes read so far

    def _order(self, items: list[int]) -> list[int]:
        if len(set(items)) != len(items):
            raise ValueError("the OpenSpiel adapter can only shuffle distinct card ids")
        left = sorted(items)
        out: list[int] = []
        while len(left) > 1:
            if self.used == len(self.outcomes):
                raise NeedChance(left)
            card = self.outcomes[self.used]
            if card not in left:
                raise ValueError(f"chance outcome {card} is not among the cards being shuffled {left}")
            self.used += 1
            left.remove(card)
            out.append(card)
        return out + left

    def permutation(self, n: int) -> np.ndarray:
        return np.asarray(self._order(list(range(int(n)))), dtype=np.int64)

    def shuffle(self, x: np.ndarray) -> None:
        x[:] = self._order([int(c) for c in x])

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(
            f"the OpenSpiel adapter models an engine's randomness as card shuffles "
            f"(permutation, shuffle); the engine asked its generator for {name!r}"
        )


class ShuffleLog:
    """A real generator's shuffles recorded as the chance outcomes that reproduce them (for lockstep
    tests and for replaying a seeded deal in OpenSpiel): wraps ``rng``, forwards the two calls."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.outcomes: list[int] = []

    def permutation(self, n: int) -> np.ndarray:
        out = self.rng.permutation(n)
        self.outcomes.extend(int(c) for c in out[:-1])
        return out

    def shuffle(self, x: np.ndarray) -> None:
        self.rng.shuffle(x)
        self.outcomes.extend(int(c) for c in x[:-1])

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"ShuffleLog records shuffles only; the engine asked for {name!r}")
