"""Rensho, following suit and trick resolution (docs/kakeya.md#trump-and-rensho, docs/kakeya.md#play).

Hands are 52-bit card sets (``kabu_envs.kakeya.cards``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kabu_envs.kakeya.cards import (
    ACE_OF_CLUBS,
    ACE_OF_SPADES,
    CLUBS,
    EGARA_MASK,
    NUM_CARDS,
    NUM_RANKS,
    SPADES,
    SUIT_MASK,
    cards_to_bits,
)

# Trick-winner keys: any trump outranks every card of the led suit.
_TRUMP_KEY = 100


def rensho_card(trump: int, rule: str) -> int:
    """The card id of Rensho, the highest card of the game, under ``rule``."""
    if rule == "traditional":
        return ACE_OF_CLUBS if trump == SPADES else ACE_OF_SPADES
    if rule == "seed":
        return ACE_OF_CLUBS if trump == CLUBS else ACE_OF_SPADES
    raise ValueError(f"unknown rensho_rule {rule!r}")


def legal_plays(hand: int, led_suit: int, rensho: int, rensho_follow: str) -> int:
    """Playable cards (as bits), docs/kakeya.md#play: any card when leading (``led_suit < 0``);
    otherwise the cards of the led suit if the seat holds one, else any card; Rensho is playable
    at any time. ``rensho_follow`` (the option of that name) says whether Rensho itself counts as
    a card of its suit for following:

    - ``"free"``: it does not, so a seat whose only card of the led suit is Rensho may play any
      card (Rensho is never forced out);
    - ``"must_follow"``: it does, so such a seat must play Rensho.
    """
    if led_suit < 0:
        return hand
    rensho_bit = hand & (1 << rensho)
    follow = hand & SUIT_MASK[led_suit]
    if rensho_follow == "free":
        follow &= ~rensho_bit
    elif rensho_follow != "must_follow":
        raise ValueError(f"unknown rensho_follow {rensho_follow!r}")
    if follow:
        return follow | rensho_bit
    return hand


def trick_winner(cards: list[int], led_suit: int, trump: int, rensho: int) -> int:
    """Index in ``cards`` of the winning card: Rensho, else the highest trump, else
    the highest card of the led suit (rank order 2 < ... < A)."""
    best = -1
    best_key = -1
    for i, c in enumerate(cards):
        if c == rensho:
            return i
        suit = c // NUM_RANKS
        if suit == trump:
            key = _TRUMP_KEY + c % NUM_RANKS
        elif suit == led_suit:
            key = c % NUM_RANKS
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
            self.led_suit = card // NUM_RANKS
        self.seats.append(seat)
        self.cards.append(card)
        self.bits |= 1 << (NUM_CARDS * seat + card)

    def resolve(self, trump: int, rensho: int) -> int:
        """Settle the complete trick: sets and returns the seat that takes it."""
        self.winner = self.seats[trick_winner(self.cards, self.led_suit, trump, rensho)]
        return self.winner

    def egara_bits(self) -> int:
        return cards_to_bits(self.cards) & EGARA_MASK
