"""Duplicate-deal matches: the same shuffled deck replayed with seats exchanged.

Card luck dominates single deals of both games; replaying a deal (``reset(seed=s)``
gives the same deck) with the agents' seats exchanged makes most of it cancel. Two
formats (docs/baselines.md):

* ``partnership_duplicate`` (Kakeya): the agent plays every seat of one partnership,
  the opponent the rest; the deal is replayed once per partnership. The advantage of
  a deal = mean over the plays of the agent's reward (stones).
* ``role_duplicate`` (Oicho-Kabu roles): the role's seat is played once by the agent
  and once by the opponent, every other seat by a fixed reference agent. The advantage
  = agent's reward − opponent's reward on that deal.

Every agent is re-seeded per deal from the deal seed and its seat, so a reference
agent facing the same observations makes the same choices in both plays.

Two ways to play the deals, with the same results (same deals, same decisions, same sums):

* scalar (``batch=None``): ``play_deal`` on one AEC env, one decision at a time; every agent works.
* batched (``batch=`` a factory of the game's batch engine): ``play_deals_batched`` plays many deals
  at once (each play of a deal is a row of the batch) and asks each agent for all its rows' decisions
  in one ``act_batch`` call, with one generator per (play, agent) seeded as ``play_deal`` re-seeds the
  agent. Only for agents that ``can_act_batched``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import numpy as np

from kabu_envs.core.rng import make_rng
from kabu_envs.eval.stats import Summary, summarize

RoleSeat = Callable[[Any, int], int]
# (batch engine just reset, game b of it, deal index) -> the role's seat in that game
BatchRoleSeat = Callable[[Any, int, int], int]
# (batch engine just reset, the plays of its games) -> (agents, (games, seats) index into the agents)
SeatTable = Callable[[Any, np.ndarray], tuple[Sequence[Any], np.ndarray]]
# batch size -> a batch engine of the game with the match's rule options (kabu_envs.batch.make)
BatchFactory = Callable[[int], Any]
# plays (rows) per batch: large enough that numpy's per-call overhead is spread over many games
CHUNK = 4096
# (seat agents, each seat's agent seed, deal seed, actions in order, total rewards) after a scalar play:
# what ``kabu_envs.play.records.DealRecorder`` writes as a game record (``kabu-eval --record-dir``)
Recorder = Callable[[Sequence[Any], list[int], int, list[int], np.ndarray], None]


def _seed(*parts: int) -> int:
    return int(np.random.SeedSequence([int(p) & 0xFFFFFFFF for p in parts]).generate_state(1)[0])


def match_deal_seeds(seed: int, deals: int) -> list[int]:
    """The seeds of a match's deals: ``_seed(seed, d)`` for d < ``deals``."""
    return [_seed(seed, d) for d in range(deals)]


def play_deal(
    env: Any, seat_agents: Sequence[Any], deal_seed: int, record: Recorder | None = None
) -> np.ndarray:
    """Play one episode of an AEC env; returns each seat's total reward.

    ``seat_agents[i]`` plays seat ``i``; agents are reset per deal from ``deal_seed``
    (an agent playing several seats is reset once, from its first seat). ``record`` is given the
    play's actions at its end (a game record, see ``Recorder``).
    """
    first: dict[int, int] = {}
    for seat, agent in enumerate(seat_agents):
        if id(agent) not in first:
            first[id(agent)] = _seed(deal_seed, seat, 7)
            agent.reset(first[id(agent)])
    actions: list[int] = []
    env.reset(seed=deal_seed)
    names = env.possible_agents
    index = {a: i for i, a in enumerate(names)}
    total = np.zeros(len(names))
    total += [env.rewards.get(a, 0.0) for a in names]
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            if all(env.terminations[a] or env.truncations[a] for a in env.agents):
                break
            env.step(None)
        else:
            obs = env.observe(agent)
            action = int(seat_agents[index[agent]].act(obs["observation"], obs["action_mask"]))
            env.step(action)
            actions.append(action)
        total += [env.rewards.get(a, 0.0) for a in names]
    if record is not None:
        record(seat_agents, [first[id(a)] for a in seat_agents], deal_seed, actions, total)
    return total


class _DealGenerators(Sequence[np.random.Generator]):
    """The ``rngs`` of one ``act_batch`` call: agent ``k``'s generator in each of these plays.

    A generator is made on first use, seeded as ``play_deal`` re-seeds the agent (``BaseAgent.reset``
    with ``_seed(deal_seeds[play], first[play, k], 7)``, ``first`` the agent's first seat), and kept for
    the rest of the play; deterministic agents never ask, so they cost nothing (not even the seed).
    """

    def __init__(
        self,
        store: dict[tuple[int, int], np.random.Generator],
        deal_seeds: Sequence[int],
        first: np.ndarray,
        k: int,
        rows: np.ndarray,
    ) -> None:
        self.store, self.deal_seeds, self.first, self.k, self.rows = store, deal_seeds, first, k, rows

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, i: int) -> np.random.Generator: ...

    @overload
    def __getitem__(self, i: slice) -> list[np.random.Generator]: ...

    def __getitem__(self, i: int | slice) -> np.random.Generator | list[np.random.Generator]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        play = int(self.rows[i])  # raises IndexError past the end, as a Sequence must
        gen = self.store.get((play, self.k))
        if gen is None:
            seed = _seed(self.deal_seeds[play], self.first[play, self.k], 7)
            gen = self.store[(play, self.k)] = make_rng(seed)
        return gen

    def __iter__(self) -> Iterator[np.random.Generator]:
        return (self[i] for i in range(len(self)))


def play_deals_batched(
    batch: BatchFactory,
    deal_seeds: Sequence[int],
    seat_agents: Sequence[Sequence[Any]] | SeatTable,
    chunk: int | None = None,
) -> np.ndarray:
    """Play ``deal_seeds[p]`` with ``seat_agents[p]`` for every play p on a batch engine; ``(P, n)``
    total rewards, row p equal to ``play_deal(env, seat_agents[p], deal_seeds[p])``.

    ``seat_agents`` may instead be a function ``(batch_env, plays) -> (agents, table)`` asked right
    after the reset (when the seats depend on the deal, e.g. who deals): ``table[b, seat]`` indexes
    ``agents`` for game b, which plays ``plays[b]``. Each step, the rows whose seat to act is held by
    the same agent go to that agent's ``act_batch`` in one call. Rewards are summed step by step in
    the order ``play_deal`` sums them. ``chunk`` plays at most per batch (default ``CHUNK``).
    """
    if not callable(seat_agents):
        if len(seat_agents) != len(deal_seeds):
            raise ValueError(f"{len(seat_agents)} seat assignments for {len(deal_seeds)} deal seeds")
        seat_agents = _listed_table(seat_agents)
    chunk = chunk or CHUNK
    totals = [
        _play_chunk(
            batch, deal_seeds[lo : lo + chunk], seat_agents, np.arange(lo, min(lo + chunk, len(deal_seeds)))
        )
        for lo in range(0, len(deal_seeds), chunk)
    ]
    return np.concatenate(totals) if totals else np.zeros((0, 0))


def agent_indices(agents: Sequence[Any]) -> tuple[list[Any], list[int]]:
    """Distinct agents (by identity, as ``play_deal`` resets them) and each given one's index."""
    uniq: list[Any] = []
    index: dict[int, int] = {}
    for a in agents:
        if id(a) not in index:
            index[id(a)] = len(uniq)
            uniq.append(a)
    return uniq, [index[id(a)] for a in agents]


def _listed_table(seat_agents: Sequence[Sequence[Any]]) -> SeatTable:
    """The ``SeatTable`` of plays listed seat by seat."""

    def table(batch_env: Any, plays: np.ndarray) -> tuple[Sequence[Any], np.ndarray]:
        rows = [seat_agents[p] for p in plays.tolist()]
        agents, flat = agent_indices([a for row in rows for a in row])
        return agents, np.asarray(flat, dtype=np.int64).reshape(len(rows), -1)

    return table


def _play_chunk(
    batch: BatchFactory, deal_seeds: Sequence[int], seat_table: SeatTable, plays: np.ndarray
) -> np.ndarray:
    """``plays`` of ``play_deals_batched``: one batch from reset to the end of every game."""
    env = batch(len(deal_seeds))
    env.reset(seeds=[int(s) for s in deal_seeds])
    agents, table = seat_table(env, plays)
    # the seat each agent is re-seeded from in a play (its first seat; -1: not playing)
    first = np.full((len(table), len(agents)), -1, dtype=np.int64)
    for seat in range(table.shape[1] - 1, -1, -1):
        first[np.arange(len(table)), table[:, seat]] = seat
    total = np.zeros(env.rewards.shape)
    total += env.rewards
    store: dict[tuple[int, int], np.random.Generator] = {}
    actions = np.zeros(len(table), dtype=np.int64)
    while True:
        live = np.flatnonzero(env.current_player >= 0)
        if live.size == 0:
            break
        who = table[live, env.current_player[live]]
        obs, masks = env.observation, env.legal_action_mask
        for k in np.unique(who).tolist():
            sel = live[who == k]
            rngs = _DealGenerators(store, deal_seeds, first, k, sel)
            actions[sel] = agents[k].act_batch(obs[sel], masks[sel], rngs=rngs)
        env.step(actions)
        total += env.rewards
    return total


def _team_rewards(r: np.ndarray, team: Sequence[int], n: int) -> tuple[float, float]:
    """The mean reward of a partnership's seats and of the other seats (one play)."""
    team_r = float(np.mean([r[s] for s in team]))
    opp_r = float(np.mean([r[s] for s in range(n) if s not in team]))
    return team_r, opp_r


@dataclass
class MatchResult:
    """Per-deal advantages plus the agent's raw rewards (one per play)."""

    advantages: list[float] = field(default_factory=list)
    agent_rewards: list[float] = field(default_factory=list)
    opponent_rewards: list[float] = field(default_factory=list)

    def summary(self) -> Summary:
        return summarize(self.advantages)

    @property
    def mean_reward(self) -> float:
        return float(np.mean(self.agent_rewards)) if self.agent_rewards else float("nan")


def partnership_duplicate(
    env: Any,
    agent: Any,
    opponent: Any,
    teams: Sequence[Sequence[int]] | Callable[[Any], Sequence[Sequence[int]]],
    deals: int,
    seed: int = 0,
    batch: BatchFactory | None = None,
    record: Recorder | None = None,
) -> MatchResult:
    """Agent plays each partnership in turn on the same deal; opponent plays the rest.

    ``teams`` is a list of seat groups, or a function of the env reset to the deal that gives them.
    With ``batch`` (a batch-engine factory) the plays run batched (``play_deals_batched``); with
    ``record`` they run one by one and each play is recorded (``play_deal``).
    """
    if record is not None:
        batch = None
    n = len(env.possible_agents)
    plan: list[tuple[int, list[Sequence[int]]]] = []
    for deal_seed in match_deal_seeds(seed, deals):
        if callable(teams):
            env.reset(seed=deal_seed)
            deal_teams = list(teams(env))
        else:
            deal_teams = list(teams)
        plan.append((deal_seed, deal_teams))
    seat_agents = [[agent if s in team else opponent for s in range(n)] for _, ts in plan for team in ts]
    if batch is not None:
        seeds = [deal_seed for deal_seed, ts in plan for _ in ts]
        totals: Iterator[np.ndarray] = iter(play_deals_batched(batch, seeds, seat_agents))
    else:
        seats_iter = iter(seat_agents)
        totals = (play_deal(env, next(seats_iter), deal_seed, record) for deal_seed, ts in plan for _ in ts)
    res = MatchResult()
    for _, deal_teams in plan:
        own = []
        for team in deal_teams:
            team_r, opp_r = _team_rewards(next(totals), team, n)
            own.append(team_r)
            res.agent_rewards.append(team_r)
            res.opponent_rewards.append(opp_r)
        res.advantages.append(float(np.mean(own)))
    return res


def role_duplicate(
    env: Any,
    agent: Any,
    opponent: Any,
    reference: Any,
    role_seat: RoleSeat,
    deals: int,
    seed: int = 0,
    batch: BatchFactory | None = None,
    batch_role_seat: BatchRoleSeat | None = None,
    record: Recorder | None = None,
) -> MatchResult:
    """The role's seat is played by the agent, then by the opponent, on the same deal.

    With ``batch`` (a batch-engine factory) the plays run batched (``play_deals_batched``); the seat
    of each deal is then read from the batch engine with ``batch_role_seat`` when given (no AEC reset
    per deal), else from ``env`` reset to the deal as in the scalar path. With ``record`` the plays
    run one by one and each is recorded (``play_deal``).
    """
    if record is not None:
        batch = None
    n = len(env.possible_agents)
    deal_seeds = match_deal_seeds(seed, deals)
    seats: list[int] = []
    players, (ka, ko, kr) = agent_indices([agent, opponent, reference])

    def seat_table(batch_env: Any, plays: np.ndarray) -> tuple[Sequence[Any], np.ndarray]:
        """Plays 2d and 2d + 1 are deal d's: the agent's play, then the opponent's."""
        if batch_role_seat is not None:
            seats.extend(
                batch_role_seat(batch_env, b, int(p) // 2) for b, p in enumerate(plays) if p % 2 == 0
            )
        table = np.full((len(plays), n), kr, dtype=np.int64)
        table[np.arange(len(plays)), np.asarray(seats)[plays // 2]] = np.where(plays % 2 == 0, ka, ko)
        return players, table

    plays = [s for s in deal_seeds for _ in range(2)]
    if batch is not None and batch_role_seat is not None:
        totals = list(play_deals_batched(batch, plays, seat_table))
    else:
        for d, deal_seed in enumerate(deal_seeds):
            env.reset(seed=deal_seed)
            seats.append(role_seat(env, d))
        seat_agents = [
            [player if s == seat else reference for s in range(n)]
            for seat in seats
            for player in (agent, opponent)
        ]
        if batch is not None:
            totals = list(play_deals_batched(batch, plays, seat_agents))
        else:
            totals = [play_deal(env, a, s, record) for a, s in zip(seat_agents, plays, strict=True)]
    res = MatchResult()
    for d, seat in enumerate(seats):
        rewards = [totals[2 * d][seat], totals[2 * d + 1][seat]]
        res.agent_rewards.append(float(rewards[0]))
        res.opponent_rewards.append(float(rewards[1]))
        res.advantages.append(float(rewards[0] - rewards[1]))
    return res
