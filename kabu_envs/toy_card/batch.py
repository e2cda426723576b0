"""Toy Card, vectorised: B games per numpy call (the batch contract of ``kabu_envs.batch``).

Every game of the batch deals from its own ``np.random.Generator`` exactly as the AEC env does, so
``reset(seeds=[...])`` reproduces the AEC deals; the play itself is array arithmetic over the batch,
and ``autoreset`` deals the ended games together from the batch's own seeded stream.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kabu_envs.batch.base import BatchEnv, check_batch_size
from kabu_envs.core.rng import make_rng, ordered_deck, validate_deck_prefix
from kabu_envs.toy_card.config import make_config
from kabu_envs.toy_card.game import DECK_SIZE, NUM_ACTIONS, Action, card_value
from kabu_envs.toy_card.observation import obs_spec


def make_batch(batch_size: int, autoreset: bool = False, **rule_options: Any) -> BatchEnv:
    """The Toy Card batch engine (``kabu_envs.batch`` finds a game's engine as ``batch.py:make_batch``)."""
    return ToyCardBatch(batch_size, autoreset=autoreset, **rule_options)


def _check_deck(deck: Any) -> list[int]:
    return validate_deck_prefix(deck, DECK_SIZE)


class ToyCardBatch(BatchEnv):
    """B Toy Card games as arrays: values (B, n), stakes (B, n), the seat to act (B,)."""

    def __init__(self, batch_size: int, autoreset: bool = False, **rule_options: Any) -> None:
        self.config = make_config(**rule_options)
        self.batch_size = B = check_batch_size(batch_size)
        self.autoreset = bool(autoreset)
        self.num_players = n = self.config.num_players
        self.num_actions = NUM_ACTIONS
        spec = obs_spec(self.config)
        self.obs_size = spec.size
        self._card_at = spec.offsets["own_card"]
        self._seat_at = spec.offsets["seat"]
        self.values = np.zeros((B, n), dtype=np.int64)
        self.stakes = np.zeros((B, n), dtype=np.int64)
        self.current_player = np.full(B, -1, dtype=np.int64)
        self.legal_action_mask = np.zeros((B, NUM_ACTIONS), dtype=bool)
        self.observation = np.zeros((B, self.obs_size), dtype=np.float32)
        self.rewards = np.zeros((B, n), dtype=np.float64)
        self.terminated = np.ones(B, dtype=bool)
        self._seed_rng = make_rng()
        self._rows = np.arange(B)

    def _deal(self, b: int, seed: int | None, deck: Sequence[int] | None) -> None:
        rng = make_rng(seed)
        order = ordered_deck(rng, DECK_SIZE, () if deck is None else deck)
        self.values[b] = [card_value(c) for c in order[: self.num_players]]
        self.stakes[b] = 0
        self.current_player[b] = 0
        self.terminated[b] = False

    def reset(
        self,
        seed: int | None = None,
        seeds: Sequence[int] | None = None,
        decks: Sequence[Sequence[int] | None] | None = None,
        rows: Any = None,
    ) -> None:
        # a bad seed or stacked deck raises here, before anything changes, as the AEC env's reset does
        target, game_seeds, game_decks = self._reset_targets(seed, seeds, decks, rows, _check_deck)
        for i, b in enumerate(target.tolist()):
            self._deal(b, game_seeds[i], game_decks[i])
        self.rewards[target] = 0.0
        self._refresh()

    def _refresh(self) -> None:
        """Mask and observation of every live game, from the arrays."""
        live = self.current_player >= 0
        seat = np.where(live, self.current_player, 0)
        value = self.values[self._rows, seat]
        self.legal_action_mask[:] = live[:, None]
        self.legal_action_mask[:, Action.RAISE] = live & (value >= self.config.raise_threshold)
        self.observation[:] = 0.0
        rows = self._rows[live]
        self.observation[rows, self._card_at + value[live]] = 1.0
        self.observation[rows, self._seat_at + seat[live]] = 1.0

    def step(self, actions: Any, active: Any = None) -> None:
        moving = self._check_active(active)
        acts = self._check_actions(actions, moving)
        self.terminated[:] = self.current_player < 0
        live = (self.current_player >= 0) & moving
        rows = self._rows[live]
        self.stakes[rows, self.current_player[live]] = acts[live]
        self.current_player[live] += 1
        ended = live & (self.current_player == self.num_players)
        self.rewards[:] = 0.0
        if ended.any():
            wins = self.values[ended] >= self.config.raise_threshold
            scores = self.stakes[ended] * np.where(wins, 1.0, -1.0)
            self.rewards[ended] = scores - scores.mean(axis=1, keepdims=True)
            self.current_player[ended] = -1
            self.terminated[ended] = True
            if self.autoreset:  # new deals for the ended games, shuffled together from the batch's stream
                k = int(ended.sum())
                order = self._seed_rng.permuted(np.tile(np.arange(DECK_SIZE), (k, 1)), axis=1)
                self.values[ended] = order[:, : self.num_players] // 4
                self.stakes[ended] = 0
                self.current_player[ended] = 0
        self._refresh()
