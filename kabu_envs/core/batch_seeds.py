"""Many ``np.random.Generator(np.random.PCG64(seed))`` at once, bit for bit.

Re-dealing a thousand finished games per step makes a thousand generators; in ``PCG64(seed)`` most of
the cost is ``SeedSequence(seed)`` hashing the seed in Python-level code (the figures: CHANGELOG.md,
0.2.0). Its hash (numpy's
documented, stream-stable ``SeedSequence``: a pool of 4 words, then ``generate_state``) runs here on all
seeds as uint32 arrays; each ``PCG64`` then gets the words ``SeedSequence(seed).generate_state(4,
np.uint64)`` would give through ``ISeedSequence``, numpy's interface for exactly this, so the generator
state is identical (a test checks it against ``SeedSequence``). Only ``bit_generator.seed_seq`` differs
(a ``PresetSeedSequence``: no ``spawn``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.random.bit_generator import ISeedSequence

from kabu_envs.core.rng import make_rng

# numpy/random/bit_generator.pyx
_POOL = 4
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_MASK = 0xFFFFFFFF


class PresetSeedSequence(ISeedSequence):
    """The state words a ``SeedSequence`` computed elsewhere would generate (4 uint64, for ``PCG64``)."""

    __slots__ = ("words",)

    def __init__(self, words: np.ndarray) -> None:
        self.words = words

    def generate_state(self, n_words: int, dtype: Any = np.uint32) -> np.ndarray:
        if n_words != len(self.words) or np.dtype(dtype) != np.dtype(np.uint64):
            raise ValueError(f"preset for {len(self.words)} uint64 words, asked for {n_words} {dtype}")
        return self.words


@lru_cache(maxsize=32)
def _hash_consts(init: int, mult: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The hash constant before each of ``n`` ``hashmix`` calls (it never depends on the data), and the
    multiplier each call uses (the constant times ``mult``), as read-only uint32 arrays (cached: every
    restart of a training batch hashes its seeds, and the constants cost as much as a small batch)."""
    out, h = [], init
    for _ in range(n):
        out.append(h)
        h = (h * mult) & _MASK
    const = np.array(out, dtype=np.uint32)
    factor = np.array([(c * mult) & _MASK for c in out], dtype=np.uint32)
    const.flags.writeable = factor.flags.writeable = False
    return const, factor


def _hashmix(value: np.ndarray, const: np.ndarray, factor: np.ndarray) -> np.ndarray:
    """``hashmix`` with the constants already advanced: ``(value ^ c) * (c * mult)``, then xorshift 16;
    ``const`` and ``factor`` broadcast against ``value`` (several calls of the sequence at once)."""
    v = (value ^ const) * factor
    v ^= v >> np.uint32(16)
    return v


def _mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    r = np.uint32(_MIX_L) * x - np.uint32(_MIX_R) * y
    r ^= r >> np.uint32(16)
    return r


def _entropy_words(seed: int) -> list[int]:
    """``SeedSequence``'s entropy of an int: its 32-bit words, least significant first (0: one word)."""
    if seed < 0:
        raise ValueError(f"seed {seed} is negative: seeds are non-negative integers")
    words = []
    while True:
        words.append(seed & _MASK)
        seed >>= 32
        if not seed:
            return words


def _pools(entropy: np.ndarray) -> np.ndarray:
    """``SeedSequence.mix_entropy`` for rows of equally long entropy: (n, L) uint32 -> (n, 4) pools.

    The calls whose inputs do not depend on each other run together (numpy's per-call cost, not the
    arithmetic, is the price of a small batch): the 4 first words; for each source word, its 3 mixes
    into the other words (they read the source, which none of them changes); for each extra entropy
    word, its 4 mixes. The hash constants are consumed in the scalar code's order all the same."""
    n, length = entropy.shape
    calls = _POOL + _POOL * (_POOL - 1) + max(0, length - _POOL) * _POOL
    const, factor = _hash_consts(_INIT_A, _MULT_A, calls)
    first = np.zeros((n, _POOL), dtype=np.uint32)
    k = min(length, _POOL)
    first[:, :k] = entropy[:, :k]
    mixer = _hashmix(first, const[:_POOL], factor[:_POOL])
    at = _POOL
    for src in range(_POOL):
        dst = [d for d in range(_POOL) if d != src]
        hashed = _hashmix(mixer[:, src : src + 1], const[at : at + 3], factor[at : at + 3])
        mixer[:, dst] = _mix(mixer[:, dst], hashed)
        at += _POOL - 1
    for src in range(_POOL, length):
        hashed = _hashmix(entropy[:, src : src + 1], const[at : at + _POOL], factor[at : at + _POOL])
        mixer = _mix(mixer, hashed)
        at += _POOL
    return mixer


def hash_words(entropy: np.ndarray, n_words: int) -> np.ndarray:
    """``SeedSequence(row).generate_state(n_words)`` (uint32) for every row of ``(n, L)`` uint32 entropy
    words: the one vectorised copy of numpy's seed hash (the batch engines' generators, the duplicate
    evaluation's deal and agent seeds)."""
    pools = _pools(np.asarray(entropy, dtype=np.uint32))
    const, factor = _hash_consts(_INIT_B, _MULT_B, n_words)
    return _hashmix(pools[:, np.arange(n_words) % _POOL], const, factor)


def seed_states(seeds: Sequence[int]) -> np.ndarray:
    """``SeedSequence(s).generate_state(4, np.uint64)`` for every seed, as an (n, 4) uint64 array."""
    ints = [int(s) for s in seeds]
    try:  # seeds below 2**64 (all the engines draw): their one or two words as arrays, no loop
        arr = np.array(ints, dtype=np.uint64).reshape(-1)
    except OverflowError:  # a negative seed (named by _entropy_words) or a longer one
        arr = None
    state = np.empty((len(ints), 8), dtype=np.uint32)
    if arr is not None:
        low = (arr & np.uint64(_MASK)).astype(np.uint32)
        high = (arr >> np.uint64(32)).astype(np.uint32)
        two = high != 0
        for idx, words in ((~two, low[:, None]), (two, np.stack([low, high], axis=1))):
            if idx.any():
                state[idx] = hash_words(words[idx], 8)
    else:
        entropies = [_entropy_words(s) for s in ints]
        by_length: dict[int, list[int]] = {}
        for i, words in enumerate(entropies):
            by_length.setdefault(len(words), []).append(i)
        for length, idx in by_length.items():
            group = np.array([entropies[i] for i in idx], dtype=np.uint32).reshape(-1, length)
            state[idx] = hash_words(group, 8)
    return state.astype("<u4").view("<u8").astype(np.uint64)  # as generate_state: little-endian pairs


def make_generators(seeds: Sequence[int | None]) -> list[np.random.Generator]:
    """``[np.random.Generator(np.random.PCG64(s)) for s in seeds]``, the same states, cheaper (None:
    fresh OS entropy, as ``PCG64(None)``)."""
    known = [(i, s) for i, s in enumerate(seeds) if s is not None]
    states = seed_states([s for _, s in known])
    out: list[np.random.Generator | None] = [None] * len(seeds)
    for (i, _), words in zip(known, states, strict=True):
        out[i] = make_rng(PresetSeedSequence(words))
    return [g if g is not None else make_rng() for g in out]
