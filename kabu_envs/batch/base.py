"""The batch-engine contract and its reference implementation over AEC envs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kabu_envs.core.errors import IllegalActionError, check_seed
from kabu_envs.core.rng import make_rng
from kabu_envs.registry import Role, groups_table

DeckCheck = Callable[[Any], list[int]]


def derive_seeds(seed: int, batch_size: int) -> list[int]:
    """Game seeds of ``reset(seed=s)``: independent streams from one seed (``SeedSequence.spawn``)."""
    children = np.random.SeedSequence(int(seed)).spawn(batch_size)
    return [int(c.generate_state(1, np.uint64)[0] >> np.uint64(1)) for c in children]


def check_batch_size(batch_size: Any) -> int:
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"batch_size={batch_size!r}: a positive integer is expected")
    return int(batch_size)


class BatchEnv:
    """B games of one rule set, stepped together (see ``kabu_envs.batch``)."""

    batch_size: int
    num_players: int
    num_actions: int
    obs_size: int
    autoreset: bool
    current_player: np.ndarray
    legal_action_mask: np.ndarray
    observation: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray

    def reset(
        self,
        seed: int | None = None,
        seeds: Sequence[int] | None = None,
        decks: Sequence[Sequence[int] | None] | None = None,
        rows: Any = None,
    ) -> None:
        """Deal every game anew, or with ``rows`` only those games (``seeds`` / ``decks`` then hold one
        entry per row; the other games and the autoreset stream are left as they are)."""
        raise NotImplementedError

    def step(self, actions: Any, active: Any = None) -> None:
        """One action per live game; with ``active`` ((B,) bool) only those games move: the others keep
        their state and report ``rewards`` 0 and ``terminated`` = "over", as a finished game does."""
        raise NotImplementedError

    def seat_table(self, role: Role, rows: Any) -> np.ndarray:
        """``role``'s seat groups in the games ``rows`` just reset: int64 ``(len(rows), G, S)``, -1 padded
        (``registry.Role``); a vectorised engine is what the role's seat function reads."""
        return role.pick(self, rows)

    # --- shared helpers ---------------------------------------------------------------------------
    def _resolve_seeds(
        self,
        seed: int | None,
        seeds: Sequence[int] | None,
        decks: Sequence[Any] | None,
        rows: np.ndarray | None = None,
    ) -> tuple[list[int | None], list[Any]]:
        """Per-game seeds and decks of a ``reset`` call (one per row of ``rows`` when given), checked as
        the AEC env's ``reset`` checks its seed: ``1.7``, ``"5"`` or ``True`` are refused, not turned
        into 1, 5, 1. Nothing is changed here (``_reset_targets`` restarts the autoreset stream)."""
        n = self.batch_size if rows is None else len(rows)
        what = "a batch" if rows is None else "rows="
        if seed is not None and seeds is not None:
            raise ValueError("reset(): give seed= or seeds=, not both")
        if seed is not None and rows is not None:
            raise ValueError("reset(rows=...): give one seed per row (seeds=...), not seed=")
        if seeds is not None:
            if len(seeds) != n:
                raise ValueError(f"reset(seeds=...): {len(seeds)} seeds for {what} of {n}")
            out: list[int | None] = [check_seed(s, f"reset(seeds=...)[{i}]") for i, s in enumerate(seeds)]
        elif seed is not None:
            whole = check_seed(seed, "reset(seed=...)")
            assert whole is not None
            out = list(derive_seeds(whole, n))
        else:
            out = [None] * n
        if decks is not None and len(decks) != n:
            raise ValueError(f"reset(decks=...): {len(decks)} decks for {what} of {n}")
        return out, list(decks) if decks is not None else [None] * n

    def _reset_targets(
        self,
        seed: int | None,
        seeds: Sequence[int] | None,
        decks: Sequence[Any] | None,
        rows: Any,
        check_deck: DeckCheck | None = None,
    ) -> tuple[np.ndarray, list[int | None], list[Any]]:
        """What a ``reset`` call deals, checked: the games (every one, or ``rows``) as an int64 array,
        with one seed and one deck (or None) per game, in that order. ``check_deck(deck)`` validates a
        stacked deck (the engine's own rule) and returns it as a list.

        Everything is checked before anything changes (the contract: a refused reset leaves the batch
        as it was); only then does a whole-batch reset restart the autoreset stream."""
        picked = self._check_rows(rows)
        game_seeds, game_decks = self._resolve_seeds(seed, seeds, decks, picked)
        if check_deck is not None:
            game_decks = [None if d is None else check_deck(d) for d in game_decks]
        if picked is None:
            # the stream autoreset draws later deals from (seeded by the batch seed, else game 0's)
            first = seed if seed is not None else game_seeds[0]
            self._seed_rng = make_rng(first)
        target = np.arange(self.batch_size, dtype=np.int64) if picked is None else picked
        return target, game_seeds, game_decks

    def _check_rows(self, rows: Any) -> np.ndarray | None:
        """``reset(rows=...)``: distinct game indices of the batch, as an int64 array (None: all)."""
        if rows is None:
            return None
        r = np.asarray(rows)
        if r.ndim != 1 or (r.size and not np.issubdtype(r.dtype, np.integer)):
            raise ValueError(f"reset(rows=...): expected a 1-d array of game indices, got {rows!r}")
        r = r.astype(np.int64)
        # increasing indices (what np.flatnonzero gives, the training VecEnv's restarts) are distinct
        # without np.unique's sort, a tenth of a small restart's cost
        distinct = bool((r[1:] > r[:-1]).all()) or np.unique(r).size == r.size
        if r.size and (r.min() < 0 or r.max() >= self.batch_size or not distinct):
            raise ValueError(
                f"reset(rows=...): distinct indices in [0, {self.batch_size}) expected, got {rows!r}"
            )
        return r

    def _check_active(self, active: Any) -> np.ndarray:
        """``step(active=...)``: which games move, as a (B,) bool array (None: every game)."""
        if active is None:
            return np.ones(self.batch_size, dtype=bool)
        a = np.asarray(active)
        if a.shape != (self.batch_size,) or a.dtype != bool:
            raise ValueError(
                f"step(active=...): expected a ({self.batch_size},) bool array, "
                f"got {a.dtype} of shape {a.shape}"
            )
        return a

    def _check_actions(self, actions: Any, active: np.ndarray | None = None) -> np.ndarray:
        """The actions of a ``step`` as int64, after checking each live (and ``active``) game's against
        its mask; an illegal one raises ``IllegalActionError`` naming the game and its legal actions.

        Every engine calls this once per step, so the check is a handful of whole-batch operations
        (one flat gather from the mask, no per-game work) and the input is not copied when it is
        already int64.
        """
        a = np.asarray(actions)
        if a.shape != (self.batch_size,) or a.dtype.kind not in "iu":
            raise ValueError(
                f"step(actions): expected {self.batch_size} integer action ids (shape ({self.batch_size},)), "
                f"got a {a.dtype} array of shape {a.shape}"
            )
        given = a
        a = a.astype(np.int64, copy=False)
        # in range: 0 <= a < num_actions as one unsigned compare (a negative id wraps to a huge one)
        inside = a.view(np.uint64) < self.num_actions
        # mode="clip": an out-of-range id reads some entry, which ``inside`` then overrules
        ok = np.take(self.legal_action_mask.reshape(-1), self._action_base() + a, mode="clip")
        ok &= inside
        ok |= self.current_player < 0  # (with autoreset a just-ended game is already live again)
        if active is not None:
            ok |= ~active
        if not ok.all():
            b = int(np.flatnonzero(~ok)[0])
            raise IllegalActionError(
                int(given[b]),
                np.flatnonzero(self.legal_action_mask[b]).tolist(),
                seat=int(self.current_player[b]),
                reason=f"game {b} of the batch",
            )
        return a

    def _action_base(self) -> np.ndarray:
        """Index of each game's first mask entry in the flattened ``(B, A)`` mask (made once)."""
        base = getattr(self, "_flat_action_base", None)
        if base is None:
            base = np.arange(self.batch_size, dtype=np.int64) * self.num_actions
            self._flat_action_base: np.ndarray = base
        return base


class LoopBatchEnv(BatchEnv):
    """B raw AEC envs behind the batch contract: exact by construction, at AEC speed.

    With ``autoreset``, ``terminated[b]`` is True on the step where game b ended (its payout is in
    ``rewards[b]``) while ``current_player[b]``, the mask and the observation already show the next deal.

    It serves every registered game and rule option, and it is what the vectorised engines are
    checked against (lockstep tests).
    """

    def __init__(self, game: str, batch_size: int, autoreset: bool = False, **rule_options: Any) -> None:
        from kabu_envs import registry

        self.batch_size = check_batch_size(batch_size)
        spec = registry.get(game)
        self.game = game
        self.autoreset = bool(autoreset)
        self._options = dict(rule_options)
        self.envs = [spec.make_raw_env(**rule_options) for _ in range(self.batch_size)]
        first = self.envs[0]
        agent = first.possible_agents[0]
        self.num_players = len(first.possible_agents)
        self.num_actions = int(first.action_space(agent).n)
        self.obs_size = int(first.observation_space(agent)["observation"].shape[0])
        B = self.batch_size
        self.current_player = np.full(B, -1, dtype=np.int64)
        self.legal_action_mask = np.zeros((B, self.num_actions), dtype=bool)
        self.observation = np.zeros((B, self.obs_size), dtype=np.float32)
        self.rewards = np.zeros((B, self.num_players), dtype=np.float64)
        self.terminated = np.ones(B, dtype=bool)
        self._seed_rng = make_rng()

    def seat_table(self, role: Role, rows: Any) -> np.ndarray:
        """``BatchEnv.seat_table`` read from the AEC envs, game by game (``Role.groups``)."""
        return groups_table([role.groups(self.envs[b]) for b in np.asarray(rows, dtype=np.int64).tolist()])

    def reset(
        self,
        seed: int | None = None,
        seeds: Sequence[int] | None = None,
        decks: Sequence[Sequence[int] | None] | None = None,
        rows: Any = None,
    ) -> None:
        target, game_seeds, game_decks = self._reset_targets(seed, seeds, decks, rows, self._check_deck)
        for i, b in enumerate(target.tolist()):
            deck = game_decks[i]
            self.envs[b].reset(seed=game_seeds[i], options=None if deck is None else {"deck": deck})
            self._sync(b)
            self.rewards[b] = 0.0

    def _check_deck(self, deck: Any) -> list[int]:
        """A stacked deck, checked by the game itself on a spare env (so a bad deck of game 5 raises
        before games 0..4 are dealt)."""
        probe = getattr(self, "_probe", None)
        if probe is None:
            from kabu_envs import registry

            probe = self._probe = registry.get(self.game).make_raw_env(**self._options)
        deck = list(deck)
        probe.reset(seed=0, options={"deck": deck})
        return deck

    def _sync(self, b: int) -> None:
        """Copy game b's turn, mask, observation and rewards into the batch arrays."""
        env = self.envs[b]
        names = env.possible_agents
        self.rewards[b] = [env.rewards.get(a, 0.0) for a in names]
        while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            if all(env.terminations[a] or env.truncations[a] for a in env.agents):
                break
            env.step(None)
            self.rewards[b] += [env.rewards.get(a, 0.0) for a in names]
        over = not env.agents or all(env.terminations[a] or env.truncations[a] for a in env.agents)
        self.terminated[b] = over
        if over:
            self.current_player[b] = -1
            self.legal_action_mask[b] = False
            self.observation[b] = 0.0
            return
        agent = env.agent_selection
        obs = env.observe(agent)
        self.current_player[b] = names.index(agent)
        self.legal_action_mask[b] = obs["action_mask"].astype(bool)
        self.observation[b] = obs["observation"]

    def step(self, actions: Any, active: Any = None) -> None:
        """Apply one action per live (and ``active``) game; with ``autoreset`` a game that ends is dealt
        anew at once (its ``rewards`` and ``terminated`` still report the end; the turn and observation
        are the new deal's)."""
        moving = self._check_active(active)
        acts = self._check_actions(actions, moving)
        self.rewards[:] = 0.0
        self.terminated[:] = self.current_player < 0
        for b, env in enumerate(self.envs):
            if self.current_player[b] < 0 or not moving[b]:  # over or held: the action is ignored
                continue
            env.step(int(acts[b]))
            self._sync(b)
            if self.autoreset and self.terminated[b]:
                paid = self.rewards[b].copy()
                env.reset(seed=int(self._seed_rng.integers(2**63 - 1)))
                self._sync(b)
                self.rewards[b] += paid
                self.terminated[b] = True
