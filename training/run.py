"""MaskablePPO training by self-play against a pool of frozen snapshots plus fixed agents.

Each env is a ``SingleAgentView``; the non-learner seats draw an agent per episode
from one shared ``OpponentPool``: the configured fixed agents ("random", "scripted",
shipped "ppo..." models) with their weights, plus up to ``self_play.max_snapshots``
frozen copies of the learner taken every ``self_play.every`` steps, sharing
``self_play.weight``. In Kakeya the learner's partner is the learner itself
(``partner: self``, the default; see kabu_envs/wrappers/views.py).

Outputs: ``<out>/policy.npz`` + ``<out>/policy.json`` (the policy file: weights and what they
were trained for, no pickles; agents/policy_file.py), ``<out>/run.json`` (resolved config, seed,
package versions, timings, a short duplicate evaluation) and ``<out>/progress.csv`` (SB3's
per-update log: the learning curve). Checkpoints, SB3's full ``model_full.zip``, the BC warm start
(``bc_policy/``), monitor CSVs and tensorboard logs go to ``runs/<name>/`` (not committed).
"""

from __future__ import annotations

import json
import platform
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from agents.registry import REPO_ROOT, make_agent
from kabu_envs.wrappers.single_agent import OpponentPool, SingleAgentView

PACKAGES = ("kabu-envs", "torch", "stable-baselines3", "sb3-contrib", "gymnasium", "pettingzoo", "numpy")


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for p in PACKAGES:
        try:
            out[p] = metadata.version(p)
        except metadata.PackageNotFoundError:
            out[p] = "not installed"
    return out


class ScaleReward(gymnasium.RewardWrapper):
    """Constant reward scale for the optimiser only (not shaping: the optimum is unchanged)."""

    def __init__(self, env: gymnasium.Env, scale: float) -> None:
        super().__init__(env)
        self.scale = float(scale)

    def reward(self, reward: float) -> float:
        return reward * self.scale


def build_pool(cfg: dict[str, Any], seed: int) -> OpponentPool:
    opts = cfg["env_options"]
    members = [
        (make_agent(cfg["game"], name, seed + i, fast=True, **opts), float(w))
        for i, (name, w) in enumerate(cfg["opponents"].items())
        if w > 0
    ]
    if not members:  # pure self-play starts against random until the first snapshot
        members = [(make_agent(cfg["game"], "random", seed), 1e-9)]
    return OpponentPool(members, max_added=int(cfg["self_play"]["max_snapshots"]))


def make_view(cfg: dict[str, Any], pool: OpponentPool) -> SingleAgentView:
    """The learner's single-agent view: the configured game, role and partner mode."""
    from kabu_envs.wrappers.views import make_view as view

    return view(cfg["game"], role=cfg["role"], partner=cfg["partner"], opponents=pool, **cfg["env_options"])


def train(cfg: dict[str, Any], out: str | Path | None = None, progress_bar: bool = True) -> dict[str, Any]:
    """Train one model as configured; returns the run record (also written to run.json)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback, CallbackList, CheckpointCallback
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.ppo_agent import PPOAgent

    torch.set_num_threads(1)
    seed = int(cfg["seed"])
    torch.manual_seed(seed)
    out = Path(out) if out else REPO_ROOT / "models" / cfg["name"]
    run_dir = out.parent.parent / "runs" / cfg["name"] if out.parent.name == "models" else out / "run"
    out.mkdir(parents=True, exist_ok=True)
    run_dir.mkdir(parents=True, exist_ok=True)
    pool = build_pool(cfg, seed)
    n_envs = int(cfg["n_envs"])

    def env_fn(i: int):
        def make() -> gymnasium.Env:
            env = Monitor(make_view(cfg, pool), str(run_dir / f"monitor_{i}"))
            return ScaleReward(env, cfg["reward_scale"]) if cfg["reward_scale"] != 1.0 else env

        return make

    vec = DummyVecEnv([env_fn(i) for i in range(n_envs)])
    vec.seed(seed)
    if cfg["init_from"]:
        # a policy file (never an SB3 zip: those can carry code); its architecture wins
        from agents.policy_file import load_into_sb3, read_policy, sb3_policy_kwargs
        from agents.ppo_agent import find_policy

        init = Path(cfg["init_from"])
        init = read_policy(find_policy(init if init.is_absolute() else REPO_ROOT / init))
        init.check_fits(
            game=cfg["game"], env_options=cfg["env_options"], label=f"init_from {cfg['init_from']!r}"
        )
        kwargs = sb3_policy_kwargs(init)
        model = MaskablePPO(
            "MlpPolicy", vec, seed=seed, device="cpu", policy_kwargs=kwargs, verbose=0, **cfg["ppo"]
        )
        load_into_sb3(init, model.policy)
        model.num_timesteps = int(init.training.get("timesteps", 0))  # the count goes on
    else:
        model = MaskablePPO(
            "MlpPolicy",
            vec,
            seed=seed,
            device="cpu",
            policy_kwargs=dict(cfg["policy_kwargs"]),
            verbose=0,
            **cfg["ppo"],
        )
    bc_record = None
    if cfg["bc"]["teacher"]:
        from training.bc import warm_start

        teacher = make_agent(cfg["game"], str(cfg["bc"]["teacher"]), seed + 500, **cfg["env_options"])
        bc_record = warm_start(model, cfg, make_view(cfg, pool), teacher, seed + 501)
        save_policy(model, cfg, run_dir / "bc_policy", seed)  # the warm start alone, for comparison
    model.set_logger(configure(str(run_dir), ["csv", "tensorboard"]))
    sp = cfg["self_play"]

    class Snapshots(BaseCallback):
        """Freeze a numpy copy of the actor into the pool every ``every`` steps."""

        def __init__(self) -> None:
            super().__init__()
            self.next_at = int(sp["every"])
            self.count = 0

        def _on_step(self) -> bool:
            if sp["weight"] > 0 and self.num_timesteps >= self.next_at:
                self.next_at += int(sp["every"])
                self.count += 1
                snap = PPOAgent(model=model, fast=True, deterministic=False, seed=seed + 1000 + self.count)
                pool.add(snap, sp["weight"])
            return True

    snaps = Snapshots()
    ckpt = CheckpointCallback(max(int(cfg["checkpoint_every"]) // n_envs, 1), str(run_dir / "checkpoints"))
    t0 = time.time()
    model.learn(
        int(cfg["timesteps"]),
        callback=CallbackList([snaps, ckpt]),
        progress_bar=progress_bar,
        reset_num_timesteps=not cfg["init_from"],
    )
    train_seconds = time.time() - t0
    # The published output is the policy file (weights, no pickles); training on from it (init_from)
    # restarts Adam's moments. runs/<name>/model_full.zip keeps SB3's full model with the optimiser.
    model.save(str(run_dir / "model_full.zip"))
    save_policy(model, cfg, out, seed)
    progress = run_dir / "progress.csv"
    if progress.is_file():
        (out / "progress.csv").write_text(progress.read_text())
    record = {
        "name": cfg["name"],
        "config": cfg,
        "seed": seed,
        "timesteps": int(model.num_timesteps),
        "train_seconds": round(train_seconds, 1),
        "snapshots_added": snaps.count,
        "bc": bc_record,
        "versions": versions(),
        "command": " ".join([Path(sys.executable).name, "-m", "training", *sys.argv[1:]]),
    }
    if cfg["eval_deals"] > 0:
        record["eval"] = quick_eval(cfg, out, int(cfg["eval_deals"]), seed)
    (out / "run.json").write_text(json.dumps(record, indent=2, sort_keys=True))
    vec.close()
    return record


def save_policy(model: Any, cfg: dict[str, Any], out: Path, seed: int) -> None:
    """Write the policy file of ``model`` (trained for the config's game, role and rule options)."""
    from agents.policy_file import policy_from_sb3, write_policy

    training = {
        "name": cfg["name"],
        "seed": seed,
        "timesteps": int(model.num_timesteps),
        "package_version": versions()["kabu-envs"],
    }
    if training["package_version"] == "not installed":
        del training["package_version"]
    write_policy(policy_from_sb3(model.policy, cfg["game"], cfg["role"], cfg["env_options"], training), out)


def quick_eval(cfg: dict[str, Any], model_dir: Path, deals: int, seed: int) -> dict[str, Any]:
    """Duplicate-deal check of the fresh model against the game's ``eval_opponents``."""
    from eval.games import matchup
    from kabu_envs import registry

    opts = cfg["env_options"]
    role = cfg["role"]
    res = {}
    for opp in registry.get(cfg["game"]).eval_opponents:
        agent = make_agent(cfg["game"], str(model_dir), seed, role=cfg["role"], **opts)
        other = make_agent(cfg["game"], opp, seed + 1, **opts)
        m = matchup(cfg["game"], agent, other, role, deals, seed=10_000 + seed, env_options=opts)
        s = m.summary()
        res[opp] = {"deals": s.n, "mean": round(s.mean, 4), "ci95": [round(s.lo, 4), round(s.hi, 4)]}
    return res


def mean_episode_reward(run_dir: Path) -> float:
    """Mean learner reward in the monitor CSVs (for tests and logs)."""
    vals = []
    for f in run_dir.glob("monitor_*.monitor.csv"):
        data = np.genfromtxt(f, delimiter=",", skip_header=2, usecols=0)
        vals.extend(np.atleast_1d(data).tolist())
    return float(np.mean(vals)) if vals else float("nan")
