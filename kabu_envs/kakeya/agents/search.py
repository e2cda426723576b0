"""Perfect-information Kakeya: fast play-outs and an exact double-dummy solver on card bit sets.

The expert (``kabu_envs/kakeya/agents/expert.py``) evaluates its candidate cards on sampled deals, where every
hand is known; this module plays such a deal out. Seats and partnerships are relative to the deciding
seat (0 = me, partnership 0 = mine; seat k is in partnership ``k % (n // 2)``). Hands, captured egara
and trick cards are 52-bit ints (``kabu_envs.kakeya.cards``).

* ``Position``: a deal in progress: hands, captured egara, played cards, voids, the current trick.
* ``DealSim.policy``: the scripted player's rules of thumb (``scripted.py``) on bit sets,
  seeing what that seat would see (its hand and the public cards): the play-out policy.
* ``DealSim.playout``: plays a position to the end with the policy, returns my partnership's value.
* ``DealSim.solve``: the exact value of each candidate card when every seat plays perfectly on the
  known hands (alpha-beta over bit sets, a transposition table at trick starts keyed on the hands, the
  leader and what the captured egara can still matter for, equivalent low cards searched once). My
  partnership maximises, every other playing partnership minimises (exact for two sides; the usual
  "paranoid" reduction with three sides in ``all_play``).

The value of a finished deal is the reward the env pays my seat: the exact stones
(docs/kakeya.md#scoring-a-deal and docs/kakeya.md#matches-and-stones: more egara wins, the 8-8 rule,
the stones table, a partnership pays at most what it has) or, with ``reward="egara"``, the egara
difference / 16 (docs/kakeya.md#rewards).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kabu_envs.kakeya.cards import (
    ACE_MASK,
    EGARA_MASK,
    JACK,
    NUM_CARDS,
    NUM_EGARA,
    NUM_RANKS,
    NUM_SUITS,
    SUIT_MASK,
    bits_to_cards,
)
from kabu_envs.kakeya.scoring import STONES_TABLE, stones_column, stones_row

_SUIT = tuple(c // NUM_RANKS for c in range(NUM_CARDS))
_RANK = tuple(c % NUM_RANKS for c in range(NUM_CARDS))
_ALL = (1 << NUM_CARDS) - 1
# cards above c in c's suit
_ABOVE = tuple(SUIT_MASK[c // NUM_RANKS] & ~((2 << c) - 1) for c in range(NUM_CARDS))
_NO_EGARA = _ALL & ~EGARA_MASK
_INF = float("inf")


@dataclass
class Position:
    """A deal in progress, every hand known (relative seats; see the module docstring).

    ``order`` is the current trick's seats in play order and ``pos`` the index of the seat to play;
    ``trick`` holds the cards already played to it, in that order.
    """

    hands: list[int]
    captured: list[int]  # per relative partnership: egara taken
    played: int
    voids: list[int]  # per seat: 4-bit mask of the suits it has shown out of (the policy's lead reads it)
    order: list[int]
    trick: list[int] = field(default_factory=list)

    @property
    def pos(self) -> int:
        return len(self.trick)

    def copy(self) -> Position:
        return Position(
            self.hands[:], self.captured[:], self.played, self.voids[:], self.order[:], self.trick[:]
        )


def trick_order(leader: int, hands: list[int]) -> list[int]:
    """Seats that play a trick led by ``leader``: every seat holding a card, in seat order."""
    n = len(hands)
    return [s for s in ((leader + k) % n for k in range(n)) if hands[s]]


class DealSim:
    """One deal's fixed facts (table size, trump, Rensho, who plays, stakes) and the search over them.

    ``stones[p]``: relative partnership p's stones before the deal (a partnership pays at most what it
    has); ``playing``: the relative partnerships in the deal.
    """

    def __init__(
        self,
        num_players: int,
        trump: int,
        rensho: int,
        rensho_free: bool,
        playing: tuple[int, ...],
        stones: tuple[int, ...],
        all_play: bool,
        reward: str = "stones",
        rensho_min_egara: int = 2,
    ) -> None:
        self.n = n = num_players
        self.m = m = n // 2
        self.trump = trump
        self.rensho = rensho
        self.rbit = 1 << rensho
        self.free = rensho_free
        self.playing = playing
        self.stones = stones
        self.all_play = all_play
        self.reward = reward
        self.rensho_min_egara = rensho_min_egara
        self.part = tuple(k % m for k in range(n))
        self.opponents = tuple(tuple(j for j in range(n) if j % m != k % m) for k in range(n))
        self.trump_mask = SUIT_MASK[trump]
        tm, no_rensho = self.trump_mask, ~self.rbit
        # ``_low``'s categories, in order: plain non-egara, trump non-egara, plain egara, trump egara
        self.low_order = (
            _NO_EGARA & ~tm & no_rensho,
            _NO_EGARA & tm & no_rensho,
            EGARA_MASK & ~tm & no_rensho,
            EGARA_MASK & tm & no_rensho,
        )
        self.rotations = tuple(tuple((s + k) % n for k in range(n)) for s in range(n))
        # trick-winner keys per led suit: Rensho 1000, a trump 100 + rank, the led suit its rank, else -1
        self.keys = tuple(
            tuple(
                1000
                if c == rensho
                else 100 + _RANK[c]
                if _SUIT[c] == trump
                else _RANK[c]
                if _SUIT[c] == led
                else -1
                for c in range(NUM_CARDS)
            )
            for led in range(NUM_SUITS)
        )
        self._values: dict[tuple[tuple[int, int], ...], float] = {}

    # --- scoring -------------------------------------------------------------------------------------
    def cap_key(self, captured: list[int]) -> tuple[tuple[int, int], ...]:
        """What the captured egara can still matter for: each partnership's egara count and aces."""
        return tuple(((c & EGARA_MASK).bit_count(), c & ACE_MASK) for c in captured)

    def value(self, captured: list[int]) -> float:
        """My partnership's reward for a finished deal with these captured egara."""
        return self.value_of(self.cap_key(captured))

    def value_of(self, key: tuple[tuple[int, int], ...]) -> float:
        v = self._values.get(key)
        if v is None:
            v = self._values[key] = self._score(key)
        return v

    def _score(self, key: tuple[tuple[int, int], ...]) -> float:
        playing = self.playing
        if 0 not in playing:
            return 0.0
        counts = {p: key[p][0] for p in playing}
        if self.reward == "egara":
            others = [counts[p] for p in playing if p != 0]
            return (counts[0] - sum(others) / len(others)) / NUM_EGARA
        if self.all_play:
            winner = next((p for p in playing if counts[p] >= 9), -1)
        else:
            a, b = playing
            if counts[a] != counts[b]:
                winner = a if counts[a] > counts[b] else b
            else:  # 8-8: the side without Rensho wins
                winner = b if key[a][1] & self.rbit else a
        if winner < 0:
            return 0.0
        amount = STONES_TABLE[stones_row(key[winner][1], self.trump, self.rensho)][
            stones_column(counts[winner])
        ]
        assert amount is not None  # the table's impossible cells cannot be reached
        if winner == 0:
            return float(sum(min(amount, self.stones[p]) for p in playing if p != 0))
        return -float(min(amount, self.stones[0]))

    # --- the trick in progress -------------------------------------------------------------------------
    def legal(self, hand: int, led: int) -> int:
        """``tricks.legal_plays`` on bits (led < 0: leading)."""
        if led < 0:
            return hand
        follow = hand & SUIT_MASK[led]
        rb = hand & self.rbit
        if self.free:
            follow &= ~rb
        return (follow | rb) if follow else hand

    def winner_so_far(self, order: list[int], trick: list[int]) -> tuple[int, int, int]:
        """(seat, card, key) of the card winning the trick so far."""
        keys = self.keys[_SUIT[trick[0]]]
        best = 0
        for i in range(1, len(trick)):
            if keys[trick[i]] > keys[trick[best]]:
                best = i
        return order[best], trick[best], keys[trick[best]]

    # --- the play-out policy -------------------------------------------------------------------------
    def _low(self, legal: int) -> int:
        """The card I least mind losing: plain non-egara, trump non-egara, plain egara, trump egara,
        Rensho; the lowest rank first (ties: the lower suit)."""
        for cat in self.low_order:
            cards = legal & cat
            if cards:
                return _lowest_rank(cards)
        return self.rensho

    def policy(self, pos: Position) -> int:
        """The card the seat to play chooses by the scripted rules of thumb, from its own view."""
        seat = pos.order[pos.pos]
        hand = pos.hands[seat]
        trick = pos.trick
        led = _SUIT[trick[0]] if trick else -1
        legal = self.legal(hand, led)
        if not legal & (legal - 1):
            return legal.bit_length() - 1
        if not trick:
            return self._lead(seat, legal, pos.played | hand, pos.voids)
        win_seat, win_card, _ = self.winner_so_far(pos.order, trick)
        last = pos.pos == len(pos.order) - 1
        egara_in_trick = sum(1 for c in trick if _RANK[c] >= JACK)
        return self._follow(seat, legal, led, win_seat, win_card, last, egara_in_trick)

    def _follow(
        self, seat: int, legal: int, led: int, win_seat: int, win_card: int, last: bool, egara_in_trick: int
    ) -> int:
        rb, tm = self.rbit, self.trump_mask
        partner_winning = win_seat != seat and self.part[win_seat] == self.part[seat]
        if partner_winning:
            if last or win_card == self.rensho:
                gifts = legal & EGARA_MASK & ~tm & ~rb
                return _lowest_rank(gifts) if gifts else self._low(legal)
            return self._low(legal)
        if win_card == self.rensho:
            return self._low(legal)
        if _SUIT[win_card] == self.trump:
            beaters = rb | (_ABOVE[win_card] & ~rb)
        else:
            beaters = rb | (tm & ~rb) | _ABOVE[win_card]
        winners = legal & beaters
        if winners and (egara_in_trick or winners & EGARA_MASK):
            plain = winners & ~tm & ~rb
            if plain:
                return (plain & -plain).bit_length() - 1
            trumps = winners & tm & ~rb
            if trumps:
                return (trumps & -trumps).bit_length() - 1
            if egara_in_trick >= self.rensho_min_egara or last:
                return self.rensho
        return self._low(legal)

    def _lead(self, seat: int, legal: int, gone: int, voids: list[int]) -> int:
        """A master egara (no unseen higher card of its suit; Rensho gone or mine; a suit no opponent
        has shown out of, or trumps), else low from the longest plain suit, else the lowest card."""
        rensho, trump = self.rensho, self.trump
        rensho_gone = (gone >> rensho) & 1
        opp_void = 0
        for k in self.opponents[seat]:
            opp_void |= voids[k]
        best, best_rank = -1, -1
        for s in range(NUM_SUITS):
            x = legal & SUIT_MASK[s]
            if not x:
                continue
            top = x.bit_length() - 1
            r = _RANK[top]
            if r < JACK or r <= best_rank:
                continue
            if top != rensho and not rensho_gone:
                continue
            if (SUIT_MASK[s] & ~gone) >> top:
                continue
            if s != trump and (opp_void >> s) & 1:
                continue
            best, best_rank = top, r
        if best >= 0:
            return best
        plain = legal & ~self.trump_mask & ~self.rbit
        if plain:
            longest, size = 0, -1
            for s in range(NUM_SUITS):
                k = (plain & SUIT_MASK[s]).bit_count()
                if k > size:
                    longest, size = plain & SUIT_MASK[s], k
            low = longest & _NO_EGARA
            pick = low or longest
            return (pick & -pick).bit_length() - 1
        return self._low(legal)

    # --- playing a card --------------------------------------------------------------------------------
    def play(self, pos: Position, card: int) -> None:
        """Play ``card`` for the seat to play (it must be legal) and finish the trick when complete."""
        seat = pos.order[pos.pos]
        bit = 1 << card
        pos.hands[seat] ^= bit
        pos.played |= bit
        trick = pos.trick
        if trick:
            led = _SUIT[trick[0]]
            if _SUIT[card] != led and card != self.rensho:
                pos.voids[seat] |= 1 << led
        trick.append(card)
        if len(trick) == len(pos.order):
            win_seat = self.winner_so_far(pos.order, trick)[0]
            won = 0
            for c in trick:
                won |= 1 << c
            won &= EGARA_MASK
            if won:
                pos.captured[self.part[win_seat]] |= won
            pos.trick = []
            hands = pos.hands
            leader = win_seat
            if any(hands):
                while not hands[leader]:
                    leader = (leader + 1) % self.n
                pos.order = trick_order(leader, hands)
            else:
                pos.order = []

    def playout(self, pos: Position) -> float:
        """Play ``pos`` (modified in place) to the end with the policy; my partnership's value.

        The same plays as ``policy`` + ``play`` move by move (a test checks it), inlined: this loop is
        most of the expert's time.
        """
        hands, captured, voids, order, trick = pos.hands, pos.captured, pos.voids, pos.order, pos.trick
        played = pos.played
        part, rensho, rbit, free, keys = self.part, self.rensho, self.rbit, self.free, self.keys
        rotations, follow_choice, lead_choice = self.rotations, self._follow, self._lead
        suit_of, suit_mask = _SUIT, SUIT_MASK
        p = len(trick)
        led = win_seat = win_card = win_key = tbits = egara = 0
        keyl: tuple[int, ...] = ()
        if p:
            led = suit_of[trick[0]]
            keyl = keys[led]
            win_seat, win_card, win_key = self.winner_so_far(order, trick)
            for c in trick:
                tbits |= 1 << c
            egara = (tbits & EGARA_MASK).bit_count()
        while order:
            size = len(order)
            while p < size:
                seat = order[p]
                hand = hands[seat]
                if p == 0:
                    if hand & (hand - 1):
                        card = lead_choice(seat, hand, played | hand, voids)
                    else:
                        card = hand.bit_length() - 1
                    led = suit_of[card]
                    keyl = keys[led]
                    win_seat, win_card, win_key = seat, card, keyl[card]
                    tbits = 1 << card
                    egara = 1 if _RANK[card] >= JACK else 0
                else:
                    legal = hand & suit_mask[led]
                    rb = hand & rbit
                    if free:
                        legal &= ~rb
                    legal = (legal | rb) if legal else hand
                    if legal & (legal - 1):
                        card = follow_choice(seat, legal, led, win_seat, win_card, p == size - 1, egara)
                    else:
                        card = legal.bit_length() - 1
                    if suit_of[card] != led and card != rensho:
                        voids[seat] |= 1 << led
                    k = keyl[card]
                    if k > win_key:
                        win_seat, win_card, win_key = seat, card, k
                    tbits |= 1 << card
                    if _RANK[card] >= JACK:
                        egara += 1
                bit = 1 << card
                hands[seat] = hand ^ bit
                played |= bit
                p += 1
            if egara:
                captured[part[win_seat]] |= tbits & EGARA_MASK
            order = [s for s in rotations[win_seat] if hands[s]]
            p = 0
        pos.played, pos.order, pos.trick = played, [], []
        return self.value(captured)

    # --- the double-dummy solver -----------------------------------------------------------------------
    def solve(self, pos: Position, candidates: list[int]) -> list[float]:
        """The exact value of playing each candidate card (legal for the seat to play) in ``pos``
        when every seat then plays perfectly on the known hands."""
        solver = _Solver(self, pos)
        out = []
        for card in candidates:
            out.append(solver.after(card))
        return out


def _lowest_rank(cards: int) -> int:
    """The lowest-ranked card of a non-empty set (ties: the lower suit)."""
    low = (cards & -cards).bit_length() - 1
    if not cards & ~SUIT_MASK[_SUIT[low]]:  # one suit (following suit, mostly): its lowest card
        return low
    best, best_rank = -1, NUM_RANKS
    for s in range(NUM_SUITS):
        x = cards & SUIT_MASK[s]
        if x:
            c = (x & -x).bit_length() - 1
            if _RANK[c] < best_rank:
                best, best_rank = c, _RANK[c]
    return best


class _Solver:
    """Alpha-beta over one position with known hands (``DealSim.solve``)."""

    def __init__(self, sim: DealSim, pos: Position) -> None:
        self.sim = sim
        self.hands = pos.hands[:]
        self.captured = pos.captured[:]
        self.order = pos.order[:]
        self.trick = pos.trick[:]
        self.table: dict[tuple[object, ...], tuple[float, float]] = {}

    def after(self, card: int) -> float:
        seat = self.order[len(self.trick)]
        self.hands[seat] ^= 1 << card
        self.trick.append(card)
        v = self._continue(self.order, self.trick, -_INF, _INF)
        self.trick.pop()
        self.hands[seat] ^= 1 << card
        return v

    def _continue(self, order: list[int], trick: list[int], alpha: float, beta: float) -> float:
        """Value once ``trick`` (cards played so far, in ``order``) is as given."""
        if len(trick) < len(order):
            return self._node(order, trick, alpha, beta)
        sim = self.sim
        keys = sim.keys[_SUIT[trick[0]]]
        best = 0
        for i in range(1, len(trick)):
            if keys[trick[i]] > keys[trick[best]]:
                best = i
        win_seat = order[best]
        won = 0
        for c in trick:
            won |= 1 << c
        won &= EGARA_MASK
        p = sim.part[win_seat]
        before = self.captured[p]
        self.captured[p] = before | won
        hands = self.hands
        try:
            if not any(hands):
                return sim.value(self.captured)
            leader = win_seat
            while not hands[leader]:
                leader = (leader + 1) % sim.n
            key = (tuple(hands), leader, sim.cap_key(self.captured))
            lo, hi = self.table.get(key, (-_INF, _INF))
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
            a, b = max(alpha, lo), min(beta, hi)
            v = self._node(trick_order(leader, hands), [], a, b)
            if v <= a:
                hi = min(hi, v)
            elif v >= b:
                lo = max(lo, v)
            else:
                lo = hi = v
            self.table[key] = (lo, hi)
            return v
        finally:
            self.captured[p] = before

    def _moves(self, seat: int, led: int, trick: list[int]) -> list[int]:
        """The legal cards of ``seat``, one of each run of equivalent low cards (no egara, same suit,
        no card between them still in play), highest first."""
        sim = self.sim
        legal = sim.legal(self.hands[seat], led)
        alive = 0
        for h in self.hands:
            alive |= h
        for c in trick:
            alive |= 1 << c
        out = []
        prev = -2
        for c in bits_to_cards(legal):
            if (
                prev >= 0
                and _RANK[c] < JACK
                and _RANK[prev] < JACK
                and _SUIT[c] == _SUIT[prev]
                and c != sim.rensho
                and not (alive >> (prev + 1)) & ((1 << (c - prev - 1)) - 1)
            ):
                prev = c
                continue
            out.append(c)
            prev = c
        out.reverse()
        return out

    def _node(self, order: list[int], trick: list[int], alpha: float, beta: float) -> float:
        seat = order[len(trick)]
        led = _SUIT[trick[0]] if trick else -1
        maximise = self.sim.part[seat] == 0
        hands = self.hands
        best = -_INF if maximise else _INF
        for card in self._moves(seat, led, trick):
            bit = 1 << card
            hands[seat] ^= bit
            trick.append(card)
            v = self._continue(order, trick, alpha, beta)
            trick.pop()
            hands[seat] ^= bit
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
        return best
