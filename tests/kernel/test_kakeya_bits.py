"""The Kakeya kernel's bit scans (LLVM ``ctlz``/``cttz``/``ctpop`` behind plain Python functions) and
the trick's winner read off the trick's card set (issue #26's play-out speed pass): compiled and plain
Python, equal to ``int``'s own methods and to the scalar engine's ``tricks.trick_winner``."""

from __future__ import annotations

import numba
import numpy as np

from kabu_envs.kakeya import make_config
from kabu_envs.kakeya.cards import NUM_CARDS, NUM_RANKS
from kabu_envs.kakeya.kernel import make_state, rules
from kabu_envs.kakeya.kernel.spec import RENSHO, T_LEADER, T_LED, T_NUM, TRUMP
from kabu_envs.kakeya.tricks import trick_winner


@numba.njit
def _scans(words: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    for i in range(words.shape[0]):
        out[i, 0] = rules.high_bit(words[i])
        out[i, 1] = rules.low_bit(words[i])
        out[i, 2] = rules.popcount(words[i])
        out[i, 3] = rules.side(i % 6, 3)


@numba.njit
def _winners(st: tuple[np.ndarray, ...], n: int, out: np.ndarray) -> None:  # pragma: no cover
    for b in range(out.shape[0]):
        out[b] = rules.trick_winner(b, st, n)


def _words() -> list[int]:
    rng = np.random.default_rng(26)
    words = [1 << c for c in range(NUM_CARDS)] + [(1 << NUM_CARDS) - 1]
    words += [int(w) for w in rng.integers(1, 1 << NUM_CARDS, size=500, dtype=np.uint64)]
    words += [
        int(w) & int(v) or 1 for w, v in rng.integers(1, 1 << NUM_CARDS, size=(200, 2), dtype=np.uint64)
    ]
    return words


def test_bit_scans_compiled_and_plain_equal_int_methods():
    words = _words()
    out = np.zeros((len(words), 4), dtype=np.int64)
    _scans(np.array(words, dtype=np.uint64), out)
    for i, w in enumerate(words):
        expect = (w.bit_length() - 1, (w & -w).bit_length() - 1, w.bit_count(), i % 6 % 3)
        assert tuple(out[i]) == expect, (w, tuple(out[i]))
        plain = (rules.high_bit(np.uint64(w)), rules.low_bit(np.uint64(w)), rules.popcount(np.uint64(w)))
        assert plain == expect[:3]


def test_trick_winner_on_the_card_set_equals_the_scalar_engine():
    """Random tricks of 1..n cards (any suits, Rensho among them or not): the same winning seat as
    ``tricks.trick_winner`` over the cards in play order; an empty trick has none (-1)."""
    rng = np.random.default_rng(7)
    for n in (4, 6):
        rows = 400
        state = st = make_state(rows, make_config(num_players=n))
        expect = np.full(rows, -1, dtype=np.int64)
        for b in range(rows):
            trump, leader = int(rng.integers(4)), int(rng.integers(n))
            rensho = int(rules.rensho_card(trump, int(rng.integers(2))))
            k = int(rng.integers(0, n + 1))
            cards = [int(c) for c in rng.choice(NUM_CARDS, size=k, replace=False)]
            if k and rensho not in cards and rng.random() < 0.3:
                cards[int(rng.integers(k))] = rensho
            order = [(leader + j) % n for j in range(k)]
            state.g[b, TRUMP], state.g[b, RENSHO], state.g[b, T_LEADER] = trump, rensho, leader
            state.g[b, T_LED] = cards[0] // NUM_RANKS if k else -1
            state.g[b, T_NUM] = k
            state.t_card[b] = -1
            state.t_bits[b] = 0
            for s, c in zip(order, cards, strict=True):
                state.t_card[b, s], state.t_bits[b, s] = c, 1 << c
            if k:
                expect[b] = order[trick_winner(cards, cards[0] // NUM_RANKS, trump, rensho)]
        out = np.zeros(rows, dtype=np.int64)
        _winners(st, n, out)
        assert out.tolist() == expect.tolist()
