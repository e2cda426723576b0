"""MaskablePPO learner steps/s: DummyVecEnv copies of the view vs the batch VecEnv, equal PPO settings.

    python benchmarks/bench_training.py [--cases kakeya oicho_bettor] [--timesteps 20480]
        [--batch-envs 256 1024] [--repeats 2]

Both sides train the same preset's policy (``kabu_envs/<game>/presets/<preset>.yaml``: network, batch size,
learning rate) with 4 epochs and the same rollout size: the views as 8 ``DummyVecEnv`` copies with
``n_steps`` 256 (the issue's baseline), the batch VecEnv as ``--batch-envs`` games with
``2048 / batch_envs`` steps each. Opponents: ``scripted`` on every other seat.

The env side (the VecEnv's reset/step with the opponents inside, VecMonitor, and the action-mask
reads) is timed around those calls by a wrapper, with two clocks: wall (``perf_counter``) and this
process's CPU time (``process_time``; cProfile's per-call cost would inflate the Python-heavy side).
On a loaded machine the CPU-time columns are the steadier ones: they do not count the time the
process waits for a core. ``env GC`` is the part of the env side's CPU time spent in Python's cyclic
garbage collector: a full collection of a training process (~0.15 s: torch's import heap) runs in
whichever call allocates past the threshold, so a few of them landing in the env side or not move
the env share of a short run by several points. ``PPO side`` is the learner steps per second of the
time outside the env side (the ceiling of any VecEnv at these PPO settings). ``--repeats`` alternates
the baseline and the batch runs and keeps each one's best, so that a load change hits both. Slow
(minutes); not run by CI. ``torch.set_num_threads(1)``.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# case -> (preset, game, role)
CASES = {
    "kakeya": ("kakeya", "kakeya", "partnership"),
    "oicho_bettor": ("oicho_bettor", "oicho_kabu", "bettor"),
    "oicho_dealer": ("oicho_dealer", "oicho_kabu", "dealer"),
}
ROLLOUT = 2048  # n_envs * n_steps of both sides


def _timed(vec: Any) -> Any:
    """``vec`` with its env-side calls timed: ``env_wall`` and ``env_cpu`` seconds, and ``env_gc``: the
    CPU seconds of garbage collections run inside them (``gc.callbacks``)."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

    clock = time.perf_counter
    cpu = time.process_time

    class Timed(VecEnvWrapper):
        env_wall = 0.0
        env_cpu = 0.0
        env_gc = 0.0
        inside = False
        gc_start = 0.0

        def _time(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
            t, c = clock(), cpu()
            Timed.inside = True
            try:
                out = fn(*args, **kwargs)
            finally:
                Timed.inside = False
            Timed.env_wall += clock() - t
            Timed.env_cpu += cpu() - c
            return out

        @staticmethod
        def gc_callback(phase: str, info: dict[str, Any]) -> None:
            if not Timed.inside:
                return
            if phase == "start":
                Timed.gc_start = cpu()
            else:
                Timed.env_gc += cpu() - Timed.gc_start

        def reset(self) -> Any:
            return self._time(self.venv.reset)

        def step_async(self, actions: Any) -> None:
            self._time(self.venv.step_async, actions)

        def step_wait(self) -> Any:
            return self._time(self.venv.step_wait)

        def env_method(self, *args: Any, **kwargs: Any) -> Any:
            return self._time(self.venv.env_method, *args, **kwargs)

    gc.callbacks.append(Timed.gc_callback)
    return Timed(vec)


def _vec(game: str, role: str, batch_envs: int | None, seed: int) -> Any:
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    from kabu_envs.training.batch_vec_env import BatchVecEnv
    from kabu_envs.wrappers.views import make_view

    if batch_envs:
        vec: Any = BatchVecEnv(game, batch_envs, role=role, opponents="scripted", seed=seed)
    else:
        vec = DummyVecEnv(
            [lambda i=i: make_view(game, role=role, opponents="scripted", seed=seed + i) for i in range(8)]
        )
    vec = VecMonitor(vec)
    vec.seed(seed)
    return vec


def run(
    case: str, timesteps: int, batch_envs: int | None, seed: int = 0, quiet: bool = True
) -> dict[str, float]:
    """One training run: learner steps/s (wall and CPU time) and the env side's share of each.
    ``quiet``: learn inside ``training.gc_tuning.quiet_gc`` as ``kabu-train`` does (else Python's
    default collector settings)."""
    from contextlib import nullcontext

    import torch
    from sb3_contrib import MaskablePPO

    from kabu_envs.training.config import load_config

    torch.set_num_threads(1)
    preset, game, role = CASES[case]
    cfg = load_config(preset)
    n_envs = batch_envs or 8
    ppo = {**cfg["ppo"], "n_steps": ROLLOUT // n_envs, "n_epochs": 4}
    vec = _timed(_vec(game, role, batch_envs, seed))
    model = MaskablePPO(
        "MlpPolicy", vec, seed=seed, device="cpu", policy_kwargs=cfg["policy_kwargs"], verbose=0, **ppo
    )
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        from kabu_envs.training.gc_tuning import quiet_gc

        with quiet_gc() if quiet else nullcontext():
            model.learn(timesteps)
    finally:
        gc.callbacks.remove(type(vec).gc_callback)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    steps = model.num_timesteps
    env_wall, env_cpu = type(vec).env_wall, type(vec).env_cpu
    return {
        "steps_per_s": steps / wall,
        "steps_per_cpu_s": steps / cpu,
        "env_share": env_wall / wall,
        "env_cpu_share": env_cpu / cpu,
        "env_gc_share": type(vec).env_gc / env_cpu if env_cpu > 0 else 0.0,
        "ppo_steps_per_cpu_s": steps / (cpu - env_cpu),
        "wall_s": wall,
        "n_envs": n_envs,
        "n_steps": ppo["n_steps"],
        "batch_size": ppo["batch_size"],
    }


def _best(runs: list[dict[str, float]]) -> dict[str, float]:
    """The run with the most steps per CPU second (the least disturbed by the machine's load)."""
    return max(runs, key=lambda r: r["steps_per_cpu_s"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", nargs="+", default=["kakeya", "oicho_bettor"], choices=sorted(CASES))
    ap.add_argument("--timesteps", type=int, default=20_480)
    ap.add_argument("--batch-envs", type=int, nargs="+", default=[256, 1024])
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument(
        "--gc",
        choices=("quiet", "default"),
        default="quiet",
        help="the collector while learning: kabu-train's (training/gc_tuning.py) or Python's default",
    )
    args = ap.parse_args(argv)
    for n in args.batch_envs:
        if ROLLOUT % n:
            ap.error(f"--batch-envs {n} must divide the rollout size {ROLLOUT}")
    load = os.getloadavg()[0]
    print(
        f"MaskablePPO, rollout {ROLLOUT} steps, 4 epochs, scripted opponents, {args.timesteps} steps, "
        f"gc {args.gc}"
    )
    print(f"load average at start: {load:.1f} ({os.cpu_count()} cores)")
    head = (
        "case",
        "vec env",
        "steps/s",
        "env wall",
        "steps/CPU-s",
        "env CPU",
        "env GC",
        "PPO side",
        "x wall",
        "x CPU",
    )
    print(f"{head[0]:<14}{head[1]:<24}" + "".join(f"{h:>12}" for h in head[2:]))
    for case in args.cases:
        runs: dict[int | None, list[dict[str, float]]] = {n: [] for n in [None, *args.batch_envs]}
        for _ in range(args.repeats):
            for n in runs:
                runs[n].append(run(case, args.timesteps, n, quiet=args.gc == "quiet"))
        base = _best(runs[None])
        for n, rs in runs.items():
            r = _best(rs)
            label = f"DummyVecEnv 8 x {r['n_steps']}" if n is None else f"BatchVecEnv {n} x {r['n_steps']}"
            cells = (
                f"{r['steps_per_s']:.0f}",
                f"{r['env_share']:.0%}",
                f"{r['steps_per_cpu_s']:.0f}",
                f"{r['env_cpu_share']:.0%}",
                f"{r['env_gc_share']:.0%}",
                f"{r['ppo_steps_per_cpu_s']:.0f}",
                f"{r['steps_per_s'] / base['steps_per_s']:.1f}x",
                f"{r['steps_per_cpu_s'] / base['steps_per_cpu_s']:.1f}x",
            )
            print(f"{case:<14}{label:<24}" + "".join(f"{c:>12}" for c in cells), flush=True)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
