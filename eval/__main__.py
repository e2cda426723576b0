"""``python -m eval --game G --agents A [B ...] --opponents X [Y ...] [--role R] [--deals N]``.

Duplicate-deal tournament: every agent against every opponent; prints the matchup
table (mean advantage per deal, 95% t-interval, win rate) and openskill ratings;
``--json`` writes them, ``--heatmap`` draws the matchup heatmap. Agent names:
``random``, ``scripted``, ``expert`` (Oicho-Kabu), ``ppo_<model>`` (models/<name>/, a policy file)
or a model directory. Models play in numpy: evaluation needs no torch.
"""

from __future__ import annotations

import argparse
import json
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval", description=__doc__)
    ap.add_argument("--game", required=True, choices=["oicho_kabu", "kakeya", "toy"])
    ap.add_argument("--agents", nargs="+", required=True)
    ap.add_argument("--opponents", nargs="+", default=["random", "scripted"])
    ap.add_argument("--role", help="oicho_kabu: bettor (default) or dealer")
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--rating-block", type=int, default=1, help="duplicate deals per openskill game (summed advantage)"
    )
    ap.add_argument("--option", action="append", default=[], metavar="KEY=JSON", help="a rule option")
    ap.add_argument("--json", help="write matchups + ratings here")
    ap.add_argument("--heatmap", help="write the matchup heatmap PNG here")
    args = ap.parse_args(argv)

    from eval.tournament import format_table, round_robin

    opts = {}
    for kv in args.option:
        k, _, v = kv.partition("=")
        try:
            opts[k] = json.loads(v)
        except json.JSONDecodeError:
            opts[k] = v
    out = round_robin(
        args.game, args.agents, args.opponents, args.role, args.deals, args.seed, opts, args.rating_block
    )
    print(format_table(args.game, out["matchups"]))
    print("openskill:", json.dumps(out["ratings"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    if args.heatmap:
        from eval.plots import matchup_heatmap

        matchup_heatmap(out["matchups"], f"{args.game} duplicate advantage", args.heatmap)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
