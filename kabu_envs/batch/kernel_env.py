"""``KernelBatchEnv``: the batch contract over a game's compiled rules kernel (issue #26).

A game's ``batch.py`` subclasses it with its kernel module (``kabu_envs/<game>/kernel``), which
provides ``State(cfg, B)`` (``.arrays``, ``.g``, ``.current_player``, ``.decks``, ``.rng``),
``options(cfg, autoreset)``, ``layout(cfg)``, ``outputs(...)``, ``reset_rows``, ``step``,
``encode_rows``, ``prepare`` and the ``g`` columns ``FEED``, ``READY``, ``PREFIX``, ``EPISODE``.
Here: the checks of the contract, the seeding (``feed.py``: the deck feed and the kernel's row
streams, docs/batch.md#seeding) and the observation formats (float32, or compact: the 0/1 entries
bit-packed and the real ones as float32).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np

from kabu_envs.batch.base import BatchEnv, DeckCheck, check_batch_size
from kabu_envs.batch.feed import DeckFeed, check_observation_format, decode_compact, plan_reset, u64


class KernelBatchEnv(BatchEnv):
    """B games of one rule set on a compiled kernel (see the module docstring)."""

    def __init__(
        self,
        kernel: ModuleType,
        config: Any,
        batch_size: int,
        *,
        num_actions: int,
        obs_size: int,
        nbits: int,
        deck_size: int,
        check_deck: DeckCheck,
        autoreset: bool = False,
        observation: str = "float32",
    ) -> None:
        self._kernel = kernel
        self.config = config
        self.batch_size = B = check_batch_size(batch_size)
        self.autoreset = bool(autoreset)
        self.observation_format = check_observation_format(observation)
        self.num_players = n = config.num_players
        self.num_actions = num_actions
        self.obs_size = obs_size
        self._check_deck = check_deck
        self.state = kernel.State(config, B)
        self._arrays = self.state.arrays
        self.current_player = self.state.current_player
        self._opts = kernel.options(config, self.autoreset)
        self._nbits = nbits  # the compact observation: entries [0, nbits) are 0/1, the rest real
        compact = self.observation_format == "compact"
        self._obs = np.zeros((B, 0 if compact else obs_size), dtype=np.float32)
        self.observation_packed = np.zeros((B, (nbits + 7) // 8 if compact else 0), dtype=np.uint8)
        self.observation_real = np.zeros((B, obs_size - nbits if compact else 0), dtype=np.float32)
        # each game's mask padded to whole 8-byte words (a kernel may write them as uint64 words; the
        # padding stays False, so an action id past the last is still illegal): the engine's
        # ``legal_action_mask`` is the (B, num_actions) view of it
        self._mask_rows = np.zeros((B, -(-num_actions // 8) * 8), dtype=bool)
        self.legal_action_mask = self._mask_rows[:, :num_actions]
        self._out = kernel.outputs(
            kernel.layout(config),
            self._mask_rows,
            self._obs,
            self.observation_packed,
            self.observation_real,
        )
        self.rewards = np.zeros((B, n), dtype=np.float64)
        self.terminated = np.ones(B, dtype=bool)
        self._feed = DeckFeed(B, deck_size)
        self._stream = u64(0)
        self._all_active = np.ones(B, dtype=bool)
        kernel.prepare()

    @property
    def observation(self) -> np.ndarray:  # type: ignore[override]  # (read-only: decoded when compact)
        """(B, obs_size) float32: each game's current player's observation (zeros where it is over)."""
        if self.observation_format == "float32":
            return self._obs
        return decode_compact(self.observation_packed, self.observation_real, self._nbits)

    def state_nbytes(self) -> int:
        """Bytes of the batch's arrays (game state, mask, observation, rewards)."""
        arrays = (*self._arrays, *self._out[1:5], self.rewards, self.terminated)
        return sum(a.nbytes for a in arrays)

    # --- reset -----------------------------------------------------------------------------------
    def reset(
        self,
        seed: int | None = None,
        seeds: Sequence[int] | None = None,
        decks: Sequence[Sequence[int] | None] | None = None,
        rows: Any = None,
    ) -> None:
        """``BatchEnv.reset``; a game given its own seed deals from the deck feed (the AEC env's deals),
        the others from the kernel's row streams (``reset(seed=s)``: stream s, episode 0)."""
        # a bad seed or stacked deck raises here, before anything changes, as the AEC env's reset does
        plan = plan_reset(self, seed, seeds, decks, rows, self._check_deck)
        k, st = self._kernel, self.state
        g = st.g
        if plan.stream_seed is not None:
            self._stream = u64(plan.stream_seed)
            g[:, k.EPISODE] = 0
        else:
            g[plan.rows, k.EPISODE] += 1
        for i, b in enumerate(plan.rows.tolist()):
            game_seed, deck = plan.seeds[i], plan.decks[i]
            if game_seed is not None:  # the deck feed
                st.decks[b] = self._feed.start(b, game_seed, deck)
                g[b, k.FEED], g[b, k.READY], g[b, k.PREFIX] = 1, 1, 0
            else:  # the row's stream, a stacked deck first
                self._feed.stop(b)
                prefix = deck or []
                st.decks[b, : len(prefix)] = prefix
                g[b, k.FEED], g[b, k.READY], g[b, k.PREFIX] = 0, 0, len(prefix)
                st.rng[b] = k.core.seed_state(self._stream, np.uint64(b), np.uint64(g[b, k.EPISODE]))
        k.reset_rows(plan.rows, self._arrays, self._opts, self.rewards, self.terminated)
        k.encode_rows(plan.rows, self._arrays, self._opts, self._out)
        self._top_up()  # (a game that deals at once took its first deck)

    def _refresh(self, rows: np.ndarray | None = None) -> None:
        """Rewrite the mask and observation of the games ``rows`` (None: all) from the state (a step
        rewrites those of the games it moved; tests check that equals the whole-batch rewrite)."""
        target = np.arange(self.batch_size, dtype=np.int64) if rows is None else np.asarray(rows, np.int64)
        self._kernel.encode_rows(target, self._arrays, self._opts, self._out)

    # --- step ------------------------------------------------------------------------------------
    def step(self, actions: Any, active: Any = None) -> None:
        moving = self._all_active if active is None else self._check_active(active)
        acts = self._check_actions(actions, None if active is None else moving)
        taken = self._kernel.step(
            acts, moving, self._arrays, self._opts, self.rewards, self.terminated, self._stream, self._out
        )
        if taken:
            self._top_up()

    def _check_actions(self, actions: Any, active: np.ndarray | None = None) -> np.ndarray:
        """``BatchEnv._check_actions`` with the legality test run by the kernel (``core.first_illegal``:
        one loop, no temporaries); the base method words any error, naming the game."""
        a = np.asarray(actions)
        if a.shape == (self.batch_size,) and a.dtype.kind in "iu":
            acts = a.astype(np.int64, copy=False)  # (a uint64 id too large wraps below 0: illegal)
            moving = self._all_active if active is None else active
            if self._kernel.core.first_illegal(acts, moving, self.current_player, self._mask_rows) < 0:
                return acts
        return super()._check_actions(actions, active)  # raises

    def _top_up(self) -> None:
        """The next deck of every fed game whose deck the kernel took."""
        k, g = self._kernel, self.state.g
        for b in np.flatnonzero((g[:, k.FEED] == 1) & (g[:, k.READY] == 0)).tolist():
            self.state.decks[b] = self._feed.next_deck(b)
            g[b, k.READY] = 1
