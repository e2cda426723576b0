"""One seeded generator per env and stacked decks.

Every random choice of a game comes from the single ``np.random.Generator`` made
here from ``reset(seed)``; nothing touches Python's ``random`` or ``np.random``'s
global state.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def make_rng(seed: int | None) -> np.random.Generator:
    """The env's only source of randomness (fresh OS entropy when seed is None)."""
    return np.random.Generator(np.random.PCG64(seed))


def validate_deck_prefix(prefix: Sequence[int], deck_size: int) -> list[int]:
    """Check a user-given stacked deck prefix: ints in range, no duplicates."""
    if isinstance(prefix, (str, bytes)) or not hasattr(prefix, "__iter__"):
        raise ValueError(f"deck must be a sequence of card ids, got {prefix!r}")
    out: list[int] = []
    seen: set[int] = set()
    for c in prefix:
        if isinstance(c, bool) or not isinstance(c, (int, np.integer)):
            raise ValueError(f"deck: card id {c!r} is not an integer")
        c = int(c)
        if not 0 <= c < deck_size:
            raise ValueError(f"deck: card id {c} is out of range 0..{deck_size - 1}")
        if c in seen:
            raise ValueError(f"deck: card id {c} appears twice")
        seen.add(c)
        out.append(c)
    return out


def ordered_deck(rng: np.random.Generator, deck_size: int, prefix: Sequence[int] = ()) -> list[int]:
    """The draw order: ``prefix`` first, then the remaining ids in seeded random order."""
    first = validate_deck_prefix(prefix, deck_size)
    if not first:
        return rng.permutation(deck_size).tolist()
    used = set(first)
    rest = np.array([c for c in range(deck_size) if c not in used], dtype=np.int64)
    rng.shuffle(rest)
    return first + rest.tolist()
