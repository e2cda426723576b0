"""What every compiled rules kernel (numba) shares: the per-row generator and the upkeep of its cache.

Imported only by the kernel modules (``kabu_envs/<game>/kernel.py``), never by ``import kabu_envs`` or an
env: numba is loaded, and a kernel compiled, on the first use of a batch engine or a search.

**The generator** (docs/batch.md#seeding): each row of a batch owns one 64-bit word of state, advanced by
SplitMix64 (Steele, Lea and Flood 2014: a Weyl sequence through a 64-bit finaliser; passes BigCrush).
A row's state is ``seed_state(seed, row, episode)``, a hash of the three numbers, so a row's games depend
only on (seed, row, episode), not on the other rows, the batch size or numpy. Bounded draws use Lemire's
multiply-shift with rejection (exactly uniform); shuffles are Fisher-Yates from the top.

**The cache**: kernels are ``@numba.njit(cache=True)``, but only functions that are called with one set
of argument types: numba's cache index is one file per function, read, extended and rewritten by each
process that compiles a new version, so two processes compiling *different* versions at once (pytest
workers, training workers) can leave an entry pointing at the other's machine code. A function called
with several types (an int8 and an int64 deck, a literal card number) is therefore compiled into its
callers and not cached itself (``inner_jit``; the generator's helpers below): each cached function then
has one version, and processes compiling it at once write the same code (tests/kernel checks every
cached kernel function's index). numba keys its cache on the kernel file alone, so a change to a
constant the kernel reads from another module (the observation layout, a table) would load stale
machine code. ``prepare`` keeps a stamp beside the cache (a hash of the kernel's sources and
constants) and drops the module's cache files when it differs. It also prints the one line a user sees
when a kernel compiles. numba picks the cache folder: ``NUMBA_CACHE_DIR`` when set, ``__pycache__``
beside the source, or the user's cache folder when that is read-only (site-packages installed by root).
When none of them is writable, numba alone refuses to load a kernel module (``no locator available``);
this module adds a last resort for the package's own kernels (``ReadOnlyCacheLocator``): the cache beside
the sources is read (a cache warmed when the package was installed still serves), nothing is written,
and what is not in it compiles in memory on every start, with one warning naming ``NUMBA_CACHE_DIR``.
"""

from __future__ import annotations

import hashlib
import os
import sys
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

import numba
import numpy as np
from numba.core import caching

from kabu_envs.core import threads as _threads  # noqa: F401  (before any kernel: the threading layer's library)

_njit: Any = numba.njit  # (``_nrt`` is numba's own flag, absent from its type stubs)
# a kernel helper called with several argument types: compiled into each caller, never cached (above)
inner_jit = _njit(_nrt=False)

_PACKAGE = Path(__file__).resolve().parents[1]  # kabu_envs/: the sources the last resort serves
UNCACHED_WARNING = (
    "no writable folder for numba's cache (the package's folder, NUMBA_CACHE_DIR and the user's cache "
    "folder under XDG_CACHE_HOME or HOME are read-only or unusable): the kabu_envs kernels compile in "
    "memory on every start (a cache beside the sources is still read). Set NUMBA_CACHE_DIR to a "
    "writable folder to cache them."
)
_warned = False


def warn_uncached() -> None:
    """Say once a process that kernels compile without a cache, and how to get it back."""
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(UNCACHED_WARNING, RuntimeWarning, stacklevel=3)


class ReadOnlyCacheLocator(caching.InTreeCacheLocator):
    """numba's last cache locator, for this package's kernels only: ``__pycache__`` beside the source,
    read but never written. numba asks it only when no other locator found a writable folder."""

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> ReadOnlyCacheLocator | None:
        """A locator for a function of this package (other code keeps numba's own error)."""
        path = Path(py_file).resolve()
        if not path.is_file() or not path.is_relative_to(_PACKAGE):
            return None
        return cls(py_func, py_file)

    def ensure_cache_path(self) -> None:
        """Nothing to make: nothing is written."""


def read_only(dispatcher_cache: Any) -> bool:
    """Whether a numba function cache is served by the read-only last resort."""
    locator = getattr(getattr(dispatcher_cache, "_impl", None), "locator", None)
    return isinstance(locator, ReadOnlyCacheLocator)


def _install_read_only_cache() -> None:
    """Add the last resort to numba's locators, and make numba's cache skip writing through it (a
    result compiled in memory is kept in memory; the first says so: ``warn_uncached``) and treat a cache
    it cannot read as empty. Once a process (a reload of this module keeps the first install)."""
    classes = caching.CacheImpl._locator_classes
    key = (__name__, ReadOnlyCacheLocator.__name__)
    mine = [i for i, c in enumerate(classes) if (c.__module__, c.__name__) == key]
    if mine:  # a reload: the wrappers below are in place, the locator class is the new one
        classes[mine[0]] = ReadOnlyCacheLocator
        return
    classes.append(ReadOnlyCacheLocator)
    cache = caching.Cache
    numba_load, numba_save = cache.load_overload, cache.save_overload

    def load_overload(self: Any, sig: Any, target_context: Any) -> Any:
        if not read_only(self):
            return numba_load(self, sig, target_context)
        try:
            return numba_load(self, sig, target_context)
        except OSError:  # an unreadable folder or file beside the sources: compile instead
            return None

    def save_overload(self: Any, sig: Any, data: Any) -> None:
        if not read_only(self):
            numba_save(self, sig, data)
        elif self._enabled:
            warn_uncached()

    cache.load_overload = load_overload  # type: ignore[method-assign]
    cache.save_overload = save_overload  # type: ignore[method-assign]


_install_read_only_cache()

_GAMMA = np.uint64(0x9E3779B97F4A7C15)  # 2**64 / golden ratio: SplitMix64's increment
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
_ROW_KEY = np.uint64(0x6A09E667F3BCC909)  # keys that keep (seed, row, episode) apart: sqrt(2), sqrt(3)
_EPISODE_KEY = np.uint64(0xBB67AE8584CAA73B)


@numba.njit
def mix64(z: np.uint64) -> np.uint64:  # pragma: no cover - compiled (its tests run it)
    """SplitMix64's finaliser: a bijection of 64-bit words with full avalanche."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@numba.njit(cache=True)
def seed_state(seed: np.uint64, row: np.uint64, episode: np.uint64) -> np.uint64:  # pragma: no cover
    """The state of row ``row``'s generator for its ``episode``-th game of a batch seeded ``seed``."""
    z = mix64(seed + _GAMMA)
    z = mix64(z ^ (row * _ROW_KEY + _GAMMA))
    return mix64(z ^ (episode * _EPISODE_KEY + _GAMMA))


@numba.njit
def next_u64(state: np.ndarray, row: int) -> np.uint64:  # pragma: no cover
    """The next 64-bit draw of row ``row`` (``state`` is the batch's uint64 array of states)."""
    state[row] += _GAMMA
    return mix64(state[row])


@numba.njit
def bounded_word(z: np.uint64, n: int) -> tuple[int, np.uint64]:  # pragma: no cover
    """``bounded`` on a generator state held in a variable (a record's field): (the draw, the new
    state). A uniform integer in [0, n) for 1 <= n < 2**32: Lemire's multiply-shift, biased draws
    rejected."""
    bound = np.uint64(n)
    z += _GAMMA
    m = (mix64(z) >> _S32) * bound
    low = m & _LOW32
    if low < bound:
        threshold = (np.uint64(1 << 32) - bound) % bound
        while low < threshold:
            z += _GAMMA
            m = (mix64(z) >> _S32) * bound
            low = m & _LOW32
    return int(m >> _S32), z


@numba.njit
def bounded(state: np.ndarray, row: int, n: int) -> int:  # pragma: no cover
    """A uniform integer in [0, n) for 1 <= n < 2**32 from row ``row``'s generator (``bounded_word``)."""
    j, z = bounded_word(state[row], n)
    state[row] = z
    return j


@numba.njit
def shuffle_word(z: np.uint64, items: np.ndarray, n: int) -> np.uint64:  # pragma: no cover
    """Shuffle ``items[:n]`` in place (Fisher-Yates from the top) with the generator state ``z``;
    returns the new state (``shuffle`` for a state held in a variable: no one-word array to allocate)."""
    for i in range(n - 1, 0, -1):
        j, z = bounded_word(z, i + 1)
        tmp = items[i]
        items[i] = items[j]
        items[j] = tmp
    return z


@numba.njit
def shuffle(state: np.ndarray, row: int, items: np.ndarray, n: int) -> None:  # pragma: no cover
    """Shuffle ``items[:n]`` in place (Fisher-Yates from the top) with row ``row``'s generator."""
    state[row] = shuffle_word(state[row], items, n)


# What a parallel entry point raises when one of its chunks did not finish: its thread raised, and a
# threading layer may drop such an error (numba's ``workqueue`` does); the serial
# entry (``NUMBA_NUM_THREADS=1``) raises the kernel's own.
THREAD_ERROR = (
    "a kernel error in a thread of a parallel step (its message is lost by numba's threading layer; "
    "the same step with NUMBA_NUM_THREADS=1 raises it)"
)


# --- the chunk loop every parallel entry point shares (``core.threads``) -------------------------------
# A parallel entry splits its rows into ``len(marks)`` chunks, runs them in a ``prange`` and leaves one
# number per chunk in ``marks`` (an int64 array the engine keeps: the entry allocates nothing). The mark is
# set to -1 before the loop and overwritten by the chunk's result (>= 0): a -1 left after the loop is a
# chunk whose thread raised (``THREAD_ERROR``). The ``prange`` itself stays in each kernel's entry point:
# numba parallelises only a loop written in a ``parallel=True`` function.
@inner_jit
def chunk_rows(c: int, rows: int, chunks: int) -> tuple[int, int]:  # pragma: no cover
    """Rows ``lo:hi`` of chunk ``c`` of ``chunks`` over ``rows`` rows (sizes differ by at most one)."""
    return c * rows // chunks, (c + 1) * rows // chunks


@inner_jit
def open_chunks(marks: np.ndarray) -> None:  # pragma: no cover
    """Mark every chunk unfinished (-1), before the ``prange`` loop."""
    for c in range(len(marks)):
        marks[c] = -1


@inner_jit
def chunks_total(marks: np.ndarray) -> int:  # pragma: no cover
    """The sum of the chunks' results after the ``prange`` loop; ``THREAD_ERROR`` if one did not finish
    (numba's reduction would need reference counting, which the kernels go without)."""
    total = 0
    for c in range(len(marks)):
        if marks[c] < 0:
            raise RuntimeError(THREAD_ERROR)
        total += marks[c]
    return total


@inner_jit
def chunks_first(marks: np.ndarray, none: int) -> int:  # pragma: no cover
    """The smallest of the chunks' results after the ``prange`` loop (``none`` if every chunk left
    ``none``); ``THREAD_ERROR`` if one did not finish."""
    first = none
    for c in range(len(marks)):
        if marks[c] < 0:
            raise RuntimeError(THREAD_ERROR)
        first = min(first, marks[c])
    return first


@inner_jit
def first_illegal_in(
    actions: np.ndarray, active: np.ndarray, current_player: np.ndarray, mask: np.ndarray, lo: int, hi: int
) -> int:  # pragma: no cover
    """The first game of ``lo:hi`` whose action its mask does not allow (none: ``len(actions)``, the same
    answer for every chunk), among the live games (``current_player >= 0``) that move (``active``):
    ``BatchEnv._check_actions``'s test as one loop over the rows, with no temporary arrays (every kernel
    engine runs it every step; a parallel step runs it on its threads, chunk by chunk, before it moves
    any game)."""
    num_actions = mask.shape[1]
    for b in range(lo, hi):
        if current_player[b] < 0 or not active[b]:
            continue
        a = actions[b]
        if a < 0 or a >= num_actions or not mask[b, a]:
            return b
    return len(actions)


@inner_jit
def first_illegal_word_in(
    actions: np.ndarray, active: np.ndarray, current_player: np.ndarray, legal: np.ndarray, lo: int, hi: int
) -> int:  # pragma: no cover
    """``first_illegal_in`` against each row's legal set as bits (``legal[b, a >> 6]`` bit ``a & 63``: the
    words a deck-buffer kernel writes beside the mask). A row's set is a word, not a 64-byte mask row:
    the check reads an eighth of the memory, most of it written by the other threads of the last step
    (benchmarks/README.md, "the legality check as words")."""
    words = legal.shape[1]
    for b in range(lo, hi):
        if current_player[b] < 0 or not active[b]:
            continue
        a = actions[b]
        if a < 0 or a >= 64 * words or not (legal[b, a >> 6] >> np.uint64(a & 63)) & np.uint64(1):
            return b
    return len(actions)


def legal_words(legal: np.ndarray, rows: int) -> np.ndarray:
    """``legal`` checked as the legal sets of ``rows`` games with up to 64 actions, one uint64 word a row
    (what a deck-buffer kernel's ``outputs`` takes and ``encode_row`` writes); ``legal`` itself."""
    if legal.dtype != np.uint64 or legal.shape != (rows, 1) or not legal.flags.c_contiguous:
        raise ValueError(f"the legal sets must be one uint64 word a row, got {legal.dtype} {legal.shape}")
    return legal


@numba.njit(cache=True)
def first_illegal_words(
    actions: np.ndarray, active: np.ndarray, current_player: np.ndarray, legal: np.ndarray
) -> int:  # pragma: no cover
    """The first game whose action is illegal (-1: none): ``first_illegal_word_in`` over every row."""
    b = first_illegal_word_in(actions, active, current_player, legal, 0, len(actions))
    return -1 if b == len(actions) else b


@inner_jit
def _first_illegal(
    actions: np.ndarray, active: np.ndarray, current_player: np.ndarray, mask: np.ndarray
) -> int:  # pragma: no cover
    """The first game whose action is illegal (-1: none): ``first_illegal_in`` over every row."""
    b = first_illegal_in(actions, active, current_player, mask, 0, len(actions))
    return -1 if b == len(actions) else b


# The one legality check, cached under two entry points, one per layout of the engine's arrays: each
# then holds one version (the cache rule above), and a call finds its version by an exact type match
# (an explicit any-strides signature made numba convert contiguous arguments at every call: ~0.6 us).
@numba.njit(cache=True)
def first_illegal(
    actions: np.ndarray, active: np.ndarray, current_player: np.ndarray, mask: np.ndarray
) -> int:  # pragma: no cover
    """``_first_illegal`` on contiguous arrays (an engine's own masks, for a kernel that writes no legal
    sets as words)."""
    return _first_illegal(actions, active, current_player, mask)


@numba.njit(cache=True)
def first_illegal_fields(
    actions: np.ndarray, active: np.ndarray, current_player: np.ndarray, mask: np.ndarray
) -> int:  # pragma: no cover
    """``_first_illegal`` on strided views of a record array's fields (Oicho-Kabu's)."""
    return _first_illegal(actions, active, current_player, mask)


def legality_check(current_player: np.ndarray, mask: np.ndarray) -> Any:
    """The entry point of the legality check for an engine's current players and (padded) masks."""
    own = current_player.flags.c_contiguous and mask.flags.c_contiguous
    return first_illegal if own else first_illegal_fields


def seed_states(seed: int, rows: Iterable[int], episodes: Iterable[int]) -> np.ndarray:
    """``seed_state`` for many rows at once (Python side: resets are rare next to steps)."""
    s = np.uint64(seed % (1 << 64))
    pairs = zip(rows, episodes, strict=True)
    return np.array([seed_state(s, np.uint64(r), np.uint64(e)) for r, e in pairs], dtype=np.uint64)


def fingerprint(modules: Sequence[ModuleType], constants: Any = ()) -> str:
    """A hash of what a kernel's machine code depends on: numba, Python, its sources and its constants.

    ``constants`` is anything with a stable ``repr`` (tuples of ints, numpy arrays via ``tolist``)."""
    h = hashlib.sha256()
    h.update(f"{numba.__version__}|{sys.version}".encode())
    for module in modules:
        source = getattr(module, "__file__", None)
        if source is None:
            raise ValueError(f"module {module.__name__} has no source file to fingerprint")
        h.update(Path(source).read_bytes())
    h.update(repr(constants).encode())
    return h.hexdigest()


_PREPARED: dict[str, str] = {}


def jit_disabled() -> bool:
    """True under ``NUMBA_DISABLE_JIT=1``: kernels are plain Python (coverage, debugging), no cache."""
    return bool(getattr(numba.config, "DISABLE_JIT", 0))


def is_cached(dispatcher: Any) -> bool:
    """Whether a compiled function keeps a cache (``njit(cache=True)``; not ``inner_jit``)."""
    return hasattr(getattr(dispatcher, "_cache", None), "_cache_path")


def prepare(title: str, dispatchers: Sequence[Any], stamp: str, *, out: TextIO | None = None) -> bool:
    """Ready a kernel's cache before its first call; True when it will compile (and says so, once).

    ``dispatchers`` are the kernel's ``njit`` functions (one module; those not cached are skipped);
    ``stamp`` its ``fingerprint``. A cache written under another stamp is deleted, so numba recompiles
    instead of loading it."""
    dispatchers = [d for d in dispatchers if is_cached(d)]
    if jit_disabled() or not dispatchers:
        return False
    if _PREPARED.get(title) == stamp:
        return False
    folder = Path(dispatchers[0]._cache._cache_path)
    stem = Path(dispatchers[0].py_func.__code__.co_filename).stem
    stamp_file = folder / f"{stem}.kabu-stamp"
    writable = not read_only(dispatchers[0]._cache)
    try:
        cached = sorted(folder.glob(f"{stem}.*.nbi")) if folder.is_dir() else []
        fresh = stamp_file.is_file() and stamp_file.read_text() == stamp
    except OSError:  # (a read-only cache folder we may not read)
        cached, fresh = [], False
    if not fresh:
        if writable:
            for path in [*cached, *folder.glob(f"{stem}.*.nbc")]:
                path.unlink(missing_ok=True)
        else:  # a stale read-only cache cannot be dropped: not read at all
            for dispatcher in dispatchers:
                dispatcher._cache.disable()
        cached = []
    compiling = not cached
    if compiling:
        print(compiling_line(title, dispatchers[0]), file=out or sys.stderr, flush=True)
        if not writable:
            warn_uncached()
    if writable and not fresh:  # a fresh stamp is never rewritten, a new one replaces the old at once:
        # processes starting together (evaluation workers) never read a half-written stamp, which would
        # drop a good cache and compile every kernel again
        folder.mkdir(parents=True, exist_ok=True)
        part = folder / f"{stem}.kabu-stamp.{os.getpid()}"
        part.write_text(stamp)
        os.replace(part, stamp_file)
    _PREPARED[title] = stamp
    return compiling


def compiling_line(title: str, dispatcher: Any, parts: str = "") -> str:
    """The line a user sees when a kernel compiles (``parts``: which of its modules): where it is
    cached, or that it is not."""
    name = f"the {title} kernel" + (f" ({parts})" if parts else "")
    if read_only(dispatcher._cache):
        return f"compiling {name} (not cached: no writable cache folder)"
    return f"compiling {name} once; cached in {dispatcher._cache._cache_path}"
