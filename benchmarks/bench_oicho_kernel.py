"""Decisions/s of Oicho-Kabu's kernel engine (``OichoKabuBatch``): float32 and compact, one run.

The loop is ``bench_batch.py``'s: ``autoreset=True`` (every game live), every step reads the observation
(copied into a policy-side buffer; the compact rows for ``kernel compact``) and the mask and draws one
random legal action per game (argmax of the mask times a pre-drawn uniform table). The engines are
measured interleaved (one run of each per round, the best of ``--repeat`` rounds), so that machine load
affects them alike (the numpy engine it replaced: ``bench_kernel.py --numpy DIR --games oicho_kabu``,
DIR a checkout of an older commit). Then the kernel's cold compile (a fresh process, an empty cache
folder) and warm start (a fresh process, the cache filled), each import + first engine + first step.

    python benchmarks/bench_oicho_kernel.py [--duration 1] [--repeat 3] [--sizes 1 64 1024 8192]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def run(env: Any, duration: float, compact: bool, seed: int = 0) -> float:
    """Decisions/s of one run of ``duration`` s."""
    rng = np.random.default_rng(seed)
    pool = rng.random((8, env.batch_size, env.num_actions)).astype(np.float32) + np.float32(1e-3)
    obs = env.observation_compact if compact else env.observation
    buf = np.empty_like(obs)
    decisions = 0
    start = time.perf_counter()
    while True:
        for k in range(8):
            np.copyto(buf, env.observation_compact if compact else env.observation)
            acts = np.argmax(env.legal_action_mask * pool[k], axis=1)
            env.step(acts)
            decisions += env.batch_size
        elapsed = time.perf_counter() - start
        if elapsed >= duration:
            return decisions / elapsed


def engines(B: int) -> dict[str, Any]:
    """The engines compared at batch size B (all autoreset, the default rules)."""
    from kabu_envs.oicho_kabu.batch import OichoKabuBatch

    out: dict[str, Any] = {
        "kernel float32": OichoKabuBatch(B, autoreset=True),
        "kernel compact": OichoKabuBatch(B, autoreset=True, observation="compact"),
    }
    for env in out.values():
        env.reset(seed=1)
    return out


_START = """
import time, sys
t = time.perf_counter()
from kabu_envs.oicho_kabu.batch import OichoKabuBatch
env = OichoKabuBatch(8)
env.reset(seed=0)
env.observation
env.observation_compact
env.step(env.legal_action_mask.argmax(axis=1))
print(time.perf_counter() - t)
"""


def start_time(cache: str) -> float:
    """Seconds of import + first engine + first step in a fresh process whose numba cache is ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", _START], env=env, capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=1.0, help="seconds per run")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (the best run of each engine is shown)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024, 8192])
    parser.add_argument("--no-compile", action="store_true", help="skip the cold / warm start measurement")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average {load:.1f}, best of {args.repeat} interleaved runs of {args.duration} s")
    print("| B | kernel float32 | kernel compact | bytes/game float32, compact |")
    print("|---:|---:|---:|---:|")
    for B in args.sizes:
        envs = engines(B)
        for env in envs.values():  # warm-up (the first calls compile or load the kernel)
            run(env, 0.05, env is envs["kernel compact"])
        best = dict.fromkeys(envs, 0.0)
        for _ in range(args.repeat):
            for name, env in envs.items():
                best[name] = max(best[name], run(env, args.duration, name == "kernel compact"))
        f32, packed = envs["kernel float32"], envs["kernel compact"]
        print(
            f"| {B} | {best['kernel float32']:,.0f} | {best['kernel compact']:,.0f} "
            f"| {f32.state_nbytes() // B:,}, {packed.state_nbytes() // B:,} |",
            flush=True,
        )
    if not args.no_compile:
        with tempfile.TemporaryDirectory() as cache:
            cold = start_time(cache)
            warm = start_time(cache)
        print(f"kernel start in a fresh process: cold (compiling) {cold:.1f} s, warm (cached) {warm:.2f} s")


if __name__ == "__main__":
    main()
