"""Seeding a kernel batch engine owns (docs/batch.md#seeding): the deck feed and the row streams.

Two sources of deals, chosen per game at each reset:

- **a deck feed**, for a game reset with its own seed (``reset(seeds=[...])``, ``reset(rows=...,
  seeds=...)``): Python keeps that game's ``np.random.Generator`` (``core.rng.make_rng(seed)``, numpy's
  public API, as the AEC env's ``reset(seed=...)`` makes it) and draws each deal's card order exactly as
  the scalar engine does (``core.rng.ordered_deck``), one deal ahead, into the kernel's deck buffer. The
  kernel takes the deck when it deals; the engine tops the buffer up after the step. This works because
  every shuffle of the scalar engines is a whole-deck permutation whose draws do not depend on the play,
  so drawing the next deck early gives the same decks: the batch game plays the AEC env's deals.
- **the kernel's generator** (``core.kernel``) otherwise: ``reset(seed=s)``, ``reset()`` and every match
  ``autoreset`` starts. Row b's episode e deals from ``seed_state(s, b, e)``: reproducible, independent
  of the batch size, of the other rows and of numpy's internals. A whole-batch reset starts every row at
  episode 0 (the stream seed: ``s``, else game 0's seed, else fresh OS entropy); a later ``reset(rows=)``
  without seeds and each autoreset move the row to its next episode.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kabu_envs.batch.base import BatchEnv, DeckCheck
from kabu_envs.core.errors import check_seed
from kabu_envs.core.rng import make_rng, ordered_deck

_U64 = 1 << 64


class ResetPlan:
    """What one ``reset`` call deals, checked before anything changes (the batch contract)."""

    def __init__(
        self, rows: np.ndarray, seeds: list[int | None], decks: list[Any], stream_seed: int | None
    ) -> None:
        self.rows = rows  # the games reset, int64
        self.seeds = seeds  # per game: its own seed (a deck feed) or None (the kernel's generator)
        self.decks = decks  # per game: a checked stacked deck (list) or None
        self.stream_seed = stream_seed  # a whole-batch reset: the kernel streams' seed; else None


def fresh_seed() -> int:
    """A stream seed from OS entropy (``reset()`` without a seed)."""
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0])


def plan_reset(
    env: BatchEnv,
    seed: int | None,
    seeds: Sequence[int] | None,
    decks: Sequence[Any] | None,
    rows: Any,
    check_deck: DeckCheck,
) -> ResetPlan:
    """Check a ``reset`` call (seeds as the AEC env checks them, stacked decks as the game does, rows)
    and say what it deals; ``reset(seed=s)`` seeds the kernel streams, it gives no per-game seeds."""
    if seed is not None and seeds is not None:
        raise ValueError("reset(): give seed= or seeds=, not both")
    if seed is not None and rows is not None:
        raise ValueError("reset(rows=...): give one seed per row (seeds=...), not seed=")
    whole = check_seed(seed, "reset(seed=...)")
    picked = env._check_rows(rows)
    game_seeds, game_decks = env._resolve_seeds(None, seeds, decks, picked)
    game_decks = [None if d is None else check_deck(d) for d in game_decks]
    stream: int | None = None
    if picked is None:
        first = game_seeds[0] if seeds is not None else None
        stream = whole if whole is not None else first if first is not None else fresh_seed()
    target = np.arange(env.batch_size, dtype=np.int64) if picked is None else picked
    return ResetPlan(target, game_seeds, game_decks, stream)


class DeckFeed:
    """The numpy generators of the games that deal from a feed, one per row (None: no feed)."""

    def __init__(self, batch_size: int, deck_size: int) -> None:
        self.deck_size = deck_size
        self.rngs: list[np.random.Generator | None] = [None] * batch_size

    def start(self, row: int, seed: int, prefix: Sequence[int] | None) -> list[int]:
        """Row ``row`` now deals from ``make_rng(seed)``: its first deck (``prefix`` first)."""
        rng = self.rngs[row] = make_rng(seed)
        return ordered_deck(rng, self.deck_size, () if prefix is None else prefix)

    def stop(self, row: int) -> None:
        self.rngs[row] = None

    def next_deck(self, row: int) -> np.ndarray:
        """The row's next deal: a whole-deck permutation (``ordered_deck`` without a prefix)."""
        rng = self.rngs[row]
        if rng is None:
            raise RuntimeError(f"game {row} has no deck feed")
        return rng.permutation(self.deck_size)


def u64(seed: int) -> np.uint64:
    """A seed as the kernel's 64-bit word."""
    return np.uint64(seed % _U64)


def decode_compact(packed: np.ndarray, real: np.ndarray, nbits: int) -> np.ndarray:
    """The float32 observations of a compact one: the first ``nbits`` entries are 0/1, packed eight to a
    byte (little bit order, ``np.packbits(..., bitorder="little")``); the rest are ``real`` (float32)."""
    bits = np.unpackbits(packed, axis=1, count=nbits, bitorder="little")
    out = np.empty((len(packed), nbits + real.shape[1]), dtype=np.float32)
    out[:, :nbits] = bits
    out[:, nbits:] = real
    return out


OBSERVATION_FORMATS = ("float32", "compact")


def check_observation_format(value: Any) -> str:
    if value not in OBSERVATION_FORMATS:
        raise ValueError(f"observation={value!r}: one of {OBSERVATION_FORMATS} is expected")
    return str(value)
