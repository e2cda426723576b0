"""The Kakeya kernel's batch functions (numba): reset rows, step every live row, write masks and
observations (``observation.Encoder.encode_with_mask`` bit for bit, or compact)."""

from __future__ import annotations

import numpy as np
from numba import prange

from kabu_envs.core import kernel as core
from kabu_envs.kakeya.actions import LEAD_PARTNER, LEAD_SELF, TRUMP_BASE
from kabu_envs.kakeya.cards import ACE_OF_CLUBS, NUM_CARDS
from kabu_envs.kakeya.kernel.rules import (
    ahead,
    bit,
    deal,
    egara16,
    legal_plays,
    new_match,
    play,
    rensho_card,
    start_trick,
)
from kabu_envs.kakeya.kernel.spec import (
    BYTE_BOOLS,
    BYTE_FLOATS,
    DEAL_NO,
    DEALER_P,
    EPISODE,
    FEED,
    HAND_SCALE,
    L_COUNTS,
    L_DEAL,
    L_EGARA,
    L_FIRST_DEALER,
    L_GONE,
    L_HAND,
    L_LEADER,
    L_LED,
    L_PARTNERSHIP,
    L_PHASE,
    L_PLAYED,
    L_RENSHO,
    L_ROLE,
    L_STONES,
    L_TRICK,
    L_TRUMP,
    L_VOIDS,
    LEAD_PHASE,
    O_AUTORESET,
    O_MAX_DEALS,
    O_MUST_FOLLOW,
    O_N,
    O_P,
    O_RENSHO_SEED,
    O_SIT_OUT,
    O_STONES,
    ONE,
    PHASE,
    PLAY_PHASE,
    PREFIX,
    READY,
    RENSHO,
    SUITS,
    T_LEADER,
    T_LED,
    TRUMP,
    TRUMP_PHASE,
    ZERO,
    Arrays,
    Fields,
    Outputs,
    State,
    kernel_jit,
    kernel_jit_inline,
    kernel_jit_parallel,
)


# ==================================================================================================
# the batch: reset, step, mask and observation
# ==================================================================================================
@kernel_jit
def reset_rows(
    rows: np.ndarray, arrays: Fields, opts: np.ndarray, rewards: np.ndarray, over: np.ndarray
) -> None:  # pragma: no cover  # noqa: E501
    """A new match in each of ``rows`` (their FEED / READY / PREFIX / rng set by the caller)."""
    st = State(*arrays)  # (named at once: Python passes the plain tuple, spec.Fields)
    for b in rows:
        for s in range(opts[O_N]):
            rewards[b, s] = 0.0
        over[b] = False
        new_match(b, st, opts)


@kernel_jit_inline
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
) -> int:  # pragma: no cover
    """``step``'s work on row b (it reads and writes row b only); 1 when it took a fed deck."""
    g, cur, rng = st.g, st.current_player, st.rng
    n, P = opts[O_N], opts[O_P]
    taken = 0
    for s in range(n):
        rewards[b, s] = 0.0
    over[b] = cur[b] < 0
    if cur[b] < 0 or not active[b]:
        return 0
    a = acts[b]
    phase = g[b, PHASE]
    fed = g[b, FEED] and g[b, READY]
    if phase == PLAY_PHASE:
        play(b, a, st, opts, rewards, over)
    elif phase == TRUMP_PHASE:
        g[b, TRUMP] = a - TRUMP_BASE
        deal(b, st, opts)
    else:  # LEAD: the chooser leads, or the partner (the other seat of the partnership)
        chooser = cur[b]
        g[b, PHASE] = PLAY_PHASE
        leader = chooser if a == LEAD_SELF else (chooser + P) % n
        start_trick(b, leader, st, n)
    if fed and not g[b, READY]:
        taken = 1
    if over[b] and opts[O_AUTORESET]:
        g[b, FEED] = 0
        g[b, READY] = 0
        g[b, PREFIX] = 0
        g[b, EPISODE] += 1
        rng[b] = core.seed_state(stream_seed, np.uint64(b), np.uint64(g[b, EPISODE]))
        new_match(b, st, opts)
    encode_row(b, st, opts, out)
    return taken


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
) -> int:  # pragma: no cover
    """``step_row`` for rows ``lo:hi``; the fed decks taken. (The body of a parallel chunk: a call of its
    own, as ``step_row`` inlined by numba straight into a ``prange`` body wrote wrong rows.)"""
    taken = 0
    for b in range(lo, hi):
        taken += step_row(b, acts, active, st, opts, rewards, over, stream_seed, out)
    return taken


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
    """One action in every live game with ``active[b]`` (``Game.apply_action``), then its mask and
    observation; returns how many fed decks were taken (the caller tops the feed up). The actions are
    checked first against ``legal`` (the rows' legal sets, ``encode_row``'s words): with an illegal one
    nothing moves and the result is ``-1 - game`` (the first such game), as in ``step_parallel``. (The
    check in the same call: a one-game step pays one call from Python, not two.)

    A game over or held reports reward 0 and ``over`` (``terminated``) = over. With ``O_AUTORESET`` a
    match that ends starts anew at once from the row's generator (``seed_state(stream_seed, b,
    episode)``), its payout and end still reported."""
    st = State(*arrays)  # (named at once: Python passes the plain tuple, spec.Fields)
    cur = st.current_player
    bad = core.first_illegal_word_in(acts, active, cur, legal, 0, len(cur))
    if bad < len(cur):
        return -1 - bad
    taken = 0
    for b in range(len(cur)):  # (not ``step_range(0, ...)``: a literal 0 would type a second version)
        taken += step_row(b, acts, active, st, opts, rewards, over, stream_seed, out)
    return taken


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
    """``step`` with the rows in ``len(marks)`` chunks spread over numba's threads (``core.threads``):
    the same games bit for bit for any thread count. The actions are checked first against ``legal``
    (the rows' legal sets, ``encode_row``'s words), on the threads too from ``check_min_rows`` rows on:
    with an illegal one nothing moves and the result is ``-1 - game`` (the first such game). Otherwise
    the fed decks taken (each chunk's count in ``marks``, summed after the loop; ``core.chunks_total``)."""
    st = State(*arrays)  # (named at once: Python passes the plain tuple, spec.Fields)
    cur = st.current_player
    B, chunks = len(cur), len(marks)
    if len(cur) >= check_min_rows:  # (a parallel loop of its own: ``core.threads.CHECK_MIN_ROWS``)
        core.open_chunks(marks)
        for c in prange(chunks):
            lo, hi = core.chunk_rows(c, B, chunks)
            marks[c] = core.first_illegal_word_in(acts, active, cur, legal, lo, hi)
        bad = core.chunks_first(marks, B)
    else:
        bad = core.first_illegal_word_in(acts, active, cur, legal, 0, B)
    if bad < B:
        return -1 - bad
    core.open_chunks(marks)
    for c in prange(chunks):
        lo, hi = core.chunk_rows(c, B, chunks)
        marks[c] = step_range(lo, hi, acts, active, st, opts, rewards, over, stream_seed, out)
    return core.chunks_total(marks)


@kernel_jit
def encode_rows(rows: np.ndarray, arrays: Fields, opts: np.ndarray, out: Outputs) -> None:  # pragma: no cover
    """``encode_row`` for each of ``rows``."""
    st = State(*arrays)  # (named at once: Python passes the plain tuple, spec.Fields)
    for b in rows:
        encode_row(b, st, opts, out)


@kernel_jit
def encode_range(
    rows: np.ndarray, lo: int, hi: int, st: Arrays, opts: np.ndarray, out: Outputs
) -> None:  # pragma: no cover
    """``encode_row`` for ``rows[lo:hi]`` (a parallel chunk's body: see ``step_range``)."""
    for i in range(lo, hi):
        encode_row(rows[i], st, opts, out)


@kernel_jit_parallel
def encode_rows_parallel(
    rows: np.ndarray, arrays: Fields, opts: np.ndarray, out: Outputs, chunks: int
) -> None:  # pragma: no cover
    """``encode_rows`` with the rows in ``chunks`` chunks spread over numba's threads."""
    st = State(*arrays)  # (named at once: Python passes the plain tuple, spec.Fields)
    n = len(rows)
    for c in prange(chunks):
        lo, hi = core.chunk_rows(c, n, chunks)
        encode_range(rows, lo, hi, st, opts, out)


@kernel_jit
def legal_bits(b: int, st: Arrays, opts: np.ndarray) -> np.uint64:  # pragma: no cover
    """``Game.legal_bits``: the legal actions as a 64-bit set (cards 0..51, then TRUMP, LEAD)."""
    g, cur, hands = st.g, st.current_player, st.hands
    phase = g[b, PHASE]
    if phase == PLAY_PHASE:
        return legal_plays(hands[b, cur[b]], g[b, T_LED], g[b, RENSHO], opts[O_MUST_FOLLOW])
    if phase == TRUMP_PHASE:
        return np.uint64(0xF) << np.uint64(TRUMP_BASE)
    if phase == LEAD_PHASE:
        return bit(LEAD_SELF) | bit(LEAD_PARTNER)
    return ZERO


@kernel_jit_inline
def set_bits(words: np.ndarray, wb: np.uint64, at: int, v: np.uint64) -> None:  # pragma: no cover
    """OR the bit set ``v`` into the bitset ``words[wb]`` (uint64 words) from bit ``at`` on."""
    if v == ZERO:
        return
    word, shift = np.uint64(at >> 6), at & 63  # (unsigned indices: see ``put_bits``)
    words[wb, word] |= v << np.uint64(shift)
    if shift:
        words[wb, word + ONE] |= v >> np.uint64(64 - shift)


@kernel_jit_inline
def put_bits(
    obs: np.ndarray, ub: np.uint64, words: np.ndarray, wb: np.uint64, at: int, v: np.uint64, k: int
) -> None:  # pragma: no cover
    """The ``k`` bits of ``v`` as entries ``at``.. of row ``ub``: float32 1.0 / 0.0 entries of ``obs``, a
    byte of bits at a time (``BYTE_FLOATS``: each byte's 8 entries, one 32-byte copy from an 8 KB table),
    whole bytes, so up to 7 entries past the piece are written too (``encode_row`` writes the pieces in
    layout order: the next piece, or the real-valued entries, overwrite them); or, compact (``obs``
    has no columns), OR-ed into the bitset ``words[wb]``.

    Unsigned indices: numba wraps a signed index that may be negative (``a[-1]``), and that test kept
    LLVM from writing the 8 entries as one block (docs/batch.md#speed)."""
    if obs.shape[1]:
        at_u = np.uint64(at)
        for i in range((k + 7) >> 3):
            byte = (v >> np.uint64(8 * i)) & np.uint64(0xFF)
            col = at_u + np.uint64(8 * i)
            for j in range(8):
                obs[ub, col + np.uint64(j)] = BYTE_FLOATS[byte, j]
    else:
        set_bits(words, wb, at, v)


@kernel_jit_inline
def encode_row(b: int, st: Arrays, opts: np.ndarray, out: Outputs) -> None:  # pragma: no cover
    """Row b's mask and the current seat's observation (``observation.Encoder.encode_with_mask``; zeros
    when the match is over), float32 (``obs``) or, compact (``obs`` has no columns), the 0/1 entries as
    bytes (``packed``) and the real-valued ones (from ``nbits`` on) beside them (``real``).

    One pass over the row in layout order (``put_bits``): the small pieces (phase .. voids, at most 64
    bits: ``layout`` checks) are gathered in one word in registers, the card sets go straight from the
    state's words; the float32 row is never zeroed first, every entry is written once (a few twice).
    Offsets come from ``layout``; seats and partnerships are relative (0 = me, then in play order)."""
    g, cur, stones, counts, voids, hands, t_bits, played, captured = (
        st.g,
        st.current_player,
        st.stones,
        st.counts,
        st.voids,
        st.hands,
        st.t_bits,
        st.played,
        st.captured,
    )
    layout, mask, obs, packed, real, words, legal_sets = out
    wb = np.uint64(0 if obs.shape[1] else b)  # (compact: the row's own bitset, rows run at once; an
    # index, not a view of the row: a view made per row cost the float32 step a few per cent)
    n, P = opts[O_N], opts[O_P]
    nbits = layout[L_COUNTS]
    seat = cur[b]
    ub = np.uint64(b)
    legal = ZERO if seat < 0 else legal_bits(b, st, opts)
    legal_sets[ub, 0] = legal  # (what the legality check reads: ``core.first_illegal_word_in``)
    for i in range(mask.shape[1]):  # eight mask entries (bool bytes) a word
        mask[ub, np.uint64(i)] = BYTE_BOOLS[(legal >> np.uint64(8 * i)) & np.uint64(0xFF)]
    f32 = obs.shape[1] > 0
    if not f32:  # the bitset: the words in use and the one ``set_bits`` may spill into
        for k in range(min((nbits >> 6) + 2, words.shape[1])):
            words[wb, np.uint64(k)] = ZERO
    if seat < 0:
        if f32:
            for j in range(obs.shape[1]):
                obs[ub, np.uint64(j)] = 0.0
        else:
            for j in range(packed.shape[1]):
                packed[ub, np.uint64(j)] = 0
            for j in range(real.shape[1]):
                real[ub, np.uint64(j)] = 0.0
        return
    phase, trump, dp = g[b, PHASE], g[b, TRUMP], g[b, DEALER_P]
    mine = seat - P if seat >= P else seat  # (seat % P: no division, see ``ahead``)
    small = ONE << np.uint64(layout[L_PHASE] + phase)
    small |= ONE << np.uint64(layout[L_TRUMP] + trump)
    spades = rensho_card(trump, opts[O_RENSHO_SEED]) != ACE_OF_CLUBS
    small |= ONE << np.uint64(layout[L_RENSHO] + (1 if spades else 0))
    if phase == PLAY_PHASE:  # a trick is in play
        small |= ONE << np.uint64(layout[L_LEADER] + ahead(g[b, T_LEADER] - seat, n))
        if g[b, T_LED] >= 0:
            small |= ONE << np.uint64(layout[L_LED] + g[b, T_LED])
    small |= ONE << np.uint64(layout[L_FIRST_DEALER] + ahead(dp - seat, n))
    small |= ONE << np.uint64(layout[L_PARTNERSHIP] + mine)
    if mine == dp:
        small |= ONE << np.uint64(layout[L_ROLE])
    sits_out = opts[O_SIT_OUT] and mine == dp
    small |= ONE << np.uint64(layout[L_ROLE] + (1 if sits_out else 2))
    for k in range(n):
        small |= np.uint64(voids[b, ahead(seat + k - n, n)]) << np.uint64(layout[L_VOIDS] + SUITS * k)
    put_bits(obs, ub, words, wb, 0, small, layout[L_EGARA])
    for k in range(P):
        p = ahead(mine + k - P, P)
        put_bits(obs, ub, words, wb, layout[L_EGARA] + 16 * k, egara16(captured[b, p]), 16)
    hand = hands[b, seat]
    put_bits(obs, ub, words, wb, layout[L_HAND], hand, NUM_CARDS)
    put_bits(obs, ub, words, wb, layout[L_PLAYED], played[b], NUM_CARDS)
    put_bits(obs, ub, words, wb, layout[L_GONE], played[b] | hand, NUM_CARDS)
    for k in range(n):
        trick = t_bits[b, ahead(seat + k - n, n)]
        put_bits(obs, ub, words, wb, layout[L_TRICK] + NUM_CARDS * k, trick, NUM_CARDS)
    # the real-valued entries, last (they overwrite what the last piece's whole bytes wrote past it)
    dest, first = (obs, 0) if f32 else (real, nbits)
    for k in range(n):
        dest[ub, np.uint64(layout[L_COUNTS] + k - first)] = counts[b, ahead(seat + k - n, n)] / HAND_SCALE
    dest[ub, np.uint64(layout[L_DEAL] - first)] = g[b, DEAL_NO] * (1.0 / opts[O_MAX_DEALS])
    inv_stones = 1.0 / (opts[O_STONES] * n)
    for k in range(P):
        p = ahead(mine + k - P, P)
        dest[ub, np.uint64(layout[L_STONES] + k - first)] = (stones[b, p] + stones[b, p + P]) * inv_stones
    if not f32:
        for j in range(packed.shape[1]):
            byte = (words[wb, j >> 3] >> np.uint64(8 * (j & 7))) & np.uint64(0xFF)
            packed[ub, np.uint64(j)] = np.uint8(byte)
