"""A learned play-out policy for the Kakeya search (numba): a small network read from the seat's own view.

The scripted rules of thumb (``search.policy``) play every seat of a play-out; here a network can play
them instead (``net_plies`` cards of each play-out, then the rules of thumb). The network is one hidden
layer over sparse 0/1 inputs computed from a kernel row **for the seat to play, from its own view only**
(``features``): its hand, the cards gone in finished tricks, the trick's cards by partner and by
opponent, the card winning the trick and whether a partner plays it, the trump, Rensho, the led suit,
the seat's place in the trick, the suits each other seat (relative) has shown out of, each side's egara
count and the table size. Never another seat's hand. The first layer is the sum of the weight rows of
the active inputs (cost ~ active inputs x hidden: a few dozen rows), ReLU, then one logit per legal
card; the play is the arg-max (ties: the lowest card), so a play-out stays deterministic.

The hand and "gone" inputs are most of the active ones. A play-out (``net_playout``) keeps their rows
as running sums, each seat's hand and the gone cards, so a move adds only the dozen other rows;
``net_choice`` (one position) sums afresh, over whichever is smaller, the gone cards or the others (the
gone rows' sum is stored with the weights: ``gone_sum``). The same sums up to float rounding
(tests/agents/test_kakeya_net_expert.py compares with a plain numpy forward pass of ``features``).

The search's card decision (``decide.decide_cards``, one per row on numba's threads:
``decide.decide_rows``) calls ``net_playout`` when its play-out kind is the network's; ``empty`` is the
placeholder it is given for the rules of thumb.
"""

from __future__ import annotations

import numpy as np

from kabu_envs.kakeya.kernel.rules import (
    bit,
    legal_plays,
    low_bit,
    play,
    popcount,
    side,
    trick_cards,
    trick_winner,
)
from kabu_envs.kakeya.kernel.search import policy
from kabu_envs.kakeya.kernel.spec import (
    EGARA_BITS,
    O_MUST_FOLLOW,
    O_N,
    O_P,
    ONE,
    PHASE,
    PLAY_PHASE,
    RENSHO,
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


def scratch(hidden: int, workspaces: int | None = None) -> tuple[np.ndarray, ...]:
    """A play-out's scratch for a network of ``hidden`` units (``hidden, idx, hand_acc, gone_acc``),
    with a leading axis of ``workspaces`` (one per thread: ``decide.net_of``) unless None."""
    lead = () if workspaces is None else (workspaces,)
    return (
        np.zeros((*lead, hidden), dtype=np.float32),
        np.zeros((*lead, MAX_ACTIVE), dtype=np.int64),
        np.zeros((*lead, 6, hidden), dtype=np.float32),  # (the running sums of each seat's hand rows)
        np.zeros((*lead, hidden), dtype=np.float32),
    )


def empty(workspaces: int | None = None) -> tuple[np.ndarray, ...]:
    """The network argument of a search that plays out with the rules of thumb (never read; the
    types of a real network's, so one compiled decision serves both kinds)."""
    weights = (
        np.zeros((1, 1), dtype=np.float32),
        np.zeros(1, dtype=np.float32),
        np.zeros((1, 1), dtype=np.float32),
        np.zeros(1, dtype=np.float32),
        np.zeros(1, dtype=np.float32),
    )
    return (*weights, *scratch(1, workspaces))


# --- the inputs (offsets of each group; every group is a one-hot or a card set) -----------------------
F_HAND = 0  # 52: my hand
F_GONE = 52  # 52: cards of the finished tricks
F_TRICK_PARTNER = 104  # 52: the trick's cards played by my partners
F_TRICK_OPP = 156  # 52: the trick's cards played by the opponents
F_WINNING = 208  # 52: the card winning the trick so far
F_WIN_PARTNER = 260  # 1: a partner plays it
F_TRUMP = 261  # 4
F_RENSHO = 265  # 52
F_LED = 317  # 4: the led suit (none when leading)
F_POS = 321  # 6: cards already in the trick
F_LAST = 327  # 1: I play the trick's last card
F_VOIDS = 328  # 5 x 4: the suits each other seat (1..n-1 after me) has shown out of
F_MY_EGARA = 348  # 17: my side's egara count
F_OPP_EGARA = 365  # 17: the most egara of another side
F_SIX = 382  # 1: six players
NUM_FEATURES = 383
MAX_ACTIVE = 128  # at most 52 + 52 + 6 + 1 + ... active inputs: the index scratch's size
ALL_CARDS = np.uint64((1 << 52) - 1)
ONE32 = np.float32(1.0)


@kernel_jit_inline
def _add_cards(out: np.ndarray, base: int, x: np.uint64, k: int) -> int:  # pragma: no cover
    """Append the inputs ``base + card`` of every card of ``x`` to ``out`` from ``k``; the new count."""
    while x != ZERO:
        c = low_bit(x)
        x &= x - ONE
        out[k] = base + c
        k += 1
    return k


@kernel_jit_inline
def _trick(
    b: int, seat: int, st: Arrays, opts: np.ndarray
) -> tuple[np.uint64, np.uint64, np.uint64]:  # pragma: no cover
    """The trick's cards: all of them, my partners', the opponents'."""
    n, P = opts[O_N], opts[O_P]
    mine = side(seat, P)
    allc, part, opp = ZERO, ZERO, ZERO
    for s in range(n):
        x = st.t_bits[b, s]
        if x == ZERO:
            continue
        allc |= x
        if side(s, P) == mine:
            part |= x
        else:
            opp |= x
    return allc, part, opp


@kernel_jit_inline
def small_features(
    b: int, seat: int, st: Arrays, opts: np.ndarray, out: np.ndarray, k: int
) -> int:  # pragma: no cover
    """The inputs other than the hand and the gone cards (the trick, the trump, Rensho, the voids, the
    egara counts, the table), appended to ``out`` from ``k``; the new count."""
    g = st.g
    n, P = opts[O_N], opts[O_P]
    _, part, opp = _trick(b, seat, st, opts)
    k = _add_cards(out, F_TRICK_PARTNER, part, k)
    k = _add_cards(out, F_TRICK_OPP, opp, k)
    num = g[b, T_NUM]
    if num > 0:
        w = trick_winner(b, st, n)
        out[k] = F_WINNING + st.t_card[b, w]
        k += 1
        if side(w, P) == side(seat, P):
            out[k] = F_WIN_PARTNER
            k += 1
        out[k] = F_LED + g[b, T_LED]
        k += 1
    out[k] = F_TRUMP + g[b, TRUMP]
    out[k + 1] = F_RENSHO + g[b, RENSHO]
    out[k + 2] = F_POS + num
    k += 3
    if num == g[b, T_LEN] - 1:
        out[k] = F_LAST
        k += 1
    for j in range(1, n):
        s = seat + j
        if s >= n:
            s -= n
        v = st.voids[b, s]
        for suit in range(4):
            if (v >> suit) & 1:
                out[k] = F_VOIDS + 4 * (j - 1) + suit
                k += 1
    mine = side(seat, P)
    other = 0
    for p in range(P):
        e = popcount(st.captured[b, p] & EGARA_BITS)
        if p == mine:
            out[k] = F_MY_EGARA + e
            k += 1
        elif e > other:
            other = e
    out[k] = F_OPP_EGARA + other
    k += 1
    if n == 6:
        out[k] = F_SIX
        k += 1
    return k


@kernel_jit_inline
def gone_cards(b: int, seat: int, st: Arrays, opts: np.ndarray) -> np.uint64:  # pragma: no cover
    """The cards of the finished tricks (the played cards less the trick's)."""
    allc, _, _ = _trick(b, seat, st, opts)
    return st.played[b] & ~allc


@kernel_jit_inline
def features(b: int, seat: int, st: Arrays, opts: np.ndarray, out: np.ndarray) -> int:  # pragma: no cover
    """The active inputs of ``seat`` in row ``b`` (module docstring) into ``out``; their number."""
    k = _add_cards(out, F_HAND, st.hands[b, seat], 0)
    k = _add_cards(out, F_GONE, gone_cards(b, seat, st, opts), k)
    return small_features(b, seat, st, opts, out, k)


@kernel_jit_inline
def _add_rows(
    w1: np.ndarray, base: int, x: np.uint64, sign: np.float32, acc: np.ndarray
) -> None:  # pragma: no cover
    """``acc += sign * w1[base + card]`` for every card of ``x``."""
    h = acc.shape[0]
    while x != ZERO:
        row = base + low_bit(x)
        x &= x - ONE
        for j in range(h):
            acc[j] += sign * w1[row, j]


@kernel_jit_inline
def net_head(
    b: int,
    seat: int,
    legal: np.uint64,
    st: Arrays,
    opts: np.ndarray,
    w1: np.ndarray,
    w2: np.ndarray,
    b2: np.ndarray,
    hidden: np.ndarray,
    idx: np.ndarray,
) -> int:  # pragma: no cover
    """The arg-max legal card (ties: the lowest) once ``hidden`` holds the bias and the rows of the
    hand and the gone cards: the other inputs' rows are added, then ReLU and the legal cards' logits."""
    h = hidden.shape[0]
    k = small_features(b, seat, st, opts, idx, 0)
    for i in range(k):
        row = idx[i]
        for j in range(h):
            hidden[j] += w1[row, j]
    for j in range(h):
        hidden[j] = max(hidden[j], np.float32(0.0))
    best, best_v = -1, -np.inf
    x = legal
    while x != ZERO:
        c = low_bit(x)
        x &= x - ONE
        v = np.float32(0.0)
        for j in range(h):
            v += hidden[j] * w2[c, j]
        v += b2[c]
        if v > best_v:
            best, best_v = c, v
    return best


@kernel_jit_inline
def net_choice(
    b: int,
    st: Arrays,
    opts: np.ndarray,
    w1: np.ndarray,
    b1: np.ndarray,
    w2: np.ndarray,
    b2: np.ndarray,
    gone_sum: np.ndarray,
    hidden: np.ndarray,
    idx: np.ndarray,
) -> int:  # pragma: no cover
    """The card the network plays for the seat to play in row ``b`` (its arg-max over the legal cards,
    ties to the lowest card), every row summed afresh; a single legal card is played without it."""
    g = st.g
    seat = st.current_player[b]
    legal = legal_plays(st.hands[b, seat], g[b, T_LED], g[b, RENSHO], opts[O_MUST_FOLLOW])
    if legal & (legal - ONE) == ZERO:
        return low_bit(legal)
    h = hidden.shape[0]
    for j in range(h):
        hidden[j] = b1[j]
    _add_rows(w1, F_HAND, st.hands[b, seat], ONE32, hidden)
    gone = gone_cards(b, seat, st, opts)
    if popcount(gone) <= 26:
        _add_rows(w1, F_GONE, gone, ONE32, hidden)
    else:  # the complement: every gone row's sum less the rows of the cards not gone
        for j in range(h):
            hidden[j] += gone_sum[j]
        _add_rows(w1, F_GONE, ALL_CARDS & ~gone, -ONE32, hidden)
    return net_head(b, seat, legal, st, opts, w1, w2, b2, hidden, idx)


@kernel_jit
def net_playout(
    b: int,
    st: Arrays,
    opts: np.ndarray,
    rewards: np.ndarray,
    over: np.ndarray,
    rmin: int,
    plies: int,
    net: Fields,
) -> float:  # pragma: no cover
    """Play row ``b`` to the end of the deal: the network plays the first ``plies`` cards, the scripted
    rules of thumb the rest; my partnership's value. The rows of each seat's hand and of the gone
    cards are kept as running sums (``hand_acc``, ``gone_acc``: a played card's row leaves its seat's
    sum, a finished trick's cards join the gone sum), so a move adds only the other inputs' rows."""
    w1, b1, w2, b2, gone_sum, hidden, idx, hand_acc, gone_acc = net
    g, cur, hands = st.g, st.current_player, st.hands
    n = opts[O_N]
    h = hidden.shape[0]
    if plies > 0:
        for j in range(h):
            gone_acc[j] = b1[j]
        _add_rows(w1, F_GONE, gone_cards(b, 0, st, opts), ONE32, gone_acc)
        for s in range(n):
            for j in range(h):
                hand_acc[s, j] = 0.0
            _add_rows(w1, F_HAND, hands[b, s], ONE32, hand_acc[s])
    k = 0
    while g[b, PHASE] == PLAY_PHASE:
        seat = cur[b]
        if k < plies:
            legal = legal_plays(hands[b, seat], g[b, T_LED], g[b, RENSHO], opts[O_MUST_FOLLOW])
            if legal & (legal - ONE) == ZERO:
                c = low_bit(legal)
            else:
                for j in range(h):
                    hidden[j] = gone_acc[j] + hand_acc[seat, j]
                c = net_head(b, seat, legal, st, opts, w1, w2, b2, hidden, idx)
        else:
            c = policy(b, st, opts, rmin)
        k += 1
        if k < plies:  # the running sums after this card
            cb = bit(c)
            for j in range(h):
                hand_acc[seat, j] -= w1[F_HAND + c, j]
            if g[b, T_NUM] == g[b, T_LEN] - 1:
                _add_rows(w1, F_GONE, trick_cards(b, st, n) | cb, ONE32, gone_acc)
        play(b, c, st, opts, rewards, over)
    return float(rewards[b, 0])


# ==================================================================================================
# entry points from Python: the inputs and the choice of one row (training data, tests)
# ==================================================================================================
@kernel_jit
def features_row(
    b: int, seat: int, arrays: Fields, opts: np.ndarray, out: np.ndarray
) -> int:  # pragma: no cover
    """``features`` of ``seat`` in row ``b`` (the plain sets: the gone cards themselves)."""
    st = State(*arrays)  # (named at once: Python passes the plain tuple, spec.Fields)
    return features(b, seat, st, opts, out)


@kernel_jit
def choice_row(b: int, arrays: Fields, opts: np.ndarray, net: Fields) -> int:  # pragma: no cover
    """``net_choice`` for the seat to play in row ``b``."""
    st = State(*arrays)  # (named at once: Python passes the plain tuple, spec.Fields)
    w1, b1, w2, b2, gone_sum, hidden, idx, _, _ = net
    return net_choice(b, st, opts, w1, b1, w2, b2, gone_sum, hidden, idx)


@kernel_jit
def playout_row(
    b: int,
    rmin: int,
    plies: int,
    arrays: Fields,
    opts: np.ndarray,
    rewards: np.ndarray,
    over: np.ndarray,
    net: Fields,
) -> float:  # pragma: no cover
    """``net_playout`` of row ``b`` (tests: a play-out plays legal cards to the deal's end)."""
    st = State(*arrays)  # (named at once: Python passes the plain tuple, spec.Fields)
    return net_playout(b, st, opts, rewards, over, rmin, plies, net)
