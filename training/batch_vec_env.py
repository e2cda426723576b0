"""An SB3 ``VecEnv`` over the batch engine: N single-agent views stepped by one numpy engine.

Why: with ``DummyVecEnv`` copies of ``SingleAgentView`` every decision of every seat is a Python call
into an AEC env and into an agent; here the N games live in one ``kabu_envs.batch`` engine and the
other seats are played by batched agents (``act_batch``), a few numpy calls per learner step.

Row i is the view ``make_view(game, role, opponents, partner)`` (kabu_envs/wrappers/views.py) that
``DummyVecEnv.seed(s)`` + ``reset()`` would build with ``reset(seed=s + i)``: the same random stream
(one ``np.random.Generator`` per row) draws, per episode and in the view's order, the deal's seed,
the learner's seat group (and seat, ``partner="pool"``), one pool member per other seat and the seeds
those members are reset with; the learner's reward is the mean over its seats of what every engine
step since its last action paid (the terminal payout included); an episode ends with the game and
restarts at once (``infos[i]["terminal_observation"]``, VecMonitor-compatible). Opponents act with
one generator per (row, member) made as ``BaseAgent.reset(seed)`` makes its own (created only when a
member actually draws), so a stochastic member plays as that view's own copy of it would
(``act_batch(obs, masks, rngs)``, the batched-agent protocol). ``tests/test_batch_vec_env.py``
checks all this against a ``DummyVecEnv`` of views, step by step.

Speed: between two learner decisions one loop plays every row's opponents and restarts finished games
together, one engine call (and one ``act_batch`` call per pool member) per round of opponent turns
over all the rows that wait for one; the per-row work left in Python is the view's own random draws
at each deal (each row's generator, in the view's order; the seed draws from one ``random_raw``
call, ``_draw_seed``), written to the seat tables at once. A member that can act from the engine's
state (``act_engine``, ``agents.base.can_act_on_engine``: the Oicho-Kabu scripted player, the random
one) does so, and a lazy engine then encodes no observation for the opponents' turns: only the one
the learner gets at the end of ``step_wait``.

The one documented difference: ``terminal_observation`` is the batch engine's observation of a
finished game (zeros), not the learner's last view of it; the games never truncate, so PPO never reads
it (SB3 bootstraps only truncated episodes).

The engine needs ``step(actions, active=...)`` and ``reset(rows=..., seeds=...)`` (the batch
contract) and the role's ``batch_seat_groups`` (its registry record; the reference loop needs none).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from kabu_envs import batch, registry
from kabu_envs.agents.base import can_act_batched, can_act_on_engine
from kabu_envs.wrappers.single_agent import OpponentPool
from kabu_envs.wrappers.views import PARTNER_MODES, resolve_opponents

_SEED_BOUND = 2**63 - 1  # the view's seed draws: rng.integers(2**63 - 1)
_MASK64 = (1 << 64) - 1


def _draw_seed(rng: np.random.Generator, before: int = 0, after: int = 0) -> int:
    """``rng.integers(2**63 - 1)`` with ``before`` ``rng.random()`` draws just before it and ``after``
    just after (their values unused), the generator left in the same state, from one ``random_raw``
    call. Why: each restart draws the deal's and the members' seeds this way, and numpy's per-call
    cost (~3 us for ``integers``) was a tenth of the VecEnv's time.

    Exact for a 64-bit bit generator (``PCG64``, the views'): ``random()`` consumes one 64-bit output,
    and the bounded integer is numpy's Lemire method on 64-bit outputs (``bounded_lemire_uint64``: the
    high word of ``raw * 2**63 - 1``, redrawn while the low word is < 2, which happens with probability
    2**-62; the draws after it then come later, and as many more are consumed). Tested against numpy,
    the redraw with a generator set to output 0."""
    bits = rng.bit_generator
    raw = bits.random_raw(before + 1 + after).tolist()
    k = before
    m = raw[k] * _SEED_BOUND
    while m & _MASK64 < 2:  # (leftover < threshold = (2**64 - 1 - (2**63 - 2)) % (2**63 - 1) = 2)
        k += 1
        if k == len(raw):
            raw += bits.random_raw(1).tolist()
        m = raw[k] * _SEED_BOUND
    if k + 1 + after > len(raw):
        bits.random_raw(k + 1 + after - len(raw))
    return int(m >> 64)


class _RowRngs(Sequence[np.random.Generator]):
    """The generators of one pool member in some rows, each made on first use (most members never
    draw: the scripted agents are deterministic) and kept for the rest of the row's episode."""

    def __init__(self, owner: BatchVecEnv, rows: np.ndarray, slot: int) -> None:
        self._owner, self._rows, self._slot = owner, rows, slot  # (no list made: most never draw)

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, k: Any) -> Any:
        if isinstance(k, slice):
            return [self[j] for j in range(*k.indices(len(self)))]
        return self._owner._member_rng(int(self._rows[k]), self._slot)


class BatchVecEnv(VecEnv):
    """``num_envs`` single-agent views of ``game`` over one batch engine (see the module docstring).

    ``opponents``: agent names, agents or an ``OpponentPool`` (as ``make_view``); a pool is read at
    every episode start, so snapshots training adds to it are met as in the views.
    """

    def __init__(
        self,
        game: str,
        num_envs: int,
        role: str | None = None,
        opponents: Any = "scripted",
        partner: str = "self",
        seed: int | None = None,
        max_redeals: int = 1000,
        **rule_options: Any,
    ) -> None:
        if partner not in PARTNER_MODES:
            raise ValueError(f"partner must be one of {PARTNER_MODES}, got {partner!r}")
        spec = registry.get(game)
        self.game, self.role, self.partner = game, spec.role(role), partner
        self.pool = OpponentPool.of(resolve_opponents(game, opponents, seed, rule_options))
        self.max_redeals = int(max_redeals)
        self.engine = batch.make(game, batch_size=num_envs, **rule_options)
        raw = spec.make_raw_env(**rule_options)
        first = raw.possible_agents[0]
        box = raw.observation_space(first)["observation"]
        N, P = int(num_envs), self.engine.num_players
        self._rows = np.arange(N)
        self._rngs: list[np.random.Generator | None] = [None] * N  # the views' np_random
        self.learner_seats = np.zeros((N, P), dtype=bool)
        self._learner_w = np.zeros((N, P), dtype=np.float64)
        self._learner_n = np.ones(N, dtype=np.float64)
        self._seat_slot = np.full((N, P), -1, dtype=np.int64)  # member slot per seat, -1 learner
        self._slots: list[Any] = []  # every member met so far; a slot is its index
        self._slot_of: dict[int, int] = {}
        self._seeds_of: list[dict[int, int]] = [{} for _ in range(N)]  # row: slot -> reset seed
        self._rng_of: list[dict[int, np.random.Generator]] = [{} for _ in range(N)]
        self._pending = np.zeros(N, dtype=np.float64)
        self._actions: np.ndarray | None = None
        self._batched: dict[int, bool] = {}
        self._on_engine: dict[int, bool] = {}  # slot -> acts from the engine's state (act_engine)
        self._groups_of = self._group_reader()
        self._obs_shape = box.shape
        super().__init__(
            N, spaces.Box(box.low, box.high, box.shape, np.float32), spaces.Discrete(self.engine.num_actions)
        )

    # --- opponents --------------------------------------------------------------------------------
    def _slot(self, agent: Any) -> int:
        slot = self._slot_of.get(id(agent))
        if slot is None:
            slot = self._slot_of[id(agent)] = len(self._slots)
            self._slots.append(agent)
            self._batched[slot] = can_act_batched(agent)
            self._on_engine[slot] = can_act_on_engine(agent, self.engine)
        return slot

    def _member_rng(self, row: int, slot: int) -> np.random.Generator:
        """Row ``row``'s generator of member ``slot``: what ``agent.reset(seed)`` gives the view's copy."""
        rngs = self._rng_of[row]
        rng = rngs.get(slot)
        if rng is None:
            rng = rngs[slot] = np.random.Generator(np.random.PCG64(self._seeds_of[row][slot]))
        return rng

    def _act(self, slot: int, rows: np.ndarray) -> np.ndarray:
        agent = self._slots[slot]
        if self._on_engine[slot]:  # no observation read: the engine encodes none for this turn
            return np.asarray(
                agent.act_engine(self.engine, rows, rngs=_RowRngs(self, rows, slot)), dtype=np.int64
            )
        if len(rows) == self.num_envs:  # every row: the engine's arrays as they are (read only)
            obs, masks = self.engine.observation, self.engine.legal_action_mask
        else:
            obs, masks = self.engine.observation[rows], self.engine.legal_action_mask[rows]
        rngs = _RowRngs(self, rows, slot)
        if self._batched[slot]:
            return np.asarray(agent.act_batch(obs, masks, rngs=rngs), dtype=np.int64)
        # Per-row fallback for an agent that cannot act batched (self-play snapshots of the in-memory
        # model, agents without the rngs protocol): its own generator is swapped for the row's, as the
        # batched protocol defines; each row gets its own observation (an agent may keep it).
        obs, masks = obs.copy(), masks.copy()
        own = getattr(agent, "rng", None)
        out = np.empty(len(rows), dtype=np.int64)
        try:
            for k in range(len(rows)):
                if own is not None:
                    agent.rng = rngs[k]
                out[k] = agent.act(obs[k], masks[k])
        finally:
            if own is not None:
                agent.rng = own
        return out

    def _opponent_actions(self, slots: np.ndarray, moving: np.ndarray) -> np.ndarray:
        """(N,) actions: each member acts once for all the rows where it is to move."""
        rows = np.flatnonzero(moving)
        mine = slots[rows]
        first = int(mine[0])
        if (mine == first).all():  # one member moves everywhere (the common case): no grouping
            acts = np.zeros(self.num_envs, dtype=np.int64)
            acts[rows] = self._act(first, rows)
            return acts
        acts = np.zeros(self.num_envs, dtype=np.int64)
        for slot in np.unique(mine).tolist():
            at = rows[mine == slot]
            acts[at] = self._act(slot, at)
        return acts

    def _learner_reward(self) -> np.ndarray:
        """The mean over each row's learner seats of what the last engine step paid."""
        return (self.engine.rewards * self._learner_w).sum(axis=1) / self._learner_n

    def _play(self, reward: np.ndarray, done: np.ndarray, fresh: np.ndarray, final: list[Any]) -> None:
        """Play until every game waits for its learner: finished games restart (``done``; their last
        observation appended to ``final``), the other seats act. Rows restarted in this call (``fresh``)
        pay into ``_pending`` (the reward of their learner's next step), the others into ``reward``.

        One engine call per round of opponent turns over all rows at once, restarts included: the
        number of engine calls is the longest run of opponent turns of any row, not a sum of them.
        """
        eng = self.engine
        deals = np.zeros(self.num_envs, dtype=np.int64)
        while True:
            cur = eng.current_player
            over = cur < 0
            if over.any():
                rows = np.flatnonzero(over)
                first = rows[~done[rows]]
                if len(first):  # a finished game's observation is zeros (the batch contract): not read
                    final.append((first, np.zeros((len(first), *self._obs_shape), dtype=np.float32)))
                    done[first] = True
                deals[rows] += 1
                if int(deals[rows].max()) > self.max_redeals:
                    raise RuntimeError(f"the learner got no turn in {self.max_redeals} deals; check the role")
                self._deal(rows)
                fresh[rows] = True
                cur = eng.current_player
            slots = self._seat_slot[self._rows, np.maximum(cur, 0)]
            moving = (slots >= 0) & (cur >= 0)
            if not moving.any():
                return
            eng.step(self._opponent_actions(slots, moving), active=moving)
            if not eng.rewards.any():  # most opponent moves pay nothing
                continue
            paid = self._learner_reward()
            if fresh.any():
                self._pending += np.where(fresh, paid, 0.0)
                paid[fresh] = 0.0
            reward += paid

    # --- episodes ---------------------------------------------------------------------------------
    def _group_reader(self) -> Any:
        """``(engine, b) -> groups`` of the role, resolved once (``Role.batch_groups`` resolves its
        reference at every call: a row's deal pays for it otherwise)."""
        eng, role = self.engine, self.role
        if getattr(eng, "envs", None) is not None or role.batch_seat_groups is None:
            return role.batch_groups  # (the reference loop's AEC envs, or the role's own error)
        return registry.resolve(role.batch_seat_groups)

    def _seat(self, i: int, groups: Sequence[Sequence[int]], slots: list[int], cdf: list[float]) -> list[int]:
        """Row i's member slot per seat (-1: the learner's) for the deal just reset, drawn as the view
        draws its learner seats and opponents; the members' reset seeds kept for the row's episode. The
        draws are the row's own generator's, in the view's order, so this stays a loop over the rows (of
        Python lists: the table is written once for all of them); with one pool member (the common case)
        the opponents' draws are made in bulk: every other seat's uniform draw (``OpponentPool.sample``:
        ``rng.choice(1, p=[1.0])`` is one ``rng.random()``) picks the member, whose seed is drawn after
        the first one."""
        rng = self._rngs[i]
        assert rng is not None
        # rng.integers(1) draws nothing (the range has one value): skipped for a single group
        group = groups[int(rng.integers(len(groups)))] if len(groups) > 1 else groups[0]
        if self.partner != "self" and len(group) > 1:
            group = [group[int(rng.integers(len(group)))]]
        P = self._seat_slot.shape[1]
        seeds: dict[int, int] = {}
        if len(slots) == 1:
            slot = slots[0]
            row = [slot] * P
            for s in group:
                row[s] = -1
            others = row.count(slot)
            if others:  # rng.random(), rng.integers(_SEED_BOUND), rng.random(others - 1)
                seeds[slot] = _draw_seed(rng, 1, others - 1)
        else:
            mine = set(group)
            row = [-1] * P
            for s in range(P):
                if s in mine:
                    continue
                # OpponentPool.sample: rng.choice(len(members), p=p) is one rng.random() searched in the cdf
                slot = row[s] = slots[bisect.bisect_right(cdf, rng.random())]
                if slot not in seeds:
                    seeds[slot] = _draw_seed(rng)
        self._seeds_of[i] = seeds
        self._rng_of[i] = {}
        return row

    def _deal(self, rows: np.ndarray) -> None:
        """New deals in ``rows`` (the pool read now, as a view reads it at its reset), seated; the payouts
        pending for them are dropped (a deal without a learner turn is never seen by the learner).

        The draws are per row (each row's own generator, in the view's order); the seat tables are
        written once for all the rows."""
        members, p = self.pool.members()
        cdf_arr = p.cumsum()
        cdf_arr /= cdf_arr[-1]
        cdf = cdf_arr.tolist()
        slots = [self._slot(m) for m in members]
        todo = rows.tolist()
        rngs = self._rngs
        seeds = [_draw_seed(rngs[i]) for i in todo]  # rng.integers(_SEED_BOUND)
        eng = self.engine
        eng.reset(rows=rows, seeds=seeds)
        groups_of = self._groups_of
        P = self.engine.num_players
        table = np.array([self._seat(i, groups_of(eng, i), slots, cdf) for i in todo], dtype=np.int64)
        table = table.reshape(len(todo), P)
        learner = table < 0
        self._seat_slot[rows] = table
        self.learner_seats[rows] = learner
        self._learner_w[rows] = learner
        self._learner_n[rows] = learner.sum(axis=1)
        self._pending[rows] = 0.0

    # --- VecEnv API -------------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        """Every row starts a new episode; rows given a seed by ``seed()`` restart their stream."""
        for i, s in enumerate(self._seeds):
            if s is not None or self._rngs[i] is None:
                self._rngs[i] = np.random.Generator(np.random.PCG64(s))
        self._reset_seeds()
        self._reset_options()
        N = self.num_envs
        self._deal(self._rows)
        self._play(np.zeros(N), np.ones(N, dtype=bool), np.ones(N, dtype=bool), [])
        self.reset_infos = [{} for _ in range(N)]
        return self.engine.observation.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        acts, self._actions = self._actions, None
        eng = self.engine
        N = self.num_envs
        eng.step(acts)  # every row is at a learner decision; an illegal action raises naming the game
        reward = self._pending + self._learner_reward()
        self._pending[:] = 0.0
        done = np.zeros(N, dtype=bool)
        final: list[tuple[np.ndarray, np.ndarray]] = []
        self._play(reward, done, np.zeros(N, dtype=bool), final)
        infos: list[dict[str, Any]] = [{} for _ in range(N)]
        for rows, obs in final:  # (zeros: see the module docstring)
            for k, i in enumerate(rows.tolist()):
                infos[i]["terminal_observation"] = obs[k]
                infos[i]["TimeLimit.truncated"] = False
        return eng.observation.copy(), reward.astype(np.float32), done, infos

    def action_masks(self) -> np.ndarray:
        """(N, A) legal actions of every row's learner decision (what MaskablePPO needs)."""
        return self.engine.legal_action_mask.copy()

    def close(self) -> None:
        self._actions = None

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [int(indices)] if isinstance(indices, (int, np.integer)) else [int(i) for i in indices]

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """Only ``render_mode`` (None: the rows do not render) exists per row."""
        if attr_name != "render_mode":
            raise AttributeError(f"BatchVecEnv rows have no attribute {attr_name!r}")
        return [None for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(f"BatchVecEnv rows have no settable attribute {attr_name!r}")

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        """Only ``action_masks`` (sb3-contrib's ``get_action_masks`` calls it through here)."""
        if method_name != "action_masks":
            raise AttributeError(f"BatchVecEnv rows have no method {method_name!r}")
        masks = self.action_masks()
        return list(masks) if indices is None else [masks[i] for i in self._indices(indices)]

    def has_attr(self, attr_name: str) -> bool:
        return attr_name in ("render_mode", "action_masks")

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._indices(indices)]


class VecScaleReward(VecEnvWrapper):
    """Constant reward scale for the optimiser only (``kabu_envs.training.run.ScaleReward`` for a VecEnv);
    put it outside ``VecMonitor`` so that the logged episode returns stay unscaled, as with the views."""

    def __init__(self, venv: VecEnv, scale: float) -> None:
        super().__init__(venv)
        self.scale = float(scale)

    def reset(self) -> Any:
        return self.venv.reset()

    def step_wait(self) -> VecEnvStepReturn:
        obs, reward, done, infos = self.venv.step_wait()
        return obs, (reward.astype(np.float64) * self.scale).astype(np.float32), done, infos
