"""Decisions/s of a kernel batch engine beside the numpy engine it replaced (issue #26), interleaved.

Each measurement runs in its own process with ``kabu_envs`` imported from a given checkout: this one
(the kernel engines, float32 and compact observations) or an older one (``--numpy DIR``: e.g.
``git archive abf5de3 | tar -x -C DIR``, the numpy engines). For each game and batch size B the three
run one after the other (interleaved, so machine load hits them alike), ``--repeat`` times; the best
is shown. The loop is ``bench_batch.py``'s: ``autoreset=True``, every step reads the observation (a
copy into a policy-side buffer; the compact engine's bytes as they are) and the mask, then one random legal
action per game (pre-drawn, not timed). A decision is one action of one live game. The kernel is
compiled (or loaded from its cache) before timing.

    python benchmarks/bench_kernel.py --numpy /tmp/kk-numpy [--games kakeya toy_card]
                                      [--sizes 1 64 1024 8192] [--duration 1] [--repeat 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

_WORKER = """
import json, sys, time
sys.path.insert(0, {root!r})
import numpy as np
from kabu_envs import batch
kw = {{}} if {fmt!r} == "default" else {{"observation": {fmt!r}}}
env = batch.make({game!r}, batch_size={B}, autoreset=True, **kw)
env.reset(seed=0)
rng = np.random.default_rng(0)
pool = rng.random((8, {B}, env.num_actions)).astype(np.float32) + np.float32(1e-3)
compact = {fmt!r} == "compact"
def read():  # the policy reads the bytes when compact (a learner on device would decode them there)
    if not compact:
        return [env.observation]
    if hasattr(env, "observation_compact"):  # Oicho-Kabu: one (B, C) array, encoded when read
        return [env.observation_compact]
    return [env.observation_packed, env.observation_real]
buf = [np.empty_like(a) for a in read()]
for k in range(8):  # warm up (caches, first calls)
    env.step(np.argmax(env.legal_action_mask * pool[k], axis=1))
best = 0.0
for _ in range({repeat}):
    decisions = 0
    start = time.perf_counter()
    while True:
        for k in range(8):
            for dst, a in zip(buf, read()):
                np.copyto(dst, a)  # the policy reads the observation
            live = env.current_player >= 0
            env.step(np.argmax(env.legal_action_mask * pool[k], axis=1))
            decisions += int(live.sum())
        elapsed = time.perf_counter() - start
        if elapsed >= {duration}:
            break
    best = max(best, decisions / elapsed)
nbytes = env.state_nbytes() if hasattr(env, "state_nbytes") else 0
print(json.dumps([best, nbytes / {B}, type(env).__name__]))
"""


def measure(
    root: Path, game: str, B: int, fmt: str, duration: float, repeat: int
) -> tuple[float, float, str]:
    """(best decisions/s, state bytes per game, engine class) of one engine, in a fresh process."""
    code = _WORKER.format(root=str(root), game=game, B=B, fmt=fmt, duration=duration, repeat=repeat)
    env = {**os.environ, "PYTHONPATH": str(root), "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    rate, per_game, name = json.loads(out.stdout.strip().splitlines()[-1])
    return float(rate), float(per_game), str(name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--numpy", type=Path, required=True, help="a checkout with the numpy engines")
    parser.add_argument("--games", nargs="+", default=["kakeya", "toy_card"])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024, 8192])
    parser.add_argument("--duration", type=float, default=1.0, help="seconds per run")
    parser.add_argument("--repeat", type=int, default=2, help="runs per measurement (the best is shown)")
    args = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    when = time.strftime("%F %T")
    print(f"load average {load:.1f}, best of {args.repeat} runs of {args.duration} s, {when}")
    print(
        "| game | B | numpy engine | kernel, float32 | kernel, compact | float32 vs numpy "
        "| bytes/game numpy -> kernel |"
    )
    print("|---|---:|---:|---:|---:|---:|---|")
    for game in args.games:
        measure(HERE, game, 1, "float32", 0.01, 1)  # compile (or load) the kernel before timing
        for B in args.sizes:
            old, old_bytes, _ = measure(args.numpy, game, B, "default", args.duration, args.repeat)
            new, new_bytes, _ = measure(HERE, game, B, "float32", args.duration, args.repeat)
            compact, compact_bytes, _ = measure(HERE, game, B, "compact", args.duration, args.repeat)
            print(
                f"| {game} | {B} | {old:,.0f} | {new:,.0f} | {compact:,.0f} | {new / old:.1f}x | "
                f"{old_bytes:,.0f} -> {new_bytes:,.0f} (compact {compact_bytes:,.0f}) |",
                flush=True,
            )


if __name__ == "__main__":
    main()
