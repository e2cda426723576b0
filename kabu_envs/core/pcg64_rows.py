"""Many numpy ``PCG64`` streams as arrays, drawn from together, bit for bit ``np.random.Generator``'s.

Why: the training VecEnv restarts hundreds of games per learner step, and each restart draws, from its
row's own generator (the view's ``np_random``), the deal's seed, the learner's seat and the opponents'
seeds: several small numpy calls per row, one row at a time, a large share of the env side
(benchmarks/README.md, issue #15's restarts). Here the 128-bit states of all rows are arrays (high and
low words), stepped by numpy's own recurrence (numpy/random/src/pcg64: ``state = state * MULT + inc``,
the output is XSL-RR of the new state), jumped ahead in one affine map (``state_k = MULT**k * state +
(MULT**(k-1) + .. + 1) * inc``), and numpy's draws are rebuilt on top with numpy's algorithms:

* ``random()``: the 53 high bits of one output (``next_double``);
* ``integers(k)``: Lemire's method on one 64-bit output (``bounded_lemire_uint64``) above 2**32, and on
  a 32-bit output below, the bit generator's buffered halves (``pcg64_next32``: the low half of a new
  output, its high half kept for the next 32-bit draw); rejected draws are redrawn as numpy does.

Not here: ``shuffle``. Rebuilt this way (masked rejection per card, all rows together) it measured
slower than numpy's own per-generator shuffle at every batch size tried (benchmarks/README.md), so the
deals keep numpy's generators.

A row can leave for a real ``Generator`` (``generator``) and come back (``load``). The tests compare
every draw, the rejections included, with numpy's, and the states with ``bit_generator.state``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kabu_envs.core.batch_seeds import PresetSeedSequence, seed_states
from kabu_envs.core.rng import make_rng

_MULT = 0x2360ED051FC65DA44385DF649FCCF645  # PCG_DEFAULT_MULTIPLIER_128 (numpy/random/src/pcg64)
_M64 = (1 << 64) - 1
_M128 = (1 << 128) - 1
_LO32 = np.uint64(0xFFFFFFFF)
_U64 = np.uint64
_JUMPS = 256  # jump tables cover 0..256 steps; longer advances are taken in pieces


def _split(values: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """128-bit Python ints as (high, low) uint64 arrays."""
    return (
        np.array([v >> 64 for v in values], dtype=_U64),
        np.array([v & _M64 for v in values], dtype=_U64),
    )


def _jump_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """[k] -> (MULT**k, sum_{j<k} MULT**j) mod 2**128, split in words: k steps are one affine map."""
    mul, add = [1], [0]
    for _ in range(_JUMPS):
        add.append((add[-1] * _MULT + 1) & _M128)
        mul.append((mul[-1] * _MULT) & _M128)
    a_hi, a_lo = _split(mul)
    s_hi, s_lo = _split(add)
    for t in (a_hi, a_lo, s_hi, s_lo):
        t.flags.writeable = False
    return a_hi, a_lo, s_hi, s_lo


_A_HI, _A_LO, _S_HI, _S_LO = _jump_tables()


def mulhi64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The high 64 bits of the 128-bit products ``a * b`` (uint64 arrays, broadcast), from 32-bit halves."""
    a0, a1 = a & _LO32, a >> _U64(32)
    b0, b1 = b & _LO32, b >> _U64(32)
    p01, p10 = a0 * b1, a1 * b0
    mid = (a0 * b0) >> _U64(32)
    mid += p01 & _LO32
    mid += p10 & _LO32
    hi = a1 * b1
    hi += p01 >> _U64(32)
    hi += p10 >> _U64(32)
    hi += mid >> _U64(32)
    return hi


def _affine(
    a_hi: np.ndarray,
    a_lo: np.ndarray,
    s_hi: np.ndarray,
    s_lo: np.ndarray,
    x_hi: np.ndarray,
    x_lo: np.ndarray,
    i_hi: np.ndarray,
    i_lo: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``a * x + s * i`` mod 2**128, every operand as (high, low) words (broadcast)."""
    lo1 = a_lo * x_lo
    hi = mulhi64(a_lo, x_lo)
    hi += a_lo * x_hi
    hi += a_hi * x_lo
    lo2 = s_lo * i_lo
    hi += mulhi64(s_lo, i_lo)
    hi += s_lo * i_hi
    hi += s_hi * i_lo
    lo = lo1 + lo2
    hi += lo < lo1  # the carry
    return hi, lo


def _jump(
    k: np.ndarray | int, hi: np.ndarray, lo: np.ndarray, inc_hi: np.ndarray, inc_lo: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The states ``k`` steps on (``k`` <= ``_JUMPS``, an int or an array broadcast against the state)."""
    return _affine(_A_HI[k], _A_LO[k], _S_HI[k], _S_LO[k], hi, lo, inc_hi, inc_lo)


def _output(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    """XSL-RR: (high ^ low) rotated right by the top 6 bits of the state."""
    x = hi ^ lo
    r = hi >> _U64(58)
    out = x >> r
    out |= x << ((_U64(64) - r) & _U64(63))
    return out


class PCG64Rows:
    """``n`` PCG64 bit generators as arrays: the 128-bit state and increment as (high, low) uint64 words,
    and the buffered 32-bit half (``has_uint32``, ``uinteger``) of each."""

    def __init__(self, n: int) -> None:
        self.hi = np.zeros(n, dtype=_U64)
        self.lo = np.zeros(n, dtype=_U64)
        self.inc_hi = np.zeros(n, dtype=_U64)
        self.inc_lo = np.ones(n, dtype=_U64)
        self.has32 = np.zeros(n, dtype=bool)
        self.u32 = np.zeros(n, dtype=_U64)

    def seed(self, rows: np.ndarray, seeds: Sequence[int | None]) -> None:
        """Rows ``rows`` become ``PCG64(seed)`` (None: fresh OS entropy), numpy's seeding: the words of
        ``SeedSequence(seed).generate_state(4, uint64)`` (hashed for all rows at once) as the initial
        state and the stream, then ``pcg64_srandom_r``: state 0, one step, + initial state, one step."""
        rows = np.asarray(rows, dtype=np.int64)
        known = [i for i, s in enumerate(seeds) if s is not None]
        values = [s for s in seeds if s is not None]
        if len(known) < len(seeds):
            fresh = [i for i, s in enumerate(seeds) if s is None]
            self.load(rows[fresh], [make_rng() for _ in fresh])
        if not known:
            return
        words = seed_states(values)
        at = rows[known]
        inc_hi = (words[:, 2] << _U64(1)) | (words[:, 3] >> _U64(63))
        inc_lo = (words[:, 3] << _U64(1)) | _U64(1)
        hi = inc_hi + words[:, 0]  # state 0 stepped is inc; plus the initial state
        lo = inc_lo + words[:, 1]
        hi += lo < inc_lo
        hi, lo = _jump(1, hi, lo, inc_hi, inc_lo)
        self.hi[at], self.lo[at], self.inc_hi[at], self.inc_lo[at] = hi, lo, inc_hi, inc_lo
        self.has32[at] = False
        self.u32[at] = 0

    def load(self, rows: Sequence[int] | np.ndarray, generators: Sequence[np.random.Generator]) -> None:
        """Rows ``rows`` take the states of ``generators`` (PCG64 ones; per row: a rare path)."""
        for b, g in zip(np.asarray(rows).tolist(), generators, strict=True):
            st = g.bit_generator.state
            if st["bit_generator"] != "PCG64":
                raise ValueError(f"PCG64Rows holds PCG64 streams, got a {st['bit_generator']} generator")
            s, inc = int(st["state"]["state"]), int(st["state"]["inc"])
            self.hi[b], self.lo[b] = s >> 64, s & _M64
            self.inc_hi[b], self.inc_lo[b] = inc >> 64, inc & _M64
            self.has32[b] = bool(st["has_uint32"])
            self.u32[b] = int(st["uinteger"])

    def generator(self, b: int) -> np.random.Generator:
        """Row ``b`` as a ``Generator(PCG64)`` in the same state (which then draws on its own)."""
        g = make_rng(PresetSeedSequence(np.zeros(4, dtype=_U64)))  # its state is replaced at once
        g.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {
                "state": (int(self.hi[b]) << 64) | int(self.lo[b]),
                "inc": (int(self.inc_hi[b]) << 64) | int(self.inc_lo[b]),
            },
            "has_uint32": int(self.has32[b]),
            "uinteger": int(self.u32[b]),
        }
        return g

    def outputs(self, rows: np.ndarray, k: int, start: int = 0) -> np.ndarray:
        """(len(rows), k) uint64: the 64-bit outputs ``start + 1 .. start + k`` ahead of each row's state
        (``random_raw``'s values), the state left as it is."""
        hi, lo = self.hi[rows], self.lo[rows]
        inc_hi, inc_lo = self.inc_hi[rows], self.inc_lo[rows]
        while start > 0:  # (longer than the tables: jump in pieces)
            step = min(start, _JUMPS)
            hi, lo = _jump(step, hi, lo, inc_hi, inc_lo)
            start -= step
        parts = []
        done = 0
        while True:  # pieces of at most _JUMPS outputs, each from the state where the last one ended
            j = np.arange(1, min(k - done, _JUMPS) + 1)
            parts.append(_output(*_jump(j, hi[:, None], lo[:, None], inc_hi[:, None], inc_lo[:, None])))
            done += len(j)
            if done >= k:
                break
            hi, lo = _jump(len(j), hi, lo, inc_hi, inc_lo)
        return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)

    def advance(self, rows: np.ndarray, steps: np.ndarray) -> None:
        """Move each row of ``rows`` (distinct) ``steps`` 64-bit outputs on (per row counts >= 0)."""
        steps = np.asarray(steps, dtype=np.int64)
        if not len(rows):
            return
        hi, lo = self.hi[rows], self.lo[rows]
        inc_hi, inc_lo = self.inc_hi[rows], self.inc_lo[rows]
        left = steps.copy()
        while True:
            k = np.minimum(left, _JUMPS)
            hi, lo = _jump(k, hi, lo, inc_hi, inc_lo)
            left -= k
            if not left.any():
                break
        self.hi[rows], self.lo[rows] = hi, lo


class Draws:
    """Draws from the rows ``rows`` (distinct) of ``streams`` in the order a ``Generator`` per row would
    make them, read from a window of precomputed outputs (grown when a row needs more); ``commit()``
    moves the streams past what was drawn. ``sel`` arguments pick positions in ``rows`` (distinct)."""

    def __init__(self, streams: PCG64Rows, rows: np.ndarray, window: int = 8) -> None:
        self.streams, self.rows = streams, np.asarray(rows, dtype=np.int64)
        m = len(self.rows)
        self.out = streams.outputs(self.rows, window) if m else np.zeros((0, window), dtype=_U64)
        self.pos = np.zeros(m, dtype=np.int64)
        self.has32 = streams.has32[self.rows].copy()
        self.u32 = streams.u32[self.rows].copy()
        self._all = np.arange(m)

    def _sel(self, sel: np.ndarray | None) -> np.ndarray:
        return self._all if sel is None else np.asarray(sel, dtype=np.int64)

    def _ensure(self, sel: np.ndarray) -> None:
        """The window holds the next output of every row of ``sel``."""
        have = self.out.shape[1]
        need = int(self.pos[sel].max()) + 1 if len(sel) else 0
        if need > have:
            more = self.streams.outputs(self.rows, max(have, need - have), start=have)
            self.out = np.concatenate([self.out, more], axis=1)

    def next64(self, sel: np.ndarray | None = None) -> np.ndarray:
        """``next_uint64`` for the rows ``sel`` (None: all)."""
        sel = self._sel(sel)
        self._ensure(sel)
        pos = self.pos[sel]
        self.pos[sel] = pos + 1
        return self.out[sel, pos]

    def skip(self, counts: np.ndarray | int, sel: np.ndarray | None = None) -> None:
        """``counts`` 64-bit draws whose values are not needed (``random()`` draws that pick nothing)."""
        sel = self._sel(sel)
        self.pos[sel] += counts

    def random(self, sel: np.ndarray | None = None) -> np.ndarray:
        """``Generator.random()``: the high 53 bits of one output, times 2**-53."""
        return (self.next64(sel) >> _U64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)

    def next32(self, sel: np.ndarray | None = None) -> np.ndarray:
        """``next_uint32`` (as uint64): the buffered high half if there is one, else the low half of a new
        output, whose high half is then buffered."""
        sel = self._sel(sel)
        self._ensure(sel)
        has = self.has32[sel]
        pos = self.pos[sel]
        fresh = self.out[sel, pos]
        buffered = self.u32[sel]
        value = np.where(has, buffered, fresh & _LO32)
        self.u32[sel] = np.where(has, buffered, fresh >> _U64(32))
        self.pos[sel] = pos + ~has
        self.has32[sel] = ~has
        return value

    def integers(self, bound: int, sel: np.ndarray | None = None) -> np.ndarray:
        """``Generator.integers(bound)`` (int64 values in [0, bound)) for the rows ``sel``."""
        if not 1 <= bound <= 1 << 63:
            raise ValueError(f"bound must be in 1..2**63, got {bound}")
        sel = self._sel(sel)
        if bound == 1:  # numpy draws nothing for a range of one value
            return np.zeros(len(sel), dtype=np.int64)
        if bound <= 1 << 32:
            return self.integers32(np.full(len(sel), bound, dtype=_U64), sel)
        b = _U64(bound)
        threshold = _U64(((1 << 64) - bound) % bound)  # (UINT64_MAX - rng) % rng_excl
        x = self.next64(sel)
        value, leftover = mulhi64(x, b), x * b
        redo = np.flatnonzero(leftover < threshold)
        while len(redo):  # numpy's rejection (probability below 2**-62 for the seed draws)
            x = self.next64(sel[redo])
            value[redo], leftover = mulhi64(x, b), x * b
            redo = redo[leftover < threshold]
        return value.astype(np.int64)

    def integers32(self, bounds: np.ndarray, sel: np.ndarray | None = None) -> np.ndarray:
        """``Generator.integers(bound)`` for bounds in 2..2**32 given per row (``buffered_bounded_lemire_
        uint32`` on ``next32``; for 2**32 it is the plain ``next32`` numpy draws: no rejection, the high
        word of ``v * 2**32`` is v)."""
        sel = self._sel(sel)
        bounds = np.asarray(bounds, dtype=_U64)
        if len(bounds) and (int(bounds.min()) < 2 or int(bounds.max()) > 1 << 32):
            raise ValueError("integers32 bounds must be in 2..2**32")
        threshold = (_U64(1 << 32) - bounds) % bounds  # (UINT32_MAX - rng) % rng_excl
        m = self.next32(sel) * bounds
        redo = np.flatnonzero((m & _LO32) < threshold)
        while len(redo):
            m[redo] = self.next32(sel[redo]) * bounds[redo]
            redo = redo[(m[redo] & _LO32) < threshold[redo]]
        return (m >> _U64(32)).astype(np.int64)

    def commit(self) -> None:
        """The streams move past every draw made (state, buffered half)."""
        s = self.streams
        s.advance(self.rows, self.pos)
        s.has32[self.rows] = self.has32
        s.u32[self.rows] = self.u32
