"""The Kakeya kernel's rules (numba): the deal, the play and the scoring of one row of the batch.

Each function is a per-row mirror of the scalar engine function its docstring names (``game.py``,
``tricks.py``, ``scoring.py``); ``b`` is the row, ``st`` the state arrays (``State.arrays``), ``opts`` the
rule options. The search can call these on its own state arrays (docs/batch.md#kernels).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic, overload

from kabu_envs.core import kernel as core
from kabu_envs.kakeya.cards import ACE_OF_CLUBS, ACE_OF_SPADES, NUM_CARDS
from kabu_envs.kakeya.kernel.spec import (
    ACE_BITS,
    ACE_RANK,
    DEAL_NO,
    DEALER_P,
    EGARA_BITS,
    FEED,
    LEAD_P,
    LEAD_PHASE,
    O_ALL_PLAY,
    O_CHOOSE_TRUMP,
    O_DEFAULT_TRUMP,
    O_MAX_DEALS,
    O_N,
    O_P,
    O_RENSHO_SEED,
    O_REWARD_EGARA,
    O_SHARED,
    O_SIT_OUT,
    O_STONES,
    ONE,
    OVER_PHASE,
    PHASE,
    PREFIX,
    RANKS,
    READY,
    RENSHO,
    STONES_CELLS,
    SUIT_BITS,
    T_LEADER,
    T_LED,
    T_LEN,
    T_NUM,
    TIE_BASE,
    TRUMP,
    TRUMP_PHASE,
    ZERO,
    Arrays,
    kernel_jit,
    kernel_jit_inline,
)


# ==================================================================================================
# cards
# ==================================================================================================
@core.inner_jit  # (called with int8 and int64 cards and literal ones: not cached, core.kernel says why)
def bit(card: int) -> np.uint64:  # pragma: no cover - compiled (the lockstep tests run it)
    """The card set of one card (``1 << card``)."""
    return ONE << np.uint64(card)


@kernel_jit_inline
def ahead(d: int, n: int) -> int:  # pragma: no cover
    """``d % n`` for -n <= d < n (seats counted from another seat) without an integer division: ``n``
    is only known at run time, and a row's encoding needs a dozen of these (docs/batch.md#speed)."""
    return d + n if d < 0 else d


@kernel_jit_inline
def side(seat: int, P: int) -> int:  # pragma: no cover
    """``seat % P``, the seat's partnership, without an integer division (a runtime ``P``: tens of
    cycles each, several per card in the search's play-outs): partners sit ``P`` seats apart, ``n = 2P``."""
    return seat - P if seat >= P else seat


def popcount(x: np.uint64) -> int:
    """Cards in a set (``int.bit_count``): plain Python; compiled, ``_popcount`` (one ``popcnt``)."""
    return int(x).bit_count()


def high_bit(x: np.uint64) -> int:
    """The highest set bit of a non-empty word (``x.bit_length() - 1``): plain Python; compiled, the
    ``_high_bit`` overload below (one instruction: numba's ``math.frexp`` is a call into its C helpers)."""
    return int(x).bit_length() - 1


def low_bit(x: np.uint64) -> int:
    """The lowest set bit of a non-empty word: plain Python; compiled, ``_low_bit`` below."""
    return (int(x) & -int(x)).bit_length() - 1


@intrinsic
def _ctlz(typingctx: Any, x: Any) -> Any:  # pragma: no cover - compiled
    """LLVM's count of leading zeros of a uint64, as an int64."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctlz(args[0], cgutils.false_bit)

    return types.int64(types.uint64), codegen


@intrinsic
def _ctpop(typingctx: Any, x: Any) -> Any:  # pragma: no cover - compiled
    """LLVM's count of set bits of a uint64, as an int64."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return types.int64(types.uint64), codegen


@intrinsic
def _cttz(typingctx: Any, x: Any) -> Any:  # pragma: no cover - compiled
    """LLVM's count of trailing zeros of a uint64, as an int64."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.cttz(args[0], cgutils.false_bit)

    return types.int64(types.uint64), codegen


@overload(high_bit)
def _high_bit(x: Any) -> Any:  # pragma: no cover - compiled
    def impl(x: Any) -> Any:  # (the typing function's argument, annotation included)
        return 63 - _ctlz(x)  # type: ignore[call-arg]  # (numba types intrinsics at compile time)

    return impl


@overload(low_bit)
def _low_bit(x: Any) -> Any:  # pragma: no cover - compiled
    def impl(x: Any) -> Any:
        return _cttz(x)  # type: ignore[call-arg]

    return impl


@overload(popcount)
def _popcount(x: Any) -> Any:  # pragma: no cover - compiled
    def impl(x: Any) -> Any:
        return _ctpop(x)  # type: ignore[call-arg]

    return impl


@kernel_jit
def egara16(bits: np.uint64) -> np.uint64:  # pragma: no cover
    """``cards.egara16``: the J, Q, K, A of each suit as 16 bits."""
    f = np.uint64(0xF)
    return (
        ((bits >> np.uint64(9)) & f)
        | ((bits >> np.uint64(18)) & (f << np.uint64(4)))
        | ((bits >> np.uint64(27)) & (f << np.uint64(8)))
        | ((bits >> np.uint64(36)) & (f << np.uint64(12)))
    )


@kernel_jit
def rensho_card(trump: int, seed_rule: int) -> int:  # pragma: no cover
    """``tricks.rensho_card``: the ace of clubs or of spades, by the trump and ``rensho_rule``."""
    if seed_rule:
        return ACE_OF_CLUBS if trump == 0 else ACE_OF_SPADES
    return ACE_OF_CLUBS if trump == 3 else ACE_OF_SPADES


@kernel_jit
def legal_plays(hand: np.uint64, led: int, rensho: int, must_follow: int) -> np.uint64:  # pragma: no cover
    """``tricks.legal_plays``: any card when leading; else the led suit if held (Rensho counting as one
    of its suit only with ``rensho_follow="must_follow"``), else any card; Rensho always."""
    if led < 0:
        return hand
    rensho_bit = hand & bit(rensho)
    follow = hand & SUIT_BITS[led]
    if not must_follow:
        follow &= ~rensho_bit
    if follow != ZERO:
        return follow | rensho_bit
    return hand


# ==================================================================================================
# the match (Game.__init__, Game._start_deal, Game._deal)
# ==================================================================================================
@kernel_jit
def new_match(b: int, st: Arrays, opts: np.ndarray) -> None:  # pragma: no cover
    """``Game.__init__``: full stones, the default trump, the last partnership deals first."""
    g, stones = st.g, st.stones
    for s in range(opts[O_N]):
        stones[b, s] = opts[O_STONES]
    g[b, TRUMP] = opts[O_DEFAULT_TRUMP]
    g[b, DEAL_NO] = 0
    g[b, DEALER_P] = opts[O_P] - 1
    g[b, LEAD_P] = -1
    start_deal(b, st, opts)


@kernel_jit
def clear_trick(b: int, st: Arrays, n: int) -> None:  # pragma: no cover
    """No trick in play (``Game.trick = None``)."""
    g, t_card, t_bits = st.g, st.t_card, st.t_bits
    g[b, T_LED] = -1
    g[b, T_NUM] = 0
    g[b, T_LEN] = 0
    for s in range(n):
        t_card[b, s] = -1
        t_bits[b, s] = ZERO


@kernel_jit
def start_deal(b: int, st: Arrays, opts: np.ndarray) -> None:  # pragma: no cover
    """``Game._start_deal``: empty hands; the first dealer chooses the trump, or the cards go out."""
    g, cur, counts, voids, hands, played, captured = (
        st.g,
        st.current_player,
        st.counts,
        st.voids,
        st.hands,
        st.played,
        st.captured,
    )
    n = opts[O_N]
    for s in range(n):
        hands[b, s] = ZERO
        counts[b, s] = 0
        voids[b, s] = 0
    played[b] = ZERO
    for p in range(opts[O_P]):
        captured[b, p] = ZERO
    clear_trick(b, st, n)
    g[b, RENSHO] = rensho_card(g[b, TRUMP], opts[O_RENSHO_SEED])
    if opts[O_CHOOSE_TRUMP]:
        g[b, PHASE] = TRUMP_PHASE
        cur[b] = g[b, DEALER_P]  # the dealers' lower seat
    else:
        deal(b, st, opts)


@kernel_jit
def draw_deck(b: int, st: Arrays) -> None:  # pragma: no cover
    """The deal's card order in ``decks[b]`` (``core.rng.ordered_deck``): the fed deck as Python put it,
    else the row's generator shuffles the cards after a stacked prefix of ``PREFIX`` cards."""
    g, decks, rng = st.g, st.decks, st.rng
    if g[b, FEED]:
        if not g[b, READY]:
            raise RuntimeError("a fed game deals with no deck in its feed")
        g[b, READY] = 0  # taken: the batch engine tops the feed up after this call
        return
    k = g[b, PREFIX] if g[b, DEAL_NO] == 0 else 0
    seen = ZERO
    for i in range(k):
        seen |= bit(decks[b, i])
    at = k
    for c in range(NUM_CARDS):
        if not (seen >> np.uint64(c)) & ONE:
            decks[b, at] = c
            at += 1
    core.shuffle(rng, b, decks[b, k:], NUM_CARDS - k)


@kernel_jit
def deal(b: int, st: Arrays, opts: np.ndarray) -> None:  # pragma: no cover
    """``Game._deal``: one card at a time from the seat after the first dealer, to the seats that play;
    then the lead chooser (the first receiver of the leading partnership) is to act."""
    g, cur, counts, hands, decks = st.g, st.current_player, st.counts, st.hands, st.decks
    n, P = opts[O_N], opts[O_P]
    g[b, RENSHO] = rensho_card(g[b, TRUMP], opts[O_RENSHO_SEED])
    draw_deck(b, st)
    dp = g[b, DEALER_P]
    sit_out = opts[O_SIT_OUT]
    s = dp
    for i in range(NUM_CARDS):  # the next seat that plays, in seat order
        s = (s + 1) % n
        if sit_out and s % P == dp:
            s = (s + 1) % n  # (partners sit n // 2 seats apart: the seat after a dealer plays)
        hands[b, s] |= bit(decks[b, i])
    first = (dp + 1) % n  # the first receiver
    for s in range(n):
        counts[b, s] = popcount(hands[b, s])
    leading = g[b, LEAD_P] if g[b, LEAD_P] >= 0 else first % P
    for k in range(1, n + 1):  # the lead chooser: the first receiver of the leading partnership
        s = (dp + k) % n
        if not (sit_out and s % P == dp) and s % P == leading:
            cur[b] = s
            break
    g[b, PHASE] = LEAD_PHASE


# ==================================================================================================
# play (Game.apply_action, Game._start_trick, Game._play, Game._finish_trick)
# ==================================================================================================
@kernel_jit
def start_trick(b: int, leader: int, st: Arrays, n: int) -> None:  # pragma: no cover
    """``Game._start_trick``: the seats with cards play it, from ``leader`` on."""
    g, cur, counts = st.g, st.current_player, st.counts
    clear_trick(b, st, n)
    g[b, T_LEADER] = leader
    length = 0
    for s in range(n):
        if counts[b, s] > 0:
            length += 1
    g[b, T_LEN] = length
    cur[b] = leader


@kernel_jit
def trick_cards(b: int, st: Arrays, n: int) -> np.uint64:  # pragma: no cover
    """The cards played to the trick so far, as a set."""
    t_bits = st.t_bits
    cards = ZERO
    for s in range(n):
        cards |= t_bits[b, s]
    return cards


@kernel_jit
def trick_winner(b: int, st: Arrays, n: int) -> int:  # pragma: no cover
    """``tricks.trick_winner``: Rensho, else the highest trump, else the highest card of the led suit
    (-1 for an empty trick). Cards are distinct, so the play order breaks no tie: the winning card is
    found on the trick's card set (a suit's cards rise with their bits) and then its seat."""
    g, t_card = st.g, st.t_card
    trump, led, rensho = g[b, TRUMP], g[b, T_LED], g[b, RENSHO]
    cards = trick_cards(b, st, n)
    if (cards >> np.uint64(rensho)) & ONE:
        best = rensho
    else:
        x = cards & SUIT_BITS[trump]
        if x == ZERO and led >= 0:
            x = cards & SUIT_BITS[led]
        if x == ZERO:
            return -1
        best = high_bit(x)
    for s in range(n):
        if t_card[b, s] == best:
            return s
    return -1


@kernel_jit_inline
def play(
    b: int, card: int, st: Arrays, opts: np.ndarray, rewards: np.ndarray, over: np.ndarray
) -> None:  # pragma: no cover  # noqa: E501
    """``Game._play`` (and ``Trick.add``): the card leaves the hand; a seat not following with a card
    other than Rensho shows out of the led suit; the next seat plays, or the trick is settled."""
    g, cur, counts, voids, t_card, hands, t_bits, played = (
        st.g,
        st.current_player,
        st.counts,
        st.voids,
        st.t_card,
        st.hands,
        st.t_bits,
        st.played,
    )
    n = opts[O_N]
    seat = cur[b]
    cb = bit(card)
    hands[b, seat] ^= cb
    counts[b, seat] -= 1
    played[b] |= cb
    led = g[b, T_LED]
    suit = card // RANKS
    if led >= 0 and suit != led and card != g[b, RENSHO]:
        voids[b, seat] |= 1 << led
    if led < 0:
        g[b, T_LED] = suit
    t_card[b, seat] = card
    t_bits[b, seat] = cb
    g[b, T_NUM] += 1
    if g[b, T_NUM] < g[b, T_LEN]:  # Trick.next_seat: the next seat with cards that has not played
        for k in range(1, n):
            s = ahead(seat + k - n, n)
            if counts[b, s] > 0 and t_card[b, s] < 0:
                cur[b] = s
                return
    finish_trick(b, st, opts, rewards, over)


@kernel_jit_inline
def finish_trick(
    b: int, st: Arrays, opts: np.ndarray, rewards: np.ndarray, over: np.ndarray
) -> None:  # pragma: no cover  # noqa: E501
    """``Game._finish_trick``: the winner's partnership captures the egara; the winner leads next (a
    winner without cards passes the lead on), or the deal is scored."""
    counts, captured = st.counts, st.captured
    n, P = opts[O_N], opts[O_P]
    winner = trick_winner(b, st, n)
    won = trick_cards(b, st, n)
    left = 0
    for s in range(n):
        left += counts[b, s]
    captured[b, side(winner, P)] |= won & EGARA_BITS
    if left == 0:
        clear_trick(b, st, n)
        end_deal(b, st, opts, rewards, over)
        return
    leader = winner
    while counts[b, leader] == 0:
        leader = leader + 1 if leader + 1 < n else 0
    start_trick(b, leader, st, n)


# ==================================================================================================
# scoring (Game._end_deal, scoring.*)
# ==================================================================================================
@kernel_jit
def deal_winner(b: int, st: Arrays, opts: np.ndarray) -> int:  # pragma: no cover
    """``scoring.deal_winner``: all_play, 9 egara or more wins (else nobody: -1); two sides, more egara
    wins, and at 8-8 the side without Rensho."""
    g, captured = st.g, st.captured
    P = opts[O_P]
    if opts[O_ALL_PLAY]:
        for p in range(P):
            if popcount(captured[b, p]) >= 9:
                return p
        return -1
    a, c = -1, -1  # the two playing partnerships, a < c
    for p in range(P):
        if not (opts[O_SIT_OUT] and p == g[b, DEALER_P]):
            if a < 0:
                a = p
            else:
                c = p
    ea, ec = popcount(captured[b, a]), popcount(captured[b, c])
    if ea != ec:
        return a if ea > ec else c
    return c if (captured[b, a] >> np.uint64(g[b, RENSHO])) & ONE else a


@kernel_jit
def stones_won(won: np.uint64, trump: int, rensho: int) -> int:  # pragma: no cover
    """``scoring.stones_won``: the stones table's cell for the winners' captured cards."""
    aces = won & ACE_BITS
    n_aces = popcount(aces)
    special = bit(rensho) | bit(trump * RANKS + ACE_RANK)
    if n_aces == 0:
        row = 0
    elif n_aces <= 2 and (aces & special) == ZERO:
        row = 1
    else:
        row = 2
    egara = popcount(won)
    col = 2 if egara >= 16 else (1 if egara >= 12 else 0)
    return int(STONES_CELLS[row, col])


@kernel_jit
def pay(b: int, stones: np.ndarray, payer: int, payee: int, amount: int, P: int) -> int:  # pragma: no cover
    """``scoring.pay``: up to ``amount`` stones, one at a time, from the payer seat holding the most to
    the payee seat holding the fewest (ties: the lower seat); returns the stones moved."""
    moved = min(amount, stones[b, payer] + stones[b, payer + P])
    for _ in range(moved):
        src = payer if stones[b, payer] >= stones[b, payer + P] else payer + P
        dst = payee if stones[b, payee] <= stones[b, payee + P] else payee + P
        stones[b, src] -= 1
        stones[b, dst] += 1
    return moved


@kernel_jit_inline
def absolute_order(b: int, st: Arrays, i: int, P: int) -> int:  # pragma: no cover
    """The row's partnership that is the ``i``-th in absolute order (``g[b, TIE_BASE]``: the absolute
    partnership of the row's partnership 0; the engine's rows 0, the order 0, 1, ...)."""
    p = i - st.g[b, TIE_BASE]
    return p + P if p < 0 else p


@kernel_jit
def end_deal(
    b: int, st: Arrays, opts: np.ndarray, rewards: np.ndarray, over: np.ndarray
) -> None:  # pragma: no cover  # noqa: E501
    """``Game._end_deal``: the winners take stones (or the egara reward is paid); the losers with fewer
    egara deal next; the match ends after ``max_deals`` or when a partnership is broke."""
    g, cur, stones, captured = st.g, st.current_player, st.stones, st.captured
    P = opts[O_P]
    dp = g[b, DEALER_P]
    winner = deal_winner(b, st, opts)
    change, egara, playing = (
        st.scratch[b, 0],
        st.scratch[b, 1],
        st.scratch[b, 2],
    )  # (the row's scratch: the kernel allocates nothing, and rows may run at once)
    nplay = 0
    total = 0
    for p in range(P):
        change[p] = 0
        playing[p] = not (opts[O_SIT_OUT] and p == dp)
        egara[p] = popcount(captured[b, p])
        if playing[p]:
            nplay += 1
            total += egara[p]
    if winner >= 0:
        amount = stones_won(captured[b, winner], g[b, TRUMP], g[b, RENSHO])
        first = -1  # scoring.shares: the loser with fewer egara (tie: the lower) pays the odd stone
        for i in range(P):
            p = absolute_order(b, st, i, P)
            if playing[p] and p != winner and (first < 0 or egara[p] < egara[first]):
                first = p
        for p in range(P):
            if playing[p] and p != winner:
                owed = amount
                if opts[O_SHARED]:
                    owed = (amount + 1) // 2 if p == first else amount // 2
                moved = pay(b, stones, p, winner, owed, P)
                change[p] -= moved
                change[winner] += moved
    for p in range(P):
        if not playing[p]:
            continue
        if opts[O_REWARD_EGARA]:  # scoring.egara_rewards
            reward = (egara[p] - (total - egara[p]) / (nplay - 1)) / 16
        else:
            reward = float(change[p])
        rewards[b, p] += reward
        rewards[b, p + P] += reward
    g[b, DEAL_NO] += 1
    if winner >= 0:
        best = -1
        for i in range(P):  # the loser with fewer egara (tie: the lower partnership)
            p = absolute_order(b, st, i, P)
            if playing[p] and p != winner and (best < 0 or egara[p] < egara[best]):
                best = p
        g[b, DEALER_P] = best
    g[b, LEAD_P] = winner
    broke = False
    for p in range(P):
        if stones[b, p] + stones[b, p + P] == 0:
            broke = True
    if g[b, DEAL_NO] < opts[O_MAX_DEALS] and not broke:
        start_deal(b, st, opts)
        return
    over[b] = True
    g[b, PHASE] = OVER_PHASE
    cur[b] = -1
