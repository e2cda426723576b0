"""The evaluation curve of a training run: what the training achieved, measured as it went.

SB3's ``progress.csv`` logs the learner's raw episode reward against a changing opponent pool, which for
a game as noisy as Oicho-Kabu is indistinguishable from noise. The curve instead plays the current
policy (its numpy policy file, deterministic, as it would be shipped) against fixed references
(``curve.opponents``, e.g. ``scripted`` and ``expert``) on ``curve.deals`` duplicate deals: at the start
of PPO (after the behaviour-cloning warm start, if any), every ``curve.every`` samples and at the end.
Every point uses the same deals (common random numbers), so differences between points are the policy's,
not the cards'. Rows go to ``work/curve.csv`` as they are measured and to ``model/curve.csv`` with the
model; ``kabu_envs.eval.plots.learning_curves`` draws them with their 95% CI bands.

A run with no PPO (``timesteps: 0``: the DAgger clone is the model, as ``ei_kakeya``) has its points after
each DAgger round instead, ``samples`` being the labelled decisions fitted so far and the wall time the
rounds' collection and fitting (``round_point``). ``python -m kabu_envs.training.curve OUT`` measures
them after the fact, from the rounds' policies a finished run keeps in ``OUT/work/dagger/``.

An ensemble (``training/ensemble.py``) trains nothing itself; its curve is its members added one by one
(``measure_ensemble``, the same command on its folder): point k plays the first k members together,
``samples`` and the wall time being what those members' runs cost.
"""

from __future__ import annotations

import csv
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kabu_envs.agents.policy_file import Policy, read_policy
from kabu_envs.eval.curve_file import FIELDS, read_curve, read_rows
from kabu_envs.training.config import TrainConfig

if TYPE_CHECKING:
    from kabu_envs.agents.ensemble import PolicyEnsemble

if TYPE_CHECKING:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

# the curve's deal seeds: one set for every point of a run (common random numbers), disjoint from the
# quick evaluation's (10_000 + seed) and the demo's (2024 + 7919 i)
SEED_BASE = 20_000


def evaluate_point(cfg: TrainConfig, policy: Policy | PolicyEnsemble, seed: int) -> list[dict[str, Any]]:
    """One point of the curve: the policy's duplicate advantage over each ``curve.opponents``."""
    from kabu_envs.agents.ppo_agent import PPOAgent
    from kabu_envs.agents.registry import make_agent
    from kabu_envs.eval.games import matchup

    curve, opts, game, role = cfg.curve, cfg.env_options, cfg.game, cfg.role
    rows = []
    for opp in curve.opponents:
        agent = PPOAgent(policy=policy, deterministic=True, seed=seed, name=cfg.name)
        other = make_agent(game, str(opp), seed + 1, role=role, **opts)
        s = matchup(game, agent, other, role, curve.deals, SEED_BASE + seed, opts).summary()
        rows.append({"opponent": str(opp), "deals": s.n, "mean": s.mean, "lo": s.lo, "hi": s.hi})
    return rows


class CurveWriter:
    """Appends the points of one run to its ``curve.csv`` (a resumed run goes on in the same file)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def wall_offset(self) -> float:
        """The training's wall time already recorded (a resumed run's clock goes on from it)."""
        rows = read_rows(self.path) if self.path.is_file() else []
        return max((float(r["wall_seconds"]) for r in rows), default=0.0)

    def done_at(self) -> set[int]:
        """The sample counts already measured (so that a resumed run does not measure them twice)."""
        return {int(r["samples"]) for r in read_rows(self.path)} if self.path.is_file() else set()

    def add(self, samples: int, wall_seconds: float, rows: list[dict[str, Any]]) -> None:
        new = not self.path.is_file()
        with open(self.path, "a", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=FIELDS)
            if new:
                w.writeheader()
            for r in rows:
                w.writerow({"samples": samples, "wall_seconds": round(wall_seconds, 1)} | r)


def round_point(
    cfg: TrainConfig, writer: CurveWriter, seed: int, policy_dir: Path, rounds: list[dict[str, Any]]
) -> None:
    """The point after DAgger round ``len(rounds) - 1`` (its policy in ``policy_dir``; ``rounds``: the
    run record's iteration rows so far): x = the decisions fitted so far, wall = the rounds' own time."""
    samples = int(rounds[-1]["aggregate"])
    if samples in writer.done_at():
        return
    wall = sum(float(r["collect_seconds"]) + float(r["fit_seconds"]) for r in rounds)
    writer.add(samples, wall, evaluate_point(cfg, read_policy(policy_dir), seed))


def make_callback(model: MaskablePPO, cfg: TrainConfig, path: Path, seed: int) -> BaseCallback | None:
    """The SB3 callback that measures the curve (``curve.every`` > 0), or None when it is off."""
    from stable_baselines3.common.callbacks import BaseCallback

    from kabu_envs.agents.policy_file import policy_from_sb3

    every = cfg.curve.every
    if every <= 0:
        return None
    writer = CurveWriter(path)
    from kabu_envs.training.run import policy_features

    features = policy_features(cfg)

    def measure(samples: int, wall: float) -> None:
        if samples in writer.done_at():
            return
        policy = policy_from_sb3(model.policy, cfg.game, cfg.role, cfg.env_options, features=features)
        writer.add(samples, wall, evaluate_point(cfg, policy, seed))

    class EvalCurve(BaseCallback):
        """A point at the start, every ``every`` samples and at the end; evaluation time is not counted
        in ``wall_seconds`` (the training's own time)."""

        def __init__(self) -> None:
            super().__init__()
            self.next_at = (model.num_timesteps // every + 1) * every
            self.spent = 0.0  # seconds spent measuring, taken out of the wall time
            self.t0 = time.time()
            self.offset = writer.wall_offset()  # a resumed run: the earlier segments' training time

        def _measure(self) -> None:
            t = time.time()
            measure(int(self.model.num_timesteps), self.offset + t - self.t0 - self.spent)
            self.spent += time.time() - t

        def _on_training_start(self) -> None:
            self.t0 = time.time()
            self._measure()

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next_at:
                self.next_at += every
                self._measure()
            return True

        def _on_training_end(self) -> None:
            self._measure()

    return EvalCurve()


def measure_dagger_run(out: Path, curve: dict[str, Any] | None = None) -> Path:
    """Measure the curve of a finished DAgger run without PPO after the fact (``out``: its ``--out``
    folder): each round's policy from ``work/dagger/iter_<k>/``, the points the run would have measured
    with ``curve`` (None: the run's own ``curve`` settings), written to ``work/curve.csv`` and
    ``model/curve.csv``, and their last points into ``model/run.json``'s ``curve``."""
    import dataclasses
    import json
    import shutil

    from kabu_envs.training.config import Curve, load_run_config

    model = out / "model"
    record = json.loads((model / "run.json").read_text())
    cfg = load_run_config(model / "run.json")
    if curve is not None:
        cfg = dataclasses.replace(cfg, curve=Curve(**(dataclasses.asdict(cfg.curve) | curve)))
    rounds = (record.get("bc") or {}).get("dagger")
    if cfg.timesteps or not rounds:
        raise ValueError(f"{out}: not a DAgger run without PPO (its curve is measured during PPO)")
    if not cfg.curve.opponents or cfg.curve.deals < 2:
        raise ValueError(f"give the curve's opponents and deals (>= 2), got {dataclasses.asdict(cfg.curve)}")
    writer = CurveWriter(out / "work" / "curve.csv")
    for k, r in enumerate(rounds):  # a continued run (init_from) starts at iteration 1
        policy_dir = out / "work" / "dagger" / f"iter_{r['iteration']}"
        round_point(cfg, writer, record["seed"], policy_dir, rounds[: k + 1])
    shutil.copyfile(writer.path, model / "curve.csv")
    record["curve"] = last_points(model / "curve.csv")
    record["curve_settings"] = dataclasses.asdict(cfg.curve)
    (model / "run.json").write_text(json.dumps(record, indent=2) + "\n")
    return model / "curve.csv"


def measure_ensemble(model: Path, curve: dict[str, Any] | None = None) -> Path:
    """The curve of the ensemble in ``model`` (its model folder), written to ``model/curve.csv``: point
    k = 1..n plays its first k members together (k = 1: the first member alone; over the ensemble's views
    if it has any), x = their training
    samples (labelled decisions fitted plus PPO steps), wall = their runs' training seconds (labelling,
    fitting and PPO). Every point is played on the first member's table and deal seeds (its ``run.json``;
    ``curve`` None: its curve settings), so the first point is that member's own last curve point when
    the settings match."""
    import dataclasses

    from kabu_envs.agents.ensemble import member_records, read_ensemble
    from kabu_envs.training.config import Curve, load_run_config

    ens = read_ensemble(model)
    records = []
    for name, policy in member_records(model).items():  # a named member's run record is beside it
        run = policy.with_name("run.json")
        if not run.is_file():
            raise ValueError(f"{model}: member {name!r} has no run.json: its training cost is the curve's x")
        records.append((run, json.loads(run.read_text())))
    cfg, first = load_run_config(records[0][0]), records[0][1]
    settings = dataclasses.asdict(cfg.curve) | dict(first.get("curve_settings") or {}) | (curve or {})
    cfg = dataclasses.replace(cfg, curve=Curve(**settings))
    if not cfg.curve.opponents or cfg.curve.deals < 2:
        raise ValueError(f"give the curve's opponents and deals (>= 2), got {dataclasses.asdict(cfg.curve)}")
    out = model / "curve.csv"
    out.unlink(missing_ok=True)
    writer = CurveWriter(out)
    samples = wall = 0.0
    for k, (_, record) in enumerate(records, start=1):
        bc = record.get("bc") or {}
        samples += int(bc.get("decisions", 0)) + int(record.get("timesteps", 0))
        wall += sum(float(x) for x in (bc.get("collect_seconds", 0), bc.get("fit_seconds", 0)))
        wall += float(record.get("train_seconds", 0.0))
        writer.add(int(samples), wall, evaluate_point(cfg, _first_members(ens, k), int(first["seed"])))
    return out


def _first_members(ens: Any, k: int) -> Any:
    """The first ``k`` members of ``ens`` playing together (over its views): with its stages once they
    cover every stage of the split (a stage specialist joins last), else every member playing every
    stage; the first member alone, without views, is that member's policy file."""
    from kabu_envs.agents.ensemble import PolicyEnsemble
    from kabu_envs.agents.stages import StageSplit

    stages, chosen = None, None
    if ens.stages is not None:
        chosen = (ens.member_stages or (None,) * len(ens.names))[:k]
        names = StageSplit(ens.trained_for["game"], ens.stages, ens.trained_for["env_options"]).names
        covered = set(names) if None in chosen else {s for st in chosen if st for s in st}
        if covered == set(names):
            stages = ens.stages
        else:
            chosen = None
    if k == 1 and ens.views is None:  # it plays every stage (else the stages were dropped)
        return ens.members[0]
    return PolicyEnsemble(
        ens.members[:k], ens.names[:k], ens.training, views=ens.views, stages=stages, member_stages=chosen
    )


def last_points(path: Path) -> dict[str, dict[str, float]]:
    """Each opponent's last point (``run.json``'s ``curve``)."""
    curve = read_curve(path)
    return {opp: {k: c[k][-1] for k in ("samples", "mean", "lo", "hi")} for opp, c in curve.items()}


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m kabu_envs.training.curve",
        description="Measure the learning curve of a finished DAgger run without PPO, round by round, or "
        "of an ensemble, member by member.",
    )
    ap.add_argument(
        "out", type=Path, help="the run's --out folder (model/ and work/dagger/), or an ensemble's folder"
    )
    ap.add_argument("--opponents", nargs="+", help="the fixed references (default: the run's curve)")
    ap.add_argument("--deals", type=int, help="duplicate deals per point (default: the run's curve)")
    args = ap.parse_args(argv)
    over = {k: v for k, v in {"opponents": args.opponents, "deals": args.deals}.items() if v is not None}
    model = args.out / "model" if (args.out / "model").is_dir() else args.out
    from kabu_envs.agents.policy_file import ENSEMBLE_FORMAT, read_record

    try:
        record = read_record(model)[1]
        is_ensemble = isinstance(record, dict) and record.get("format") == ENSEMBLE_FORMAT
        wrote = (
            measure_ensemble(model, over or None)
            if is_ensemble
            else measure_dagger_run(args.out, over or None)
        )
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {wrote}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
