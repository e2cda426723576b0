"""DAgger (training/dagger.py): who acts, who labels, the aggregate, the run record and the config."""

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from kabu_envs.agents.registry import make_agent
from kabu_envs.training import dagger
from kabu_envs.training.config import load_config
from kabu_envs.training.run import save_policy, train

torch.set_num_threads(1)


def _cfg(**over):
    base = {
        "name": "ppo_kakeya_dagger_test",
        "game": "kakeya",
        "role": "partnership",
        "timesteps": 256,
        "n_envs": 1,
        "eval_deals": 0,
        "opponents": {"scripted": 1.0},
        "ppo": {"n_steps": 128, "batch_size": 64, "n_epochs": 1},
        "policy_kwargs": {"net_arch": [32]},
        "bc": {"teacher": "scripted", "steps": 120, "epochs": 2, "batch_size": 64},
        "dagger": {"iterations": 2, "steps": 80, "beta": 0.5, "workers": 1},
    }
    return load_config({**base, **over})


def _random_policy_dir(cfg, tmp_path):
    """A policy file of an untrained MaskablePPO: a learner that plays unlike the teacher."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from kabu_envs.training.run import build_pool, make_view

    vec = DummyVecEnv([lambda: make_view(cfg, build_pool(cfg, 0))])
    model = MaskablePPO("MlpPolicy", vec, seed=0, device="cpu", policy_kwargs={"net_arch": [32]})
    save_policy(model, cfg, tmp_path / "learner", 0)
    return str(tmp_path / "learner")


def test_teacher_labels_every_recorded_decision_and_forced_moves_are_skipped():
    cfg = _cfg()
    data = dagger.collect_mixture(cfg, None, 1.0, 150, seed=3)
    assert len(data) >= 150 and data.episodes >= 1
    assert data.masks.sum(1).min() >= 2  # only real choices are recorded
    teacher = make_agent("kakeya", "scripted", 0)  # deterministic: labels can be recomputed
    relabel = [teacher.act(o, m.astype(np.int8)) for o, m in zip(data.obs, data.masks, strict=True)]
    assert np.array_equal(relabel, data.actions)
    again = dagger.collect_mixture(cfg, None, 1.0, 150, seed=3)
    assert np.array_equal(again.obs, data.obs) and np.array_equal(again.returns, data.returns)


def test_the_learner_drives_when_beta_is_below_one(tmp_path):
    cfg = _cfg()
    learner_dir = _random_policy_dir(cfg, tmp_path)
    teacher_run = dagger.collect_mixture(cfg, learner_dir, 1.0, 200, seed=5)
    learner_run = dagger.collect_mixture(cfg, learner_dir, 0.0, 200, seed=5)
    # same deals and first state; then the learner's moves take the game elsewhere
    assert np.array_equal(teacher_run.obs[0], learner_run.obs[0])
    n = min(len(teacher_run), len(learner_run))
    assert not np.array_equal(teacher_run.obs[:n], learner_run.obs[:n])
    # the labels are still the teacher's, on the learner's states
    teacher = make_agent("kakeya", "scripted", 0)
    relabel = [
        teacher.act(o, m.astype(np.int8)) for o, m in zip(learner_run.obs, learner_run.masks, strict=True)
    ]
    assert np.array_equal(relabel, learner_run.actions)
    # the untrained learner disagrees with the teacher on many of the states it reaches
    learner = make_agent("kakeya", learner_dir, 0, role="partnership")
    own = [learner.act(o, m.astype(np.int8)) for o, m in zip(learner_run.obs, learner_run.masks, strict=True)]
    assert np.mean(np.asarray(own) == learner_run.actions) < 0.8


def test_parallel_collection_is_the_workers_shares_in_order():
    cfg = _cfg(dagger={"iterations": 1, "steps": 80, "beta": 0.5, "workers": 2})
    both = dagger.collect_parallel(cfg, None, 1.0, 100, seed=11)
    first = dagger.collect_mixture(cfg, None, 1.0, 50, seed=11)
    second = dagger.collect_mixture(cfg, None, 1.0, 50, seed=12)
    assert np.array_equal(both.obs, np.concatenate([first.obs, second.obs]))
    assert both.episodes == first.episodes + second.episodes


def test_train_runs_the_iterations_and_records_them(tmp_path):
    cfg = _cfg()
    record = train(cfg, out=tmp_path / "run", progress_bar=False)
    rows = record["bc"]["dagger"]
    assert [r["iteration"] for r in rows] == [0, 1, 2]
    assert [r["beta"] for r in rows] == [1.0, 0.5, 0.25]
    assert rows[0]["agreement_before_fit"] is None
    assert all(0.0 <= r["agreement_before_fit"] <= 1.0 for r in rows[1:])
    assert [r["aggregate"] for r in rows] == list(np.cumsum([r["decisions"] for r in rows]))
    assert rows[0]["decisions"] >= 120 and all(r["decisions"] >= 80 for r in rows[1:])
    assert record["bc"]["decisions"] == rows[-1]["aggregate"]
    kept = []
    for k in range(3):
        folder = tmp_path / "run" / "work" / "dagger" / f"iter_{k}"
        assert (folder / "policy.json").is_file()
        kept.append(dagger.load_demonstrations(folder / "decisions.npz"))
        assert len(kept[-1]) == rows[k]["decisions"] and kept[-1].episodes == rows[k]["episodes"]
        assert (
            kept[-1].masks.dtype == bool and kept[-1].masks[np.arange(len(kept[-1])), kept[-1].actions].all()
        )
    saved = json.loads((tmp_path / "run" / "model" / "run.json").read_text())
    assert saved["bc"]["dagger"] == rows and saved["config"]["dagger"]["iterations"] == 2


@pytest.mark.parametrize(
    ("dagger_cfg", "bc", "match"),
    [
        ({"iterations": -1}, {"teacher": "scripted"}, "dagger.iterations"),
        ({"iterations": 1, "steps": 0}, {"teacher": "scripted"}, "dagger.steps"),
        ({"iterations": 1, "workers": 0}, {"teacher": "scripted"}, "dagger.workers"),
        ({"iterations": 1, "beta": 1.5}, {"teacher": "scripted"}, "dagger.beta"),
        ({"iterations": 1}, {"teacher": None}, "needs a bc.teacher"),
        ({"iterations": 1, "typo": 3}, {"teacher": "scripted"}, r"unknown config key dagger\.'typo'"),
    ],
)
def test_bad_dagger_configs_are_refused(dagger_cfg, bc, match):
    with pytest.raises(ValueError, match=match):
        load_config(
            {"name": "ppo_x", "game": "kakeya", "role": "partnership", "bc": bc, "dagger": dagger_cfg}
        )


def test_a_dagger_run_is_reproduced_bit_for_bit_by_its_seed(tmp_path):
    """Same config and seed, same network: the collection, the teacher's labels and the fits are seeded
    (the ensemble's members and every preset's shipped model depend on it)."""
    cfg = _cfg(
        timesteps=0,
        dagger={"iterations": 1, "steps": 80, "beta": 0.5, "workers": 2},
        policy_kwargs={"net_arch": [32], "features": "cards"},
    )
    runs = [_untimed(train(cfg, out=tmp_path / f"run{k}", progress_bar=False)) for k in range(2)]
    assert runs[0] == runs[1]
    weights = [np.load(tmp_path / f"run{k}" / "model" / "policy.npz") for k in range(2)]
    assert sorted(weights[0].files) == sorted(weights[1].files)
    assert all(np.array_equal(weights[0][name], weights[1][name]) for name in weights[0].files)
    other = train(
        load_config({**cfg.to_dict(), "seed": cfg.seed + 1}), out=tmp_path / "other", progress_bar=False
    )
    assert _untimed(other) != runs[0]


def _untimed(record):
    """A run record's DAgger rows without their wall-clock seconds."""
    return [{k: v for k, v in row.items() if not k.endswith("_seconds")} for row in record["bc"]["dagger"]]


def test_collection_defaults_to_the_cores_and_runs_its_shares_on_at_most_that_many(monkeypatch):
    """dagger.workers (the shares: the decisions depend on it) defaults to numba's thread setting and is
    recorded; the shares run in at most that many processes (the deal pool: spawned, a share of the
    threads each), their results in the shares' order."""
    from concurrent.futures import ThreadPoolExecutor

    from kabu_envs.eval import parallel
    from kabu_envs.training.specialist import SpecialistConfig

    monkeypatch.setattr(parallel, "numba_threads", lambda: 3)
    cfg = load_config({k: v for k, v in _cfg().to_dict().items() if k != "dagger"})
    assert cfg.dagger.workers == 3 and cfg.to_dict()["dagger"]["workers"] == 3
    assert _cfg().dagger.workers == 1  # given: kept
    assert SpecialistConfig("s", "b", "i", "t", "x", "y").workers == 3
    asked = []

    def pool(workers):
        asked.append(workers)
        return ThreadPoolExecutor(workers)

    monkeypatch.setattr(parallel, "process_pool", pool)
    assert dagger.run_shares(lambda k: k * k, range(7)) == [k * k for k in range(7)]
    assert dagger.run_shares(str, [5, 6]) == ["5", "6"]
    assert asked == [3, 2]


def test_a_run_continues_another_runs_network_and_decisions(tmp_path):
    """init_from with DAgger: no cloning round, round 1's learner is init_from's policy, and
    dagger.aggregate joins the earlier run's labelled decisions (recorded with their SHA-256)."""
    import hashlib

    first = _cfg(timesteps=0, dagger={"iterations": 1, "steps": 80, "beta": 0.5, "workers": 1})
    train(first, out=tmp_path / "first", progress_bar=False)
    files = [str(tmp_path / "first" / "work" / "dagger" / f"iter_{k}" / "decisions.npz") for k in range(2)]
    earlier = [dagger.load_demonstrations(Path(f)) for f in files]
    cfg = _cfg(
        name="ppo_kakeya_dagger_more",
        timesteps=0,
        seed=5,
        init_from=str(tmp_path / "first" / "model"),
        dagger={
            "iterations": 1,
            "steps": 80,
            "beta": 0.5,
            "workers": 1,
            "refit": {"epochs": 1},
            "aggregate": files,
        },
    )
    record = train(cfg, out=tmp_path / "more", progress_bar=False)
    rows = record["bc"]["dagger"]
    assert [r["iteration"] for r in rows] == [1] and rows[0]["beta"] == 0.5
    assert rows[0]["aggregate"] == sum(len(e) for e in earlier) + rows[0]["decisions"]
    assert record["bc"]["init_from"] == cfg.init_from
    assert record["bc"]["aggregate"] == [
        {"path": f, "decisions": len(e), "sha256": hashlib.sha256(Path(f).read_bytes()).hexdigest()}
        for f, e in zip(files, earlier, strict=True)
    ]
    assert not (tmp_path / "more" / "work" / "dagger" / "iter_0").exists()  # nothing cloned again
    # round 1's learner was the first run's network: its agreement before the fit is that policy's own
    from kabu_envs.training.bc import agreement
    from kabu_envs.training.run import _new_model, feature_inputs_of

    new = dagger.load_demonstrations(tmp_path / "more" / "work" / "dagger" / "iter_1" / "decisions.npz")
    model = _new_model(cfg, _vec(cfg), 0, None)
    assert agreement(model.policy, new.with_inputs(feature_inputs_of(cfg))) == pytest.approx(
        rows[0]["agreement_before_fit"], abs=1e-4
    )


def _vec(cfg):
    from stable_baselines3.common.vec_env import DummyVecEnv

    from kabu_envs.training.run import build_pool, make_view

    return DummyVecEnv([lambda: make_view(cfg, build_pool(cfg, 0))])


@pytest.mark.parametrize(
    ("over", "match"),
    [
        ({"init_from": "ei2_kakeya"}, "bc and init_from exclude each other"),
        ({"dagger": {"aggregate": ["x.npz"]}}, "dagger.aggregate needs dagger.iterations"),
        ({"dagger": {"iterations": 1, "aggregate": "x.npz"}}, "dagger.aggregate' must be a list of strings"),
    ],
)
def test_bad_continuations_are_refused(over, match):
    with pytest.raises(ValueError, match=match):
        load_config(
            {"name": "ppo_x", "game": "kakeya", "role": "partnership", "bc": {"teacher": "scripted"}, **over}
        )


def test_a_missing_decisions_file_is_named(tmp_path):
    cfg = _cfg(timesteps=0, dagger={"iterations": 1, "aggregate": [str(tmp_path / "gone.npz")]})
    with pytest.raises(ValueError, match="no decisions file .*gone.npz"):
        train(cfg, out=tmp_path / "run", progress_bar=False)
