"""``python -m kabu_envs.training.specialist NAME --base MODEL --init MODEL --teacher AGENT --stages SPLIT
--stage STAGE [--deals N] [--workers W] [--seed S] [...] [--publish]``: a network fitted to the
decisions of one stage of the game only (agents/stages.py), to play that stage in a staged ensemble.

Why: a clone of a search can lose most of its gap to the search in one part of the game (in Kakeya the
last tricks, docs/studies/kakeya_models.md#where-the-clone-loses), and one network fitted to every
decision spends
most of its capacity elsewhere. The specialist starts from a generalist's weights (``--init``) and is
fitted again on that stage's decisions alone, many more of them than a whole-game run labels.

Collection (``--workers`` processes, worker w seeded from ``(seed, w)``, so the decisions do not depend
on timing): deals of the base model's table on the batch engine, every seat played by the ``--base``
model (its arg-max; before the stage, a move is drawn from its distribution instead with probability
``--explore``, for varied positions). Each decision of the stage with two or more legal moves is labelled
by ``--teacher`` (its action, and its action values when it gives them), and the teacher's move is
played with probability ``--beta``, the base model's otherwise (DAgger's mixture: the positions after
either). Fit: the teacher's actions as targets (``--smoothing``; with ``--temperature`` T > 0 the
softmax of its action values / T instead, training/bc.py ``soft_targets``), the last ``--holdout`` of each
worker's decisions held out and the epoch agreeing best with the teacher there kept (training/bc.py).

Output, as a training run's: ``runs/NAME/model/`` (the policy file, ``run.json`` with the resolved
settings, seed, package versions, timings and fit statistics) and ``runs/NAME/work/decisions.npz`` (the
labelled decisions, for a new fit without new labels). Needs the ``train`` extra (torch) for the fit.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from kabu_envs.core.rng import make_rng
from kabu_envs.training.bc import Demonstrations

RECORD_KIND = "stage specialist"  # run.json's "kind": not a kabu_envs.training run (no TrainConfig)


@dataclass(frozen=True)
class SpecialistConfig:
    """Everything a specialist run depends on (written to its ``run.json``)."""

    name: str
    base: str
    init: str
    teacher: str
    stages: str
    stage: str
    deals: int = 120_000
    workers: int = 2
    seed: int = 0
    beta: float = 0.5
    explore: float = 0.3
    chunk: int = 256
    epochs: int = 4
    lr: float = 0.0005
    batch_size: int = 512
    smoothing: float = 0.05
    temperature: float = 0.0
    holdout: float = 0.03

    def check(self) -> None:
        for key in ("deals", "workers", "chunk", "epochs", "batch_size"):
            if getattr(self, key) < 1:
                raise ValueError(f"specialist: {key} must be >= 1, got {getattr(self, key)}")
        for key in ("beta", "explore", "smoothing"):
            if not 0.0 <= getattr(self, key) <= 1.0:
                raise ValueError(f"specialist: {key} must be in [0, 1], got {getattr(self, key)}")
        if self.temperature < 0:
            raise ValueError(f"specialist: temperature must be >= 0, got {self.temperature}")
        if not 0.0 <= self.holdout < 1.0 or self.lr <= 0:
            raise ValueError(
                f"specialist: holdout must be in [0, 1) and lr > 0, got {self.holdout}, {self.lr}"
            )


def _table(cfg: SpecialistConfig) -> tuple[Any, dict[str, Any]]:
    """The base model and its table (``trained_for``): game, role, rule options."""
    from kabu_envs.agents.ensemble import read_model
    from kabu_envs.agents.ppo_agent import find_policy
    from kabu_envs.agents.registry import models_dir

    base = read_model(find_policy(cfg.base, models_dir()))
    return base, dict(base.trained_for)


def is_specialist_record(record: dict[str, Any]) -> bool:
    """Whether a ``run.json`` content is a specialist run's (its ``config`` is a ``SpecialistConfig``)."""
    return record.get("kind") == RECORD_KIND


def load_specialist_config(run_json: str | Path) -> SpecialistConfig:
    """The settings a specialist run recorded; ``ValueError`` naming the file when it is not one."""
    try:
        record = json.loads(Path(run_json).read_text())
        if not is_specialist_record(record):
            raise ValueError(f"its kind is {record.get('kind')!r}, not {RECORD_KIND!r}")
        return SpecialistConfig(**record["config"])
    except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{run_json}: not a readable specialist run record: {exc}") from None


def collect_worker(cfg: SpecialistConfig, worker: int) -> Demonstrations:
    """Worker ``worker``'s share of the deals (module docstring): its labelled stage decisions."""
    from kabu_envs import batch as kabu_batch
    from kabu_envs.agents.registry import make_agent
    from kabu_envs.agents.stages import StageSplit

    base, table = _table(cfg)
    game, opts = table["game"], dict(table["env_options"])
    split = StageSplit(game, cfg.stages, opts)
    target = split.index(cfg.stage)
    rng = make_rng([cfg.seed, worker])
    teacher = make_agent(game, cfg.teacher, int(rng.integers(2**31)), **opts)
    valued = teacher.capabilities.values
    deals = cfg.deals // cfg.workers + (worker < cfg.deals % cfg.workers)
    obs_l: list[np.ndarray] = []
    mask_l: list[np.ndarray] = []
    act_l: list[int] = []
    val_l: list[np.ndarray] = []
    for lo in range(0, deals, cfg.chunk):
        n = min(cfg.chunk, deals - lo)
        env = kabu_batch.make(game, batch_size=n, **opts)
        env.reset(seeds=[int(s) for s in rng.integers(0, 2**62, n)])
        actions = np.zeros(n, dtype=np.int64)
        while True:
            live = np.flatnonzero(env.current_player >= 0)
            if live.size == 0:
                break
            obs, masks = env.observation[live], env.legal_action_mask[live].astype(bool)
            probs = base.masked_probs_batch(obs, masks)
            act = probs.argmax(axis=1).astype(np.int64)
            stage = (split.of(obs) == target) & (masks.sum(axis=1) > 1)
            for i in np.flatnonzero(~stage & (rng.random(len(live)) < cfg.explore)):
                p = probs[i].astype(np.float64) * masks[i]
                act[i] = rng.choice(len(p), p=p / p.sum())
            for i in np.flatnonzero(stage):
                mask8 = masks[i].astype(np.int8)
                if valued:
                    label, values = teacher.act_with_values(obs[i], mask8)
                    val_l.append(np.asarray(values, dtype=np.float32))
                else:
                    label = teacher.act(obs[i], mask8)
                obs_l.append(obs[i])
                mask_l.append(masks[i])
                act_l.append(int(label))
                if rng.random() < cfg.beta:
                    act[i] = int(label)
            actions[live] = act
            env.step(actions)
    return Demonstrations.from_lists(
        obs_l, mask_l, act_l, [0.0] * len(act_l), deals, val_l if valued else None
    )


def _record_sha(name: str) -> str:
    """SHA-256 of a model's ``policy.json`` (which pins its weights): the model a name stood for."""
    import hashlib

    from kabu_envs.agents.ppo_agent import find_policy
    from kabu_envs.agents.registry import models_dir

    return hashlib.sha256(find_policy(name, models_dir()).read_bytes()).hexdigest()


def decisions_sha256(data: Demonstrations) -> str:
    """SHA-256 of labelled decisions (observations, masks, actions, in that order, as stored)."""
    import hashlib

    h = hashlib.sha256()
    for a in (data.obs, data.masks, data.actions):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def _job(args: tuple[SpecialistConfig, int]) -> Demonstrations:
    return collect_worker(*args)


def _worker_job(args: tuple[SpecialistConfig, int]) -> Demonstrations:
    """``_job`` in one of the worker processes: numba's threads limited to its share of the cores."""
    from kabu_envs.core import threads

    threads.share_cores(args[0].workers)
    return collect_worker(*args)


def collect(cfg: SpecialistConfig) -> list[Demonstrations]:
    """Every worker's decisions, in worker order (processes when ``workers`` > 1)."""
    jobs = [(cfg, w) for w in range(cfg.workers)]
    if len(jobs) == 1:
        return [_job(jobs[0])]
    with ProcessPoolExecutor(len(jobs), mp_context=get_context("spawn")) as ex:
        return list(ex.map(_worker_job, jobs))


def fit_specialist(cfg: SpecialistConfig, parts: list[Demonstrations], out: Path) -> dict[str, Any]:
    """Fit ``init``'s network on the decisions (module docstring) and write its policy file to ``out``;
    the fit's statistics (held-out agreement before and after)."""
    import gymnasium
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from kabu_envs.agents.features import feature_inputs
    from kabu_envs.agents.policy_file import (
        load_into_sb3,
        policy_from_sb3,
        read_policy,
        sb3_policy_kwargs,
        write_policy,
    )
    from kabu_envs.agents.ppo_agent import find_policy
    from kabu_envs.agents.registry import models_dir
    from kabu_envs.training.bc import agreement, fit, holdout_rows
    from kabu_envs.training.dagger import concat
    from kabu_envs.training.provenance import provenance

    torch.set_num_threads(1)
    torch.manual_seed(cfg.seed)
    init = read_policy(find_policy(cfg.init, models_dir()))
    table = init.trained_for
    _, base_table = _table(cfg)
    if table != base_table:
        raise ValueError(f"init {cfg.init!r} was trained for {table}, the base model for {base_table}")
    inputs = feature_inputs(table["game"], init.features, table["env_options"])
    data = concat(parts).with_inputs(inputs)
    width = data.obs.shape[1]
    space = gymnasium.spaces.Box(-np.inf, np.inf, (width,), np.float32)
    policy = MaskableActorCriticPolicy(
        space, gymnasium.spaces.Discrete(init.num_actions), lambda _: cfg.lr, **sb3_policy_kwargs(init)
    )
    load_into_sb3(init, policy)
    held = holdout_rows([len(p) for p in parts], cfg.holdout)
    policy.set_training_mode(False)
    before = agreement(policy, data, np.flatnonzero(held))
    stats = fit(
        policy,
        data,
        cfg.epochs,
        cfg.lr,
        cfg.batch_size,
        0.0,
        cfg.seed,
        cfg.smoothing,
        cfg.temperature,
        "cosine",
        held,
    )
    role, opts = table["role"], table["env_options"]
    training = {"name": cfg.name, "seed": cfg.seed, "timesteps": 0, **provenance(table["game"], role, opts)}
    write_policy(policy_from_sb3(policy, table["game"], role, opts, training, init.features), out)
    return {"holdout_agreement_before": round(before, 4), **{k: round(v, 4) for k, v in stats.items()}}


def run(cfg: SpecialistConfig, root: Path) -> dict[str, Any]:
    """Collect, save the decisions, fit and write ``root/model/`` with its ``run.json``; the record."""
    from kabu_envs.training.dagger import concat, save_demonstrations
    from kabu_envs.training.outputs import RunPaths, swap_into_place, versions, write_json
    from kabu_envs.training.provenance import provenance
    from kabu_envs.training.run import PACKAGES

    cfg.check()
    _, table = _table(cfg)  # a bad base fails before any work
    paths = RunPaths(root)
    paths.work.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    parts = collect(cfg)
    t1 = time.time()
    save_demonstrations(concat(parts), paths.work / "decisions.npz")
    # worker 0's first chunk again, alone: the decisions are a function of the settings (checked here;
    # its checksum in the record lets anyone check it without the whole collection)
    first = min(cfg.chunk, cfg.deals // cfg.workers + (cfg.deals % cfg.workers > 0))  # worker 0's first chunk
    probe = collect_worker(dataclasses.replace(cfg, deals=first * cfg.workers), 0)
    if not np.array_equal(probe.obs, parts[0].obs[: len(probe)]) or not np.array_equal(
        probe.actions, parts[0].actions[: len(probe)]
    ):
        raise RuntimeError("specialist: worker 0's first chunk came out differently when collected again")
    stage = paths.staging()
    stats = fit_specialist(cfg, parts, stage)
    record = {
        "name": cfg.name,
        "kind": RECORD_KIND,
        "config": dataclasses.asdict(cfg),
        "seed": cfg.seed,
        "timesteps": 0,
        "bc": {  # the labelled decisions fitted, as a cloning run records them (training/curve.py reads it)
            "teacher": cfg.teacher,
            "decisions": int(sum(len(p) for p in parts)),
            "decisions_per_worker": [len(p) for p in parts],
            "first_chunk": {"decisions": len(probe), "sha256": decisions_sha256(probe)},
            "collect_seconds": round(t1 - t0, 1),
            "fit_seconds": round(time.time() - t1, 1),
            **stats,
        },
        "models": {k: _record_sha(getattr(cfg, k)) for k in ("base", "init")},  # what the names meant
        "provenance": provenance(table["game"], table["role"], table["env_options"]),
        "versions": versions(PACKAGES),
        "command": " ".join(["python", "-m", "kabu_envs.training.specialist", *sys.argv[1:]]),
    }
    write_json(stage / "run.json", record)
    swap_into_place(stage, paths.model)
    return record


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kabu_envs.training.specialist", description=__doc__)
    ap.add_argument(
        "name", help="the specialist's model name (folder under runs/ and, with --publish, models/)"
    )
    defaults = SpecialistConfig("x", "x", "x", "x", "x", "x")
    for f in dataclasses.fields(SpecialistConfig):
        if f.name == "name":
            continue
        flag = "--" + f.name.replace("_", "-")
        if f.default is dataclasses.MISSING:
            ap.add_argument(flag, required=True)
        else:
            ap.add_argument(flag, type=type(getattr(defaults, f.name)), default=getattr(defaults, f.name))
    ap.add_argument("--out", type=Path, default=None, help="the run folder (default runs/NAME)")
    ap.add_argument("--publish", action="store_true", help="also copy the model to the shipped models")
    args = ap.parse_args(argv)
    from kabu_envs.agents.registry import models_dir
    from kabu_envs.training.outputs import RunPaths, check_name, copy_published, inside

    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(SpecialistConfig)}
    try:
        cfg = SpecialistConfig(**values)
        root = args.out or Path("runs") / check_name(cfg.name)
        record = run(cfg, root)
        if args.publish:
            copy_published(RunPaths(root).model, inside(models_dir(), cfg.name))
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(record["bc"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
