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

import os

import numba

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


def share_cores(workers: int) -> int:
    """In one of ``workers`` processes that share the machine (labelling or evaluation workers): this
    process's numba threads become its share of the cores, at least one, so that the workers' parallel
    kernels do not oversubscribe the cores (a thread waiting for a core it shares stalls a whole
    parallel loop). Returns the thread count set."""
    share = max(
        1, min(int(getattr(numba.config, "NUMBA_NUM_THREADS", 1)), (os.cpu_count() or 1) // max(1, workers))
    )
    numba.set_num_threads(share)
    return share


def busy() -> bool:
    """Whether the machine's cores are all taken by other work (the load average, over a minute, at
    least one above the number of cores): a parallel loop then waits for cores, and is not tried."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # (no load average on this system: assume idle cores)
        return False
    return load >= (os.cpu_count() or 1) + 1


class Paths:
    """Picks, call by call, a kernel's serial or parallel entry point by their measured speed.

    Both give the same results, so the choice is speed only; but a parallel loop is only as fast as its
    slowest thread, and on a machine whose cores are busy with other work a thread often waits for a
    core: there the parallel entry can be far slower than the serial one. So each engine
    times its calls (seconds per row): the serial entry first, then the parallel one; then it uses the
    faster and re-times the other after ``backoff`` calls, the wait growing fourfold (up to ``MAX_BACKOFF``)
    each time the other is still slower, so that trying the slow one costs little. While the machine is
    ``busy`` the parallel entry is not tried at all (one try there can cost many serial steps)."""

    FIRST_BACKOFF, MAX_BACKOFF = 16, 4096

    def __init__(self, min_rows: int = PARALLEL_MIN_ROWS) -> None:
        self.min_rows = min_rows
        self.cost = [0.0, 0.0]  # seconds per row, serial and parallel (0: not timed yet)
        self.backoff = self.FIRST_BACKOFF
        self.wait = 0

    def pick(self, rows: int) -> bool:
        """True: the parallel entry point for this call of ``rows`` rows."""
        if not use_parallel(rows, self.min_rows):
            return False
        serial, parallel = self.cost
        if not serial:
            return False  # (time the serial entry first)
        faster = bool(parallel) and parallel < serial
        if parallel and self.wait > 0:
            self.wait -= 1
            return faster
        if not faster and busy():  # time the parallel entry only while the machine has idle cores
            self.wait = self.backoff
            return False
        return not faster  # (time the parallel entry, or re-time the slower one)

    def record(self, parallel: bool, seconds: float, rows: int) -> None:
        """The time a call of ``rows`` rows took on the entry ``pick`` chose (a serial call below the
        threshold is not recorded: it says nothing of the threshold's rows)."""
        if rows < self.min_rows:
            return
        k = int(parallel)
        per = seconds / rows
        was_faster = self.cost[k] and self.cost[k] < self.cost[1 - k]
        if self.cost[k] and was_faster:  # the entry in use: a moving average
            self.cost[k] = 0.8 * self.cost[k] + 0.2 * per
            return
        self.cost[k] = per  # a first or a fresh timing of the other entry
        if self.cost[1 - k] and per >= self.cost[1 - k]:  # still slower: wait longer before trying again
            self.backoff = min(4 * self.backoff, self.MAX_BACKOFF)
        else:
            self.backoff = self.FIRST_BACKOFF
        self.wait = self.backoff
