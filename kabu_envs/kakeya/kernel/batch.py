"""The Kakeya kernel's batch functions (numba): reset rows, step every live row, write masks and
observations (``observation.Encoder.encode_with_mask`` bit for bit, or compact)."""

from __future__ import annotations

import numpy as np

from kabu_envs.core import kernel as core
from kabu_envs.kakeya.actions import LEAD_PARTNER, LEAD_SELF, NUM_ACTIONS, TRUMP_BASE
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
    Outputs,
    kernel_jit,
    kernel_jit_inline,
)


# ==================================================================================================
# the batch: reset, step, mask and observation
# ==================================================================================================
@kernel_jit
def reset_rows(
    rows: np.ndarray, st: Arrays, opts: np.ndarray, rewards: np.ndarray, over: np.ndarray
) -> None:  # pragma: no cover  # noqa: E501
    """A new match in each of ``rows`` (their FEED / READY / PREFIX / rng set by the caller)."""
    for b in rows:
        for s in range(opts[O_N]):
            rewards[b, s] = 0.0
        over[b] = False
        new_match(b, st, opts)


@kernel_jit
def step(
    acts: np.ndarray,
    active: np.ndarray,
    st: Arrays,
    opts: np.ndarray,
    rewards: np.ndarray,
    over: np.ndarray,
    stream_seed: np.uint64,
    out: Outputs,
) -> int:  # pragma: no cover
    """One action in every live game with ``active[b]`` (``Game.apply_action``), then its mask and
    observation; returns how many fed decks were taken (the caller tops the feed up).

    A game over or held reports reward 0 and ``over`` (``terminated``) = over. With ``O_AUTORESET`` a
    match that ends starts anew at once from the row's generator (``seed_state(stream_seed, b,
    episode)``), its payout and end still reported."""
    g, cur, rng = st[0], st[1], st[11]
    n, P = opts[O_N], opts[O_P]
    taken = 0
    for b in range(len(cur)):
        for s in range(n):
            rewards[b, s] = 0.0
        over[b] = cur[b] < 0
        if cur[b] < 0 or not active[b]:
            continue
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
            taken += 1
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
def encode_rows(rows: np.ndarray, st: Arrays, opts: np.ndarray, out: Outputs) -> None:  # pragma: no cover
    """``encode_row`` for each of ``rows``."""
    for b in rows:
        encode_row(b, st, opts, out)


@kernel_jit
def legal_bits(b: int, st: Arrays, opts: np.ndarray) -> np.uint64:  # pragma: no cover
    """``Game.legal_bits``: the legal actions as a 64-bit set (cards 0..51, then TRUMP, LEAD)."""
    g, cur, hands = st[0], st[1], st[6]
    phase = g[b, PHASE]
    if phase == PLAY_PHASE:
        return legal_plays(hands[b, cur[b]], g[b, T_LED], g[b, RENSHO], opts[O_MUST_FOLLOW])
    if phase == TRUMP_PHASE:
        return np.uint64(0xF) << np.uint64(TRUMP_BASE)
    if phase == LEAD_PHASE:
        return bit(LEAD_SELF) | bit(LEAD_PARTNER)
    return ZERO


@kernel_jit
def set_bits(w: np.ndarray, at: int, v: np.uint64) -> None:  # pragma: no cover
    """OR the bit set ``v`` into the bitset ``w`` (uint64 words) from bit ``at`` on."""
    if v == ZERO:
        return
    word, shift = at >> 6, at & 63
    w[word] |= v << np.uint64(shift)
    if shift:
        w[word + 1] |= v >> np.uint64(64 - shift)


@kernel_jit_inline
def write_bits(obs: np.ndarray, b: int, w: np.ndarray, nbits: int) -> None:  # pragma: no cover
    """Entries [0, nbits) of ``obs[b]`` as the bits of ``w`` (1.0 or 0.0), every entry written: one
    branch-free pass of 64 entries per word runs vectorised, cheaper than zeroing the row and then
    setting its ones bit by bit (docs/batch.md#speed)."""
    full = nbits >> 6
    for k in range(full):
        word, base = w[k], 64 * k
        for j in range(64):
            obs[b, base + j] = 1.0 if (word >> np.uint64(j)) & ONE else 0.0
    if nbits > 64 * full:
        word, base = w[full], 64 * full
        for j in range(nbits - base):
            obs[b, base + j] = 1.0 if (word >> np.uint64(j)) & ONE else 0.0


@kernel_jit_inline
def encode_row(b: int, st: Arrays, opts: np.ndarray, out: Outputs) -> None:  # pragma: no cover
    """Row b's mask and the current seat's observation (``observation.Encoder.encode_with_mask``; zeros
    when the match is over). As the scalar encoder, the 0/1 entries are built as one bitset (``w``) and
    unpacked, into float32 (``obs``) or, compact (``obs`` has no columns), as bytes (``packed``), the
    real-valued entries (from ``nbits`` on) beside them. Offsets come from ``layout``; seats and
    partnerships are relative (0 = me, then in play order)."""
    g, cur, stones, counts, voids, _, hands, t_bits, played, captured, _, _, _ = st
    layout, mask, obs, packed, real, w, values = out
    n, P = opts[O_N], opts[O_P]
    nbits = layout[L_COUNTS]
    seat = cur[b]
    legal = ZERO if seat < 0 else legal_bits(b, st, opts)
    for a in range(NUM_ACTIONS):
        mask[b, a] = (legal >> np.uint64(a)) & ONE != ZERO
    # scratch: the 0/1 entries as a bitset (the words in use and the one ``set_bits`` may spill into),
    # then the real-valued entries from nbits on
    for k in range(min((nbits >> 6) + 2, len(w))):
        w[k] = ZERO
    for j in range(n + 1 + P):
        values[j] = 0.0
    if seat >= 0:
        phase, trump, dp = g[b, PHASE], g[b, TRUMP], g[b, DEALER_P]
        mine = seat - P if seat >= P else seat  # (seat % P: no division, see ``ahead``)
        set_bits(w, layout[L_PHASE] + phase, ONE)
        set_bits(w, layout[L_TRUMP] + trump, ONE)
        spades = rensho_card(trump, opts[O_RENSHO_SEED]) != ACE_OF_CLUBS
        set_bits(w, layout[L_RENSHO] + (1 if spades else 0), ONE)
        if phase == PLAY_PHASE:  # a trick is in play
            set_bits(w, layout[L_LEADER] + ahead(g[b, T_LEADER] - seat, n), ONE)
            if g[b, T_LED] >= 0:
                set_bits(w, layout[L_LED] + g[b, T_LED], ONE)
        set_bits(w, layout[L_FIRST_DEALER] + ahead(dp - seat, n), ONE)
        set_bits(w, layout[L_PARTNERSHIP] + mine, ONE)
        if mine == dp:
            set_bits(w, layout[L_ROLE], ONE)
        sits_out = opts[O_SIT_OUT] and mine == dp
        set_bits(w, layout[L_ROLE] + (1 if sits_out else 2), ONE)
        inv_stones = 1.0 / (opts[O_STONES] * n)
        for k in range(n):
            s = ahead(seat + k - n, n)
            set_bits(w, layout[L_VOIDS] + SUITS * k, np.uint64(voids[b, s]))
            set_bits(w, layout[L_TRICK] + NUM_CARDS * k, t_bits[b, s])
            values[layout[L_COUNTS] + k - nbits] = counts[b, s] / HAND_SCALE
        for k in range(P):
            p = ahead(mine + k - P, P)
            set_bits(w, layout[L_EGARA] + 16 * k, egara16(captured[b, p]))
            values[layout[L_STONES] + k - nbits] = (stones[b, p] + stones[b, p + P]) * inv_stones
        hand = hands[b, seat]
        set_bits(w, layout[L_HAND], hand)
        set_bits(w, layout[L_PLAYED], played[b])
        set_bits(w, layout[L_GONE], played[b] | hand)
        values[layout[L_DEAL] - nbits] = g[b, DEAL_NO] * (1.0 / opts[O_MAX_DEALS])
    if obs.shape[1]:
        write_bits(obs, b, w, nbits)
        for j in range(n + 1 + P):
            obs[b, nbits + j] = values[j]
    else:
        for j in range(packed.shape[1]):
            packed[b, j] = np.uint8((w[j >> 3] >> np.uint64(8 * (j & 7))) & np.uint64(0xFF))
        for j in range(n + 1 + P):
            real[b, j] = values[j]
