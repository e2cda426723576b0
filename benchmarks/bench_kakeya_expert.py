"""CPU time per decision of the Kakeya ``expert`` or ``expert_0_2`` (``time.process_time`` around each
``act``).

The expert plays one partnership against ``scripted`` in AEC games of each table (4 players, 6 with the
dealers sitting out, 6 all playing); every expert decision is timed, forced ones (a single legal
action) included, as the evaluation meets them, after one untimed deal per table (the search kernel's
first call in a process loads its compiled cache, ~0.5 s). Prints mean, p95 and max per table and phase.

    python benchmarks/bench_kakeya_expert.py [--deals 20] [--agent expert|expert_0_2] [--option samples=64]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # measure this checkout's code
from kabu_envs import kakeya_v2  # noqa: E402
from kabu_envs.agents.registry import make_agent  # noqa: E402
from kabu_envs.kakeya.actions import NUM_ACTIONS, TRUMP_BASE  # noqa: E402
from kabu_envs.kakeya.agents.expert import KakeyaExpertAgent  # noqa: E402
from kabu_envs.kakeya.agents.scripted import KakeyaScriptedAgent  # noqa: E402

TABLES: dict[str, dict[str, Any]] = {
    "4p": {},
    "6p sit-out": {"num_players": 6},
    "6p all-play": {"num_players": 6, "six_player_mode": "all_play"},
}


def timings(opts: dict[str, Any], deals: int, name: str) -> dict[str, list[float]]:
    """Milliseconds per decision of the search ``name`` (a registry name, parameters included), by kind
    (trump, lead, card)."""
    out: dict[str, list[float]] = {"trump": [], "lead": [], "card": []}
    for d in range(deals):
        env = kakeya_v2.env(**opts)
        env.reset(seed=d)
        n = len(env.possible_agents)
        side = d % (n // 2)
        agents = [
            make_agent("kakeya", name, d, **opts) if s % (n // 2) == side else KakeyaScriptedAgent(**opts)
            for s in range(n)
        ]
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            agent = agents[int(name.split("_")[1])]
            start = time.process_time()
            action = agent.act(obs["observation"], obs["action_mask"])
            ms = (time.process_time() - start) * 1000
            if isinstance(agent, KakeyaExpertAgent):
                mask = obs["action_mask"]
                kind = "trump" if mask[TRUMP_BASE] else "lead" if mask[NUM_ACTIONS - 1] else "card"
                out[kind].append(ms)
            env.step(action)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--deals", type=int, default=20, help="deals per table")
    ap.add_argument("--agent", choices=["expert", "expert_0_2"], default="expert")
    ap.add_argument("--option", action="append", default=[], help="an expert parameter KEY=JSON")
    args = ap.parse_args(argv)
    params = {k: json.loads(v) for k, v in (o.split("=", 1) for o in args.option)}
    name = args.agent + (":" + ",".join(args.option) if args.option else "")
    print(f"{args.agent} parameters: {params or 'defaults'}; {args.deals} deals per table vs scripted")
    print("| table | decisions | kind | mean ms | p95 ms | max ms |")
    print("|---|---|---|---|---|---|")
    for table, opts in TABLES.items():
        timings(opts, 1, name)  # untimed: the search kernel's first call of a process loads its cache
        per_kind = timings(opts, args.deals, name)
        every = [t for ts in per_kind.values() for t in ts]
        for kind, ts in [("all", every), *per_kind.items()]:
            if ts:
                a = np.asarray(ts)
                stats = f"{a.mean():.2f} | {np.percentile(a, 95):.2f} | {a.max():.2f}"
                print(f"| {table} | {a.size} | {kind} | {stats} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
