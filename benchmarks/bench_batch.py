"""Decisions/s of the batch engines (``kabu_envs.batch``), beside the AEC envs and the anchors, in one run.

For each game and batch size B the engine runs with ``autoreset=True`` (steady state: every game live),
and every step reads the observation (copied into a policy-side buffer) and the mask, then draws one
random legal action per game (argmax of the mask times a pre-drawn uniform table, so the random draws
are not timed). A *decision* is one action of one live game. An AEC line is the raw env's
``agent_iter`` / ``last`` / ``step`` loop of ``benchmarks/bench_envs.py`` with random legal actions
(one decision per step).
Memory per game is the bytes of the engine's state arrays (game state, mask, observation, rewards) / B.
Each figure is the best of ``--repeat`` runs (the machine may be shared).

External anchors, measured in the same run so that machine load affects every row alike:

* PettingZoo's ``leduc_holdem_v4`` raw env (the classic card env this suite is compared with), through
  the same loop; "vs AEC" of a batch row is against its own game's AEC env.
* Pgx's ``leduc_holdem`` (JAX, ``jit(vmap(step))`` with auto-reset) at the same B, when ``pgx`` is
  installed (``pip install -e .[bench]`` = pgx with CPU JAX, about 600 MB; not needed otherwise), run
  Pgx's way on one CPU thread (``XLA_FLAGS``, as the numpy engines): 64 steps per jitted call,
  random legal actions drawn on the device; compile time is excluded.
  Skipped with a message when pgx is absent.

    python benchmarks/bench_batch.py [--duration 2] [--repeat 3] [--sizes 1 64 1024 8192]
                                     [--games oicho_kabu kakeya toy_card] [--no-pgx]
                                     [--active 0.1]   # also partial steps, 10% of the games each
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # measure this checkout's kabu_envs
sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_envs  # noqa: E402

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


def bench_batch(
    game: str, B: int, duration: float, repeat: int, seed: int = 0, active: float | None = None
) -> tuple[float, float]:
    """(best decisions/s of ``repeat`` runs of ``duration`` s, state bytes per game). With ``active`` a
    fraction, every step is a partial one, ``step(actions, active=mask)`` with that share of the games
    (drawn anew each step, as BatchVecEnv's opponent turns do); only their decisions count."""
    env = batch.make(game, batch_size=B, autoreset=True)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    pool = rng.random((8, B, env.num_actions)).astype(np.float32) + np.float32(1e-3)
    moving = rng.random((8, B)) < (1.0 if active is None else active)
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
                if active is None:
                    env.step(acts)
                else:
                    live &= moving[k]
                    env.step(acts, active=moving[k])
                decisions += int(live.sum())
            elapsed = time.perf_counter() - start
            if elapsed >= duration:
                break
        best = max(best, decisions / elapsed)
    return best, state_bytes(env) / B


def bench_aec(make_env: Callable[[], Any], duration: float, repeat: int, seed: int = 0) -> float:
    """Best steps/s of ``repeat`` runs of ``duration`` s of an AEC env (``bench_envs.run``'s loop)."""
    best = 0.0
    for k in range(repeat):
        steps, _games, secs = bench_envs.run(make_env, duration, seed + k)
        best = max(best, steps / secs)
    return best


def leduc_factory() -> Callable[[], Any] | None:
    """PettingZoo's raw leduc_holdem_v4 (None, with a message, when PettingZoo's classic envs are absent)."""
    try:
        bench_envs._allow_missing_pygame()
        from pettingzoo.classic import leduc_holdem_v4
    except ImportError as exc:
        print(f"(PettingZoo leduc_holdem_v4 skipped: {exc})")
        return None
    return leduc_holdem_v4.raw_env


def bench_pgx(B: int, duration: float, repeat: int, seed: int = 0, chunk: int = 64) -> float | None:
    """Best decisions/s of Pgx's leduc_holdem at batch size B (None when pgx is not installed)."""
    timed = time_pgx(B, duration, repeat, seed, chunk)
    return None if timed is None else timed[0]


def time_pgx(
    B: int, duration: float, repeat: int, seed: int = 0, chunk: int = 64
) -> tuple[float, float] | None:
    """(best decisions/s, CPU seconds per decision of that run) of Pgx's leduc_holdem at batch size B
    (None when pgx is not installed); ``bench_kernel.py`` reads the CPU time too.

    Pgx's own way: ``chunk`` steps per jitted call (``lax.fori_loop`` over ``vmap(step)`` with auto-reset
    and random legal actions drawn on the device), so Python dispatch is paid once per chunk; every step
    computes the observation, and each call waits for the final one (``block_until_ready``).
    """
    # one CPU thread, like the numpy engines (XLA would otherwise use every core)
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
    try:
        import jax
        import pgx
        from pgx.experimental import act_randomly, auto_reset
    except ImportError:
        return None
    env = pgx.make("leduc_holdem")
    init = jax.jit(jax.vmap(env.init))
    step = jax.vmap(auto_reset(env.step, env.init))

    def one(_i: int, carry: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        state, key, decisions = carry
        key, k_act, k_step = jax.random.split(key, 3)
        decisions = decisions + (~state.terminated).sum()
        state = step(state, act_randomly(k_act, state.legal_action_mask), jax.random.split(k_step, B))
        return state, key, decisions

    @jax.jit
    def run_chunk(state: Any, key: Any) -> tuple[Any, Any, Any]:
        return jax.lax.fori_loop(0, chunk, one, (state, key, jax.numpy.int32(0)))

    key, sub = jax.random.split(jax.random.PRNGKey(seed))
    state = init(jax.random.split(sub, B))
    best, cpu_per = 0.0, 0.0
    for run in range(repeat + 1):  # run 0 compiles and warms up
        decisions = 0
        start, cpu = time.perf_counter(), time.process_time()
        while True:
            state, key, n = run_chunk(state, key)
            state.observation.block_until_ready()
            decisions += int(n)
            elapsed = time.perf_counter() - start
            if elapsed >= duration:
                break
        if run and decisions / elapsed > best:
            best, cpu_per = decisions / elapsed, (time.process_time() - cpu) / decisions
    return best, cpu_per


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=2.0, help="seconds per run")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (the best is shown)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024, 8192])
    parser.add_argument("--games", nargs="+", default=["kakeya", "oicho_kabu", "toy_card"])
    parser.add_argument("--no-pgx", action="store_true", help="skip Pgx's leduc_holdem even if installed")
    parser.add_argument(
        "--active",
        type=float,
        nargs="*",
        default=[],
        help="also partial steps: step(actions, active=mask) with this fraction of the games (e.g. 0.1)",
    )
    args = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"load average {load:.1f}, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}, "
        f"best of {args.repeat} runs of {args.duration} s"
    )
    print("| game | engine | B | decisions/s | vs AEC | bytes/game |")
    print("|---|---|---:|---:|---:|---:|")
    make_leduc = leduc_factory()
    leduc: float | None = None
    if make_leduc is not None:
        leduc = bench_aec(make_leduc, args.duration, args.repeat)
        row = f"| leduc_holdem | PettingZoo leduc_holdem_v4 raw_env | 1 | {leduc:,.0f} | 1.0x | |"
        print(row, flush=True)
    if not args.no_pgx:
        for B in args.sizes:
            rate = bench_pgx(B, args.duration, args.repeat)
            if rate is None:
                print("(Pgx leduc_holdem skipped: pgx is not installed; `pip install pgx` to add it)")
                break
            ratio = f"{rate / leduc:.1f}x" if leduc else "-"
            print(f"| leduc_holdem | Pgx (JAX CPU, jit+vmap) | {B} | {rate:,.0f} | {ratio} | |", flush=True)
    for game in args.games:
        spec = registry.get(game)
        aec = bench_aec(spec.make_raw_env, args.duration, args.repeat)
        print(f"| {game} | AEC raw_env | 1 | {aec:,.0f} | 1.0x | |", flush=True)
        for B in args.sizes:
            name = type(batch.make(game, batch_size=1)).__name__
            rate, per_game = bench_batch(game, B, args.duration, args.repeat)
            print(
                f"| {game} | {name} | {B} | {rate:,.0f} | {rate / aec:.1f}x | {per_game:,.0f} |", flush=True
            )
            for frac in args.active:
                if B * frac < 1:  # (a share of one game is no partial step)
                    continue
                rate, per_game = bench_batch(game, B, args.duration, args.repeat, active=frac)
                label = f"{name}, {frac:.0%} active"
                print(
                    f"| {game} | {label} | {B} | {rate:,.0f} | {rate / aec:.1f}x | {per_game:,.0f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
