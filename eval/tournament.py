"""Matchup tables and openskill ratings from duplicate-deal matches."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kabu_envs import registry
from kabu_envs.agents.base import BaseAgent, as_agent
from kabu_envs.agents.registry import make_agent
from kabu_envs.eval.duplicate import DuplicatePlan, MatchResult
from kabu_envs.eval.games import default_role, duplicate_plan, matchup


@dataclass(frozen=True)
class LineupRecipe:
    """How a lineup was built (``build_lineup``'s arguments, the rule options as sorted JSON): what a
    worker process builds its own copy of the agents from (kabu_envs.eval.parallel)."""

    game: str
    agents: tuple[str, ...]
    opponents: tuple[str, ...]
    role: str | None
    seed: int
    options: str = "{}"
    timed: bool = False  # the agents' side counts its decisions and their CPU time (kabu-eval bench)

    @property
    def env_options(self) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.options)
        return found

    def build(self) -> Lineup:
        lineup = build_lineup(self.game, self.agents, self.opponents, self.role, self.seed, self.env_options)
        if not self.timed:
            return lineup
        from kabu_envs.eval.bench import Timed

        timed = {name: Timed(agent) for name, agent in lineup.agents.items()}
        return Lineup(timed, lineup.opponents, lineup.reference, self)


@dataclass(frozen=True)
class Lineup:
    """Every agent of a round robin, built once per run (``build_lineup``): the agents' side and the
    opponents' side by name, and the reference of a ``"seat"`` role (None: ``matchup`` builds the
    game's). A name on both sides is two copies (a control matchup needs two agents; every agent is
    re-seeded per deal, so which copy plays changes no result). ``recipe``: how it was built (None:
    from objects, which only this process has; its matches are played here)."""

    agents: Mapping[str, BaseAgent]
    opponents: Mapping[str, BaseAgent]
    reference: BaseAgent | None = None
    recipe: LineupRecipe | None = None

    def __post_init__(self) -> None:  # a user's act-only object is adapted here, once
        object.__setattr__(self, "agents", {k: as_agent(a) for k, a in self.agents.items()})
        object.__setattr__(self, "opponents", {k: as_agent(a) for k, a in self.opponents.items()})
        if self.reference is not None:
            object.__setattr__(self, "reference", as_agent(self.reference))

    def players(self, agent: str, opponent: str) -> dict[str, BaseAgent]:
        """The sides of the match ``agent`` vs ``opponent`` (and the reference, when there is one)."""
        found = {"agent": self.agents[agent], "opponent": self.opponents[opponent]}
        return found | ({"reference": self.reference} if self.reference is not None else {})


def build_lineup(
    game: str,
    agents: Sequence[str],
    opponents: Sequence[str],
    role: str | None = None,
    seed: int = 0,
    env_options: Mapping[str, Any] | None = None,
) -> Lineup:
    """Build each name once per side (raises ValueError naming a bad name before any deal is played)."""
    opts = dict(env_options or {})
    spec = registry.get(game)
    the_role = spec.role(role)
    seat = the_role.duplicate == "seat"
    recipe = LineupRecipe(
        game, tuple(agents), tuple(opponents), role, int(seed), json.dumps(opts, sort_keys=True)
    )
    return Lineup(
        {a: make_agent(game, a, seed, role=the_role.name, **opts) for a in dict.fromkeys(agents)},
        {o: make_agent(game, o, seed + 1, role=the_role.name, **opts) for o in dict.fromkeys(opponents)},
        make_agent(game, spec.reference, seed, **opts) if seat else None,
        recipe,
    )


def matchup_record(
    game: str,
    agent_name: str,
    opponent_name: str,
    role: str | None = None,
    deals: int = 1000,
    seed: int = 0,
    env_options: dict[str, Any] | None = None,
    batched: bool | None = None,
    record_dir: str | None = None,
    players: tuple[BaseAgent, BaseAgent] | None = None,
    reference: BaseAgent | None = None,
) -> tuple[dict[str, Any], MatchResult]:
    """One summary.json matchup row (agent's duplicate advantage over the opponent); ``batched`` as in
    ``kabu_envs.eval.games.matchup``; ``record_dir``: write a game record of every play there;
    ``players``: the (agent, opponent) already built for these names (else built here); ``reference``:
    the reference agent already built (else ``matchup`` builds the game's)."""
    opts = dict(env_options or {})
    role = role or default_role(game)
    if players is None:
        players = (
            make_agent(game, agent_name, seed, role=role, **opts),
            make_agent(game, opponent_name, seed + 1, role=role, **opts),
        )
    agent, opponent = players
    searched = [(p.decisions, p.seconds) for p in players]  # a search bot counts decisions and CPU time
    record = None
    if record_dir is not None:
        from kabu_envs.play.records import DealRecorder

        names = {id(agent): agent_name, id(opponent): opponent_name}
        prefix = f"{game}-{role}-{agent_name}-vs-{opponent_name}-seed{seed}".replace("/", "_")
        record = DealRecorder(record_dir, game, opts, names, registry.get(game).reference, prefix)
    res = matchup(game, agent, opponent, role, deals, seed, opts, reference, batched, record)
    counts = [(p.decisions - d, p.seconds - t) for p, (d, t) in zip(players, searched, strict=True)]
    return match_row(agent_name, opponent_name, role, res, counts), res


def match_row(
    agent_name: str, opponent_name: str, role: str, res: MatchResult, counts: Sequence[tuple[int, float]]
) -> dict[str, Any]:
    """A matchup's row from its result; ``counts``: the (decisions, CPU seconds) each side's agent made
    in the match (a search bot's ms per decision is reported when it counted any)."""
    s = res.summary()
    row = {
        "agent": agent_name,
        "opponent": opponent_name,
        "role": role,
        "games": s.n,
        "mean": s.mean,
        "ci95": [s.lo, s.hi],
        "win_rate": s.win_rate,
        "tie_rate": s.tie_rate,
        "loss_rate": s.loss_rate,
        "agent_mean_reward": res.mean_reward,
        "plays": len(res.agent_rewards),
    }
    for side, (n, seconds) in zip(("agent", "opponent"), counts, strict=True):
        if n > 0:  # this match's share of the agent's counts
            row[f"{side}_ms_per_decision"] = 1000.0 * seconds / n
            row[f"{side}_decisions"] = n
    return row


def openskill_ratings(
    results: Sequence[tuple[str, str, Sequence[float]]], tol: float = 1e-9, block: int = 1
) -> dict[str, Any]:
    """PlackettLuce ratings: every ``block`` consecutive duplicate deals are one game, won by the side
    whose summed advantage is positive (a sum within ``tol`` of 0 is a draw).

    ``block`` > 1 is for games where single deals are won by the side that takes many small pots
    and loses a few big ones (an Oicho-Kabu bettor that stakes little): a rating from the sign of
    single deals would then rank by how often, not by how much. ``results`` holds
    ``(agent, opponent, advantages)``; games are fed in interleaved order across matchups so that no
    matchup is systematically rated last.
    """
    if block < 1:
        raise ValueError(f"block must be >= 1, got {block}")
    results = [
        (a, b, [float(np.sum(adv[i : i + block])) for i in range(0, len(adv) - block + 1, block)])
        for a, b, adv in results
    ]
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    for a, b, _ in results:
        for name in (a, b):
            ratings.setdefault(name, model.rating(name=name))
    longest = max((len(adv) for _, _, adv in results), default=0)
    for i in range(longest):
        for a, b, adv in results:
            if i >= len(adv) or a == b:
                continue
            x = adv[i]
            ranks: list[float] = [0, 0] if abs(x) <= tol else ([0, 1] if x > 0 else [1, 0])
            [[ra], [rb]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
            ratings[a], ratings[b] = ra, rb
    return {
        n: {"mu": round(r.mu, 3), "sigma": round(r.sigma, 3), "ordinal": round(r.ordinal(), 3)}
        for n, r in sorted(ratings.items(), key=lambda kv: -kv[1].ordinal())
    }


def round_robin(
    game: str,
    agents: Sequence[str],
    opponents: Sequence[str],
    role: str | None = None,
    deals: int = 1000,
    seed: int = 0,
    env_options: dict[str, Any] | None = None,
    rating_block: int = 1,
    include_self: bool = False,
    batched: bool | None = None,
    record_dir: str | None = None,
    lineup: Lineup | None = None,
    workers: int | None = None,
) -> dict[str, Any]:
    """Every agent against every opponent; rows + ratings.

    Self-matches (the same name on both sides) are skipped unless ``include_self``: then they are
    control rows between differently seeded copies (not rated). ``batched`` as in
    ``kabu_envs.eval.games.matchup``; ``record_dir``: write a game record of every play there;
    ``lineup``: the agents, built once (``build_lineup``; else built here). ``workers``: processes
    playing the deals (None: every core when the run is large enough, kabu_envs.eval.parallel; the
    same results for any number); a recorded run, or a lineup built from objects, plays in process.
    """
    from kabu_envs.eval.parallel import play_matches, worker_count
    from kabu_envs.eval.progress import progress

    if lineup is None:
        lineup = build_lineup(game, agents, opponents, role, seed, env_options)
    rows, raw = [], []
    pairs = round_robin_pairs(agents, opponents, include_self)
    n = worker_count(deals * len(pairs), workers)
    recipe = lineup.recipe  # (workers build the lineup again: only one built for this run's table)
    same = recipe is not None and (recipe.game, recipe.env_options) == (game, dict(env_options or {}))
    if n > 1 and same and record_dir is None and pairs:
        opts = dict(env_options or {})
        the_role = role or default_role(game)

        def plans() -> list[tuple[str, str, DuplicatePlan]]:
            return [
                (
                    a,
                    o,
                    duplicate_plan(
                        game, the_role, deals, match_seed(seed, i, j), opts, {"agent": a, "opponent": o}
                    ),
                )
                for i, a, j, o in pairs
            ]

        played = play_matches(lineup, plans, batched, n)
        for (_, a, _, o), (res, counts) in zip(pairs, played, strict=True):
            rows.append(match_row(a, o, the_role, res, counts))
            raw.append((a, o, res.advantages))
        return {"matchups": rows, "ratings": openskill_ratings(raw, block=rating_block)}
    for i, a, j, o in progress(pairs, total=len(pairs), desc=f"{game} matchups"):
        players = (lineup.agents[a], lineup.opponents[o])
        row, res = matchup_record(
            game,
            a,
            o,
            role,
            deals,
            match_seed(seed, i, j),
            env_options,
            batched,
            record_dir,
            players,
            lineup.reference,
        )
        rows.append(row)
        raw.append((a, o, res.advantages))
    return {"matchups": rows, "ratings": openskill_ratings(raw, block=rating_block)}


def round_robin_pairs(
    agents: Sequence[str], opponents: Sequence[str], include_self: bool = False
) -> list[tuple[int, str, int, str]]:
    """(i, agent, j, opponent) of every matchup of a round robin, in play order."""
    return [
        (i, a, j, o) for i, a in enumerate(agents) for j, o in enumerate(opponents) if a != o or include_self
    ]


def match_seed(seed: int, i: int, j: int) -> int:
    """The match seed of agent i against opponent j in a round robin of run seed ``seed``."""
    return seed + 1000 * i + j


def format_table(game: str, rows: Sequence[dict[str, Any]]) -> str:
    """A fixed-width text table of matchup rows; columns widen to fit the longest name."""
    w_game = max([len("game"), len(game)]) + 2
    w_agent = max([len("agent"), *(len(r["agent"]) for r in rows)]) + 2
    w_opp = max([len("opponent"), *(len(r["opponent"]) for r in rows)]) + 2
    w_role = max([len("role"), *(len(r["role"]) for r in rows)]) + 2
    rules = [r.get("rules", "standard") for r in rows]
    w_rules = max([len("rules"), *map(len, rules)]) + 2 if any(x != "standard" for x in rules) else 0
    head = f"{'game':<{w_game}}{'agent':<{w_agent}}{'opponent':<{w_opp}}{'role':<{w_role}}"
    head += f"{'rules':<{w_rules}}" if w_rules else ""
    head += f"{'deals':>6}{'mean':>9}  {'95% CI':<19}{'win':>6}"
    lines = [head, "-" * len(head)]
    for r, rule in zip(rows, rules, strict=True):
        lo, hi = r["ci95"]
        ok = "*" if lo > 0 else " "
        win = r.get("win_rate", np.nan)
        lines.append(
            f"{game:<{w_game}}{r['agent']:<{w_agent}}{r['opponent']:<{w_opp}}{r['role']:<{w_role}}"
            + (f"{rule:<{w_rules}}" if w_rules else "")
            + f"{r['games']:>6}{r['mean']:>9.3f}  [{lo:>7.3f}, {hi:>7.3f}]{ok} {win:>5.2f}"
        )
    return "\n".join(lines)
