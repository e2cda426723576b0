"""The Oicho-Kabu kernel's observation: ``observation.Encoder`` as a numba per-row loop (float32, bit
for bit), and the compact form (the 0/1 entries as bits, the numbers as float32)."""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from kabu_envs.oicho_kabu.deck import NUM_VALUES
from kabu_envs.oicho_kabu.game import MAX_CARDS, NUM_SPREADS
from kabu_envs.oicho_kabu.kernel import flow as _flow
from kabu_envs.oicho_kabu.kernel.layout import (
    CHOICE,
    F_ACTIVE,
    F_BACKERS,
    F_CHIPS,
    F_DCARDS,
    F_DEALER,
    F_DEALS,
    F_DECIDER,
    F_DHIDDEN,
    F_DLIGHTS,
    F_INFO,
    F_LEFT,
    F_MINSO,
    F_OWN,
    F_OWN_CHIPS,
    F_PHASE,
    F_ROOM,
    F_ROUND,
    F_SCARDS,
    F_SELECT,
    F_SHIDDEN,
    F_SLIGHTS,
    F_SLOT,
    F_STATUS,
    F_TO_ACT,
    F_TOTAL,
    HAND,
    LIGHT_MASK,
    O_BANKROLL,
    O_DOMAE,
    O_FACE_UP,
    O_LIGHTS,
    O_MAX_DEALS,
    O_MAX_ROUNDS,
    O_MINSO,
    O_N,
    O_OBS,
    OFF,
    OVER,
    Game,
    Rules,
    State,
)
from kabu_envs.oicho_kabu.observation import NUM_STATUS

_njit: Any = numba.njit  # (``_nrt`` is numba's own flag, absent from its type stubs)


# --- the observation (observation.Encoder) ---------------------------------------------------------------
@numba.njit
def _scales(ru: Rules) -> tuple[float, float, float, float, float]:  # pragma: no cover
    """``Encoder``'s scales: 1 / domae, 1 / (players x bankroll), 1 / max_rounds, 1 / dealer_max_deals,
    1 / bettors."""
    n = ru[O_N]
    return (
        1.0 / ru[O_DOMAE],
        1.0 / max(1, n * ru[O_BANKROLL]),
        1.0 / ru[O_MAX_ROUNDS],
        1.0 / ru[O_MAX_DEALS],
        1.0 / max(1, n - 1),
    )


@numba.njit(inline="always")
def _put(a: np.ndarray, i: int, value: float) -> None:  # pragma: no cover
    """``a[i] = value`` with an unsigned index: numba wraps a signed index that may be negative
    (``a[-1]``), a test and a select on every write of the row (docs/batch.md#speed)."""
    a[np.uint64(i)] = value


@_njit(_nrt=False)  # (not inlined: no faster, and ~3 s more cold compile with its two callers)
def _encode_row(
    g: Game, ru: Rules, seat: int, a: np.ndarray, inv: tuple[float, float, float, float, float]
) -> None:  # pragma: no cover
    """``Encoder.encode(game, seat)`` into ``a`` (float32, zeroed by the caller); ``seat`` < 0: zeros.
    The showdown (``Game.showdown``) is the end of the episode: every card is shown. ``inv``: the scales
    (``_scales``), divided once a call, not once a game."""
    if seat < 0:
        return
    n = ru[O_N]
    domae = ru[O_DOMAE]
    inv_d, inv_t, inv_rounds, inv_deals, inv_b = inv
    phase = g.phase
    showdown = phase == OVER
    dealer = g.dealer
    d = dealer - seat  # (d % n, and (seat + j) % n below, without an integer division)
    _put(a, ru[OFF + F_DEALER] + (d + n if d < 0 else d), 1.0)
    lights = ru[O_LIGHTS] != 0
    for s in range(NUM_SPREADS):  # Encoder._static: the spreads' cards
        base = ru[OFF + F_SCARDS] + HAND * s
        c0, c1, c2 = g.spreads[s, 0], g.spreads[s, 1], g.spreads[s, 2]
        if c0 < 0:
            continue
        _put(a, base + (c0 >> 2), 1.0)
        # the second card: to its backers, to all at the showdown or once an unbacked spread is turned up
        seen = showdown or g.stakes[seat, s] != 0 or (c2 >= 0 and g.spread_total[s] == 0)
        if c1 >= 0:
            if seen:
                _put(a, base + NUM_VALUES + (c1 >> 2), 1.0)
            else:
                _put(a, ru[OFF + F_SHIDDEN] + MAX_CARDS * s + 1, 1.0)
            if c2 >= 0:
                _put(a, base + 2 * NUM_VALUES + (c2 >> 2), 1.0)
        if lights:  # Encoder._add_lights
            for k in range(MAX_CARDS):
                c = g.spreads[s, k]
                if c >= 0 and (LIGHT_MASK >> c) & 1 and (k != 1 or seen):
                    _put(a, ru[OFF + F_SLIGHTS] + MAX_CARDS * s + k, 1.0)
        state = g.spread_state[s]
        if state:
            _put(a, ru[OFF + F_STATUS] + NUM_STATUS * s + state - 1, 1.0)
    nd = g.nd
    if nd:
        see = showdown or (g.revealed and (ru[O_FACE_UP] != 0 or seat == dealer))
        if see:
            for k in range(nd):
                _put(a, ru[OFF + F_DCARDS] + NUM_VALUES * k + (g.dealer_cards[k] >> 2), 1.0)
        else:
            _put(a, ru[OFF + F_DHIDDEN], 1.0)
            if nd > 1:
                _put(a, ru[OFF + F_DHIDDEN] + 1, 1.0)
            if nd > 2:  # a drawn third card is face up
                _put(a, ru[OFF + F_DCARDS] + 2 * NUM_VALUES + (g.dealer_cards[2] >> 2), 1.0)
        if lights:
            for k in range(nd):
                c = g.dealer_cards[k]
                if (LIGHT_MASK >> c) & 1 and (see or k == 2):
                    _put(a, ru[OFF + F_DLIGHTS] + k, 1.0)
    info = g.info[seat]
    if info >= 0:
        _put(a, ru[OFF + F_INFO] + (info >> 2), 1.0)
    if ru[OFF + F_SELECT] >= 0:  # public: every selection card, from this seat on
        for j in range(n):
            x = seat + j
            c = g.selection[x - n if x >= n else x]
            if c >= 0:
                _put(a, ru[OFF + F_SELECT] + NUM_VALUES * j + (c >> 2), 1.0)
    for j in range(n):
        x = seat + j
        c = g.chips[x - n if x >= n else x]
        if c > 0:
            _put(a, ru[OFF + F_CHIPS] + j, min(c * inv_t, 1.0))
    mine = g.chips[seat]
    if mine > 0:
        _put(a, ru[OFF + F_OWN_CHIPS], min(mine * inv_d, 1.0))
    _put(a, ru[OFF + F_ROUND], g.round_index * inv_rounds)
    _put(a, ru[OFF + F_DEALS], min(g.deals_by_dealer * inv_deals, 1.0))
    limit = ru[O_MINSO]
    if limit:
        _put(a, ru[OFF + F_MINSO], (limit - g.minso_redeals) / limit)
    # Encoder.encode: what moves every step
    _put(a, ru[OFF + F_PHASE] + phase, 1.0)
    if g.current_player == seat:
        _put(a, ru[OFF + F_TO_ACT], 1.0)
    if g.active >= 0:
        _put(a, ru[OFF + F_ACTIVE] + g.active, 1.0)
    if phase == CHOICE:
        _put(a, ru[OFF + F_SLOT] + g.choice_slot, 1.0)
    total = g.round_total
    if total:
        for s in range(NUM_SPREADS):
            own = g.stakes[seat, s]
            if own:
                _put(a, ru[OFF + F_OWN] + s, own * inv_d)
            tot = g.spread_total[s]
            if tot:
                _put(a, ru[OFF + F_TOTAL] + s, tot * inv_d)
                _put(a, ru[OFF + F_BACKERS] + s, g.backers[s] * inv_b)
                if g.decider[s] == seat:
                    _put(a, ru[OFF + F_DECIDER] + s, 1.0)
    left = domae - total
    room = mine - g.seat_total[seat]
    _put(a, ru[OFF + F_LEFT], left * inv_d)
    if room > 0:
        _put(a, ru[OFF + F_ROOM], min(room, left) * inv_d)


@_njit(cache=True, _nrt=False)  # (no reference counting: it allocates nothing; see ``_put``)
def encode(
    st: State, ru: Rules, rows: np.ndarray, seats: np.ndarray, out: np.ndarray
) -> None:  # pragma: no cover
    """The observation of seat ``seats[i]`` of game ``rows[i]`` into ``out[i]`` (float32, bit for bit
    ``Encoder.encode``; a seat < 0 gives zeros, as a finished game's current player)."""
    inv = _scales(ru)
    for i in range(len(rows)):
        out[i, :] = 0.0
        _encode_row(st[rows[i]], ru, seats[i], out[i], inv)


@_njit(cache=True, _nrt=False, parallel=True)
def encode_parallel(
    st: State, ru: Rules, rows: np.ndarray, seats: np.ndarray, out: np.ndarray, chunks: int
) -> None:  # pragma: no cover
    """``encode`` with the rows in ``chunks`` chunks spread over numba's threads (``core.threads``; each
    row written by one thread, from its own record)."""
    inv = _scales(ru)
    n = len(rows)
    for c in numba.prange(chunks):
        for i in range(c * n // chunks, (c + 1) * n // chunks):
            out[i, :] = 0.0
            _encode_row(st[rows[i]], ru, seats[i], out[i], inv)


@numba.njit
def _step_encode_range(
    st: State,
    ru: Rules,
    actions: np.ndarray,
    moving: np.ndarray,
    autoreset: bool,
    lo: int,
    hi: int,
    out: np.ndarray,
    inv: tuple[float, float, float, float, float],
) -> int:  # pragma: no cover
    """``flow._step_range`` of games ``lo:hi``, then the observation of each that moved and does not wait
    for a shuffle (a waiting game is encoded once Python resumed it); the games that wait. (A parallel
    chunk's body: its games' records are still in the core's cache when they are encoded.)"""
    waiting = _flow._step_range(st, ru, actions, moving, autoreset, lo, hi)
    for b in range(lo, hi):
        if moving[b] and st[b].resume == _flow.R_NONE:
            out[b, :] = 0.0
            _encode_row(st[b], ru, st[b].current_player, out[b], inv)
    return waiting


@numba.njit(cache=True, parallel=True)
def step_encode_parallel(
    st: State,
    ru: Rules,
    actions: np.ndarray,
    moving: np.ndarray,
    autoreset: bool,
    chunks: int,
    out: np.ndarray,
) -> int:  # pragma: no cover
    """``flow.step_parallel`` and the float32 observations of the games that moved (``out``: (B, size)), in
    one parallel call: each chunk steps its games and encodes them. Returns how many games wait for a
    shuffle (their observations are left to the caller)."""
    inv = _scales(ru)
    waiting = 0
    B = len(actions)
    for c in numba.prange(chunks):
        lo, hi = c * B // chunks, (c + 1) * B // chunks
        waiting += _step_encode_range(st, ru, actions, moving, autoreset, lo, hi, out, inv)
    return waiting


@numba.njit
def _pack(
    a: np.ndarray, start: int, end: int, row: np.ndarray, j: int, acc: int
) -> tuple[int, int]:  # pragma: no cover
    """Append ``a[start:end] != 0`` to the bit row ``row`` from bit ``j`` on (``acc``: the byte being
    filled); returns (j, acc) after them."""
    for col in range(start, end):
        acc |= (a[col] != 0.0) << (j & 7)
        j += 1
        if j & 7 == 0:
            row[(j >> 3) - 1] = acc
            acc = 0
    return j, acc


@numba.njit
def _compact_rows(
    st: State,
    ru: Rules,
    rows: np.ndarray,
    seats: np.ndarray,
    bits: np.ndarray,
    numbers: np.ndarray,
    lo: int,
    hi: int,
    start: int,
    stop: int,
    a: np.ndarray,
) -> None:  # pragma: no cover
    """``encode_compact`` of rows ``start:stop``, ``a`` the float32 row it encodes into first."""
    size = ru[O_OBS]
    inv = _scales(ru)
    first = bits.shape[1] // 4 - (hi - lo)
    for i in range(start, stop):
        a[:] = 0.0
        _encode_row(st[rows[i]], ru, seats[i], a, inv)
        row = bits[i]
        j, acc = _pack(a, 0, lo, row, 0, 0)
        j, acc = _pack(a, hi, size, row, j, acc)
        if j & 7:
            row[j >> 3] = acc
        for x in range(j + 7 >> 3, 4 * first):  # the padding
            row[x] = 0
        for x in range(hi - lo):
            numbers[i, first + x] = a[lo + x]


@numba.njit(cache=True)
def encode_compact(
    st: State,
    ru: Rules,
    rows: np.ndarray,
    seats: np.ndarray,
    bits: np.ndarray,
    numbers: np.ndarray,
    lo: int,
    hi: int,
) -> None:  # pragma: no cover
    """``encode`` as bits and numbers: ``bits`` (k, C) uint8 and ``numbers`` its float32 view, the
    numbers at float32 column ``nbytes // 4`` on (``compact_layout``)."""
    a = np.empty(ru[O_OBS], dtype=np.float32)
    _compact_rows(st, ru, rows, seats, bits, numbers, lo, hi, 0, len(rows), a)


@numba.njit(cache=True, parallel=True)
def encode_compact_parallel(
    st: State,
    ru: Rules,
    rows: np.ndarray,
    seats: np.ndarray,
    bits: np.ndarray,
    numbers: np.ndarray,
    lo: int,
    hi: int,
    chunks: int,
) -> None:  # pragma: no cover
    """``encode_compact`` with the rows in ``chunks`` chunks spread over numba's threads, each chunk with
    its own scratch row (every row's bytes are its own: the same output for any thread count)."""
    n = len(rows)
    for c in numba.prange(chunks):
        a = np.empty(ru[O_OBS], dtype=np.float32)
        _compact_rows(st, ru, rows, seats, bits, numbers, lo, hi, c * n // chunks, (c + 1) * n // chunks, a)
