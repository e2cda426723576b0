"""Where a batch engine's 2-thread step loses against 1 thread: its parts, and what the caller's reads do.

One process with numba's threads (``NUMBA_NUM_THREADS`` >= 2), switched between 1 and 2 threads at run
time (``numba.set_num_threads``) so that both see the same machine; every figure is the median over
``--steps`` steps, in microseconds of wall time (run it on an idle machine: a parallel loop waits for its
slowest thread).

- **The step after four kinds of caller** (the work done between two steps, not timed itself): ``light``
  draws the actions in one compiled loop over the masks (reads nothing else); ``read obs`` also reads the
  whole float32 observation on the main thread (a numpy sum); ``copy other`` instead copies an unrelated
  buffer of the observation's size (the same memory traffic, other addresses); ``numpy`` is
  ``bench_batch.py``'s harness (copy of the observation, ``argmax`` of the masks times a table). The step
  is ``env.step`` (the legality check and the kernel call) and the observation read. ``numpy, two
  batches`` is the numpy caller with two engines stepped in turn: each engine's observation was last
  read by the main thread two steps earlier, with the other engine's traffic in between (what a
  double-buffered observation would give).
- **The observation encode alone** (``_encode_observation`` of every row, back to back) and a **plain
  write** of a buffer of the observation's size from a ``prange`` loop: what memory lets 2 threads gain.
- **Starting a parallel loop**: an empty ``prange`` loop after an idle gap (OpenMP's threads spin, then
  sleep: ``core.threads``).

    python benchmarks/bench_thread_parts.py [--games kakeya oicho_kabu] [--batch 4096] [--steps 150]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange

from kabu_envs import batch


@numba.njit
def draw(mask: np.ndarray, noise: np.ndarray, acts: np.ndarray) -> None:  # pragma: no cover - compiled
    """The highest ``mask * noise`` of each row: a random legal action, one pass over the masks."""
    B, A = mask.shape
    for b in range(B):
        best, at = np.float32(0.0), 0
        for a in range(A):
            v = np.float32(mask[b, a]) * noise[b, a]
            if v > best:
                best, at = v, a
        acts[b] = at


@numba.njit(parallel=True)
def fill(buf: np.ndarray, v: float) -> None:  # pragma: no cover - compiled
    for b in prange(buf.shape[0]):
        for j in range(buf.shape[1]):
            buf[b, j] = v


@numba.njit(parallel=True)
def empty(x: np.ndarray) -> None:  # pragma: no cover - compiled
    for i in prange(x.shape[0]):
        x[i] += 1


def median_us(fn: Callable[[], Any], steps: int, before: Callable[[int], Any] = lambda i: None) -> float:
    """The median wall time of ``fn()`` over ``steps`` calls, ``before(i)`` run (untimed) before each."""
    times = []
    for i in range(steps):
        before(i)
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times)) * 1e6


def spin(us: float) -> None:
    """Keep the main thread busy (not asleep) for ``us`` microseconds."""
    t = time.perf_counter()
    while (time.perf_counter() - t) * 1e6 < us:
        pass


def engine_parts(game: str, B: int, steps: int) -> None:
    env = batch.make(game, batch_size=B, autoreset=True)
    env.reset(seed=0)
    twin = batch.make(game, batch_size=B, autoreset=True)  # (the "two batches" caller's second engine)
    twin.reset(seed=1)
    pool = np.random.default_rng(0).random((8, B, env.num_actions)).astype(np.float32) + np.float32(1e-3)
    acts = np.zeros(B, dtype=np.int64)
    copy, other = np.empty_like(env.observation), np.ones_like(env.observation)
    spare = np.empty_like(other)

    def caller(kind: str) -> Callable[[int], None]:
        def before(i: int) -> None:
            nonlocal acts
            obs = env.observation
            if kind == "read obs":
                obs.sum()
            elif kind == "copy other":
                np.copyto(spare, other)
            if kind == "numpy":
                np.copyto(copy, obs)
                acts = np.argmax(env.legal_action_mask * pool[i % 8], axis=1)
            else:
                draw(env.legal_action_mask, pool[i % 8], acts)

        return before

    def step() -> None:
        env.step(acts)
        env.observation  # noqa: B018  # (a lazy engine encodes here)

    def at(threads: int, fn: Callable[[], Any], before: Callable[[int], Any] = lambda i: None) -> float:
        numba.set_num_threads(threads)
        return median_us(fn, steps, before)

    for t in (1, 2):  # (compiles, warms the threads)
        at(t, step, caller("light"))
    print(f"\n{game}, B = {B}, load {os.getloadavg()[0]:.2f}: median us, 1 thread / 2 threads")
    for kind in ("light", "read obs", "copy other", "numpy"):
        one, two = at(1, step, caller(kind)), at(2, step, caller(kind))
        print(f"  step after a {kind!r} caller: {one:.0f} / {two:.0f} = {one / two:.2f}x", flush=True)
    pair, moves, turn = (env, twin), [np.zeros(B, dtype=np.int64), np.zeros(B, dtype=np.int64)], 0

    def numpy_pair(i: int) -> None:  # the numpy caller on engine i % 2, whose step is timed next
        nonlocal turn
        turn = i % 2
        np.copyto(copy, pair[turn].observation)
        moves[turn] = np.argmax(pair[turn].legal_action_mask * pool[i % 8], axis=1)

    def step_pair() -> None:
        pair[turn].step(moves[turn])
        pair[turn].observation  # noqa: B018

    one, two = at(1, step_pair, numpy_pair), at(2, step_pair, numpy_pair)
    print(f"  step after a 'numpy, two batches' caller: {one:.0f} / {two:.0f} = {one / two:.2f}x", flush=True)
    encode = lambda: env._encode_observation(None)  # type: ignore[attr-defined]  # noqa: E731
    one, two = at(1, encode), at(2, encode)
    print(f"  observation encode alone, every row: {one:.0f} / {two:.0f} = {one / two:.2f}x")
    buf = np.zeros_like(env.observation)
    one, two = at(1, lambda: fill(buf, 1.0)), at(2, lambda: fill(buf, 1.0))
    print(f"  plain write of {buf.nbytes / 1e6:.1f} MB (prange): {one:.0f} / {two:.0f} = {one / two:.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=["kakeya", "oicho_kabu"])
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=150)
    args = ap.parse_args()
    if numba.config.NUMBA_NUM_THREADS < 2:
        raise SystemExit("needs NUMBA_NUM_THREADS >= 2 (it switches between 1 and 2 threads)")
    for game in args.games:
        engine_parts(game, args.batch, args.steps)
    x = np.zeros(64)
    numba.set_num_threads(2)
    empty(x)
    print(f"\nan empty parallel loop (2 threads) after an idle gap, load {os.getloadavg()[0]:.2f}:")
    for gap in (0, 100, 1000, 10000):
        print(f"  after {gap} us: {median_us(lambda: empty(x), args.steps, lambda i, g=gap: spin(g)):.1f} us")
    spins = os.environ.get("GOMP_SPINCOUNT")  # (set by core.threads unless the user set a wait policy)
    print(f"threading layer: {numba.threading_layer()}; GOMP_SPINCOUNT {spins}")


if __name__ == "__main__":
    main()
