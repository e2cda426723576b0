"""When a compiled kernel spreads a batch's rows over threads (numba's ``prange``), and when it does not.

Every kernel game has two entry points for its per-row work: a serial one (a plain loop over the rows)
and a parallel one (the same per-row function in a ``prange`` loop, ``parallel=True``). Each row reads
and writes only its own rows of the arrays (its own generator, its own scratch), so both give the same
games, observations and rewards bit for bit, for any thread count. The thread count is numba's own:
``NUMBA_NUM_THREADS`` (default: every core) or ``numba.set_num_threads`` at run time.

The parallel entry is used from ``PARALLEL_MIN_ROWS`` rows on, and only with more than one thread: a
fixed rule (not a measured speed), so which entry runs is known in advance and the speed of a call does
not depend on the timing of earlier ones. Starting a parallel loop costs tens of microseconds, far more
than a step of a few games (docs/batch.md#threads has the measurements). A machine whose cores are taken
by other work is the caller's to handle with numba's own means: ``NUMBA_NUM_THREADS=1`` or
``numba.set_num_threads``; worker processes (``kabu-eval``'s and the labelling's pools) set
their share themselves.

Fork safety: GNU OpenMP (numba's ``omp`` threading layer, its first choice on Linux when TBB is absent)
cannot run a parallel loop in a process forked from one that ran one (the child is terminated). Unless
the user picked a layer (``NUMBA_THREADING_LAYER``), importing this module asks numba for a fork-safe
layer (``forksafe``: TBB if installed, else numba's own ``workqueue``), so that a worker pool forked by
an evaluation runs the parallel kernels too (``workqueue`` drops an error raised in a thread: the
parallel steps check that every chunk finished, ``core.kernel.THREAD_ERROR``). Imported only by the
batch engines and the search, never by ``import kabu_envs``: it loads numba.
"""

from __future__ import annotations

import os
from typing import Any

import numba

_config: Any = numba.config  # (its settings are absent from numba's type stubs)
if "NUMBA_THREADING_LAYER" not in os.environ and _config.THREADING_LAYER == "default":
    _config.THREADING_LAYER = "forksafe"  # (read at the first parallel call: see the docstring)

PARALLEL_MIN_ROWS = 256  # below it a step is too short to pay for starting the threads
CHUNK_ROWS = 128  # rows a parallel loop hands a thread at once (one call: per-call costs stay small)


def threads() -> int:
    """The threads a parallel kernel call uses now (``numba.get_num_threads``)."""
    return int(numba.get_num_threads())


def use_parallel(rows: int, min_rows: int = PARALLEL_MIN_ROWS) -> bool:
    """True when a kernel call over ``rows`` rows should take its parallel entry point: enough rows
    to pay for the threads, and more than one thread to run them."""
    return rows >= min_rows and threads() > 1


def chunks(rows: int) -> int:
    """The number of chunks of about ``CHUNK_ROWS`` rows a parallel entry point splits ``rows`` into
    (each chunk one call of the serial per-row loop; which thread runs it changes nothing)."""
    return max(1, -(-rows // CHUNK_ROWS))
