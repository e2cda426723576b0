"""The Oicho-Kabu deck: draws from the top, the dealer's top/bottom/4th choice, and reshuffles.

Stacked decks (``reset(options={"deck": [...]})``) must survive the game's own reshuffles (the cards
used for dealer selection, a minso or triple-table redeal, a new round), otherwise a test could never
stack a card dealt after one. The rule: **the unused part of the stacked prefix always stays on top, in
order**; a reshuffle mixes only the returned cards and the rest of the deck beneath it. Without a
prefix this is an ordinary reshuffle.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kabu_envs.core.rng import ordered_deck, validate_deck_prefix

NUM_VALUES = 10  # card values 1..10 (docs/oicho_kabu.md#cards)
COPIES = 4  # cards of each value
DECK_SIZE = NUM_VALUES * COPIES


def card_id(value: int, copy: int = 0) -> int:
    """The id of copy ``copy`` (0..3) of a card of ``value`` (1..10): ``(value - 1) * 4 + copy``."""
    return (value - 1) * COPIES + copy


VALUES: tuple[int, ...] = tuple(c // COPIES + 1 for c in range(DECK_SIZE))  # the value of each card id
# hanafuda: copy 0 of months 1, 3 and 8 is that month's light (ids 0, 8, 28)
LIGHT_CARDS = frozenset(card_id(month) for month in (1, 3, 8))

TAKE_TOP, TAKE_BOTTOM, TAKE_FOURTH = 0, 1, 2


def face_label(deck: str, card: int) -> str:
    """The value a card's face shows: ``7``, or ``A`` for a western ace (``deck``: the deck option)."""
    value = VALUES[card]
    return "A" if deck == "western" and value == 1 else str(value)


def card_text(deck: str, card: int) -> str:
    """A card in a line of text: its ``face_label``, with ``*`` on a hanafuda light (``3*``)."""
    return face_label(deck, card) + ("*" if deck == "hanafuda" and card in LIGHT_CARDS else "")


def card_ids(*values: int) -> list[int]:
    """Card ids for these values (1..10) in order, the next copy for each repeat: a stacked deck by value.

    ``card_ids(1, 6, 1)`` = ``[0, 20, 1]``. Raises on a value outside 1..10 or a fifth copy.
    """
    used: dict[int, int] = {}
    out = []
    for v in values:
        if not 1 <= v <= NUM_VALUES:
            raise ValueError(f"card value {v!r} is not in 1..{NUM_VALUES}")
        k = used.get(v, 0)
        if k == COPIES:
            raise ValueError(f"value {v} asked for a fifth time; the deck has four of each value")
        used[v] = k + 1
        out.append(card_id(v, k))
    return out


class Deck:
    """Undealt cards, top first (``cards[top:]``); ``stacked`` = end of the unused stacked prefix."""

    __slots__ = ("cards", "top", "stacked", "rng")

    def __init__(self, rng: np.random.Generator, prefix: Sequence[int] | None = None) -> None:
        # validated once, as a list: an iterator or an array is read once and its length known
        prefix = [] if prefix is None else validate_deck_prefix(prefix, DECK_SIZE)
        self.rng = rng
        self.cards: list[int] = ordered_deck(rng, DECK_SIZE, prefix)
        self.top = 0
        self.stacked = len(prefix)

    def __len__(self) -> int:
        return len(self.cards) - self.top

    def draw(self) -> int:
        """The top card."""
        card = self.cards[self.top]
        self.top += 1
        return card

    def take(self, where: int) -> int:
        """The dealer's choice (kabufuda site): TAKE_TOP, TAKE_BOTTOM or TAKE_FOURTH (4th from the top)."""
        if where == TAKE_TOP:
            return self.draw()
        idx = len(self.cards) - 1 if where == TAKE_BOTTOM else self.top + 3
        if idx < self.stacked:
            self.stacked -= 1
        return self.cards.pop(idx)

    def peek(self, where: int) -> int:
        """The card ``take(where)`` would return (for tests, never observations)."""
        if where == TAKE_TOP:
            return self.cards[self.top]
        return self.cards[-1] if where == TAKE_BOTTOM else self.cards[self.top + 3]

    def reshuffle(self, returned: Sequence[int]) -> None:
        """Put ``returned`` back and shuffle everything below the unused stacked prefix."""
        keep_end = max(self.top, self.stacked)
        keep = self.cards[self.top : keep_end]
        rest = np.array(self.cards[keep_end:] + list(returned), dtype=np.int64)
        self.rng.shuffle(rest)
        self.cards = keep + rest.tolist()
        self.top = 0
        self.stacked = len(keep)

    def fresh(self) -> None:
        """All 40 cards back (a new round): the unused stacked prefix on top, the rest shuffled."""
        keep = self.cards[self.top : max(self.top, self.stacked)]
        if not keep:
            self.cards = self.rng.permutation(DECK_SIZE).tolist()
        else:
            used = set(keep)
            rest = np.array([c for c in range(DECK_SIZE) if c not in used], dtype=np.int64)
            self.rng.shuffle(rest)
            self.cards = keep + rest.tolist()
        self.top = 0
        self.stacked = len(keep)
