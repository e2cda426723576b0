"""``python -m kabu_envs.training.rllib_demo [--game kakeya] [--address ADDR] [--num-env-runners N]
[--iterations K] [--out runs/rllib_<game>]``: multi-agent self-play PPO with action masking on Ray RLlib.

Why RLlib: when one machine is not enough, the suite scales on an existing distributed engine
rather than a home-made one. The same script runs on a local Ray instance (default,
``ray.init(num_cpus=2)``) or joins a cluster (``--address``; docs/rllib.md).

* Env: the game's PettingZoo AEC env (from the registry) behind RLlib's ``PettingZooEnv``, with the
  observation keys RLlib's masking module reads (``training/rllib_env.py``).
* One shared policy for every seat (self-play): the policy mapping sends all agents to ``shared``.
* RLModule: RLlib's action-masking PPO module (``ActionMaskingTorchRLModule``, new API stack):
  illegal actions get logit ``FLOAT_MIN`` before sampling, in training and inference.
* Learning curve: self-play returns sum to zero, so the curve that shows learning is the duplicate
  score of the current policy against ``random`` every ``--eval-every`` iterations (numpy copy of
  the weights, ``kabu_envs.eval.games.matchup``); RLlib's own episode metrics are kept beside it.
* Result (``<out>/model/``, swapped into place only when complete): the policy file
  (``policy.npz`` + ``policy.json``, converted by ``training/rllib_export.py``, so
  ``agents.registry.make_agent(game, "<out>/model")`` plays it with numpy), ``run.json`` (resolved
  config, seed, package versions, timings), ``progress.csv`` + ``learning_curve.png`` and
  ``eval.json`` (the final duplicate evaluation against ``random``: games, mean, 95% CI).

Training stops after ``--iterations`` or when ``--max-minutes`` of training have passed, whichever
comes first (run.json says which), so a slow or shared machine still finishes in its budget.
Seeds: RLlib is seeded (``debugging(seed=...)``), the evaluations use fixed deal seeds; with remote
env runners sampling order depends on timing, so only the evaluation is bit-for-bit repeatable.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kabu_envs import registry
from kabu_envs.agents.base import Agent
from kabu_envs.agents.policy_file import Policy, write_policy
from kabu_envs.core.options import parse_assignments
from kabu_envs.eval.stats import Summary
from kabu_envs.training.outputs import RunPaths, swap_into_place, versions, write_json
from kabu_envs.training.rllib_env import rllib_env
from kabu_envs.training.rllib_export import model_activation, policy_from_rllib_state

os.environ.setdefault("OMP_NUM_THREADS", "1")

PACKAGES = ("kabu-envs", "ray", "torch", "gymnasium", "pettingzoo", "numpy")
POLICY_ID = "shared"
OPPONENT = "random"
CURVE_FIELDS = (
    "iteration",
    "env_steps",
    "episodes",
    "train_seconds",
    "episode_return_mean",
    "episode_len_mean",
    "entropy",
    "dup_mean",
    "dup_lo",
    "dup_hi",
    "dup_deals",
)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m kabu_envs.training.rllib_demo", description=__doc__)
    ap.add_argument("--game", default="kakeya", help="a registered game id (kabu_envs.registry)")
    ap.add_argument(
        "--role", help="the role the policy file records and is evaluated in (default: the first)"
    )
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a rule option")
    ap.add_argument(
        "--address", help="join a running Ray cluster (e.g. 'auto' or 'HOST:6379'); default: local"
    )
    ap.add_argument(
        "--num-cpus", type=int, default=2, help="CPUs of the local Ray instance (not with --address)"
    )
    ap.add_argument(
        "--num-env-runners", type=int, default=0, help="remote sampling actors (0: the driver samples)"
    )
    ap.add_argument("--envs-per-runner", type=int, default=16, help="envs each runner steps as one batch")
    ap.add_argument("--cpus-per-runner", type=float, default=1.0, help="Ray CPUs reserved per env runner")
    ap.add_argument(
        "--num-learners", type=int, default=0, help="remote learner actors (0: the driver learns)"
    )
    ap.add_argument("--gpus-per-learner", type=float, default=0.0, help="GPUs per learner (cluster)")
    ap.add_argument("--iterations", type=int, default=60, help="PPO iterations (each --batch env steps)")
    ap.add_argument("--max-minutes", type=float, default=12.0, help="stop training after this many minutes")
    ap.add_argument("--batch", type=int, default=4000, help="env steps per iteration (train batch)")
    ap.add_argument("--minibatch", type=int, default=500)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--entropy", type=float, default=0.01, help="entropy coefficient")
    ap.add_argument("--hidden", default="128,128", help="MLP hidden sizes, comma-separated")
    ap.add_argument("--activation", choices=("tanh", "relu"), default="tanh")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--eval-every", type=int, default=5, help="iterations between learning-curve evaluations")
    ap.add_argument("--curve-deals", type=int, default=200, help="duplicate deals per curve point")
    ap.add_argument("--eval-deals", type=int, default=1000, help="duplicate deals of the final evaluation")
    ap.add_argument("--out", help="run folder (default runs/rllib_<game>)")
    return ap.parse_args(argv)


@dataclass(frozen=True)
class RaySettings:
    """Where Ray runs and what it reserves: a local instance of ``num_cpus`` or the cluster at ``address``."""

    address: str | None
    num_cpus: int | None
    num_env_runners: int
    envs_per_runner: int
    cpus_per_runner: float
    num_learners: int
    gpus_per_learner: float


@dataclass(frozen=True)
class RllibPPO:
    """RLlib's PPO settings, named as ``PPOConfig.training`` names its keyword arguments."""

    train_batch_size_per_learner: int
    minibatch_size: int
    num_epochs: int
    lr: float
    gamma: float
    lambda_: float
    entropy_coeff: float
    clip_param: float

    def kwargs(self) -> dict[str, Any]:
        """The keyword arguments of ``PPOConfig.training(...)``."""
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class RllibModel:
    """The RLModule's MLP, as RLlib's ``model_config`` names it (``training/rllib_export.py`` reads it)."""

    fcnet_hiddens: list[int]
    fcnet_activation: str
    vf_share_layers: bool = False

    def config(self) -> dict[str, Any]:
        """RLlib's ``model_config`` dict."""
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class RllibConfig:
    """Every setting of an RLlib run; ``to_dict()`` is the plain JSON that run.json stores."""

    game: str
    role: str
    env_options: dict[str, Any]
    seed: int
    opponent: str
    iterations: int
    max_minutes: float
    ray: RaySettings
    ppo: RllibPPO
    model: RllibModel
    eval_every: int
    curve_deals: int
    eval_deals: int

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def resolve_config(args: argparse.Namespace) -> RllibConfig:
    """Every setting of the run (written to run.json); bad values raise naming them."""
    spec = registry.get(args.game)
    role = spec.role(args.role).name
    env_options = parse_assignments(args.option)
    spec.config(**env_options)  # unknown rule options raise here, before Ray starts
    hidden = [int(h) for h in str(args.hidden).split(",") if h.strip()]
    checks = {
        "--iterations": args.iterations >= 1,
        "--batch": args.batch >= 1,
        "--minibatch": 1 <= args.minibatch <= args.batch,
        "--epochs": args.epochs >= 1,
        "--envs-per-runner": args.envs_per_runner >= 1,
        "--num-env-runners": args.num_env_runners >= 0,
        "--eval-every": args.eval_every >= 1,
        "--curve-deals": args.curve_deals >= 2,
        "--eval-deals": args.eval_deals >= 2,
        "--hidden": bool(hidden) and min(hidden) >= 1,
        "--max-minutes": args.max_minutes > 0,
    }
    bad = [k for k, ok in checks.items() if not ok]
    if bad:
        raise ValueError(f"bad value for {bad} (deals >= 2, minibatch <= batch, sizes >= 1)")
    model = RllibModel(fcnet_hiddens=hidden, fcnet_activation=args.activation)
    model_activation(model.config())
    return RllibConfig(
        game=spec.id,
        role=role,
        env_options=env_options,
        seed=int(args.seed),
        opponent=OPPONENT,
        iterations=int(args.iterations),
        max_minutes=float(args.max_minutes),
        ray=RaySettings(
            address=args.address,
            num_cpus=None if args.address else int(args.num_cpus),
            num_env_runners=int(args.num_env_runners),
            envs_per_runner=int(args.envs_per_runner),
            cpus_per_runner=float(args.cpus_per_runner),
            num_learners=int(args.num_learners),
            gpus_per_learner=float(args.gpus_per_learner),
        ),
        ppo=RllibPPO(
            train_batch_size_per_learner=int(args.batch),
            minibatch_size=int(args.minibatch),
            num_epochs=int(args.epochs),
            lr=float(args.lr),
            gamma=1.0,
            lambda_=0.95,
            entropy_coeff=float(args.entropy),
            clip_param=0.2,
        ),
        model=model,
        eval_every=int(args.eval_every),
        curve_deals=int(args.curve_deals),
        eval_deals=int(args.eval_deals),
    )


# --- RLlib ---------------------------------------------------------------------------------------------
def start_ray(cfg: RllibConfig) -> None:
    """A local Ray instance with ``num_cpus``, or the cluster at ``address``."""
    import ray  # type: ignore[import-not-found,unused-ignore]

    r = cfg.ray
    # the driver's imports (kabu_envs, training) must resolve in every worker, local or remote
    if r.address:
        ray.init(address=r.address)
    else:
        ray.init(num_cpus=r.num_cpus, include_dashboard=False)


def build_algo(cfg: RllibConfig) -> Any:
    """PPO on the game's AEC env: one shared action-masking policy for every seat."""
    from ray.rllib.algorithms.ppo import PPOConfig  # type: ignore[import-not-found,unused-ignore]
    from ray.rllib.core.rl_module.multi_rl_module import (  # type: ignore[import-not-found,unused-ignore]
        MultiRLModuleSpec,
    )
    from ray.rllib.core.rl_module.rl_module import (  # type: ignore[import-not-found,unused-ignore]
        RLModuleSpec,
    )
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (  # type: ignore[import-not-found,unused-ignore]
        ActionMaskingTorchRLModule,
    )
    from ray.tune.registry import register_env  # type: ignore[import-not-found,unused-ignore]

    env_name = f"kabu_envs_{cfg.game}"
    register_env(env_name, rllib_env)
    r = cfg.ray
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=cfg.model.config())
    config = (
        PPOConfig()
        # RLlib's env check steps a sample of the whole action space, ignoring the mask: an illegal
        # move, which the games refuse. Sampling itself always goes through the masking module.
        .environment(
            env_name,
            env_config={"game": cfg.game, "env_options": cfg.env_options},
            disable_env_checking=True,
        )
        .env_runners(
            num_env_runners=r.num_env_runners,
            num_envs_per_env_runner=r.envs_per_runner,
            num_cpus_per_env_runner=r.cpus_per_runner,
        )
        .learners(num_learners=r.num_learners, num_gpus_per_learner=r.gpus_per_learner)
        .training(**cfg.ppo.kwargs())
        .multi_agent(policies={POLICY_ID}, policy_mapping_fn=lambda agent_id, episode, **kw: POLICY_ID)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY_ID: module}))
        .debugging(seed=cfg.seed, log_level="ERROR")
    )
    return config.build_algo()


def module_state(module: Any) -> dict[str, np.ndarray]:
    """An RLModule's parameters as numpy arrays (name -> array)."""
    return as_numpy(module.state_dict())


def as_numpy(state: Any) -> dict[str, np.ndarray]:
    """A state dict of torch tensors or numpy arrays as numpy arrays."""
    return {
        str(k): np.asarray(v.detach().cpu().numpy() if hasattr(v, "detach") else v) for k, v in state.items()
    }


def learner_state(algo: Any) -> dict[str, np.ndarray]:
    """The shared module's weights from the learner (local or remote): what PPO just trained,
    critic included (env runners may hold an inference-only copy)."""
    return as_numpy(algo.learner_group.get_weights(module_ids=[POLICY_ID])[POLICY_ID])


def export_policy(state: dict[str, np.ndarray], cfg: RllibConfig, env_steps: int) -> Policy:
    """The module's actor and critic as a policy file in memory (what ``write_policy`` writes)."""
    training: dict[str, Any] = {"name": f"rllib_{cfg.game}", "seed": cfg.seed, "timesteps": env_steps}
    version = versions(PACKAGES)["kabu-envs"]
    if version != "not installed":
        training["package_version"] = version
    act = model_activation(cfg.model.config())
    return policy_from_rllib_state(state, act, cfg.game, cfg.role, cfg.env_options, training)


# --- evaluation and the curve --------------------------------------------------------------------------
def duplicate_vs_random(cfg: RllibConfig, agent: Agent, deals: int, seed: int) -> Summary:
    """The project's duplicate match of ``agent`` against ``random``."""
    from kabu_envs.agents.registry import make_agent
    from kabu_envs.eval.games import matchup

    opts = cfg.env_options
    opponent = make_agent(cfg.game, OPPONENT, seed + 1, **opts)
    return matchup(cfg.game, agent, opponent, cfg.role, deals, seed=seed, env_options=opts).summary()


def curve_row(result: dict[str, Any], train_seconds: float) -> dict[str, Any]:
    """One learning-curve row from an RLlib result dict (missing metrics are NaN)."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(POLICY_ID, {})
    nan = float("nan")
    return {
        "iteration": int(result.get("training_iteration", 0)),
        "env_steps": int(
            result.get("num_env_steps_sampled_lifetime", runners.get("num_env_steps_sampled_lifetime", 0))
        ),
        "episodes": int(runners.get("num_episodes_lifetime", 0)),
        "train_seconds": round(train_seconds, 2),
        "episode_return_mean": float(runners.get("episode_return_mean", nan)),
        "episode_len_mean": float(runners.get("episode_len_mean", nan)),
        "entropy": float(learner.get("entropy", nan)),
        "dup_mean": nan,
        "dup_lo": nan,
        "dup_hi": nan,
        "dup_deals": 0,
    }


def write_curve(rows: list[dict[str, Any]], csv_path: Path, png_path: Path | None, title: str) -> None:
    """The learning curve as CSV and (with ``png_path``) a PNG: duplicate score and episode metrics."""
    with open(csv_path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=CURVE_FIELDS)
        w.writeheader()
        w.writerows(rows)
    if png_path is None:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    pts = [r for r in rows if r["dup_deals"]]
    if pts:
        x = [r["env_steps"] for r in pts]
        top.plot(x, [r["dup_mean"] for r in pts], marker="o", label=f"duplicate score vs {OPPONENT}")
        top.fill_between(
            x, [r["dup_lo"] for r in pts], [r["dup_hi"] for r in pts], alpha=0.25, label="95% CI"
        )
    top.axhline(0.0, color="grey", lw=0.8)
    top.set_ylabel("reward per deal (duplicate)")
    top.legend(loc="lower right")
    top.set_title(title)
    x = [r["env_steps"] for r in rows]
    bottom.plot(
        x, [r["episode_return_mean"] for r in rows], label="mean episode return (all seats; zero-sum)"
    )
    bottom.plot(x, [r["entropy"] for r in rows], label="policy entropy")
    bottom.set_xlabel("env steps (all seats)")
    bottom.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(png_path, dpi=100)
    plt.close(fig)


# --- the run -------------------------------------------------------------------------------------------
def run(cfg: RllibConfig, out: Path, log: Callable[[str], object] = print) -> dict[str, Any]:
    """Train, export, evaluate; returns the run record (also ``<out>/model/run.json``)."""
    import ray  # type: ignore[import-not-found,unused-ignore]
    import torch

    from kabu_envs.agents.ppo_agent import PPOAgent
    from kabu_envs.agents.registry import make_agent

    paths = RunPaths(out)
    paths.work.mkdir(parents=True, exist_ok=True)
    write_json(paths.work / "config.json", cfg.to_dict())
    torch.set_num_threads(1)
    torch.manual_seed(cfg.seed)
    t_start = time.time()
    start_ray(cfg)
    try:
        algo = build_algo(cfg)
        t_ready = time.time()
        log(f"Ray and RLlib ready in {t_ready - t_start:.0f} s; training {cfg.game} by self-play")
        curve_seed = 1_000_000 + cfg.seed

        def score(row: dict[str, Any]) -> None:
            """The curve's point: the current weights against ``random`` on fixed duplicate deals."""
            agent = PPOAgent(policy=export_policy(learner_state(algo), cfg, row["env_steps"]), seed=cfg.seed)
            s = duplicate_vs_random(cfg, agent, cfg.curve_deals, curve_seed)
            row.update(dup_mean=s.mean, dup_lo=s.lo, dup_hi=s.hi, dup_deals=s.n)

        start = curve_row({}, 0.0)  # the untrained policy: where the curve starts
        score(start)
        rows: list[dict[str, Any]] = [start]
        stopped_by = "iterations"
        budget = cfg.max_minutes * 60.0
        for it in range(1, cfg.iterations + 1):
            result = algo.train()
            row = curve_row(result, time.time() - t_ready)
            if it % cfg.eval_every == 0 or it == cfg.iterations:
                score(row)
            rows.append(row)
            write_curve(rows, paths.work / "progress.csv", None, "")
            dup = f"  dup vs {OPPONENT} {row['dup_mean']:+.3f} [{row['dup_lo']:+.3f}, {row['dup_hi']:+.3f}]"
            log(
                f"iter {it:3d}  steps {row['env_steps']:7d}  {row['train_seconds']:6.0f} s  "
                f"entropy {row['entropy']:.3f}{dup if row['dup_deals'] else ''}"
            )
            per_iter = row["train_seconds"] / it
            if it < cfg.iterations and row["train_seconds"] + per_iter > budget:
                stopped_by = f"time budget ({cfg.max_minutes} min)"
                break
        t_trained = time.time()
        env_steps = rows[-1]["env_steps"]
        policy = export_policy(learner_state(algo), cfg, env_steps)
        algo.stop()
    finally:
        ray.shutdown()
    stage = paths.staging()
    write_policy(policy, stage)
    # the final evaluation plays the written file, as anyone loading it would
    agent = make_agent(cfg.game, str(stage), cfg.seed, role=cfg.role, **cfg.env_options)
    eval_seed = 2_000_000 + cfg.seed
    s = duplicate_vs_random(cfg, agent, cfg.eval_deals, eval_seed)
    t_done = time.time()
    evaluation = {
        "game": cfg.game,
        "role": cfg.role,
        "agent": "rllib self-play PPO",
        "opponent": OPPONENT,
        "seed": eval_seed,
        "env_options": cfg.env_options,
        **s.as_dict(),
    }
    write_json(stage / "eval.json", evaluation)
    title = f"RLlib self-play PPO, {registry.get(cfg.game).title}"
    write_curve(rows, stage / "progress.csv", stage / "learning_curve.png", title)
    record = {
        "name": f"rllib_{cfg.game}",
        "config": cfg.to_dict(),
        "seed": cfg.seed,
        "iterations": len(rows) - 1,
        "timesteps": env_steps,
        "stopped_by": stopped_by,
        "seconds": {
            "ray_start": round(t_ready - t_start, 1),
            "train": round(t_trained - t_ready, 1),
            "export_and_eval": round(t_done - t_trained, 1),
            "total": round(t_done - t_start, 1),
        },
        "eval": {k: evaluation[k] for k in ("games", "mean", "ci95")},
        "versions": versions(PACKAGES),
        "command": " ".join(
            [Path(sys.executable).name, "-m", "kabu_envs.training.rllib_demo", *sys.argv[1:]]
        ),
    }
    write_json(stage / "run.json", record)
    swap_into_place(stage, paths.model)
    return record


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        cfg = resolve_config(args)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    out = Path(args.out or Path("runs") / f"rllib_{cfg.game}")
    record = run(cfg, out)
    res = record["eval"]
    lo, hi = res["ci95"]
    print(
        f"{cfg.game}: RLlib self-play PPO vs {OPPONENT}, duplicate over {res['games']} deals: "
        f"mean {res['mean']:+.3f} reward/deal, 95% CI [{lo:+.3f}, {hi:+.3f}]"
        f"{'  (beats random)' if lo > 0 else ''}"
    )
    print(
        f"{record['timesteps']} env steps in {record['iterations']} iterations ({record['stopped_by']}); "
        f"total {record['seconds']['total']:.0f} s. Wrote {out / 'model'}"
    )
    return 0 if not math.isnan(res["mean"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
