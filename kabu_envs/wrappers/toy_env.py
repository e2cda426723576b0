"""A tiny one-card game on the shared AEC adapter, for testing the baselines machinery.

Why it exists: the single-agent views, the training loop and the duplicate-deal
harness must be testable in milliseconds and independently of the real games. The
toy game has the features that matter for those tests:

* rewards are paid only when the LAST seat acts, so every seat but the last sees its
  episode end on another seat's move (the PettingZoo #1147 situation);
* rewards differ between seats (zero-sum, ``reward_i = s_i - mean(s)``), so returning
  the next seat's reward instead of the learner's is detectable;
* an action that is sometimes illegal (``RAISE`` needs a card value >= 5), so masks matter;
* a strategy clearly better than random (raise high cards, pass low ones) that a
  policy can learn in a few thousand steps, and card luck that duplicate deals cancel.

Rules: ``num_players`` seats each get one card from a 40-card deck (value = id // 4,
0..9). Seats act once, in order 0..n-1: ``PASS`` (0), ``PLAY`` (1) or ``RAISE`` (2).
A seat's score is ``stake * (+1 if value >= 5 else -1)`` with stake 0/1/2; the reward
is the score minus the table's mean score.
"""

from __future__ import annotations

import numpy as np

from kabu_envs.aec_base import CardGameAECEnv
from kabu_envs.core.obs_spec import ObsPiece, ObsSpec
from kabu_envs.core.rng import ordered_deck

PASS, PLAY, RAISE = 0, 1, 2
DECK_SIZE = 40


class ToyEngine:
    """Rules of the toy game (pure Python/numpy)."""

    num_actions = 3

    def __init__(self, rng: np.random.Generator, num_players: int, deck: list[int] | None) -> None:
        self.num_players = num_players
        order = ordered_deck(rng, DECK_SIZE, deck or ())
        self.cards = [order[i] // 4 for i in range(num_players)]
        self.stakes = [0] * num_players
        self.current_player = 0
        self.terminal = False
        self._pending = np.zeros(num_players)

    def legal_actions(self) -> list[int]:
        if self.terminal:
            return []
        return [PASS, PLAY, RAISE] if self.cards[self.current_player] >= 5 else [PASS, PLAY]

    def apply_action(self, action: int) -> None:
        from kabu_envs.core.errors import IllegalActionError

        legal = self.legal_actions()
        if action not in legal:
            raise IllegalActionError(action, legal, seat=self.current_player)
        self.stakes[self.current_player] = action
        self.current_player += 1
        if self.current_player == self.num_players:
            sign = np.where(np.asarray(self.cards) >= 5, 1.0, -1.0)
            scores = np.asarray(self.stakes, dtype=float) * sign
            self._pending = scores - scores.mean()
            self.terminal = True
            self.current_player = -1

    def pop_rewards(self) -> np.ndarray:
        out, self._pending = self._pending, np.zeros(self.num_players)
        return out


def toy_obs_spec() -> ObsSpec:
    return ObsSpec(
        (
            ObsPiece("own_card", 10, "one-hot value of the seat's own card"),
            ObsPiece("seat", 8, "one-hot own seat index"),
        )
    )


class ToyCardEnv(CardGameAECEnv):
    """The toy game as a PettingZoo AEC env (same adapter as the real games)."""

    metadata = {"name": "toy_card_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(self, num_players: int = 2, render_mode: str | None = None) -> None:
        if not 2 <= num_players <= 8:
            raise ValueError(f"num_players must be 2..8, got {num_players}")
        self._n = num_players
        super().__init__(num_players, ToyEngine.num_actions, toy_obs_spec(), render_mode)

    def _new_game(self, rng: np.random.Generator, deck: list[int] | None) -> ToyEngine:
        return ToyEngine(rng, self._n, deck)

    def _encode(self, seat: int) -> np.ndarray:
        obs = np.zeros(self.obs_spec.size, dtype=np.float32)
        obs[self.game.cards[seat]] = 1.0
        obs[10 + seat] = 1.0
        return obs

    def _render_text(self) -> str:
        g = self.game
        return " | ".join(f"p{i}: card {g.cards[i]} stake {g.stakes[i]}" for i in range(g.num_players))


class ToyScriptedAgent:
    """The toy game's optimal policy: raise a high card, pass a low one."""

    name = "scripted"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def reset(self, seed: int | None = None) -> None:
        self.seed = seed

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return RAISE if action_mask[RAISE] else PASS
