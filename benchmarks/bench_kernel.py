"""Decisions/s of a kernel batch engine beside the numpy engine it replaced and Pgx's leduc (issue #26),
interleaved, with the harness's own cost measured apart.

Each measurement runs in its own process with ``kabu_envs`` imported from a given checkout: this one
(the kernel engines, float32 and compact observations) or an older one (``--numpy DIR``: e.g.
``git archive abf5de3 | tar -x -C DIR``, the numpy engines; Oicho-Kabu's last one is fb847d3, named
with ``--numpy-commit``). For each game and batch size B the engines run one after the other
(interleaved, so machine load hits them alike), ``--rounds`` times, each process ``--repeat`` runs; the
best is shown. The loop is ``bench_batch.py``'s: ``autoreset=True``, every step
reads the observation (a copy into a policy-side buffer; the compact engine's bytes as they are) and the
mask, then one random legal action per game. A decision is one action of one live game. The kernel is
compiled (or loaded from its cache) before timing.

**The action draw** (``--draw``), the same for every engine: ``ranked`` (the default) gives each game,
for each of 8 pre-drawn tables, a uniformly random order of the actions and plays the legal action
ranked first (one integer ``max`` of the mask times a uint16 table per row: the rank sits above the
action id's bits), so each legal action is equally likely; ``argmax`` is the first harness's (and
``bench_batch.py``'s): ``argmax`` of the mask times a uniform float32 table, also uniform over the legal
actions, but its (B, A) float32 tables (1.8 MB at B = 1024 for Kakeya) cost the loop twice the time.

**The harness apart**: the same loop over a do-nothing env (``NullEnv``: the engine's observation and
mask arrays, a ``step`` that returns at once) is the loop's own cost per step (the observation copy,
the mask read and the action draw), paid alike by every engine. An engine's *engine time* is its loop's
CPU time per step minus the harness's (CPU time, ``time.process_time``: steadier than wall time on a
shared machine); its *engine-only* ratios compare those.

**Pgx's leduc_holdem** (``bench_batch.time_pgx``, at ``--pgx-sizes``): Pgx's own way, 64 steps per
jitted call with the actions drawn on the device, one CPU thread, so it pays no host-side harness: its
figure compares with a kernel's engine-only rate, and is shown beside the loop's too.

    python benchmarks/bench_kernel.py --numpy /tmp/np-engines [--numpy-commit abf5de3]
        [--games kakeya toy_card] [--sizes 1 64 1024 8192] [--pgx-sizes 1024] [--duration 1]
        [--repeat 2] [--rounds 1] [--draw ranked|argmax]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent.parent
DRAWS = ("ranked", "argmax")

_WORKER = """
import json, sys, time
sys.path.insert(0, {root!r})
import numpy as np
from kabu_envs import batch
mode = {mode!r}
fmt = mode.removeprefix("null-")
kw = {{}} if fmt == "numpy" else {{"observation": fmt}}
env = batch.make({game!r}, batch_size={B}, autoreset=True, **kw)
env.reset(seed=0)
sys.path.insert(0, {bench!r})
import bench_kernel
draw = bench_kernel.make_draw({draw!r}, {B}, env.num_actions, np.random.default_rng(0))
for k in range(8):  # warm up (caches, first calls) and reach the middle of a deal
    env.step(draw(env.legal_action_mask, k))
nbytes = env.state_nbytes() if hasattr(env, "state_nbytes") else 0
name = type(env).__name__
compact = fmt == "compact"
def read_from(e):  # the policy reads the bytes when compact (a learner on device would decode them there)
    if not compact:
        return [e.observation]  # read every step: an engine may encode lazily on read
    if hasattr(e, "observation_compact"):  # Oicho-Kabu: one (B, C) array, encoded when read
        return [e.observation_compact]
    return [e.observation_packed, e.observation_real]
if mode.startswith("null-"):  # the harness alone: the same arrays, a step that does nothing
    class NullEnv:
        def __init__(self, real):
            self.legal_action_mask = real.legal_action_mask.copy()
            self.current_player = np.zeros(real.batch_size, dtype=np.int64)
            self.arrays = [a.copy() for a in read_from(real)]
        def step(self, actions):
            return None
    env, name, nbytes = NullEnv(env), "NullEnv", 0
    def read():
        return env.arrays
else:
    def read():
        return read_from(env)
buf = [np.empty_like(a) for a in read()]
best, cpu_step = 0.0, 0.0
for _ in range({repeat}):
    decisions = steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while True:
        for k in range(8):
            for dst, a in zip(buf, read()):
                np.copyto(dst, a)  # the policy reads the observation
            live = env.current_player >= 0
            env.step(draw(env.legal_action_mask, k))
            decisions += int(live.sum())
        steps += 8
        elapsed = time.perf_counter() - start
        if elapsed >= {duration}:
            break
    if decisions / elapsed > best:
        best, cpu_step, per_step = decisions / elapsed, (time.process_time() - cpu) / steps, decisions / steps
print(json.dumps([best, cpu_step * 1e6, nbytes / {B}, name, per_step]))
"""

_PGX = """
import json, sys
sys.path.insert(0, {bench!r})
import bench_batch
timed = bench_batch.time_pgx({B}, {duration}, {repeat})
print(json.dumps(None if timed is None else [timed[0], timed[1] * {B} * 1e6, 0, "pgx leduc_holdem", {B}]))
"""


def make_draw(
    kind: str, batch_size: int, num_actions: int, rng: np.random.Generator, tables: int = 8
) -> Callable[[np.ndarray, int], np.ndarray]:
    """The harness's random legal actions: ``draw(mask, k)`` gives one action per game (int64) from the
    (B, A) bool ``mask`` with pre-drawn table ``k % tables``, uniform over each game's legal actions.

    ``argmax``: the argmax of the mask times a uniform float32 table. ``ranked``: each table gives each
    game a random order of the actions (a permutation of 1..A, so no ties), and the legal action ranked
    first is played: one integer ``max`` per row of the mask times keys holding the rank above the
    action id's bits; the uint16 tables are half the size of the float32 ones and the max is cheaper
    than the argmax."""
    if kind not in DRAWS:
        raise ValueError(f"draw={kind!r}: expected one of {DRAWS}")
    shape = (tables, batch_size, num_actions)
    if kind == "argmax":
        pool = rng.random(shape).astype(np.float32) + np.float32(1e-3)
        return lambda mask, k: np.argmax(mask * pool[k % tables], axis=1)
    shift = max(1, (num_actions - 1).bit_length())
    ranks = np.argsort(rng.random(shape), axis=2) + 1
    keys = ((ranks << shift) | np.arange(num_actions)).astype(
        np.uint16 if num_actions << shift < 1 << 16 else np.uint32
    )
    low = keys.dtype.type((1 << shift) - 1)
    return lambda mask, k: ((mask * keys[k % tables]).max(axis=1) & low).astype(np.int64)


def run_worker(root: Path, code: str) -> Any:
    """The JSON line a worker prints last, from a fresh process importing ``root``'s ``kabu_envs``."""
    env = {**os.environ, "PYTHONPATH": str(root), "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(
    root: Path, game: str, B: int, mode: str, duration: float, repeat: int, draw: str = "ranked"
) -> list[Any]:
    """[best decisions/s, CPU us per step of that run, state bytes per game, engine class, decisions per
    step of that run] of one engine (``mode``: numpy, float32, compact, null-float32, null-compact), in
    a fresh process; ``draw``: the harness's random legal actions (``ranked`` or ``argmax``, above)."""
    if draw not in DRAWS:
        raise ValueError(f"draw={draw!r}: expected one of {DRAWS}")
    code = _WORKER.format(
        root=str(root),
        bench=str(HERE / "benchmarks"),
        game=game,
        B=B,
        mode=mode,
        duration=duration,
        repeat=repeat,
        draw=draw,
    )
    return list(run_worker(root, code))


def measure_pgx(B: int, duration: float, repeat: int) -> list[Any] | None:
    """The same for Pgx's leduc_holdem (None when pgx is not installed)."""
    code = _PGX.format(bench=str(HERE / "benchmarks"), B=B, duration=duration, repeat=repeat)
    result = run_worker(HERE, code)
    return None if result is None else list(result)


def keep_best(old: list[Any] | None, new: list[Any]) -> list[Any]:
    """Across rounds: the best wall rate and the lowest CPU time per step, each on its own."""
    if old is None:
        return new
    return [max(old[0], new[0]), min(old[1], new[1]), *new[2:]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--numpy", type=Path, required=True, help="a checkout with the numpy engines")
    parser.add_argument("--numpy-commit", default="abf5de3", help="that checkout's commit (the label)")
    parser.add_argument("--games", nargs="+", default=["kakeya", "toy_card"])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024, 8192])
    parser.add_argument("--pgx-sizes", type=int, nargs="*", default=[1024], help="B for Pgx's leduc")
    parser.add_argument("--duration", type=float, default=1.0, help="seconds per run")
    parser.add_argument("--repeat", type=int, default=2, help="runs per process (the best is shown)")
    parser.add_argument("--rounds", type=int, default=1, help="times each (game, B) block is run")
    parser.add_argument(
        "--draw", choices=DRAWS, default="ranked", help="the harness's random legal actions (see above)"
    )
    args = parser.parse_args()
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(
        f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, {args.rounds} round(s) of "
        f"{args.repeat} runs of {args.duration} s each, draw {args.draw}, {time.strftime('%F %T %Z')}"
    )
    print(
        "| game | B | engine | decisions/s | CPU us/step | harness us/step | engine us/step "
        "| engine-only decisions/s | bytes/game |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    summary: list[str] = []
    for game in args.games:
        measure(HERE, game, 1, "float32", 0.01, 1)  # compile (or load) the kernel before timing
        for B in args.sizes:
            got: dict[str, list[Any] | None] = {}
            with_pgx = B in args.pgx_sizes
            for _ in range(args.rounds):
                for mode in ("numpy", "null-float32", "float32", "null-compact", "compact"):
                    root = args.numpy if mode == "numpy" else HERE
                    got[mode] = keep_best(
                        got.get(mode), measure(root, game, B, mode, args.duration, args.repeat, args.draw)
                    )
                if with_pgx:
                    pgx = measure_pgx(B, args.duration, args.repeat)
                    if pgx is not None:
                        got["pgx"] = keep_best(got.get("pgx"), pgx)
            engine_us: dict[str, float] = {}
            for mode, harness in (
                ("numpy", "null-float32"),
                ("float32", "null-float32"),
                ("compact", "null-compact"),
            ):
                rate, cpu, nbytes, name = (got[mode] or [0, 0, 0, ""])[:4]
                h = (got[harness] or [0, 0])[1]
                engine_us[mode] = cpu - h
                label = f"{name} ({mode})" if mode != "numpy" else f"{name} (numpy, {args.numpy_commit})"
                print(
                    f"| {game} | {B} | {label} | {rate:,.0f} | {cpu:,.1f} | {h:,.1f} | {cpu - h:,.1f} "
                    f"| {B * 1e6 / max(cpu - h, 1e-9):,.0f} | {nbytes:,.0f} |",
                    flush=True,
                )
            pgx_got = got.get("pgx")
            if pgx_got is not None:
                print(
                    f"| {game} | {B} | Pgx leduc_holdem (JAX CPU) | {pgx_got[0]:,.0f} | {pgx_got[1]:,.1f} "
                    f"| 0 | {pgx_got[1]:,.1f} | {B * 1e6 / pgx_got[1]:,.0f} | |",
                    flush=True,
                )

            def cpu_rate(got_mode: list[Any] | None) -> float:  # decisions per CPU second
                return 0.0 if got_mode is None else got_mode[4] * 1e6 / max(got_mode[1], 1e-9)

            numpy_got = got["numpy"] or [1.0, 1.0, 0, "", 1.0]
            for mode in ("float32", "compact"):
                mine = got[mode] or [0.0, 1.0, 0, "", 0.0]
                line = (
                    f"| {game} | {B} | {mode} | {cpu_rate(mine) / cpu_rate(numpy_got):.2f}x "
                    f"| {mine[0] / numpy_got[0]:.2f}x "
                    f"| {engine_us['numpy'] / max(engine_us[mode], 1e-9):.2f}x"
                )
                if pgx_got is not None:
                    line += (
                        f" | {cpu_rate(mine) / cpu_rate(pgx_got):.2f}x | {mine[0] / pgx_got[0]:.2f}x "
                        f"| {pgx_got[1] / max(engine_us[mode], 1e-9):.2f}x |"
                    )
                else:
                    line += " | - | - | - |"
                summary.append(line)
    print(
        "\nRatios (kernel over numpy engine, and over Pgx leduc where measured); loop: decisions per CPU"
        " second (process_time, steady under load) and per second of wall time:\n"
    )
    print(
        "| game | B | observation | loop vs numpy (CPU) | (wall) | engine-only vs numpy "
        "| loop vs Pgx (CPU) | (wall) | engine-only vs Pgx |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    print("\n".join(summary))


if __name__ == "__main__":
    main()
