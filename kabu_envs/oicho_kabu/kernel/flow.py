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
    CLASS,
    DEALER_DRAW,
    DECIDE,
    MINSO,
    O_ASKING,
    O_BANKROLL,
    O_BEFORE_BETS,
    O_BETTOR_SIG,
    O_BETTOR_SIGS,
    O_CHANGE,
    O_CHOICE,
    O_DEALER_SIG,
    O_DOMAE,
    O_DRAW_BETTOR,
    O_DRAW_DEALER,
    O_EACH_DEAL,
    O_HAND_VALUE,
    O_INFO,
    O_K,
    O_MAX_DEALS,
    O_MAX_ROUNDS,
    O_MINSO,
    O_N,
    O_SELECTION,
    O_SETTLE,
    O_SIZES_N,
    O_TRIPLE,
    O_UNBACKED,
    OVER,
    SIZES,
    TAKE_FIRST,
    Game,
    Rules,
    State,
)


# --- the deck (deck.Deck) -------------------------------------------------------------------------------
@numba.njit
def _draw(g: Game) -> int:  # pragma: no cover - compiled (the lockstep tests run it)
    """``Deck.draw``: the top card."""
    card = g.deck[g.top]
    g.top += 1
    return card


@numba.njit
def _take(g: Game, where: int) -> int:  # pragma: no cover
    """``Deck.take``: the top, the bottom or the 4th card from the top (popped; the stacked prefix
    shrinks when the card came from inside it)."""
    if where == TAKE_TOP:
        return _draw(g)
    end = g.dlen
    idx = end - 1 if where == TAKE_BOTTOM else g.top + 3
    card = g.deck[idx]
    if idx < g.stacked:
        g.stacked -= 1
    for i in range(idx, end - 1):
        g.deck[i] = g.deck[i + 1]
    g.dlen = end - 1
    return card


# where a game continues after a shuffle (``g.resume``; 0: it does not wait for one)
R_NONE, R_ROUND, R_SELECT, R_SELECTED, R_TABLE = 0, 1, 2, 3, 4


@numba.njit
def _shuffle_tail(g: Game) -> None:  # pragma: no cover
    """The pending shuffle of ``deck[stacked:dlen]`` with the game's own generator, in place
    (``core.kernel.shuffle_word``: the state is the record's field; nothing is allocated)."""
    start = g.stacked
    g.rng = core.shuffle_word(g.rng, g.deck[start:], g.dlen - start)


@numba.njit
def _permute_tail(g: Game, perm: np.ndarray) -> None:  # pragma: no cover
    """The pending shuffle as Python drew it for a fed game: ``deck[stacked:dlen]`` becomes
    ``deck[stacked:dlen][perm]`` (what ``rng.shuffle`` does to an array of that length when
    ``rng.permutation`` of the length gives ``perm``)."""
    start, m = g.stacked, g.dlen - g.stacked
    rest = np.empty(DECK_SIZE, dtype=np.int64)
    for i in range(m):
        rest[i] = g.deck[start + perm[i]]
    for i in range(m):
        g.deck[start + i] = rest[i]


@numba.njit
def _reshuffle(g: Game, returned: np.ndarray, k: int, then: int) -> None:  # pragma: no cover
    """``Deck.reshuffle``: ``returned[:k]`` back under the unused stacked prefix (the cards below it
    first, then the returned ones, as the scalar ``rest``), the shuffle of that part left pending
    (``_run``), the game to continue at ``then``. In place: every card moves down the deck (to an
    index no larger than the one it leaves), so a forward copy reads each card before it is
    overwritten; ``returned`` is not the deck."""
    top = g.top
    keep_end = max(top, g.stacked)
    keep = keep_end - top
    for i in range(keep):  # the unused stacked prefix to the top
        g.deck[i] = g.deck[top + i]
    m = g.dlen - keep_end
    for i in range(m):  # the cards below it
        g.deck[keep + i] = g.deck[keep_end + i]
    for i in range(k):  # then the returned ones
        g.deck[keep + m + i] = returned[i]
    g.top = 0
    g.stacked = keep
    g.dlen = keep + m + k
    g.resume = then


@numba.njit
def _order_rest(g: Game, keep: int) -> None:  # pragma: no cover
    """``ordered_deck`` / ``Deck.fresh`` below a kept prefix ``deck[b, :keep]``: the other ids in
    increasing order, their shuffle left pending (without a prefix: ``permutation(40)``, the same
    shuffle of 0..39); the game continues with its round (``R_ROUND``)."""
    used = 0  # (a bit per card id: DECK_SIZE <= 63; nothing is allocated)
    for i in range(keep):
        used |= 1 << g.deck[i]
    m = keep
    for c in range(DECK_SIZE):
        if not (used >> c) & 1:
            g.deck[m] = c
            m += 1
    g.top = 0
    g.stacked = keep
    g.dlen = DECK_SIZE
    g.resume = R_ROUND


@numba.njit
def _fresh(g: Game) -> None:  # pragma: no cover
    """``Deck.fresh`` (a new round): all 40 cards, the unused stacked prefix on top, the rest shuffled."""
    top = g.top
    keep = max(top, g.stacked) - top
    for i in range(keep):
        g.deck[i] = g.deck[top + i]
    _order_rest(g, keep)


# --- masks and waits (Game._wait, Game._draw_legal, Game._ask_bet) --------------------------------------
@numba.njit
def _wait(g: Game, phase: int, seat: int) -> None:  # pragma: no cover
    """``Game._wait`` without the mask: the phase and the seat to act; the mask row is cleared."""
    g.phase = phase
    g.current_player = seat
    g.legal_action_mask[:] = False


@numba.njit
def _wait_draw(g: Game, ru: Rules, phase: int, seat: int, code: int) -> None:  # pragma: no cover
    """A STAND / DRAW / ESCAPE decision: the mask from a draw-option code (``Game._draw_legal``)."""
    _wait(g, phase, seat)
    g.legal_action_mask[STAND] = code & 1 != 0
    g.legal_action_mask[DRAW] = code & 2 != 0
    g.legal_action_mask[ESCAPE] = code & 4 != 0


@numba.njit
def _hand2(ru: Rules, c0: int, c1: int) -> int:  # pragma: no cover
    """``batch_tables.hand2`` of two card ids."""
    return ru[CLASS + c0] * ru[O_K] + ru[CLASS + c1]


@numba.njit
def _hand(ru: Rules, c0: int, c1: int, c2: int) -> int:  # pragma: no cover
    """The hand index of two cards (``c2`` < 0) or three (``batch_tables.hand2`` / ``hand3``)."""
    k = ru[O_K]
    h = ru[CLASS + c0] * k + ru[CLASS + c1]
    if c2 < 0:
        return h
    return k * k + h * k + ru[CLASS + c2]


@numba.njit
def _ask_bet(g: Game, ru: Rules) -> None:  # pragma: no cover
    """``Game._ask_bet``: the next bettor, BET(0) and every size that fits its room."""
    seat = g.order[g.bet_i]
    room = min(ru[O_DOMAE] - g.round_total, g.chips[seat] - g.seat_total[seat])
    _wait(g, BET, seat)
    g.legal_action_mask[BET_BASE] = True
    for k in range(ru[O_SIZES_N]):
        if ru[SIZES + k] <= room:
            g.legal_action_mask[BET_BASE + 1 + k] = True


# --- a round's flow (Game._start_round .. Game._end_round) -----------------------------------------------
@numba.njit
def _score(selection: int, card: int) -> int:  # pragma: no cover
    """``session._score``: closest_to_nine scores the value mod 10, lowest the negated value."""
    value = (card >> 2) + 1
    return value % 10 if selection == 1 else -value


@numba.njit
def _select(g: Game, ru: Rules) -> None:  # pragma: no cover
    """``Game._select`` with ``session.select_dealer``: every seat with chips is a candidate
    (``g.cand[:g.ncand]``, kept in the record: the draws pause at each reshuffle), then ``_select_draws``."""
    nc = 0
    for seat in range(ru[O_N]):
        if g.chips[seat] > 0:
            g.cand[nc] = seat
            nc += 1
    g.ncand = nc
    _select_draws(g, ru)


@numba.njit
def _select_draws(g: Game, ru: Rules) -> None:  # pragma: no cover
    """The candidates draw, the tied ones again, until one is left; the cards go back under the unused
    stacked prefix (a reshuffle: the game continues here, ``R_SELECT``, or with the dealer found,
    ``R_SELECTED``)."""
    rule = ru[O_SELECTION]
    returned = g.scratch[:DECK_SIZE]  # (the record's scratch: nothing is allocated)
    score = g.scratch[DECK_SIZE:]
    k = 0
    nc = g.ncand
    while True:
        if g.dlen - g.top < nc:  # only with long tie chains: the used cards go back
            _reshuffle(g, returned, k, R_SELECT)
            return
        best = -100
        for i in range(nc):
            seat = g.cand[i]
            card = _draw(g)
            if g.selection[seat] < 0:
                g.selection[seat] = card
            returned[k] = card
            k += 1
            score[i] = _score(rule, card)
            best = max(best, score[i])
        m = 0
        for i in range(nc):
            if score[i] == best:
                g.cand[m] = g.cand[i]
                m += 1
        nc = g.ncand = m
        if nc == 1:
            _reshuffle(g, returned, k, R_SELECTED)
            return


@numba.njit
def _selected(g: Game, ru: Rules) -> None:  # pragma: no cover
    """The end of ``Game._select``: the dealer found (a new one starts its count), then the deal."""
    dealer = g.cand[0]
    if dealer != g.dealer or g.round_index == 0:
        g.dealer = dealer
        g.deals_by_dealer = 0
        g.dealer_start_chips = g.chips[dealer]
    _deal_round(g, ru)


@numba.njit
def _seat_order(g: Game, ru: Rules) -> None:  # pragma: no cover
    """The betting order: ``session.seat_order`` with selection before every deal (the best card first,
    ties in seat order from the dealer on), else the seats after the dealer that have chips."""
    n = ru[O_N]
    dealer = g.dealer
    each = ru[O_EACH_DEAL] != 0
    m = 0
    for i in range(1, n):
        seat = (dealer + i) % n
        if (g.selection[seat] >= 0) if each else (g.chips[seat] > 0):
            g.order[m] = seat
            m += 1
    if each:  # a stable insertion sort on the score, best first
        rule = ru[O_SELECTION]
        for i in range(1, m):
            seat = g.order[i]
            key = _score(rule, g.selection[seat])
            j = i
            while j > 0 and _score(rule, g.selection[g.order[j - 1]]) < key:
                g.order[j] = g.order[j - 1]
                j -= 1
            g.order[j] = seat
    g.nb = m


@numba.njit
def _new_episode(g: Game, ru: Rules, prefix: np.ndarray, k: int) -> None:  # pragma: no cover
    """``Game.__init__``: the deck (``prefix[:k]`` on top, the rest shuffled: pending), full chips; the
    first round follows the shuffle (``R_ROUND``)."""
    for i in range(k):
        g.deck[i] = prefix[i]
    _order_rest(g, k)
    g.chips[:] = ru[O_BANKROLL]
    g.round_index = 0
    g.dealer = 0
    g.deals_by_dealer = 0
    g.dealer_start_chips = ru[O_BANKROLL]


@numba.njit
def _start_round(g: Game, ru: Rules) -> None:  # pragma: no cover
    """``Game._start_round`` after the first round: a fresh deck (its shuffle pending), then ``_round``."""
    _fresh(g)


@numba.njit
def _round(g: Game, ru: Rules) -> None:  # pragma: no cover
    """``Game._start_round`` once the deck is shuffled: selection draws (pausing at their reshuffles),
    then ``_deal_round``."""
    g.selection[:] = -1
    if ru[O_SELECTION] != 0 and (ru[O_EACH_DEAL] != 0 or g.round_index == 0):
        _select(g, ru)
    else:
        _deal_round(g, ru)


@numba.njit
def _deal_round(g: Game, ru: Rules) -> None:  # pragma: no cover
    """The rest of ``Game._start_round``: the betting order, the info cards, the table."""
    _seat_order(g, ru)
    g.info[:] = -1
    g.spreads[:, :] = -1
    g.stakes[:, :] = 0
    g.spread_total[:] = 0
    g.backers[:] = 0
    g.seat_total[:] = 0
    g.round_total = 0
    g.decider[:] = -1
    g.spread_state[:] = 0
    g.dealer_cards[:] = -1
    g.nd = 0
    g.revealed = False
    g.minso_redeals = 0
    g.active = -1
    g.choice_slot = -1
    g.bet_i = 0
    if ru[O_INFO] != 0:
        for i in range(g.nb):
            g.info[g.order[i]] = _draw(g)
    _deal_table(g, ru)


@numba.njit
def _deal_table(g: Game, ru: Rules) -> None:  # pragma: no cover
    """``Game._deal_table``: four table cards, again after a reshuffle while three share a value
    (``redeal_on_triple_table``; ``game._has_triple``: the game continues here after it, ``R_TABLE``),
    then the minso question or the table's final form (``_after_table``)."""
    table = g.spreads[:, 0]  # (drawn in place: a reshuffle takes them back, the next table overwrites)
    for s in range(NUM_SPREADS):
        table[s] = _draw(g)
    if ru[O_TRIPLE] != 0:
        triple = False
        for i in range(2):
            count = 0
            for j in range(NUM_SPREADS):
                count += (table[j] >> 2) == (table[i] >> 2)
            triple = triple or count >= 3
        if triple:
            _reshuffle(g, table, NUM_SPREADS, R_TABLE)
            return
    _after_table(g, ru)


@numba.njit
def _after_table(g: Game, ru: Rules) -> None:  # pragma: no cover
    """After a table is dealt (``Game._start_round``, ``Game._apply_minso``): the dealer's minso question
    while redeals are left (none yet at a round's start), else the table's final form."""
    if ru[O_MINSO] > 0 and g.minso_redeals < ru[O_MINSO]:
        _wait(g, MINSO, g.dealer)
        g.legal_action_mask[KEEP] = True
        g.legal_action_mask[REDEAL] = True
    else:
        _table_final(g, ru)


@numba.njit
def _continue(g: Game, ru: Rules) -> None:  # pragma: no cover
    """The game's flow after its pending shuffle is done (``g.resume``: where it stopped)."""
    where = g.resume
    g.resume = R_NONE
    if where == R_ROUND:
        _round(g, ru)
    elif where == R_SELECT:
        _select_draws(g, ru)
    elif where == R_SELECTED:
        _selected(g, ru)
    else:
        _deal_table(g, ru)


@numba.njit
def _run(g: Game, ru: Rules) -> None:  # pragma: no cover
    """Shuffle and continue until the game waits for an action, or, a fed game (``g.feed``), for Python to
    draw its shuffle (``dlen - stacked`` cards, ``resume_rows``). A shuffle of fewer than two cards draws
    nothing (numpy's neither): done here."""
    while g.resume != R_NONE:
        if g.dlen - g.stacked > 1:
            if g.feed:
                return
            _shuffle_tail(g)
        _continue(g, ru)


@numba.njit
def _table_final(g: Game, ru: Rules) -> None:  # pragma: no cover
    """``Game._table_final``."""
    if ru[O_BEFORE_BETS] != 0:
        _dealer_first(g, ru)
    else:
        _start_bets(g, ru)


@numba.njit
def _ask_card_choice(g: Game, slot: int) -> None:  # pragma: no cover
    """``Game._dealer_card(slot)`` under the dealer's card choice: which card he takes (TAKE_*)."""
    g.choice_slot = slot
    _wait(g, CHOICE, g.dealer)
    for i in range(3):
        g.legal_action_mask[TAKE_FIRST + i] = True


@numba.njit
def _dealer_first(g: Game, ru: Rules) -> None:  # pragma: no cover
    """``Game._dealer_card(0)``: the dealer's first card, or the question which one (card choice).
    (Slot 0 and slot 1 are two functions, so that no kernel function calls itself through others.)"""
    if ru[O_CHOICE] != 0:
        _ask_card_choice(g, 0)
    else:
        g.dealer_cards[g.nd] = _draw(g)
        g.nd += 1
        _after_first(g, ru)


@numba.njit
def _dealer_second(g: Game, ru: Rules) -> None:  # pragma: no cover
    """``Game._dealer_card(1)``: the dealer's second card (or the question), then its draw decision."""
    if ru[O_CHOICE] != 0:
        _ask_card_choice(g, 1)
    else:
        g.dealer_cards[g.nd] = _draw(g)
        g.nd += 1
        _ask_dealer(g, ru)


@numba.njit
def _ask_dealer(g: Game, ru: Rules) -> None:  # pragma: no cover
    """``Game._after_dealer_card(1)``: the dealer's STAND / DRAW question."""
    code = ru[ru[O_DRAW_DEALER] + _hand2(ru, g.dealer_cards[0], g.dealer_cards[1])]
    _wait_draw(g, ru, DEALER_DRAW, g.dealer, code)


@numba.njit
def _after_first(g: Game, ru: Rules) -> None:  # pragma: no cover
    """``Game._after_dealer_card(0)``: the bets, or (first card after the bets) the second cards."""
    if ru[O_BEFORE_BETS] != 0:
        _start_bets(g, ru)
    else:
        _second_cards(g, ru)


@numba.njit
def _start_bets(g: Game, ru: Rules) -> None:  # pragma: no cover
    """``Game._start_bets``."""
    g.bet_i = 0
    g.active = 0
    _ask_bet(g, ru)


@numba.njit
def _end_bets(g: Game, ru: Rules) -> None:  # pragma: no cover
    """``Game._end_bets``: nobody staked (the round ends unpaid), or the dealer's card / second cards."""
    g.active = -1
    if g.round_total == 0:
        _end_round(g, ru, -1, False)
    elif ru[O_BEFORE_BETS] == 0:
        _dealer_first(g, ru)
    else:
        _second_cards(g, ru)


@numba.njit
def _second_cards(g: Game, ru: Rules) -> None:  # pragma: no cover
    """``Game._second_cards``: every spread its second card, then the decisions."""
    for s in range(NUM_SPREADS):
        g.spreads[s, 1] = _draw(g)
    g.active = -1
    _next_decision(g, ru)


@numba.njit
def _next_decision(g: Game, ru: Rules) -> None:  # pragma: no cover
    """``Game._next_decision`` / ``decision_spreads``: the next undecided backed spread in spread order
    or in asking order (decider by decider in betting order); when none is left the unbacked spreads'
    card (``unbacked_spread_card``), the dealer's cards turn up and the dealer's second card comes."""
    n = ru[O_N]
    best, best_key = -1, 1 << 40
    for s in range(NUM_SPREADS):
        if g.spread_total[s] == 0 or g.spread_state[s] != 0:
            continue
        key = s
        if ru[O_ASKING] != 0:
            pos = n
            for i in range(g.nb):
                if g.order[i] == g.decider[s]:
                    pos = i
                    break
            key = pos * NUM_SPREADS + s
        if key < best_key:
            best, best_key = s, key
    if best >= 0:
        g.active = best
        code = ru[ru[O_DRAW_BETTOR] + _hand2(ru, g.spreads[best, 0], g.spreads[best, 1])]
        _wait_draw(g, ru, DECIDE, g.decider[best], code)
        return
    g.active = -1
    if ru[O_UNBACKED] != 0:  # Game._deal_unbacked: spread by spread, face up
        for s in range(NUM_SPREADS):
            if g.spread_total[s] == 0:
                g.spreads[s, 2] = _draw(g)
    g.revealed = True
    _dealer_second(g, ru)


@numba.njit
def _showdown(g: Game, ru: Rules) -> None:  # pragma: no cover
    """``Game._showdown``: each backed spread settled against the dealer (``rules.settle`` as the
    signature table), stakes paid, the round ended with the dealer's final value."""
    n = ru[O_N]
    dealer = g.dealer
    dh = _hand(ru, g.dealer_cards[0], g.dealer_cards[1], g.dealer_cards[2])
    dsig = ru[ru[O_DEALER_SIG] + dh]
    backed = lost = 0
    for s in range(NUM_SPREADS):
        if g.spread_total[s] == 0:
            continue
        backed += 1
        state = g.spread_state[s]
        if state == ESCAPED:
            continue
        third = g.spreads[s, 2] if state == DREW else -1
        bh = _hand(ru, g.spreads[s, 0], g.spreads[s, 1], third)
        m = ru[ru[O_SETTLE] + dsig * ru[O_BETTOR_SIGS] + ru[ru[O_BETTOR_SIG] + bh]]
        if m > 0:
            lost += 1
        if m != 0:
            for seat in range(n):
                won = g.stakes[seat, s] * m
                g.chips[seat] += won
                g.chips[dealer] -= won
                g.rewards[seat] += won
                g.rewards[dealer] -= won
    _end_round(g, ru, ru[ru[O_HAND_VALUE] + dh], backed > 0 and lost == backed)


@numba.njit
def _end_round(g: Game, ru: Rules, final_value: int, lost_all: bool) -> None:  # pragma: no cover
    """``Game._end_round``: the episode ends (``max_rounds``, fewer than two seats with chips), or the
    deal passes on (``session.dealer_must_change`` / ``next_dealer``) and the next round starts.
    ``final_value`` -1: no final hand (nobody staked)."""
    n = ru[O_N]
    g.round_index += 1
    g.deals_by_dealer += 1
    alive = 0
    for seat in range(n):
        alive += g.chips[seat] > 0
    if g.round_index >= ru[O_MAX_ROUNDS] or alive < 2:
        g.terminated = True
        _wait(g, OVER, -1)
        return
    d = g.dealer
    if ru[O_EACH_DEAL] == 0:
        ch = ru[O_CHANGE]
        mine = g.chips[d]
        change = (
            (ch & CH_DEALS != 0 and g.deals_by_dealer >= ru[O_MAX_DEALS])
            or (ch & CH_BUST != 0 and mine <= 0)
            or (ch & CH_DOUBLED != 0 and mine - g.dealer_start_chips >= ru[O_DOMAE])
            or (ch & CH_LOW_HAND != 0 and 0 <= final_value <= 5)
            or (ch & CH_LOST_ALL != 0 and lost_all)
        )
        if change:
            nxt = d
            for i in range(1, n):
                if g.chips[(d + i) % n] > 0:
                    nxt = (d + i) % n
                    break
            g.dealer = nxt
            g.deals_by_dealer = 0
            g.dealer_start_chips = g.chips[nxt]
    _start_round(g, ru)


# --- the actions (Game._apply_*) -------------------------------------------------------------------------
@numba.njit
def _apply(g: Game, ru: Rules, action: int) -> None:  # pragma: no cover
    """``Game.apply_action`` for a legal ``action`` of game ``b``."""
    phase = g.phase
    if phase == MINSO:  # Game._apply_minso
        if action == KEEP:
            _table_final(g, ru)
            return
        g.minso_redeals += 1
        _reshuffle(g, g.spreads[:, 0], NUM_SPREADS, R_TABLE)  # (then the table again: _deal_table ...)
    elif phase == BET:  # Game._apply_bet
        k = action - BET_BASE
        s = g.active
        if k > 0:
            seat = g.current_player
            size = ru[SIZES + k - 1]
            if g.stakes[seat, s] == 0:
                g.backers[s] += 1
                if g.decider[s] < 0:
                    g.decider[s] = seat
            g.stakes[seat, s] += size
            g.spread_total[s] += size
            g.seat_total[seat] += size
            g.round_total += size
        if s + 1 < NUM_SPREADS:
            g.active = s + 1
        else:
            g.bet_i += 1
            if g.bet_i == g.nb:
                _end_bets(g, ru)
                return
            g.active = 0
        _ask_bet(g, ru)
    elif phase == CHOICE:  # Game._apply_choice
        g.dealer_cards[g.nd] = _take(g, action - TAKE_FIRST)
        g.nd += 1
        if g.choice_slot == 1:
            _ask_dealer(g, ru)
        else:
            _after_first(g, ru)
    elif phase == DECIDE:  # Game._apply_decide
        s = g.active
        if action == DRAW:
            g.spreads[s, 2] = _draw(g)
            g.spread_state[s] = DREW
        elif action == ESCAPE:
            g.spread_state[s] = ESCAPED
        else:
            g.spread_state[s] = STOOD
        _next_decision(g, ru)
    else:  # DEALER_DRAW: Game._apply_dealer_draw
        if action == DRAW:
            g.dealer_cards[g.nd] = _draw(g)
            g.nd += 1
        _showdown(g, ru)


@numba.njit
def _restart(g: Game, ru: Rules) -> None:  # pragma: no cover
    """The row's next episode from its own generator (a fed game too): seeded from (seed, row key,
    episode + 1)."""
    g.episode += np.uint64(1)
    g.rng = core.seed_state(g.seed, g.row_key, g.episode)
    g.feed = False
    _new_episode(g, ru, g.deck, 0)  # (no prefix: k = 0; this step reports the episode that ended)
    _run(g, ru)


@numba.njit(cache=True)
def reset_rows(
    st: State,
    ru: Rules,
    rows: np.ndarray,
    seeds: np.ndarray,
    row_keys: np.ndarray,
    episodes: np.ndarray,
    feeds: np.ndarray,
    decks: np.ndarray,
    lengths: np.ndarray,
) -> int:  # pragma: no cover
    """New episodes in games ``rows[i]``: generator ``seed_state(seeds[i], row_keys[i], episodes[i])``,
    or with ``feeds[i]`` shuffles drawn by Python (``resume_rows``); the stacked prefix
    ``decks[i, :lengths[i]]`` on top of the deck (``lengths[i]`` 0: a shuffled deck). Returns how many
    games wait for a shuffle from Python."""
    waiting = 0
    for i in range(len(rows)):
        g = st[rows[i]]
        g.seed = seeds[i]
        g.row_key = row_keys[i]
        g.episode = episodes[i]
        g.rng = core.seed_state(g.seed, g.row_key, g.episode)
        g.feed = feeds[i]
        g.rewards[:] = 0.0
        g.terminated = False
        _new_episode(g, ru, decks[i], lengths[i])
        _run(g, ru)
        waiting += g.resume != R_NONE
    return waiting


@numba.njit(cache=True)
def resume_rows(st: State, ru: Rules, rows: np.ndarray, perms: np.ndarray) -> int:  # pragma: no cover
    """Fed games ``rows[i]`` waiting for a shuffle take ``perms[i, :dlen - stacked]`` (Python's draw of
    ``rng.permutation``, the scalar ``Deck``'s shuffle) and play on to the next action or shuffle.
    Returns how many games wait for a shuffle again."""
    waiting = 0
    for i in range(len(rows)):
        g = st[rows[i]]
        _permute_tail(g, perms[i])
        _continue(g, ru)
        _run(g, ru)
        waiting += g.resume != R_NONE
    return waiting


@numba.njit(inline="always")
def _step_row(
    st: State, ru: Rules, actions: np.ndarray, moving: np.ndarray, autoreset: bool, b: int
) -> int:  # pragma: no cover
    """``step``'s work on game b (its record only: rows may run at once); 1 when it waits for a shuffle
    from Python."""
    g = st[b]
    g.rewards[:] = 0.0
    over = g.current_player < 0
    g.terminated = over
    if over or not moving[b]:
        return 0
    _apply(g, ru, actions[b])
    _run(g, ru)
    if g.resume != R_NONE:
        return 1
    if autoreset and g.current_player < 0:
        _restart(g, ru)
    return 0


@numba.njit
def _step_range(
    st: State, ru: Rules, actions: np.ndarray, moving: np.ndarray, autoreset: bool, lo: int, hi: int
) -> int:  # pragma: no cover
    """``_step_row`` for games ``lo:hi``: the games that wait for a shuffle. (A parallel chunk's body: a
    call of its own, so that the arrays' reference counts move once a chunk, not once a row, and no
    ``inline`` function lands straight in a ``prange`` body.)"""
    waiting = 0
    for b in range(lo, hi):
        waiting += _step_row(st, ru, actions, moving, autoreset, b)
    return waiting


@numba.njit(cache=True)
def step(
    st: State, ru: Rules, actions: np.ndarray, moving: np.ndarray, autoreset: bool
) -> int:  # pragma: no cover
    """One action per live game with ``moving[b]`` (legal: the caller checks against the mask): the
    rewards of this step, ``terminated`` (a game over or not moving reports "over"), the new masks.
    With ``autoreset`` a game that ends starts its next episode at once (``_restart``). Returns how many
    fed games wait for a shuffle from Python (``resume_rows``). (The loop written out: ``_step_row``'s
    work, as it was before the parallel entry; inlined, it measured about 10% slower.)"""
    waiting = 0
    for b in range(len(actions)):
        g = st[b]
        g.rewards[:] = 0.0
        over = g.current_player < 0
        g.terminated = over
        if over or not moving[b]:
            continue
        _apply(g, ru, actions[b])
        _run(g, ru)
        if g.resume != R_NONE:
            waiting += 1
        elif autoreset and g.current_player < 0:
            _restart(g, ru)
    return waiting


@numba.njit(cache=True, parallel=True)
def step_parallel(
    st: State, ru: Rules, actions: np.ndarray, moving: np.ndarray, autoreset: bool, chunks: int
) -> int:  # pragma: no cover
    """``step`` with the games in ``chunks`` chunks spread over numba's threads (``core.threads``): each
    touches only its own record, so any thread count plays the same games bit for bit (the count of
    waiting games is an integer sum, exact in any order)."""
    waiting = 0
    B = len(actions)
    for c in numba.prange(chunks):
        waiting += _step_range(st, ru, actions, moving, autoreset, c * B // chunks, (c + 1) * B // chunks)
    return waiting
