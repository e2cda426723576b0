"""One seeded generator per env and stacked decks.

Every random choice of a game comes from the single ``np.random.Generator`` made
here from ``reset(seed)``; nothing touches Python's ``random`` or ``np.random``'s
global state.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Set

import numpy as np


def make_rng(seed: int | None) -> np.random.Generator:
    """The env's only source of randomness (fresh OS entropy when seed is None)."""
    return np.random.Generator(np.random.PCG64(seed))


def validate_deck_prefix(prefix: Iterable[int], deck_size: int) -> list[int]:
    """Check a user-given stacked deck prefix: card ids in deal order, as a list, a tuple or a 1-D
    integer array; every id an integer in ``0..deck_size - 1``, none twice.

    Anything else raises ``ValueError`` naming the problem: a mapping or a set (no deal order), a string,
    a 0-D or 2-D array, a non-iterable, a card id that is no integer, out of range or repeated.
    """
    if isinstance(prefix, np.ndarray):
        if prefix.ndim != 1:
            raise ValueError(
                f"deck must be a sequence of card ids in deal order (a list, a tuple or a 1-D array), "
                f"got a {prefix.ndim}-D array {_short_repr(prefix)}"
            )
    elif isinstance(prefix, (Mapping, Set)):
        raise ValueError(
            f"deck must be a sequence of card ids in deal order (a list or a tuple), got a "
            f"{type(prefix).__name__} {_short_repr(prefix)}: it has no deal order"
        )
    elif isinstance(prefix, (str, bytes)) or not isinstance(prefix, Iterable):
        raise ValueError(
            f"deck must be a sequence of card ids in deal order (a list or a tuple), "
            f"got {type(prefix).__name__} {_short_repr(prefix)}"
        )
    out: list[int] = []
    seen: set[int] = set()
    for c in prefix:
        if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer)):
            raise ValueError(f"deck: card id {_short_repr(c)} is not an integer")
        c = int(c)
        if not 0 <= c < deck_size:
            raise ValueError(f"deck: card id {_short_repr(c)} is out of range 0..{deck_size - 1}")
        if c in seen:
            raise ValueError(f"deck: card id {c} appears twice")
        seen.add(c)
        out.append(c)
    return out


def _short_repr(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def ordered_deck(rng: np.random.Generator, deck_size: int, prefix: Sequence[int] = ()) -> list[int]:
    """The draw order: ``prefix`` first, then the remaining ids in seeded random order."""
    first = validate_deck_prefix(prefix, deck_size)
    if not first:
        return rng.permutation(deck_size).tolist()
    used = set(first)
    rest = np.array([c for c in range(deck_size) if c not in used], dtype=np.int64)
    rng.shuffle(rest)
    return first + rest.tolist()
