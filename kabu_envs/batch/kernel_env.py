"""``KernelBatchEnv``: the one batch engine over a game's compiled rules kernel (every kernel game).

Here, once for every game: the checks of the contract, the seeding (``feed.py``: the per-game numpy
generators of a deck feed and the kernel's row streams, docs/batch.md#seeding), the feeding of shuffles,
the legality check of a step (a deck-buffer kernel's step checks the actions against each game's legal
set as bits, which it writes beside the mask; ``_check_actions`` words the error), the observation
formats (float32, or compact: the 0/1 entries bit-packed and a range of real ones as float32, one
decoder, ``feed.decode_compact``) and lazy observations (encoded when read). A game's ``batch.py``
subclasses it and gives its kernel's entry points through a few methods (below); its kernel's state is a
named record (a named tuple of arrays, or a numpy record array), read by name.

**Feeding: the general case.** A game reset with its own seed deals exactly the AEC env's deals: its
shuffles are drawn in Python, ``rng.permutation(length)`` from its ``np.random.Generator`` (the scalar
``Deck``'s draws). A kernel may stop such a game wherever it must shuffle (a new deal, a reshuffle:
lengths only the play decides); ``_feed`` then asks the kernel which games wait and for how many cards
(``_waiting``), draws their permutations and lets the kernel apply them and play on (``_resume``), until
no game waits. Oicho-Kabu's kernel pauses so at every shuffle.

**The deck buffer, a special case of it.** A kernel whose every shuffle is a whole-deck permutation
drawn at a deal, whatever the play (Kakeya, Toy Card), keeps the next deal's order in a buffer
(``state.decks``, the ``g`` columns ``FEED``/``READY``/``PREFIX``/``EPISODE``) and never stops mid-play:
a fed game *waits* as soon as it took its buffered deck (``READY`` = 0), and resuming it fills the
buffer, so its permutation is drawn one deal ahead (the same draws, as the generator is the game's own).
The base class's default entry points implement this case; a kernel that pauses (Oicho-Kabu) overrides
``_deal``, ``_advance``, ``_waiting``, ``_resume``, ``_episode_numbers`` and ``_encode_observation``.

A deck-buffer kernel module provides ``make_state(B, cfg)`` (a named tuple with ``g``,
``current_player``, ``decks``, ``rng``), ``options(cfg, autoreset)``, ``layout(cfg)``,
``outputs(...)``, the compiled ``reset_rows``, ``step`` and ``encode_rows``, ``prepare`` and the ``g``
columns ``FEED``, ``READY``, ``PREFIX``, ``EPISODE`` (docs/adding_a_game.md, "The rules kernel").
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np

from kabu_envs.batch.base import BatchEnv, DeckCheck, check_batch_size
from kabu_envs.batch.feed import check_observation_format, decode_compact, plan_reset, u64
from kabu_envs.core.rng import make_rng


class KernelBatchEnv(BatchEnv):
    """B games of one rule set on a compiled kernel (see the module docstring).

    ``real_columns`` (lo, hi): the observation's real-valued entries, kept as float32 by the compact
    format; every other entry is 0/1, packed as bits. ``lazy``: encode the observations when they are
    read, not at each step (why: a caller that plays most seats from the engine's state, the training
    VecEnv's opponents, reads the mask at every step but a game's observation only when its learner is
    to act). A lazy engine's ``observation`` is updated in place when read: read it after each step."""

    def __init__(
        self,
        kernel: ModuleType,
        config: Any,
        batch_size: int,
        *,
        num_actions: int,
        obs_size: int,
        real_columns: tuple[int, int],
        deck_size: int,
        check_deck: DeckCheck,
        autoreset: bool = False,
        observation: str = "float32",
        lazy: bool = False,
    ) -> None:
        from kabu_envs.core import kernel as core  # numba: only when a batch engine is made
        from kabu_envs.core import threads

        self._core = core
        self._threads = threads
        self._kernel = kernel
        self.config = config
        self.batch_size = B = check_batch_size(batch_size)
        self.autoreset = bool(autoreset)
        self.observation_format = check_observation_format(observation)
        self.num_players = config.num_players
        self.num_actions = num_actions
        self.obs_size = obs_size
        self._real_columns = real_columns
        self._deck_size = deck_size
        self._check_deck = check_deck
        self._lazy = bool(lazy)
        self._stale = np.zeros(B, dtype=bool)  # (lazy) games whose observation is out of date
        self._any_stale = False
        self._read = False  # (lazy) the observation was read since the last parallel step
        self._encoded = False  # (lazy) the last step encoded the observations itself
        self._rngs: list[np.random.Generator | None] = [None] * B  # the fed games' generators
        self._stream = u64(0)  # the seed of the kernel's row streams (reset(seed=s): s)
        self._all_active = np.ones(B, dtype=bool)
        self._marks = np.zeros(threads.chunks(B), dtype=np.int64)  # (the parallel step's chunks: core.kernel)
        self._wide = B >= threads.PARALLEL_MIN_ROWS  # (below: the serial step, no thread count asked)
        self._legal: np.ndarray | None = None  # each game's legal set as bits, if the kernel writes them
        self._setup()
        # a kernel that writes the legal sets checks the actions in its step; else ``_check_actions``
        # checks them, against the masks, before ``_advance``. Its check: (function, what it reads).
        self._kernel_checks = self._legal is not None
        self._first_illegal: Any
        self._check_table: np.ndarray
        if self._legal is not None:
            self._first_illegal, self._check_table = core.first_illegal_words, self._legal
        else:
            self._first_illegal = core.legality_check(self.current_player, self._mask_rows)
            self._check_table = self._mask_rows
        kernel.prepare()

    # --- the kernel's entry points: the deck-buffer kernel's (module docstring) ----------------------
    def _setup(self) -> None:
        """The state and the arrays the contract names (``current_player``, ``legal_action_mask``: a view
        of ``_mask_rows``, each game's mask padded with False; ``rewards``, ``terminated``), the
        observation buffers and ``_buffers`` (what ``state_nbytes`` counts besides the state)."""
        k, cfg, B = self._kernel, self.config, self.batch_size
        self.state = k.make_state(B, cfg)
        self._arrays = tuple(self.state)  # (what the kernel's entry points take: kakeya spec.Fields)
        self.current_player = self.state.current_player
        self._opts = k.options(cfg, self.autoreset)
        compact = self.observation_format == "compact"
        lo, hi = self._real_columns
        nbits = self.obs_size - (hi - lo)
        self._obs = np.zeros((B, 0 if compact else self.obs_size), dtype=np.float32)
        self._packed = np.zeros((B, (nbits + 7) // 8 if compact else 0), dtype=np.uint8)
        self._real = np.zeros((B, hi - lo if compact else 0), dtype=np.float32)
        # each game's mask padded to whole 8-byte words (a kernel may write them as uint64 words; the
        # padding stays False): the engine's ``legal_action_mask`` is the (B, num_actions) view of it
        self._mask_rows = mask_rows = np.zeros((B, -(-self.num_actions // 8) * 8), dtype=bool)
        self.legal_action_mask = mask_rows[:, : self.num_actions]
        # and each game's legal set as bits, 64 actions a word (what the legality check reads: a word a
        # game instead of a padded mask row, ``core.kernel.first_illegal_word_in``)
        self._legal = legal = np.zeros((B, -(-self.num_actions // 64)), dtype=np.uint64)
        self._out = k.outputs(k.layout(cfg), mask_rows, self._obs, self._packed, self._real, legal)
        self.rewards = np.zeros((B, self.num_players), dtype=np.float64)
        self.terminated = np.ones(B, dtype=bool)
        self._buffers = [mask_rows, legal, self._obs, self._packed, self._real, self.rewards, self.terminated]

    def _episode_numbers(self) -> np.ndarray:
        """(B,) each game's episode number in its row stream (``reset(rows=)`` without seeds: the next)."""
        return self.state.g[:, self._kernel.EPISODE]

    def _deal(self, rows: np.ndarray, episodes: np.ndarray, feeds: np.ndarray, prefixes: list[Any]) -> int:
        """New games in ``rows``: episode ``episodes[i]`` of the row stream, or with ``feeds[i]`` from the
        game's generator (``_rngs``), ``prefixes[i]`` (a stacked deck or None) on top. Returns how many
        fed games may wait for a shuffle."""
        k, st = self._kernel, self.state
        g = st.g
        for i, b in enumerate(rows.tolist()):
            prefix = prefixes[i] or ()
            st.decks[b, : len(prefix)] = prefix
            g[b, k.FEED], g[b, k.READY], g[b, k.PREFIX], g[b, k.EPISODE] = (
                feeds[i],
                0,
                len(prefix),
                episodes[i],
            )
            if not feeds[i]:
                st.rng[b] = self._core.seed_state(self._stream, np.uint64(b), np.uint64(episodes[i]))
        fed = int(feeds.sum())
        self._feed(fed)  # the fed games' first decks, before they deal
        k.reset_rows(rows, self._arrays, self._opts, self.rewards, self.terminated)
        return fed  # (those that dealt took their deck: the next one is drawn ahead)

    def _advance(self, acts: np.ndarray, moving: np.ndarray) -> int:
        """One action (checked by ``_check_actions``) in every live game with ``moving[b]``; returns how
        many fed games may wait. The entry of a kernel that does not check the actions itself
        (``_kernel_checks`` False: Oicho-Kabu's); a deck-buffer kernel's steps check
        (``_advance_checking``)."""
        raise NotImplementedError(f"{type(self).__name__} sets _kernel_checks False without an _advance")

    def _advance_checking(self, acts: np.ndarray, moving: np.ndarray) -> int:
        """One action in every live game with ``moving[b]``, the actions (unchecked int64 of the right
        shape) checked by the kernel in the same call first, against ``_legal``: -1 - b when game b's is
        illegal (nothing moved), else how many fed games may wait. The deck-buffer kernels' ``step``, or
        ``step_parallel`` on numba's threads (``threads.use_parallel``; the check on the threads too from
        ``threads.CHECK_MIN_ROWS`` rows)."""
        k, t = self._kernel, self._threads
        args = (
            acts,
            moving,
            self._arrays,
            self._opts,
            self.rewards,
            self.terminated,
            self._stream,
            self._out,
        )
        if self._wide and t.use_parallel(self.batch_size):
            return int(parallel_call(k.step_parallel, *args, self._legal, self._marks, t.CHECK_MIN_ROWS))
        return int(k.step(*args, self._legal))

    def _waiting(self) -> tuple[np.ndarray, np.ndarray]:
        """The fed games that wait for a shuffle and its length: here the games whose buffered deck was
        taken (a stacked prefix stays on top: only the cards below it are shuffled)."""
        k, g = self._kernel, self.state.g
        rows = np.flatnonzero((g[:, k.FEED] == 1) & (g[:, k.READY] == 0))
        return rows, self._deck_size - g[rows, k.PREFIX]

    def _resume(self, rows: np.ndarray, perms: np.ndarray) -> int:
        """Apply ``perms[i]`` (``rng.permutation`` of ``_waiting``'s length) to the cards game ``rows[i]``
        shuffles and play on; returns how many games wait again. Here: the buffer holds the next deal,
        its prefix first, the other cards in increasing order permuted (``core.rng.ordered_deck``)."""
        k, st = self._kernel, self.state
        g, D = st.g, self._deck_size
        for i, b in enumerate(rows.tolist()):
            p = int(g[b, k.PREFIX])
            if p:
                rest = np.setdiff1d(np.arange(D), st.decks[b, :p])
                st.decks[b, p:] = rest[perms[i, : D - p]]
            else:
                st.decks[b] = perms[i]
            g[b, k.READY], g[b, k.PREFIX] = 1, 0
        return 0

    def _encode_observation(self, rows: np.ndarray | None) -> None:
        """Write the mask and observation rows of the games ``rows`` (None: all) from the state."""
        target = np.arange(self.batch_size, dtype=np.int64) if rows is None else np.asarray(rows, np.int64)
        k, n = self._kernel, len(target)
        if self._wide and self._threads.use_parallel(n):
            parallel_call(
                k.encode_rows_parallel, target, self._arrays, self._opts, self._out, self._threads.chunks(n)
            )
        else:
            k.encode_rows(target, self._arrays, self._opts, self._out)

    # --- observations ----------------------------------------------------------------------------
    @property
    def observation(self) -> np.ndarray:  # type: ignore[override]  # (read-only: decoded when compact)
        """(B, obs_size) float32: each game's current player's observation (zeros where it is over)."""
        if self.observation_format == "compact":
            return decode_compact(
                self.observation_packed, self.observation_real, self._real_columns[0], self.obs_size
            )
        self._read = True  # (a lazy engine's next parallel step may encode the observations itself)
        if self._any_stale:
            self._flush_observation()
        return self._obs

    @property
    def observation_packed(self) -> np.ndarray:
        """(B, bytes) uint8, compact format: the 0/1 entries, eight to a byte (little bit order)."""
        if self._any_stale:
            self._flush_observation()
        return self._packed

    @property
    def observation_real(self) -> np.ndarray:
        """(B, hi - lo) float32, compact format: the real-valued entries ``real_columns``."""
        if self._any_stale:
            self._flush_observation()
        return self._real

    def _mark_stale(self, rows: np.ndarray | None) -> None:
        """(lazy) The observations of the games ``rows`` (None: all) are to be encoded at the next read."""
        if rows is None:
            self._stale[:] = True
            self._any_stale = True
        elif len(rows):
            self._stale[rows] = True
            self._any_stale = True

    def _flush_observation(self) -> None:
        stale = self._stale
        self._encode_observation(None if stale.all() else np.flatnonzero(stale))
        stale[:] = False
        self._any_stale = False

    def _refresh(self, rows: np.ndarray | None = None) -> None:
        """Rewrite the observations of the games ``rows`` (None: all) from the state, now or (lazy) at
        the next read (tests check a partial step's rows equal the whole-batch rewrite)."""
        if self._lazy:
            self._mark_stale(rows)
        else:
            self._encode_observation(rows)

    def state_nbytes(self) -> int:
        """Bytes of the batch's arrays (game state, mask, observation, rewards)."""
        st = self.state
        arrays = list(st) if isinstance(st, tuple) else [st]
        return int(sum(a.nbytes for a in [*arrays, *self._buffers]))

    # --- reset -----------------------------------------------------------------------------------
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
        plan = plan_reset(self, seed, seeds, decks, rows, self._check_deck)
        target = plan.rows
        if plan.stream_seed is not None:
            self._stream = u64(plan.stream_seed)
            episodes = np.zeros(len(target), dtype=np.uint64)
        else:
            episodes = self._episode_numbers()[target].astype(np.uint64) + np.uint64(1)
        feeds = np.array([s is not None for s in plan.seeds], dtype=bool)
        for i, b in enumerate(target.tolist()):
            game_seed = plan.seeds[i]
            self._rngs[b] = None if game_seed is None else make_rng(game_seed)
        self._feed(self._deal(target, episodes, feeds, plan.decks))
        self._refresh(target)

    # --- step ------------------------------------------------------------------------------------
    def step(self, actions: Any, active: Any = None) -> None:
        moving = self._all_active if active is None else self._check_active(active)
        if self._kernel_checks:
            # the kernel checks the actions before it moves any game (one call a step, on the threads
            # too), and ``_check_actions`` words the error when one is bad
            a = np.asarray(actions)
            ok = a.shape == (self.batch_size,) and a.dtype.kind in "iu"
            waiting = self._advance_checking(a.astype(np.int64, copy=False), moving) if ok else -1
            if waiting < 0:  # a bad or illegal action, nothing moved: the check's own error
                self._check_actions(actions, None if active is None else moving)
                raise AssertionError("the kernel and the check disagree on the actions")
        else:
            waiting = self._advance(self._check_actions(actions, None if active is None else moving), moving)
        if waiting:
            self._feed(waiting)
        if self._lazy:
            if self._encoded:  # (the step wrote the observations itself)
                self._encoded = False
            else:
                self._mark_stale(None if active is None else np.flatnonzero(moving))

    def _check_actions(self, actions: Any, active: np.ndarray | None = None) -> np.ndarray:
        """``BatchEnv._check_actions`` with the legality test run by the kernel (one loop, no temporaries:
        ``core.first_illegal_words`` over the legal sets, or ``core.first_illegal`` over the padded masks
        of a kernel that writes no sets); the base method words any error, naming the game."""
        a = np.asarray(actions)
        if a.shape == (self.batch_size,) and a.dtype.kind in "iu":
            acts = a.astype(np.int64, copy=False)  # (a uint64 id too large wraps below 0: illegal)
            moving = self._all_active if active is None else active
            if self._first_illegal(acts, moving, self.current_player, self._check_table) < 0:
                return acts
        return super()._check_actions(actions, active)  # raises

    def _feed(self, waiting: int) -> None:
        """Draw the shuffles the fed games wait for from each game's generator (``rng.permutation(n)``:
        the draws and the order of the scalar ``Deck``'s ``rng.shuffle`` on n cards) and let the kernel
        play on, until no game waits (a game may reach another shuffle: a new round's deck, then its
        selection draws, then a triple on the table)."""
        while waiting:
            rows, lengths = self._waiting()
            perms = np.zeros((len(rows), self._deck_size), dtype=np.int64)
            for i, (b, n) in enumerate(zip(rows.tolist(), lengths.tolist(), strict=True)):
                rng = self._rngs[b]
                if rng is None:
                    raise RuntimeError(f"game {b} waits for a shuffle but has no generator (not fed)")
                perms[i, :n] = rng.permutation(n)
            waiting = self._resume(rows, perms)


def parallel_call(entry: Any, *args: Any) -> Any:
    """``entry(*args)`` for a kernel's parallel entry point; an error raised in one of its threads
    reaches Python as a SystemError (numba's) whose cause is the kernel's own error: that is raised."""
    try:
        return entry(*args)
    except SystemError as err:
        if err.__cause__ is not None:
            raise err.__cause__ from None
        raise
