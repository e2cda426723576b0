"""Oicho-Kabu, batched: B episodes stepped by the compiled rules kernel (``kernel/``; the batch contract
of ``kabu_envs.batch``).

``make_batch(batch_size, autoreset=False, observation="float32", **rule_options)`` is the factory
``kabu_envs.batch`` finds. It returns ``OichoKabuBatch`` for the rule sets ``vectorised(cfg)`` accepts
(every one today: presets, 2..8 players, every deck, dealer selection, sessions and dealer change,
redeals, info cards, the dealer's card choice, every draw, yaku and settling option, the unbacked
spreads' card) and ``LoopBatchEnv("oicho_kabu", ...)`` (B AEC envs) for any rule set a later option
makes it decline. The kernel module (and numba) is imported on the first engine made, and compiles once
(one line says so; cached after that).

``reset`` checks its input as every engine does and deals; ``step`` checks the actions against the masks
and runs the kernel over the moving games; the observation is encoded when read
(``LazyObservationBatchEnv``), as float32 or, with ``observation="compact"``, as bits plus numbers
(``observation_compact``, 116 bytes a game with four players instead of 920; ``observation`` then
decodes them). The state is the kernel's records, under the numpy engine's names (``chips``,
``spreads``, ``stakes``, ...: what agents acting on an engine read, ``act_engine``).

Deals (docs/batch.md#seeding): a game reset with its own seed (``reset(seeds=...)``, ``reset(rows=...,
seeds=...)``) deals exactly the AEC env's ``reset(seed=...)`` deals: its shuffles are drawn in Python
from ``make_rng(seed)`` as the scalar ``Deck`` draws them, **pause and resume**: the kernel stops such a
game at each shuffle (a new episode, a new round, a selection or redeal reshuffle: lengths only the play
decides), Python draws ``rng.permutation(length)``, the kernel applies it and plays on
(``kernel.resume_rows``), until no game waits. ``reset(seed=s)``, ``reset()`` and autoreset deal from
the kernel's per-row generators seeded from (s, row, episode).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kabu_envs.batch.base import BatchEnv, LazyObservationBatchEnv, LoopBatchEnv, check_batch_size
from kabu_envs.batch.feed import check_observation_format, plan_reset, u64
from kabu_envs.core.rng import make_rng, validate_deck_prefix
from kabu_envs.oicho_kabu.config import Config, make_config
from kabu_envs.oicho_kabu.deck import DECK_SIZE


def _check_deck(deck: Any) -> list[int]:
    return validate_deck_prefix(deck, DECK_SIZE)


def sees_dealer_pair(revealed: np.ndarray, dealer: np.ndarray, seat: np.ndarray, face_up: bool) -> np.ndarray:
    """Whether ``seat`` is shown the dealer's first two cards (``observation.Encoder``'s rule): once
    revealed, to the dealer, and to everyone when the second card is dealt face up (what the agents
    acting from the engine's state read, ``act_engine``)."""
    return revealed & (face_up | (seat == dealer))


def vectorised(cfg: Config) -> bool:
    """Whether ``OichoKabuBatch`` serves the rule set ``cfg`` (else ``make_batch`` falls back to the loop):
    every rule set runs on the kernel; a test narrows it to check the fallback."""
    return isinstance(cfg, Config)


def make_batch(
    batch_size: int, autoreset: bool = False, observation: str = "float32", **rule_options: Any
) -> BatchEnv:
    """The Oicho-Kabu batch engine for ``rule_options``: the kernel's where ``vectorised``, else the loop."""
    if vectorised(make_config(**rule_options)):
        return OichoKabuBatch(batch_size, autoreset=autoreset, observation=observation, **rule_options)
    check_observation_format(observation)
    if observation != "float32":
        raise ValueError(f"observation={observation!r}: the reference loop writes float32 observations")
    return LoopBatchEnv("oicho_kabu", batch_size=batch_size, autoreset=autoreset, **rule_options)


class OichoKabuBatch(LazyObservationBatchEnv):
    """B Oicho-Kabu games on the kernel (see the module docstring)."""

    def __init__(
        self, batch_size: int, autoreset: bool = False, observation: str = "float32", **rule_options: Any
    ) -> None:
        from kabu_envs.oicho_kabu import kernel  # numba: only when a batch engine is made

        self._k = kernel
        self.observation_format = check_observation_format(observation)
        self.config = cfg = make_config(**rule_options)
        self.batch_size = B = check_batch_size(batch_size)
        self.autoreset = bool(autoreset)
        self.num_players = cfg.num_players
        self.rules = ru = kernel.make_rules(cfg)
        self.num_actions = int(ru[kernel.layout.O_ACTIONS])
        self.obs_size = int(ru[kernel.O_OBS])
        self.state = st = kernel.make_state(B, cfg)
        # the numpy engine's attribute names (``env.chips``, ...): views of the records' fields
        self._fields = kernel.fields(st, cfg)
        self.current_player = self._fields["current_player"]
        self.legal_action_mask = self._fields["legal_action_mask"]
        self.rewards = self._fields["rewards"]
        self.terminated = self._fields["terminated"]
        self._rows = np.arange(B, dtype=np.int64)
        self._all = np.ones(B, dtype=bool)
        self._lo, self._hi, _, width = kernel.compact_layout(ru)
        self._compact = np.zeros((B, width), dtype=np.uint8)
        self._compact_stale = True
        self._stream = u64(0)  # the seed of the kernel's row streams (reset(seed=s): s)
        self._rngs: list[np.random.Generator | None] = [None] * B  # the fed games' generators
        self._init_observation()
        kernel.prepare()

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
        """``BatchEnv.reset``; a game given its own seed deals from that seed's numpy generator (the AEC
        env's deals), the others from the kernel's row streams (``reset(seed=s)``: stream s, episode 0;
        a later ``reset(rows=...)`` without seeds: the row's next episode)."""
        # a bad seed or stacked deck raises here, before anything changes, as the AEC env's reset does
        plan = plan_reset(self, seed, seeds, decks, rows, _check_deck)
        target = plan.rows
        episode = self.state["episode"]
        if plan.stream_seed is not None:
            self._stream = u64(plan.stream_seed)
            episodes = np.zeros(len(target), dtype=np.uint64)
        else:
            episodes = episode[target] + np.uint64(1)
        k = len(target)
        feeds = np.zeros(k, dtype=np.bool_)
        stacked = np.zeros((k, DECK_SIZE), dtype=np.int64)
        lengths = np.zeros(k, dtype=np.int64)
        for i, b in enumerate(target.tolist()):
            game_seed, deck = plan.seeds[i], plan.decks[i]
            self._rngs[b] = None if game_seed is None else make_rng(game_seed)
            feeds[i] = game_seed is not None
            if deck:
                stacked[i, : len(deck)] = deck
                lengths[i] = len(deck)
        words = np.full(k, self._stream, dtype=np.uint64)
        waiting = self._k.reset_rows(
            self.state, self.rules, target, words, target.astype(np.uint64), episodes, feeds, stacked, lengths
        )
        self._feed(waiting)
        self._mark_stale(target)
        self._compact_stale = True

    def step(self, actions: Any, active: Any = None) -> None:
        moving = self._all if active is None else self._check_active(active)
        acts = self._check_actions(actions, None if active is None else moving)
        # (contiguous arguments only: one compiled version of each kernel function, see layout.state_dtype)
        waiting = self._k.step(
            self.state, self.rules, np.ascontiguousarray(acts), np.ascontiguousarray(moving), self.autoreset
        )
        self._feed(waiting)
        self._mark_stale(None if active is None else np.flatnonzero(moving))
        self._compact_stale = True

    def _check_actions(self, actions: Any, active: np.ndarray | None = None) -> np.ndarray:
        """``BatchEnv._check_actions`` with the legality test run by the kernel (``first_illegal``: one
        loop over the records, no temporaries); the base method words any error, naming the game."""
        a = np.asarray(actions)
        if a.shape == (self.batch_size,) and a.dtype.kind in "iu":
            acts = a.astype(np.int64, copy=False)  # (a uint64 id too large wraps below 0: illegal)
            moving = self._all if active is None else active
            if self._k.first_illegal(self.state, acts, np.ascontiguousarray(moving), self.num_actions) < 0:
                return acts
        return super()._check_actions(actions, active)  # raises

    def _feed(self, waiting: int) -> None:
        """Draw the shuffles the fed games wait for, as the scalar ``Deck`` draws them from the game's
        generator (``rng.permutation(n)``: the draws and the order of ``rng.shuffle`` on n cards), and let
        the kernel play on, until no game waits (a game may reach another shuffle: a new round's deck,
        then its selection draws, then a triple on the table)."""
        st = self.state
        while waiting:
            rows = np.flatnonzero(st["resume"])
            lengths = (st["dlen"][rows] - st["stacked"][rows]).tolist()
            perms = np.zeros((len(rows), DECK_SIZE), dtype=np.int64)
            for i, b in enumerate(rows.tolist()):
                rng = self._rngs[b]
                if rng is None:
                    raise RuntimeError(f"game {b} waits for a shuffle but has no generator (not fed)")
                perms[i, : lengths[i]] = rng.permutation(lengths[i])
            waiting = self._k.resume_rows(st, self.rules, rows, perms)

    # --- observations -----------------------------------------------------------------------------
    def _refresh(self, rows: np.ndarray | None = None) -> None:
        """Encode the observations of the games ``rows`` (None: all) anew at the next read (the masks are
        the state's own; tests check a partial step's observations equal the whole-batch rewrite)."""
        self._mark_stale(rows)
        self._compact_stale = True

    def _encode_observation(self, rows: np.ndarray | None) -> None:
        if self.observation_format == "compact":
            self._observation[:] = self._k.decode_compact(self.observation_compact, self.rules)
            return
        if rows is None:
            seats = self.current_player.copy()  # (a contiguous copy of the records' field)
            self._k.encode(self.state, self.rules, self._rows, seats, self._observation)
        elif len(rows):
            out = np.empty((len(rows), self.obs_size), dtype=np.float32)
            self._k.encode(self.state, self.rules, rows, self.current_player[rows], out)
            self._observation[rows] = out

    @property
    def observation_compact(self) -> np.ndarray:
        """(B, C) uint8: each game's current player's observation as bits plus float32 numbers
        (``kernel.compact_layout``; ``kernel.decode_compact`` gives the float32 observation back)."""
        if self._compact_stale:
            c, st, ru, lo, hi = self._compact, self.state, self.rules, self._lo, self._hi  # (all contiguous)
            seats = self.current_player.copy()
            self._k.encode_compact(st, ru, self._rows, seats, c, c.view(np.float32), lo, hi)
            self._compact_stale = False
        return self._compact

    def state_nbytes(self) -> int:
        """Bytes of the batch's state arrays (game state, mask, observation, rewards)."""
        obs = self._compact if self.observation_format == "compact" else self._observation
        return int(self.state.nbytes + obs.nbytes)
