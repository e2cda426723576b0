"""When a compiled kernel spreads a batch's rows over threads (numba's ``prange``), and when it does not.

Every kernel game has two entry points for its per-row work: a serial one (a plain loop over the rows)
and a parallel one (the same per-row function in a ``prange`` loop, ``parallel=True``). Each row reads
and writes only its own rows of the arrays (its own generator, its own scratch), so both give the same
games, observations and rewards bit for bit, for any thread count. The thread count is numba's own:
``NUMBA_NUM_THREADS`` (default: every core) or ``numba.set_num_threads`` at run time.

The parallel entry is used from ``PARALLEL_MIN_ROWS`` rows on, and only with more than one thread: a
fixed rule (not a measured speed), so which entry runs is known in advance and the speed of a call does
not depend on the timing of earlier ones. Starting a parallel loop costs tens of microseconds, far more
than a step of a few games (docs/batch.md#threads has the measurements). Worker processes
(``kabu-eval``'s and the labelling's pools) set their share of the threads themselves.

Threading layer: TBB where it is installed (the ``tbb`` wheel, a dependency on Linux x86-64), else GNU
OpenMP (``omp``); numba's ``workqueue`` layer ran these kernels' parallel loops on one core at a time
here (no speed-up). Why TBB first: on a machine whose cores are busy with other processes (a test
runner's workers, several training processes, a shared node), OpenMP's step waits at its barrier for a
thread the system has not scheduled, and a two-thread step took many times the serial one; TBB's
threads take the chunks that are left, so a late thread costs nothing. On an idle machine the two
layers gain alike from 1024 rows on (benchmarks/README.md has the measurements). pip puts the TBB
library in the environment's ``lib/``, which the loader does not search, so it is loaded here by its
path (``load_tbb``), before numba picks its layer; ``NUMBA_THREADING_LAYER`` still chooses. Settings
that keep ``omp`` safe where it is used:

* Fork: GNU OpenMP cannot run a parallel loop in a process forked from one that ran one (the child is
  terminated). A forked child therefore drops to one thread (``os.register_at_fork``), whatever the
  layer: it takes the serial entry points, which give the same games; spawned workers (``kabu-eval``'s,
  the labelling's) set their own share.
* Waiting: OpenMP's threads spin for a while between parallel loops; with the default spin a loaded
  machine made a parallel step five times slower than the serial one. Unless the user set
  ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT``, the spin is capped (``GOMP_SPINCOUNT``, read when OpenMP
  loads: before the first parallel call), which keeps the idle speed-up.

Imported only by the batch engines and the search, never by ``import kabu_envs``: it loads numba.
"""

from __future__ import annotations

import ctypes
import importlib.metadata
import os
import sys

import numba

SPIN_COUNT = "100000"  # OpenMP's spin between loops (libgomp's default is 300000; see the docstring)
if "OMP_WAIT_POLICY" not in os.environ:
    os.environ.setdefault("GOMP_SPINCOUNT", SPIN_COUNT)


TBB_LIBRARY = "libtbb.so.12"  # the soname numba's TBB layer links against (TBB 2021 and later)


def load_tbb() -> str | None:
    """Load the TBB library of the installed ``tbb`` wheel by its path, so that numba's TBB layer finds it
    (pip installs it into the environment's ``lib/``, off the loader's path); the path loaded, or None
    when there is none to load: not Linux, no ``tbb`` distribution, or the user chose another layer
    (``NUMBA_THREADING_LAYER``). numba then takes TBB by its own default order (tbb, omp, workqueue)."""
    chosen = os.environ.get("NUMBA_THREADING_LAYER", "default").lower()
    if not sys.platform.startswith("linux") or chosen in ("omp", "workqueue"):
        return None
    try:
        files = importlib.metadata.files("tbb") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in files:
        if f.name == TBB_LIBRARY:
            path = os.path.realpath(str(f.locate()))
            if os.path.isfile(path):
                ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
                return path
    return None


TBB = load_tbb()


def layer() -> str:
    """The threading layer numba runs the parallel loops on (``numba.threading_layer()``; it starts the
    layer's threads if no parallel call has yet)."""
    numba.get_num_threads()  # (launches the layer)
    return str(numba.threading_layer())


def _forked_child() -> None:
    """In a forked child: one thread, so that no parallel loop runs on the parent's OpenMP state."""
    numba.set_num_threads(1)


os.register_at_fork(after_in_child=_forked_child)

PARALLEL_MIN_ROWS = 512  # below it a step is too short to pay for the threads (docs/batch.md#threads)
# A parallel step checks the actions (``core.kernel.first_illegal_word_in``, under a nanosecond a row)
# on the calling thread below this many rows, and in a parallel loop of its own from it on: a second
# parallel loop costs its start, up to 15-25 us on TBB after its threads slept (benchmarks/README.md).
CHECK_MIN_ROWS = 32768
CHUNK_ROWS = 128  # rows a parallel loop hands a thread at once (one call: per-call costs stay small)


MAX_THREADS = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]  # set_num_threads: at most this


def threads() -> int:
    """The threads a parallel kernel call uses now (``numba.get_num_threads``; with ``NUMBA_NUM_THREADS=1``
    one, without the call: about a microsecond a step that a one-thread process need not spend)."""
    return 1 if MAX_THREADS == 1 else int(numba.get_num_threads())


def use_parallel(rows: int, min_rows: int = PARALLEL_MIN_ROWS) -> bool:
    """True when a kernel call over ``rows`` rows should take its parallel entry point: enough rows
    to pay for the threads, and more than one thread to run them."""
    return rows >= min_rows and threads() > 1


def chunks(rows: int) -> int:
    """The number of chunks of about ``CHUNK_ROWS`` rows a parallel entry point splits ``rows`` into
    (each chunk one call of the serial per-row loop; which thread runs it changes nothing)."""
    return max(1, -(-rows // CHUNK_ROWS))
