"""Toy Card rules (pure Python/numpy).

``num_players`` seats each get one card from a 40-card deck (value = id // 4, 0..9). Seats act once,
in order 0..n-1: ``PASS`` (0), ``PLAY`` (1) or ``RAISE`` (2); RAISE needs a value of at least
``raise_threshold``. A seat's score is ``stake * (+1 if value >= raise_threshold else -1)`` with
stake 0/1/2; its reward is its score minus the table's mean score (zero-sum).

What the game is for: rewards are paid only when the LAST seat acts, so every other seat sees its
episode end on another seat's move (the PettingZoo #1147 situation); rewards differ between seats, so
returning the wrong seat's reward is detectable; RAISE is sometimes illegal, so masks matter; and
raising high cards while passing low ones beats random play by a margin duplicate deals resolve fast.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum

import numpy as np

from kabu_envs.core.errors import IllegalActionError
from kabu_envs.core.rng import ordered_deck
from kabu_envs.toy_card.config import Config

DECK_SIZE = 40
NUM_VALUES = 10


class Action(IntEnum):
    PASS = 0
    PLAY = 1
    RAISE = 2


class Phase(IntEnum):
    ACT = 0  # seats act in order
    OVER = 1


NUM_ACTIONS = len(Action)


def card_value(card: int) -> int:
    return card // 4


class Game:
    """One deal of Toy Card."""

    num_actions = NUM_ACTIONS

    def __init__(self, config: Config, rng: np.random.Generator, deck: Sequence[int] | None = None) -> None:
        self.config = config
        self.num_players = config.num_players
        order = ordered_deck(rng, DECK_SIZE, () if deck is None else deck)
        self.values = [card_value(order[i]) for i in range(self.num_players)]
        self.stakes = [0] * self.num_players
        self.phase = Phase.ACT
        self.current_player = 0
        self.terminal = False
        self._pending = np.zeros(self.num_players)

    def legal_actions(self) -> list[int]:
        if self.terminal:
            return []
        if self.values[self.current_player] >= self.config.raise_threshold:
            return [Action.PASS, Action.PLAY, Action.RAISE]
        return [Action.PASS, Action.PLAY]

    def action_name(self, action: int) -> str:
        """The action's name, for the errors of the env and the views."""
        return action_name(action)

    def apply_action(self, action: int) -> None:
        legal = self.legal_actions()
        if action not in legal:
            raise IllegalActionError(
                action, legal, seat=self.current_player, phase=self.phase.name, describe=action_name
            )
        self.stakes[self.current_player] = int(action)
        self.current_player += 1
        if self.current_player == self.num_players:
            wins = np.asarray(self.values) >= self.config.raise_threshold
            scores = np.asarray(self.stakes, dtype=float) * np.where(wins, 1.0, -1.0)
            self._pending = scores - scores.mean()
            self.terminal = True
            self.phase = Phase.OVER
            self.current_player = -1

    def pop_rewards(self) -> np.ndarray:
        out, self._pending = self._pending, np.zeros(self.num_players)
        return out


def action_name(action: int) -> str:
    return Action(action).name
