"""The Toy Card rules kernel (numba): the template every game's kernel follows.

A kernel holds B games as arrays (one row per game) and plays them with ``@numba.njit(cache=True)``
functions written as per-row loops that read like the scalar engine (``game.py``); the docstrings name
the function each one mirrors, and the lockstep suites hold the two equal. The parts:

- the state (``State``): a named tuple of fixed-shape arrays, read by name (``st.values``); ``g`` (B, NG)
  int64 holds per-game numbers by column;
- the rule options (``options``): one int64 array built from the ``Config``, read at run time;
- ``reset_rows`` (deal), ``step`` (apply one action in every live game, settle, autoreset) and
  ``encode_row`` (the mask and the current seat's observation, float32 or compact);
- deals from the deck buffer ``decks`` (a deck feed Python fills, ``FEED``/``READY``) or from the row's
  own generator (``core.kernel``), a stacked prefix of ``PREFIX`` cards first (docs/batch.md#seeding);
- ``prepare``: the cache stamp over every module the kernel's constants come from.
"""

from __future__ import annotations

import sys
from typing import Any, NamedTuple

import numba
import numpy as np

from kabu_envs.core import kernel as core
from kabu_envs.toy_card.config import Config
from kabu_envs.toy_card.game import DECK_SIZE, NUM_ACTIONS, Action
from kabu_envs.toy_card.observation import obs_spec

FEED, READY, PREFIX, EPISODE = 0, 1, 2, 3  # columns of g: where deals come from (see above)
NG = 4
O_N, O_THRESHOLD, O_AUTORESET = 0, 1, 2  # the rule options
NUM_OPTIONS = 3
L_CARD, L_SEAT = 0, 1  # the observation layout (obs_spec offsets)

Outputs = tuple[np.ndarray, ...]  # layout, mask, observation, packed (compact), real (compact, unused)

_DECK, _RAISE = DECK_SIZE, int(Action.RAISE)


class State(NamedTuple):
    """The arrays of B games (one row each), read by name in the compiled functions (``st.values``)."""

    g: np.ndarray  # (B, NG) int64: FEED, READY, PREFIX, EPISODE
    current_player: np.ndarray  # (B,) int64, -1: the game is over
    values: np.ndarray  # (B, n) int64: each seat's card value (card // 4)
    stakes: np.ndarray  # (B, n) int64
    decks: np.ndarray  # (B, 40) int8: the deal's order (fed, or a stacked prefix)
    rng: np.ndarray  # (B,) uint64: core.kernel generator states


Arrays = State  # (the annotation of the kernel functions' state argument)
Fields = tuple[np.ndarray, ...]  # (the state as Python passes it, tuple(state): see spec.Fields)
_ONE = np.uint64(1)

# Compiled without reference counting (numba's NRT): a kernel allocates nothing, and NRT's atomic
# increments on each array taken from the state tuple would cost more than the game's own work.
_njit: Any = numba.njit  # (``_nrt`` is numba's own flag, absent from its type stubs)
kernel_jit = _njit(cache=True, _nrt=False)
# the entry points that spread the rows over numba's threads (``core.threads``: same games, any count)
kernel_jit_parallel = _njit(cache=True, _nrt=False, parallel=True)


@kernel_jit
def deal(b: int, st: Arrays, opts: np.ndarray) -> None:  # pragma: no cover - compiled (tests run it)
    """``Game.__init__``: one card per seat from the top of the deck (value = card // 4)."""
    g, cur, values, stakes, decks, rng = st.g, st.current_player, st.values, st.stakes, st.decks, st.rng
    if g[b, FEED]:
        if not g[b, READY]:
            raise RuntimeError("a fed game deals with no deck in its feed")
        g[b, READY] = 0
    else:  # core.rng.ordered_deck: the stacked prefix, then the other cards shuffled
        k = g[b, PREFIX]
        seen = np.uint64(0)  # (a bit set: 40 cards)
        for i in range(k):
            seen |= _ONE << np.uint64(decks[b, i])
        at = k
        for c in range(_DECK):
            if not (seen >> np.uint64(c)) & _ONE:
                decks[b, at] = c
                at += 1
        core.shuffle(rng, b, decks[b, k:], _DECK - k)
        g[b, PREFIX] = 0
    for s in range(opts[O_N]):
        values[b, s] = decks[b, s] // 4
        stakes[b, s] = 0
    cur[b] = 0


@kernel_jit
def reset_rows(
    rows: np.ndarray, arrays: Fields, opts: np.ndarray, rewards: np.ndarray, over: np.ndarray
) -> None:  # pragma: no cover  # noqa: E501
    """A new game in each of ``rows`` (FEED / READY / PREFIX / rng set by the caller)."""
    st = State(*arrays)  # (named at once: Python passes the plain tuple, spec.Fields)
    for b in rows:
        for s in range(opts[O_N]):
            rewards[b, s] = 0.0
        over[b] = False
        deal(b, st, opts)


@kernel_jit
def step_row(
    b: int,
    acts: np.ndarray,
    active: np.ndarray,
    st: Arrays,
    opts: np.ndarray,
    rewards: np.ndarray,
    over: np.ndarray,
    stream_seed: np.uint64,
    out: Outputs,
) -> None:  # pragma: no cover
    """``Game.apply_action`` in game b if it is live and ``active[b]``: the seat stakes 0/1/2; after the
    last seat, score = stake * (+1 if value >= threshold else -1), reward = score - the table's mean
    (row b's arrays only: rows may run at once)."""
    g, cur, values, stakes, rng = st.g, st.current_player, st.values, st.stakes, st.rng
    n = opts[O_N]
    for s in range(n):
        rewards[b, s] = 0.0
    over[b] = cur[b] < 0
    if cur[b] < 0 or not active[b]:
        return
    stakes[b, cur[b]] = acts[b]
    cur[b] += 1
    if cur[b] == n:
        total = 0.0
        for s in range(n):
            total += stakes[b, s] * (1.0 if values[b, s] >= opts[O_THRESHOLD] else -1.0)
        mean = total / n
        for s in range(n):
            rewards[b, s] = stakes[b, s] * (1.0 if values[b, s] >= opts[O_THRESHOLD] else -1.0) - mean
        over[b] = True
        cur[b] = -1
        if opts[O_AUTORESET]:
            g[b, FEED] = 0
            g[b, PREFIX] = 0
            g[b, EPISODE] += 1
            rng[b] = core.seed_state(stream_seed, np.uint64(b), np.uint64(g[b, EPISODE]))
            deal(b, st, opts)
    encode_row(b, st, opts, out)


@kernel_jit
def step_range(
    lo: int,
    hi: int,
    acts: np.ndarray,
    active: np.ndarray,
    st: Arrays,
    opts: np.ndarray,
    rewards: np.ndarray,
    over: np.ndarray,
    stream_seed: np.uint64,
    out: Outputs,
) -> None:  # pragma: no cover
    """``step_row`` for rows ``lo:hi`` (the serial loop, and a parallel chunk's body)."""
    for b in range(lo, hi):
        step_row(b, acts, active, st, opts, rewards, over, stream_seed, out)


@kernel_jit
def step(
    acts: np.ndarray,
    active: np.ndarray,
    arrays: Fields,
    opts: np.ndarray,
    rewards: np.ndarray,
    over: np.ndarray,
    stream_seed: np.uint64,
    out: Outputs,
    legal: np.ndarray,
) -> int:  # pragma: no cover
    """``step_row`` in every game, the actions checked first against ``legal`` (an illegal one: nothing
    moves, the result is ``-1 - game``, as in ``step_parallel``); returns the fed decks taken (none: Toy
    Card deals only at a reset)."""
    st = State(*arrays)  # (named at once: Python passes the plain tuple, spec.Fields)
    bad = core.first_illegal_word_in(acts, active, st.current_player, legal, 0, len(st.g))
    if bad < len(st.g):
        return -1 - bad
    for b in range(len(st.g)):  # (not ``step_range(0, ...)``: a literal 0 would type a second version)
        step_row(b, acts, active, st, opts, rewards, over, stream_seed, out)
    return 0


@kernel_jit_parallel
def step_parallel(
    acts: np.ndarray,
    active: np.ndarray,
    arrays: Fields,
    opts: np.ndarray,
    rewards: np.ndarray,
    over: np.ndarray,
    stream_seed: np.uint64,
    out: Outputs,
    legal: np.ndarray,
    marks: np.ndarray,
    check_min_rows: int,
) -> int:  # pragma: no cover
    """``step`` with the rows in ``len(marks)`` chunks spread over numba's threads, the actions checked
    first against ``legal`` (the rows' legal sets), on the threads too from ``check_min_rows`` rows on
    (an illegal one: nothing moves, the result is ``-1 - game``); no fed deck is taken (0). The chunk
    loop is the one every kernel shares (``core.chunk_rows``)."""
    st = State(*arrays)  # (named at once: Python passes the plain tuple, spec.Fields)
    cur = st.current_player
    B, chunks = len(cur), len(marks)
    if len(cur) >= check_min_rows:  # (a parallel loop of its own: ``core.threads.CHECK_MIN_ROWS``)
        core.open_chunks(marks)
        for c in numba.prange(chunks):
            lo, hi = core.chunk_rows(c, B, chunks)
            marks[c] = core.first_illegal_word_in(acts, active, cur, legal, lo, hi)
        bad = core.chunks_first(marks, B)
    else:
        bad = core.first_illegal_word_in(acts, active, cur, legal, 0, B)
    if bad < B:
        return -1 - bad
    core.open_chunks(marks)
    for c in numba.prange(chunks):
        lo, hi = core.chunk_rows(c, B, chunks)
        step_range(lo, hi, acts, active, st, opts, rewards, over, stream_seed, out)
        marks[c] = 0
    return core.chunks_total(marks)


@kernel_jit
def encode_rows(rows: np.ndarray, arrays: Fields, opts: np.ndarray, out: Outputs) -> None:  # pragma: no cover
    st = State(*arrays)  # (named at once: Python passes the plain tuple, spec.Fields)
    for b in rows:
        encode_row(b, st, opts, out)


@kernel_jit_parallel
def encode_rows_parallel(
    rows: np.ndarray, arrays: Fields, opts: np.ndarray, out: Outputs, chunks: int
) -> None:  # pragma: no cover
    """``encode_rows`` with the rows in ``chunks`` chunks spread over numba's threads."""
    st = State(*arrays)  # (named at once: Python passes the plain tuple, spec.Fields)
    n = len(rows)
    for c in numba.prange(chunks):
        lo, hi = core.chunk_rows(c, n, chunks)
        for i in range(lo, hi):
            encode_row(rows[i], st, opts, out)


@kernel_jit
def encode_row(b: int, st: Arrays, opts: np.ndarray, out: Outputs) -> None:  # pragma: no cover
    """``Game.legal_actions`` as the mask and ``observation.Encoder.encode`` (own card, own seat);
    zeros when the game is over. Compact: every entry is 0/1, packed eight to a byte."""
    cur, values = st.current_player, st.values
    layout, mask, obs, packed, legal = out[0], out[1], out[2], out[3], out[5]
    seat = cur[b]
    if obs.shape[1]:
        obs[b, :] = 0.0
    else:
        packed[b, :] = 0
    word = np.uint64(0)  # the legal set as bits (what the legality check reads)
    for a in range(NUM_ACTIONS):  # (the mask's row may be padded: ``KernelBatchEnv``)
        ok = seat >= 0 and (a != _RAISE or values[b, seat] >= opts[O_THRESHOLD])
        mask[b, a] = ok
        if ok:
            word |= np.uint64(1) << np.uint64(a)
    legal[b, 0] = word
    if seat < 0:
        return
    for i in (layout[L_CARD] + values[b, seat], layout[L_SEAT] + seat):
        if obs.shape[1]:
            obs[b, i] = 1.0
        else:
            packed[b, i >> 3] |= np.uint8(1 << (i & 7))


def options(cfg: Config, autoreset: bool = False) -> np.ndarray:
    """The rule set as the kernel's int64 option array."""
    return np.array([cfg.num_players, cfg.raise_threshold, autoreset], dtype=np.int64)


def outputs(
    layout: np.ndarray,
    mask: np.ndarray,
    obs: np.ndarray,
    packed: np.ndarray,
    real: np.ndarray,
    legal: np.ndarray,
) -> Outputs:
    """The kernel's output tuple (``KernelBatchEnv``): the layout, the mask, the observation, and each
    row's legal set as one word (``legal``)."""
    return (layout, mask, obs, packed, real, core.legal_words(legal, mask.shape[0]))


def layout(cfg: Config) -> np.ndarray:
    offsets = obs_spec(cfg).offsets
    return np.array([offsets["own_card"], offsets["seat"]], dtype=np.int64)


def make_state(batch_size: int, cfg: Config) -> State:
    """The arrays of ``batch_size`` games of ``cfg``, every game over (``reset_rows`` deals)."""
    B, n = batch_size, cfg.num_players
    return State(
        g=np.zeros((B, NG), dtype=np.int64),
        current_player=np.full(B, -1, dtype=np.int64),
        values=np.zeros((B, n), dtype=np.int64),
        stakes=np.zeros((B, n), dtype=np.int64),
        decks=np.zeros((B, DECK_SIZE), dtype=np.int8),
        rng=np.zeros(B, dtype=np.uint64),
    )


DISPATCHERS = (
    deal,
    reset_rows,
    step_row,
    step_range,
    step,
    step_parallel,
    encode_rows,
    encode_rows_parallel,
    encode_row,
)


def stamp() -> str:
    """The cache stamp: this module, the shared generator and the modules its constants come from."""
    import kabu_envs.toy_card.game as game_mod
    import kabu_envs.toy_card.observation as observation_mod

    modules = [sys.modules[__name__], core, game_mod, observation_mod]
    return core.fingerprint(modules, (NG, NUM_OPTIONS, NUM_ACTIONS, DECK_SIZE))


def prepare() -> bool:
    """Ready the cache (``core.kernel.prepare``): one line when it compiles."""
    return core.prepare("Toy Card", DISPATCHERS, stamp())
