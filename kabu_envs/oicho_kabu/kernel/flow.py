"""The Oicho-Kabu kernel's rules: deal, selection, bets, decisions, the dealer's draw, settlement and
the session, as numba per-row loops (``Game``, ``Deck`` and ``session`` written again; each function
names the one it mirrors). ``reset_rows`` and ``step`` are the entry points."""

from __future__ import annotations

import numba
import numpy as np

from kabu_envs.core import kernel as core
from kabu_envs.oicho_kabu.actions import BET_BASE, DRAW, ESCAPE, KEEP, REDEAL, STAND
from kabu_envs.oicho_kabu.deck import DECK_SIZE, TAKE_BOTTOM, TAKE_TOP
from kabu_envs.oicho_kabu.game import DREW, ESCAPED, NUM_SPREADS, STOOD
from kabu_envs.oicho_kabu.kernel.layout import (
    BET,
    CH_BUST,
    CH_DEALS,
    CH_DOUBLED,
    CH_LOST_ALL,
    CH_LOW_HAND,
    CHOICE,
    DEALER_DRAW,
    DECIDE,
    MINSO,
    O_ASKING,
    O_BANKROLL,
    O_BEFORE_BETS,
    O_CHANGE,
    O_CHOICE,
    O_DOMAE,
    O_EACH_DEAL,
    O_INFO,
    O_K,
    O_MAX_DEALS,
    O_MAX_ROUNDS,
    O_MINSO,
    O_N,
    O_SELECTION,
    O_TRIPLE,
    O_UNBACKED,
    OVER,
    TAKE_FIRST,
    Rules,
    State,
)


# --- the deck (deck.Deck) -------------------------------------------------------------------------------
@numba.njit(cache=True)
def _draw(st: State, b: int) -> int:  # pragma: no cover - compiled (the lockstep tests run it)
    """``Deck.draw``: the top card."""
    card = st.deck[b, st.top[b]]
    st.top[b] += 1
    return card


@numba.njit(cache=True)
def _take(st: State, b: int, where: int) -> int:  # pragma: no cover
    """``Deck.take``: the top, the bottom or the 4th card from the top (popped; the stacked prefix
    shrinks when the card came from inside it)."""
    if where == TAKE_TOP:
        return _draw(st, b)
    end = st.dlen[b]
    idx = end - 1 if where == TAKE_BOTTOM else st.top[b] + 3
    card = st.deck[b, idx]
    if idx < st.stacked[b]:
        st.stacked[b] -= 1
    for i in range(idx, end - 1):
        st.deck[b, i] = st.deck[b, i + 1]
    st.dlen[b] = end - 1
    return card


@numba.njit(cache=True)
def _reshuffle(st: State, b: int, returned: np.ndarray, k: int) -> None:  # pragma: no cover
    """``Deck.reshuffle``: ``returned[:k]`` back, everything below the unused stacked prefix shuffled."""
    top = st.top[b]
    keep_end = max(top, st.stacked[b])
    rest = np.empty(DECK_SIZE, dtype=np.int64)
    m = 0
    for i in range(keep_end, st.dlen[b]):
        rest[m] = st.deck[b, i]
        m += 1
    for i in range(k):
        rest[m] = returned[i]
        m += 1
    core.shuffle(st.rng, b, rest, m)
    keep = keep_end - top
    for i in range(keep):
        st.deck[b, i] = st.deck[b, top + i]
    for i in range(m):
        st.deck[b, keep + i] = rest[i]
    st.top[b] = 0
    st.stacked[b] = keep
    st.dlen[b] = keep + m


@numba.njit(cache=True)
def _order_rest(st: State, b: int, keep: int) -> None:  # pragma: no cover
    """``ordered_deck`` / ``Deck.fresh`` below a kept prefix ``deck[b, :keep]``: the other ids in
    increasing order, shuffled (without a prefix: ``permutation(40)``, the same shuffle of 0..39)."""
    used = np.zeros(DECK_SIZE, dtype=np.bool_)
    for i in range(keep):
        used[st.deck[b, i]] = True
    rest = np.empty(DECK_SIZE, dtype=np.int64)
    m = 0
    for c in range(DECK_SIZE):
        if not used[c]:
            rest[m] = c
            m += 1
    core.shuffle(st.rng, b, rest, m)
    for i in range(m):
        st.deck[b, keep + i] = rest[i]
    st.top[b] = 0
    st.stacked[b] = keep
    st.dlen[b] = DECK_SIZE


@numba.njit(cache=True)
def _fresh(st: State, b: int) -> None:  # pragma: no cover
    """``Deck.fresh`` (a new round): all 40 cards, the unused stacked prefix on top, the rest shuffled."""
    top = st.top[b]
    keep = max(top, st.stacked[b]) - top
    for i in range(keep):
        st.deck[b, i] = st.deck[b, top + i]
    _order_rest(st, b, keep)


# --- masks and waits (Game._wait, Game._draw_legal, Game._ask_bet) --------------------------------------
@numba.njit(cache=True)
def _wait(st: State, b: int, phase: int, seat: int) -> None:  # pragma: no cover
    """``Game._wait`` without the mask: the phase and the seat to act; the mask row is cleared."""
    st.phase[b] = phase
    st.current_player[b] = seat
    st.legal_action_mask[b, :] = False


@numba.njit(cache=True)
def _wait_draw(st: State, ru: Rules, b: int, phase: int, seat: int, code: int) -> None:  # pragma: no cover
    """A STAND / DRAW / ESCAPE decision: the mask from a draw-option code (``Game._draw_legal``)."""
    _wait(st, b, phase, seat)
    st.legal_action_mask[b, STAND] = code & 1 != 0
    st.legal_action_mask[b, DRAW] = code & 2 != 0
    st.legal_action_mask[b, ESCAPE] = code & 4 != 0


@numba.njit(cache=True)
def _hand2(ru: Rules, c0: int, c1: int) -> int:  # pragma: no cover
    """``batch_tables.hand2`` of two card ids."""
    return ru.card_class[c0] * ru.opt[O_K] + ru.card_class[c1]


@numba.njit(cache=True)
def _hand(ru: Rules, c0: int, c1: int, c2: int) -> int:  # pragma: no cover
    """The hand index of two cards (``c2`` < 0) or three (``batch_tables.hand2`` / ``hand3``)."""
    k = ru.opt[O_K]
    h = ru.card_class[c0] * k + ru.card_class[c1]
    if c2 < 0:
        return h
    return k * k + h * k + ru.card_class[c2]


@numba.njit(cache=True)
def _ask_bet(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._ask_bet``: the next bettor, BET(0) and every size that fits its room."""
    seat = st.order[b, st.bet_i[b]]
    room = min(ru.opt[O_DOMAE] - st.round_total[b], st.chips[b, seat] - st.seat_total[b, seat])
    _wait(st, b, BET, seat)
    st.legal_action_mask[b, BET_BASE] = True
    for k in range(len(ru.sizes)):
        if ru.sizes[k] <= room:
            st.legal_action_mask[b, BET_BASE + 1 + k] = True


# --- a round's flow (Game._start_round .. Game._end_round) -----------------------------------------------
@numba.njit(cache=True)
def _score(selection: int, card: int) -> int:  # pragma: no cover
    """``session._score``: closest_to_nine scores the value mod 10, lowest the negated value."""
    value = (card >> 2) + 1
    return value % 10 if selection == 1 else -value


@numba.njit(cache=True)
def _select(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._select`` with ``session.select_dealer``: every seat with chips draws, the tied seats again,
    until one is left; the cards go back under the unused stacked prefix."""
    n = ru.opt[O_N]
    rule = ru.opt[O_SELECTION]
    cand = np.empty(n, dtype=np.int64)
    score = np.empty(n, dtype=np.int64)
    nc = 0
    for seat in range(n):
        if st.chips[b, seat] > 0:
            cand[nc] = seat
            nc += 1
    returned = np.empty(DECK_SIZE, dtype=np.int64)
    k = 0
    while True:
        if st.dlen[b] - st.top[b] < nc:  # only with long tie chains: the used cards go back
            _reshuffle(st, b, returned, k)
            k = 0
        best = -100
        for i in range(nc):
            seat = cand[i]
            card = _draw(st, b)
            if st.selection[b, seat] < 0:
                st.selection[b, seat] = card
            returned[k] = card
            k += 1
            score[i] = _score(rule, card)
            best = max(best, score[i])
        m = 0
        for i in range(nc):
            if score[i] == best:
                cand[m] = cand[i]
                m += 1
        nc = m
        if nc == 1:
            _reshuffle(st, b, returned, k)
            break
    dealer = cand[0]
    if dealer != st.dealer[b] or st.round_index[b] == 0:
        st.dealer[b] = dealer
        st.deals_by_dealer[b] = 0
        st.dealer_start_chips[b] = st.chips[b, dealer]


@numba.njit(cache=True)
def _seat_order(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """The betting order: ``session.seat_order`` with selection before every deal (the best card first,
    ties in seat order from the dealer on), else the seats after the dealer that have chips."""
    n = ru.opt[O_N]
    dealer = st.dealer[b]
    each = ru.opt[O_EACH_DEAL] != 0
    m = 0
    for i in range(1, n):
        seat = (dealer + i) % n
        if (st.selection[b, seat] >= 0) if each else (st.chips[b, seat] > 0):
            st.order[b, m] = seat
            m += 1
    if each:  # a stable insertion sort on the score, best first
        rule = ru.opt[O_SELECTION]
        for i in range(1, m):
            seat = st.order[b, i]
            key = _score(rule, st.selection[b, seat])
            j = i
            while j > 0 and _score(rule, st.selection[b, st.order[b, j - 1]]) < key:
                st.order[b, j] = st.order[b, j - 1]
                j -= 1
            st.order[b, j] = seat
    st.nb[b] = m


@numba.njit(cache=True)
def _new_episode(st: State, ru: Rules, b: int, prefix: np.ndarray, k: int) -> None:  # pragma: no cover
    """``Game.__init__``: the deck (``prefix[:k]`` on top, the rest shuffled), full chips, the first round."""
    for i in range(k):
        st.deck[b, i] = prefix[i]
    _order_rest(st, b, k)
    st.chips[b, :] = ru.opt[O_BANKROLL]
    st.round_index[b] = 0
    st.dealer[b] = 0
    st.deals_by_dealer[b] = 0
    st.dealer_start_chips[b] = ru.opt[O_BANKROLL]
    _start_round(st, ru, b)


@numba.njit(cache=True)
def _start_round(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._start_round``: a fresh deck after the first round, selection draws, the betting order,
    the info cards, the table, then the minso question or the table's final form."""
    if st.round_index[b] > 0:
        _fresh(st, b)
    st.selection[b, :] = -1
    if ru.opt[O_SELECTION] != 0 and (ru.opt[O_EACH_DEAL] != 0 or st.round_index[b] == 0):
        _select(st, ru, b)
    _seat_order(st, ru, b)
    st.info[b, :] = -1
    st.spreads[b, :, :] = -1
    st.stakes[b, :, :] = 0
    st.spread_total[b, :] = 0
    st.backers[b, :] = 0
    st.seat_total[b, :] = 0
    st.round_total[b] = 0
    st.decider[b, :] = -1
    st.spread_state[b, :] = 0
    st.dealer_cards[b, :] = -1
    st.nd[b] = 0
    st.revealed[b] = False
    st.minso_redeals[b] = 0
    st.active[b] = -1
    st.choice_slot[b] = -1
    st.bet_i[b] = 0
    if ru.opt[O_INFO] != 0:
        for i in range(st.nb[b]):
            st.info[b, st.order[b, i]] = _draw(st, b)
    _deal_table(st, ru, b)
    if ru.opt[O_MINSO] > 0:
        _wait(st, b, MINSO, st.dealer[b])
        st.legal_action_mask[b, KEEP] = True
        st.legal_action_mask[b, REDEAL] = True
    else:
        _table_final(st, ru, b)


@numba.njit(cache=True)
def _deal_table(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._deal_table``: four table cards, again after a reshuffle while three share a value
    (``redeal_on_triple_table``; ``game._has_triple``)."""
    table = np.empty(NUM_SPREADS, dtype=np.int64)
    while True:
        for s in range(NUM_SPREADS):
            table[s] = _draw(st, b)
        triple = False
        if ru.opt[O_TRIPLE] != 0:
            for i in range(2):
                count = 0
                for j in range(NUM_SPREADS):
                    count += (table[j] >> 2) == (table[i] >> 2)
                triple = triple or count >= 3
        if not triple:
            break
        _reshuffle(st, b, table, NUM_SPREADS)
    for s in range(NUM_SPREADS):
        st.spreads[b, s, 0] = table[s]


@numba.njit(cache=True)
def _table_final(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._table_final``."""
    if ru.opt[O_BEFORE_BETS] != 0:
        _dealer_first(st, ru, b)
    else:
        _start_bets(st, ru, b)


@numba.njit(cache=True)
def _dealer_first(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._dealer_card(0)``: the dealer's first card, or the question which one (card choice).
    (Slot 0 and slot 1 are two functions, so that no kernel function calls itself through others.)"""
    if ru.opt[O_CHOICE] != 0:
        st.choice_slot[b] = 0
        _wait(st, b, CHOICE, st.dealer[b])
        for i in range(3):
            st.legal_action_mask[b, TAKE_FIRST + i] = True
    else:
        st.dealer_cards[b, st.nd[b]] = _draw(st, b)
        st.nd[b] += 1
        _after_first(st, ru, b)


@numba.njit(cache=True)
def _dealer_second(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._dealer_card(1)``: the dealer's second card (or the question), then its draw decision."""
    if ru.opt[O_CHOICE] != 0:
        st.choice_slot[b] = 1
        _wait(st, b, CHOICE, st.dealer[b])
        for i in range(3):
            st.legal_action_mask[b, TAKE_FIRST + i] = True
    else:
        st.dealer_cards[b, st.nd[b]] = _draw(st, b)
        st.nd[b] += 1
        _ask_dealer(st, ru, b)


@numba.njit(cache=True)
def _ask_dealer(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._after_dealer_card(1)``: the dealer's STAND / DRAW question."""
    code = ru.draw_dealer[_hand2(ru, st.dealer_cards[b, 0], st.dealer_cards[b, 1])]
    _wait_draw(st, ru, b, DEALER_DRAW, st.dealer[b], code)


@numba.njit(cache=True)
def _after_first(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._after_dealer_card(0)``: the bets, or (first card after the bets) the second cards."""
    if ru.opt[O_BEFORE_BETS] != 0:
        _start_bets(st, ru, b)
    else:
        _second_cards(st, ru, b)


@numba.njit(cache=True)
def _start_bets(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._start_bets``."""
    st.bet_i[b] = 0
    st.active[b] = 0
    _ask_bet(st, ru, b)


@numba.njit(cache=True)
def _end_bets(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._end_bets``: nobody staked (the round ends unpaid), or the dealer's card / second cards."""
    st.active[b] = -1
    if st.round_total[b] == 0:
        _end_round(st, ru, b, -1, False)
    elif ru.opt[O_BEFORE_BETS] == 0:
        _dealer_first(st, ru, b)
    else:
        _second_cards(st, ru, b)


@numba.njit(cache=True)
def _second_cards(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._second_cards``: every spread its second card, then the decisions."""
    for s in range(NUM_SPREADS):
        st.spreads[b, s, 1] = _draw(st, b)
    st.active[b] = -1
    _next_decision(st, ru, b)


@numba.njit(cache=True)
def _next_decision(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._next_decision`` / ``decision_spreads``: the next undecided backed spread in spread order
    or in asking order (decider by decider in betting order); when none is left the unbacked spreads'
    card (``unbacked_spread_card``), the dealer's cards turn up and the dealer's second card comes."""
    n = ru.opt[O_N]
    best, best_key = -1, 1 << 40
    for s in range(NUM_SPREADS):
        if st.spread_total[b, s] == 0 or st.spread_state[b, s] != 0:
            continue
        key = s
        if ru.opt[O_ASKING] != 0:
            pos = n
            for i in range(st.nb[b]):
                if st.order[b, i] == st.decider[b, s]:
                    pos = i
                    break
            key = pos * NUM_SPREADS + s
        if key < best_key:
            best, best_key = s, key
    if best >= 0:
        st.active[b] = best
        code = ru.draw_bettor[_hand2(ru, st.spreads[b, best, 0], st.spreads[b, best, 1])]
        _wait_draw(st, ru, b, DECIDE, st.decider[b, best], code)
        return
    st.active[b] = -1
    if ru.opt[O_UNBACKED] != 0:  # Game._deal_unbacked: spread by spread, face up
        for s in range(NUM_SPREADS):
            if st.spread_total[b, s] == 0:
                st.spreads[b, s, 2] = _draw(st, b)
    st.revealed[b] = True
    _dealer_second(st, ru, b)


@numba.njit(cache=True)
def _showdown(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._showdown``: each backed spread settled against the dealer (``rules.settle`` as the
    signature table), stakes paid, the round ended with the dealer's final value."""
    n = ru.opt[O_N]
    dealer = st.dealer[b]
    dh = _hand(ru, st.dealer_cards[b, 0], st.dealer_cards[b, 1], st.dealer_cards[b, 2])
    dsig = ru.dealer_sig[dh]
    backed = lost = 0
    for s in range(NUM_SPREADS):
        if st.spread_total[b, s] == 0:
            continue
        backed += 1
        state = st.spread_state[b, s]
        if state == ESCAPED:
            continue
        third = st.spreads[b, s, 2] if state == DREW else -1
        bh = _hand(ru, st.spreads[b, s, 0], st.spreads[b, s, 1], third)
        m = ru.settle[dsig, ru.bettor_sig[bh]]
        if m > 0:
            lost += 1
        if m != 0:
            for seat in range(n):
                won = st.stakes[b, seat, s] * m
                st.chips[b, seat] += won
                st.chips[b, dealer] -= won
                st.rewards[b, seat] += won
                st.rewards[b, dealer] -= won
    _end_round(st, ru, b, ru.hand_value[dh], backed > 0 and lost == backed)


@numba.njit(cache=True)
def _end_round(st: State, ru: Rules, b: int, final_value: int, lost_all: bool) -> None:  # pragma: no cover
    """``Game._end_round``: the episode ends (``max_rounds``, fewer than two seats with chips), or the
    deal passes on (``session.dealer_must_change`` / ``next_dealer``) and the next round starts.
    ``final_value`` -1: no final hand (nobody staked)."""
    n = ru.opt[O_N]
    st.round_index[b] += 1
    st.deals_by_dealer[b] += 1
    alive = 0
    for seat in range(n):
        alive += st.chips[b, seat] > 0
    if st.round_index[b] >= ru.opt[O_MAX_ROUNDS] or alive < 2:
        st.terminated[b] = True
        _wait(st, b, OVER, -1)
        return
    d = st.dealer[b]
    if ru.opt[O_EACH_DEAL] == 0:
        ch = ru.opt[O_CHANGE]
        mine = st.chips[b, d]
        change = (
            (ch & CH_DEALS != 0 and st.deals_by_dealer[b] >= ru.opt[O_MAX_DEALS])
            or (ch & CH_BUST != 0 and mine <= 0)
            or (ch & CH_DOUBLED != 0 and mine - st.dealer_start_chips[b] >= ru.opt[O_DOMAE])
            or (ch & CH_LOW_HAND != 0 and 0 <= final_value <= 5)
            or (ch & CH_LOST_ALL != 0 and lost_all)
        )
        if change:
            nxt = d
            for i in range(1, n):
                if st.chips[b, (d + i) % n] > 0:
                    nxt = (d + i) % n
                    break
            st.dealer[b] = nxt
            st.deals_by_dealer[b] = 0
            st.dealer_start_chips[b] = st.chips[b, nxt]
    _start_round(st, ru, b)


# --- the actions (Game._apply_*) -------------------------------------------------------------------------
@numba.njit(cache=True)
def _apply(st: State, ru: Rules, b: int, action: int) -> None:  # pragma: no cover
    """``Game.apply_action`` for a legal ``action`` of game ``b``."""
    phase = st.phase[b]
    if phase == MINSO:  # Game._apply_minso
        if action == KEEP:
            _table_final(st, ru, b)
            return
        st.minso_redeals[b] += 1
        table = np.empty(NUM_SPREADS, dtype=np.int64)
        for s in range(NUM_SPREADS):
            table[s] = st.spreads[b, s, 0]
        _reshuffle(st, b, table, NUM_SPREADS)
        _deal_table(st, ru, b)
        if st.minso_redeals[b] < ru.opt[O_MINSO]:
            _wait(st, b, MINSO, st.dealer[b])
            st.legal_action_mask[b, KEEP] = True
            st.legal_action_mask[b, REDEAL] = True
        else:
            _table_final(st, ru, b)
    elif phase == BET:  # Game._apply_bet
        k = action - BET_BASE
        s = st.active[b]
        if k > 0:
            seat = st.current_player[b]
            size = ru.sizes[k - 1]
            if st.stakes[b, seat, s] == 0:
                st.backers[b, s] += 1
                if st.decider[b, s] < 0:
                    st.decider[b, s] = seat
            st.stakes[b, seat, s] += size
            st.spread_total[b, s] += size
            st.seat_total[b, seat] += size
            st.round_total[b] += size
        if s + 1 < NUM_SPREADS:
            st.active[b] = s + 1
        else:
            st.bet_i[b] += 1
            if st.bet_i[b] == st.nb[b]:
                _end_bets(st, ru, b)
                return
            st.active[b] = 0
        _ask_bet(st, ru, b)
    elif phase == CHOICE:  # Game._apply_choice
        st.dealer_cards[b, st.nd[b]] = _take(st, b, action - TAKE_FIRST)
        st.nd[b] += 1
        if st.choice_slot[b] == 1:
            _ask_dealer(st, ru, b)
        else:
            _after_first(st, ru, b)
    elif phase == DECIDE:  # Game._apply_decide
        s = st.active[b]
        if action == DRAW:
            st.spreads[b, s, 2] = _draw(st, b)
            st.spread_state[b, s] = DREW
        elif action == ESCAPE:
            st.spread_state[b, s] = ESCAPED
        else:
            st.spread_state[b, s] = STOOD
        _next_decision(st, ru, b)
    else:  # DEALER_DRAW: Game._apply_dealer_draw
        if action == DRAW:
            st.dealer_cards[b, st.nd[b]] = _draw(st, b)
            st.nd[b] += 1
        _showdown(st, ru, b)


@numba.njit(cache=True)
def _restart(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """The row's next episode from its own generator: seeded from (seed, row key, episode + 1)."""
    st.episode[b] += np.uint64(1)
    st.rng[b] = core.seed_state(st.seed[b], st.row_key[b], st.episode[b])
    _new_episode(st, ru, b, np.empty(0, dtype=np.int64), 0)  # (this step reports the episode that ended)


@numba.njit(cache=True)
def reset_rows(
    st: State,
    ru: Rules,
    rows: np.ndarray,
    seeds: np.ndarray,
    row_keys: np.ndarray,
    decks: np.ndarray,
    lengths: np.ndarray,
) -> None:  # pragma: no cover
    """New episodes in games ``rows[i]``: generator ``seed_state(seeds[i], row_keys[i], 0)``, the stacked
    prefix ``decks[i, :lengths[i]]`` on top of the deck (``lengths[i]`` 0: a shuffled deck)."""
    for i in range(len(rows)):
        b = rows[i]
        st.seed[b] = seeds[i]
        st.row_key[b] = row_keys[i]
        st.episode[b] = np.uint64(0)
        st.rng[b] = core.seed_state(seeds[i], row_keys[i], np.uint64(0))
        st.rewards[b, :] = 0.0
        st.terminated[b] = False
        _new_episode(st, ru, b, decks[i], lengths[i])


@numba.njit(cache=True)
def step(
    st: State, ru: Rules, actions: np.ndarray, moving: np.ndarray, autoreset: bool
) -> None:  # pragma: no cover
    """One action per live game with ``moving[b]`` (legal: the caller checks against the mask): the
    rewards of this step, ``terminated`` (a game over or not moving reports "over"), the new masks.
    With ``autoreset`` a game that ends starts its next episode at once (``_restart``)."""
    for b in range(len(actions)):
        st.rewards[b, :] = 0.0
        over = st.current_player[b] < 0
        st.terminated[b] = over
        if over or not moving[b]:
            continue
        _apply(st, ru, b, actions[b])
        if autoreset and st.current_player[b] < 0:
            _restart(st, ru, b)
