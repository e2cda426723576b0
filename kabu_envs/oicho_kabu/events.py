"""The public events of an Oicho-Kabu deal (``Game.log``): one small frozen record per kind.

Why records and not tuples: readers name the fields instead of decoding positions, and each kind says
itself in words in one place, its ``describe``. Every reader of the log goes through ``describe``:
the text log (``render.render_log``), the picture's side notes (``picture.log_lines``) and anything
else that shows the deal's events.

``describe(cfg)`` is the full line of the text log; ``describe(cfg, brief=True)`` is the short line the
picture has room for, or None for an event the picture leaves out (the table as dealt, the end of the
episode). The full lines of a stand, an escape, a kept table, a dealer's stand and a deal without
stakes are the log's long-standing plain forms (``stand 2``, ``minso_keep``); they are kept as they
are so the text log reads exactly as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kabu_envs.oicho_kabu.actions import Action
from kabu_envs.oicho_kabu.config import Config
from kabu_envs.oicho_kabu.deck import card_text, face_label


def _cards(cfg: Config, cards: tuple[int, ...]) -> str:
    return " ".join(card_text(cfg.deck, c) for c in cards)


@dataclass(frozen=True, slots=True)
class Round:
    """A round starts: its number (from 1) and its dealer."""

    number: int
    dealer: int

    def describe(self, cfg: Config, brief: bool = False) -> str | None:
        return f"round {self.number}: player_{self.dealer} deals"


@dataclass(frozen=True, slots=True)
class Select:
    """The selection draws ``(seat, card)`` in order (a tie draws again) and the dealer they chose."""

    draws: tuple[tuple[int, int], ...]
    dealer: int

    def describe(self, cfg: Config, brief: bool = False) -> str | None:
        if brief:
            return f"selection: player_{self.dealer} deals"
        draws = ", ".join(f"p{seat}:{card_text(cfg.deck, c)}" for seat, c in self.draws)
        return f"dealer selection ({cfg.dealer_selection}): {draws} -> player_{self.dealer} deals"


@dataclass(frozen=True, slots=True)
class Table:
    """The four table cards as dealt (after any triple-table redeal)."""

    cards: tuple[int, ...]

    def describe(self, cfg: Config, brief: bool = False) -> str | None:
        return None if brief else f"table: {_cards(cfg, self.cards)}"


@dataclass(frozen=True, slots=True)
class TripleRedeal:
    """A table with three cards of one value, returned and dealt again (``redeal_on_triple_table``)."""

    cards: tuple[int, ...]

    def describe(self, cfg: Config, brief: bool = False) -> str | None:
        return "table redealt (triple)" if brief else f"triple_redeal: {_cards(cfg, self.cards)}"


@dataclass(frozen=True, slots=True)
class MinsoRedeal:
    """The dealer sends the table back (minso): these cards are returned and the table dealt again."""

    cards: tuple[int, ...]

    def describe(self, cfg: Config, brief: bool = False) -> str | None:
        return "table redealt (minso)" if brief else f"minso_redeal: {_cards(cfg, self.cards)}"


@dataclass(frozen=True, slots=True)
class MinsoKeep:
    """The dealer keeps the table."""

    def describe(self, cfg: Config, brief: bool = False) -> str | None:
        return "dealer keeps the table" if brief else "minso_keep"


@dataclass(frozen=True, slots=True)
class Bet:
    """``seat`` stakes ``size`` chips on ``spread`` (a BET(0) stakes nothing and is not logged)."""

    seat: int
    spread: int
    size: int

    def describe(self, cfg: Config, brief: bool = False) -> str | None:
        return f"player_{self.seat} stakes {self.size} on spread {self.spread}"


@dataclass(frozen=True, slots=True)
class NoBets:
    """Nobody staked anything: the round ends without payment."""

    def describe(self, cfg: Config, brief: bool = False) -> str | None:
        return "no stakes: round ends" if brief else "no_bets"


@dataclass(frozen=True, slots=True)
class Take:
    """The dealer's card ``slot`` (0: first, 1: second) taken from where ``action`` says
    (``dealer_card_choice``)."""

    slot: int
    action: Action

    def describe(self, cfg: Config, brief: bool = False) -> str | None:
        if brief:
            return f"dealer takes {self.action.name.split('_')[1].lower()} card"
        return f"dealer card {self.slot + 1}: {self.action.name}"


@dataclass(frozen=True, slots=True)
class Draw:
    """The decider of ``spread`` draws ``card`` (dealt face up)."""

    spread: int
    card: int

    def describe(self, cfg: Config, brief: bool = False) -> str | None:
        text = face_label(cfg.deck, self.card) if brief else card_text(cfg.deck, self.card)
        return f"spread {self.spread} draws {text}"


@dataclass(frozen=True, slots=True)
class Unbacked:
    """Unbacked ``spread`` is turned up (its second card ``second`` shows) and dealt ``card`` face up
    (``unbacked_spread_card``)."""

    spread: int
    second: int
    card: int

    def describe(self, cfg: Config, brief: bool = False) -> str | None:
        if brief:
            return f"spread {self.spread} turned up, gets {face_label(cfg.deck, self.card)}"
        second, card = card_text(cfg.deck, self.second), card_text(cfg.deck, self.card)
        return f"unbacked {self.spread}: turned up {second}, dealt {card}"


@dataclass(frozen=True, slots=True)
class Stand:
    """The decider of ``spread`` stands."""

    spread: int

    def describe(self, cfg: Config, brief: bool = False) -> str | None:
        return f"spread {self.spread} stands" if brief else f"stand {self.spread}"


@dataclass(frozen=True, slots=True)
class Escape:
    """The decider of ``spread`` escapes (its stakes are returned)."""

    spread: int

    def describe(self, cfg: Config, brief: bool = False) -> str | None:
        return f"spread {self.spread} escapes" if brief else f"escape {self.spread}"


@dataclass(frozen=True, slots=True)
class DealerDraw:
    """The dealer draws ``card``."""

    card: int

    def describe(self, cfg: Config, brief: bool = False) -> str | None:
        text = face_label(cfg.deck, self.card) if brief else card_text(cfg.deck, self.card)
        return f"dealer draws {text}"


@dataclass(frozen=True, slots=True)
class DealerStand:
    """The dealer stands."""

    def describe(self, cfg: Config, brief: bool = False) -> str | None:
        return "dealer stands" if brief else "dealer_stand"


@dataclass(frozen=True, slots=True)
class Showdown:
    """The dealer's hand, each spread's result (the multiplier the bettors win, negative: they lose;
    None: unbacked) and whether the dealer's hand voided the round."""

    dealer_hand: tuple[int, ...]
    results: tuple[int | None, ...]
    voided: bool

    def describe(self, cfg: Config, brief: bool = False) -> str | None:
        void = " (void)" if self.voided else ""
        if brief:
            return "showdown" + void
        return f"showdown: dealer {_cards(cfg, self.dealer_hand)}, results {list(self.results)}" + void


@dataclass(frozen=True, slots=True)
class DealerChange:
    """The deal passes from seat ``old`` to seat ``new`` (the first event of the next deal)."""

    old: int
    new: int

    def describe(self, cfg: Config, brief: bool = False) -> str | None:
        if brief:
            return f"deal passes to player_{self.new}"
        return f"deal passes from player_{self.old} to player_{self.new}"


@dataclass(frozen=True, slots=True)
class Over:
    """The episode ends with these chips."""

    chips: tuple[int, ...]

    def describe(self, cfg: Config, brief: bool = False) -> str | None:
        return None if brief else f"episode over, chips {list(self.chips)}"


Event = (
    Round
    | Select
    | Table
    | TripleRedeal
    | MinsoRedeal
    | MinsoKeep
    | Bet
    | NoBets
    | Take
    | Draw
    | Unbacked
    | Stand
    | Escape
    | DealerDraw
    | DealerStand
    | Showdown
    | DealerChange
    | Over
)


def describe_log(log: Sequence[Event], cfg: Config, brief: bool = False) -> list[str]:
    """The lines of ``log`` in order (``brief``: the short lines, leaving out what the picture omits)."""
    return [text for event in log if (text := event.describe(cfg, brief)) is not None]
