"""The duplicate evaluation on every core: ``kabu-eval`` wall time with 1 and N processes, same JSON.

    .venv/bin/python benchmarks/bench_eval_workers.py                       # expert vs expert_0_2, 1000 deals
    .venv/bin/python benchmarks/bench_eval_workers.py --deals 300 --rounds 1 --threads 1 2

Each round runs ``kabu-eval --game G --agents A --opponents O --deals N --json ...`` once per thread
setting (``NUMBA_NUM_THREADS=t``: kabu-eval's default worker count, kabu_envs.eval.parallel), interleaved,
in fresh processes, and prints each run's wall time with the load average before it; then the best time
of each setting, its speed-up over the first, and whether every run wrote the same JSON (it must: the
results do not depend on the worker count). A speed-up needs idle cores: read it with the load.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(threads: int, argv: list[str], out: Path) -> float:
    """One ``kabu-eval`` run with ``NUMBA_NUM_THREADS=threads``: its wall time in seconds."""
    env = {**os.environ, "NUMBA_NUM_THREADS": str(threads), "OMP_NUM_THREADS": "1"}
    command = [sys.executable, "-m", "kabu_envs.eval", *argv, "--json", str(out)]
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="kakeya")
    ap.add_argument("--agents", default="expert")
    ap.add_argument("--opponents", default="expert_0_2")
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    eval_args = ["--game", args.game, "--agents", args.agents, "--opponents", args.opponents]
    eval_args += ["--deals", str(args.deals)]
    best: dict[int, float] = {}
    written: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        run(args.threads[0], [*eval_args[:-1], "2"], Path(tmp) / "warm.json")  # kernels loaded (or compiled)
        for r in range(args.rounds):
            for t in args.threads:
                load = " ".join(f"{x:.2f}" for x in os.getloadavg())
                out = Path(tmp) / f"{r}-{t}.json"
                seconds = run(t, eval_args, out)
                written.append(out.read_text())
                best[t] = min(best.get(t, seconds), seconds)
                print(
                    f"round {r + 1}  NUMBA_NUM_THREADS={t}  {seconds:7.2f} s  (load before: {load})",
                    flush=True,
                )
    first = best[args.threads[0]]
    print(f"{args.game} {args.agents} vs {args.opponents}, {args.deals} deals, best of {args.rounds}:")
    for t, seconds in best.items():
        print(f"  NUMBA_NUM_THREADS={t}: {seconds:7.2f} s  {first / seconds:.2f}x")
    same = all(w == written[0] for w in written)
    print("same JSON in every run" if same else "THE RUNS WROTE DIFFERENT JSON")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
