"""Cards, Rensho and trick resolution (spec sections 2 and 4).

Hands are Python ints used as 52-bit sets (bit ``card`` set = card held): suit
filters, follow-suit checks and egara counts are then single integer operations.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
ACE = 12
JACK = 9
ACE_OF_CLUBS = CLUBS * 13 + ACE
ACE_OF_SPADES = SPADES * 13 + ACE

SUIT_MASK = tuple(0x1FFF << (13 * s) for s in range(4))
# Egara: J, Q, K, A of every suit (ranks 9..12).
EGARA_MASK = sum(0xF << (13 * s + JACK) for s in range(4))
ACE_MASK = sum(1 << (13 * s + ACE) for s in range(4))


def suit_of(card: int) -> int:
    return card // 13


def rank_of(card: int) -> int:
    return card % 13


def is_egara(card: int) -> bool:
    return (EGARA_MASK >> card) & 1 == 1


def rensho_card(trump: int, rule: str) -> int:
    """The card id of Rensho, the highest card of the game, under ``rule``."""
    if rule == "traditional":
        return ACE_OF_CLUBS if trump == SPADES else ACE_OF_SPADES
    if rule == "seed":
        return ACE_OF_CLUBS if trump == CLUBS else ACE_OF_SPADES
    raise ValueError(f"unknown rensho_rule {rule!r}")


def egara16(bits: int) -> int:
    """The 16 egara bits (J,Q,K,A of clubs, diamonds, hearts, spades) of a 52-bit set."""
    return ((bits >> 9) & 0xF) | ((bits >> 18) & 0xF0) | ((bits >> 27) & 0xF00) | ((bits >> 36) & 0xF000)


def bits_to_cards(bits: int) -> list[int]:
    """Card ids of a 52-bit set, ascending."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


def cards_to_bits(cards) -> int:
    bits = 0
    for c in cards:
        bits |= 1 << c
    return bits


def legal_plays(hand: int, led_suit: int, rensho: int) -> int:
    """Playable cards (as bits): any card when leading (``led_suit < 0``); otherwise
    the led suit if held, else anything; Rensho is playable at any time."""
    if led_suit < 0:
        return hand
    follow = hand & SUIT_MASK[led_suit]
    if follow:
        return follow | (hand & (1 << rensho))
    return hand


def trick_winner(cards: list[int], led_suit: int, trump: int, rensho: int) -> int:
    """Index in ``cards`` of the winning card: Rensho, else the highest trump, else
    the highest card of the led suit (rank order 2 < ... < A)."""
    best = -1
    best_key = -1
    for i, c in enumerate(cards):
        if c == rensho:
            return i
        s = c // 13
        if s == trump:
            key = 100 + c % 13
        elif s == led_suit:
            key = c % 13
        else:
            continue
        if key > best_key:
            best_key, best = key, i
    if best < 0:
        raise ValueError(f"no card of the led suit {led_suit} in trick {cards}")
    return best


@dataclass(slots=True)
class Trick:
    """One trick: who leads, which seats play it (in order), what they played, who took it."""

    leader: int
    order: list[int]  # seats that play this trick, in play order (leader first)
    seats: list[int] = field(default_factory=list)
    cards: list[int] = field(default_factory=list)
    led_suit: int = -1
    bits: int = 0  # 1 << (52 * seat + card) per card played: the trick as one int (for the encoder)
    winner: int = -1  # the seat that took it, once complete

    @property
    def complete(self) -> bool:
        return len(self.cards) == len(self.order)

    @property
    def next_seat(self) -> int:
        return self.order[len(self.cards)]

    def add(self, seat: int, card: int) -> None:
        if not self.cards:
            self.led_suit = card // 13
        self.seats.append(seat)
        self.cards.append(card)
        self.bits |= 1 << (52 * seat + card)

    def resolve(self, trump: int, rensho: int) -> int:
        """Settle the complete trick: sets and returns the seat that takes it."""
        self.winner = self.seats[trick_winner(self.cards, self.led_suit, trump, rensho)]
        return self.winner

    def egara_bits(self) -> int:
        return cards_to_bits(self.cards) & EGARA_MASK
