"""Gap to a best response: an absolute quality number for any agent in a role.

For a game whose ``plans.py`` names a best-response factory (``BEST_RESPONSE``, see
``kabu_envs.eval.plans``), and a role of the ``"seat"`` duplicate format (the other seats are the
game's ``reference`` agents, as in the evaluation):

    gap = mean over deals of (best response's reward - agent's reward)

on the same deals (the duplicate evaluation's seeds and seat rotation: common random numbers), each
deal played twice from the same deck: once with the agent in the role's seat, once with the best
response there. The difference is paired, so the interval is tight where the two play alike. The
best response is computed by the game (it knows the reference policies and sees only what its seat
sees), so the gap is >= 0 up to noise; how exact it is, is the game's business
(docs/studies/best_response.md).

``python -m kabu_envs.eval.best_response --game oicho_kabu --role bettor --agents expert scripted
--deals 500`` prints a table (``--json`` writes the rows).

The factory's protocol: ``factory(role, seed, **options) -> player``; per play of a deal
``player.begin(state, seat, seat_agents, deal)``, then at each of the seat's turns ``player.act(state,
seat, observation, action_mask) -> action`` (it plays) or ``player.regret(state, seat, observation,
action_mask, action) -> chips`` (an agent plays; what the best response's choice gains there),
``state`` being the raw env's ``game`` (read only to simulate, never to peek). Optionally
``factory.check_rules(role, **options)`` raises a ValueError for a role and rule set it does not model
(the demo then leaves that setting's gaps out).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kabu_envs import registry
from kabu_envs.agents.base import as_agent
from kabu_envs.batch import engine_factory
from kabu_envs.eval.duplicate import _seed, play_deal, play_deals_batched
from kabu_envs.eval.games import batch_factory, duplicate_plan
from kabu_envs.eval.plans import best_response_ref
from kabu_envs.eval.stats import summarize


@dataclass
class BestResponsePlay:
    """The best response's reward per deal, the seat it held, and what it cost."""

    deal_seeds: list[int]
    seats: list[int]
    rewards: np.ndarray
    cpu_seconds: float
    decisions: dict[str, int]

    @property
    def cpu_per_deal(self) -> float:
        return self.cpu_seconds / max(1, len(self.deal_seeds))


def agent_seed(deal_seed: int, seat: int) -> int:
    """The seed an agent is reset with for a deal, seen from ``seat`` (the first seat of the table's
    reference when the measured seat is 0): one rule for the gap and its cross-check."""
    return _seed(deal_seed, seat, 7)


def br_table(
    game: str,
    role: str | None,
    seed: int,
    env_options: dict[str, Any] | None,
    br_options: dict[str, Any],
    reference: str | None = None,
) -> tuple[Any, Any, Any, Any]:
    """(role record, best response, reference agent, raw env) of one evaluation's table; ``reference``
    names the agent on the other seats (default: the game's reference; the exploitability yardstick,
    ``kabu_envs.training.exploit``, puts the agent it measures there). Public: the OpenSpiel cross-check
    (``kabu_envs.training.crosscheck``) builds the same table."""
    from kabu_envs.agents.registry import make_agent

    opts = dict(env_options or {})
    spec = registry.get(game)
    the_role = _role(game, role)
    br = _factory(game)(role=the_role.name, seed=seed, **br_options, **opts)
    table = make_agent(game, reference or spec.reference, seed, **opts)
    return the_role, br, table, spec.make_raw_env(**opts)


def _factory(game: str) -> Any:
    """The game's best-response factory (its ``plans.BEST_RESPONSE``, see the module docstring)."""
    ref = best_response_ref(game)
    if ref is None:
        title = registry.get(game).title
        raise ValueError(f"{title} has no best response (its plans.py names no BEST_RESPONSE)")
    return registry.resolve(ref)


def _role(game: str, role: str | None) -> registry.Role:
    spec = registry.get(game)
    if best_response_ref(game) is None:
        raise ValueError(f"{spec.title} has no best response (its plans.py names no BEST_RESPONSE)")
    the_role = spec.role(role)
    if the_role.duplicate != "seat":
        raise ValueError(f"role {the_role.name!r} is not played seat by seat against reference seats")
    return the_role


def refusal(game: str, role: str, env_options: dict[str, Any]) -> str | None:
    """Why the game's best response does not model ``role`` under these rules (None: it does), from
    its factory's optional ``check_rules`` (see the module docstring)."""
    check = getattr(_factory(game), "check_rules", None)
    if check is None:
        return None
    try:
        check(role, **env_options)
    except ValueError as e:
        return str(e)
    return None


def deal_plan(
    game: str, role: str | None, seed: int, deals: int, env_options: dict[str, Any]
) -> tuple[Any, ...]:
    """The evaluation's deals of a match with this seed: (deal seeds, the role's seat in each), as the
    duplicate evaluation's plan seats them (``eval.games.duplicate_plan``)."""
    plan = duplicate_plan(game, _role(game, role).name, deals, seed, env_options)
    return list(plan.deal_seeds), [play.scored[0] for play in plan.plays[::2]]


def play_best_response(
    game: str,
    role: str | None,
    deal_seeds: Sequence[int],
    seats: Sequence[int],
    env_options: dict[str, Any] | None = None,
    seed: int = 0,
    **br_options: Any,
) -> BestResponsePlay:
    """The best response in ``seats[d]`` of deal ``deal_seeds[d]``, every other seat the game's
    reference agent, re-seeded per deal as the duplicate evaluation re-seeds it."""
    the_role, br, reference, env = br_table(game, role, seed, env_options, br_options)
    names = env.possible_agents
    rewards = np.zeros(len(deal_seeds))
    t0 = time.process_time()
    for d, (deal_seed, seat) in enumerate(zip(deal_seeds, seats, strict=True)):
        first = 0 if seat != 0 else 1  # the reference's first seat (play_deal re-seeds it from there)
        reference.reset(agent_seed(deal_seed, first))
        env.reset(seed=deal_seed)
        seat_agents = [reference] * len(names)
        br.begin(env.game, seat, seat_agents, deal=int(deal_seed))
        total = env.rewards.get(names[seat], 0.0)
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
            else:
                obs = env.observe(agent)
                i = names.index(agent)
                if i == seat:
                    a = br.act(env.game, seat, obs["observation"], obs["action_mask"])
                else:
                    a = reference.act(obs["observation"], obs["action_mask"])
                env.step(int(a))
            total += env.rewards.get(names[seat], 0.0)
        rewards[d] = total
    cpu = time.process_time() - t0
    return BestResponsePlay(list(deal_seeds), list(seats), rewards, cpu, dict(getattr(br, "decisions", {})))


@dataclass
class RegretPlay:
    """Per agent, its summed regret on each deal (the gap estimator), and what it cost."""

    regrets: dict[str, np.ndarray]
    rewards: dict[str, np.ndarray]
    cpu_seconds: float
    decisions: dict[str, int]
    deals: int

    @property
    def cpu_per_deal(self) -> float:
        """CPU seconds per deal for all the agents together."""
        return self.cpu_seconds / max(1, self.deals)


def play_regrets(
    game: str,
    role: str | None,
    agents: dict[str, Any],
    deal_seeds: Sequence[int],
    seats: Sequence[int],
    env_options: dict[str, Any] | None = None,
    seed: int = 0,
    reference: str | None = None,
    **br_options: Any,
) -> RegretPlay:
    """Each agent plays ``seats[d]`` of deal ``deal_seeds[d]`` (the reference agent, or the one
    ``reference`` names, on every other seat,
    everyone re-seeded per deal as the duplicate evaluation does); at each of its turns the best
    response says how many chips its own choice would gain there (``player.regret``). A deal's
    regrets summed = the best response's advantage over the agent on that deal, in expectation
    (the performance-difference identity; docs/evaluation.md#gap-to-a-best-response)."""
    the_role, br, table, env = br_table(game, role, seed, env_options, br_options, reference)
    names = env.possible_agents
    regrets = {name: np.zeros(len(deal_seeds)) for name in agents}
    rewards = {name: np.zeros(len(deal_seeds)) for name in agents}
    t0 = time.process_time()
    for d, (deal_seed, seat) in enumerate(zip(deal_seeds, seats, strict=True)):
        for name, agent in agents.items():
            table.reset(agent_seed(deal_seed, 0 if seat != 0 else 1))
            agent.reset(agent_seed(deal_seed, seat))
            env.reset(seed=deal_seed)
            br.begin(env.game, seat, [table] * len(names), deal=int(deal_seed))
            total = env.rewards.get(names[seat], 0.0)
            while env.agents:
                who = env.agent_selection
                if env.terminations[who] or env.truncations[who]:
                    env.step(None)
                else:
                    obs = env.observe(who)
                    if names.index(who) == seat:
                        a = int(agent.act(obs["observation"], obs["action_mask"]))
                        regrets[name][d] += br.regret(
                            env.game, seat, obs["observation"], obs["action_mask"], a
                        )
                    else:
                        a = int(table.act(obs["observation"], obs["action_mask"]))
                    env.step(a)
                total += env.rewards.get(names[seat], 0.0)
            rewards[name][d] = total
    cpu = time.process_time() - t0
    return RegretPlay(regrets, rewards, cpu, dict(getattr(br, "decisions", {})), len(deal_seeds))


def agent_rewards(
    game: str,
    agent: Any,
    deal_seeds: Sequence[int],
    seats: Sequence[int],
    env_options: dict[str, Any] | None = None,
    seed: int = 0,
) -> np.ndarray:
    """``agent``'s reward in ``seats[d]`` of each deal, the reference agent on every other seat
    (batched when the game and both agents can)."""
    from kabu_envs.agents.registry import make_agent

    env_options = dict(env_options or {})
    spec = registry.get(game)
    reference = make_agent(game, spec.reference, seed, **env_options)
    env = spec.make_raw_env(**env_options)
    n = len(env.possible_agents)
    seat_agents = [[agent if s == seat else reference for s in range(n)] for seat in seats]
    agent = as_agent(agent)
    if agent.capabilities.batch and reference.capabilities.batch and engine_factory(game) is not None:
        totals = play_deals_batched(batch_factory(game, env_options), list(deal_seeds), seat_agents)
    else:
        totals = np.array([play_deal(env, a, s) for a, s in zip(seat_agents, deal_seeds, strict=True)])
    return totals[np.arange(len(seats)), np.asarray(seats)]


def gap_row(
    agent_name: str, role: str, rules: str, per_deal: np.ndarray | Sequence[float], method: str
) -> dict[str, Any]:
    """One ``best_response`` row of summary.json (``per_deal``: the estimator's value on each deal)."""
    s = summarize(np.asarray(per_deal, dtype=np.float64).tolist())
    return {
        "agent": agent_name,
        "role": role,
        "rules": rules,
        "gap": s.mean,
        "ci95": [s.lo, s.hi],
        "deals": s.n,
        "method": method,
        "zero_rate": s.tie_rate,
    }


def gaps(
    game: str,
    role: str | None,
    agent_names: Sequence[str],
    deals: int,
    seed: int = 0,
    env_options: dict[str, Any] | None = None,
    realized: bool = False,
    reference: str | None = None,
    **br_options: Any,
) -> tuple[list[dict[str, Any]], float, dict[str, int]]:
    """The gap rows of these agents in ``role``, the best response's CPU seconds per deal and its
    decision counts. ``reference``: the agent on the other seats (default: the game's; the regret
    estimator only). ``realized``: the paired difference of the chips actually won on each deal (the
    best response plays the deal, then each agent) instead of the summed regrets."""
    from kabu_envs.agents.registry import make_agent

    env_options = dict(env_options or {})
    the_role = _role(game, role)
    seeds, seats = deal_plan(game, the_role.name, seed, deals, env_options)
    rules = rules_name(game, env_options)
    agents = {name: make_agent(game, name, seed, role=the_role.name, **env_options) for name in agent_names}
    if realized:
        if reference is not None:
            raise ValueError(
                "realized=True plays the game's reference on the other seats; leave reference out"
            )
        br = play_best_response(game, the_role.name, seeds, seats, env_options, seed, **br_options)
        rows = [
            gap_row(
                n,
                the_role.name,
                rules,
                br.rewards - agent_rewards(game, a, seeds, seats, env_options, seed),
                "realized",
            )
            for n, a in agents.items()
        ]
        return rows, br.cpu_per_deal, br.decisions
    play = play_regrets(game, the_role.name, agents, seeds, seats, env_options, seed, reference, **br_options)
    rows = [gap_row(n, the_role.name, rules, play.regrets[n], "regret") for n in agents]
    return rows, play.cpu_per_deal, play.decisions


def rules_name(game: str, env_options: dict[str, Any]) -> str:
    """The rule set's name for the rows (the preset, ``+`` when options change it)."""
    cfg_options = registry.get(game).config(**env_options).options
    name = str(cfg_options.get("rules", "default"))
    extra = sorted(k for k in env_options if k != "rules")
    return name + ("+" + ",".join(extra) if extra else "")


def format_rows(rows: Sequence[dict[str, Any]]) -> str:
    out = ["| role | agent | rules | deals | gap | 95% CI |", "|---|---|---|---:|---:|---|"]
    for r in rows:
        lo, hi = r["ci95"]
        head = f"| {r['role']} | {r['agent']} | {r['rules']} | {r['deals']} |"
        out.append(f"{head} {r['gap']:+.3f} | [{lo:+.3f}, {hi:+.3f}] |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    ap = argparse.ArgumentParser(prog="python -m kabu_envs.eval.best_response", description=__doc__)
    ap.add_argument("--game", default="oicho_kabu")
    ap.add_argument("--role", default=None)
    ap.add_argument("--agents", nargs="+", default=["random", "scripted", "expert"])
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument(
        "--seed", type=int, default=0, help="the match seed (the evaluation's deals of that seed)"
    )
    ap.add_argument(
        "--samples", type=int, default=None, help="Monte Carlo samples per decision (the game's default)"
    )
    ap.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="a rule option (JSON value)"
    )
    ap.add_argument("--json", default=None, help="write the rows here")
    ap.add_argument(
        "--realized",
        action="store_true",
        help="paired chips actually won (best response vs agent) instead of the summed regrets",
    )
    args = ap.parse_args(argv)
    env_options: dict[str, Any] = {}
    for kv in args.option:
        k, sep, v = kv.partition("=")
        if not sep:
            ap.error(f"--option needs KEY=VALUE, got {kv!r}")
        try:
            env_options[k] = json.loads(v)
        except json.JSONDecodeError:
            env_options[k] = v
    br_options = {} if args.samples is None else {"samples": args.samples}
    rows, cpu, decisions = gaps(
        args.game, args.role, args.agents, args.deals, args.seed, env_options, args.realized, **br_options
    )
    print(format_rows(rows))
    print(f"best response: {cpu * 1000:.1f} ms CPU per deal (all agents); decisions {decisions}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "cpu_per_deal": cpu, "decisions": decisions}, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
