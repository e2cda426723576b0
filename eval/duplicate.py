"""Duplicate-deal matches: the same shuffled deck replayed with seats exchanged.

Card luck dominates single deals of both games; replaying a deal (``reset(seed=s)``
gives the same deck) with the agents' seats exchanged makes most of it cancel. Two
formats (docs/evaluation.md#the-duplicate-format):

* ``"team"`` (a Kakeya partnership, a Toy Card seat): the agent plays every seat of one group of the
  role, the opponent the rest; the deal is replayed once per group. The advantage of a deal = mean over
  the plays of the agent's reward (the mean over its group's seats).
* ``"seat"`` (Oicho-Kabu roles): the role's seat is played once by the agent and once by the
  opponent, every other seat by a fixed reference agent. The advantage = agent's reward − opponent's
  reward on that deal.

A match is one value built before play, a ``DuplicatePlan``: the deal seeds, and for every play of a
deal who sits where (a side per seat: ``agent``, ``opponent``, ``reference``) and which seats score
it; ``describe()`` prints it. ``play_plan`` plays it on either engine and ``score`` turns the plays'
rewards into the ``MatchResult`` (the one place the formats' arithmetic lives).

Every agent is re-seeded per deal from the deal seed and its seat, so a reference
agent facing the same observations makes the same choices in both plays.

Two ways to play the plays, with the same results (same deals, same decisions, same sums):

* scalar (``batch=None``): ``play_deal`` on one AEC env, one decision at a time; every agent works (a
  search bot with ``capabilities.table`` is handed the env instead of its observation: ``agents.base``).
* batched (``batch=`` a factory of the game's batch engine): ``play_deals_batched`` plays many deals
  at once (each play of a deal is a row of the batch) and asks each agent for all its rows' decisions
  in one ``act_batch`` call, with one generator per (play, agent) seeded as ``play_deal`` re-seeds the
  agent. Only for agents with ``capabilities.batch``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import numpy as np

from kabu_envs.agents.base import BaseAgent
from kabu_envs.core.rng import make_rng
from kabu_envs.eval.stats import Summary, summarize

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
    env: Any, seat_agents: Sequence[BaseAgent], deal_seed: int, record: Recorder | None = None
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
            player = seat_agents[index[agent]]
            if player.capabilities.table:  # a search bot: it reads the table (agents.base.Capabilities)
                action = int(player.act_at_table(env))
            else:
                obs = env.observe(agent)
                action = int(player.act(obs["observation"], obs["action_mask"]))
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
    seat_agents: Sequence[Sequence[BaseAgent]],
    chunk: int | None = None,
) -> np.ndarray:
    """Play ``deal_seeds[p]`` with ``seat_agents[p]`` for every play p on a batch engine; ``(P, n)``
    total rewards, row p equal to ``play_deal(env, seat_agents[p], deal_seeds[p])``.

    Each step, the rows whose seat to act is held by the same agent go to that agent's ``act_batch``
    in one call. Rewards are summed step by step in the order ``play_deal`` sums them. ``chunk`` plays
    at most per batch (default ``CHUNK``).
    """
    if len(seat_agents) != len(deal_seeds):
        raise ValueError(f"{len(seat_agents)} seat assignments for {len(deal_seeds)} deal seeds")
    table = _listed_table(seat_agents)
    chunk = chunk or CHUNK
    totals = [
        _play_chunk(
            batch, deal_seeds[lo : lo + chunk], table, np.arange(lo, min(lo + chunk, len(deal_seeds)))
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


def _listed_table(seat_agents: Sequence[Sequence[BaseAgent]]) -> SeatTable:
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


SIDES = ("agent", "opponent", "reference")
FORMATS = ("seat", "team")


@dataclass(frozen=True)
class Play:
    """One play of a deal: ``seats[i]`` is the side that plays seat i; ``scored`` the seats whose mean
    reward is the play's result (the agent's group, or the role's seat)."""

    deal: int
    seats: tuple[str, ...]
    scored: tuple[int, ...]


@dataclass(frozen=True)
class DuplicatePlan:
    """A duplicate match before play: its deals and who plays what in each (module docstring).

    ``sides`` names who plays each side (agent names, e.g. ``(("agent", "ppo_kakeya"), ("opponent",
    "expert"))``): labels for ``describe``, the players themselves are given to ``play_plan``.
    """

    game: str
    role: str
    format: str
    seed: int
    deal_seeds: tuple[int, ...]
    plays: tuple[Play, ...]
    sides: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ValueError(f"duplicate format must be one of {FORMATS}, got {self.format!r}")
        for play in self.plays:
            bad = sorted(set(play.seats) - set(SIDES))
            if bad or not 0 <= play.deal < len(self.deal_seeds):
                raise ValueError(f"play {play}: sides must be in {SIDES}, deal < {len(self.deal_seeds)}")
        width = {len(p.seats) for p in self.plays}
        if len(width) > 1:
            raise ValueError(f"the plays seat different numbers of players: {sorted(width)}")
        twice = [d for d in range(self.deals) for _ in range(2)]
        if self.format == "seat" and [p.deal for p in self.plays] != twice:
            raise ValueError("a seat plan plays each deal twice, in order: the agent's play, the opponent's")
        for k, play in enumerate(self.plays):  # who plays the scored seats: the side the format scores
            side = ("agent", "opponent")[k % 2] if self.format == "seat" else "agent"
            if not play.scored or {play.seats[s] for s in play.scored} != {side}:
                raise ValueError(f"play {k} of a {self.format} plan must score seats held by the {side}")

    @property
    def deals(self) -> int:
        return len(self.deal_seeds)

    def deal_slice(self, lo: int, hi: int) -> DuplicatePlan:
        """The plan of deals ``lo:hi`` only (their seeds and plays, deal numbers from 0): what one worker
        process plays (``kabu_envs.eval.parallel``). Every play depends only on its deal's seed and seats,
        so the slices' rewards, joined in deal order, are the whole plan's."""
        if not 0 <= lo <= hi <= self.deals:
            raise ValueError(f"deal slice {lo}:{hi} of a plan of {self.deals} deals")
        plays = tuple(Play(p.deal - lo, p.seats, p.scored) for p in self.plays if lo <= p.deal < hi)
        return DuplicatePlan(
            self.game, self.role, self.format, self.seed, self.deal_seeds[lo:hi], plays, self.sides
        )

    def needed_sides(self) -> list[str]:
        """The sides some seat of some play is given to, in ``SIDES`` order."""
        used = {side for p in self.plays for side in p.seats}
        return [s for s in SIDES if s in used]

    def describe(self, limit: int | None = 10) -> str:
        """The plan as text: its header, then one line per play of the first ``limit`` deals (None: all)."""
        label = dict(self.sides)
        short = {"agent": "A", "opponent": "O", "reference": "R"}
        lines = [
            f"duplicate plan: {self.game}, role {self.role} ({self.format} format), match seed {self.seed}, "
            f"{self.deals} deals, {len(self.plays)} plays",
            "sides: "
            + ", ".join(
                f"{short[s]} = {s}" + (f" ({label[s]})" if s in label else "") for s in self.needed_sides()
            ),
        ]
        shown = self.deals if limit is None else min(limit, self.deals)
        for play in self.plays:
            if play.deal >= shown:
                break
            seats = " ".join(short[s] for s in play.seats)
            scored = ",".join(map(str, play.scored))
            lines.append(
                f"deal {play.deal:>5}  seed {self.deal_seeds[play.deal]:>10}  seats [{seats}]  "
                f"scored seats {scored}"
            )
        if shown < self.deals:
            lines.append(f"... ({self.deals - shown} more deals)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.describe()


def plan_from_groups(
    game: str,
    role: str,
    fmt: str,
    seed: int,
    deal_seeds: Sequence[int],
    groups: Sequence[Sequence[Sequence[int]]],
    num_players: int,
    sides: Sequence[tuple[str, str]] = (),
) -> DuplicatePlan:
    """The plan of a match whose deal d has the role's seat groups ``groups[d]``: in the ``"team"``
    format one play per group (the agent on its seats, the opponent elsewhere); in the ``"seat"``
    format the first seat of group ``d % len(groups[d])`` (the role's seat rotates deal by deal),
    played by the agent then by the opponent, the reference everywhere else."""
    if len(groups) != len(deal_seeds):
        raise ValueError(f"{len(groups)} deals' seat groups for {len(deal_seeds)} deal seeds")
    plays: list[Play] = []
    for d, deal_groups in enumerate(groups):
        if not deal_groups or not all(deal_groups):
            raise ValueError(f"deal {d}: the role has no seats ({deal_groups!r})")
        if fmt == "team":
            for team in deal_groups:
                seats = tuple("agent" if s in team else "opponent" for s in range(num_players))
                plays.append(Play(d, seats, tuple(int(s) for s in team)))
        else:
            seat = int(deal_groups[d % len(deal_groups)][0])
            for side in ("agent", "opponent"):
                seats = tuple(side if s == seat else "reference" for s in range(num_players))
                plays.append(Play(d, seats, (seat,)))
    return DuplicatePlan(
        game, role, fmt, int(seed), tuple(int(s) for s in deal_seeds), tuple(plays), tuple(sides)
    )


def play_plan(
    plan: DuplicatePlan,
    players: Mapping[str, BaseAgent],
    env: Any = None,
    batch: BatchFactory | None = None,
    record: Recorder | None = None,
) -> np.ndarray:
    """Every play's total rewards ``(plays, seats)``: on the batch engine ``batch`` makes when given
    (``play_deals_batched``), else one by one on the raw AEC ``env`` (``play_deal``, each play given to
    ``record`` when set). ``players`` maps each side the plan uses to its agent."""
    missing = [s for s in plan.needed_sides() if s not in players]
    if missing:
        raise ValueError(f"the plan needs a player for side(s) {missing}")
    seat_agents = [[players[side] for side in play.seats] for play in plan.plays]
    seeds = [plan.deal_seeds[play.deal] for play in plan.plays]
    if not plan.plays:
        return np.zeros((0, 0))
    if batch is not None:
        if record is not None:
            raise ValueError("recording the games plays them one decision at a time, not batched")
        return play_deals_batched(batch, seeds, seat_agents)
    if env is None:
        raise ValueError("play_plan needs a raw AEC env (scalar path) or a batch factory (batched path)")
    return np.array([play_deal(env, a, s, record) for a, s in zip(seat_agents, seeds, strict=True)])


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


def score(plan: DuplicatePlan, totals: np.ndarray) -> MatchResult:
    """The match's result from its plays' total rewards (``play_plan``), in the plan's format.

    ``"team"``: per play, the agent's reward is the mean over its group, the opponent's the mean over
    the other seats; a deal's advantage is the mean of the agent's over the deal's plays. ``"seat"``:
    the agent's and the opponent's rewards in the role's seat; the advantage is their difference.
    """
    if len(totals) != len(plan.plays):
        raise ValueError(f"{len(totals)} plays' rewards for a plan of {len(plan.plays)} plays")
    res = MatchResult()
    by_deal: dict[int, list[int]] = {}
    for k, play in enumerate(plan.plays):
        by_deal.setdefault(play.deal, []).append(k)
    for ks in by_deal.values():
        if plan.format == "team":
            own = []
            for k in ks:
                team_r, opp_r = _team_rewards(totals[k], plan.plays[k].scored, len(plan.plays[k].seats))
                own.append(team_r)
                res.agent_rewards.append(team_r)
                res.opponent_rewards.append(opp_r)
            res.advantages.append(float(np.mean(own)))
        else:
            mine, theirs = ks
            seat = plan.plays[mine].scored[0]
            rewards = [totals[mine][seat], totals[theirs][seat]]
            res.agent_rewards.append(float(rewards[0]))
            res.opponent_rewards.append(float(rewards[1]))
            res.advantages.append(float(rewards[0] - rewards[1]))
    return res
