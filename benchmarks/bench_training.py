"""MaskablePPO learner steps/s: DummyVecEnv copies of the view vs the batch VecEnv, equal PPO settings.

    python benchmarks/bench_training.py [--cases kakeya oicho_bettor] [--timesteps 40960] [--batch-envs 256]

Both sides train the same preset's policy (``training/configs/<preset>.yaml``: network, batch size,
learning rate) with 4 epochs and the same rollout size: the views as 8 ``DummyVecEnv`` copies with
``n_steps`` 256 (the issue's baseline), the batch VecEnv as ``--batch-envs`` games with
``2048 / batch_envs`` steps each. Opponents: ``scripted`` on every other seat. The env side's share
of the wall time (the VecEnv's reset/step, opponents inside, and the action-mask reads) is measured
by timing those calls (a wrapper around the VecEnv: cProfile's per-call cost would inflate the
Python-heavy side). Slow (minutes); not run by CI. ``torch.set_num_threads(1)``.
"""

from __future__ import annotations

import argparse
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
    """``vec`` with its env-side calls timed (``vec.env_seconds``)."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class Timed(VecEnvWrapper):
        env_seconds = 0.0

        def reset(self) -> Any:
            t = time.perf_counter()
            out = self.venv.reset()
            Timed.env_seconds += time.perf_counter() - t
            return out

        def step_async(self, actions: Any) -> None:
            t = time.perf_counter()
            self.venv.step_async(actions)
            Timed.env_seconds += time.perf_counter() - t

        def step_wait(self) -> Any:
            t = time.perf_counter()
            out = self.venv.step_wait()
            Timed.env_seconds += time.perf_counter() - t
            return out

        def env_method(self, *args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            out = self.venv.env_method(*args, **kwargs)
            Timed.env_seconds += time.perf_counter() - t
            return out

    Timed.env_seconds = 0.0
    return Timed(vec)


def _vec(game: str, role: str, batch_envs: int | None, seed: int) -> Any:
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    from kabu_envs.wrappers.views import make_view
    from training.batch_vec_env import BatchVecEnv

    if batch_envs:
        vec: Any = BatchVecEnv(game, batch_envs, role=role, opponents="scripted", seed=seed)
    else:
        vec = DummyVecEnv(
            [lambda i=i: make_view(game, role=role, opponents="scripted", seed=seed + i) for i in range(8)]
        )
    vec = VecMonitor(vec)
    vec.seed(seed)
    return vec


def run(case: str, timesteps: int, batch_envs: int | None, seed: int = 0) -> dict[str, float]:
    """One training run: learner steps/s and the env side's share of the wall time."""
    import torch
    from sb3_contrib import MaskablePPO

    from training.config import load_config

    torch.set_num_threads(1)
    preset, game, role = CASES[case]
    cfg = load_config(preset)
    n_envs = batch_envs or 8
    ppo = {**cfg["ppo"], "n_steps": ROLLOUT // n_envs, "n_epochs": 4}
    vec = _timed(_vec(game, role, batch_envs, seed))
    model = MaskablePPO(
        "MlpPolicy", vec, seed=seed, device="cpu", policy_kwargs=cfg["policy_kwargs"], verbose=0, **ppo
    )
    t0 = time.perf_counter()
    model.learn(timesteps)
    wall = time.perf_counter() - t0
    return {
        "steps_per_s": model.num_timesteps / wall,
        "env_share": type(vec).env_seconds / wall,
        "wall_s": wall,
        "n_envs": n_envs,
        "n_steps": ppo["n_steps"],
        "batch_size": ppo["batch_size"],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", nargs="+", default=["kakeya", "oicho_bettor"], choices=sorted(CASES))
    ap.add_argument("--timesteps", type=int, default=40_960)
    ap.add_argument("--batch-envs", type=int, default=256)
    args = ap.parse_args(argv)
    if ROLLOUT % args.batch_envs:
        ap.error(f"--batch-envs must divide the rollout size {ROLLOUT}")
    print(f"MaskablePPO, rollout {ROLLOUT} steps, 4 epochs, scripted opponents, {args.timesteps} steps")
    print(f"{'case':<14}{'vec env':<28}{'steps/s':>10}{'env side':>10}{'speed-up':>10}")
    for case in args.cases:
        base = run(case, args.timesteps, None)
        fast = run(case, args.timesteps, args.batch_envs)
        for label, r in (
            (f"DummyVecEnv 8 x {base['n_steps']}", base),
            (f"BatchVecEnv {args.batch_envs} x {fast['n_steps']}", fast),
        ):
            up = r["steps_per_s"] / base["steps_per_s"]
            print(f"{case:<14}{label:<28}{r['steps_per_s']:>10.0f}{r['env_share']:>10.0%}{up:>9.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
