"""Decisions/s of the batch engines on 1 and more threads (numba's ``NUMBA_NUM_THREADS``), in one run.

Each thread count runs in its own process (numba reads ``NUMBA_NUM_THREADS`` once); the processes are
interleaved in rounds (1 thread, 2 threads, ..., then again) and each figure is the best of the rounds,
so a burst of load on a shared machine hits every thread count alike. A process measures every (game,
B) with ``bench_batch.bench_batch``'s loop (autoreset, the float32 observation read every step, random
legal actions), the engine's own wall time (its ``step`` and ``observation``) apart from the harness's
(the copy of the observation, the action draw: numpy on one thread, the same for any thread count), and
its CPU seconds per wall second (about the number of threads kept busy). A second loop does the
policy's side on numba's threads too (``threaded policy``: each row's observation copied and its
random legal action drawn in a ``prange`` over the rows, the same actions as numpy's ``argmax``): what
a policy that itself uses the cores (a batched network on several threads) would see. Each process
also digests the first steps' observations and rewards: the table says whether every thread count
gave the same bytes.

``--baseline DIR`` adds another checkout of kabu-envs (e.g. the previous release) measured the same
way at 1 thread in the same rounds: the single-thread speed and the B=1 latency before and after.
Pgx's leduc_holdem (JAX CPU, one thread) is measured beside them when installed (``bench_batch``).

    python benchmarks/bench_threads.py [--games kakeya oicho_kabu] [--sizes 1 64 256 1024 4096 8192]
                                       [--threads 1 2] [--rounds 3] [--duration 1] [--baseline DIR]
                                       [--no-pgx] [--layer tbb|omp] [--busy N]

The engines take their parallel entry point from 512 rows on whenever numba has 2+ threads
(``core.threads.use_parallel``). Pgx is measured on one thread (``bench_batch.bench_pgx``).
``--layer omp`` measures numba's OpenMP layer instead of its default choice (TBB when installed);
``--busy N`` keeps N other processes spinning on the CPUs meanwhile (a loaded machine).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_MEASURE = """
import hashlib, json, os, sys, time
sys.path.insert(0, os.path.join(sys.argv[1], "benchmarks"))
sys.path.insert(0, sys.argv[1])
import numba
import numpy as np
from kabu_envs import batch
games, sizes, duration = sys.argv[2].split(","), [int(b) for b in sys.argv[3].split(",")], float(sys.argv[4])


@numba.njit(parallel=True)
def policy(obs, buf, mask, noise, acts):  # (the threaded policy: each row's copy and argmax)
    B, A = mask.shape
    for b in numba.prange(B):
        for j in range(obs.shape[1]):
            buf[b, j] = obs[b, j]
        best, at = np.float32(0.0), 0
        for a in range(A):
            v = np.float32(mask[b, a]) * noise[b, a]
            if v > best:
                best, at = v, a
        acts[b] = at


def run(game, B, duration, threaded, check=0):
    # bench_batch.bench_batch's loop, with the engine's own wall time (step, observation) apart
    env = batch.make(game, batch_size=B, autoreset=True)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    pool = rng.random((8, B, env.num_actions)).astype(np.float32) + np.float32(1e-3)
    buf = np.empty_like(env.observation)
    acts = np.zeros(B, dtype=np.int64)
    decisions, engine, steps, digest = 0, 0.0, 0, hashlib.sha256()
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < duration or steps < check:
        for k in range(8):
            t = time.perf_counter()
            obs = env.observation
            engine += time.perf_counter() - t
            live = env.current_player >= 0
            if threaded:
                policy(obs, buf, env.legal_action_mask, pool[k], acts)
            else:
                np.copyto(buf, obs)  # the policy reads the observation
                acts = np.argmax(env.legal_action_mask * pool[k], axis=1)
            t = time.perf_counter()
            env.step(acts)
            engine += time.perf_counter() - t
            decisions += int(live.sum())
            if steps < check:
                digest.update(buf.tobytes())
                digest.update(env.rewards.tobytes())
            steps += 1
    wall = time.perf_counter() - start
    return decisions / wall, decisions / engine, (time.process_time() - cpu) / wall, digest.hexdigest()[:16]


for game in games:
    run(game, 64, 0.2, False)  # (loads the kernel, warms the threads)
    run(game, 64, 0.2, True)
    for B in sizes:
        rate, engine, busy, digest = run(game, B, duration, False, check=40)
        fast = run(game, B, duration, True)[0]
        rec = {"game": game, "B": B, "rate": rate, "engine": engine, "busy": busy, "threaded": fast}
        layer = numba.threading_layer() if numba.get_num_threads() > 1 else "-"
        rec.update(digest=digest, load=os.getloadavg()[0], threads=numba.get_num_threads(), layer=layer)
        print(json.dumps(rec))
"""


BASELINE_CACHE = Path(os.environ.get("TMPDIR", "/tmp")) / "kabu-bench-baseline-numba"


def measure(
    root: Path, threads: int, games: list[str], sizes: list[int], duration: float, layer: str | None = None
) -> list[dict]:
    """One process of checkout ``root`` on ``threads`` numba threads (``layer``: numba's threading layer,
    default its own choice): a record per (game, B). Another checkout compiles into a cache folder of its
    own (its source folders are left as they are)."""
    env = {**os.environ, "NUMBA_NUM_THREADS": str(threads), "OMP_NUM_THREADS": "1", "PYTHONPATH": str(root)}
    if layer is not None:
        env["NUMBA_THREADING_LAYER"] = layer
    if root != ROOT:
        env["NUMBA_CACHE_DIR"] = str(BASELINE_CACHE)
    args = [root, ",".join(games), ",".join(map(str, sizes)), str(duration)]
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *map(str, args)], env=env, capture_output=True, text=True, check=True
    )
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=["kakeya", "oicho_kabu"])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 256, 1024, 4096, 8192])
    ap.add_argument("--threads", type=int, nargs="+", default=sorted({1, os.cpu_count() or 1}))
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (the best is shown)")
    ap.add_argument("--duration", type=float, default=1.0, help="seconds per measurement")
    ap.add_argument("--baseline", type=Path, help="another checkout, measured at 1 thread beside this one")
    ap.add_argument("--no-pgx", action="store_true", help="skip Pgx's leduc_holdem even if installed")
    ap.add_argument(
        "--layer", choices=["tbb", "omp", "workqueue"], help="numba's threading layer (default: numba's)"
    )
    ap.add_argument(
        "--busy",
        type=int,
        default=0,
        help="processes spinning on the CPUs during the runs (a loaded machine: other jobs on its cores)",
    )
    args = ap.parse_args()
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    try:
        report(args)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def report(args: argparse.Namespace) -> None:
    """The rounds and the table (``main``'s, with the busy processes running when asked)."""
    runs = [("this", ROOT, t) for t in args.threads]
    if args.baseline is not None:
        runs.insert(0, ("baseline", args.baseline.resolve(), 1))
    best: dict[tuple[str, int, str, int], dict] = {}
    loads: list[float] = []
    digests: dict[tuple[str, str, int], set[str]] = {}
    for _ in range(args.rounds):
        for label, root, threads in runs:
            for rec in measure(root, threads, args.games, args.sizes, args.duration, args.layer):
                key = (label, threads, rec["game"], rec["B"])
                loads.append(rec["load"])
                digests.setdefault((label, rec["game"], rec["B"]), set()).add(rec["digest"])
                if key not in best:
                    best[key] = rec
                else:  # the best of each figure over the rounds
                    for name in ("rate", "engine", "threaded"):
                        best[key][name] = max(best[key][name], rec[name])
    layers = sorted({rec["layer"] for rec in best.values() if rec["layer"] != "-"})
    print(
        f"threading layer: {', '.join(layers) or '-'} (NUMBA_THREADING_LAYER to choose); "
        f"best of {args.rounds} interleaved rounds of {args.duration} s; load average (1 min) "
        f"during the runs: {min(loads):.2f} .. {max(loads):.2f}; {os.cpu_count()} CPUs"
        + (f"; {args.busy} busy processes beside" if args.busy else "")
    )
    head = "| game | B |" + "".join(f" {t} thr dec/s |" for t in args.threads)
    head += "".join(f" {t} thr / 1 thr |" for t in args.threads[1:])
    head += (
        "".join(f" engine-only {t} thr / 1 thr |" for t in args.threads[1:])
        + "".join(f" threaded policy {t} thr / 1 thr |" for t in args.threads[1:])
        + " CPU s per s (most threads) | same obs, rewards |"
    )
    if args.baseline is not None:
        head += " baseline 1 thr | 1 thr / baseline | same games as baseline |"
    print(head)
    print("|---|---:|" + "---:|" * (head.count("|") - 3))
    for game in args.games:
        for B in args.sizes:
            rates = [best[("this", t, game, B)]["rate"] for t in args.threads]
            row = f"| {game} | {B} |" + "".join(f" {r:,.0f} |" for r in rates)
            row += "".join(f" {r / rates[0]:.2f}x |" for r in rates[1:])
            engines = [best[("this", t, game, B)]["engine"] for t in args.threads]
            row += "".join(f" {r / engines[0]:.2f}x |" for r in engines[1:])
            fast = [best[("this", t, game, B)]["threaded"] for t in args.threads]
            row += "".join(f" {r / fast[0]:.2f}x |" for r in fast[1:])
            row += f" {best[('this', args.threads[-1], game, B)]['busy']:.2f} |"
            row += " yes |" if len(digests[("this", game, B)]) == 1 else " **NO** |"
            if args.baseline is not None:
                base = best[("baseline", 1, game, B)]["rate"]
                same = digests[("baseline", game, B)] == digests[("this", game, B)]
                row += f" {base:,.0f} | {rates[0] / base:.2f}x | {'yes' if same else '**NO**'} |"
            print(row, flush=True)
    for game in args.games:
        if 1 in args.sizes:  # one game: a step's latency
            line = f"B=1 latency, {game}: " + ", ".join(
                f"{label} {t} thr {1e6 / best[(label, t, game, 1)]['rate']:.1f} us" for label, _, t in runs
            )
            print(line)
    if not args.no_pgx:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        sys.path.insert(0, str(ROOT))
        import bench_batch

        for B in args.sizes:
            rate = bench_batch.bench_pgx(B, args.duration, args.rounds)
            if rate is None:
                print("(Pgx leduc_holdem skipped: pgx is not installed; `pip install pgx` to add it)")
                break
            print(f"| Pgx leduc_holdem (JAX CPU, 1 thread) | {B} | {rate:,.0f} |")


if __name__ == "__main__":
    main()
