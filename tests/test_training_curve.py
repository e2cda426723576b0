"""The evaluation curve of a training run (training/curve.py) and its plot."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
import torch
import yaml

from kabu_envs.eval.curve_file import read_curve
from kabu_envs.eval.plots import learning_curves, rolling
from kabu_envs.training import curve as curve_mod
from kabu_envs.training.config import load_config
from kabu_envs.training.curve import CurveWriter
from kabu_envs.training.run import train

torch.set_num_threads(1)


@pytest.mark.parametrize(
    "curve, message",
    [
        ({"every": -1}, "curve.every"),
        ({"every": True}, "curve.every"),
        ({"every": 100, "deals": 1}, "curve.deals"),
        ({"every": 100, "opponents": []}, "curve.opponents"),
        ({"every": 100, "opponents": ["nobody"]}, "unknown curve opponent 'nobody'"),
    ],
)
def test_bad_curve_settings_are_refused(curve, message):
    with pytest.raises(ValueError, match=message):
        load_config("ppo_toy_card", curve=curve)


def test_a_run_measures_its_curve_on_the_same_deals(tmp_path):
    curve = {"every": 256, "deals": 40, "opponents": ["random", "scripted"]}
    cfg = load_config("ppo_toy_card", timesteps=512, eval_deals=0, checkpoint_every=10_000, curve=curve)
    record = train(cfg, out=tmp_path / "run", progress_bar=False)
    points = read_curve(tmp_path / "run" / "model" / "curve.csv")
    assert set(points) == {"random", "scripted"}
    for c in points.values():
        # the start (after the warm start), every 256 samples, the end; in sample order
        assert c["samples"][0] == 0 and c["samples"][-1] == record["timesteps"]
        assert c["samples"] == sorted(set(c["samples"])) and 256 in c["samples"]
        assert all(lo <= m <= hi for m, lo, hi in zip(c["mean"], c["lo"], c["hi"], strict=True))
        assert c["wall_seconds"] == sorted(c["wall_seconds"])
    run = json.loads((tmp_path / "run" / "model" / "run.json").read_text())
    assert run["curve"]["random"]["samples"] == record["timesteps"]
    assert run["curve"]["scripted"]["mean"] == points["scripted"]["mean"][-1]


def test_the_curves_deals_are_common_to_every_point(tmp_path):
    """Two points of the same policy give the same numbers: only the policy changes between points."""
    from kabu_envs.agents.policy_file import read_policy
    from kabu_envs.agents.registry import SHIPPED_MODELS
    from kabu_envs.training.curve import evaluate_point

    cfg = load_config("kakeya", curve={"every": 1, "deals": 6, "opponents": ["random"]})
    policy = read_policy(SHIPPED_MODELS / "ppo_kakeya" / "policy.json")
    assert evaluate_point(cfg, policy, seed=3) == evaluate_point(cfg, policy, seed=3)
    assert evaluate_point(cfg, policy, seed=3) != evaluate_point(cfg, policy, seed=4)


def test_the_writer_appends_and_skips_measured_points(tmp_path):
    w = CurveWriter(tmp_path / "curve.csv")
    assert w.done_at() == set()
    w.add(0, 0.0, [{"opponent": "x", "deals": 2, "mean": 0.5, "lo": 0.0, "hi": 1.0}])
    w.add(10, 1.5, [{"opponent": "x", "deals": 2, "mean": 0.7, "lo": 0.2, "hi": 1.2}])
    assert w.done_at() == {0, 10}
    assert read_curve(tmp_path / "curve.csv")["x"]["mean"] == [0.5, 0.7]
    assert w.wall_offset() == 1.5  # where a resumed run's clock goes on from


def test_a_resumed_segment_that_restarted_its_clock_is_read_as_running_on(tmp_path):
    w = CurveWriter(tmp_path / "curve.csv")
    row = {"opponent": "x", "deals": 2, "mean": 0.0, "lo": -1.0, "hi": 1.0}
    for samples, wall in [(0, 0.0), (10, 4.0), (20, 8.0), (30, 3.0), (40, 6.0), (50, 2.0)]:
        w.add(samples, wall, [row])  # two resumptions, each restarting at 0 (older files)
    assert read_curve(tmp_path / "curve.csv")["x"]["wall_seconds"] == [0.0, 4.0, 8.0, 11.0, 14.0, 16.0]


def test_rolling_mean_and_band():
    y = np.array([1.0, 3.0, 5.0, 7.0])
    m, h = rolling(y, 2)
    assert m.tolist() == [1.0, 2.0, 4.0, 6.0]
    assert h[0] == 0.0 and h[1] == pytest.approx(1.96 * np.std([1.0, 3.0], ddof=1) / np.sqrt(2))


def test_learning_curves_draw_runs_with_and_without_a_curve(tmp_path):
    run = tmp_path / "with"
    run.mkdir()
    (run / "progress.csv").write_text("time/total_timesteps,rollout/ep_rew_mean\n100,0.1\n200,0.3\n300,0.2\n")
    w = CurveWriter(run / "curve.csv")
    for s in (0, 150, 300):
        w.add(s, s / 10, [{"opponent": "scripted", "deals": 9, "mean": s / 1000, "lo": -0.1, "hi": 0.5}])
    old = tmp_path / "without"
    old.mkdir()
    (old / "progress.csv").write_text("time/total_timesteps,rollout/ep_rew_mean\n100,0.1\n200,0.2\n")
    out = learning_curves({"with": run, "without": old}, tmp_path / "lc.png")
    assert out is not None and out.stat().st_size > 10_000
    assert learning_curves({"none": tmp_path / "missing"}, tmp_path / "x.png") is None


def _run_with_curve(root, name, points):
    model = root / name / "model"
    model.mkdir(parents=True)
    w = CurveWriter(model / "curve.csv")
    for s, mean, lo, hi in points:
        w.add(s, s / 100, [{"opponent": "expert", "deals": 9, "mean": mean, "lo": lo, "hi": hi}])
    return root / name


def test_curves_compare_runs_against_a_reference(tmp_path, capsys):
    from kabu_envs.training import curves

    a = _run_with_curve(
        tmp_path, "s1", [(0, -1.0, -1.2, -0.8), (100, -0.1, -0.3, 0.05), (200, 0.0, -0.1, 0.1)]
    )
    # a noisy first point touching 0 is not "reached": the run must stay level to the end
    b = _run_with_curve(tmp_path, "s2", [(0, -0.4, -0.9, 0.1), (100, -0.5, -0.7, -0.3)])
    c = _run_with_curve(
        tmp_path, "s3", [(0, -0.4, -0.9, 0.1), (100, -0.5, -0.7, -0.3), (200, 0.1, -0.2, 0.4)]
    )
    got = curves.load([a, b, c], "expert")
    assert [c.reached_at for c in got] == [100, None, 200]
    assert got[0].reached_wall == 1.0
    text = curves.table(got, "expert")
    assert "| s1 | 100 | 0.0 min | 200 | +0.000 | [−0.100, +0.100] |" in text
    assert "| s2 | not reached |" in text
    assert curves.main([str(a), str(b), "--opponent", "expert", "--out", str(tmp_path / "c.png")]) == 0
    assert (tmp_path / "c.png").stat().st_size > 5_000
    with pytest.raises(ValueError, match="no curve against 'scripted'"):
        curves.load([a], "scripted")
    with pytest.raises(ValueError, match="no curve.csv"):
        curves.load([tmp_path], "expert")


def test_a_resumed_run_writes_its_clock_on_from_the_first_segment(tmp_path):
    from kabu_envs.eval.curve_file import read_rows

    curve = {"every": 256, "deals": 10, "opponents": ["random"]}
    cfg = load_config("ppo_toy_card", timesteps=512, eval_deals=0, checkpoint_every=256, curve=curve)
    train(cfg, out=tmp_path / "run", progress_bar=False)
    first = read_rows(tmp_path / "run" / "work" / "curve.csv")
    end_of_first = max(float(r["wall_seconds"]) for r in first)
    train(dataclasses.replace(cfg, timesteps=1024), out=tmp_path / "run", progress_bar=False, resume=True)
    rows = read_rows(tmp_path / "run" / "work" / "curve.csv")
    later = [float(r["wall_seconds"]) for r in rows[len(first) :]]
    assert later and min(later) >= end_of_first  # the raw file itself runs on, no restart at 0


def test_resume_may_change_how_often_the_curve_is_measured_but_not_how_to_train(tmp_path, capsys):
    from kabu_envs.eval.curve_file import read_rows
    from kabu_envs.training.__main__ import main

    curve = {"every": 256, "deals": 10, "opponents": ["random"]}
    cfg = load_config("ppo_toy_card", timesteps=512, eval_deals=0, checkpoint_every=256, curve=curve)
    out = tmp_path / "run"
    train(cfg, out=out, progress_bar=False)
    first = len(read_rows(out / "work" / "curve.csv"))
    config_file = tmp_path / "c.yaml"
    config_file.write_text(yaml.safe_dump(cfg.to_dict()))
    args = [str(config_file), "--out", str(out), "--resume", "--no-progress"]
    assert main([*args, "--timesteps", "1536", "--curve-every", "512"]) == 0
    rows = read_rows(out / "work" / "curve.csv")
    later = sorted({int(float(r["samples"])) for r in rows[first:]})
    assert later and all(s % 512 == 0 or s == later[-1] for s in later)  # every 512 now, not every 256
    assert json.loads((out / "work" / "config.json").read_text())["curve"]["every"] == 512
    bad = {**cfg.to_dict(), "ppo": {**cfg.ppo.kwargs(), "learning_rate": 0.5}}
    config_file.write_text(yaml.safe_dump(bad))
    capsys.readouterr()
    assert main([*args, "--timesteps", "2048"]) == 2  # the training itself may not change: one line
    err = capsys.readouterr().err.strip()
    assert err.startswith("kabu-train: error: --resume with a different config") and "'ppo'" in err


def test_a_run_without_ppo_measures_its_curve_round_by_round_and_after_the_fact(tmp_path):
    """A DAgger clone (timesteps 0) has a point after each round, x = the labelled decisions fitted so far;
    ``python -m kabu_envs.training.curve OUT`` measures the same points from a finished run's rounds."""
    base = {
        "name": "clone_toy",
        "game": "kakeya",
        "role": "partnership",
        "timesteps": 0,
        "eval_deals": 0,
        "opponents": {"scripted": 1.0},
        "policy_kwargs": {"net_arch": [16]},
        "bc": {"teacher": "scripted", "steps": 60, "epochs": 1, "batch_size": 32},
        "dagger": {"iterations": 2, "steps": 40, "beta": 0.5, "workers": 1},
    }
    on = {"every": 1, "deals": 6, "opponents": ["random", "scripted"]}
    record = train(load_config({**base, "curve": on}), out=tmp_path / "live", progress_bar=False)
    rounds = record["bc"]["dagger"]
    points = read_curve(tmp_path / "live" / "model" / "curve.csv")
    assert set(points) == {"random", "scripted"}
    assert points["random"]["samples"] == [r["aggregate"] for r in rounds]  # one point per round
    walls = np.cumsum([r["collect_seconds"] + r["fit_seconds"] for r in rounds])
    assert points["random"]["wall_seconds"] == pytest.approx(walls.tolist(), abs=0.2)
    run = json.loads((tmp_path / "live" / "model" / "run.json").read_text())
    assert run["curve"]["scripted"]["samples"] == rounds[-1]["aggregate"]
    # the same run without a curve, measured afterwards with the same settings: the same points
    train(load_config(base), out=tmp_path / "later", progress_bar=False)
    assert not (tmp_path / "later" / "model" / "curve.csv").exists()
    assert curve_mod.main([str(tmp_path / "later"), "--opponents", "random", "scripted", "--deals", "6"]) == 0
    after = read_curve(tmp_path / "later" / "model" / "curve.csv")
    for opp in ("random", "scripted"):
        assert after[opp]["mean"] == points[opp]["mean"] and after[opp]["samples"] == points[opp]["samples"]
    later = json.loads((tmp_path / "later" / "model" / "run.json").read_text())
    assert later["curve_settings"] == {"every": 0, "deals": 6, "opponents": ["random", "scripted"]}
    assert later["curve"]["random"]["mean"] == after["random"]["mean"][-1]
    assert learning_curves({"clone": tmp_path / "later" / "model"}, tmp_path / "lc.png") is not None
    ppo_run = _ppo_run(tmp_path)
    with pytest.raises(ValueError, match="not a DAgger run without PPO"):
        curve_mod.measure_dagger_run(ppo_run, {"deals": 6, "opponents": ["random"]})


def _ppo_run(tmp_path):
    cfg = load_config("ppo_toy_card", timesteps=128, eval_deals=0, checkpoint_every=10_000)
    train(cfg, out=tmp_path / "ppo", progress_bar=False)
    return tmp_path / "ppo"


def test_an_ensemble_curve_adds_its_members_one_by_one(tmp_path, capsys):
    """x = the members' training samples so far, each point on the first member's deal seeds: the first
    point is that member alone, the last the whole ensemble (as evaluate_point gives them)."""
    import shutil

    from kabu_envs.agents.ensemble import read_ensemble
    from kabu_envs.agents.registry import SHIPPED_MODELS
    from kabu_envs.training.config import Curve, load_run_config
    from kabu_envs.training.ensemble import main as ensemble_main

    copied = [str(SHIPPED_MODELS / m) for m in ("ei2_kakeya", "ei_kakeya")]  # given by path: copied
    assert ensemble_main(["pair", *copied, "--out", str(tmp_path / "pair")]) == 0
    ens_dir = tmp_path / "ens"
    shutil.copytree(tmp_path / "pair" / "model", ens_dir)
    ens = read_ensemble(ens_dir)
    assert curve_mod.main([str(ens_dir), "--opponents", "random", "scripted", "--deals", "6"]) == 0
    points = read_curve(ens_dir / "curve.csv")
    runs = [json.loads((ens_dir / "members" / n / "run.json").read_text()) for n in ens.names]
    assert points["random"]["samples"] == np.cumsum([r["bc"]["decisions"] for r in runs]).tolist()
    walls = np.cumsum([r["bc"]["collect_seconds"] + r["bc"]["fit_seconds"] for r in runs]).tolist()
    assert all(r["train_seconds"] == 0 for r in runs) and np.all(np.diff(walls) > 0)
    assert points["scripted"]["wall_seconds"] == pytest.approx(walls, abs=0.1)
    first = ens_dir / "members" / ens.names[0] / "run.json"
    cfg = dataclasses.replace(load_run_config(first), curve=Curve(0, 6, ["random", "scripted"]))
    alone = curve_mod.evaluate_point(cfg, ens.members[0], runs[0]["seed"])
    whole = curve_mod.evaluate_point(cfg, ens, runs[0]["seed"])
    for k, rows in ((0, alone), (-1, whole)):
        assert [points[r["opponent"]]["mean"][k] for r in rows] == [r["mean"] for r in rows]
    assert learning_curves({"ens": ens_dir}, tmp_path / "lc.png") is not None
    (ens_dir / "members" / ens.names[-1] / "run.json").unlink()
    assert curve_mod.main([str(ens_dir), "--deals", "6"]) == 2
    assert f"member {ens.names[-1]!r} has no run.json" in capsys.readouterr().err


def test_a_views_ensemble_curve_plays_its_members_over_the_views(tmp_path):
    from kabu_envs.agents.ensemble import member_records, read_ensemble
    from kabu_envs.training.config import Curve, load_run_config
    from kabu_envs.training.ensemble import main as ensemble_main

    assert ensemble_main(["v", "ei2_kakeya", "--views", "suit_rotations", "--out", str(tmp_path / "v")]) == 0
    model = tmp_path / "v" / "model"
    assert curve_mod.main([str(tmp_path / "v"), "--opponents", "random", "--deals", "6"]) == 0
    points = read_curve(model / "curve.csv")
    ens = read_ensemble(model)
    assert not (model / "members").exists()  # a member named by a model's name: its run record is the model's
    run = member_records(model)["ei2_kakeya"].with_name("run.json")
    cfg = dataclasses.replace(load_run_config(run), curve=Curve(0, 6, ["random"]))
    seed = json.loads(run.read_text())["seed"]
    assert points["random"]["mean"] == [curve_mod.evaluate_point(cfg, ens, seed)[0]["mean"]]


def test_a_continued_run_measures_its_curve_from_its_own_rounds(tmp_path):
    """A run that continues another (init_from, dagger.aggregate) has no round 0: its points are its own
    rounds' policies, x = the aggregate including the earlier run's decisions."""
    base = {
        "name": "clone_toy",
        "game": "kakeya",
        "role": "partnership",
        "timesteps": 0,
        "eval_deals": 0,
        "opponents": {"scripted": 1.0},
        "policy_kwargs": {"net_arch": [16]},
        "bc": {"teacher": "scripted", "steps": 60, "epochs": 1, "batch_size": 32},
        "dagger": {"iterations": 1, "steps": 40, "beta": 0.5, "workers": 1},
    }
    train(load_config(base), out=tmp_path / "first", progress_bar=False)
    files = [str(tmp_path / "first" / "work" / "dagger" / f"iter_{k}" / "decisions.npz") for k in range(2)]
    more = {
        **base,
        "name": "clone_toy_more",
        "init_from": str(tmp_path / "first" / "model"),
        "dagger": {"iterations": 2, "steps": 40, "beta": 0.5, "workers": 1, "aggregate": files},
    }
    record = train(load_config(more), out=tmp_path / "more", progress_bar=False)
    rounds = record["bc"]["dagger"]
    assert [r["iteration"] for r in rounds] == [1, 2]
    assert curve_mod.main([str(tmp_path / "more"), "--opponents", "random", "--deals", "6"]) == 0
    points = read_curve(tmp_path / "more" / "model" / "curve.csv")
    assert points["random"]["samples"] == [r["aggregate"] for r in rounds]
