"""``core.pcg64_rows`` must draw exactly what one ``np.random.Generator(np.random.PCG64(seed))`` per row
draws, leave every stream in numpy's state (``bit_generator.state``, the buffered 32-bit half included),
and take numpy's rejection paths where numpy takes them (crafted states force them)."""

from __future__ import annotations

import numpy as np
import pytest

from kabu_envs.core.pcg64_rows import Draws, PCG64Rows

_MULT, _MOD = 0x2360ED051FC65DA44385DF649FCCF645, 1 << 128


def _generator_before_output(value_state: int, draws_before: int) -> np.random.Generator:
    """A PCG64 generator whose 64-bit output after ``draws_before`` draws comes from the state
    ``value_state`` (state 0 outputs 0: its high and low words are equal)."""
    inc = (12345 << 1) | 1
    state = value_state
    for _ in range(draws_before + 1):  # step back: numpy steps the state, then outputs it
        state = ((state - inc) * pow(_MULT, -1, _MOD)) % _MOD
    rng = np.random.Generator(np.random.PCG64())
    rng.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": state, "inc": inc},
        "has_uint32": 0,
        "uinteger": 0,
    }
    return rng


def _same_states(streams: PCG64Rows, gens: list[np.random.Generator]) -> None:
    for i, g in enumerate(gens):
        assert streams.generator(i).bit_generator.state == g.bit_generator.state, f"row {i}"


def _rows(seeds: list[int | None]) -> tuple[PCG64Rows, list[np.random.Generator]]:
    streams = PCG64Rows(len(seeds))
    streams.seed(np.arange(len(seeds)), seeds)
    return streams, [np.random.Generator(np.random.PCG64(s)) for s in seeds]


def test_seeding_and_outputs_are_numpys():
    seeds = [0, 1, 2, 7, 12345, 2**32 - 1, 2**32, 2**40 + 7, 2**63 - 5, 2**64 - 1, 2**70 + 3]
    streams, gens = _rows(seeds)
    _same_states(streams, gens)
    rows = np.arange(len(seeds))
    out = streams.outputs(rows, 600)  # (longer than the jump tables: taken in pieces)
    later = streams.outputs(rows, 5, start=600)
    _same_states(streams, gens)  # (reading ahead moves nothing)
    for i, g in enumerate(gens):
        assert np.array_equal(out[i], g.bit_generator.random_raw(600))
        assert np.array_equal(later[i], g.bit_generator.random_raw(5))
    fresh, _ = _rows(seeds)
    fresh.advance(rows, rows * 61)  # per-row jumps, some past the tables
    for i, s in enumerate(seeds):
        g = np.random.Generator(np.random.PCG64(s))
        g.bit_generator.random_raw(i * 61)
        assert fresh.generator(i).bit_generator.state == g.bit_generator.state


def test_load_generator_round_trip_and_fresh_entropy():
    g = np.random.Generator(np.random.PCG64(3))
    g.integers(7)  # (a buffered 32-bit half)
    streams = PCG64Rows(2)
    streams.load([1], [g])
    assert streams.generator(1).bit_generator.state == g.bit_generator.state
    streams.seed(np.array([0]), [None])  # OS entropy: some state, and a working stream
    assert streams.generator(0).random() != streams.generator(1).random()
    with pytest.raises(ValueError, match="PCG64"):
        streams.load([0], [np.random.Generator(np.random.MT19937(1))])


@pytest.mark.parametrize("trial", range(40))
def test_mixed_draws_match_numpy(trial):
    """Random sequences of the draws the VecEnv makes, per row, and the states after them."""
    rng = np.random.default_rng(trial)
    seeds = rng.integers(2**63 - 1, size=6).tolist()
    streams, gens = _rows(seeds)
    draws = Draws(streams, np.arange(6), window=2)  # (a small window: it grows)
    for op in rng.integers(6, size=14).tolist():
        sel = np.flatnonzero(rng.random(6) < 0.7)
        mine = [gens[i] for i in sel]
        if op == 0:
            got, want = draws.random(sel), [g.random() for g in mine]
        elif op == 1:
            got, want = draws.integers(2**63 - 1, sel), [g.integers(2**63 - 1) for g in mine]
        elif op == 2:
            k = int(rng.integers(1, 40))
            got, want = draws.integers(k, sel), [g.integers(k) for g in mine]
        elif op == 3:
            ks = rng.integers(2, 2**32, size=len(sel), endpoint=True)
            got, want = draws.integers32(ks, sel), [g.integers(k) for g, k in zip(mine, ks, strict=True)]
        elif op == 4:
            k = int(rng.integers(2**32 + 1, 2**63))
            got, want = draws.integers(k, sel), [g.integers(k) for g in mine]
        else:
            k = int(rng.integers(0, 3))
            draws.skip(k, sel)
            got, want = [], []
            for g in mine:
                g.random(k)
        assert [int(x) if op else float(x) for x in got] == want
    draws.commit()
    _same_states(streams, gens)


def test_the_largest_32_bit_bound_is_a_plain_draw():
    """``integers(2**32)`` is numpy's plain ``next_uint32``, the buffered half included."""
    streams, gens = _rows([3, 4, 5])
    draws = Draws(streams, np.arange(3))
    for bound in (2**32, 7, 2**32, 2**32):
        assert draws.integers(bound).tolist() == [int(g.integers(bound)) for g in gens]
    draws.commit()
    _same_states(streams, gens)


@pytest.mark.parametrize("before", [0, 1, 3])
def test_rejections_redraw_as_numpy(before):
    """An output of 0 is rejected by both Lemire methods (64-bit for 2**63 - 1, 32-bit for 3: its low
    half is 0); the redraw and everything after it match numpy's."""
    for bound in (2**63 - 1, 3, 2**40 + 1):
        a = _generator_before_output(0, before)
        b = _generator_before_output(0, before)
        probe = _generator_before_output(0, before)
        probe.bit_generator.random_raw(before)
        assert int(probe.bit_generator.random_raw(1)[0]) == 0
        streams = PCG64Rows(1)
        streams.load([0], [a])
        draws = Draws(streams, np.arange(1), window=1)
        draws.skip(before)
        b.random(before)
        assert int(draws.integers(bound)[0]) == int(b.integers(bound))
        assert float(draws.random()[0]) == b.random()
        draws.commit()
        _same_states(streams, [b])


def test_bad_bounds_are_named():
    draws = Draws(PCG64Rows(1), np.arange(1))
    with pytest.raises(ValueError, match="bound"):
        draws.integers(0)
    with pytest.raises(ValueError, match="2..2\\*\\*32"):
        draws.integers32(np.array([1]))
