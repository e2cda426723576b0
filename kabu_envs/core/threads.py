"""When a compiled kernel spreads a batch's rows over threads (numba's ``prange``), and when it does not.

Every kernel game has two entry points for its per-row work: a serial one (a plain loop over the rows)
and a parallel one (the same per-row function in a ``prange`` loop, ``parallel=True``). Each row reads
and writes only its own rows of the arrays (its own generator, its own scratch), so both give the same
games, observations and rewards bit for bit, for any thread count. The thread count is numba's own:
``NUMBA_NUM_THREADS`` (default: every core) or ``numba.set_num_threads`` at run time.

The parallel entry is used from ``PARALLEL_MIN_ROWS`` rows on, and only with more than one thread:
starting a parallel loop costs tens of microseconds (more on a busy machine), far more than a step of a
few games (docs/batch.md#threads has the measurements). Imported only by the batch engines and the
search, never by ``import kabu_envs``: it loads numba.
"""

from __future__ import annotations

import numba

PARALLEL_MIN_ROWS = 256  # below it a step is too short to pay for starting the threads


def threads() -> int:
    """The threads a parallel kernel call uses now (``numba.get_num_threads``)."""
    return int(numba.get_num_threads())


def use_parallel(rows: int, min_rows: int = PARALLEL_MIN_ROWS) -> bool:
    """True when a kernel call over ``rows`` rows should take its parallel entry point: enough rows
    to pay for the threads, and more than one thread to run them."""
    return rows >= min_rows and threads() > 1
