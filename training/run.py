"""MaskablePPO training by self-play against a pool of frozen snapshots plus fixed agents.

Each env is a ``SingleAgentView`` (``n_envs`` copies in a ``DummyVecEnv``), or with ``batch_envs: N``
one row of a ``BatchVecEnv`` (N games in one batch engine, the same views' semantics, several times
faster; training/batch_vec_env.py); the non-learner seats draw an agent per episode
from one shared ``OpponentPool``: the configured fixed agents ("random", "scripted",
shipped "ppo..." models) with their weights, plus up to ``self_play.max_snapshots``
frozen copies of the learner taken every ``self_play.every`` steps, sharing
``self_play.weight``. A role of several seats (a Kakeya partnership) is played by the learner
as a whole (``partner: self``, the default; see kabu_envs/wrappers/views.py).

Outputs (training/outputs.py): the run folder (default ``runs/<name>/``) gets ``model/`` — the
policy file (``policy.npz`` + ``policy.json``: weights and what they were trained for, no pickles),
``run.json`` (resolved config, seed, package versions, timings, a short duplicate evaluation) and
``progress.csv`` (the learning curve) — swapped into place only when complete, and ``work/``
(pickle-free resumable checkpoints, logs, the BC warm start). ``publish=True`` copies ``model/`` to
``kabu_envs/models/<name>/``. An interrupted run saves a checkpoint and says how to resume (``resume=True``).
"""

from __future__ import annotations

import contextlib
import csv
import json
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, SupportsFloat

import gymnasium

from kabu_envs.agents.features import FeatureInputs, feature_inputs
from kabu_envs.agents.registry import make_agent, models_dir
from kabu_envs.training.checkpoints import latest_checkpoint, restore_optimizer, save_checkpoint
from kabu_envs.training.config import TrainConfig, stage_plan
from kabu_envs.training.curve import CurveWriter, last_points, round_point
from kabu_envs.training.curve import make_callback as make_curve_callback
from kabu_envs.training.gc_tuning import quiet_gc
from kabu_envs.training.outputs import (
    RunPaths,
    check_name,
    copy_published,
    inside,
    swap_into_place,
    versions,
    write_json,
)
from kabu_envs.training.provenance import git_commit, provenance
from kabu_envs.training.stage_log import StageProgress, say
from kabu_envs.wrappers.single_agent import OpponentPool, SingleAgentView

if TYPE_CHECKING:  # torch and SB3 are imported when a run starts, not with this module
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import CallbackList
    from stable_baselines3.common.vec_env import VecEnv

PACKAGES = ("kabu-envs", "torch", "stable-baselines3", "sb3-contrib", "gymnasium", "pettingzoo", "numpy")
# config keys that may differ between a run and its resumption (the budget and the evaluation)
RESUMABLE_CHANGES = ("timesteps", "eval_deals", "curve")  # what to measure, not how to train


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM during learning: a checkpoint was saved; the message says how to resume."""


class RunFolderError(ValueError):
    """The run folder does not allow what was asked (``--resume`` with nothing to resume, or with a
    different config): a one-line error for the command line, never a traceback."""


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (``timeout``, a cluster scheduler's preemption) raises ``KeyboardInterrupt`` while the
    block runs, so it takes Ctrl-C's path: a checkpoint and the command to resume. Outside the main
    thread (where Python cannot install handlers) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")

    before = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


class ScaleReward(gymnasium.RewardWrapper):
    """Constant reward scale for the optimiser only (not shaping: the optimum is unchanged)."""

    def __init__(self, env: gymnasium.Env, scale: float) -> None:
        super().__init__(env)
        self.scale = float(scale)

    def reward(self, reward: SupportsFloat) -> float:
        return float(reward) * self.scale


def build_pool(cfg: TrainConfig, seed: int) -> OpponentPool:
    opts = cfg.env_options
    members = [
        (make_agent(cfg.game, name, seed + i, fast=True, **opts), float(w))
        for i, (name, w) in enumerate(cfg.opponents.items())
        if w > 0
    ]
    if not members:  # pure self-play starts against random until the first snapshot
        members = [(make_agent(cfg.game, "random", seed), 1e-9)]
    return OpponentPool(members, max_added=cfg.self_play.max_snapshots)


def make_view(cfg: TrainConfig, pool: OpponentPool) -> SingleAgentView:
    """The learner's single-agent view: the configured game, role and partner mode. An illegal action
    raises (the views' default ends the episode): a masked policy or a teacher that picks one is a bug."""
    from kabu_envs.wrappers.views import make_view as view

    opts = cfg.env_options
    return view(cfg.game, role=cfg.role, partner=cfg.partner, opponents=pool, illegal_action="raise", **opts)


def make_vec_env(cfg: TrainConfig, pool: OpponentPool, paths: RunPaths) -> VecEnv:
    """``batch_envs`` games over one batch engine, the views' semantics (training/batch_vec_env.py);
    the episode log in ``work/monitor_batch.monitor.csv`` and unscaled, as the views' monitors."""
    from stable_baselines3.common.vec_env import VecMonitor

    from kabu_envs.training.batch_vec_env import BatchVecEnv, VecScaleReward

    assert cfg.batch_envs is not None
    venv = BatchVecEnv(
        cfg.game,
        cfg.batch_envs,
        role=cfg.role,
        opponents=pool,
        partner=cfg.partner,
        **cfg.env_options,
    )
    vec: VecEnv = VecMonitor(venv, str(paths.work / "monitor_batch"))
    return VecScaleReward(vec, cfg.reward_scale) if cfg.reward_scale != 1.0 else vec


def run_paths(cfg: TrainConfig, out: str | Path | None) -> RunPaths:
    """The run folder: ``out`` or ``runs/<name>/`` under the working directory (a name that would
    leave ``runs/`` is refused)."""
    if out is not None:
        return RunPaths(Path(out))
    return RunPaths(inside(Path("runs").resolve(), cfg.name))


def policy_features(cfg: TrainConfig) -> str | None:
    """The policy features the run's network takes: ``init_from``'s (its network wins), else the
    config's ``policy_kwargs.features``; a config that names other features than ``init_from``'s raises."""
    from kabu_envs.agents.policy_file import read_policy
    from kabu_envs.agents.ppo_agent import find_policy

    wanted = cfg.policy_kwargs.features
    if not cfg.init_from:
        return wanted
    have = read_policy(find_policy(cfg.init_from, models_dir())).features
    if wanted is not None and wanted != have:
        raise ValueError(
            f"policy_kwargs.features {wanted!r} differ from init_from {cfg.init_from!r}'s features {have!r}: "
            "the run continues that network, so leave features out or name the same ones"
        )
    return have


def feature_inputs_of(cfg: TrainConfig) -> FeatureInputs | None:
    """The run's network inputs (``policy_features``), None without features."""
    return feature_inputs(cfg.game, policy_features(cfg), cfg.env_options)


def save_policy(model: MaskablePPO, cfg: TrainConfig, out: Path, seed: int) -> None:
    """Write the policy file of ``model`` (trained for the config's game, role, rule options and
    policy features)."""
    from kabu_envs.agents.policy_file import policy_from_sb3, write_policy

    training = {
        "name": cfg.name,
        "seed": seed,
        "timesteps": int(model.num_timesteps),
        **provenance(cfg.game, cfg.role, cfg.env_options),
    }
    features = policy_features(cfg)
    write_policy(policy_from_sb3(model.policy, cfg.game, cfg.role, cfg.env_options, training, features), out)


# --- the steps of a run -------------------------------------------------------------------------------
def _prepare(paths: RunPaths, cfg: TrainConfig, resume: bool) -> Path | None:
    """Create the folders; for a resumption, check the config and return the checkpoint to start from."""
    resolved = cfg.to_dict()
    if not resume:
        if paths.work.exists():  # a fresh run: the previous run's checkpoints and logs go
            shutil.rmtree(paths.work)
        paths.work.mkdir(parents=True)
        write_json(paths.config, resolved)
        return None
    ckpt = latest_checkpoint(paths.checkpoints)
    if ckpt is None or not paths.config.is_file():
        raise RunFolderError(
            f"nothing to resume in {paths.root}: no complete checkpoint under {paths.checkpoints} "
            "(a run leaves one after its warm start, every checkpoint_every steps and when interrupted); "
            "start it without --resume"
        )
    saved = json.loads(paths.config.read_text())
    diff = sorted(
        k
        for k in set(saved) | set(resolved)
        if k not in RESUMABLE_CHANGES and saved.get(k) != resolved.get(k)
    )
    if diff:
        raise RunFolderError(
            f"--resume with a different config than the interrupted run ({paths.config}): {diff} differ; "
            f"only {list(RESUMABLE_CHANGES)} may change"
        )
    write_json(paths.config, resolved)
    return ckpt


def _new_model(cfg: TrainConfig, vec: VecEnv, seed: int, start: Path | None) -> MaskablePPO:
    """A MaskablePPO: fresh, from ``init_from``'s policy file, or from the checkpoint ``start``."""
    from sb3_contrib import MaskablePPO

    from kabu_envs.agents.policy_file import load_into_sb3, read_policy, sb3_policy_kwargs
    from kabu_envs.agents.ppo_agent import find_policy

    init = None
    if start is not None:
        init = read_policy(start)
    elif cfg.init_from:  # a policy file (never an SB3 zip: those can carry code)
        path = Path(cfg.init_from)
        init = read_policy(find_policy(str(path), models_dir()))
        init.check_fits(game=cfg.game, env_options=cfg.env_options, label=f"init_from {cfg.init_from!r}")
    kwargs = sb3_policy_kwargs(init) if init is not None else {"net_arch": list(cfg.policy_kwargs.net_arch)}
    model = MaskablePPO(
        "MlpPolicy", vec, seed=seed, device="cpu", policy_kwargs=kwargs, verbose=0, **cfg.ppo.kwargs()
    )
    if init is not None:  # its architecture wins; the step count goes on
        load_into_sb3(init, model.policy)
        model.num_timesteps = int(init.training.get("timesteps", 0))
    if start is not None:
        model.num_timesteps = restore_optimizer(model, start)
    return model


def _callbacks(
    model: MaskablePPO,
    cfg: TrainConfig,
    pool: OpponentPool,
    paths: RunPaths,
    seed: int,
    inputs: FeatureInputs | None,
) -> tuple[Any, CallbackList]:
    """Self-play snapshots into the pool (playing on ``inputs``, the run's network inputs) and
    pickle-free checkpoints, every so many steps."""
    from stable_baselines3.common.callbacks import BaseCallback, CallbackList

    from kabu_envs.agents.ppo_agent import PPOAgent

    sp = cfg.self_play
    every_ckpt = cfg.checkpoint_every

    class Snapshots(BaseCallback):
        """Freeze a numpy copy of the actor into the pool every ``self_play.every`` steps."""

        def __init__(self) -> None:
            super().__init__()
            self.next_at = (model.num_timesteps // sp.every + 1) * sp.every
            self.count = 0

        def _on_step(self) -> bool:
            if sp.weight > 0 and self.num_timesteps >= self.next_at:
                self.next_at += sp.every
                self.count += 1
                snap = PPOAgent(
                    model=model, fast=True, deterministic=False, seed=seed + 1000 + self.count, inputs=inputs
                )
                pool.add(snap, sp.weight)
            return True

    class Checkpoints(BaseCallback):
        """``work/checkpoints/step_<n>/`` every ``checkpoint_every`` steps (policy file + Adam state)."""

        def __init__(self) -> None:
            super().__init__()
            self.next_at = (model.num_timesteps // every_ckpt + 1) * every_ckpt

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next_at:
                self.next_at += every_ckpt
                save_checkpoint(model, paths.checkpoints, lambda m, d: save_policy(m, cfg, d, seed))
            return True

    snaps = Snapshots()
    curve = make_curve_callback(model, cfg, paths.work / "curve.csv", seed)
    return snaps, CallbackList([snaps, Checkpoints(), *([curve] if curve is not None else [])])


def _learn(
    model: MaskablePPO,
    cfg: TrainConfig,
    paths: RunPaths,
    callbacks: CallbackList,
    progress_bar: bool,
    seed: int,
) -> None:
    """Learn up to ``timesteps`` in total; on Ctrl-C save a checkpoint and say how to resume."""
    from stable_baselines3.common.callbacks import CallbackList
    from stable_baselines3.common.logger import configure

    segment = len(list(paths.work.glob("log_*")))
    model.set_logger(configure(str(paths.work / f"log_{segment}"), ["csv", "tensorboard"]))
    # the run's target: the step count it started from (0, or init_from's) plus ``timesteps``
    start_file = paths.work / "start.json"
    if not start_file.is_file():
        write_json(start_file, {"timesteps": int(model.num_timesteps)})
    target = json.loads(start_file.read_text())["timesteps"] + cfg.timesteps
    remaining = target - int(model.num_timesteps)
    if remaining <= 0:
        return
    say("ppo", f"learning {remaining} steps (to {target}) against {dict(cfg.opponents)}")
    lines = _ppo_lines(int(model.num_timesteps), remaining)
    try:
        with quiet_gc():
            model.learn(
                remaining,
                callback=CallbackList([*callbacks.callbacks, lines]),
                progress_bar=progress_bar,
                reset_num_timesteps=False,
            )
        lines.finish()
    except KeyboardInterrupt:
        ckpt = save_checkpoint(model, paths.checkpoints, lambda m, d: save_policy(m, cfg, d, seed))
        raise TrainingInterrupted(
            f"training interrupted at {model.num_timesteps} steps; checkpoint {ckpt}. Resume with: "
            f"the same kabu-train command (preset or config, options) with --resume --out {paths.root}"
        ) from None


def _ppo_lines(start: int, steps: int) -> Any:
    """A callback printing ``[ppo] done/steps steps (pct%) s`` lines (training/stage_log.py)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Lines(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.progress = StageProgress("ppo", steps, "steps")

        def _on_step(self) -> bool:
            self.progress.update(self.num_timesteps - start)
            return True

        def finish(self) -> None:
            self.progress.finish()

    return Lines()


def _progress_csv(paths: RunPaths, dest: Path) -> None:
    """The learning curve of every segment of the run (a resumed run has several), in one CSV."""
    rows: list[dict[str, str]] = []
    fields: list[str] = []
    for log in sorted(paths.work.glob("log_*"), key=lambda p: int(p.name.split("_")[1])):
        f = log / "progress.csv"
        if not f.is_file() or f.stat().st_size == 0:
            continue
        with open(f, newline="") as fh:
            reader = csv.DictReader(fh)
            fields += [k for k in reader.fieldnames or () if k not in fields]
            rows += list(reader)
    if rows:
        with open(dest, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=fields)
            writer.writeheader()
            writer.writerows(rows)


def _finish(model: MaskablePPO, cfg: TrainConfig, paths: RunPaths, record: dict[str, Any], seed: int) -> Path:
    """Write the policy, evaluation, learning curve and run record in staging; swap into ``model/``."""
    stage = paths.staging()
    save_policy(model, cfg, stage, seed)
    _progress_csv(paths, stage / "progress.csv")
    if (paths.work / "curve.csv").is_file():
        shutil.copyfile(paths.work / "curve.csv", stage / "curve.csv")
        record["curve"] = last_points(stage / "curve.csv")
    if cfg.eval_deals > 0:
        record["eval"] = quick_eval(cfg, stage, cfg.eval_deals, seed)
    write_json(stage / "run.json", record)
    return swap_into_place(stage, paths.model)


def _warm_start(
    model: MaskablePPO, cfg: TrainConfig, pool: OpponentPool, paths: RunPaths, seed: int, progress: bool
) -> dict[str, Any]:
    """Behaviour cloning of ``bc.teacher`` (training/bc.py), then ``dagger.iterations`` rounds of DAgger
    (training/dagger.py) when configured; the record for run.json."""
    if cfg.dagger.iterations:
        from kabu_envs.training import dagger

        after_round = None
        if cfg.timesteps == 0 and cfg.curve.every > 0:  # no PPO: the curve is measured round by round
            writer = CurveWriter(paths.work / "curve.csv")

            def after_round(policy_dir: Path, rounds: list[dict[str, Any]]) -> None:
                round_point(cfg, writer, seed, policy_dir, rounds)

        return dagger.run(
            model,
            cfg,
            dagger.labelling_seed(seed),
            paths.work,
            lambda m, d: save_policy(m, cfg, d, seed),
            progress,
            after_round=after_round,
        )
    from kabu_envs.training.bc import warm_start
    from kabu_envs.training.dagger import labelling_seed

    teacher = make_agent(cfg.game, str(cfg.bc.teacher), seed + 500, **cfg.env_options)
    return warm_start(model, cfg, make_view(cfg, pool), teacher, labelling_seed(seed), progress=progress)


def train(
    cfg: TrainConfig,
    out: str | Path | None = None,
    progress_bar: bool = True,
    resume: bool = False,
    publish: bool = False,
    opponents: OpponentPool | None = None,
) -> dict[str, Any]:
    """Train one model as configured; returns the run record (also written to ``model/run.json``).

    ``opponents``: a pool the caller built instead of the config's ``opponents`` (the exploitability
    yardstick's frozen table, whose seats may route to different agents by role); the config's
    ``opponents`` then only names it in the record. SIGTERM is handled as Ctrl-C while it runs
    (``sigterm_as_interrupt``): PPO saves a checkpoint to ``--resume`` from."""
    git_commit()  # read now (cached): the commit of the code this run imported, not of a later edit
    with sigterm_as_interrupt():
        return _train(cfg, out, progress_bar, resume, publish, opponents)


def _train(
    cfg: TrainConfig,
    out: str | Path | None,
    progress_bar: bool,
    resume: bool,
    publish: bool,
    opponents: OpponentPool | None,
) -> dict[str, Any]:
    import torch
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    check_name(cfg.name)
    paths = run_paths(cfg, out)
    published = inside(models_dir(), cfg.name) if publish else None
    start = _prepare(paths, cfg, resume)
    say(
        "run",
        f"{cfg.name}: {cfg.game} {cfg.role}; stages {' -> '.join(stage_plan(cfg))}; output {paths.model}",
    )
    torch.set_num_threads(1)
    seed = cfg.seed
    torch.manual_seed(seed)
    pool = opponents if opponents is not None else build_pool(cfg, seed)

    def env_fn(i: int) -> Callable[[], gymnasium.Env[Any, Any]]:
        def make() -> gymnasium.Env:
            env = Monitor(make_view(cfg, pool), str(paths.work / f"monitor_{i}"))
            return ScaleReward(env, cfg.reward_scale) if cfg.reward_scale != 1.0 else env

        return make

    vec = (
        make_vec_env(cfg, pool, paths)
        if cfg.batch_envs
        else DummyVecEnv([env_fn(i) for i in range(cfg.n_envs)])
    )
    vec.seed(seed)
    inputs = feature_inputs_of(cfg)
    if inputs is not None:  # the network sees [observation, features] (agents/features.py)
        from kabu_envs.training.batch_vec_env import VecFeatures

        vec = VecFeatures(vec, inputs)
    model = _new_model(cfg, vec, seed, start)
    bc_file = paths.work / "bc.json"
    bc_record = json.loads(bc_file.read_text()) if start is not None and bc_file.is_file() else None
    if cfg.bc.teacher and start is None:
        warm_stages = [s for s in stage_plan(cfg) if not s.startswith("ppo")]
        try:
            bc_record = _warm_start(model, cfg, pool, paths, seed, progress_bar)
        except KeyboardInterrupt:
            raise TrainingInterrupted(
                f"training interrupted during the warm start ({' -> '.join(warm_stages)}), before "
                f"any checkpoint: nothing to resume in {paths.root}; run it again without --resume"
            ) from None
        save_policy(model, cfg, paths.work / "bc_policy", seed)  # the warm start alone, for comparison
        write_json(paths.work / "bc.json", bc_record)
        # a checkpoint of the warm start: an interrupted PPO resumes after it, never clones again
        save_checkpoint(model, paths.checkpoints, lambda m, d: save_policy(m, cfg, d, seed))
    snaps, callbacks = _callbacks(model, cfg, pool, paths, seed, inputs)
    t0 = time.time()
    _learn(model, cfg, paths, callbacks, progress_bar, seed)
    record = {
        "name": cfg.name,
        "config": cfg.to_dict(),
        "seed": seed,
        "timesteps": int(model.num_timesteps),
        "train_seconds": round(time.time() - t0, 1),
        "snapshots_added": snaps.count,
        "vec_env": type(vec.unwrapped).__name__,
        "bc": bc_record,
        "resumed_from": str(start.name) if start is not None else None,
        "versions": versions(PACKAGES),
        # the env ids with their versions, the resolved rules, the package version and the git commit:
        # a model of other rules or code is told apart by its record, not by its date
        "provenance": provenance(cfg.game, cfg.role, cfg.env_options),
        "command": " ".join([Path(sys.executable).name, "-m", "kabu_envs.training", *sys.argv[1:]]),
    }
    _finish(model, cfg, paths, record, seed)
    vec.close()
    if published is not None:
        copy_published(paths.model, published)
    return record


def quick_eval(cfg: TrainConfig, model_dir: Path, deals: int, seed: int) -> dict[str, Any]:
    """Duplicate-deal check of the fresh model against the game's quick-evaluation opponents
    (``kabu_envs.eval.plans.evaluation``)."""
    from kabu_envs.eval.games import matchup
    from kabu_envs.eval.plans import evaluation

    opts, role = cfg.env_options, cfg.role
    res = {}
    for opp in evaluation(cfg.game).opponents:
        agent = make_agent(cfg.game, str(model_dir), seed, role=role, **opts)
        other = make_agent(cfg.game, opp, seed + 1, **opts)
        m = matchup(cfg.game, agent, other, role, deals, seed=10_000 + seed, env_options=opts)
        s = m.summary()
        res[opp] = {"deals": s.n, "mean": round(s.mean, 4), "ci95": [round(s.lo, 4), round(s.hi, 4)]}
    return res
