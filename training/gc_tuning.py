"""Python's cyclic garbage collector during ``model.learn``: freeze the heap, collect less often.

Why: a training process holds torch's and SB3's import heap (hundreds of thousands of objects that
live as long as the process), and every full collection walks all of it; with the batch VecEnv's many
short-lived objects per step the collector took a large share of a long training run's CPU, and more
of the env side's in a run where full collections landed there (``benchmarks/bench_training.py``'s
``env GC`` column; the figures are in benchmarks/README.md). ``gc.freeze()`` moves the
objects alive when learning starts out of the collector's view, and higher thresholds collect the
young generations less often; reference counting still frees everything that is not in a cycle, and
cycles are still collected, later. The previous state is restored afterwards, so a library caller's
process is left as it was.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

LEARN_THRESHOLDS = (20_000, 50, 1_000)  # gen0 allocations, gen1 and gen2 collection counts


@contextmanager
def quiet_gc(thresholds: tuple[int, int, int] = LEARN_THRESHOLDS) -> Iterator[None]:
    """Inside: the current heap frozen and ``thresholds`` set; afterwards both as they were."""
    before = gc.get_threshold()
    mine = gc.get_freeze_count() == 0  # a caller's own frozen heap is left frozen, and only then
    if mine:
        gc.collect()  # what is garbage now is freed, not frozen
        gc.freeze()
    gc.set_threshold(*thresholds)
    try:
        yield
    finally:
        gc.set_threshold(*before)
        if mine:
            gc.unfreeze()
