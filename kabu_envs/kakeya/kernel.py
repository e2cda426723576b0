"""The Kakeya rules kernel (numba): B matches as arrays, stepped by per-row loops (issue #26).

The scalar engine (``game.py``, ``tricks.py``, ``scoring.py``, ``observation.py``) is the reference;
every function here names the one it mirrors, and the lockstep suites (tests/test_batch.py,
tests/kernel/test_kakeya_kernel.py) hold the two equal on stacked decks and random legal actions:
same masks, observations, rewards and ends, for every rule option.

State (one row per match, ``State``): ``g`` (B, NG) int64 holds the per-match numbers by column
(``PHASE``, ``TRUMP``, ... below); per-seat numbers are (B, n) arrays; hands, the trick's cards and the
captured cards are uint64 52-bit card sets (bit ``card``), as in the scalar engine's ints. The rule
options are one int64 array (``options``), the observation layout another (``layout``, the offsets
of ``obs_spec``): both are read at run time, so one compiled kernel serves every rule set.

Deals: a row either has a **deck feed** (``g[b, FEED] = 1``: Python put the next deal's card order in
``decks[b]`` and set ``READY``; the kernel takes it and clears ``READY``; the batch engine tops it up
after the step) or deals from its own generator (``core.kernel``: ``rng[b]``, seeded from (seed, row,
episode)), a stacked prefix of ``PREFIX`` cards first. docs/batch.md#seeding says why.

Nothing here runs on ``import kabu_envs``: the batch engine imports this module on first use.
"""

from __future__ import annotations

import sys

import numba
import numpy as np

from kabu_envs.core import kernel as core
from kabu_envs.kakeya.actions import LEAD_PARTNER, LEAD_SELF, NUM_ACTIONS, TRUMP_BASE
from kabu_envs.kakeya.cards import ACE_MASK, ACE_OF_CLUBS, ACE_OF_SPADES, EGARA_MASK, NUM_CARDS, SUIT_MASK
from kabu_envs.kakeya.config import Config
from kabu_envs.kakeya.game import Phase
from kabu_envs.kakeya.observation import _LARGEST_HAND, obs_spec
from kabu_envs.kakeya.scoring import STONES_TABLE

# the state arrays in ``State.arrays`` order (g, current_player, stones, counts, voids, t_card, hands,
# t_bits, played, captured, decks, rng, scratch); the outputs (layout, mask, observation, packed, real
# and the encoder's two scratch arrays: ``outputs``)
Arrays = tuple[np.ndarray, ...]
Outputs = tuple[np.ndarray, ...]

# --- columns of g (per-match numbers) -------------------------------------------------------------
PHASE, TRUMP, RENSHO, DEAL_NO, DEALER_P, LEAD_P = 0, 1, 2, 3, 4, 5
T_LEADER, T_LED, T_LEN, T_NUM = 6, 7, 8, 9  # the trick in play: leader, led suit, seats in it, played
FEED, READY, PREFIX, EPISODE = 10, 11, 12, 13  # deals: fed by Python / fed deck waiting / prefix / match no.
NG = 14

# --- the rule options (``options``) ---------------------------------------------------------------
O_N, O_P, O_ALL_PLAY, O_SIT_OUT, O_MUST_FOLLOW, O_DEFAULT_TRUMP, O_CHOOSE_TRUMP = 0, 1, 2, 3, 4, 5, 6
O_RENSHO_SEED, O_MAX_DEALS, O_STONES, O_REWARD_EGARA, O_AUTORESET = 7, 8, 9, 10, 11
NUM_OPTIONS = 12

# --- the observation layout (``layout``: obs_spec offsets, in this order) -------------------------
PIECES = (
    "phase",
    "trump",
    "rensho",
    "led_suit",
    "leader",
    "first_dealer",
    "partnership",
    "role",
    "voids",
    "egara",
    "hand",
    "played",
    "gone",
    "trick",
    "hand_counts",
    "deal",
    "stones",
)
(L_PHASE, L_TRUMP, L_RENSHO, L_LED, L_LEADER, L_FIRST_DEALER, L_PARTNERSHIP, L_ROLE) = range(8)
(L_VOIDS, L_EGARA, L_HAND, L_PLAYED, L_GONE, L_TRICK, L_COUNTS, L_DEAL, L_STONES) = range(8, 17)

TRUMP_PHASE, LEAD_PHASE, PLAY_PHASE, OVER_PHASE = (int(p) for p in Phase)
_ACE_OF_CLUBS, _ACE_OF_SPADES, _CARDS, _ACTIONS = ACE_OF_CLUBS, ACE_OF_SPADES, NUM_CARDS, NUM_ACTIONS
_TRUMP_BASE, _LEAD_SELF, _LEAD_PARTNER, _HAND_SCALE = TRUMP_BASE, LEAD_SELF, LEAD_PARTNER, _LARGEST_HAND
_SUIT_MASK = np.array(SUIT_MASK, dtype=np.uint64)
_EGARA = np.uint64(EGARA_MASK)
_ACES = np.uint64(ACE_MASK)
_STONES = np.array([[v or 0 for v in row] for row in STONES_TABLE], dtype=np.int64)  # impossible: 0
_ONE, _ZERO = np.uint64(1), np.uint64(0)
_RANKS, _SUITS, _ACE_RANK = 13, 4, 12

# Compiled without reference counting (numba's NRT): the kernel allocates nothing, and NRT's atomic
# increments on each array taken from the state tuple cost several times a card play itself.
kernel_jit = numba.njit(cache=True, _nrt=False)
_WORDS = 16  # the 0/1 entries' bitset: up to 1,024 (four players 438, six 571)


# ==================================================================================================
# cards
# ==================================================================================================
@kernel_jit
def bit(card: int) -> np.uint64:  # pragma: no cover - compiled (the lockstep tests run it)
    """The card set of one card (``1 << card``)."""
    return _ONE << np.uint64(card)


@kernel_jit
def popcount(x: np.uint64) -> int:  # pragma: no cover
    """Cards in a set (``int.bit_count``)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    x = x + (x >> np.uint64(8))  # (shifts and adds, no wrapping multiply: plain Python runs it too)
    x = x + (x >> np.uint64(16))
    x = x + (x >> np.uint64(32))
    return int(x & np.uint64(0x7F))


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
        return _ACE_OF_CLUBS if trump == 0 else _ACE_OF_SPADES
    return _ACE_OF_CLUBS if trump == 3 else _ACE_OF_SPADES


@kernel_jit
def legal_plays(hand: np.uint64, led: int, rensho: int, must_follow: int) -> np.uint64:  # pragma: no cover
    """``tricks.legal_plays``: any card when leading; else the led suit if held (Rensho counting as one
    of its suit only with ``rensho_follow="must_follow"``), else any card; Rensho always."""
    if led < 0:
        return hand
    rensho_bit = hand & bit(rensho)
    follow = hand & _SUIT_MASK[led]
    if not must_follow:
        follow &= ~rensho_bit
    if follow != _ZERO:
        return follow | rensho_bit
    return hand


# ==================================================================================================
# the match (Game.__init__, Game._start_deal, Game._deal)
# ==================================================================================================
@kernel_jit
def new_match(b: int, st: Arrays, opts: np.ndarray) -> None:  # pragma: no cover
    """``Game.__init__``: full stones, the default trump, the last partnership deals first."""
    g, stones = st[0], st[2]
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
    g, t_card, t_bits = st[0], st[5], st[7]
    g[b, T_LED] = -1
    g[b, T_NUM] = 0
    g[b, T_LEN] = 0
    for s in range(n):
        t_card[b, s] = -1
        t_bits[b, s] = _ZERO


@kernel_jit
def start_deal(b: int, st: Arrays, opts: np.ndarray) -> None:  # pragma: no cover
    """``Game._start_deal``: empty hands; the first dealer chooses the trump, or the cards go out."""
    g, cur, _, counts, voids, _, hands, _, played, captured, _, _, _ = st
    n = opts[O_N]
    for s in range(n):
        hands[b, s] = _ZERO
        counts[b, s] = 0
        voids[b, s] = 0
    played[b] = _ZERO
    for p in range(opts[O_P]):
        captured[b, p] = _ZERO
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
    g, decks, rng = st[0], st[10], st[11]
    if g[b, FEED]:
        if not g[b, READY]:
            raise RuntimeError("a fed game deals with no deck in its feed")
        g[b, READY] = 0  # taken: the batch engine tops the feed up after this call
        return
    k = g[b, PREFIX] if g[b, DEAL_NO] == 0 else 0
    seen = _ZERO
    for i in range(k):
        seen |= bit(decks[b, i])
    at = k
    for c in range(_CARDS):
        if not (seen >> np.uint64(c)) & _ONE:
            decks[b, at] = c
            at += 1
    core.shuffle(rng, b, decks[b, k:], _CARDS - k)


@kernel_jit
def deal(b: int, st: Arrays, opts: np.ndarray) -> None:  # pragma: no cover
    """``Game._deal``: one card at a time from the seat after the first dealer, to the seats that play;
    then the lead chooser (the first receiver of the leading partnership) is to act."""
    g, cur, _, counts, _, _, hands, _, _, _, decks, _, _ = st
    n, P = opts[O_N], opts[O_P]
    g[b, RENSHO] = rensho_card(g[b, TRUMP], opts[O_RENSHO_SEED])
    draw_deck(b, st)
    dp = g[b, DEALER_P]
    sit_out = opts[O_SIT_OUT]
    s = dp
    for i in range(_CARDS):  # the next seat that plays, in seat order
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
    g, cur, counts = st[0], st[1], st[3]
    clear_trick(b, st, n)
    g[b, T_LEADER] = leader
    length = 0
    for s in range(n):
        if counts[b, s] > 0:
            length += 1
    g[b, T_LEN] = length
    cur[b] = leader


@kernel_jit
def trick_winner(b: int, st: Arrays, n: int) -> int:  # pragma: no cover
    """``tricks.trick_winner`` over the trick's seats in play order: Rensho, else the highest trump,
    else the highest card of the led suit."""
    g, t_card = st[0], st[5]
    trump, led, rensho, leader = g[b, TRUMP], g[b, T_LED], g[b, RENSHO], g[b, T_LEADER]
    best, best_key = -1, -1
    for k in range(n):
        s = (leader + k) % n
        c = t_card[b, s]
        if c < 0:
            continue
        if c == rensho:
            return s
        suit = c // _RANKS
        if suit == trump:
            key = 100 + c % _RANKS
        elif suit == led:
            key = c % _RANKS
        else:
            continue
        if key > best_key:
            best_key, best = key, s
    return best


@kernel_jit
def play(
    b: int, card: int, st: Arrays, opts: np.ndarray, rewards: np.ndarray, over: np.ndarray
) -> None:  # pragma: no cover  # noqa: E501
    """``Game._play`` (and ``Trick.add``): the card leaves the hand; a seat not following with a card
    other than Rensho shows out of the led suit; the next seat plays, or the trick is settled."""
    g, cur, _, counts, voids, t_card, hands, t_bits, played, _, _, _, _ = st
    n = opts[O_N]
    seat = cur[b]
    cb = bit(card)
    hands[b, seat] ^= cb
    counts[b, seat] -= 1
    played[b] |= cb
    led = g[b, T_LED]
    suit = card // _RANKS
    if led >= 0 and suit != led and card != g[b, RENSHO]:
        voids[b, seat] |= 1 << led
    if led < 0:
        g[b, T_LED] = suit
    t_card[b, seat] = card
    t_bits[b, seat] = cb
    g[b, T_NUM] += 1
    if g[b, T_NUM] < g[b, T_LEN]:  # Trick.next_seat: the next seat with cards that has not played
        for k in range(1, n):
            s = (seat + k) % n
            if counts[b, s] > 0 and t_card[b, s] < 0:
                cur[b] = s
                return
    finish_trick(b, st, opts, rewards, over)


@kernel_jit
def finish_trick(
    b: int, st: Arrays, opts: np.ndarray, rewards: np.ndarray, over: np.ndarray
) -> None:  # pragma: no cover  # noqa: E501
    """``Game._finish_trick``: the winner's partnership captures the egara; the winner leads next (a
    winner without cards passes the lead on), or the deal is scored."""
    counts, t_bits, captured = st[3], st[7], st[9]
    n, P = opts[O_N], opts[O_P]
    winner = trick_winner(b, st, n)
    won = _ZERO
    left = 0
    for s in range(n):
        won |= t_bits[b, s]
        left += counts[b, s]
    captured[b, winner % P] |= won & _EGARA
    if left == 0:
        clear_trick(b, st, n)
        end_deal(b, st, opts, rewards, over)
        return
    leader = winner
    while counts[b, leader] == 0:
        leader = (leader + 1) % n
    start_trick(b, leader, st, n)


# ==================================================================================================
# scoring (Game._end_deal, scoring.*)
# ==================================================================================================
@kernel_jit
def deal_winner(b: int, st: Arrays, opts: np.ndarray) -> int:  # pragma: no cover
    """``scoring.deal_winner``: all_play, 9 egara or more wins (else nobody: -1); two sides, more egara
    wins, and at 8-8 the side without Rensho."""
    g, captured = st[0], st[9]
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
    return c if (captured[b, a] >> np.uint64(g[b, RENSHO])) & _ONE else a


@kernel_jit
def stones_won(won: np.uint64, trump: int, rensho: int) -> int:  # pragma: no cover
    """``scoring.stones_won``: the stones table's cell for the winners' captured cards."""
    aces = won & _ACES
    n_aces = popcount(aces)
    special = bit(rensho) | bit(trump * _RANKS + _ACE_RANK)
    if n_aces == 0:
        row = 0
    elif n_aces <= 2 and (aces & special) == _ZERO:
        row = 1
    else:
        row = 2
    egara = popcount(won)
    col = 2 if egara >= 16 else (1 if egara >= 12 else 0)
    return int(_STONES[row, col])


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


@kernel_jit
def end_deal(
    b: int, st: Arrays, opts: np.ndarray, rewards: np.ndarray, over: np.ndarray
) -> None:  # pragma: no cover  # noqa: E501
    """``Game._end_deal``: the winners take stones (or the egara reward is paid); the losers with fewer
    egara deal next; the match ends after ``max_deals`` or when a partnership is broke."""
    g, cur, stones, captured = st[0], st[1], st[2], st[9]
    P = opts[O_P]
    dp = g[b, DEALER_P]
    winner = deal_winner(b, st, opts)
    change, egara, playing = st[12][0], st[12][1], st[12][2]  # (scratch: the kernel allocates nothing)
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
        for p in range(P):
            if playing[p] and p != winner:
                moved = pay(b, stones, p, winner, amount, P)
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
        for p in range(P):  # the loser with fewer egara (tie: the lower partnership)
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
            g[b, TRUMP] = a - _TRUMP_BASE
            deal(b, st, opts)
        else:  # LEAD: the chooser leads, or the partner (the other seat of the partnership)
            chooser = cur[b]
            g[b, PHASE] = PLAY_PHASE
            leader = chooser if a == _LEAD_SELF else (chooser + P) % n
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
        return np.uint64(0xF) << np.uint64(_TRUMP_BASE)
    if phase == LEAD_PHASE:
        return bit(_LEAD_SELF) | bit(_LEAD_PARTNER)
    return _ZERO


@kernel_jit
def set_bits(w: np.ndarray, at: int, v: np.uint64) -> None:  # pragma: no cover
    """OR the bit set ``v`` into the bitset ``w`` (uint64 words) from bit ``at`` on."""
    if v == _ZERO:
        return
    word, shift = at >> 6, at & 63
    w[word] |= v << np.uint64(shift)
    if shift:
        w[word + 1] |= v >> np.uint64(64 - shift)


@kernel_jit
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
    legal = _ZERO if seat < 0 else legal_bits(b, st, opts)
    for a in range(_ACTIONS):
        mask[b, a] = (legal >> np.uint64(a)) & _ONE != _ZERO
    w[:] = _ZERO  # (scratch: the 0/1 entries as a bitset, then the real-valued ones from nbits on)
    values[:] = 0.0
    if seat >= 0:
        phase, trump, dp = g[b, PHASE], g[b, TRUMP], g[b, DEALER_P]
        mine = seat % P
        set_bits(w, layout[L_PHASE] + phase, _ONE)
        set_bits(w, layout[L_TRUMP] + trump, _ONE)
        spades = rensho_card(trump, opts[O_RENSHO_SEED]) != _ACE_OF_CLUBS
        set_bits(w, layout[L_RENSHO] + (1 if spades else 0), _ONE)
        if phase == PLAY_PHASE:  # a trick is in play
            set_bits(w, layout[L_LEADER] + (g[b, T_LEADER] - seat) % n, _ONE)
            if g[b, T_LED] >= 0:
                set_bits(w, layout[L_LED] + g[b, T_LED], _ONE)
        set_bits(w, layout[L_FIRST_DEALER] + (dp - seat) % n, _ONE)
        set_bits(w, layout[L_PARTNERSHIP] + mine, _ONE)
        if mine == dp:
            set_bits(w, layout[L_ROLE], _ONE)
        sits_out = opts[O_SIT_OUT] and mine == dp
        set_bits(w, layout[L_ROLE] + (1 if sits_out else 2), _ONE)
        inv_stones = 1.0 / (opts[O_STONES] * n)
        for k in range(n):
            s = (seat + k) % n
            set_bits(w, layout[L_VOIDS] + _SUITS * k, np.uint64(voids[b, s]))
            set_bits(w, layout[L_TRICK] + _CARDS * k, t_bits[b, s])
            values[layout[L_COUNTS] + k - nbits] = counts[b, s] / _HAND_SCALE
        for k in range(P):
            p = (mine + k) % P
            set_bits(w, layout[L_EGARA] + 16 * k, egara16(captured[b, p]))
            values[layout[L_STONES] + k - nbits] = (stones[b, p] + stones[b, p + P]) * inv_stones
        hand = hands[b, seat]
        set_bits(w, layout[L_HAND], hand)
        set_bits(w, layout[L_PLAYED], played[b])
        set_bits(w, layout[L_GONE], played[b] | hand)
        values[layout[L_DEAL] - nbits] = g[b, DEAL_NO] * (1.0 / opts[O_MAX_DEALS])
    if obs.shape[1]:
        row = obs[b]
        row[:] = 0.0
        for k in range((nbits + 63) >> 6):  # the set bits only: most entries are 0
            bits = w[k]
            while bits != _ZERO:
                low = bits & (~bits + _ONE)
                row[64 * k + popcount(low - _ONE)] = 1.0
                bits ^= low
        for j in range(n + 1 + P):
            row[nbits + j] = values[j]
    else:
        for j in range(packed.shape[1]):
            packed[b, j] = np.uint8((w[j >> 3] >> np.uint64(8 * (j & 7))) & np.uint64(0xFF))
        for j in range(n + 1 + P):
            real[b, j] = values[j]


# ==================================================================================================
# Python side: the options, the layout, the state arrays and the cache
# ==================================================================================================
def options(cfg: Config, autoreset: bool = False) -> np.ndarray:
    """The rule set as the kernel's int64 option array."""
    out = np.zeros(NUM_OPTIONS, dtype=np.int64)
    out[O_N], out[O_P] = cfg.num_players, cfg.num_partnerships
    out[O_ALL_PLAY], out[O_SIT_OUT] = cfg.all_play, cfg.dealers_sit_out
    out[O_MUST_FOLLOW] = cfg.rensho_follow == "must_follow"
    out[O_DEFAULT_TRUMP], out[O_CHOOSE_TRUMP] = cfg.default_trump_suit, cfg.dealers_choose_trump
    out[O_RENSHO_SEED] = cfg.rensho_rule == "seed"
    out[O_MAX_DEALS], out[O_STONES] = cfg.max_deals, cfg.stones_per_player
    out[O_REWARD_EGARA], out[O_AUTORESET] = cfg.reward == "egara", autoreset
    return out


def outputs(
    layout: np.ndarray, mask: np.ndarray, obs: np.ndarray, packed: np.ndarray, real: np.ndarray
) -> Outputs:
    """The kernel's output tuple: the layout, the mask, the observation (float32, or packed and real),
    and the encoder's scratch."""
    return (
        layout,
        mask,
        obs,
        packed,
        real,
        np.zeros(_WORDS, dtype=np.uint64),
        np.zeros(_WORDS, dtype=np.float64),
    )


def layout(cfg: Config) -> np.ndarray:
    """The offsets of ``obs_spec(cfg)``'s pieces, in ``PIECES`` order; the 0/1 pieces must come before
    the real-valued ones (the compact observation packs the former as bits)."""
    offsets = obs_spec(cfg).offsets
    if [p.name for p in obs_spec(cfg).pieces] != list(PIECES):
        raise ValueError(f"the kernel encodes the pieces {PIECES}, in this order")
    if offsets["hand_counts"] > 64 * _WORDS - 64:
        raise ValueError(f"the 0/1 entries must fit the kernel's bitset of {64 * _WORDS - 64} bits")
    return np.array([offsets[name] for name in PIECES], dtype=np.int64)


class State:
    """The arrays of B matches (struct of arrays); ``arrays`` is their order in the kernel's calls."""

    def __init__(self, cfg: Config, batch_size: int) -> None:
        B, n, P = batch_size, cfg.num_players, cfg.num_partnerships
        self.g = np.zeros((B, NG), dtype=np.int64)
        self.g[:, PHASE] = OVER_PHASE
        self.current_player = np.full(B, -1, dtype=np.int64)
        self.stones = np.zeros((B, n), dtype=np.int64)
        self.counts = np.zeros((B, n), dtype=np.int64)
        self.voids = np.zeros((B, n), dtype=np.int64)  # 4 bits per seat: suits shown out of
        self.t_card = np.full((B, n), -1, dtype=np.int64)  # the card each seat played to the trick
        self.hands = np.zeros((B, n), dtype=np.uint64)
        self.t_bits = np.zeros((B, n), dtype=np.uint64)
        self.played = np.zeros(B, dtype=np.uint64)
        self.captured = np.zeros((B, P), dtype=np.uint64)
        self.decks = np.zeros((B, NUM_CARDS), dtype=np.int8)  # the next deal's order (fed or prefix)
        self.rng = np.zeros(B, dtype=np.uint64)  # core.kernel generator states
        self.scratch = np.zeros((3, 8), dtype=np.int64)  # end_deal's per-partnership numbers

    @property
    def arrays(self) -> tuple[np.ndarray, ...]:
        return (
            self.g,
            self.current_player,
            self.stones,
            self.counts,
            self.voids,
            self.t_card,
            self.hands,
            self.t_bits,
            self.played,
            self.captured,
            self.decks,
            self.rng,
            self.scratch,
        )

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.arrays)


DISPATCHERS = (
    bit,
    popcount,
    egara16,
    rensho_card,
    legal_plays,
    new_match,
    clear_trick,
    start_deal,
    draw_deck,
    deal,
    start_trick,
    trick_winner,
    play,
    finish_trick,
    deal_winner,
    stones_won,
    pay,
    end_deal,
    reset_rows,
    step,
    encode_rows,
    legal_bits,
    set_bits,
    encode_row,
)


def stamp() -> str:
    """The cache stamp (``core.kernel.fingerprint``): this module, the shared generator and every module
    its constants come from (cards, actions, phases, tricks, the stones table, the observation layout)."""
    import kabu_envs.kakeya.actions as actions_mod
    import kabu_envs.kakeya.cards as cards_mod
    import kabu_envs.kakeya.game as game_mod
    import kabu_envs.kakeya.observation as observation_mod
    import kabu_envs.kakeya.scoring as scoring_mod
    import kabu_envs.kakeya.tricks as tricks_mod

    here = sys.modules[__name__]
    modules = [here, core, cards_mod, actions_mod, game_mod, observation_mod, scoring_mod, tricks_mod]
    return core.fingerprint(modules, (PIECES, NG, NUM_OPTIONS, STONES_TABLE))


def prepare() -> bool:
    """Ready the cache before the first call (``core.kernel.prepare``): one line when it compiles."""
    return core.prepare("Kakeya", DISPATCHERS, stamp())
