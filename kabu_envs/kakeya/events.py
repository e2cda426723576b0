"""What a Kakeya match logs (``Game.results``, the latest finished deals): one frozen record per deal.

Kakeya keeps no log of single moves: a trick is the table's state (``Game.trick``, ``Game.last_trick``).
What it keeps is each finished deal, and each deal says itself in words in one place, its
``describe``: the text render prints the full line, the play UI and the picture the brief one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DealResult:
    """What one finished deal did (for tests, render and analysis)."""

    deal: int
    dealer_partnership: int
    first_dealer: int
    trump: int
    rensho: int
    egara: dict[int, int]  # playing partnership -> egara taken
    winner: int  # partnership, or -1 when nobody won
    stones_change: dict[int, int]  # partnership -> stones won (+) or paid (-)

    def describe(self, brief: bool = False) -> str:
        """The deal in words: who won (``brief``: ``deal 2: partnership 1 wins``), in full with the egara
        and stones of each partnership (``deal 2: egara {0: 5, 1: 11}, partnership 1 wins, stones
        {0: -3, 1: 3}``)."""
        who = f"partnership {self.winner} wins" if self.winner >= 0 else "nobody wins"
        if brief:
            return f"deal {self.deal + 1}: {who}"
        return f"deal {self.deal + 1}: egara {self.egara}, {who}, stones {self.stones_change}"
