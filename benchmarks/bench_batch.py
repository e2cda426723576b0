"""Decisions/s of the batch engines (``kabu_envs.batch``), beside the AEC env's steps/s, in one run.

For each game and batch size B the engine runs with ``autoreset=True`` (steady state: every game live),
and every step reads the observation (copied into a policy-side buffer) and the mask, then draws one
random legal action per game (argmax of the mask times a pre-drawn uniform table, so the random draws
are not timed). A *decision* is one action of one live game. The AEC line is the raw env's
``agent_selection`` / ``observe`` / ``step`` loop with random legal actions (one decision per step).
Memory per game is the bytes of the engine's state arrays (game state, mask, observation, rewards) / B.
Each figure is the best of ``--repeat`` runs (the machine may be shared).

    python benchmarks/bench_batch.py [--duration 2] [--repeat 3] [--sizes 1 64 1024 8192]
                                     [--games kakeya toy_card]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # measure this checkout's kabu_envs
from kabu_envs import batch, registry  # noqa: E402


def state_bytes(env: batch.BatchEnv) -> int:
    """Bytes of the engine's per-game state arrays."""
    if hasattr(env, "state_nbytes"):
        return int(env.state_nbytes())
    B = env.batch_size
    return sum(
        v.nbytes
        for k, v in vars(env).items()
        if not k.startswith("_") and isinstance(v, np.ndarray) and v.shape[:1] == (B,)
    )


def bench_batch(game: str, B: int, duration: float, repeat: int, seed: int = 0) -> tuple[float, float]:
    """(best decisions/s of ``repeat`` runs of ``duration`` s, state bytes per game)."""
    env = batch.make(game, batch_size=B, autoreset=True)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    pool = rng.random((8, B, env.num_actions)).astype(np.float32) + np.float32(1e-3)
    buf = np.empty_like(env.observation)
    best = 0.0
    for _ in range(repeat):
        decisions = 0
        start = time.perf_counter()
        while True:
            for k in range(8):
                np.copyto(buf, env.observation)  # the policy reads the observation
                live = env.current_player >= 0
                acts = np.argmax(env.legal_action_mask * pool[k], axis=1)
                env.step(acts)
                decisions += int(live.sum())
            elapsed = time.perf_counter() - start
            if elapsed >= duration:
                break
        best = max(best, decisions / elapsed)
    return best, state_bytes(env) / B


def bench_aec(game: str, duration: float, repeat: int, seed: int = 0) -> float:
    """Best steps/s of ``repeat`` runs of ``duration`` s of the raw AEC env."""
    return max(_bench_aec_once(game, duration, seed + k) for k in range(repeat))


def _bench_aec_once(game: str, duration: float, seed: int) -> float:
    env = registry.get(game).make_raw_env()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps = 0
    start = time.perf_counter()
    while True:
        for _ in range(256):
            if not env.agents or all(env.terminations[a] for a in env.agents):
                env.reset()
                continue
            agent = env.agent_selection
            if env.terminations[agent]:
                env.step(None)
                continue
            obs = env.observe(agent)
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        elapsed = time.perf_counter() - start
        if elapsed >= duration:
            return steps / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=2.0, help="seconds per run")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (the best is shown)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024, 8192])
    parser.add_argument("--games", nargs="+", default=["kakeya", "toy_card"])
    args = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"load average {load:.1f}, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}, "
        f"best of {args.repeat} runs of {args.duration} s"
    )
    print("| game | engine | B | decisions/s | vs AEC | bytes/game |")
    print("|---|---|---:|---:|---:|---:|")
    for game in args.games:
        aec = bench_aec(game, args.duration, args.repeat)
        print(f"| {game} | AEC raw_env | 1 | {aec:,.0f} | 1.0x | |", flush=True)
        for B in args.sizes:
            name = type(batch.make(game, batch_size=1)).__name__
            rate, per_game = bench_batch(game, B, args.duration, args.repeat)
            print(
                f"| {game} | {name} | {B} | {rate:,.0f} | {rate / aec:.1f}x | {per_game:,.0f} |", flush=True
            )


if __name__ == "__main__":
    main()
