"""The Kakeya search on the kernel (numba): play-outs by the scripted rules of thumb and the exact
double-dummy end-game solver, over positions held in the kernel's own state rows.

The expert (``kabu_envs/kakeya/agents/expert.py``) samples the hands it cannot see; a sampled deal is a
row of ``State`` with every hand known, in seats RELATIVE to the deciding seat (0 = me, partnership 0 =
mine) and ``max_deals`` 1 in the options (``search_options``), so the deal's end ends the row and the
kernel's ``end_deal`` pays ``rewards[b, 0]``: my partnership's stones (or egara reward) for the deal,
the exact value the search maximises. Every rule (legal plays, the trick's winner, voids, the 8-8 rule,
the stones table, a partnership paying at most what it has) is the kernel's ``rules.py``: the search has
no rule of its own, only the play-out policy and the solver.

* ``policy``: ``scripted.py``'s rules of thumb from the seat's own view (its hand, the played cards,
  the voids, the trick), as the old Python ``DealSim.policy`` did on bit sets.
* ``playout``: plays a row to the end of the deal with the policy.
* ``solve``: alpha-beta over copies of a row (one row per ply, ``copy_row``), every partnership but
  mine minimising (exact with two sides; the usual "paranoid" reduction with three); a transposition
  table at trick starts keyed on the hands, the leader and what the captured egara can still matter
  for (each partnership's egara count and aces), a fixed-size array overwritten on collision (the
  full key is stored and checked, so a hit is always right: only speed depends on the table).
* ``evaluate_cards``: one call for a card decision: every (sample, candidate) pair, play-outs or the
  solver, summed per candidate in sample order (the same float sums as the old Python loop).
* ``playout_rows``: the lead and trump choices' play-outs of prepared rows.
"""

from __future__ import annotations

import numpy as np

from kabu_envs.core import kernel as core
from kabu_envs.kakeya.cards import JACK
from kabu_envs.kakeya.kernel.rules import (
    bit,
    high_bit,
    legal_plays,
    low_bit,
    play,
    popcount,
    side,
    trick_cards,
    trick_winner,
)
from kabu_envs.kakeya.kernel.spec import (
    EGARA_BITS,
    NG,
    O_MUST_FOLLOW,
    O_N,
    O_P,
    ONE,
    PHASE,
    PLAY_PHASE,
    RANKS,
    RENSHO,
    SUIT_BITS,
    SUITS,
    T_LED,
    T_LEN,
    T_NUM,
    TRUMP,
    ZERO,
    Arrays,
    Fields,
    State,
    kernel_jit,
    kernel_jit_inline,
)

NO_EGARA_BITS = np.uint64(((1 << 52) - 1) & ~int(EGARA_BITS))
KEY_WORDS = 8  # a table entry's key: the n hands and one word for the leader and the captured egara


# ==================================================================================================
# card sets
# ==================================================================================================
@kernel_jit_inline
def top_card(x: np.uint64) -> int:  # pragma: no cover - compiled (the search tests run it)
    """The highest card of a non-empty set."""
    return high_bit(x)


@kernel_jit_inline
def low_card(x: np.uint64) -> int:  # pragma: no cover
    """The lowest card of a non-empty set."""
    return low_bit(x)


@kernel_jit_inline
def lowest_rank(cards: np.uint64) -> int:  # pragma: no cover
    """The lowest-ranked card of a non-empty set (ties: the lower suit)."""
    low = low_card(cards)
    if cards & ~SUIT_BITS[low // RANKS] == ZERO:
        return low
    best, best_rank = -1, RANKS
    for s in range(SUITS):
        x = cards & SUIT_BITS[s]
        if x != ZERO:
            c = low_card(x)
            if c % RANKS < best_rank:
                best, best_rank = c, c % RANKS
    return best


@kernel_jit_inline
def above(card: int) -> np.uint64:  # pragma: no cover
    """The cards above ``card`` in its suit."""
    return SUIT_BITS[card // RANKS] & ~((bit(card) << ONE) - ONE)


# ==================================================================================================
# the play-out policy (the scripted player's rules of thumb, scripted.py)
# ==================================================================================================
@kernel_jit_inline
def low_choice(legal: np.uint64, trump: int, rensho: int) -> int:  # pragma: no cover
    """The card I least mind losing: plain non-egara, trump non-egara, plain egara, trump egara,
    Rensho; the lowest rank first (ties: the lower suit)."""
    tm, keep = SUIT_BITS[trump], ~bit(rensho)
    for k in range(4):
        cat = (NO_EGARA_BITS if k < 2 else EGARA_BITS) & (tm if k % 2 else ~tm) & keep
        cards = legal & cat
        if cards != ZERO:
            return lowest_rank(cards)
    return rensho


@kernel_jit_inline
def lead_choice(b: int, seat: int, legal: np.uint64, st: Arrays, opts: np.ndarray) -> int:  # pragma: no cover
    """A master egara (no unseen higher card of its suit; Rensho gone or mine; a suit no opponent
    has shown out of, or trumps), else low from the longest plain suit, else the lowest card."""
    g, voids, hands, played = st.g, st.voids, st.hands, st.played
    n, P = opts[O_N], opts[O_P]
    trump, rensho = g[b, TRUMP], g[b, RENSHO]
    gone = played[b] | hands[b, seat]
    rensho_gone = (gone >> np.uint64(rensho)) & ONE
    opp_void = 0
    mine = side(seat, P)
    kp = 0  # k % P, counted (no division in the hot loop)
    for k in range(n):
        if kp != mine:
            opp_void |= voids[b, k]
        kp = kp + 1 if kp + 1 < P else 0
    best, best_rank = -1, -1
    for s in range(SUITS):
        x = legal & SUIT_BITS[s]
        if x == ZERO:
            continue
        top = top_card(x)
        r = top % RANKS
        if r < JACK or r <= best_rank:
            continue
        if top != rensho and rensho_gone == ZERO:
            continue
        if (SUIT_BITS[s] & ~gone) >> np.uint64(top) != ZERO:
            continue
        if s != trump and (opp_void >> s) & 1:
            continue
        best, best_rank = top, r
    if best >= 0:
        return best
    plain = legal & ~SUIT_BITS[trump] & ~bit(rensho)
    if plain != ZERO:
        longest, size = ZERO, -1
        for s in range(SUITS):
            k = popcount(plain & SUIT_BITS[s])
            if k > size:
                longest, size = plain & SUIT_BITS[s], k
        pick = longest & NO_EGARA_BITS
        if pick == ZERO:
            pick = longest
        return low_card(pick)
    return low_choice(legal, trump, rensho)


@kernel_jit_inline
def follow_choice(
    seat: int,
    legal: np.uint64,
    win_seat: int,
    win_card: int,
    last: bool,
    egara: int,
    trump: int,
    rensho: int,
    P: int,
    rmin: int,
) -> int:  # pragma: no cover
    """Following: give an egara to a partner sure to win, else beat the card winning so far when an
    egara is at stake (the lowest plain winner, else the lowest trump, else Rensho once ``rmin``
    egara are in the trick or I play last), else play low."""
    rb, tm = bit(rensho), SUIT_BITS[trump]
    if side(win_seat, P) == side(seat, P):
        if last or win_card == rensho:
            gifts = legal & EGARA_BITS & ~tm & ~rb
            return lowest_rank(gifts) if gifts != ZERO else low_choice(legal, trump, rensho)
        return low_choice(legal, trump, rensho)
    if win_card == rensho:
        return low_choice(legal, trump, rensho)
    # what beats the winning card: Rensho, a higher trump; over a plain card also any trump
    higher = above(win_card)
    beaters = rb | (higher & ~rb) if win_card // RANKS == trump else rb | (tm & ~rb) | higher
    winners = legal & beaters
    if winners != ZERO and (egara or winners & EGARA_BITS != ZERO):
        plain = winners & ~tm & ~rb
        if plain != ZERO:
            return low_card(plain)
        trumps = winners & tm & ~rb
        if trumps != ZERO:
            return low_card(trumps)
        if egara >= rmin or last:
            return rensho
    return low_choice(legal, trump, rensho)


@kernel_jit_inline
def policy(b: int, st: Arrays, opts: np.ndarray, rmin: int) -> int:  # pragma: no cover
    """The card the seat to play in row ``b`` chooses by the scripted rules of thumb, from its own view
    (its hand, the played cards, the voids and the trick: never another hand)."""
    g, cur, t_card, hands = st.g, st.current_player, st.t_card, st.hands
    n = opts[O_N]
    seat = cur[b]
    trump, rensho, led = g[b, TRUMP], g[b, RENSHO], g[b, T_LED]
    legal = legal_plays(hands[b, seat], led, rensho, opts[O_MUST_FOLLOW])
    if legal & (legal - ONE) == ZERO:
        return low_card(legal)
    if g[b, T_NUM] == 0:
        return lead_choice(b, seat, legal, st, opts)
    win_seat = trick_winner(b, st, n)
    egara = popcount(trick_cards(b, st, n) & EGARA_BITS)
    last = g[b, T_NUM] == g[b, T_LEN] - 1
    return follow_choice(
        seat, legal, win_seat, t_card[b, win_seat], last, egara, trump, rensho, opts[O_P], rmin
    )


@kernel_jit
def playout(
    b: int, st: Arrays, opts: np.ndarray, rewards: np.ndarray, over: np.ndarray, rmin: int
) -> float:  # pragma: no cover
    """Play row ``b`` to the end of the deal with the policy; my partnership's value."""
    g = st.g
    while g[b, PHASE] == PLAY_PHASE:
        play(b, policy(b, st, opts, rmin), st, opts, rewards, over)
    return float(rewards[b, 0])


# ==================================================================================================
# rows
# ==================================================================================================
@kernel_jit_inline
def copy_row(
    src: int, dst: int, st: Arrays, opts: np.ndarray, rewards: np.ndarray, over: np.ndarray
) -> None:  # pragma: no cover
    """Row ``dst`` becomes the position of row ``src`` (what play reads and writes; no reward yet)."""
    g, cur, stones, counts, voids, t_card, hands, t_bits, played, captured = (
        st.g,
        st.current_player,
        st.stones,
        st.counts,
        st.voids,
        st.t_card,
        st.hands,
        st.t_bits,
        st.played,
        st.captured,
    )
    for k in range(NG):
        g[dst, k] = g[src, k]
    cur[dst] = cur[src]
    for s in range(opts[O_N]):
        stones[dst, s] = stones[src, s]
        counts[dst, s] = counts[src, s]
        voids[dst, s] = voids[src, s]
        t_card[dst, s] = t_card[src, s]
        hands[dst, s] = hands[src, s]
        t_bits[dst, s] = t_bits[src, s]
        rewards[dst, s] = 0.0
    played[dst] = played[src]
    for p in range(opts[O_P]):
        captured[dst, p] = captured[src, p]
    over[dst] = False


# ==================================================================================================
# the double-dummy solver
# ==================================================================================================
@kernel_jit_inline
def table_key(b: int, st: Arrays, opts: np.ndarray) -> np.uint64:  # pragma: no cover
    """The word beside the hands in a table key: the leader and, per partnership, its egara count and
    which aces it holds (all the captured egara can still matter for)."""
    cur, captured = st.current_player, st.captured
    word = np.uint64(cur[b])
    for p in range(opts[O_P]):
        won = captured[b, p]
        aces = ZERO
        for s in range(SUITS):
            aces |= ((won >> np.uint64(s * RANKS + RANKS - 1)) & ONE) << np.uint64(s)
        cell = (np.uint64(popcount(won & EGARA_BITS)) << np.uint64(4)) | aces
        word |= cell << np.uint64(3 + 9 * p)
    return word


@kernel_jit
def solve(
    d: int,
    alpha: float,
    beta: float,
    st: Arrays,
    opts: np.ndarray,
    rewards: np.ndarray,
    over: np.ndarray,
    keys: np.ndarray,
    bounds: np.ndarray,
    stamps: np.ndarray,
    stamp: int,
) -> float:  # pragma: no cover
    """The value of row ``d`` when every seat plays perfectly on the known hands (fail-soft alpha-beta;
    rows ``d + 1``.. are its children). ``keys``/``bounds``/``stamps`` are the transposition table; an
    entry counts only under this search's ``stamp``."""
    g, cur, hands, t_bits = st.g, st.current_player, st.hands, st.t_bits
    if g[d, PHASE] != PLAY_PHASE:
        return float(rewards[d, 0])
    n, P = opts[O_N], opts[O_P]
    at_start = g[d, T_NUM] == 0
    slot = 0
    lo, hi = -np.inf, np.inf
    word = ZERO
    if at_start:
        word = table_key(d, st, opts)
        h = core.mix64(word)
        for s in range(n):
            h = core.mix64(h ^ hands[d, s])
        slot = np.int64(h & np.uint64(stamps.shape[0] - 1))
        hit = stamps[slot] == stamp and keys[slot, n] == word
        for s in range(n):
            hit = hit and keys[slot, s] == hands[d, s]
        if hit:
            lo, hi = bounds[slot, 0], bounds[slot, 1]
        if lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        if lo == hi:
            return lo
        alpha, beta = max(alpha, lo), min(beta, hi)
    a0, b0 = alpha, beta
    # the node: the legal cards of the seat to play, one of each run of equivalent low cards (no egara,
    # same suit, no card between them still in play), highest first
    seat = cur[d]
    maximise = seat % P == 0
    legal = legal_plays(hands[d, seat], g[d, T_LED], g[d, RENSHO], opts[O_MUST_FOLLOW])
    alive = ZERO
    for s in range(n):
        alive |= hands[d, s] | t_bits[d, s]
    rensho = g[d, RENSHO]
    best = -np.inf if maximise else np.inf
    rest = legal
    while rest != ZERO:
        c = top_card(rest)
        rest ^= bit(c)
        if rest != ZERO and c % RANKS < JACK and c != rensho:
            prev = top_card(rest)
            between = alive & ~((bit(prev) << ONE) - ONE) & (bit(c) - ONE)
            if prev % RANKS < JACK and prev // RANKS == c // RANKS and between == ZERO:
                continue  # prev stands for c
        copy_row(d, d + 1, st, opts, rewards, over)
        play(d + 1, c, st, opts, rewards, over)
        v = solve(d + 1, alpha, beta, st, opts, rewards, over, keys, bounds, stamps, stamp)
        if maximise:
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
        elif v < best:
            best = v
            if v < beta:
                beta = v
        if alpha >= beta:
            break
    if at_start:
        if best <= a0:
            hi = min(hi, best)
        elif best >= b0:
            lo = max(lo, best)
        else:
            lo = hi = best
        for s in range(n):
            keys[slot, s] = hands[d, s]
        keys[slot, n] = word
        bounds[slot, 0], bounds[slot, 1] = lo, hi
        stamps[slot] = stamp
    return best


# ==================================================================================================
# a decision's evaluations
# ==================================================================================================
@kernel_jit
def evaluate_cards(
    template: int,
    others: np.ndarray,
    cards: np.ndarray,
    exact: bool,
    rmin: int,
    arrays: Fields,
    opts: np.ndarray,
    rewards: np.ndarray,
    over: np.ndarray,
    keys: np.ndarray,
    bounds: np.ndarray,
    stamps: np.ndarray,
    stamp: int,
    out: np.ndarray,
    totals: np.ndarray,
) -> None:  # pragma: no cover
    """Every (sample, candidate) pair of a card decision: row ``template`` is the position as the seat
    sees it, ``others[k]`` a sampled deal (seat -> hand; seat 0's hand is the template's). Each
    candidate is played on each sample and the deal finished by play-outs, or by the solver when
    ``exact``: ``out[k, i]``, added to ``totals[i]`` in sample order. Rows ``template + 1``.. work."""
    st = State(*arrays)  # (named at once: Python passes the plain tuple, spec.Fields)
    hands = st.hands
    n = opts[O_N]
    work = template + 1
    for k in range(others.shape[0]):
        copy_row(template, work, st, opts, rewards, over)
        for s in range(1, n):
            hands[work, s] = others[k, s]
        for i in range(cards.shape[0]):
            copy_row(work, work + 1, st, opts, rewards, over)
            play(work + 1, cards[i], st, opts, rewards, over)
            if exact:
                v = solve(work + 1, -np.inf, np.inf, st, opts, rewards, over, keys, bounds, stamps, stamp)
            else:
                v = playout(work + 1, st, opts, rewards, over, rmin)
            out[k, i] = v
            totals[i] += v


@kernel_jit
def playout_rows(
    rows: np.ndarray,
    rmin: int,
    arrays: Fields,
    opts: np.ndarray,
    rewards: np.ndarray,
    over: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover
    """Play each of ``rows`` to the end with the policy: ``out[i]`` is row ``rows[i]``'s value."""
    st = State(*arrays)  # (named at once: Python passes the plain tuple, spec.Fields)
    for i in range(rows.shape[0]):
        out[i] = playout(rows[i], st, opts, rewards, over, rmin)


@kernel_jit
def policy_row(b: int, rmin: int, arrays: Fields, opts: np.ndarray) -> int:  # pragma: no cover
    """``policy`` called from Python (one row)."""
    st = State(*arrays)  # (named at once: Python passes the plain tuple, spec.Fields)
    return policy(b, st, opts, rmin)
