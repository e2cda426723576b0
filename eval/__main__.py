"""``kabu-eval --game G --agents A [B ...] --opponents X [Y ...] [--role R] [--deals N] [--plan]``.

Duplicate-deal tournament: every agent against every opponent; prints the matchup
table (mean advantage per deal, 95% t-interval, win rate) and openskill ratings;
``--json`` writes them, ``--heatmap`` draws the matchup heatmap. Agent names:
``random``, the game's own agents (``scripted``, ``expert``, ... as its registry record lists them),
a shipped model by name (``ppo_kakeya``: kabu_envs/models/<name>/), a policy file, a model directory,
or an OpenSpiel search bot
``openspiel:ismcts`` / ``openspiel:pimc`` with parameters (``openspiel:ismcts:simulations=200,worlds=16``;
the ``openspiel`` extra; they report ms/decision). ``--game`` is any registered
game. Models play in numpy: evaluation needs no torch. ``--record-dir DIR`` writes every play as a game
record (``kabu-replay`` replays it). ``--workers N`` plays the deals in N processes (default:
numba's thread setting, ``NUMBA_NUM_THREADS`` or the cores, for a large enough run; the same results
for any N: kabu_envs.eval.parallel). ``--plan`` prints each matchup's duplicate plan (its deal seeds
and who sits where in every play) and stops before playing. Every agent is built once per run.

``kabu-eval bench --game G --agent SPEC [--deals N] [--json PATH] [--exploit]``: the benchmark
protocol, a report card of one agent (a name, a model folder, or ``file.py:Class``) against the game's
reference field on fixed held-out deals (eval/bench.py, docs/benchmark.md).

The exploitability yardstick trains (a PPO exploiter against the frozen agent): ``kabu-train exploit``
(training/exploit.py); ``kabu-eval exploit`` says so.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")


def main(argv: list[str] | None = None) -> int:
    import sys

    args_in = sys.argv[1:] if argv is None else list(argv)
    if args_in[:1] == ["bench"]:  # the benchmark protocol: a report card for one agent
        from kabu_envs.eval.bench import main as bench_main

        return bench_main(args_in[1:])
    if args_in[:1] == ["exploit"]:  # the yardstick trains: the evaluation imports no training
        rest = " ".join(args_in[1:])
        print(
            f"the exploitability yardstick trains an exploiter: run `kabu-train exploit {rest}`",
            file=sys.stderr,
        )
        return 2
    from kabu_envs import registry
    from kabu_envs.core.options import parse_assignments, positive_int
    from kabu_envs.eval.parallel import MIN_DEALS_PER_WORKER

    ap = argparse.ArgumentParser(prog="kabu-eval", description=__doc__)
    ap.add_argument("--game", required=True, choices=registry.game_ids())
    ap.add_argument("--agents", nargs="+", required=True)
    ap.add_argument("--opponents", nargs="+", default=["random", "scripted"])
    ap.add_argument("--role", help="a role of the game (default: its first; see its registry record)")
    ap.add_argument(
        "--deals",
        type=positive_int,
        help="duplicate deals per matchup (default: the game's quick evaluation's)",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--rating-block",
        type=positive_int,
        default=1,
        help="duplicate deals per openskill game (summed advantage)",
    )
    ap.add_argument("--option", action="append", default=[], metavar="KEY=JSON", help="a rule option")
    ap.add_argument("--json", help="write matchups + ratings here")
    ap.add_argument("--heatmap", help="write the matchup heatmap PNG here")
    ap.add_argument(
        "--scalar",
        action="store_true",
        help="play one decision at a time even where the batched path could (same results, slower)",
    )
    ap.add_argument(
        "--workers",
        type=positive_int,
        help="processes playing the deals (default: numba's thread setting, NUMBA_NUM_THREADS or the "
        f"cores, for runs of at least {MIN_DEALS_PER_WORKER} deals a worker; the same results for any N)",
    )
    ap.add_argument(
        "--plan",
        action="store_true",
        help="print each matchup's duplicate plan (deal seeds, who sits where) and stop before playing",
    )
    ap.add_argument(
        "--record-dir",
        metavar="DIR",
        help="write a game record (JSON, replayable with kabu-replay) of every play here; recording plays "
        "one decision at a time (the scalar path: same results, slower than the batched path)",
    )
    args = ap.parse_args(args_in)
    if args.heatmap and importlib.util.find_spec("matplotlib") is None:  # refused before any deal
        ap.error(
            "--heatmap draws with matplotlib, which is not installed (the 'demo' extra): from the "
            'repository\'s folder, pip install ".[demo]"; or leave --heatmap out'
        )

    from kabu_envs.eval.games import duplicate_plan
    from kabu_envs.eval.plans import evaluation
    from kabu_envs.eval.tournament import (
        build_lineup,
        format_table,
        match_seed,
        round_robin,
        round_robin_pairs,
    )

    spec = registry.get(args.game)
    try:  # every input is checked before the first deal, so a typo costs no time
        opts = parse_assignments(args.option)
        spec.config(**opts)
        role = spec.role(args.role).name
        # every agent built once for the run (a name on both sides: two copies, for control matchups)
        lineup = build_lineup(args.game, args.agents, args.opponents, role, args.seed, opts)
    except ValueError as exc:
        ap.error(str(exc))
    controls = not any(a != o for a in args.agents for o in args.opponents)
    same = sorted(set(args.agents) & set(args.opponents))
    if controls:
        print(
            f"note: every agent is also its only opponent ({', '.join(same)}): played as a control "
            "matchup (differently seeded copies; the advantage should be 0 within its CI)"
        )
    elif same:
        print(f"note: no matchup of an agent against itself ({', '.join(same)}); the other pairs follow")
    deals = args.deals if args.deals is not None else evaluation(args.game).deals
    if args.plan:
        for i, a, j, o in round_robin_pairs(args.agents, args.opponents, controls):
            sides = {"agent": a, "opponent": o}
            print(
                duplicate_plan(args.game, role, deals, match_seed(args.seed, i, j), opts, sides), end="\n\n"
            )
        return 0
    out = round_robin(
        args.game,
        args.agents,
        args.opponents,
        args.role,
        deals,
        args.seed,
        opts,
        args.rating_block,
        include_self=controls,
        batched=False if args.scalar or args.record_dir else None,
        record_dir=args.record_dir,
        lineup=lineup,
        workers=args.workers,
    )
    print(format_table(args.game, out["matchups"]))
    for row in out["matchups"]:  # search bots (openspiel:...) report their CPU time per decision
        for side in ("agent", "opponent"):
            if f"{side}_ms_per_decision" in row:
                other = row["opponent" if side == "agent" else "agent"]
                ms, n = row[f"{side}_ms_per_decision"], row[f"{side}_decisions"]
                print(f"{row[side]} (vs {other}): {ms:.1f} ms/decision over {n} decisions")
    print("openskill:", json.dumps(out["ratings"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    if args.heatmap:
        from kabu_envs.eval.plots import matchup_heatmap

        matchup_heatmap(out["matchups"], f"{spec.title} duplicate advantage", args.heatmap)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
