"""Kakeya action ids (docs/kakeya.md#actions): fixed, documented, never remapped.

``PLAY(card) = card id`` (0..51), ``TRUMP(suit) = 52 + suit``, ``LEAD_SELF = 56``,
``LEAD_PARTNER = 57``. The ids are defined once, in ``Action``; the module-level ints below are
derived from it for the hot paths (plain ints compare faster than IntEnum members).
"""

from __future__ import annotations

from enum import IntEnum

from kabu_envs.kakeya.cards import NUM_CARDS, NUM_SUITS, SUIT_NAMES, card_name


class Action(IntEnum):
    PLAY_BASE = 0  # PLAY(card) = card id 0..51
    TRUMP_BASE = NUM_CARDS  # TRUMP(suit) = 52 + suit
    LEAD_SELF = NUM_CARDS + NUM_SUITS
    LEAD_PARTNER = NUM_CARDS + NUM_SUITS + 1

    @staticmethod
    def PLAY(card: int) -> int:  # noqa: N802 - the documented action name
        """Action id of playing ``card`` (its card id)."""
        if not 0 <= card < NUM_CARDS:
            raise ValueError(f"PLAY(card) needs a card id 0..{NUM_CARDS - 1}, got {card}")
        return int(card)

    @staticmethod
    def TRUMP(suit: int) -> int:  # noqa: N802 - the documented action name
        """Action id of choosing ``suit`` (0..3) as trump."""
        if not 0 <= suit < NUM_SUITS:
            raise ValueError(f"TRUMP(suit) needs a suit 0..{NUM_SUITS - 1}, got {suit}")
        return TRUMP_BASE + int(suit)


TRUMP_BASE = int(Action.TRUMP_BASE)
LEAD_SELF = int(Action.LEAD_SELF)
LEAD_PARTNER = int(Action.LEAD_PARTNER)
NUM_ACTIONS = LEAD_PARTNER + 1


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
