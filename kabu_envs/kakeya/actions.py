"""Kakeya action ids (spec section 7): fixed, documented, never remapped.

``PLAY(card) = card id`` (0..51), ``TRUMP(suit) = 52 + suit``, ``LEAD_SELF = 56``,
``LEAD_PARTNER = 57``. Card ids are ``suit * 13 + rank`` with suits clubs, diamonds,
hearts, spades = 0..3 and ranks 2..A = 0..12.
"""

from __future__ import annotations

from enum import IntEnum

NUM_CARDS = 52
NUM_SUITS = 4
NUM_RANKS = 13
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
SUIT_SYMBOLS = ("C", "D", "H", "S")
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


class Action(IntEnum):
    PLAY_BASE = 0  # PLAY(card) = card id 0..51
    TRUMP_BASE = 52  # TRUMP(suit) = 52 + suit
    LEAD_SELF = 56
    LEAD_PARTNER = 57

    @staticmethod
    def PLAY(card: int) -> int:  # noqa: N802 - the spec's name
        """Action id of playing ``card`` (its card id)."""
        if not 0 <= card < NUM_CARDS:
            raise ValueError(f"PLAY(card) needs a card id 0..51, got {card}")
        return int(card)

    @staticmethod
    def TRUMP(suit: int) -> int:  # noqa: N802 - the spec's name
        """Action id of choosing ``suit`` (0..3) as trump."""
        if not 0 <= suit < NUM_SUITS:
            raise ValueError(f"TRUMP(suit) needs a suit 0..3, got {suit}")
        return TRUMP_BASE + int(suit)


TRUMP_BASE = 52
LEAD_SELF = 56
LEAD_PARTNER = 57
NUM_ACTIONS = 58


def card_name(card: int) -> str:
    """Short readable name of a card id, e.g. ``AS`` or ``10H``."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id {card} is out of range 0..51")
    return RANK_NAMES[card % NUM_RANKS] + SUIT_SYMBOLS[card // NUM_RANKS]


def card_id(name: str) -> int:
    """Inverse of ``card_name`` (``"AS"`` -> 51): handy for stacked decks in tests."""
    suit = SUIT_SYMBOLS.index(name[-1].upper()) if name and name[-1].upper() in SUIT_SYMBOLS else -1
    rank = RANK_NAMES.index(name[:-1].upper()) if name[:-1].upper() in RANK_NAMES else -1
    if suit < 0 or rank < 0:
        raise ValueError(f"not a card name: {name!r} (use e.g. 'AS', '10H', '2C')")
    return suit * NUM_RANKS + rank


def action_name(action: int) -> str:
    """Readable name of an action id, e.g. ``PLAY(AS)``, ``TRUMP(hearts)``, ``LEAD_SELF``."""
    a = int(action)
    if 0 <= a < NUM_CARDS:
        return f"PLAY({card_name(a)})"
    if TRUMP_BASE <= a < TRUMP_BASE + NUM_SUITS:
        return f"TRUMP({SUIT_NAMES[a - TRUMP_BASE]})"
    if a == LEAD_SELF:
        return "LEAD_SELF"
    if a == LEAD_PARTNER:
        return "LEAD_PARTNER"
    return f"INVALID({a})"
