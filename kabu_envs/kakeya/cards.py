"""Kakeya cards (docs/kakeya.md#cards): ids, suits, ranks, egara and 52-bit card sets.

Every card constant of the game is defined here, once. A card id is ``suit * 13 + rank`` with suits
clubs, diamonds, hearts, spades = 0..3 and ranks 2..A = 0..12. Hands and captured cards are Python
ints used as 52-bit sets (bit ``card`` set = card held), so suit filters, follow-suit checks and egara
counts are single integer operations.
"""

from __future__ import annotations

from collections.abc import Iterable

NUM_SUITS = 4
NUM_RANKS = 13
NUM_CARDS = NUM_SUITS * NUM_RANKS
CLUBS, DIAMONDS, HEARTS, SPADES = range(NUM_SUITS)
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
SUIT_SYMBOLS = ("C", "D", "H", "S")
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
JACK, KING, ACE = (RANK_NAMES.index(r) for r in ("J", "K", "A"))  # egara: the ranks JACK..ACE (9..12)


def make_card(suit: int, rank: int) -> int:
    """The card id of ``rank`` of ``suit``."""
    return suit * NUM_RANKS + rank


def suit_of(card: int) -> int:
    return card // NUM_RANKS


def rank_of(card: int) -> int:
    return card % NUM_RANKS


def is_egara(card: int) -> bool:
    """An egara is a J, Q, K or A (docs/kakeya.md#cards)."""
    return card % NUM_RANKS >= JACK


ACE_OF_CLUBS = make_card(CLUBS, ACE)
ACE_OF_SPADES = make_card(SPADES, ACE)

ALL_RANKS_MASK = (1 << NUM_RANKS) - 1
SUIT_MASK = tuple(ALL_RANKS_MASK << make_card(s, 0) for s in range(NUM_SUITS))
EGARA_MASK = sum(1 << make_card(s, r) for s in range(NUM_SUITS) for r in range(JACK, ACE + 1))
ACE_MASK = sum(1 << make_card(s, ACE) for s in range(NUM_SUITS))
NUM_EGARA = EGARA_MASK.bit_count()  # 16


def card_name(card: int) -> str:
    """Short readable name of a card id, e.g. ``AS`` or ``10H``."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id {card} is out of range 0..{NUM_CARDS - 1}")
    return RANK_NAMES[rank_of(card)] + SUIT_SYMBOLS[suit_of(card)]


def card_id(name: str) -> int:
    """Inverse of ``card_name`` (``"AS"`` -> 51): handy for stacked decks in tests."""
    suit = SUIT_SYMBOLS.index(name[-1].upper()) if name and name[-1].upper() in SUIT_SYMBOLS else -1
    rank = RANK_NAMES.index(name[:-1].upper()) if name[:-1].upper() in RANK_NAMES else -1
    if suit < 0 or rank < 0:
        raise ValueError(f"not a card name: {name!r} (use e.g. 'AS', '10H', '2C')")
    return make_card(suit, rank)


def card_ids(cards: Iterable[str | int]) -> list[int]:
    """Card ids of names (``"AS"``, ``"10H"``) or ids, in order: for stacked decks and tests."""
    return [card_id(c) if isinstance(c, str) else int(c) for c in cards]


def egara16(bits: int) -> int:
    """The 16 egara bits (J,Q,K,A of clubs, diamonds, hearts, spades) of a 52-bit set.

    Suit s's J..A sit at bits ``13*s + 9 .. 13*s + 12``; shifting by ``9 + 9*s`` moves them to
    ``4*s .. 4*s + 3`` (spelled out: this runs once per trick that carries egara).
    """
    return ((bits >> 9) & 0xF) | ((bits >> 18) & 0xF0) | ((bits >> 27) & 0xF00) | ((bits >> 36) & 0xF000)


def bits_to_cards(bits: int) -> list[int]:
    """Card ids of a 52-bit set, ascending."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


def cards_to_bits(cards: Iterable[int]) -> int:
    bits = 0
    for c in cards:
        bits |= 1 << c
    return bits
