"""``OichoKernelBatch``: the batch contract (``kabu_envs.batch``) on the compiled kernel.

A thin wrapper: ``reset`` checks its input as every engine does (``BatchEnv``'s helpers) and calls
``reset_rows``; ``step`` checks the actions against the masks and calls the kernel's ``step``; the
observation is encoded when read (``LazyObservationBatchEnv``), as float32 or, with
``observation="compact"``, as bits plus numbers (``observation_compact``, 116 bytes a game with four
players instead of 920; ``observation`` then decodes them). The state arrays are the kernel's, under the
numpy engine's names (``chips``, ``spreads``, ``stakes``, ...: what agents acting on an engine read).

Deals come from the kernel's per-row generators (``core.kernel``): ``reset(seed=s)`` seeds row b from
(s, b, 0), ``reset(seeds=[...])`` game i from (seeds[i], 0, 0) (a game seeded s deals as a one-game
batch seeded s), ``reset()`` from fresh entropy; each episode ``autoreset`` starts moves the row to its
next episode (s, row, e + 1). Stacked decks (``decks=``) are drawn first, the rest shuffled.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kabu_envs.batch.base import LazyObservationBatchEnv, check_batch_size
from kabu_envs.core.rng import validate_deck_prefix
from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.deck import DECK_SIZE
from kabu_envs.oicho_kabu.kernel import flow, layout, observe, prepare

OBSERVATION_FORMATS = ("float32", "compact")


def _entropy() -> int:
    """A fresh 64-bit seed from the OS (``reset()`` without a seed)."""
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0])


class OichoKernelBatch(LazyObservationBatchEnv):
    """B Oicho-Kabu games on the kernel (see the module docstring)."""

    def __init__(
        self, batch_size: int, autoreset: bool = False, observation: str = "float32", **rule_options: Any
    ) -> None:
        if observation not in OBSERVATION_FORMATS:
            raise ValueError(f"observation={observation!r}: one of {OBSERVATION_FORMATS} is expected")
        self.config = cfg = make_config(**rule_options)
        self.batch_size = B = check_batch_size(batch_size)
        self.autoreset = bool(autoreset)
        self.observation_format = observation
        self.num_players = cfg.num_players
        self.rules = ru = layout.make_rules(cfg)
        self.num_actions = int(ru[layout.O_ACTIONS])
        self.obs_size = int(ru[layout.O_OBS])
        self.state = st = layout.make_state(B, cfg)
        # the numpy engine's attribute names (``env.chips``, ...): views of the records' fields
        self._fields = layout.fields(st, cfg)
        self.current_player = self._fields["current_player"]
        self.legal_action_mask = self._fields["legal_action_mask"]
        self.rewards = self._fields["rewards"]
        self.terminated = self._fields["terminated"]
        self._rows = np.arange(B, dtype=np.int64)
        self._all = np.ones(B, dtype=bool)
        self._lo, self._hi, _, width = layout.compact_layout(ru)
        self._compact = np.zeros((B, width), dtype=np.uint8)
        self._compact_stale = True
        self._init_observation()
        prepare()

    def __getattr__(self, name: str) -> np.ndarray:
        """A state field by name (``env.spreads``: (B, 4, 3)), as the numpy engine's attributes."""
        fields = self.__dict__.get("_fields", {})
        if name in fields:
            return fields[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # --- reset and step ---------------------------------------------------------------------------
    def reset(
        self,
        seed: int | None = None,
        seeds: Sequence[int] | None = None,
        decks: Sequence[Sequence[int] | None] | None = None,
        rows: Any = None,
    ) -> None:
        picked = self._check_rows(rows)
        game_seeds, game_decks = self._resolve_seeds(None, seeds, decks, picked)
        checked = [None if d is None else validate_deck_prefix(d, DECK_SIZE) for d in game_decks]
        if seed is not None:
            self._resolve_seeds(seed, None, None, picked)  # (checks seed as the AEC env does)
        target = self._rows if picked is None else picked
        k = len(target)
        if seeds is not None:
            words = np.array([(s or 0) % (1 << 64) for s in game_seeds], dtype=np.uint64)
            keys = np.zeros(k, dtype=np.uint64)
        else:
            whole = int(seed) if seed is not None else _entropy()
            words = np.full(k, whole % (1 << 64), dtype=np.uint64)
            keys = target.astype(np.uint64)
        stacked = np.zeros((k, DECK_SIZE), dtype=np.int64)
        lengths = np.zeros(k, dtype=np.int64)
        for i, d in enumerate(checked):
            if d:
                stacked[i, : len(d)] = d
                lengths[i] = len(d)
        flow.reset_rows(self.state, self.rules, target, words, keys, stacked, lengths)
        self._mark_stale(target)
        self._compact_stale = True

    def step(self, actions: Any, active: Any = None) -> None:
        moving = self._all if active is None else self._check_active(active)
        acts = self._check_actions(actions, None if active is None else moving)
        # (contiguous arguments only: one compiled version of each kernel function, see layout.state_dtype)
        flow.step(
            self.state, self.rules, np.ascontiguousarray(acts), np.ascontiguousarray(moving), self.autoreset
        )
        self._mark_stale(None if active is None else np.flatnonzero(moving))
        self._compact_stale = True

    # --- observations -----------------------------------------------------------------------------
    def _encode_observation(self, rows: np.ndarray | None) -> None:
        if self.observation_format == "compact":
            self._observation[:] = layout.decode_compact(self.observation_compact, self.rules)
            return
        if rows is None:
            seats = self.current_player.copy()  # (a contiguous copy of the records' field)
            observe.encode(self.state, self.rules, self._rows, seats, self._observation)
        elif len(rows):
            out = np.empty((len(rows), self.obs_size), dtype=np.float32)
            observe.encode(self.state, self.rules, rows, self.current_player[rows], out)
            self._observation[rows] = out

    @property
    def observation_compact(self) -> np.ndarray:
        """(B, C) uint8: each game's current player's observation as bits plus float32 numbers
        (``kernel.compact_layout``; ``kernel.decode_compact`` gives the float32 observation back)."""
        if self._compact_stale:
            c, st, ru, lo, hi = self._compact, self.state, self.rules, self._lo, self._hi  # (all contiguous)
            seats = self.current_player.copy()
            observe.encode_compact(st, ru, self._rows, seats, c, c.view(np.float32), lo, hi)
            self._compact_stale = False
        return self._compact

    def state_nbytes(self) -> int:
        """Bytes of the batch's state arrays (game state, mask, observation, rewards)."""
        obs = self._compact if self.observation_format == "compact" else self._observation
        return int(self.state.nbytes + obs.nbytes)
