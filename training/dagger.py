"""DAgger: imitate a teacher on the states the learner itself visits, before PPO.

Why: plain behaviour cloning fits the teacher on the teacher's own states; the clone's small mistakes
then lead it to states the teacher never showed it, where it plays poorly (compounding errors). DAgger
(Ross, Gordon & Bagnell 2011) fixes that by letting the learner drive and the teacher label:

- iteration 0 is behaviour cloning: the teacher plays the learner's seats for ``bc.steps`` decisions;
- iteration k >= 1: the current policy (its numpy policy file, deterministic, as it would be shipped)
  plays; at each decision the teacher's action is executed with probability ``beta ** k`` and the
  learner's otherwise; every decision is labelled with the teacher's action. The new decisions join
  the aggregate and the policy is fitted again on all of it, from its current weights
  (``dagger.refit``'s epochs and lr, else ``bc``'s: a warm refit beat a fit from scratch on the same
  decisions, docs/studies/distillation.md). ``dagger.rounds`` gives a round its own steps, beta and
  opponent mix
  (the study's rounds 2-3 against the expert opponents it is measured against).
- with ``init_from`` the rounds continue that network (no cloning round: round 1's learner is
  ``init_from``'s policy), and ``dagger.aggregate`` joins an earlier run's labelled decisions to the
  aggregate, so that more rounds can be added to a finished run without labelling its decisions again.

Only decisions with at least two legal actions are recorded (a forced move teaches nothing; its reward
still counts in the returns). The teacher sees exactly the learner's observation and mask.

Collection is split in ``dagger.workers`` shares (default: numba's thread setting, the cores; recorded),
run in as many processes as the cores allow, each with its share of numba's threads (the expensive
part when the teacher searches); each worker builds its own view, opponent pool and teacher from the
config, with its own seeds, and the learner from the policy file, so the workers need no torch. Results
do not depend on timing: worker w
of iteration k always gets the same seeds and the same share of the decisions.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from kabu_envs.core.rng import make_rng
from kabu_envs.training.bc import Demonstrations, Labeller
from kabu_envs.training.config import DaggerRefit, DaggerRound, TrainConfig
from kabu_envs.training.stage_log import say

if TYPE_CHECKING:
    from sb3_contrib import MaskablePPO

    from kabu_envs.agents.features import FeatureInputs

# Where a run's labelling draws its episodes from (one formula, read by the run and by the tests that keep
# presets' collections apart): the run's seed + 501 (``labelling_seed``; + 500 seeds the teacher), round k
# from that + 7919 k (``round_seed``; round 0 is the cloning), and its worker w from that + w.
LABELLING_SEED_OFFSET = 501
ROUND_SEED_STRIDE = 7_919


def labelling_seed(run_seed: int) -> int:
    """The seed a run's labelling (its cloning and DAgger rounds) starts from."""
    return run_seed + LABELLING_SEED_OFFSET


def round_seed(labelling: int, k: int) -> int:
    """Round k's collection seed (worker w collects from it + w: ``collect_parts``)."""
    return labelling + ROUND_SEED_STRIDE * k


def collection_seeds(run_seed: int, rounds: int, workers: int) -> set[int]:
    """Every episode seed a run's labelling draws from: round 0 (the cloning) to ``rounds``, each in
    ``workers`` shares."""
    base = labelling_seed(run_seed)
    return {round_seed(base, k) + w for k in range(rounds + 1) for w in range(max(1, workers))}


_J = TypeVar("_J")
_R = TypeVar("_R")


def collect_mixture(
    cfg: TrainConfig,
    learner_dir: str | None,
    beta: float,
    steps: int,
    seed: int,
) -> Demonstrations:
    """Play the learner's seats for at least ``steps`` recorded decisions, labelled by the teacher.

    ``learner_dir`` None (or ``beta`` 1) executes the teacher's actions only (behaviour cloning).
    """
    from kabu_envs.agents.registry import make_agent
    from kabu_envs.training.run import build_pool, make_view

    if steps <= 0:
        raise ValueError(f"dagger steps must be positive, got {steps}")
    rng = make_rng(seed)
    opts = cfg.env_options
    pool = build_pool(cfg, int(rng.integers(2**31)))
    view = make_view(cfg, pool)
    teacher = make_agent(cfg.game, str(cfg.bc.teacher), int(rng.integers(2**31)), **opts)
    label = Labeller(teacher, cfg.bc.temperature > 0)
    learner = None
    if learner_dir is not None and beta < 1.0:
        learner = make_agent(cfg.game, learner_dir, 0, role=cfg.role, **opts)
    scale = float(cfg.reward_scale)
    obs_l: list[np.ndarray] = []
    mask_l: list[np.ndarray] = []
    act_l: list[int] = []
    ret_l: list[float] = []
    episodes = 0
    while len(act_l) < steps:
        obs, _ = view.reset(seed=int(rng.integers(2**63 - 1)))
        teacher.reset(int(rng.integers(2**63 - 1)))
        rewards: list[float] = []
        recorded: list[int] = []  # the episode step of each recorded decision
        done = False
        while not done:
            mask = view.action_masks()
            if int(mask.sum()) > 1:
                mask8 = mask.astype(np.int8)
                labelled = action = label(obs, mask8)
                if learner is not None and rng.random() >= beta:
                    action = int(learner.act(obs, mask8))
                obs_l.append(obs)
                mask_l.append(mask)
                act_l.append(labelled)
                recorded.append(len(rewards))
            else:
                action = int(np.flatnonzero(mask)[0])
            obs, reward, term, trunc, _ = view.step(action)
            rewards.append(float(reward))
            done = term or trunc
        to_go = np.cumsum(rewards[::-1])[::-1] * scale  # return-to-go of each step (gamma = 1)
        ret_l.extend(to_go[recorded].tolist())
        episodes += 1
    return Demonstrations.from_lists(obs_l, mask_l, act_l, ret_l, episodes, label.values)


def _collect_job(args: tuple[TrainConfig, str | None, float, int, int]) -> Demonstrations:
    return collect_mixture(*args)


def collect_parts(
    cfg: TrainConfig, learner_dir: str | None, beta: float, steps: int, seed: int
) -> list[Demonstrations]:
    """``collect_mixture`` split over ``dagger.workers`` processes (worker w: seed + w, steps / workers),
    each worker's decisions apart (the held-out rows are the end of each)."""
    workers = cfg.dagger.workers
    shares = [steps // workers + (w < steps % workers) for w in range(workers)]
    jobs = [(cfg, learner_dir, beta, n, seed + w) for w, n in enumerate(shares) if n > 0]
    if len(jobs) == 1:
        return [_collect_job(jobs[0])]
    return run_shares(_collect_job, jobs)


def run_shares(job: Callable[[_J], _R], shares: Sequence[_J]) -> list[_R]:
    """``job`` of every share, in the shares' order, in at most numba's thread setting (the cores) of
    spawned processes, each with its share of the threads (``kabu_envs.eval.parallel.process_pool``:
    spawn, so the workers import numpy and the package only, never the parent's torch state). How many
    run at once changes no result: each share's decisions depend on its own seeds only."""
    from kabu_envs.eval.parallel import numba_threads, process_pool

    with process_pool(max(1, min(len(shares), numba_threads()))) as ex:
        return list(ex.map(job, shares))


def collect_parallel(
    cfg: TrainConfig, learner_dir: str | None, beta: float, steps: int, seed: int
) -> Demonstrations:
    """``collect_parts``' decisions in the workers' order."""
    return concat(collect_parts(cfg, learner_dir, beta, steps, seed))


def save_demonstrations(data: Demonstrations, path: Path) -> None:
    """The labelled decisions as plain arrays (``np.load`` with ``allow_pickle=False`` reads them back):
    the expensive part of a run, kept so that a new fit needs no new labels."""
    arrays: dict[str, Any] = {
        "obs": data.obs,
        "masks": data.masks,
        "actions": data.actions,
        "returns": data.returns,
        "episodes": data.episodes,
    }
    if data.values is not None:
        arrays["values"] = data.values
    np.savez_compressed(path, **arrays)


def load_demonstrations(path: Path) -> Demonstrations:
    with np.load(path, allow_pickle=False) as z:
        values = z["values"] if "values" in z.files else None
        return Demonstrations(z["obs"], z["masks"], z["actions"], z["returns"], int(z["episodes"]), values)


def init_policy_dir(init_from: str) -> str:
    """The model folder of ``init_from`` (a shipped model's name or a policy file's folder): the first
    round's learner."""
    from kabu_envs.agents.ppo_agent import find_policy
    from kabu_envs.agents.registry import models_dir

    return str(find_policy(init_from, models_dir()).parent)


def earlier_decisions(
    paths: list[str], inputs: FeatureInputs | None, holdout: float
) -> tuple[Demonstrations | None, list[np.ndarray], list[dict[str, Any]]]:
    """The decisions files of ``dagger.aggregate`` joined (with the run's network inputs), their held-out
    rows (the last ``holdout`` share of each file) and, for the run record, each file's path, rows and
    SHA-256: the record names exactly which labels the model was fitted on."""
    import hashlib

    from kabu_envs.training.bc import holdout_rows

    parts: list[Demonstrations] = []
    held: list[np.ndarray] = []
    record: list[dict[str, Any]] = []
    for p in paths:
        path = Path(p)
        if not path.is_file():
            raise ValueError(
                f"dagger.aggregate: no decisions file {p!r} (a run's work/dagger/iter_<k>/decisions.npz)"
            )
        part = load_demonstrations(path)
        parts.append(part.with_inputs(inputs))
        held.append(holdout_rows([len(part)], holdout))
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        record.append({"path": p, "decisions": len(part), "sha256": digest})
    return (concat(parts) if parts else None), held, record


def concat(parts: list[Demonstrations]) -> Demonstrations:
    """The parts' decisions in order (action values kept only when every part has them)."""
    values = [p.values for p in parts if p.values is not None]
    return Demonstrations(
        np.concatenate([p.obs for p in parts]),
        np.concatenate([p.masks for p in parts]),
        np.concatenate([p.actions for p in parts]),
        np.concatenate([p.returns for p in parts]),
        sum(p.episodes for p in parts),
        np.concatenate(values) if len(values) == len(parts) else None,
    )


def run(
    model: MaskablePPO,
    cfg: TrainConfig,
    seed: int,
    work: Path,
    save: Callable[[MaskablePPO, Path], None],
    progress: bool = False,
    after_round: Callable[[Path, list[dict[str, Any]]], None] | None = None,
) -> dict[str, Any]:
    """Behaviour cloning then ``dagger.iterations`` DAgger iterations on ``model.policy``.

    Round k >= 1 takes its steps, beta and opponent mix from ``dagger.schedule`` (``dagger.rounds``'
    overrides, else ``dagger.steps``, ``beta ** k`` and the run's opponents: the states the learner
    should be good at are those of the table it will face) and refits from the current weights with
    ``dagger.refit``'s epochs and lr (else ``bc``'s). With ``bc.holdout`` the last share of each worker's
    decisions of each round stays out of every fit (``bc.holdout_rows``), and each fit keeps its best epoch
    on them.

    ``save(model, folder)`` writes a policy file: each iteration's policy goes to
    ``work/dagger/iter_<k>/`` (the next iteration's learner) with that round's labelled decisions
    (``decisions.npz``); ``after_round(folder, rows so far)`` then runs (the curve of a run without PPO,
    training/curve.py). Returns the run.json record: per iteration
    the decisions collected, the learner's agreement with the teacher on its OWN new states before the
    fit (the DAgger progress measure) and the fit statistics.
    """
    from kabu_envs.training.bc import agreement, fit_configured, holdout_rows
    from kabu_envs.training.run import feature_inputs_of

    bc, d = cfg.bc, cfg.dagger
    inputs = feature_inputs_of(cfg)  # the fits see [observation, features]; decisions.npz keeps obs
    rounds = [DaggerRound(bc.steps, 1.0, dict(cfg.opponents)), *d.schedule(cfg.opponents)]
    first = 0
    learner_dir: str | None = None
    if cfg.init_from:  # the rounds continue init_from's network: no cloning round
        first, learner_dir = 1, init_policy_dir(cfg.init_from)
    data, held, joined = earlier_decisions(d.aggregate, inputs, bc.holdout)
    iterations: list[dict[str, Any]] = []
    for k, r in enumerate(rounds):
        if k < first:
            continue
        assert r.steps is not None and r.beta is not None and r.opponents is not None
        t0 = time.time()
        # the round's table; a config like the run's otherwise (its worker seeds unchanged)
        table = cfg if r.opponents == cfg.opponents else dataclasses.replace(cfg, opponents=r.opponents)
        what = "behaviour cloning" if k == 0 else f"DAgger round {k}/{len(rounds) - 1}"
        say(
            "dagger",
            f"{what}: collecting {r.steps} decisions labelled by {bc.teacher!r} "
            f"(teacher's share {r.beta:.3g}) in {d.workers} worker(s)",
        )
        parts = collect_parts(table, learner_dir, r.beta, r.steps, round_seed(seed, k))
        new = concat(parts)
        t1 = time.time()
        say("dagger", f"{what}: {len(new)} decisions in {t1 - t0:.0f} s; fitting")
        new_inputs = new.with_inputs(inputs)
        before = agreement(model.policy, new_inputs) if k > 0 else None
        data = new_inputs if data is None else concat([data, new_inputs])
        held.append(holdout_rows([len(p) for p in parts], bc.holdout))
        refit = d.refit if k > 0 else DaggerRefit()  # the first fit is bc's own
        stats = fit_configured(
            model.policy, data, bc, seed + k, np.concatenate(held), refit.epochs, refit.lr, stage="dagger"
        )
        learner_dir = str(work / "dagger" / f"iter_{k}")
        save(model, Path(learner_dir))
        save_demonstrations(new, Path(learner_dir) / "decisions.npz")
        row: dict[str, Any] = {
            "iteration": k,
            "beta": r.beta,
            "decisions": len(new),
            "episodes": new.episodes,
            "aggregate": len(data),
            "agreement_before_fit": None if before is None else round(before, 4),
            "collect_seconds": round(t1 - t0, 1),
            "fit_seconds": round(time.time() - t1, 1),
            **{key: round(v, 4) for key, v in stats.items()},
        }
        if r.opponents != cfg.opponents:
            row["opponents"] = r.opponents
        iterations.append(row)
        if progress:
            print(f"dagger iteration {k}: {row}", flush=True)
        if after_round is not None:
            after_round(Path(learner_dir), iterations)
    assert data is not None
    return {
        **({"init_from": cfg.init_from} if cfg.init_from else {}),
        **({"aggregate": joined} if joined else {}),
        "teacher": bc.teacher,
        "smoothing": bc.smoothing,
        "temperature": bc.temperature,
        "decisions": len(data),
        "episodes": sum(r["episodes"] for r in iterations),
        "collect_seconds": round(sum(r["collect_seconds"] for r in iterations), 1),
        "fit_seconds": round(sum(r["fit_seconds"] for r in iterations), 1),
        "accuracy": iterations[-1]["accuracy"],
        "cross_entropy": iterations[-1]["cross_entropy"],
        "value_mse": iterations[-1]["value_mse"],
        "dagger": iterations,
    }
