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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from eval.stats import Summary, summarize

RoleSeat = Callable[[Any, int], int]


def _seed(*parts: int) -> int:
    return int(np.random.SeedSequence([int(p) & 0xFFFFFFFF for p in parts]).generate_state(1)[0])


def play_deal(env: Any, seat_agents: Sequence[Any], deal_seed: int) -> np.ndarray:
    """Play one episode of an AEC env; returns each seat's total reward.

    ``seat_agents[i]`` plays seat ``i``; agents are reset per deal from ``deal_seed``
    (an agent playing several seats is reset once, from its first seat).
    """
    done: set[int] = set()
    for seat, agent in enumerate(seat_agents):
        if id(agent) not in done:
            done.add(id(agent))
            agent.reset(_seed(deal_seed, seat, 7))
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
            env.step(int(seat_agents[index[agent]].act(obs["observation"], obs["action_mask"])))
        total += [env.rewards.get(a, 0.0) for a in names]
    return total


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
) -> MatchResult:
    """Agent plays each partnership in turn on the same deal; opponent plays the rest.

    ``teams`` is a list of seat groups, or a function of the env reset to the deal that gives them.
    """
    n = len(env.possible_agents)
    res = MatchResult()
    for d in range(deals):
        deal_seed = _seed(seed, d)
        if callable(teams):
            env.reset(seed=deal_seed)
            deal_teams = teams(env)
        else:
            deal_teams = teams
        own = []
        for team in deal_teams:
            seats = [agent if s in team else opponent for s in range(n)]
            r = play_deal(env, seats, deal_seed)
            team_r = float(np.mean([r[s] for s in team]))
            opp_r = float(np.mean([r[s] for s in range(n) if s not in team]))
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
) -> MatchResult:
    """The role's seat is played by the agent, then by the opponent, on the same deal."""
    n = len(env.possible_agents)
    res = MatchResult()
    for d in range(deals):
        deal_seed = _seed(seed, d)
        env.reset(seed=deal_seed)
        seat = role_seat(env, d)
        rewards = []
        for player in (agent, opponent):
            seats = [player if s == seat else reference for s in range(n)]
            rewards.append(play_deal(env, seats, deal_seed)[seat])
        res.agent_rewards.append(float(rewards[0]))
        res.opponent_rewards.append(float(rewards[1]))
        res.advantages.append(float(rewards[0] - rewards[1]))
    return res
