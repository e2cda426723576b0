"""The duplicate evaluation on every core: a match's deals split over worker processes, joined in order.

Why processes and not threads: a search agent's decisions are mostly Python (its sampler, its
bookkeeping), which numba's threads cannot run at once. Why the results cannot depend on the split:
every play of a deal depends only on the deal's seed and who sits where (each agent is re-seeded per
deal from the deal seed and its seat, ``duplicate.play_deal``; a search keeps no table across its
decisions), so deals ``lo:hi`` played in a worker give the rewards they give in one process, and the
parent joins the slices in deal order and scores the whole match (``duplicate.score``) as the
in-process path does: the same per-deal advantages, mean, CI and ratings for any worker count.

* How many: ``--workers N`` processes, the calling one included (it plays slices too, N - 1 are
  spawned); by default numba's thread setting (``NUMBA_NUM_THREADS`` when set, else the machine's
  cores: ``default_workers``), so ``NUMBA_NUM_THREADS=1`` keeps everything in one process. Each
  process runs its share of numba's threads (``thread_share``), so processes x threads never exceed
  the setting. A worker never starts workers of its own (``default_workers`` is 1 inside one).
* When: starting a worker costs about a second (a fresh interpreter imports the package and loads the
  compiled kernels), so a run of fewer than ``MIN_DEALS_PER_WORKER`` deals per worker stays in process
  unless the worker count is given (``worker_count``).
* How: the spawn start method (numba's OpenMP threading layer is not fork-safe); each worker builds
  the run's agents once (from the ``LineupRecipe`` the lineup was built from) and keeps them for every
  slice it plays; a worker is handed its next slice when it is done with one, so the processes finish
  within a slice of each other. An error in a worker is raised in the parent with the worker's message
  and traceback.
"""

from __future__ import annotations

import contextlib
import pickle
import threading
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, wait
from multiprocessing import get_context
from typing import TYPE_CHECKING, Any

import numpy as np

from kabu_envs.eval.duplicate import DuplicatePlan, MatchResult, score

if TYPE_CHECKING:
    from kabu_envs.eval.tournament import Lineup, LineupRecipe

# deals a worker must have before a run is split by default: a search agent plays ~30 ms a deal, a
# network or a hand-written agent well under 1 ms, and a worker costs ~1-2 s to start (measured:
# docs/evaluation.md#every-core); below this the start costs more than the split saves
MIN_DEALS_PER_WORKER = 250
# slices per worker: deals differ in cost (a search's endgame, a long Kakeya match), so each worker
# takes a slice when it is free rather than one fixed share; small, so that the last ones end together
SLICES_PER_WORKER = 16
# the calling process plays slices too (``workers - 1`` are spawned); False: the workers play every
# slice (the tests use it to make sure that the workers' slices are the ones joined)
CALLER_PLAYS = True
# (decisions, CPU seconds) a side's agent made in a slice (kabu-eval reports a search's ms/decision)
Counts = tuple[int, float]

_IN_WORKER = False  # set in a worker process: it plays its slices in process


def numba_threads() -> int:
    """numba's thread setting: ``NUMBA_NUM_THREADS`` when set, else the machine's cores."""
    import numba

    return max(1, int(getattr(numba.config, "NUMBA_NUM_THREADS", 1)))


def default_workers() -> int:
    """The worker processes of a run when none are asked for: numba's thread setting; 1 inside a worker
    (no pool in a pool: the demo's jobs and the deal workers play in process)."""
    return 1 if _IN_WORKER else numba_threads()


def thread_share(workers: int) -> int:
    """numba threads per worker: the setting divided among the workers (at least one each)."""
    return max(1, numba_threads() // max(1, workers))


def worker_count(deals: int, workers: int | None = None) -> int:
    """How many processes play ``deals`` deals: ``workers`` when given (at most one per deal), else
    ``default_workers()`` but none with fewer than ``MIN_DEALS_PER_WORKER`` deals; 1: in this process."""
    if workers is not None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive integer, got {workers!r}")
        return max(1, min(workers, deals))
    return max(1, min(default_workers(), deals // MIN_DEALS_PER_WORKER))


def deal_slices(deals: int, workers: int) -> list[tuple[int, int]]:
    """``(lo, hi)`` slices covering ``range(deals)`` in order: ``SLICES_PER_WORKER`` per worker (fewer
    when there are fewer deals), sizes differing by at most one."""
    parts = max(1, min(deals, workers * SLICES_PER_WORKER)) if workers > 1 else 1
    bounds = [deals * k // parts for k in range(parts + 1)]
    return [(lo, hi) for lo, hi in zip(bounds, bounds[1:], strict=False) if hi > lo]


def _start_worker(threads: int) -> None:
    """A worker's initializer: its share of numba's threads; no pools of its own."""
    global _IN_WORKER
    _IN_WORKER = True
    import numba

    numba.set_num_threads(max(1, min(threads, int(getattr(numba.config, "NUMBA_NUM_THREADS", 1)))))


def process_pool(workers: int, among: int | None = None) -> ProcessPoolExecutor:
    """``workers`` spawned processes, each with its share of numba's threads (``thread_share`` of
    ``among`` processes in all: default ``workers``; one more when the caller plays too)."""
    share = thread_share(among or workers)
    return ProcessPoolExecutor(
        workers, mp_context=get_context("spawn"), initializer=_start_worker, initargs=(share,)
    )


@contextlib.contextmanager
def numba_threads_at(threads: int) -> Iterator[None]:
    """numba's threads of this process set to ``threads`` inside the block (restored after)."""
    import numba

    before = int(numba.get_num_threads())
    numba.set_num_threads(max(1, min(threads, numba_threads())))
    try:
        yield
    finally:
        numba.set_num_threads(before)


_LINEUPS: dict[LineupRecipe, Lineup] = {}  # a worker's agents, built once per run's recipe


def _lineup(recipe: LineupRecipe) -> Lineup:
    if recipe not in _LINEUPS:
        _LINEUPS.clear()  # (one run at a time: a new recipe is a new run)
        _LINEUPS[recipe] = recipe.build()
    return _LINEUPS[recipe]


def slice_totals(
    lineup: Lineup, agent: str, opponent: str, plan: DuplicatePlan, batched: bool | None
) -> tuple[np.ndarray, list[Counts]]:
    """One slice of a match: its plays' total rewards and each side's (decisions, seconds) there."""
    from kabu_envs.eval.games import plan_totals

    assert lineup.recipe is not None
    players = lineup.players(agent, opponent)
    sides = [players["agent"], players["opponent"]]
    before = [(p.decisions, p.seconds) for p in sides]
    totals = plan_totals(plan, players, lineup.recipe.env_options, batched)
    return totals, [(p.decisions - d, p.seconds - s) for p, (d, s) in zip(sides, before, strict=True)]


def play_slice(
    recipe: LineupRecipe, agent: str, opponent: str, plan: DuplicatePlan, batched: bool | None
) -> tuple[np.ndarray, list[Counts]]:
    """``slice_totals`` in a worker, with the worker's own agents. An exception the parent could not
    rebuild is raised as its nearest builtin class (``crossable``)."""
    try:
        return slice_totals(_lineup(recipe), agent, opponent, plan, batched)
    except Exception as exc:
        crossing = crossable(exc)
        if crossing is exc:
            raise
        raise crossing from None


def crossable(exc: Exception) -> Exception:
    """``exc`` when the parent can rebuild it (a builtin's or the package's exception that pickles),
    else its nearest builtin class with the type, the message and the worker's traceback in the
    message (a user's agent class loaded from a file is not importable in the parent)."""
    kind = type(exc)
    if kind.__module__ == "builtins" or kind.__module__.startswith("kabu_envs."):
        try:
            pickle.loads(pickle.dumps(exc))
            return exc
        except Exception:
            pass
    base = next(
        (k for k in kind.__mro__ if k.__module__ == "builtins" and issubclass(k, Exception)), RuntimeError
    )
    where = "".join(traceback.format_exception(kind, exc, exc.__traceback__))
    text = f"{kind.__name__}: {exc}\n(the worker's traceback)\n{where}"
    try:
        return base(text)
    except Exception:
        return RuntimeError(text)


Match = tuple[str, str, DuplicatePlan]  # (agent name, opponent name, the match's plan)


def warm_up(recipe: LineupRecipe) -> None:
    """A worker's first task: build the run's agents while the parent still builds the plans."""
    _lineup(recipe)


Slice = tuple[np.ndarray, list[Counts]]


def play_matches(
    lineup: Lineup,
    make_matches: Callable[[], Sequence[Match]],
    batched: bool | None,
    workers: int,
) -> list[tuple[MatchResult, list[Counts]]]:
    """Every match's result and its sides' summed counts, played by ``workers`` processes: this one
    (with ``lineup``, built from its recipe) and ``workers - 1`` spawned ones, each taking the next
    slice (``deal_slices``, all matches' slices in turn) when it is free; the slices are joined in deal
    order. ``make_matches`` is called once the workers are starting (their start-up and the plans
    overlap). A worker is handed one slice at a time, so the processes end within a slice of each
    other."""
    from kabu_envs.eval.progress import bar

    recipe = lineup.recipe
    if recipe is None:
        raise ValueError("a lineup built from objects plays in one process (no recipe for the workers)")
    pool = process_pool(workers - 1, among=workers)
    lock = threading.Lock()
    queue: deque[int] = deque()
    futures: dict[int, Future[Slice]] = {}
    failed: list[BaseException] = []
    matches: Sequence[Match] = ()
    jobs: list[tuple[int, int, int]] = []
    ticks = bar(0, "deal slices")

    def take() -> int | None:
        with lock:
            return queue.popleft() if queue and not failed else None

    def feed(done: Future[Slice] | None = None) -> None:
        """Hand a worker the next slice when its last one is done (a done-callback). The slice is taken
        and its future filed at once (under the lock), so every slice taken has its future."""
        if done is not None:
            if done.cancelled() or done.exception() is not None:
                with lock:
                    failed.append(RuntimeError("a worker's slice failed"))
                return
            ticks.update(1)
        with lock:
            if not queue or failed:
                return
            k = queue.popleft()
            m, lo, hi = jobs[k]
            agent, opponent, plan = matches[m]
            future = futures[k] = pool.submit(
                play_slice, recipe, agent, opponent, plan.deal_slice(lo, hi), batched
            )
        future.add_done_callback(feed)

    mine: dict[int, Slice] = {}
    try:
        warm = [pool.submit(warm_up, recipe) for _ in range(workers - 1)]
        matches = make_matches()
        jobs = [
            (m, lo, hi) for m, (_, _, p) in enumerate(matches) for lo, hi in deal_slices(p.deals, workers)
        ]
        queue.extend(range(len(jobs)))
        ticks.reset(total=len(jobs))
        for f in warm:
            f.add_done_callback(lambda f: feed())  # each worker's first slice once it is up

        def play_here(k: int) -> None:
            m, lo, hi = jobs[k]
            with numba_threads_at(thread_share(workers)):
                mine[k] = slice_totals(
                    lineup, matches[m][0], matches[m][1], matches[m][2].deal_slice(lo, hi), batched
                )
            ticks.update(1)

        while CALLER_PLAYS and (k := take()) is not None:
            play_here(k)
        while True:  # the workers' last slices (every slice handed out, or a failure)
            with lock:
                waiting: list[Future[Any]] = [*futures.values(), *warm]
                waiting = [f for f in waiting if not f.done()]
                settled = bool(failed) or len(mine) + len(futures) == len(jobs)
            if settled and not waiting:
                break
            if not waiting and (k := take()) is not None:  # (no worker left to hand it to)
                play_here(k)
                continue
            wait(waiting, timeout=0.1)
        for f in warm:
            f.result()
        if failed or len(mine) + len(futures) < len(jobs):
            bad = [k for k, f in sorted(futures.items()) if f.done() and f.exception() is not None]
            if not bad:
                raise RuntimeError("the workers stopped before every slice was played")
            k = bad[0]
            exc = futures[k].exception()
            assert exc is not None
            m, lo, hi = jobs[k]
            if hasattr(exc, "add_note"):  # (Python 3.11+) which slice failed
                exc.add_note(
                    f"in a worker process playing deals {lo}-{hi - 1} of {matches[m][0]} vs {matches[m][1]}"
                )
            raise exc
        parts = {**mine, **{k: f.result() for k, f in futures.items()}}
    except BaseException:
        with lock:
            failed.append(RuntimeError("stopped"))
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        ticks.close()
    pool.shutdown(wait=True)
    out = []
    for m, (_, _, plan) in enumerate(matches):
        found = [parts[k] for k, job in enumerate(jobs) if job[0] == m]
        totals = np.concatenate([t for t, _ in found]) if found else np.zeros((0, 0))
        counts = [(sum(c[side][0] for _, c in found), sum(c[side][1] for _, c in found)) for side in range(2)]
        out.append((score(plan, totals), counts))
    return out
