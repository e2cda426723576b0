"""The Kakeya rules engine: a phase state machine, pure Python (docs/kakeya.md, the sections from
docs/kakeya.md#seats-and-partnerships to docs/kakeya.md#rewards).

Per deal: TRUMP (the first dealer may change the trump, before any card is dealt:
docs/kakeya.md#trump-and-rensho) -> deal (docs/kakeya.md#deal) -> LEAD (a seat of the leading
partnership picks LEAD_SELF / LEAD_PARTNER: docs/kakeya.md#lead) -> PLAY (tricks: docs/kakeya.md#play)
-> scoring (docs/kakeya.md#scoring-a-deal, docs/kakeya.md#matches-and-stones) -> next deal or the end
of the match.

The engine makes the choices of docs/kakeya.md#choices:
- the stacked deck of ``reset`` is the deal order of the FIRST deal; later deals are
  seeded shuffles (docs/kakeya.md#deal);
- each deal's first dealer chooses the trump; the trump carries over between deals
  (docs/kakeya.md#trump-and-rensho);
- all_play with two losing partnerships: the loser with fewer egara deals next
  (tie: lower partnership index); after a deal nobody wins, the same partnership deals
  again and the lead goes as in a first deal (docs/kakeya.md#matches-and-stones);
- the lead chooser is the first seat after the first dealer (in seat order) that
  belongs to the leading partnership (the last deal's winners; in a first deal or after
  a deal nobody won, the partnership of the first playing seat after the first dealer)
  (docs/kakeya.md#lead);
- Rensho led calls for its natural suit (docs/kakeya.md#play).

Following suit with Rensho is the option ``rensho_follow`` (docs/kakeya.md#play): ``"free"``
(default) or ``"must_follow"``; ``tricks.legal_plays`` is the one place it is applied.
"""

from __future__ import annotations

from collections import deque
from enum import IntEnum

import numpy as np

from kabu_envs.core.errors import IllegalActionError
from kabu_envs.core.rng import ordered_deck, validate_deck_prefix
from kabu_envs.kakeya import scoring
from kabu_envs.kakeya.actions import LEAD_PARTNER, LEAD_SELF, NUM_ACTIONS, TRUMP_BASE, action_name
from kabu_envs.kakeya.cards import NUM_CARDS, NUM_EGARA, NUM_RANKS, NUM_SUITS, bits_to_cards, egara16
from kabu_envs.kakeya.config import Config
from kabu_envs.kakeya.events import DealResult
from kabu_envs.kakeya.tricks import Trick, legal_plays, rensho_card


class Phase(IntEnum):
    """Whose decision the game waits for (the observation's ``phase`` one-hot, in this order)."""

    TRUMP = 0  # the first dealer: TRUMP(suit), before any card is dealt
    LEAD = 1  # the lead chooser: LEAD_SELF or LEAD_PARTNER
    PLAY = 2  # the seat to play: PLAY(card)
    OVER = 3  # the match is over


# ``Game.phase`` always holds one of these members, so the hot paths test it with ``is`` (an identity
# test: faster than ``==`` on an IntEnum, whose comparisons miss CPython's exact-int fast paths).
_TRUMP, _LEAD, _PLAY = Phase.TRUMP, Phase.LEAD, Phase.PLAY
_TRUMP_BITS = ((1 << NUM_SUITS) - 1) << TRUMP_BASE  # TRUMP(suit) for every suit
_LEAD_BITS = (1 << LEAD_SELF) | (1 << LEAD_PARTNER)


def partnership_of(seat: int, num_players: int) -> int:
    """The partnership of ``seat``: seat i is in partnership ``i % (n // 2)``
    (docs/kakeya.md#seats-and-partnerships)."""
    return seat % (num_players // 2)


def partnership_seats(partnership: int, num_players: int) -> list[int]:
    """The seats of ``partnership``, ascending: partners sit ``n // 2`` seats apart
    (docs/kakeya.md#seats-and-partnerships).

    With relative seats (0 = me) it also gives my partnership's relative seats: ``[0, n // 2]``.
    """
    return list(range(partnership, num_players, num_players // 2))


# How many finished deals ``Game.results`` keeps (the latest): a match of any ``max_deals`` stores a
# bounded history; ``deal_no``, ``deals_won`` and ``egara_totals`` count every deal (docs/kakeya.md#rewards).
RESULTS_KEPT = 16


class Game:
    """One match of Kakeya (``max_deals`` deals) driven by integer actions."""

    num_actions = NUM_ACTIONS

    phase: Phase  # set by the deal and by every phase change

    def __init__(self, cfg: Config, rng: np.random.Generator, deck: list[int] | None = None) -> None:
        self.cfg = cfg
        self.rng = rng
        self._rensho_follow = cfg.rensho_follow
        self.num_players = n = cfg.num_players
        self.num_partnerships = cfg.num_partnerships
        self._deck_prefix = validate_deck_prefix(deck, NUM_CARDS) if deck is not None else []
        self.stones = [cfg.stones_per_player] * n
        self.partnership_totals = [self.partnership_stones(p) for p in range(self.num_partnerships)]
        self.trump = cfg.default_trump_suit
        self.deal_no = 0  # deals finished so far
        self.dealer_partnership = self.num_partnerships - 1
        self.lead_partnership = -1  # last deal's winners (-1: none yet)
        self.results: deque[DealResult] = deque(maxlen=RESULTS_KEPT)  # the latest finished deals
        self.deals_won = [0] * self.num_partnerships  # deals each partnership won, this match
        self.egara_totals = [0] * self.num_partnerships  # egara each partnership took, this match
        self.terminal = False
        self.current_player = -1
        self._rewards = np.zeros(n, dtype=np.float64)
        self.zero_rewards = np.zeros(n, dtype=np.float64)  # returned (read-only) when nothing was paid
        self.zero_rewards.flags.writeable = False
        self._paid = False
        self._start_deal()

    # --- engine interface -------------------------------------------------------
    def legal_bits(self) -> int:
        """The legal actions as an int bit set: the ONE source of legality."""
        phase = self.phase
        if phase is _PLAY:
            return legal_plays(
                self.hands[self.current_player], self.led_suit, self.rensho, self._rensho_follow
            )
        if phase is _TRUMP:
            return _TRUMP_BITS
        if phase is _LEAD:
            return _LEAD_BITS
        return 0

    def legal_actions(self) -> list[int]:
        return bits_to_cards(self.legal_bits())

    def action_name(self, action: int) -> str:
        """The action's name (``PLAY(5H)``), for the errors of the env and the views."""
        return action_name(action)

    def apply_action(self, action: int) -> None:
        a = int(action)
        if a < 0 or not (self.legal_bits() >> a) & 1:
            raise IllegalActionError(
                a,
                self.legal_actions(),
                phase=self.phase.name.lower(),
                seat=None if self.terminal else self.current_player,
                describe=action_name,
            )
        phase = self.phase
        if phase is _PLAY:
            self._play(self.current_player, a)
        elif phase is _TRUMP:
            self.trump = a - TRUMP_BASE
            self._deal()
        else:
            chooser = self.current_player
            self.lead_chooser = chooser
            n = self.num_players
            partner = next(s for s in partnership_seats(partnership_of(chooser, n), n) if s != chooser)
            leader = chooser if a == LEAD_SELF else partner
            self.phase = Phase.PLAY
            self._start_trick(leader)

    def pop_rewards(self) -> np.ndarray:
        if not self._paid:
            return self.zero_rewards
        out = self._rewards.copy()
        self._rewards[:] = 0.0
        self._paid = False
        return out

    # --- deal set-up ---------------------------------------------------------------
    def partnership_stones(self, partnership: int) -> int:
        return sum(self.stones[s] for s in partnership_seats(partnership, self.num_players))

    def _start_deal(self) -> None:
        cfg = self.cfg
        n = self.num_players
        self.first_dealer = partnership_seats(self.dealer_partnership, n)[0]  # the dealers' lower seat
        sit_out = cfg.dealers_sit_out
        self.active = [not (sit_out and partnership_of(s, n) == self.dealer_partnership) for s in range(n)]
        # seat p is in partnership p, so partnership p plays when seat p does
        self.playing_partnerships = [p for p in range(self.num_partnerships) if self.active[p]]
        self.hands = [0] * n
        self.dealt = [0] * n
        self.hand_counts = [0] * n
        self.played = 0
        self.captured = [0] * self.num_partnerships
        self.egara_packed = 0  # egara16(captured[p]) << NUM_EGARA * p, for the encoder
        self.void_bits = 0  # the suits seat s has shown out of, << NUM_SUITS * s
        self.trick: Trick | None = None  # the trick in play (None outside trick play)
        self.last_trick: Trick | None = None
        self.lead_chooser = -1
        self.tricks_played = 0
        self._set_rensho()
        if cfg.dealers_choose_trump:
            self.phase = Phase.TRUMP
            self.current_player = self.first_dealer
        else:
            self._deal()

    def _set_rensho(self) -> None:
        self.rensho = rensho_card(self.trump, self.cfg.rensho_rule)

    def _seats_after(self, seat: int) -> list[int]:
        n = self.num_players
        return [(seat + k) % n for k in range(1, n + 1)]

    def _deal(self) -> None:
        """Deal one card at a time from the seat after the first dealer, in seat order."""
        self._set_rensho()
        prefix = self._deck_prefix if self.deal_no == 0 else []
        deck = ordered_deck(self.rng, NUM_CARDS, prefix)
        receivers = [s for s in self._seats_after(self.first_dealer) if self.active[s]]
        num_receivers = len(receivers)
        hands = self.hands
        for i, card in enumerate(deck):
            hands[receivers[i % num_receivers]] |= 1 << card
        self.dealt = hands[:]
        self.hand_counts = [h.bit_count() for h in hands]
        n = self.num_players
        leading = self.lead_partnership if self.lead_partnership >= 0 else partnership_of(receivers[0], n)
        self.lead_chooser = next(s for s in receivers if partnership_of(s, n) == leading)
        self.phase = Phase.LEAD
        self.current_player = self.lead_chooser

    # --- play ----------------------------------------------------------------------
    @property
    def led_suit(self) -> int:
        """Suit led in the current trick (-1 before the lead or outside trick play)."""
        return self.trick.led_suit if self.trick is not None else -1

    def _start_trick(self, leader: int) -> None:
        n = self.num_players
        counts = self.hand_counts
        self.trick = Trick(leader, [s for s in ((leader + k) % n for k in range(n)) if counts[s]])
        self.current_player = leader

    def _play(self, seat: int, card: int) -> None:
        bit = 1 << card
        self.hands[seat] ^= bit
        self.hand_counts[seat] -= 1
        self.played |= bit
        trick = self.trick
        assert trick is not None  # PLAY is the phase of a trick in play
        led = trick.led_suit
        # a seat that does not follow, with a card other than Rensho, shows out of the led suit: it
        # holds no card of it, except (with rensho_follow="free") perhaps Rensho itself (docs/kakeya.md#play)
        if led >= 0 and card // NUM_RANKS != led and card != self.rensho:
            self.void_bits |= 1 << (NUM_SUITS * seat + led)
        trick.add(seat, card)
        if not trick.complete:
            self.current_player = trick.next_seat
            return
        self._finish_trick(trick)

    def _finish_trick(self, trick: Trick) -> None:
        winner = trick.resolve(self.trump, self.rensho)
        won = trick.egara_bits()
        if won:
            p = partnership_of(winner, self.num_players)
            self.captured[p] |= won
            self.egara_packed |= egara16(won) << (NUM_EGARA * p)
        self.tricks_played += 1
        self.last_trick = trick
        counts = self.hand_counts
        if not any(counts):
            self.trick = None
            self._end_deal()
            return
        n = self.num_players
        leader = winner
        while not counts[leader]:  # all_play: a winner with no card passes the lead on
            leader = (leader + 1) % n
        self._start_trick(leader)

    # --- scoring -------------------------------------------------------------------
    def _end_deal(self) -> None:
        cfg = self.cfg
        n = self.num_players
        playing = self.playing_partnerships
        captured = self.captured
        winner = scoring.deal_winner(captured, playing, self.rensho, cfg.all_play)
        egara = {p: scoring.egara_count(captured[p]) for p in playing}
        change = dict.fromkeys(playing, 0)
        if winner >= 0:
            amount = scoring.stones_won(captured[winner], self.trump, self.rensho)
            losers = [p for p in playing if p != winner]
            owed = scoring.shares(amount, losers, egara, cfg.all_play_payment == "shared")
            for p in losers:
                moved = scoring.pay(
                    self.stones, partnership_seats(p, n), partnership_seats(winner, n), owed[p]
                )
                change[p] -= moved
                change[winner] += moved
        reward = change if cfg.reward == "stones" else scoring.egara_rewards(egara)  # per partnership
        for p in playing:
            for s in partnership_seats(p, n):
                self._rewards[s] += reward[p]
        self._paid = True
        self.partnership_totals = [self.partnership_stones(p) for p in range(self.num_partnerships)]
        self.results.append(
            DealResult(
                self.deal_no,
                self.dealer_partnership,
                self.first_dealer,
                self.trump,
                self.rensho,
                egara,
                winner,
                change,
            )
        )
        for p in playing:
            self.egara_totals[p] += egara[p]
        self.deal_no += 1
        if winner >= 0:
            self.deals_won[winner] += 1
            losers = [p for p in playing if p != winner]
            self.dealer_partnership = min(losers, key=lambda p: (egara[p], p))
        self.lead_partnership = winner
        broke = 0 in self.partnership_totals
        if self.deal_no >= cfg.max_deals or broke:
            self.phase = Phase.OVER
            self.terminal = True
            self.current_player = -1
        else:
            self._start_deal()
