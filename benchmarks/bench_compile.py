"""Cold and warm start of every compiled kernel (issue #26's limits: cold <= 60 s idle, warm <= 2 s).

One fresh process uses everything that compiles: every game's batch engine in both observation formats
(a seeded reset, a fed reset, 30 steps, the observations read), and the Kakeya searches (`expert_0_2`,
then `expert`) on a few decisions of a game; measured twice: with the serial entry points only (what a
small batch compiles), then with the parallel entry points and the batched search too. Each runs once
with an empty ``NUMBA_CACHE_DIR`` (cold: it compiles and caches) and again with the same directory
(warm: it loads the cache). Wall and CPU seconds of the whole process, imports included.

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
import sys
import time
t0, c0 = time.perf_counter(), time.process_time()
import numpy as np
from kabu_envs import batch, registry
from kabu_envs.agents.registry import make_agent
parallel = sys.argv[1] == "parallel"
if parallel:  # the parallel entry points too (numba compiles a function on its first call)
    from kabu_envs.core import threads
    from kabu_envs.kakeya.agents.kernel_expert import KakeyaKernelExpertAgent
    threads.PARALLEL_MIN_ROWS = 1  # (its batches of 4 games too)
    threads.use_parallel = lambda rows, min_rows=0: True
    KakeyaKernelExpertAgent._parallel_threads = staticmethod(lambda: True)
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
    seen = []
    for _ in range(12):
        obs = aec.observe(aec.agent_selection)
        seen.append(obs)
        aec.step(agent.act(obs["observation"], obs["action_mask"]))
    if parallel and name == "expert":  # a batch of the decisions: the batched search
        batch_obs = np.stack([o["observation"] for o in seen])
        agent.act_batch(batch_obs, np.stack([o["action_mask"] for o in seen]))
print(f"{time.perf_counter() - t0:.2f} {time.process_time() - c0:.2f}")
"""


def run(cache: str, parallel: bool = True) -> tuple[float, float]:
    """(wall, cpu) seconds of one fresh process using every kernel with the numba cache ``cache``
    (``parallel``: the parallel entry points and the batched search too)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-c", _USE_ALL, "parallel" if parallel else "serial"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    wall, cpu = done.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat-warm", type=int, default=3, help="warm starts (the best is shown)")
    args = ap.parse_args()
    print("| start | wall s | CPU s | limit |")
    print("|---|---:|---:|---|")
    for parallel in (False, True):
        what = "every entry point" if parallel else "the serial entry points"
        with tempfile.TemporaryDirectory(prefix="kabu-numba-") as cache:
            cold = run(cache, parallel)
            warm = min(run(cache, parallel) for _ in range(args.repeat_warm))
        print(f"| cold (empty cache), {what} | {cold[0]:.1f} | {cold[1]:.1f} | 60 s (idle) |")
        print(f"| warm (best of {args.repeat_warm}), {what} | {warm[0]:.2f} | {warm[1]:.2f} | 2 s |")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
