"""An SB3 ``VecEnv`` over the batch engine: N single-agent views stepped by one numpy engine.

Why: with ``DummyVecEnv`` copies of ``SingleAgentView`` every decision of every seat is a Python call
into an AEC env and into an agent; here the N games live in one ``kabu_envs.batch`` engine and the
other seats are played by batched agents (``act_batch``), a few numpy calls per learner step.

Row i is the view ``make_view(game, role, opponents, partner)`` (kabu_envs/wrappers/views.py) that
``DummyVecEnv.seed(s)`` + ``reset()`` would build with ``reset(seed=s + i)``: the same random stream
(the numbers of one ``np.random.Generator(np.random.PCG64(s + i))`` per row) draws, per episode and
in the view's order, the deal's seed, the learner's seat group (and seat, ``partner="pool"``), one
pool member per other seat and the seeds those members are reset with; the learner's reward is the
mean over its seats of what every engine step since its last action paid (the terminal payout
included); an episode ends with the game and restarts within the same ``step_wait``
(``infos[i]["terminal_observation"]``, VecMonitor-compatible). Opponents act with one generator per
(row, member) made as ``BaseAgent.reset(seed)`` makes its own (created only when a member actually
draws), so a stochastic member plays as that view's own copy of it would (``act_batch(obs, masks,
rngs)``, the batched-agent protocol). ``tests/test_batch_vec_env.py`` checks all this against a
``DummyVecEnv`` of views, step by step.

Speed: between two learner decisions one loop plays every row's opponents, one engine call (and one
``act_batch`` call per pool member) per round of opponent turns over all the rows that wait for one;
the games that finish wait until no opponent is to move anywhere and then restart together, one deal
call per learner step rather than one per round. The views' random draws at a deal come from each
restarting row's own ``np.random.Generator`` (numpy's public API: no emulation), the deal itself from
the engine's deck feed for that deal's seed (docs/batch.md#seeding), the seat tables from the engine's
``seat_table``. A
member that can act from the engine's state (``Capabilities.engine`` and ``acts_on_engine``: the
Oicho-Kabu scripted player, the random one) does so, and a lazy engine then encodes no observation
for the opponents' turns: only the one the learner gets at the end of ``step_wait``.

The one documented difference: ``terminal_observation`` is the batch engine's observation of a
finished game (zeros), not the learner's last view of it; the games never truncate, so PPO never reads
it (SB3 bootstraps only truncated episodes).

The engine needs ``step(actions, active=...)``, ``reset(rows=..., seeds=...)`` and ``seat_table(role,
rows)`` (the batch contract: the role's own seat function on a vectorised engine, the AEC envs' groups
on the reference loop).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from kabu_envs import batch, registry
from kabu_envs.agents.features import FeatureInputs
from kabu_envs.core.rng import make_rng
from kabu_envs.wrappers.single_agent import OpponentPool
from kabu_envs.wrappers.views import PARTNER_MODES, resolve_opponents

_SEED_BOUND = 2**63 - 1  # the view's seed draws: rng.integers(2**63 - 1)


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
        self._streams: list[np.random.Generator | None] = [None] * N  # the views' np_random, per row
        self.learner_seats = np.zeros((N, P), dtype=bool)
        self._learner_w = np.zeros((N, P), dtype=np.float64)
        self._learner_n = np.ones(N, dtype=np.float64)
        self._seat_slot = np.full((N, P), -1, dtype=np.int64)  # member slot per seat, -1 learner
        self._slots: list[Any] = []  # every member met so far; a slot is its index
        self._slot_of: dict[int, int] = {}
        self._member_seed = np.full((N, 0), -1, dtype=np.int64)  # [row, slot]: the member's reset seed
        self._rng_of: dict[tuple[int, int], np.random.Generator] = {}  # (row, slot): made on first use
        self._pending = np.zeros(N, dtype=np.float64)
        self._actions: np.ndarray | None = None
        self._on_engine: dict[int, bool] = {}  # slot -> acts from the engine's state (act_engine)
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
            self._member_seed = np.pad(self._member_seed, ((0, 0), (0, 1)), constant_values=-1)
            if agent.capabilities.table:
                raise ValueError(
                    f"opponent {agent.name!r} acts only at a table (capabilities.table): it cannot play "
                    "from the batch engine's observations"
                )
            self._on_engine[slot] = agent.capabilities.engine and agent.acts_on_engine(self.engine)
        return slot

    def _member_rng(self, row: int, slot: int) -> np.random.Generator:
        """Row ``row``'s generator of member ``slot``: what ``agent.reset(seed)`` gives the view's copy."""
        rng = self._rng_of.get((row, slot))
        if rng is None:
            seed = int(self._member_seed[row, slot])
            if seed < 0:
                raise RuntimeError(f"member {slot} has no seat in row {row}'s episode")
            rng = self._rng_of[row, slot] = make_rng(seed)
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
        # rows are independent games: every agent's act_batch serves them (one that decides row by row,
        # e.g. an in-memory model or an adapted user agent, swaps in each row's generator itself)
        return np.asarray(agent.act_batch(obs, masks, rngs=_RowRngs(self, rows, slot)), dtype=np.int64)

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
        """Play until every game waits for its learner: the other seats act, and finished games restart
        (``done``; their last observation appended to ``final``). Rows restarted in this call (``fresh``)
        pay into ``_pending`` (the reward of their learner's next step), the others into ``reward``.

        One engine call per round of opponent turns over all rows at once. The games that finish wait
        until no opponent is to move anywhere and then restart together (one deal call, not one per
        round: its fixed cost is most of a small restart); as the rows are independent games this
        changes no row's play, and the rounds a restart adds overlap with other rows' waits.
        """
        eng = self.engine
        deals = np.zeros(self.num_envs, dtype=np.int64)
        while True:
            cur = eng.current_player
            slots = self._seat_slot[self._rows, np.maximum(cur, 0)]
            moving = (slots >= 0) & (cur >= 0)
            if not moving.any():
                over = cur < 0
                if not over.any():
                    return
                rows = np.flatnonzero(over)
                first = rows[~done[rows]]
                if len(first):  # a finished game's observation is zeros (the batch contract): not read
                    final.append((first, np.zeros((len(first), *self._obs_shape), dtype=np.float32)))
                    done[first] = True
                deals[rows] += 1
                most = int(deals[rows].max())
                if most > 1 and (passive := self.pool.passive_reasons()):  # as SingleAgentView.reset
                    raise RuntimeError(
                        "the learner got no turn, and no deal will give it one: " + "; ".join(passive)
                    )
                if most > self.max_redeals:
                    raise RuntimeError(f"the learner got no turn in {self.max_redeals} deals; check the role")
                self._deal(rows)
                fresh[rows] = True
                continue
            eng.step(self._opponent_actions(slots, moving), active=moving)
            if not eng.rewards.any():  # most opponent moves pay nothing
                continue
            paid = self._learner_reward()
            if fresh.any():
                self._pending += np.where(fresh, paid, 0.0)
                paid[fresh] = 0.0
            reward += paid

    # --- episodes ---------------------------------------------------------------------------------
    def _deal(self, rows: np.ndarray) -> None:
        """New deals in ``rows`` (the pool read now, as a view reads it at its reset), seated; the payouts
        pending for them are dropped (a deal without a learner turn is never seen by the learner).

        Each row draws from its own stream (the view's ``np_random``: a real ``np.random.Generator`` per
        row) what its view draws, in the view's order: the deal's seed (``rng.integers(2**63 - 1)``), its
        learner group among the role's groups (``rng.integers(G)``) and seat in it (``partner`` other than
        "self"), then per other seat one pool member (``OpponentPool.sample``: ``rng.choice(k, p)``, one
        ``rng.random()`` on the pool's cdf), and each member's reset seed after the first pick of that
        member. The engine deals each game from its seed through the deck feed (docs/batch.md#seeding)."""
        members, p = self.pool.members()
        cdf = p.cumsum()
        cdf /= cdf[-1]
        slots = np.array([self._slot(m) for m in members], dtype=np.int64)
        eng = self.engine
        m, P = len(rows), eng.num_players
        gens = [self._stream(r) for r in rows.tolist()]
        eng.reset(rows=rows, seeds=[int(rng.integers(_SEED_BOUND)) for rng in gens])
        table = eng.seat_table(self.role, rows)
        counts = (table[:, :, 0] >= 0).sum(axis=1).tolist()
        learner = np.zeros((m, P), dtype=bool)
        seats = np.full((m, P), -1, dtype=np.int64)
        seeds = self._member_seed
        seeds[rows] = -1
        for i, rng in enumerate(gens):  # views.role_learner, then SingleAgentView.reset's seats
            group = table[i, int(rng.integers(counts[i]))]
            group = group[group >= 0]
            if self.partner != "self" and len(group) > 1:
                group = group[int(rng.integers(len(group)))][None]
            learner[i, group] = True
            seen: set[int] = set()
            for s in range(P):
                if learner[i, s]:
                    continue
                which = int(np.searchsorted(cdf, rng.random(), side="right"))
                seats[i, s] = slots[which]
                if which not in seen:
                    seen.add(which)
                    seeds[rows[i], slots[which]] = int(rng.integers(_SEED_BOUND))
        if self._rng_of:  # the members' generators of the rows' last episodes
            dealt = set(rows.tolist())
            for key in [key for key in self._rng_of if key[0] in dealt]:
                del self._rng_of[key]
        self._seat_slot[rows] = seats
        self.learner_seats[rows] = learner
        self._learner_w[rows] = learner
        self._learner_n[rows] = learner.sum(axis=1)
        self._pending[rows] = 0.0

    def _stream(self, row: int) -> np.random.Generator:
        rng = self._streams[row]
        if rng is None:
            raise RuntimeError("reset() the VecEnv before it deals")
        return rng

    # --- VecEnv API -------------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        """Every row starts a new episode; rows given a seed by ``seed()`` restart their stream."""
        for i, s in enumerate(self._seeds):  # PCG64(seed), or fresh OS entropy for a row never seeded
            if s is not None or self._streams[i] is None:
                self._streams[i] = make_rng(s)
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


class VecFeatures(VecEnvWrapper):
    """Observations with the policy features appended (agents/features.py): what a network trained with
    ``policy_kwargs.features`` takes. The action masks pass through (``env_method``); a finished game's
    ``terminal_observation`` gets the features too (PPO values it on truncation)."""

    def __init__(self, venv: VecEnv, inputs: FeatureInputs) -> None:
        space = venv.observation_space
        assert isinstance(space, spaces.Box) and space.shape is not None
        # the observation's own bounds, then the features' (a game declares no range for them)
        unbounded = np.full(inputs.size, np.inf, dtype=np.float32)
        low = np.concatenate([np.broadcast_to(space.low, space.shape), -unbounded])
        high = np.concatenate([np.broadcast_to(space.high, space.shape), unbounded])
        box = spaces.Box(low.astype(np.float32), high.astype(np.float32), dtype=np.float32)
        super().__init__(venv, observation_space=box)
        self.inputs = inputs

    def reset(self) -> Any:
        return self.inputs(np.asarray(self.venv.reset()))

    def step_wait(self) -> VecEnvStepReturn:
        obs, reward, done, infos = self.venv.step_wait()
        for info in infos:
            if "terminal_observation" in info:
                info["terminal_observation"] = self.inputs(info["terminal_observation"][None])[0]
        return self.inputs(np.asarray(obs)), reward, done, infos
