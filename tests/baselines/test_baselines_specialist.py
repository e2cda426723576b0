"""Stage specialists (training/specialist.py): the decisions collected are the stage's, labelled by the
teacher; the same seed gives the same decisions whatever the number of processes asked to run them;
the run writes a policy file for the base's table with its record; bad settings are refused."""

import json
import shutil

import numpy as np
import pytest

from kabu_envs.agents.ensemble import read_model
from kabu_envs.agents.policy_file import read_policy
from kabu_envs.agents.registry import SHIPPED_MODELS, make_agent
from kabu_envs.agents.stages import StageSplit
from kabu_envs.training.specialist import SpecialistConfig, collect_worker, main

CFG = SpecialistConfig(
    "spec", "ei_kakeya", "ei_kakeya", "scripted", "endgame", "endgame", deals=24, workers=2, chunk=8, epochs=1
)


def test_the_decisions_are_the_stages_labelled_by_the_teacher():
    data = collect_worker(CFG, 0)
    assert 60 < len(data) <= 12 * 4 * 3 and data.values is None  # 12 deals, 4 seats, hands 4..2
    split = StageSplit("kakeya", "endgame", {})
    assert (split.of(data.obs) == 1).all() and (data.masks.sum(1) > 1).all()
    teacher = make_agent("kakeya", "scripted", 0)
    for o, m, a in zip(data.obs, data.masks, data.actions, strict=True):
        assert m[a] and teacher.act(o, m.astype(np.int8)) == a
    again = collect_worker(CFG, 0)
    assert np.array_equal(again.obs, data.obs) and np.array_equal(again.actions, data.actions)
    other = collect_worker(CFG, 1)  # worker 1 plays other deals
    assert len(other) != len(data) or not np.array_equal(other.obs, data.obs)


def test_a_valuing_teacher_gives_its_values():
    cfg = SpecialistConfig(
        "spec", "ei_kakeya", "ei_kakeya", "expert:samples=16", "endgame", "endgame", deals=4, workers=1
    )
    data = collect_worker(cfg, 0)
    assert data.values is not None and data.values.shape == data.masks.shape
    valued = np.where(data.masks, data.values, np.nan)
    rows = np.isfinite(valued).any(axis=1)
    assert rows.sum() > len(data) // 2
    chosen = valued[rows][np.arange(int(rows.sum())), data.actions[rows]]
    best = np.nanmax(valued[rows], axis=1)
    assert (chosen >= best - 1e-9).all()  # the search plays a best-valued card (of tied ones, its pick)


def test_the_run_writes_a_policy_for_the_base_table_with_its_record(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    models = tmp_path / "models"
    models.mkdir()
    shutil.copytree(SHIPPED_MODELS / "ei_kakeya", models / "ei_kakeya")
    monkeypatch.setenv("KABU_MODELS_DIR", str(models))
    args = ["spec", "--base", "ei_kakeya", "--init", "ei_kakeya", "--teacher", "scripted"]
    args += ["--stages", "endgame", "--stage", "endgame", "--deals", "24", "--workers", "1", "--chunk", "8"]
    assert main([*args, "--epochs", "1", "--out", str(tmp_path / "run"), "--publish"]) == 0
    out = json.loads(capsys.readouterr().out)
    record = json.loads((tmp_path / "run" / "model" / "run.json").read_text())
    assert record["config"]["teacher"] == "scripted" and record["bc"]["decisions"] == out["decisions"] > 60
    assert record["command"].startswith("python -m kabu_envs.training.specialist")
    assert {"kabu-envs", "torch", "numpy"} <= set(record["versions"])
    policy = read_policy(tmp_path / "run" / "model")
    assert policy.training["name"] == "spec"
    assert policy.trained_for == read_policy(models / "ei_kakeya").trained_for
    # what it trained on, in both records (env id with its version, resolved rules, package, commit)
    assert policy.training["env_id"] == record["provenance"]["env_id"] == "kabu_envs/Kakeya-v2"
    assert policy.training["rule_options"] == record["provenance"]["rule_options"]
    assert record["provenance"]["rule_options"]["rensho_rule"] == "seed"
    assert read_model(models / "spec").training["name"] == "spec"  # published
    saved = np.load(tmp_path / "run" / "work" / "decisions.npz", allow_pickle=False)
    assert len(saved["actions"]) == out["decisions"]
    from kabu_envs.training.specialist import decisions_sha256

    first = collect_worker(SpecialistConfig(**record["config"] | {"deals": 8}), 0)
    assert record["bc"]["first_chunk"] == {"decisions": len(first), "sha256": decisions_sha256(first)}
    # the fit moved the network towards the teacher on the stage's decisions
    assert out["holdout_agreement"] >= out["holdout_agreement_before"] - 0.05


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"deals": 0}, "deals must be >= 1"),
        ({"beta": 1.5}, "beta must be in [0, 1]"),
        ({"stages": "late"}, "unknown policy stages 'late'"),
        ({"stage": "end"}, "no stage 'end'"),
        ({"base": "nope"}, "no model found"),
        ({"temperature": -1}, "temperature must be >= 0"),
        ({"temperature": 0.1}, "needs demonstrations with the teacher's action values"),  # scripted: none
    ],
)
def test_bad_settings_are_refused(change, message, tmp_path, capsys):
    base = ["spec", "--base", "ei_kakeya", "--init", "ei_kakeya", "--teacher", "scripted"]
    opts = {"stages": "endgame", "stage": "endgame", "deals": 4} | change
    for k, v in opts.items():
        if k == "base":
            base[2] = str(v)
            continue
        base += [f"--{k}", str(v)]
    assert main([*base, "--out", str(tmp_path / "r")]) == 2
    assert message in capsys.readouterr().err or pytest.fail(message)
