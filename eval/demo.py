"""``make demo`` = ``python -m kabu_envs.eval.demo`` (minutes: every shipped model against random and
scripted, and the headline rows, into reports/short/); ``make demo-full`` = ``python -m
kabu_envs.eval.demo --full`` (every row, the gaps to a best response, the exploiters, into reports/; its
summary is what docs/results.md is generated from). ``--quick`` is a smoke test (30 deals a row).

What it evaluates is data: each registered game's ``DemoPlan`` (the game's ``plans.DEMO``) names its
roles, the opponents every shipped model meets, the reference rows between the hand-written players
and the deal count. Every shipped model (kabu_envs/models/*/, its game and role read from run.json) meets
its game's opponents on duplicate deals (``matchup_seed``: keyed by the game, role, opponent and rules
of the row, so every agent meets an opponent on the same deals and a new model moves no other row;
each row records its seed, which ``kabu-eval --seed`` replays); the demo adds the reference rows,
computes openskill ratings, writes ``reports/summary.json``, the matchup heatmaps and the learning
curves, prints the table, and prints one rendered Oicho-Kabu round and one Kakeya deal between scripted
seats. The shipped exploiters of the exploitability table (``--exploiters``, reports/exploit/;
kabu_envs.training.exploit) meet their frozen agents again on held-out deals (``summary[game]["exploit"]``).
Matchups run in ``--workers`` processes (default: numba's thread setting, ``NUMBA_NUM_THREADS`` or the
cores; 1 runs them in this process), spawned, each with its share of numba's threads and playing its
jobs in process (kabu_envs.eval.parallel: no pool inside a pool). ``--game G`` plays
only G's rows and replaces G's section of the existing summary.json (a retrained model of one game).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from kabu_envs.eval.plans import best_response_ref, demo_games, demo_plan

os.environ.setdefault("OMP_NUM_THREADS", "1")

# openskill rates blocks of duplicate deals as games (kabu_envs.eval.tournament.openskill_ratings),
# this many games per matchup
RATED_GAMES = 200


def rules_label(env_options: dict[str, Any]) -> str:
    """The ``rules`` field of a summary row: ``standard`` (no options), the preset's name (only
    ``rules=...``), else the options as compact JSON."""
    if not env_options:
        return "standard"
    if set(env_options) == {"rules"} and isinstance(env_options["rules"], str):
        return env_options["rules"]
    return json.dumps(env_options, sort_keys=True, separators=(",", ":"))


def shipped(models: Path) -> list[dict[str, Any]]:
    """Shipped models: name, game, role, the rule options they were trained for (each model's
    ``policy.json``: a policy file's or an ensemble's ``trained_for``; the model itself is read and
    validated when a row loads it)."""
    from kabu_envs.agents.policy_file import read_trained_for

    out = []
    demo_ids = {g.id for g, _ in demo_games()}
    for record in sorted(models.glob("*/policy.json")):
        trained = read_trained_for(record)
        if trained["game"] in demo_ids:
            opts = dict(trained["env_options"])
            out.append(
                {"name": record.parent.name, "game": trained["game"], "role": trained["role"]}
                | {"dir": record.parent, "env_options": opts, "rules": rules_label(opts)}
            )
    return out


class Job(NamedTuple):
    """One row of the summary: ``agent`` against ``opponent`` in ``role`` of ``game`` under the rule
    options ``options`` (as JSON, sorted keys: a job crosses to a worker process as plain strings)."""

    game: str
    agent: str
    opponent: str
    role: str
    options: str


class MatchupResult(NamedTuple):
    """What a job gives back: its summary row and the per-deal advantages (for the ratings)."""

    row: dict[str, Any]
    advantages: list[float]


def plan(models: Path, full: bool = True) -> list[Job]:
    """Every row of the summary. Each rule setting a shipped model was trained for (the standard rules
    always) gets the game's reference rows, and each model meets the game's opponents at its own
    table; rows of the standard rules come first, as before settings existed. ``full=False`` (the short
    demo): each model meets the plan's ``short_opponents``, and the reference rows are its
    ``headline_rows`` at the standard rules, and at every setting too where the plan says
    ``headline_settings`` (a row naming a model that is not shipped is left out)."""
    jobs: list[Job] = []
    found = shipped(models)
    for spec, plan_ in demo_games():
        mine = [m for m in found if m["game"] == spec.id]
        settings = {"standard": {}} | {m["rules"]: m["env_options"] for m in mine}
        opponents = plan_.opponents if full else plan_.short_opponents
        known = {*spec.agent_names, *(m["name"] for m in mine if m["rules"] == "standard")}
        for rules, opts in settings.items():
            key = json.dumps(opts, sort_keys=True)
            for role in plan_.roles:
                for m in mine:
                    if m["role"] == role and m["rules"] == rules:
                        jobs += [Job(spec.id, m["name"], o, role, key) for o in opponents]
                if not full:
                    if rules == "standard" or (plan_.headline_settings and _trained(mine, rules, role)):
                        rows = [r for r in plan_.headline_rows if set(r) <= known and _plays(found, r, role)]
                        jobs += [Job(spec.id, a, o, role, key) for a, o in rows]
                    continue
                if rules == "standard" or _trained(mine, rules, role):
                    # a row naming a model is played at that model's own table only
                    here = {*spec.agent_names, *(m["name"] for m in mine if m["rules"] == rules)}
                    rows = [r for r in plan_.reference_rows if set(r) <= here and _plays(found, r, role)]
                    jobs += [Job(spec.id, a, o, role, key) for a, o in rows]
    return jobs


def _trained(mine: list[dict[str, Any]], rules: str, role: str) -> bool:
    """Whether a shipped model of the game plays ``role`` under the rule setting ``rules``."""
    return any(m["role"] == role and m["rules"] == rules for m in mine)


def _plays(found: list[dict[str, Any]], row: tuple[str, str], role: str) -> bool:
    """Whether every model named in ``row`` plays ``role`` (a hand-written agent plays every role)."""
    roles = {m["name"]: m["role"] for m in found}
    return all(roles.get(name, role) == role for name in row)


def job_deals(job: Job, deals: int | None = None, quick: bool = False) -> int:
    """Duplicate deals of a demo job: ``deals`` when given (``--deals``), 30 with ``--quick``, else the
    game's plan (``DemoPlan.deals_for``: fewer for its slow agents)."""
    if deals:
        return deals
    if quick:
        return 30
    plan_ = demo_plan(job.game)
    assert plan_ is not None
    return plan_.deals_for(job.agent, job.opponent)


def slow(job: Job) -> bool:
    """A job with an agent its game's plan lists as slow (``DemoPlan.agent_deals``)."""
    plan_ = demo_plan(job.game)
    return plan_ is not None and bool({job.agent, job.opponent} & set(plan_.agent_deals))


@contextlib.contextmanager
def models_env(models: str) -> Iterator[None]:
    """``$KABU_MODELS_DIR`` = ``models`` (where make_agent finds ``ppo...`` names) only inside the block:
    with --workers 1 a job runs in the caller's process, whose environment (and its subprocesses')
    must not keep it."""
    before = os.environ.get("KABU_MODELS_DIR")
    os.environ["KABU_MODELS_DIR"] = models
    try:
        yield
    finally:
        if before is None:
            del os.environ["KABU_MODELS_DIR"]
        else:
            os.environ["KABU_MODELS_DIR"] = before


def matchup_seed(seed: int, job: Job) -> int:
    """The deals of ``job``'s row: ``seed + 7919 * (2000 + h)``, ``h`` a hash (< 10**6) of what the row
    meets — game, role, opponent, rules — and not of its agent or its position in the plan.

    Why: with positional seeds a new shipped model shifted the deals of every later row; keyed, each
    agent meets an opponent on the same deals as every other agent (paired rows, comparable to the
    last hundredth) and the rows of a demo run reproduce in the next one. ``2000 +`` keeps them apart
    from the best-response matches' ``seed + 7919 * (1000 + k)``.
    """
    key = json.dumps([job.game, job.role, job.opponent, job.options]).encode()
    h = int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big") % 1_000_000
    return seed + 7919 * (2000 + h)


def _run(job: Job, deals: int, seed: int, models: str, batched: bool | None = None) -> MatchupResult:
    from kabu_envs.eval.tournament import matchup_record

    opts = json.loads(job.options)
    with models_env(models):
        row, res = matchup_record(
            job.game, job.agent, job.opponent, job.role, deals, seed, env_options=opts, batched=batched
        )
    return MatchupResult({**row, "rules": rules_label(opts), "seed": seed}, res.advantages)


def best_response_plan(models: Path, seed: int, deals: int | None) -> list[dict[str, Any]]:
    """One entry per (game, role, rule setting) whose ``DemoPlan`` asks for best-response gaps: the
    standard rules in every role (the plan's hand-written agents, then the game's shipped models of
    that role trained for them, ``best_response_deals``), then each richer setting a shipped model of
    the role was trained for (the same agents with that setting's models, ``best_response_setting_deals``;
    left out, with a note, where the game's best response does not model it). ``deals`` overrides both.
    The match seeds follow the matchups' (``seed + 7919 * (1000 + k)``, disjoint from them), the
    standard entries first, so adding a setting leaves their seeds as they were."""
    from kabu_envs.eval.best_response import refusal

    standard: list[dict[str, Any]] = []
    richer: list[dict[str, Any]] = []
    found = shipped(models)
    for spec, p in demo_games():
        if best_response_ref(spec.id) is None or not p.best_response_agents:
            continue
        for role in p.roles:
            mine = [m for m in found if m["game"] == spec.id and m["role"] == role]
            settings = {"standard": {}} | {m["rules"]: m["env_options"] for m in mine}
            for rules, opts in settings.items():
                n = p.best_response_deals if rules == "standard" else p.best_response_setting_deals
                n = n if deals is None else deals
                if n <= 0:
                    continue
                why = None if rules == "standard" else refusal(spec.id, role, opts)
                if why is not None:
                    print(f"note: no best-response gaps for {spec.id} {role} ({rules}): {why}")
                    continue
                agents = [*p.best_response_agents, *(m["name"] for m in mine if m["rules"] == rules)]
                entry = {"game": spec.id, "role": role, "agents": agents, "deals": n}
                entry |= {"env_options": dict(opts), "rules": rules}
                (standard if rules == "standard" else richer).append(entry)
    out = standard + richer
    for k, entry in enumerate(out):
        entry["seed"] = seed + 7919 * (1000 + k)
    return out


def _run_best_response(entry: dict[str, Any], lo: int, hi: int, models: str) -> dict[str, Any]:
    """Deals ``lo:hi`` of one best-response entry: each agent's summed regret per deal."""
    from kabu_envs.agents.registry import make_agent
    from kabu_envs.eval.best_response import deal_plan, play_regrets

    game, role, seed, opts = entry["game"], entry["role"], entry["seed"], entry["env_options"]
    seeds, seats = deal_plan(game, role, seed, entry["deals"], opts)
    with models_env(models):
        agents = {name: make_agent(game, name, seed, role=role, **opts) for name in entry["agents"]}
    play = play_regrets(game, role, agents, seeds[lo:hi], seats[lo:hi], opts, seed)
    return {"regrets": {k: v.tolist() for k, v in play.regrets.items()}, "cpu": play.cpu_seconds}


def best_response_rows(
    entries: list[dict[str, Any]], results: list[list[dict[str, Any]]]
) -> dict[str, dict[str, Any]]:
    """Per game: the ``best_response`` rows (chunks joined in deal order) and CPU ms per deal, keyed
    by role (the standard rules) or ``"role, rules"`` (a richer setting, as the ratings are)."""
    from kabu_envs.eval.best_response import gap_row

    out: dict[str, dict[str, Any]] = {}
    for entry, chunks in zip(entries, results, strict=True):
        block = out.setdefault(entry["game"], {"rows": [], "cpu_ms_per_deal": {}})
        rules = entry["rules"]
        for name in entry["agents"]:
            per_deal = [x for c in chunks for x in c["regrets"][name]]
            block["rows"].append(gap_row(name, entry["role"], rules, per_deal, "regret"))
        cpu = sum(c["cpu"] for c in chunks)
        key = entry["role"] if rules == "standard" else f"{entry['role']}, {rules}"
        block["cpu_ms_per_deal"][key] = 1000 * cpu / max(1, entry["deals"])
    return out


def _chunks(n: int, parts: int) -> list[tuple[int, int]]:
    step = -(-n // max(1, parts))
    return [(lo, min(n, lo + step)) for lo in range(0, n, step)]


def exploit_jobs(folder: Path, deals: int | None) -> list[tuple[str, dict[str, Any], int | None]]:
    """``replay_row`` arguments of every shipped exploiter under ``folder`` (the exploitability table,
    kabu_envs.training.exploit) of a game the demo evaluates; none when ``deals`` is 0 or there is no
    table."""
    from kabu_envs.eval.exploiters import shipped_rows

    if deals == 0:
        return []
    demo_ids = {g.id for g, _ in demo_games()}
    rows = shipped_rows(folder)
    return [(str(folder), row, deals) for game in rows if game in demo_ids for row in rows[game]]


def replay_row(folder: str, row: dict[str, Any], deals: int | None) -> dict[str, Any]:
    """One shipped exploiter against its frozen agent again (``kabu_envs.eval.exploiters.replay_row``)."""
    from kabu_envs.eval.exploiters import replay_row as replay

    return replay(folder, row, deals)


def render_samples(seed: int) -> str:
    """One deal of every demo game played by its reference (scripted) agents, rendered."""
    from kabu_envs.agents.registry import make_agent
    from kabu_envs.eval.duplicate import play_deal
    from kabu_envs.eval.games import make_aec

    parts = []
    for spec, plan_ in demo_games():
        game, title = spec.id, plan_.sample_title
        env = make_aec(game, render_mode="ansi")
        agents = [make_agent(game, spec.reference, seed + s) for s in range(len(env.possible_agents))]
        rewards = play_deal(env, agents, seed)
        head = f"=== {title} (scripted seats, seed {seed}) ==="
        parts.append(f"{head}\n{env.render()}\nrewards: {rewards.tolist()}")
    return "\n\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kabu_envs.eval.demo", description=__doc__)
    ap.add_argument(
        "--full",
        action="store_true",
        help="every row (each model against every opponent of its game's plan, every reference row), the "
        "gaps to a best response and the shipped exploiters: make demo-full (default: the short demo)",
    )
    ap.add_argument("--quick", action="store_true", help="a few deals per matchup (smoke test)")
    ap.add_argument(
        "--deals",
        type=int,
        help="duplicate deals per matchup, every game (default: each game's plan; quick 30)",
    )
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--out", help="where to write (default: reports/ with --full, else reports/short/)")
    ap.add_argument(
        "--models",
        default=None,
        help=r"models dir (default: \$KABU_MODELS_DIR or the shipped kabu_envs/models/)",
    )
    ap.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes running the jobs (default: numba's thread setting, NUMBA_NUM_THREADS or the cores)",
    )
    ap.add_argument(
        "--best-response-deals",
        type=int,
        default=None,
        help="deals per role for the gaps to a best response (default: each game's plan; quick 20; 0: none)",
    )
    ap.add_argument(
        "--exploiters",
        default="reports/exploit",
        help="the shipped exploitability table (kabu_envs.training.exploit table): its exploiters meet their "
        "frozen agents again (absent: left out)",
    )
    ap.add_argument(
        "--exploit-deals",
        type=int,
        default=None,
        help="held-out deals per exploiter (default: each game's ExploitPlan.demo_deals; quick 20; 0: none)",
    )
    ap.add_argument(
        "--game",
        action="append",
        help="only this game (repeatable): its rows are played and its section of the existing "
        "summary.json replaced, the other games' sections kept (one game's models retrained)",
    )
    ap.add_argument(
        "--scalar",
        action="store_true",
        help="play every deal one decision at a time (the reference path; same results, slower)",
    )
    args = ap.parse_args(argv)
    batched = False if args.scalar else None
    from kabu_envs.eval.parallel import default_workers, process_pool

    if args.workers is None:
        args.workers = default_workers()
    elif args.workers < 1:
        ap.error(f"--workers must be at least 1, got {args.workers}")

    from kabu_envs.agents.registry import models_dir
    from kabu_envs.eval.plots import learning_curves, matchup_heatmap
    from kabu_envs.eval.progress import progress
    from kabu_envs.eval.tournament import format_table, openskill_ratings

    t0 = time.time()
    models = Path(args.models) if args.models else models_dir()
    games = [g.id for g, _ in demo_games()]
    unknown = sorted(set(args.game or ()) - set(games))
    if unknown:
        ap.error(f"--game {', '.join(unknown)}: the demo evaluates {', '.join(games)}")
    games = [g for g in games if not args.game or g in args.game]
    deals = {g.id: args.deals or (30 if args.quick else plan_.deals) for g, plan_ in demo_games()}
    out = Path(args.out or ("reports" if args.full else "reports/short"))
    out.mkdir(parents=True, exist_ok=True)
    jobs = [job for job in plan(models, full=args.full) if job.game in games]
    if not shipped(models):
        print(f"note: no trained models under {models}; only reference rows are evaluated")
    seeds = [matchup_seed(args.seed, job) for job in jobs]
    br_deals = (
        args.best_response_deals
        if args.best_response_deals is not None
        else (0 if not args.full else 20 if args.quick else None)
    )
    # (seeds over every game's entries, so that one game's entries keep the seeds of a whole run)
    br_entries = [e for e in best_response_plan(models, args.seed, br_deals) if e["game"] in games]
    # each role's deals in chunks, one per worker (the best response is the demo's longest job)
    br_jobs = [(i, lo, hi) for i, e in enumerate(br_entries) for lo, hi in _chunks(e["deals"], args.workers)]
    n = [job_deals(j, args.deals, args.quick) for j in jobs]
    ex_deals = (
        args.exploit_deals
        if args.exploit_deals is not None
        else (0 if not args.full else 20 if args.quick else None)
    )
    ex_jobs = [job for job in exploit_jobs(Path(args.exploiters), ex_deals) if job[1]["game"] in games]
    # the slow matchups (DemoPlan.agent_deals) first, so that the two workers share them
    first = sorted(range(len(jobs)), key=lambda i: not slow(jobs[i]))
    if args.workers > 1:
        with process_pool(args.workers) as pool:
            br_futures = [
                pool.submit(_run_best_response, br_entries[i], lo, hi, str(models)) for i, lo, hi in br_jobs
            ]
            done = pool.map(
                _run,
                [jobs[i] for i in first],
                [n[i] for i in first],
                [seeds[i] for i in first],
                [str(models)] * len(jobs),
                [batched] * len(jobs),
            )
            ex_futures = [pool.submit(replay_row, *job) for job in ex_jobs]
            ordered = list(progress(done, total=len(jobs), desc="demo matchups"))
            br_done = [f.result() for f in progress(br_futures, total=len(br_jobs), desc="best responses")]
            ex_done = [f.result() for f in progress(ex_futures, total=len(ex_jobs), desc="exploiters")]
    else:
        pairs = progress(first, total=len(jobs), desc="demo matchups")
        ordered = [_run(jobs[i], n[i], seeds[i], str(models), batched) for i in pairs]
        br_done = [_run_best_response(br_entries[i], lo, hi, str(models)) for i, lo, hi in br_jobs]
        ex_done = [replay_row(*job) for job in ex_jobs]
    results: list[MatchupResult] = [MatchupResult({}, [])] * len(jobs)
    for i, r in zip(first, ordered, strict=True):
        results[i] = r
    br_results: list[list[dict[str, Any]]] = [[] for _ in br_entries]
    for (i, _, _), res in zip(br_jobs, br_done, strict=True):
        br_results[i].append(res)
    br_rows = best_response_rows(br_entries, br_results)

    summary: dict[str, Any] = {}
    if args.game and (out / "summary.json").is_file():  # the other games' sections as they were
        summary = {g: v for g, v in json.loads((out / "summary.json").read_text()).items() if g not in games}
    for game in games:
        idx = [i for i, j in enumerate(jobs) if j.game == game]
        rows = [results[i].row for i in idx]
        ratings = {}  # per role, and per role and rule setting beyond the standard rules ("bettor, kansai")
        for role, rules in dict.fromkeys((jobs[i].role, rows[k]["rules"]) for k, i in enumerate(idx)):
            raw = [
                (jobs[i].agent, jobs[i].opponent, results[i].advantages)
                for k, i in enumerate(idx)
                if jobs[i].role == role and rows[k]["rules"] == rules
            ]
            key = role if rules == "standard" else f"{role}, {rules}"
            ratings[key] = openskill_ratings(raw, block=max(1, deals[game] // RATED_GAMES))
        summary[game] = {"matchups": rows, "ratings": ratings, "deals_per_matchup": deals[game]}
        if game in br_rows:
            summary[game]["best_response"] = br_rows[game]["rows"]
            summary[game]["best_response_cpu_ms_per_deal"] = br_rows[game]["cpu_ms_per_deal"]
        exploit_rows = [r for job, r in zip(ex_jobs, ex_done, strict=True) if job[1]["game"] == game]
        if exploit_rows:
            summary[game]["exploit"] = exploit_rows
        if rows:
            counts = sorted({row["games"] for row in rows})
            span = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
            title = f"{game}: duplicate advantage per deal ({span} deals)"
            matchup_heatmap(rows, title, out / f"heatmap_{game}.png")
    curves = {m["name"]: m["dir"] for m in shipped(models)}
    learning_curves(curves, out / "learning_curves.png")
    order = [g.id for g, _ in demo_games()]  # the plans' order, whichever games were played
    summary = {
        g: summary[g] for g in sorted(summary, key=lambda g: order.index(g) if g in order else len(order))
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2))

    print(render_samples(args.seed))
    print()
    for game in games:
        print(format_table(game, summary[game]["matchups"]))
        for role, r in summary[game]["ratings"].items():
            print(f"  openskill ({role}):", ", ".join(f"{n} {v['ordinal']:.1f}" for n, v in r.items()))
        for row in summary[game].get("best_response", []):
            lo, hi = row["ci95"]
            print(
                f"  gap to a best response ({row['role']}, {row['rules']}, {row['deals']} deals): "
                f"{row['agent']} {row['gap']:+.3f} [{lo:+.3f}, {hi:+.3f}]"
            )
        for row in summary[game].get("exploit", []):
            lo, hi = row["ci95"]
            print(
                f"  exploitability ({row['agent']} as seen by a learned {row['role']}, {row['rules']}, "
                f"{row['deals']} deals): {row['advantage']:+.3f} [{lo:+.3f}, {hi:+.3f}]"
            )
        print()
    print("(* = 95% CI lower bound above 0; mean = agent's advantage over the opponent per duplicate deal)")
    print(f"wrote {out / 'summary.json'} and plots in {out}/ in {time.time() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
