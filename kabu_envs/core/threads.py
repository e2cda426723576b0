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

Threading layer: numba's own choice (TBB if installed, else GNU OpenMP, ``omp``); numba's ``workqueue``
layer ran these kernels' parallel loops on one core at a time here (no speed-up), so it is not forced.
Two settings make ``omp`` safe to use by default:

* Fork: GNU OpenMP cannot run a parallel loop in a process forked from one that ran one (the child is
  terminated). A forked child therefore drops to one thread (``os.register_at_fork``): it takes the
  serial entry points, which give the same games; spawned workers (``kabu-eval``'s, the labelling's)
  set their own share.
* Waiting: OpenMP's threads spin for a while between parallel loops; with the default spin a loaded
  machine (another job on every core) made a parallel step five times slower than the serial one.
  Unless the user set ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT``, the spin is capped
  (``GOMP_SPINCOUNT``, read when OpenMP loads: before the first parallel call), which keeps the idle
  speed-up (benchmarks/README.md has both measurements).

Imported only by the batch engines and the search, never by ``import kabu_envs``: it loads numba.
"""

from __future__ import annotations

import os

import numba

SPIN_COUNT = "100000"  # OpenMP's spin between loops (libgomp's default is 300000; see the docstring)
if "OMP_WAIT_POLICY" not in os.environ:
    os.environ.setdefault("GOMP_SPINCOUNT", SPIN_COUNT)


def _forked_child() -> None:
    """In a forked child: one thread, so that no parallel loop runs on the parent's OpenMP state."""
    numba.set_num_threads(1)


os.register_at_fork(after_in_child=_forked_child)

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
