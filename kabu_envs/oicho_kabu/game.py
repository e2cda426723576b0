"""The Oicho-Kabu state machine (docs/oicho_kabu.md#a-round, docs/oicho_kabu.md#sessions-and-dealer-rotation):
pure Python, one legal-actions/apply pair per phase.

A ``Game`` is one episode: dealer selection, then ``max_rounds`` rounds (or until fewer than two seats
have chips); with ``dealer_selection_each_deal`` every round starts with its own selection draws.
Chance steps (dealing, reshuffles) run inside ``apply_action``; the game stops only where a seat must
decide. Cards leave the deck exactly in the order of docs/oicho_kabu.md#a-round, so stacked decks work.

Choices the sources leave open (docs/oicho_kabu.md#choices; see also ``session.py`` and ``deck.py``):
- Bets are asked bettor by bettor in ``betting_order``: the first bettor (the seat after the dealer;
  with ``dealer_selection_each_deal`` the best selection card after the dealer's) stakes on spreads
  0..3, then the next bettor, and so on. A seat with no chips (chips <= 0) sits the round out: no info
  card, no BET turns. A seat with chips is always asked, even when only ``BET(0)`` fits.
- Chips may go negative (a bettor can lose stake x 5 to an arashi-kabu); such a seat cannot bet.
- Every spread gets its second card (docs/oicho_kabu.md#a-round, step 8) even when unbacked; unbacked
  spreads are not settled. With ``unbacked_spread_card`` (the encyclopedia text) each unbacked spread is
  turned up and dealt one face-up card once the backed spreads have decided, in spread order, before
  the dealer's second card (docs/oicho_kabu.md#unbacked-spreads).
- If nobody stakes anything the round ends after the bets with no payment.
- The minso question is asked only while redeals are left (``minso_limit``); a triple-table redeal
  (and a minso redeal) returns the four table cards, reshuffles and deals the table again; info cards stay.
- ``dealer_second_card_face_up``: when on, at step 10 the dealer's first card is turned up and the
  second dealt face up (everyone sees both); when off only the dealer sees them until the showdown.
- The dealer is asked STAND/DRAW whenever at least one spread is backed.
- Backed spreads decide in spread order, or with ``decision_order="asking"`` decider by decider in
  betting order (docs/oicho_kabu.md#decision-order).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from enum import IntEnum

import numpy as np

from kabu_envs.core.errors import IllegalActionError
from kabu_envs.oicho_kabu import events, rules
from kabu_envs.oicho_kabu.actions import (
    BET_BASE,
    CHOICE_ACTIONS,
    DRAW,
    ESCAPE,
    KEEP,
    REDEAL,
    STAND,
    Action,
    action_name,
    num_actions,
)
from kabu_envs.oicho_kabu.config import Config
from kabu_envs.oicho_kabu.deck import VALUES, Deck
from kabu_envs.oicho_kabu.session import (
    dealer_must_change,
    next_dealer,
    seat_order,
    select_dealer,
    selection_cards,
)

NUM_SPREADS = 4  # spreads on the table, always four
MAX_CARDS = 3  # cards in a hand at most: two, and a drawn third

# spread_state values
UNDECIDED, STOOD, DREW, ESCAPED = 0, 1, 2, 3


class Phase(IntEnum):
    """Whose decision the game waits for."""

    MINSO = 0  # dealer: KEEP or REDEAL the table
    BET = 1  # bettor: BET(k) on ``active_spread``
    DEALER_CHOICE = 2  # dealer: TAKE_TOP / TAKE_BOTTOM / TAKE_FOURTH for card ``choice_slot``
    DECIDE = 3  # decider of ``active_spread``: STAND / DRAW / ESCAPE
    DEALER_DRAW = 4  # dealer: STAND / DRAW
    OVER = 5  # episode finished


class Game:
    """One Oicho-Kabu episode. ``deck_prefix``: card ids drawn first, in order (a stacked deck)."""

    def __init__(self, cfg: Config, rng: np.random.Generator, deck_prefix: Sequence[int] | None = None):
        self.cfg = cfg
        self.rng = rng
        self.num_players = n = cfg.num_players
        self.bet_sizes: tuple[int, ...] = tuple(cfg.bet_sizes)
        self.num_actions = num_actions(len(self.bet_sizes))
        self.deck = Deck(rng, deck_prefix)
        self.chips: list[int] = [cfg.bankroll] * n
        self.round_index = 0  # rounds finished
        self.terminal = False
        self.current_player = -1
        self.phase = Phase.OVER
        self._rewards = np.zeros(n, dtype=np.float64)
        self._paid = False
        # This deal's events only (docs/oicho_kabu.md#sessions-and-dealer-rotation): cleared at the next deal,
        # so a long episode (``max_rounds`` up to 2**31 - 1) stores a bounded amount.
        self.log: list[events.Event] = []
        # Bumped whenever anything but the stakes can change: from one BET turn to the next only the
        # stakes move, which lets the observation encoder reuse the rest (see observation.Encoder).
        self.version = 0
        self.dealer = 0  # chosen by the selection draws of the first deal unless dealer_selection="fixed"
        # Each seat's public selection card of this deal (-1: no selection this deal, or no chips).
        self.selection_cards: list[int] = [-1] * n
        self.deals_by_dealer = 0
        self.dealer_start_chips = self.chips[self.dealer]
        # The table as the last finished round left it (its showdown), kept while the next round is
        # played: the next deal follows the showdown in the same step, and a person must see the
        # showdown before that deal (``view.OichoViewer.round_end_env``). A read-only copy, never stepped.
        self.round_end: Game | None = None
        self.is_round_end = False  # True only on such a copy
        self._start_round()

    # --- public API ------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        return list(self._legal)

    def apply_action(self, action: int) -> None:
        action = operator.index(action)  # ints and numpy ints; a float raises TypeError, never rounds
        if action not in self._legal:
            raise IllegalActionError(
                action,
                self._legal,
                phase=self.phase.name,
                seat=None if self.terminal else self.current_player,
                describe=self.action_name,
            )
        self._APPLY[self.phase](self, action)

    def pop_rewards(self) -> np.ndarray:
        """Chips won or lost since the last call (paid when a round ends), then cleared."""
        if not self._paid:
            return np.zeros(self.num_players)
        out = self._rewards
        self._rewards = np.zeros(self.num_players)
        self._paid = False
        return out

    def action_name(self, action: int) -> str:
        return action_name(action, self.bet_sizes)

    def clone(self, rng: np.random.Generator) -> Game:
        """An independent copy of this state for simulation (a planner's what-if), with its own
        generator ``rng`` (never this game's, whose state decides future shuffles) and an empty log.

        Cheaper than ``copy.deepcopy`` (which would rebuild and re-validate the config).
        """
        g = object.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.rng = rng
        deck = object.__new__(Deck)
        deck.cards, deck.top, deck.stacked, deck.rng = (
            list(self.deck.cards),
            self.deck.top,
            self.deck.stacked,
            rng,
        )
        g.deck = deck
        for name in (
            "chips",
            "selection_cards",
            "betting_order",
            "info_cards",
            "spread_total",
            "seat_total",
            "decider",
            "spread_state",
            "dealer_cards",
            "results",
            "round_rewards",
            "_legal",
        ):
            setattr(g, name, list(getattr(self, name)))
        g.spreads = [list(sp) for sp in self.spreads]
        g.stakes = [list(st) for st in self.stakes]
        g._rewards = self._rewards.copy()
        g.log = []
        return g

    def cards_in_play(self) -> list[int]:
        """Every card of the current round that left the deck (info, table, dealer)."""
        out = [c for c in self.info_cards if c >= 0]
        for sp in self.spreads:
            out.extend(sp)
        out.extend(self.dealer_cards)
        return out

    # --- round flow ------------------------------------------------------------------
    def _start_round(self) -> None:
        self.version += 1
        cfg, n, chips = self.cfg, self.num_players, self.chips
        if self.round_index > 0:
            self.deck.fresh()
        each_deal = cfg.dealer_selection_each_deal
        self.selection_cards = [-1] * n
        if cfg.dealer_selection != "fixed" and (each_deal or self.round_index == 0):
            self._select([seat for seat in range(n) if chips[seat] > 0])
        dealer = self.dealer
        if each_deal:
            self.betting_order = seat_order(cfg.dealer_selection, self.selection_cards, dealer)
        else:
            self.betting_order = [(dealer + i) % n for i in range(1, n) if chips[(dealer + i) % n] > 0]
        self.info_cards = [-1] * n
        self.spreads: list[list[int]] = [[], [], [], []]
        self.stakes: list[list[int]] = [[0] * n for _ in range(NUM_SPREADS)]
        self.spread_total = [0] * NUM_SPREADS
        self.seat_total = [0] * n
        self.round_total = 0
        self.decider = [-1] * NUM_SPREADS
        self.spread_state = [UNDECIDED] * NUM_SPREADS
        self.dealer_cards: list[int] = []
        self.dealer_revealed = False
        self.showdown = False
        self.voided = False
        self.results: list[int | None] = [None] * NUM_SPREADS
        self.round_rewards = [0] * n
        self.minso_redeals = 0
        self.active_spread = -1
        self.choice_slot = -1
        self._bet_i = 0
        self.log.append(events.Round(self.round_index + 1, dealer))
        if self.cfg.info_cards:
            for seat in self.betting_order:
                self.info_cards[seat] = self.deck.draw()
        self._deal_table()
        if self.cfg.minso and self.cfg.minso_limit > 0:
            self._wait(Phase.MINSO, dealer, [KEEP, REDEAL])
        else:
            self._table_final()

    def _select(self, seats: list[int]) -> None:
        """Selection draws (docs/oicho_kabu.md#seats-roles-table-limit): the dealer of this deal and the
        public selection cards. A seat chosen again keeps its tenure (``deals_by_dealer``); a new dealer
        starts one."""
        dealer, draws = select_dealer(self.cfg.dealer_selection, self.deck, seats)
        self.log.append(events.Select(tuple(draws), dealer))
        self.selection_cards = selection_cards(draws, self.num_players)
        if dealer != self.dealer or self.round_index == 0:
            self.dealer = dealer
            self.deals_by_dealer = 0
            self.dealer_start_chips = self.chips[dealer]

    def _deal_table(self) -> None:
        draw = self.deck.draw
        while True:
            table = [draw() for _ in range(NUM_SPREADS)]
            if not (self.cfg.redeal_on_triple_table and _has_triple(table)):
                break
            self.log.append(events.TripleRedeal(tuple(table)))
            self.deck.reshuffle(table)
        self.spreads = [[c] for c in table]
        self.log.append(events.Table(tuple(table)))

    def _table_final(self) -> None:
        if self.cfg.dealer_first_card == "before_bets":
            self._dealer_card(0)
        else:
            self._start_bets()

    def _dealer_card(self, slot: int) -> None:
        if self.cfg.dealer_card_choice:
            self.choice_slot = slot
            self._wait(Phase.DEALER_CHOICE, self.dealer, list(CHOICE_ACTIONS))
        else:
            self.dealer_cards.append(self.deck.draw())
            self._after_dealer_card(slot)

    def _after_dealer_card(self, slot: int) -> None:
        if slot == 1:
            self._wait(Phase.DEALER_DRAW, self.dealer, self._draw_legal(self.dealer_cards, "dealer"))
        elif self.cfg.dealer_first_card == "before_bets":
            self._start_bets()
        else:
            self._second_cards()

    def _start_bets(self) -> None:
        self._bet_i = 0
        self.active_spread = 0
        self._ask_bet()

    def _ask_bet(self) -> None:
        seat = self.betting_order[self._bet_i]
        room = min(self.cfg.domae - self.round_total, self.chips[seat] - self.seat_total[seat])
        legal = [BET_BASE]
        for k, size in enumerate(self.bet_sizes, 1):
            if size <= room:
                legal.append(BET_BASE + k)
        self._wait(Phase.BET, seat, legal)

    def _end_bets(self) -> None:
        self.active_spread = -1
        if self.round_total == 0:
            self.log.append(events.NoBets())
            self._end_round(final_value=None, lost_all=False)
        elif self.cfg.dealer_first_card == "after_bets":
            self._dealer_card(0)
        else:
            self._second_cards()

    def _second_cards(self) -> None:
        draw = self.deck.draw
        for sp in self.spreads:
            sp.append(draw())
        self.active_spread = -1
        self._next_decision()

    def decision_spreads(self) -> list[int]:
        """The backed spreads in the order they decide (``decision_order``): spread order, or asking
        order (the kabufuda site: the dealer asks the players in turn, each decides his spreads)."""
        backed = [s for s in range(NUM_SPREADS) if self.spread_total[s]]
        if self.cfg.decision_order == "asking":
            pos = {seat: i for i, seat in enumerate(self.betting_order)}
            backed.sort(key=lambda s: pos[self.decider[s]])  # stable: a decider's spreads in spread order
        return backed

    def _next_decision(self) -> None:
        order = self.decision_spreads()
        i = order.index(self.active_spread) + 1 if self.active_spread >= 0 else 0
        if i < len(order):
            s = self.active_spread = order[i]
            self._wait(Phase.DECIDE, self.decider[s], self._draw_legal(self.spreads[s], "bettor"))
        else:
            self.active_spread = -1
            if self.cfg.unbacked_spread_card:
                self._deal_unbacked()
            self.dealer_revealed = True
            self._dealer_card(1)

    def _deal_unbacked(self) -> None:
        """The encyclopedia's "a spread without bets is turned up and one card is dealt to it face up":
        after the draws, spread by spread (0..3, the order the table was dealt), nobody deciding."""
        for s in range(NUM_SPREADS):
            if not self.spread_total[s]:
                sp = self.spreads[s]
                card = self.deck.draw()
                sp.append(card)
                self.log.append(events.Unbacked(s, sp[1], card))

    def turned_up(self, s: int) -> bool:
        """Spread s's second card lies face up: an unbacked spread dealt its card (``unbacked_spread_card``;
        only such a spread holds three cards without a stake)."""
        return not self.spread_total[s] and len(self.spreads[s]) == MAX_CARDS

    def _draw_legal(self, cards: list[int], role: str) -> list[int]:
        stand_ok, draw_ok, escape_ok = rules.draw_options(self.cfg, tuple(cards), role)
        legal = []
        if stand_ok:
            legal.append(STAND)
        if draw_ok:
            legal.append(DRAW)
        if escape_ok and role == "bettor":
            legal.append(ESCAPE)
        return legal

    def _showdown(self) -> None:
        cfg, dealer = self.cfg, self.dealer
        dealer_hand = tuple(self.dealer_cards)
        self.showdown = True
        self.voided = rules.voids_round(cfg, dealer_hand)
        rewards = [0] * self.num_players
        backed = lost = 0
        for s in range(NUM_SPREADS):
            if self.spread_total[s] == 0:
                continue
            backed += 1
            if self.voided or self.spread_state[s] == ESCAPED:
                m = 0
            else:
                m = rules.settle(cfg, dealer_hand, tuple(self.spreads[s]))
            self.results[s] = m
            if m > 0:
                lost += 1
            if m:
                for seat, stake in enumerate(self.stakes[s]):
                    if stake:
                        rewards[seat] += stake * m
                        rewards[dealer] -= stake * m
        self.round_rewards = rewards
        for seat, r in enumerate(rewards):
            self.chips[seat] += r
            self._rewards[seat] += r
        self._paid = True
        self.log.append(events.Showdown(dealer_hand, tuple(self.results), self.voided))
        self._end_round(final_value=rules.hand_value(dealer_hand), lost_all=backed > 0 and lost == backed)

    def _end_round(self, final_value: int | None, lost_all: bool) -> None:
        cfg = self.cfg
        self.version += 1
        self.round_index += 1
        self.deals_by_dealer += 1
        if self.round_index >= cfg.max_rounds or sum(c > 0 for c in self.chips) < 2:
            self.terminal = True
            self.showdown = True
            self.phase = Phase.OVER
            self.current_player = -1
            self._legal: list[int] = []
            self.log.append(events.Over(tuple(self.chips)))
            return
        snap = self.clone(self.rng)  # the showdown, before the next deal replaces it
        snap.round_end, snap.is_round_end = None, True
        snap.terminal, snap.phase, snap.current_player, snap._legal = True, Phase.OVER, -1, []
        self.round_end = snap
        self.log = []  # the next deal's events start here (a dealer change is its first event)
        d = self.dealer
        if cfg.dealer_selection_each_deal:
            # the next deal's selection draws choose its dealer
            # (docs/oicho_kabu.md#sessions-and-dealer-rotation)
            pass
        elif dealer_must_change(
            cfg.dealer_change,
            deals=self.deals_by_dealer,
            max_deals=cfg.dealer_max_deals,
            chips=self.chips[d],
            start_chips=self.dealer_start_chips,
            domae=cfg.domae,
            final_value=final_value,
            lost_all=lost_all,
        ):
            self.dealer = next_dealer(d, self.chips)
            if self.dealer != d:
                self.log.append(events.DealerChange(d, self.dealer))
            self.deals_by_dealer = 0
            self.dealer_start_chips = self.chips[self.dealer]
        self._start_round()

    def _wait(self, phase: Phase, seat: int, legal: list[int]) -> None:
        if phase != Phase.BET or self.phase != Phase.BET:
            self.version += 1
        self.phase = phase
        self.current_player = seat
        self._legal = legal

    # --- one apply function per phase ------------------------------------------------
    def _apply_minso(self, action: int) -> None:
        if action == KEEP:
            self.log.append(events.MinsoKeep())
            self._table_final()
            return
        self.minso_redeals += 1
        table = [sp[0] for sp in self.spreads]
        self.log.append(events.MinsoRedeal(tuple(table)))
        self.deck.reshuffle(table)
        self._deal_table()
        if self.minso_redeals < self.cfg.minso_limit:
            self._wait(Phase.MINSO, self.dealer, [KEEP, REDEAL])
        else:
            self._table_final()

    def _apply_bet(self, action: int) -> None:
        k = action - BET_BASE
        s = self.active_spread
        if k:
            seat = self.current_player
            size = self.bet_sizes[k - 1]
            if self.stakes[s][seat] == 0 and self.decider[s] < 0:
                self.decider[s] = seat
            self.stakes[s][seat] += size
            self.spread_total[s] += size
            self.seat_total[seat] += size
            self.round_total += size
            self.log.append(events.Bet(seat, s, size))
        if s + 1 < NUM_SPREADS:
            self.active_spread = s + 1
        else:
            self._bet_i += 1
            if self._bet_i == len(self.betting_order):
                self._end_bets()
                return
            self.active_spread = 0
        self._ask_bet()

    def _apply_choice(self, action: int) -> None:
        where = CHOICE_ACTIONS.index(action)  # the deck's TAKE_TOP / TAKE_BOTTOM / TAKE_FOURTH
        self.dealer_cards.append(self.deck.take(where))
        self.log.append(events.Take(self.choice_slot, Action(action)))
        self._after_dealer_card(self.choice_slot)

    def _apply_decide(self, action: int) -> None:
        s = self.active_spread
        if action == DRAW:
            card = self.deck.draw()
            self.spreads[s].append(card)
            self.spread_state[s] = DREW
            self.log.append(events.Draw(s, card))
        elif action == ESCAPE:
            self.spread_state[s] = ESCAPED
            self.log.append(events.Escape(s))
        else:
            self.spread_state[s] = STOOD
            self.log.append(events.Stand(s))
        self._next_decision()

    def _apply_dealer_draw(self, action: int) -> None:
        if action == DRAW:
            card = self.deck.draw()
            self.dealer_cards.append(card)
            self.log.append(events.DealerDraw(card))
        else:
            self.log.append(events.DealerStand())
        self._showdown()

    # indexed by Phase (a tuple: an IntEnum dict key would hash in Python on every step)
    _APPLY = (_apply_minso, _apply_bet, _apply_choice, _apply_decide, _apply_dealer_draw)


def _has_triple(table: list[int]) -> bool:
    """Three or more of the four table cards share a value (Kansai redeal rule)."""
    values = [VALUES[c] for c in table]
    return any(values.count(v) >= 3 for v in values[:2])
