"""Oicho-Kabu, batched: B episodes stepped by the compiled rules kernel (``kernel/``; the batch contract
of ``kabu_envs.batch``), on ``KernelBatchEnv`` as every kernel game.

``make_batch(batch_size, autoreset=False, observation="float32", **rule_options)`` is the factory
``kabu_envs.batch`` finds; every rule set runs on the kernel (presets, 2..8 players, every deck, dealer
selection, sessions and dealer change, redeals, info cards, the dealer's card choice, every draw, yaku
and settling option, the unbacked spreads' card). The kernel module (and numba) is imported on the
first engine made, and compiles once (one line says so; cached after that).

``reset`` checks its input as every engine does and deals; ``step`` checks the actions against the masks
and runs the kernel over the moving games; the observation is encoded when read (``lazy``), as float32
or, with ``observation="compact"``, as bits plus numbers (``observation_packed`` and
``observation_real``, two views of one (B, C) uint8 buffer, ``observation_compact``: 116 bytes a game
with four players instead of 920; ``observation`` then decodes them). The state is the kernel's records
(``state``, a numpy record array: ``state.chips``, ``state.spreads``, ...); agents that act on the
engine read the typed decision view it offers (``decision_view()``, ``oicho_kabu/decision.py``).

Deals (docs/batch.md#seeding): a game reset with its own seed deals exactly the AEC env's ``reset(seed=
...)`` deals, **pause and resume**: the kernel stops such a game at each shuffle (a new episode, a new
round, a selection or redeal reshuffle: lengths only the play decides), ``KernelBatchEnv._feed`` draws
``rng.permutation(length)`` from the game's generator, the kernel applies it and plays on
(``kernel.resume_rows``), until no game waits. ``reset(seed=s)``, ``reset()`` and autoreset deal from
the kernel's per-row generators seeded from (s, row, episode).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kabu_envs.batch.base import BatchEnv
from kabu_envs.batch.kernel_env import KernelBatchEnv, parallel_call
from kabu_envs.core.rng import validate_deck_prefix
from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.decision import DecisionView
from kabu_envs.oicho_kabu.deck import DECK_SIZE


def _check_deck(deck: Any) -> list[int]:
    return validate_deck_prefix(deck, DECK_SIZE)


def make_batch(
    batch_size: int, autoreset: bool = False, observation: str = "float32", **rule_options: Any
) -> BatchEnv:
    """The Oicho-Kabu batch engine for ``rule_options`` (every rule set runs on the kernel)."""
    return OichoKabuBatch(batch_size, autoreset=autoreset, observation=observation, **rule_options)


class OichoKabuBatch(KernelBatchEnv):
    """B Oicho-Kabu games on the kernel (see the module docstring); the state is ``self.state``."""

    def __init__(
        self, batch_size: int, autoreset: bool = False, observation: str = "float32", **rule_options: Any
    ) -> None:
        from kabu_envs.oicho_kabu import kernel  # numba: only when a batch engine is made

        cfg = make_config(**rule_options)
        self.rules = ru = kernel.make_rules(cfg)
        lo, hi, _, _ = kernel.compact_layout(ru)
        super().__init__(
            kernel,
            cfg,
            batch_size,
            num_actions=int(ru[kernel.layout.O_ACTIONS]),
            obs_size=int(ru[kernel.O_OBS]),
            real_columns=(lo, hi),
            deck_size=DECK_SIZE,
            check_deck=_check_deck,
            autoreset=autoreset,
            observation=observation,
            lazy=True,
        )

    # --- the kernel's entry points (KernelBatchEnv): records, pause and resume ------------------------
    def _setup(self) -> None:
        k, cfg, B, n, A = self._kernel, self.config, self.batch_size, self.num_players, self.num_actions
        self.state = st = k.make_state(B, cfg)
        # the contract's arrays: views of the records' fields, the padding cut off
        self.current_player = st["current_player"]
        self._mask_rows = st["legal_action_mask"].view(np.bool_)  # (padded to 32 entries, never set)
        self.legal_action_mask = self._mask_rows[:, :A]
        self.rewards = st["rewards"][:, :n]
        self.terminated = st["terminated"]
        self._rows = np.arange(B, dtype=np.int64)
        compact = self.observation_format == "compact"
        _, _, nbytes, width = k.compact_layout(self.rules)
        # compact: one (B, C) buffer, the packed bits (padded to 4 bytes) then the numbers as float32
        self._compact = np.zeros((B, width if compact else 0), dtype=np.uint8)
        self._packed = self._compact[:, :nbytes]
        self._real = self._compact[:, nbytes:].view(np.float32) if compact else np.zeros((B, 0), np.float32)
        self._obs = np.zeros((B, 0 if compact else self.obs_size), dtype=np.float32)
        self._buffers = [self._obs, self._compact]
        self._decision = DecisionView.of_records(st, cfg, self.legal_action_mask)

    def _episode_numbers(self) -> np.ndarray:
        return self.state["episode"]

    def _deal(self, rows: np.ndarray, episodes: np.ndarray, feeds: np.ndarray, prefixes: list[Any]) -> int:
        k = len(rows)
        stacked = np.zeros((k, DECK_SIZE), dtype=np.int64)
        lengths = np.zeros(k, dtype=np.int64)
        for i, deck in enumerate(prefixes):
            if deck:
                stacked[i, : len(deck)] = deck
                lengths[i] = len(deck)
        words = np.full(k, self._stream, dtype=np.uint64)
        st, ru = self.state, self.rules
        return int(
            self._kernel.reset_rows(
                st, ru, rows, words, rows.astype(np.uint64), episodes, feeds, stacked, lengths
            )
        )

    def _advance(self, acts: np.ndarray, moving: np.ndarray) -> int:
        # (contiguous arguments only: one compiled version of each kernel function, see layout.state_dtype)
        k, acts, moving = self._kernel, np.ascontiguousarray(acts), np.ascontiguousarray(moving)
        if not (self._wide and self._threads.use_parallel(self.batch_size)):
            return int(k.step(self.state, self.rules, acts, moving, self.autoreset))
        args = (self.state, self.rules, acts, moving, self.autoreset, self._threads.chunks(self.batch_size))
        read, self._read = self._read, False
        if not read or self.observation_format != "float32":
            return int(parallel_call(k.step_parallel, *args))
        # the observations were read after the last step: each chunk encodes its games as it steps them
        waiting = int(parallel_call(k.step_encode_parallel, *args, self._obs))
        self._encoded = True
        if waiting:  # (games paused at a shuffle: encoded when read, once Python resumed them)
            self._mark_stale(np.flatnonzero(self.state["resume"]))
        return waiting

    def _waiting(self) -> tuple[np.ndarray, np.ndarray]:
        """The games paused at a shuffle, and how many cards it shuffles (those under the stacked ones)."""
        st = self.state
        rows = np.flatnonzero(st["resume"])
        return rows, st["dlen"][rows] - st["stacked"][rows]

    def _resume(self, rows: np.ndarray, perms: np.ndarray) -> int:
        return int(self._kernel.resume_rows(self.state, self.rules, rows, perms))

    def _encode_observation(self, rows: np.ndarray | None) -> None:
        """The stale games' observations (float32); compact: every game's, in one call."""
        k, st, ru = self._kernel, self.state, self.rules
        if self._wide:
            every = self.observation_format == "compact" or rows is None  # (every game's, in one call)
            n = self.batch_size if every or rows is None else len(rows)
            if self._threads.use_parallel(n):
                self._encode_parallel(rows, n)
                return
        if self.observation_format == "compact":
            c, (lo, hi) = self._compact, self._real_columns  # (all contiguous)
            seats = self.current_player.copy()
            k.encode_compact(st, ru, self._rows, seats, c, c.view(np.float32), lo, hi)
        elif rows is None:
            seats = self.current_player.copy()  # (a contiguous copy of the records' field)
            k.encode(st, ru, self._rows, seats, self._obs)
        elif len(rows):
            out = np.empty((len(rows), self.obs_size), dtype=np.float32)
            k.encode(st, ru, rows, self.current_player[rows], out)
            self._obs[rows] = out

    def _encode_parallel(self, rows: np.ndarray | None, n: int) -> None:
        """``_encode_observation`` on numba's threads (``n`` rows in chunks)."""
        k, st, ru, chunks = self._kernel, self.state, self.rules, self._threads.chunks(n)
        if self.observation_format == "compact":
            c, (lo, hi) = self._compact, self._real_columns
            seats = self.current_player.copy()
            parallel_call(
                k.encode_compact_parallel, st, ru, self._rows, seats, c, c.view(np.float32), lo, hi, chunks
            )
        elif rows is None:
            seats = self.current_player.copy()
            parallel_call(k.encode_parallel, st, ru, self._rows, seats, self._obs, chunks)
        elif len(rows):
            out = np.empty((len(rows), self.obs_size), dtype=np.float32)
            parallel_call(k.encode_parallel, st, ru, rows, self.current_player[rows], out, chunks)
            self._obs[rows] = out

    @property
    def observation_compact(self) -> np.ndarray:
        """(B, C) uint8: the compact observations as one buffer (``observation_packed``, then
        ``observation_real``'s bytes; ``kernel.compact_layout``)."""
        if self._any_stale:
            self._flush_observation()
        return self._compact

    def decision_view(self) -> DecisionView:
        """The current decisions, typed (``decision.DecisionView``: read-only views of the records' fields,
        made once; they follow the games as the engine steps)."""
        return self._decision
