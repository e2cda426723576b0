"""Seeding a kernel batch engine owns (docs/batch.md#seeding): the deck feed and the row streams.

Two sources of deals, chosen per game at each reset:

- **a deck feed**, for a game reset with its own seed (``reset(seeds=[...])``, ``reset(rows=...,
  seeds=...)``): Python keeps that game's ``np.random.Generator`` (``core.rng.make_rng(seed)``, numpy's
  public API, as the AEC env's ``reset(seed=...)`` makes it) and draws each shuffle exactly as the
  scalar engine does (``rng.permutation(n)``: ``core.rng.ordered_deck``'s and ``Deck``'s draws) when the
  kernel waits for it (``KernelBatchEnv._feed``): the batch game plays the AEC env's deals. A kernel
  pauses a fed game at each shuffle (Oicho-Kabu), or, when every shuffle is a whole-deck permutation
  whose draws do not depend on the play (Kakeya, Toy Card), takes it one deal ahead into a deck buffer.
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


def u64(seed: int) -> np.uint64:
    """A seed as the kernel's 64-bit word: itself below 2**64; a larger one is hashed down by numpy's
    ``SeedSequence`` (which reads every bit of it), so ``reset(seed=5)`` and ``reset(seed=5 + 2**64)``
    deal different games, as the AEC env's ``reset(seed=...)`` does (docs/batch.md#seeding)."""
    if 0 <= seed < _U64:
        return np.uint64(seed)
    return np.uint64(np.random.SeedSequence(seed).generate_state(1, np.uint64)[0])


def decode_compact(packed: np.ndarray, real: np.ndarray, real_at: int, size: int) -> np.ndarray:
    """The (k, size) float32 observations of compact ones, every kernel engine's format: the real-valued
    entries are the columns ``[real_at, real_at + real.shape[1])``, given as ``real`` (float32); the other
    entries are 0/1, in order, packed eight to a byte in ``packed`` (little bit order, ``np.packbits(...,
    bitorder="little")``; padding bytes after them are ignored)."""
    hi = real_at + real.shape[1]
    flags = np.unpackbits(packed, axis=1, count=size - real.shape[1], bitorder="little")
    out = np.empty((len(packed), size), dtype=np.float32)
    out[:, :real_at] = flags[:, :real_at]
    out[:, real_at:hi] = real
    out[:, hi:] = flags[:, real_at:]
    return out


OBSERVATION_FORMATS = ("float32", "compact")


def check_observation_format(value: Any) -> str:
    if value not in OBSERVATION_FORMATS:
        raise ValueError(f"observation={value!r}: one of {OBSERVATION_FORMATS} is expected")
    return str(value)
