"""The library's random generators, and stacked decks.

Every random stream of the library (an env's ``reset(seed)``, a batch engine's games, an agent's
choices, the evaluation's deals, training's sampling) is an ``np.random.Generator`` made by
``make_rng``: numpy's PCG64, seeded by ``SeedSequence`` hashing. Nothing touches Python's ``random``
or ``np.random``'s global state, and no other module builds a generator (``tests/test_core.py``
checks the library's code), so the kind of stream, and with it every seeded result, is chosen here
once. Seeds themselves may be derived with ``np.random.SeedSequence`` (a hash, not a stream).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Set
from typing import Any, TypeAlias

import numpy as np
from numpy.random.bit_generator import ISeedSequence

# what numpy's PCG64 accepts: an int (or numpy integer), a sequence of ints (hashed together), a
# SeedSequence or any ISeedSequence; None: OS entropy
Seed: TypeAlias = int | np.integer[Any] | Sequence[int] | np.random.SeedSequence | ISeedSequence | None


def make_rng(seed: Seed = None) -> np.random.Generator:
    """``np.random.Generator(np.random.PCG64(seed))``: the one constructor of the library's random
    streams (fresh OS entropy when ``seed`` is None). The same seed gives the same stream, so a stream
    made here equals one made directly from ``PCG64(seed)`` or ``np.random.default_rng(seed)``."""
    # numpy's stubs list only SeedSequence, but PCG64 takes any ISeedSequence (documented)
    return np.random.Generator(np.random.PCG64(seed))  # type: ignore[arg-type]


def legacy_random_state(seed: int) -> np.random.RandomState:
    """numpy's legacy ``RandomState(seed)`` (MT19937), for third-party code that takes one: OpenSpiel's
    Python bots (IS-MCTS, MCTS) draw through its ``randint``/``choice``/``uniform``. Seeded, never
    global; ``kabu_envs.openspiel.bots`` seeds it from an agent's own generator."""
    return np.random.RandomState(int(seed))


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


def rng_from_state(state: Any) -> np.random.Generator:
    """A generator in ``state`` (numpy's ``bit_generator.state`` of a PCG64, as the env's state API
    saves it); raises ``ValueError`` naming the problem for anything else."""
    if not isinstance(state, dict) or state.get("bit_generator") != "PCG64":
        raise ValueError(
            f"'rng' must be a PCG64 generator state (numpy's bit_generator.state), got {state!r}"
        )
    bit_generator: Any = np.random.PCG64()
    try:
        bit_generator.state = state
    except (TypeError, ValueError, KeyError, OverflowError) as exc:
        raise ValueError(f"'rng' is not a valid PCG64 state: {exc}") from None
    return np.random.Generator(bit_generator)


def copy_rng(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in ``rng``'s state (PCG64)."""
    bit_generator: Any = np.random.PCG64(0)
    bit_generator.state = rng.bit_generator.state
    return np.random.Generator(bit_generator)
