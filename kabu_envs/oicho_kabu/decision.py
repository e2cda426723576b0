"""The Oicho-Kabu batch engine's decision view: what an agent acting on the engine reads, typed and named.

Why: an agent that decides from the engine's state rather than the encoded observation
(``act_engine``: the training VecEnv's opponents, whose turns then encode nothing) must not depend on
how the kernel stores its games. ``OichoKabuBatch.decision_view()`` gives this view instead: named
(B, ...) arrays, each a read-only view of the kernel's record fields (no copy; the seat and mask
padding cut off), plus the rule set, so the kernel's layout can change without touching the agents.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kabu_envs.oicho_kabu.config import Config


@dataclass(frozen=True)
class DecisionView:
    """The current decision of each of B games (the views are updated in place as the engine steps)."""

    config: Config
    current_player: np.ndarray  # (B,) int64: the seat to act, -1 when the game is over
    phase: np.ndarray  # (B,) int64: ``game.Phase``
    active: np.ndarray  # (B,) int64: the spread being bet on or decided, -1 none
    dealer: np.ndarray  # (B,) int64: the dealer's seat
    revealed: np.ndarray  # (B,) bool: the dealer's hand is turned up (``Game.dealer_revealed``)
    spreads: np.ndarray  # (B, 4, 3) int64: each spread's card ids, -1 none
    spread_total: np.ndarray  # (B, 4) int64: the stakes on each spread
    spread_state: np.ndarray  # (B, 4) int64: UNDECIDED / STOOD / DREW / ESCAPED
    stakes: np.ndarray  # (B, n, 4) int64: [game, seat, spread]
    dealer_cards: np.ndarray  # (B, 3) int64: card ids, -1 none
    legal_action_mask: np.ndarray  # (B, A) bool

    @classmethod
    def of_records(cls, state: Any, config: Config, legal_action_mask: np.ndarray) -> DecisionView:
        """The view of the kernel's records ``state`` (``kernel.layout.state_dtype``) of rule set
        ``config``."""
        n = config.num_players

        def field(name: str) -> np.ndarray:
            a: np.ndarray = state[name].view()
            a.flags.writeable = False
            return a

        mask = legal_action_mask.view()
        mask.flags.writeable = False
        return cls(
            config=config,
            current_player=field("current_player"),
            phase=field("phase"),
            active=field("active"),
            dealer=field("dealer"),
            revealed=field("revealed"),
            spreads=field("spreads"),
            spread_total=field("spread_total"),
            spread_state=field("spread_state"),
            stakes=field("stakes")[:, :n],
            dealer_cards=field("dealer_cards"),
            legal_action_mask=mask,
        )

    def sees_dealer_pair(self, rows: np.ndarray, seat: np.ndarray) -> np.ndarray:
        """Whether ``seat`` of each game ``rows`` is shown the dealer's first two cards
        (``observation.Encoder``'s rule): once revealed, to the dealer, and to everyone when the second
        card is dealt face up."""
        face_up = self.config.dealer_second_card_face_up
        return self.revealed[rows] & (face_up | (seat == self.dealer[rows]))
