"""``kabu-eval bench``: the benchmark protocol, a report card for anyone's agent.

    kabu-eval bench --game kakeya --agent my_agent.py:MyAgent [--deals N] [--json card.json] [--exploit]

The agent (any name ``kabu-eval`` takes, a policy-file folder, or a user's class ``file.py:Class`` /
``package.module:Class`` with at least ``act(observation, action_mask) -> int``) meets the game's
reference field (its ``plans.BENCH``: random, the hand-written players, the strongest shipped network)
in each role it plays, on held-out duplicate deals whose seeds are part of the protocol's version
(``bench_seed``): every agent meets an opponent on the same deals, so two cards compare row by row.
The card holds, per row, the deals, the mean advantage per deal with its 95% CI, the win and tie
rates and the agent's milliseconds per decision. ``--exploit`` adds the exploitability yardstick's row
(``kabu-train exploit``, run as a command: it trains, and needs the ``train`` extra).

``python -m kabu_envs.eval.bench cards`` benches every shipped agent and writes its card to
reports/bench/<game>/<agent>.json (``make demo-full`` runs it); ``python -m kabu_envs.eval.bench
leaderboard [--write]`` prints (writes) docs/leaderboard.md from those cards (docs/benchmark.md says how
to add one's own).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kabu_envs import registry
from kabu_envs.agents.base import BaseAgent, as_agent
from kabu_envs.core.declared import BenchPlan

REPO = Path(__file__).resolve().parents[1]
CARDS = REPO / "reports" / "bench"
LEADERBOARD = REPO / "docs" / "leaderboard.md"


def bench_seed(plan: BenchPlan, game: str, role: str, opponent: str) -> int:
    """The match seed of one row: the protocol's seed and a hash of what the row meets (game, role,
    opponent, version), never of the agent under test: every card's row k is played on the same deals."""
    key = json.dumps([plan.version, game, role, opponent]).encode()
    h = int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big") % 1_000_000
    return plan.seed + 7919 * (3000 + h)


class Timed(BaseAgent):
    """An agent with a stopwatch: its decisions and the CPU time they took (the card's ms/decision).

    It plays exactly as the agent it wraps (same capabilities, same calls, the same generators), so a
    timed row has the results of an untimed one."""

    def __init__(self, inner: BaseAgent) -> None:
        super().__init__(seed=None)
        self.inner = inner
        self.name = inner.name
        self.capabilities = inner.capabilities
        self.decisions = 0
        self.seconds = 0.0

    def _clock(self, rows: int, started: float) -> None:
        self.decisions += rows
        self.seconds += time.process_time() - started

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        t = time.process_time()
        action = self.inner.act(observation, action_mask)
        self._clock(1, t)
        return action

    def act_batch(
        self,
        observations: np.ndarray,
        action_masks: np.ndarray,
        rngs: Sequence[np.random.Generator] | None = None,
    ) -> np.ndarray:
        t = time.process_time()
        actions = self.inner.act_batch(observations, action_masks, rngs)
        self._clock(len(actions), t)
        return actions

    def acts_on_engine(self, engine: Any) -> bool:
        return self.inner.acts_on_engine(engine)

    def act_engine(
        self, engine: Any, rows: np.ndarray, rngs: Sequence[np.random.Generator] | None = None
    ) -> np.ndarray:
        t = time.process_time()
        actions = self.inner.act_engine(engine, rows, rngs)
        self._clock(len(actions), t)
        return actions

    def act_at_table(self, raw_env: Any) -> int:
        t = time.process_time()
        action: int = self.inner.act_at_table(raw_env)
        self._clock(1, t)
        return action

    def passive_reason(self) -> str | None:
        return self.inner.passive_reason()


def agent_roles(game: str, spec: str, plan: BenchPlan) -> list[str]:
    """The roles of the field the agent plays: a model its own (what it was trained for, read as the
    exploitability yardstick reads it), anything else every role the protocol benches."""
    from kabu_envs.eval.exploiters import frozen_roles, rule_options

    roles = [r for r in frozen_roles(game, spec) if r in plan.field]
    if not roles:
        raise ValueError(
            f"{spec!r} plays {list(frozen_roles(game, spec))}; the {game} bench has {sorted(plan.field)}"
        )
    trained = rule_options(game, spec, None)
    if trained:
        raise ValueError(
            f"model {spec!r} was trained for the rules {trained}; the bench plays the game's default rules"
        )
    return roles


def run_bench(
    game: str,
    spec: str,
    deals: int | None = None,
    roles: Sequence[str] | None = None,
    seed: int = 0,
    progress: bool = False,
    workers: int | None = None,
) -> dict[str, Any]:
    """The report card of the agent ``spec`` on ``game``'s bench (module docstring). ``deals`` overrides
    the protocol's per-row deals (the card says so); ``seed`` seeds the agents (not the deals);
    ``workers``: processes playing a row's deals (None: every core for a large enough row,
    kabu_envs.eval.parallel; the same results for any number)."""
    import kabu_envs
    from kabu_envs.agents.registry import make_agent
    from kabu_envs.eval.games import duplicate_plan, matchup
    from kabu_envs.eval.parallel import play_matches, worker_count
    from kabu_envs.eval.plans import bench_plan
    from kabu_envs.eval.tournament import LineupRecipe

    game_spec = registry.get(game)
    plan = bench_plan(game)
    if plan is None:
        raise ValueError(f"{game_spec.title} has no benchmark (its plans.py declares no BENCH)")
    n = plan.deals if deals is None else int(deals)
    if n < 1:
        raise ValueError(f"deals must be a positive integer, got {deals!r}")
    played = list(roles) if roles else agent_roles(game, spec, plan)
    bad = [r for r in played if r not in plan.field]
    if bad:
        raise ValueError(f"the {game} bench has the roles {sorted(plan.field)}, not {bad}")
    rows: list[dict[str, Any]] = []
    t0 = time.time()
    split = worker_count(n, workers)
    for role in played:
        # (the agents as a round robin's lineup builds them: the workers build the same)
        field = tuple(o for o in plan.field[role] if o != spec)  # (not benched against itself)
        recipe = LineupRecipe(game, (spec,), field, role, seed, timed=True)
        lineup = recipe.build() if split > 1 else None
        agent = Timed(as_agent(make_agent(game, spec, seed, role=role))) if lineup is None else None
        for opponent in field:
            match_seed = bench_seed(plan, game, role, opponent)
            started = time.time()
            if lineup is not None:
                sides = {"agent": spec, "opponent": opponent}
                matches = [(spec, opponent, duplicate_plan(game, role, n, match_seed, {}, sides))]
                ((res, counts),) = play_matches(lineup, matches.copy, None, split)
                made, spent = counts[0]
            else:
                assert agent is not None
                other = make_agent(game, opponent, seed + 1, role=role)
                before = (agent.decisions, agent.seconds)
                res = matchup(game, agent, other, role, n, match_seed)
                made, spent = agent.decisions - before[0], agent.seconds - before[1]
            s = res.summary()
            row = {
                "role": role,
                "opponent": opponent,
                "deals": s.n,
                "mean": s.mean,
                "ci95": [s.lo, s.hi],
                "win_rate": s.win_rate,
                "tie_rate": s.tie_rate,
                "ms_per_decision": 1000.0 * spent / made if made else None,
                "decisions": made,
                "seed": match_seed,
                "seconds": time.time() - started,
            }
            rows.append(row)
            if progress:
                print(format_row(row), flush=True)
    return {
        "bench": f"kabu-eval bench {plan.version}",
        "game": game,
        "agent": spec,
        "name": Path(spec).name if "/" in spec and ":" not in spec else spec,
        "rules": "default",
        "deals_per_row": n,
        "protocol_deals": plan.deals,
        "package_version": kabu_envs.__version__,
        "rows": rows,
        "seconds": time.time() - t0,
    }


def exploit_row(game: str, spec: str, out: Path, extra: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The exploitability yardstick's rows for ``spec`` (``kabu-train exploit`` as a command: the
    evaluation imports no training; ``extra``: more of its arguments, e.g. a smaller budget). A row's
    mean is the agent's advantage over its learned best response (minus the exploiter's)."""
    cmd = [sys.executable, "-m", "kabu_envs.training.exploit", "--game", game, "--agent", spec]
    subprocess.run([*cmd, "--out", str(out), *extra], check=True)
    found = json.loads((out / "exploit.json").read_text())
    return [
        {
            "role": r["role"],
            "opponent": "exploiter (learned best response)",
            "deals": r["deals"],
            "mean": -float(r["advantage"]),
            "ci95": [-float(r["ci95"][1]), -float(r["ci95"][0])],
        }
        for r in found["rows"]
    ]


def _signed(x: float) -> str:
    return f"{x:+.3f}".replace("-", "\u2212")


def format_row(row: Mapping[str, Any]) -> str:
    lo, hi = row["ci95"]
    ms = row.get("ms_per_decision")
    timing = "" if ms is None else f"  {ms:.3f} ms/decision"
    return (
        f"  {row['role']:12} vs {row['opponent']:22} {row['deals']:>6} deals  {_signed(row['mean'])} "
        f"[{_signed(lo)}, {_signed(hi)}]{' *' if lo > 0 else '  '}{timing}"
    )


def format_card(card: Mapping[str, Any]) -> str:
    """The card as text: one line per row (``*``: the 95% CI is above 0)."""
    head = (
        f"{card['bench']}: {card['agent']} on {registry.get(card['game']).title} "
        f"({card['rules']} rules, {card['deals_per_row']} duplicate deals a row)"
    )
    lines = [head, *(format_row(r) for r in card["rows"])]
    lines.append("  (mean = the agent's advantage over the opponent per duplicate deal; * = CI above 0)")
    return "\n".join(lines)


def protocol_table() -> str:
    """The protocol of every game with one (docs/benchmark.md's generated block): version, role, field,
    deals per row and the row seeds."""
    from kabu_envs.eval.plans import bench_plan

    lines = [
        "| game | version | role | field (opponents) | deals a row | row seeds |",
        "|---|---|---|---|---:|---|",
    ]
    for spec in registry.games():
        plan = bench_plan(spec.id)
        if plan is None:
            continue
        for role, field in plan.field.items():
            seeds = ", ".join(str(bench_seed(plan, spec.id, role, o)) for o in field)
            names = ", ".join(f"`{o}`" for o in field)
            lines.append(f"| {spec.title} | {plan.version} | {role} | {names} | {plan.deals} | {seeds} |")
    return "\n".join(lines)


# --- the leaderboard ------------------------------------------------------------------------------------
def read_cards(folder: Path = CARDS) -> list[dict[str, Any]]:
    """Every card under ``folder`` (``<game>/<agent>.json``), in name order."""
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*/*.json"))]


def leaderboard(cards: Sequence[Mapping[str, Any]]) -> str:
    """docs/leaderboard.md: per game and role, one line per card, a column per opponent of the field,
    sorted by the mean over the field (the ranking a reader wants first)."""
    from kabu_envs.eval.plans import bench_plan

    out = [
        "# Leaderboard",
        "",
        "The report cards of `kabu-eval bench` for the shipped agents (generated from `reports/bench/` by",
        "`python -m kabu_envs.eval.bench leaderboard --write`; a test holds this page to the cards). Each",
        "cell is the agent's mean advantage per duplicate deal against that opponent (chips for Oicho-Kabu,",
        "stones for Kakeya) with its 95% confidence interval; **bold**: the interval is above 0. Every card",
        "plays the same held-out deals of its protocol version; [the benchmark](benchmark.md) says how to",
        "put your own agent on this page.",
    ]
    by_table: dict[tuple[str, str, str], list[tuple[Mapping[str, Any], dict[str, Mapping[str, Any]]]]] = {}
    for card in cards:
        for role in dict.fromkeys(r["role"] for r in card["rows"]):
            cells = {r["opponent"]: r for r in card["rows"] if r["role"] == role}
            by_table.setdefault((card["game"], role, card["bench"]), []).append((card, cells))
    for (game, role, version), entries in sorted(by_table.items()):
        plan = bench_plan(game)
        field = list(plan.field.get(role, ())) if plan is not None else []
        found = dict.fromkeys(o for _, cells in entries for o in cells)
        opponents = sorted(found, key=lambda o: (field.index(o) if o in field else len(field), o))
        out += ["", f"## {registry.get(game).title}: {role} ({version})", ""]
        out.append("| agent | " + " | ".join(f"vs {o}" for o in opponents) + " | ms/decision |")
        out.append("|---|" + "---|" * len(opponents) + "---:|")

        def rank(entry: tuple[Mapping[str, Any], dict[str, Mapping[str, Any]]]) -> float:
            cells = entry[1]
            return -float(np.mean([float(c["mean"]) for c in cells.values()]))

        for card, cells in sorted(entries, key=rank):
            row = [f"`{card['name']}`"]
            for o in opponents:
                c = cells.get(o)
                if c is None:
                    row.append("—")
                    continue
                lo, hi = c["ci95"]
                text = f"{_signed(c['mean'])} [{_signed(lo)}, {_signed(hi)}] ({c['deals']})"
                row.append(f"**{text}**" if lo > 0 else text)
            times = [c["ms_per_decision"] for c in cells.values() if c.get("ms_per_decision") is not None]
            row.append(f"{np.median(times):.3f}" if times else "—")
            out.append("| " + " | ".join(row) + " |")
    return "\n".join(out) + "\n"


def shipped_entrants(game: str) -> list[str]:
    """Who the leaderboard shows for ``game``: its named agents and the shipped models trained for its
    default rules (a model of another rule set has no row in the default rules' bench)."""
    from kabu_envs.agents.registry import shipped_models
    from kabu_envs.eval.exploiters import rule_options

    models = [m for m in shipped_models(game) if not rule_options(game, m, None)]
    return [*registry.get(game).agent_names, *models]


def write_cards(folder: Path = CARDS, games: Sequence[str] | None = None) -> list[Path]:
    """Bench every shipped entrant of every game with a protocol (``games``: only those) at the
    protocol's deals and write its card to ``folder/<game>/<name>.json``; then the leaderboard page."""
    from kabu_envs.eval.plans import bench_plan

    written = []
    for game in games or [g.id for g in registry.games() if bench_plan(g.id) is not None]:
        for name in shipped_entrants(game):
            card = run_bench(game, name)
            path = folder / game / f"{name}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(card, indent=2) + "\n")
            print(format_card(card), flush=True)
            written.append(path)
    return written


BENCH_PAGE = REPO / "docs" / "benchmark.md"


def write_protocol(page: Path = BENCH_PAGE) -> None:
    """Rewrite docs/benchmark.md's generated protocol table."""
    from kabu_envs.core.doc_blocks import replace_blocks

    page.write_text(replace_blocks(page.read_text(), {"bench_protocol": protocol_table()}, where=str(page)))


def check_leaderboard(folder: Path = CARDS, page: Path = LEADERBOARD) -> bool:
    return page.is_file() and page.read_text() == leaderboard(read_cards(folder))


# --- the command line ---------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else list(argv)
    if args_in[:1] == ["cards"]:
        ap = argparse.ArgumentParser(prog="python -m kabu_envs.eval.bench cards")
        ap.add_argument("--game", action="append", help="only this game (repeatable)")
        ap.add_argument("--cards", default=str(CARDS))
        args = ap.parse_args(args_in[1:])
        write_cards(Path(args.cards), args.game)
        LEADERBOARD.write_text(leaderboard(read_cards(Path(args.cards))))
        print(f"wrote the cards under {args.cards} and {LEADERBOARD}")
        return 0
    if args_in[:1] == ["leaderboard"]:
        ap = argparse.ArgumentParser(prog="python -m kabu_envs.eval.bench leaderboard")
        ap.add_argument("--cards", default=str(CARDS))
        ap.add_argument("--write", action="store_true", help=f"write {LEADERBOARD} (else print it)")
        args = ap.parse_args(args_in[1:])
        text = leaderboard(read_cards(Path(args.cards)))
        if args.write:
            LEADERBOARD.write_text(text)
            write_protocol()
            print(f"wrote {LEADERBOARD} and the protocol table of {BENCH_PAGE}")
        else:
            print(text, end="")
        return 0
    from kabu_envs.core.options import positive_int

    ap = argparse.ArgumentParser(prog="kabu-eval bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", required=True, choices=registry.game_ids())
    ap.add_argument(
        "--agent",
        required=True,
        help="a name kabu-eval takes, a model folder, or a class: file.py:Class, package.module:Class",
    )
    ap.add_argument("--role", action="append", help="bench only this role (repeatable; default: every role)")
    ap.add_argument("--deals", type=positive_int, help="duplicate deals per row (default: the protocol's)")
    ap.add_argument("--seed", type=int, default=0, help="the agents' seed (the deals are the protocol's)")
    ap.add_argument("--json", metavar="PATH", help="write the card as JSON")
    ap.add_argument(
        "--workers",
        type=positive_int,
        help="processes playing a row's deals (default: numba's thread setting, NUMBA_NUM_THREADS or the "
        "cores, for rows large enough; the same results for any N)",
    )
    ap.add_argument("--exploit", action="store_true", help="add the exploitability row (trains: needs torch)")
    args = ap.parse_args(args_in)
    if args.exploit and importlib.util.find_spec("torch") is None:
        ap.error('--exploit trains an exploiter and needs torch: from the repository, pip install ".[train]"')
    try:
        card = run_bench(
            args.game, args.agent, args.deals, args.role, args.seed, progress=True, workers=args.workers
        )
        if args.exploit:
            with tempfile.TemporaryDirectory() as tmp:
                card["rows"] += exploit_row(args.game, args.agent, Path(tmp))
    except (ValueError, TypeError) as exc:
        print(f"kabu-eval bench: {exc}", file=sys.stderr)
        return 2
    print(format_card(card))
    if args.json:
        Path(args.json).write_text(json.dumps(card, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
