"""Cold and warm start of every compiled kernel (issue #26's limits: cold <= 60 s idle, warm <= 2 s).

One fresh process uses everything that compiles: every game's batch engine in both observation formats
(a seeded reset, a fed reset, 30 steps, the observations read), and the Kakeya searches (`expert_0_2`,
then `expert`) on a few decisions of a game. Run once with an empty ``NUMBA_CACHE_DIR`` (cold: it
compiles and caches) and again with the same directory (warm: it loads the cache). Wall and CPU seconds
of the whole process, imports included.

    python benchmarks/bench_compile.py [--repeat-warm 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_USE_ALL = """
import time
t0, c0 = time.perf_counter(), time.process_time()
import numpy as np
from kabu_envs import batch, registry
from kabu_envs.agents.registry import make_agent
for game in registry.game_ids():
    for fmt in ("float32", "compact"):
        env = batch.make(game, batch_size=4, autoreset=True, observation=fmt)
        env.reset(seed=1)
        env.reset(rows=[1], seeds=[5])
        for _ in range(30):
            env.step(np.array([int(np.flatnonzero(m)[0]) for m in env.legal_action_mask]))
            env.observation
for name in ("expert_0_2", "expert"):
    aec = registry.get("kakeya").make_raw_env()
    aec.reset(seed=3)
    agent = make_agent("kakeya", name, seed=0)
    for _ in range(12):
        obs = aec.observe(aec.agent_selection)
        aec.step(agent.act(obs["observation"], obs["action_mask"]))
print(f"{time.perf_counter() - t0:.2f} {time.process_time() - c0:.2f}")
"""


def run(cache: str) -> tuple[float, float]:
    """(wall, cpu) seconds of one fresh process using every kernel with the numba cache ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-c", _USE_ALL]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    wall, cpu = done.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat-warm", type=int, default=3, help="warm starts (the best is shown)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="kabu-numba-") as cache:
        cold = run(cache)
        warm = min(run(cache) for _ in range(args.repeat_warm))
    print("| start | wall s | CPU s | limit |")
    print("|---|---:|---:|---|")
    print(f"| cold (empty cache) | {cold[0]:.1f} | {cold[1]:.1f} | 60 s (idle) |")
    print(f"| warm (best of {args.repeat_warm}) | {warm[0]:.2f} | {warm[1]:.2f} | 2 s |")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
