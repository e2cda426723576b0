"""The study's clone recipe in the training code (issue #27 item 3): the cosine learning rate, the
held-out best epoch, DAgger's per-round table and its own refit settings, a run without PPO, and the
``kakeya_ei`` preset that replays it all."""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from kabu_envs.toy_card.agents import ScriptedAgent as ToyScriptedAgent
from kabu_envs.training import bc as bc_module
from kabu_envs.training import dagger
from kabu_envs.training.bc import Demonstrations, collect, fit, holdout_rows
from kabu_envs.training.config import load_config
from kabu_envs.training.run import train

torch.set_num_threads(1)


def _toy_data(toy_view, steps=400):
    view = toy_view(num_players=2, learner_seats=[0, 1], opponents="random", seed=1)
    return view, collect(view, ToyScriptedAgent(), steps, seed=2)


def _model(view, seed=0):
    from sb3_contrib import MaskablePPO

    return MaskablePPO("MlpPolicy", view, seed=seed, device="cpu", policy_kwargs={"net_arch": [16]})


def _weights(model):
    return [p.detach().clone() for p in model.policy.parameters()]


def _rows(data, rows):
    return Demonstrations(
        data.obs[rows], data.masks[rows], data.actions[rows], data.returns[rows], data.episodes
    )


def test_cosine_decay_takes_the_rate_from_lr_down_to_zero(toy_view, monkeypatch):
    view, data = _toy_data(toy_view)
    seen: dict[str, list[float]] = {"none": [], "cosine": []}
    step = torch.optim.Adam.step
    for decay in seen:

        def record(self, *a, _decay=decay, **k):
            seen[_decay].append(self.param_groups[0]["lr"])
            return step(self, *a, **k)

        monkeypatch.setattr(torch.optim.Adam, "step", record)
        fit(_model(view).policy, data, 2, 0.01, 64, 0.5, 0, lr_decay=decay)
    n = 2 * -(-len(data) // 64)
    assert seen["none"] == [0.01] * n
    assert len(seen["cosine"]) == n and seen["cosine"][0] == 0.01
    assert np.all(np.diff(seen["cosine"]) < 0)  # falls at every step
    expected = [0.01 * 0.5 * (1 + np.cos(np.pi * s / n)) for s in range(n)]
    assert np.allclose(seen["cosine"], expected) and seen["cosine"][-1] < 0.01 * 0.02
    with pytest.raises(ValueError, match="lr_decay must be 'none' or 'cosine', got 'linear'"):
        fit(_model(view).policy, data, 1, 0.01, 64, 0.5, 0, lr_decay="linear")


def test_holdout_rows_are_the_end_of_each_batch():
    rows = holdout_rows([100, 50], 0.1)
    assert rows.dtype == bool and rows.size == 150
    assert np.flatnonzero(rows).tolist() == [*range(90, 100), *range(145, 150)]
    assert not holdout_rows([100], 0.0).any()
    with pytest.raises(ValueError, match="held-out share"):
        holdout_rows([10], 1.0)


def test_held_out_rows_are_never_fitted(toy_view):
    view, data = _toy_data(toy_view)
    held = holdout_rows([len(data)], 0.25)
    a, b = _model(view), _model(view)
    stats = fit(a.policy, data, 1, 3e-3, 64, 0.5, 7, heldout=held)
    fit(b.policy, _rows(data, ~held), 1, 3e-3, 64, 0.5, 7)  # the same fit on the other rows alone
    assert all(torch.equal(x, y) for x, y in zip(_weights(a), _weights(b), strict=True))
    assert stats["best_epoch"] == 0 and 0.0 <= stats["holdout_agreement"] <= 1.0


def test_the_epoch_that_agrees_best_on_the_held_out_rows_is_kept(toy_view, monkeypatch):
    view, data = _toy_data(toy_view)
    held = holdout_rows([len(data)], 0.25)
    real = bc_module.agreement
    scores = iter([0.5, 0.9, 0.3])  # the held-out agreement after epochs 0, 1, 2: epoch 1 is best

    def scripted(policy, d, rows=None):
        return next(scores) if rows is not None else real(policy, d, rows)

    monkeypatch.setattr(bc_module, "agreement", scripted)
    a, b = _model(view), _model(view)
    stats = fit(a.policy, data, 3, 3e-3, 64, 0.5, 7, heldout=held)
    monkeypatch.setattr(bc_module, "agreement", real)
    fit(b.policy, _rows(data, ~held), 2, 3e-3, 64, 0.5, 7)  # stops after epoch 1
    assert stats["best_epoch"] == 1 and stats["holdout_agreement"] == 0.9
    assert all(torch.equal(x, y) for x, y in zip(_weights(a), _weights(b), strict=True))


def _kakeya(**over):
    base = {
        "name": "ppo_kakeya_rounds_test",
        "game": "kakeya",
        "role": "partnership",
        "timesteps": 0,
        "n_envs": 1,
        "eval_deals": 0,
        "opponents": {"scripted": 1.0},
        "policy_kwargs": {"net_arch": [32]},
        "bc": {"teacher": "scripted", "steps": 100, "epochs": 2, "batch_size": 64},
        "dagger": {"iterations": 2, "steps": 60, "workers": 1},
    }
    return load_config({**base, **over})


def test_each_round_collects_at_its_own_table_and_refits_with_its_own_settings(tmp_path, monkeypatch):
    rounds = [{"steps": 70, "beta": 1.0, "opponents": {"random": 1.0}}, {"beta": 0.0}]
    cfg = _kakeya(
        dagger={
            "iterations": 2,
            "steps": 60,
            "workers": 1,
            "rounds": rounds,
            "refit": {"epochs": 1, "lr": 5e-4},
        }
    )
    fits = []
    real_fit = bc_module.fit

    def spy(policy, data, epochs, lr, *rest):
        fits.append((len(data), epochs, lr))
        return real_fit(policy, data, epochs, lr, *rest)

    monkeypatch.setattr(bc_module, "fit", spy)
    record = train(cfg, out=tmp_path / "run", progress_bar=False)
    rows = record["bc"]["dagger"]
    assert [r["beta"] for r in rows] == [1.0, 1.0, 0.0]
    assert (
        rows[1]["opponents"] == {"random": 1.0} and "opponents" not in rows[0] and "opponents" not in rows[2]
    )
    assert 70 <= rows[1]["decisions"] < 100 and 60 <= rows[2]["decisions"] < 90
    # the first fit is bc's (2 epochs, lr 0.001), the refits dagger.refit's
    assert [f[1:] for f in fits] == [(2, 0.001), (1, 5e-4), (1, 5e-4)]
    assert [f[0] for f in fits] == [r["aggregate"] for r in rows]
    # round 1 is the teacher alone (beta 1) against random: what that table gives with the round's seed
    got = dagger.load_demonstrations(tmp_path / "run" / "work" / "dagger" / "iter_1" / "decisions.npz")
    seed = cfg.seed + 501 + 7_919
    there = dagger.collect_mixture(dataclasses.replace(cfg, opponents={"random": 1.0}), None, 1.0, 70, seed)
    here = dagger.collect_mixture(cfg, None, 1.0, 70, seed)
    assert np.array_equal(got.obs, there.obs) and not np.array_equal(
        got.obs[: len(here)], here.obs[: len(got)]
    )
    saved = json.loads((tmp_path / "run" / "model" / "run.json").read_text())
    assert saved["config"]["dagger"]["rounds"][0] == rounds[0]
    assert saved["config"]["dagger"]["refit"] == {"epochs": 1, "lr": 5e-4}


def test_timesteps_zero_means_no_ppo_the_clone_is_the_model(tmp_path):
    bc = {"teacher": "scripted", "steps": 100, "epochs": 2, "batch_size": 64, "holdout": 0.1}
    record = train(_kakeya(bc=bc, dagger={"iterations": 0}), out=tmp_path / "run", progress_bar=False)
    assert record["timesteps"] == 0 and record["bc"]["decisions"] >= 100
    assert record["bc"]["best_epoch"] in (0, 1)  # plain behaviour cloning holds rows out too
    model = np.load(tmp_path / "run" / "model" / "policy.npz")
    clone = np.load(tmp_path / "run" / "work" / "bc_policy" / "policy.npz")
    assert model.files == clone.files and all(np.array_equal(model[k], clone[k]) for k in model.files)
    with pytest.raises(ValueError, match="timesteps 0 = no PPO, only with a bc.teacher"):
        load_config("ppo_toy_card", timesteps=0)


@pytest.mark.parametrize(
    ("over", "match"),
    [
        ({"bc": {"teacher": "scripted", "lr_decay": "linear"}}, "bc.lr_decay must be one of"),
        ({"bc": {"teacher": "scripted", "holdout": 0.5}}, r"bc.holdout must be a share in \[0, 0.5\)"),
        ({"bc": {"teacher": "scripted", "holdout": "some"}}, "config key 'bc.holdout' must be a number"),
        (
            {"dagger": {"iterations": 2, "rounds": [{}]}},
            "dagger.rounds lists 1 rounds but dagger.iterations is 2",
        ),
        ({"dagger": {"iterations": 1, "rounds": {"steps": 5}}}, "config key 'dagger.rounds' must be a list"),
        (
            {"dagger": {"iterations": 1, "rounds": [{"step": 5}]}},
            r"unknown config key dagger\.rounds\[0\]\.'step'",
        ),
        (
            {"dagger": {"iterations": 1, "rounds": [{"steps": "5"}]}},
            r"'dagger.rounds\[0\].steps' must be an integer",
        ),
        (
            {"dagger": {"iterations": 1, "rounds": [{"steps": 0}]}},
            r"dagger.rounds\[0\].steps must be a positive",
        ),
        (
            {"dagger": {"iterations": 1, "rounds": [{"beta": 2}]}},
            r"dagger.rounds\[0\].beta must be a number in",
        ),
        (
            {"dagger": {"iterations": 1, "rounds": [{"opponents": {"oracle": 1}}]}},
            r"unknown opponent 'oracle' in dagger",
        ),
        (
            {"dagger": {"iterations": 1, "rounds": [{"opponents": {"random": 0}}]}},
            "needs an opponent with a positive",
        ),
        ({"dagger": {"iterations": 1, "refit": {"epochs": 0}}}, "dagger.refit.epochs must be a positive"),
        ({"dagger": {"iterations": 1, "refit": {"lr": 0}}}, "dagger.refit.lr must be a positive"),
        ({"dagger": {"iterations": 1, "refit": {"lrate": 1}}}, r"unknown config key dagger\.refit\.'lrate'"),
        ({"dagger": {"iterations": 1, "refit": 4}}, "config key 'dagger.refit' must be a mapping"),
    ],
)
def test_bad_recipe_keys_are_refused_naming_the_key(over, match):
    base = {"name": "ppo_x", "game": "kakeya", "role": "partnership", "bc": {"teacher": "scripted"}}
    with pytest.raises(ValueError, match=match):
        load_config({**base, **over})


def test_the_kakeya_ei_preset_is_the_studys_recipe():
    cfg = load_config("kakeya_ei")
    assert cfg.name == "ei_kakeya" and cfg.seed == 3 and cfg.timesteps == 0
    assert cfg.policy_kwargs.net_arch == [512, 512]
    assert cfg.opponents == {"scripted": 0.87, "expert_0_2": 0.03, "random": 0.05}  # kakeya.yaml's table
    b = cfg.bc
    assert (b.teacher, b.steps, b.epochs, b.lr, b.batch_size, b.smoothing) == (
        "expert_0_3",  # (the search its shipped model's record calls "expert")
        600_000,
        8,
        0.001,
        512,
        0.05,
    )
    assert (b.lr_decay, b.holdout, b.temperature) == ("cosine", 0.03, 0.0)
    experts = {"expert_0_2": 0.5, "expert_0_3": 0.5}
    sched = [(r.steps, r.beta, r.opponents) for r in cfg.dagger.schedule(cfg.opponents)]
    assert sched == [(300_000, 0.5, cfg.opponents), (250_000, 0.25, experts), (200_000, 0.125, experts)]
    assert (cfg.dagger.refit.epochs, cfg.dagger.refit.lr, cfg.dagger.workers) == (4, 0.0005, 2)
    assert load_config(cfg.to_dict()) == cfg


def test_the_kakeya_ei_preset_runs_every_stage_scaled_down(tmp_path):
    """The whole preset at a few hundred decisions (the real teacher, opponents and network): every
    stage runs and run.json records the resolved config."""
    full = load_config("kakeya_ei").to_dict()
    small = json.loads(json.dumps(full))
    small["bc"].update(steps=120, epochs=2)
    for r, steps in zip(small["dagger"]["rounds"], (40, 40, 40), strict=True):
        r["steps"] = steps
    small["dagger"].update(workers=1, refit={"epochs": 1, "lr": 0.0005})
    record = train(load_config(small), out=tmp_path / "ei", progress_bar=False)
    rows = record["bc"]["dagger"]
    assert [r["beta"] for r in rows] == [1.0, 0.5, 0.25, 0.125]
    experts = {"expert_0_2": 0.5, "expert_0_3": 0.5}
    assert [r.get("opponents") for r in rows] == [None, None, experts, experts]
    assert all("holdout_agreement" in r and "best_epoch" in r for r in rows)
    assert record["timesteps"] == 0
    saved = json.loads((tmp_path / "ei" / "model" / "run.json").read_text())
    assert saved["config"] == load_config(small).to_dict() and saved["config"]["name"] == "ei_kakeya"
    policy = json.loads((tmp_path / "ei" / "model" / "policy.json").read_text())
    assert policy["architecture"]["policy_layers"] == [512, 512]


def test_the_kakeya_ei2_preset_is_kakeya_ei_with_the_card_features_and_every_round_against_experts():
    ei, ei2 = load_config("kakeya_ei").to_dict(), load_config("kakeya_ei2").to_dict()
    experts = {"expert_0_2": 0.5, "expert_0_3": 0.5}
    assert ei2["policy_kwargs"] == {"net_arch": [512, 512], "features": "cards"}
    assert [(r["steps"], r["beta"], r["opponents"]) for r in ei2["dagger"]["rounds"]] == [
        (250_000, 0.25, experts),
        (200_000, 0.125, experts),
        (200_000, 0.0625, experts),
    ]
    assert ei2["name"] == "ei2_kakeya"
    for key in ("name", "policy_kwargs", "dagger"):
        del ei[key], ei2[key]
    assert ei == ei2  # the same seed, table, teacher and cloning stage: its decisions are kakeya_ei's


def test_the_kakeya_ei3_preset_is_kakeya_ei2_with_the_seat_features():
    ei2, ei3 = load_config("kakeya_ei2").to_dict(), load_config("kakeya_ei3").to_dict()
    assert ei3["policy_kwargs"] == {"net_arch": [512, 512], "features": "cards_seats"}
    assert ei3["name"] == "ei3_kakeya"
    for key in ("name", "policy_kwargs"):
        del ei2[key], ei3[key]
    assert ei2 == ei3  # decision for decision ei2's cloning stage: the rows differ by the features


@pytest.mark.parametrize(("preset", "seed"), [("kakeya_ei4", 10)])
def test_the_further_members_presets_are_kakeya_ei2_at_other_seeds(preset, seed):
    """The ensemble's further clones: ``kakeya_ei2``'s recipe, their own decisions (collection seeds
    seed + 501 + 7919 k + worker, k = 0..3 and 2 workers, apart from every other member's)."""
    ei2, other = load_config("kakeya_ei2").to_dict(), load_config(preset).to_dict()
    assert other["name"] == preset.replace("kakeya_", "") + "_kakeya" and other["seed"] == seed
    for key in ("name", "seed"):
        del ei2[key], other[key]
    assert ei2 == other
    collection = {
        name: {s + 501 + 7919 * k + w for k in range(4) for w in range(2)}
        for name, s in {"kakeya_ei2": 3, "kakeya_ei4": 10}.items()
    }
    assert all(not (collection[preset] & seeds) for name, seeds in collection.items() if name != preset)


@pytest.mark.parametrize(
    ("preset", "features", "size"), [("kakeya_ei2", "cards", 222), ("kakeya_ei3", "cards_seats", 489)]
)
def test_a_features_preset_runs_scaled_down(tmp_path, preset, features, size):
    """Every stage of a features preset at a few hundred decisions: the fits take the observation and
    the features, the rounds' learners play from the policy file, the model names its features."""
    from kabu_envs.agents.registry import make_agent

    small = load_config(preset).to_dict()
    small["bc"].update(steps=120, epochs=1)
    for r in small["dagger"]["rounds"]:
        r["steps"] = 40
    small["dagger"].update(workers=1, refit={"epochs": 1, "lr": 0.0005})
    record = train(load_config(small), out=tmp_path / "ei2", progress_bar=False)
    assert [r["beta"] for r in record["bc"]["dagger"]] == [1.0, 0.25, 0.125, 0.0625]
    model = tmp_path / "ei2" / "model"
    assert json.loads((model / "policy.json").read_text())["features"] == features
    with np.load(tmp_path / "ei2" / "work" / "dagger" / "iter_1" / "decisions.npz") as z:
        assert z["obs"].shape[1] == 446  # the recorded decisions keep the plain observation
    agent = make_agent("kakeya", str(model), 0, role="partnership")
    assert agent.policy.input_size == 446 + size


@pytest.mark.parametrize(
    ("name", "preset"),
    [
        ("ei_kakeya", "kakeya_ei"),
        ("ei2_kakeya", "kakeya_ei2"),
    ],
)
def test_a_shipped_clone_is_its_presets_run(name, preset, kakeya_testlib):
    """The shipped clone is what ``kabu-train <preset>`` wrote: the preset's resolved config, its
    rounds as the preset schedules them, no PPO, and its learning curve: one point per round against
    ``expert_0_2`` and ``expert``, x = the labelled decisions fitted so far."""
    from kabu_envs.agents.policy_file import read_policy
    from kabu_envs.agents.registry import SHIPPED_MODELS
    from kabu_envs.eval.curve_file import read_curve

    d = SHIPPED_MODELS / name
    run = json.loads((d / "run.json").read_text())
    cfg = load_config(preset)
    assert kakeya_testlib.run_config_then(d / "run.json") == cfg
    assert run["timesteps"] == 0 and run["seed"] == 3
    rounds = run["bc"]["dagger"]
    schedule = cfg.dagger.schedule(cfg.opponents)
    assert [r["beta"] for r in rounds] == [1.0, *[r.beta for r in schedule]]
    steps = [cfg.bc.steps, *[r.steps for r in schedule]]
    assert all(r["decisions"] >= s for r, s in zip(rounds, steps, strict=True))
    then = {"expert_0_3": "expert"}  # (the record's name of that search)
    tables = [
        None if r.opponents == cfg.opponents else {then.get(k, k): w for k, w in r.opponents.items()}
        for r in schedule
    ]
    assert [r.get("opponents") for r in rounds[1:]] == tables
    assert rounds[-1]["aggregate"] == sum(r["decisions"] for r in rounds) == run["bc"]["decisions"]
    policy = read_policy(d)
    assert list(policy.policy_layers) == cfg.policy_kwargs.net_arch
    assert policy.training["name"] == cfg.name == Path(name).name
    assert policy.features == cfg.policy_kwargs.features
    curve = read_curve(d / "curve.csv")
    assert set(curve) == {"expert_0_2", "expert"}
    for c in curve.values():
        assert c["samples"] == [r["aggregate"] for r in rounds]
    assert run["curve"]["expert"]["mean"] == curve["expert"]["mean"][-1]
    assert run["curve_settings"]["deals"] == 300
