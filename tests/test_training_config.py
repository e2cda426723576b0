"""The typed training config (training/config.py): attributes instead of string keys, validated once when
made, and ``to_dict()`` key for key the resolved config the run records store."""

from __future__ import annotations

import dataclasses
import json

import pytest

from kabu_envs.agents.registry import models_dir
from kabu_envs.training.config import (
    BehaviourCloning,
    PPOSettings,
    TrainConfig,
    from_dict,
    load_config,
    load_run_config,
    presets,
)
from kabu_envs.training.specialist import is_specialist_record, load_specialist_config

# every shipped run record, an ensemble's members' included (each member is a training run of its own)
ALL_RUNS = sorted([*models_dir().glob("*/run.json"), *models_dir().glob("*/members/*/run.json")])
# a stage specialist's record holds its own settings (training/specialist.py), not a TrainConfig
SPECIALIST_RUNS = [r for r in ALL_RUNS if is_specialist_record(json.loads(r.read_text()))]
RUNS = [r for r in ALL_RUNS if r not in SPECIALIST_RUNS]


def test_a_config_is_read_by_attribute_with_its_sections_typed():
    cfg = load_config("ppo_toy_card", seed=7, bc={"teacher": "scripted"})
    assert isinstance(cfg, TrainConfig) and isinstance(cfg.ppo, PPOSettings)
    assert isinstance(cfg.bc, BehaviourCloning) and cfg.bc.teacher == "scripted" and cfg.bc.steps == 20_000
    assert cfg.seed == 7 and cfg.game == "toy_card" and cfg.policy_kwargs.net_arch == [32]
    assert cfg.ppo.kwargs() == dataclasses.asdict(cfg.ppo) and "gae_lambda" in cfg.ppo.kwargs()


@pytest.mark.parametrize("run", RUNS, ids=[str(r.parent.relative_to(models_dir())) for r in RUNS])
def test_every_shipped_run_record_loads_and_gives_back_its_config(run):
    saved = json.loads(run.read_text())["config"]
    cfg = load_run_config(run)
    resolved = cfg.to_dict()
    assert list(resolved) == [f.name for f in dataclasses.fields(TrainConfig)]  # the records' order
    # a record written before a key existed (the richer settings' bettors have no "dagger") gets its
    # default; every key it has comes back as it was, its JSON included
    # keys added inside a block since (bc.temperature, bc.lr_decay, bc.holdout, dagger.rounds,
    # dagger.refit, dagger.aggregate, policy_kwargs.features) come back at their default
    later = {
        "bc": {"temperature": 0.0, "lr_decay": "none", "holdout": 0.0},
        "policy_kwargs": {"features": None},
        "dagger": {"rounds": [], "refit": {"epochs": None, "lr": None}, "aggregate": []},
    }
    for block, keys in later.items():
        for key, default in keys.items():
            if key not in saved.get(block, {}):
                assert resolved[block].pop(key) == default
    assert {k: resolved[k] for k in saved} == saved
    assert set(resolved) - set(saved) <= {"dagger"}
    assert json.dumps({k: resolved[k] for k in saved}, sort_keys=True) == json.dumps(saved, sort_keys=True)
    assert load_config(saved).to_dict() == cfg.to_dict()


@pytest.mark.parametrize(
    "run", SPECIALIST_RUNS, ids=[str(r.parent.relative_to(models_dir())) for r in SPECIALIST_RUNS]
)
def test_every_shipped_specialist_record_gives_back_its_settings(run):
    saved = json.loads(run.read_text())["config"]
    assert dataclasses.asdict(load_specialist_config(run)) == saved
    with pytest.raises(ValueError, match="not a readable specialist run record"):
        load_specialist_config(RUNS[0])


def test_the_shipped_models_hold_a_specialist_record():
    assert SPECIALIST_RUNS and len(RUNS) + len(SPECIALIST_RUNS) == len(ALL_RUNS)


@pytest.mark.parametrize("preset", presets())
def test_to_dict_round_trips_through_load_config(preset):
    cfg = load_config(preset)
    assert load_config(cfg.to_dict()) == cfg
    assert json.loads(json.dumps(cfg.to_dict())) == cfg.to_dict()  # plain JSON data


def test_values_keep_the_type_they_were_given():
    # an int given for a float setting stays an int, so the run record reads as before ("gamma": 1)
    cfg = load_config("ppo_toy_card", ppo={"gamma": 1, "learning_rate": 0.001}, reward_scale=2)
    assert cfg.to_dict()["ppo"]["gamma"] == 1 and isinstance(cfg.to_dict()["ppo"]["gamma"], int)
    assert '"reward_scale": 2,' in json.dumps(cfg.to_dict())


def test_overrides_merge_into_sections_and_replace_values():
    cfg = load_config("oicho_bettor", bc={"steps": 5}, opponents={"random": 1.0}, curve=None)
    assert cfg.bc.steps == 5 and cfg.bc.teacher == "expert"  # the preset's teacher stays
    assert cfg.opponents == {"random": 1.0}  # a mapping value is replaced whole
    assert cfg.curve.every == 50_000  # None: not given


@pytest.mark.parametrize(
    ("over", "match"),
    [
        ({"timesteps": "many"}, "config key 'timesteps' must be an integer, got 'many'"),
        ({"timesteps": 1000.0}, "config key 'timesteps' must be an integer"),
        ({"seed": True}, "config key 'seed' must be an integer"),
        ({"ppo": {"gamma": "one"}}, "config key 'ppo.gamma' must be a number"),
        ({"ppo": 5}, "config key 'ppo' must be a mapping"),
        ({"ppo": {"gama": 1}}, r"unknown config key ppo\.'gama'"),
        ({"curve": {"opponents": "scripted"}}, "config key 'curve.opponents' must be a list of strings"),
        ({"opponents": {"random": "1"}}, "config key 'opponents' must be a mapping of strings to numbers"),
        ({"init_from": 5}, "config key 'init_from' must be a string or null"),
        ({"batch_envs": True}, "config key 'batch_envs' must be an integer or null"),
        ({"env_options": [1]}, "config key 'env_options' must be a mapping of strings to values"),
        ({"env_options": {"num_players": 99}}, "env_options' do not fit Toy Card"),
        ({"partner": "team"}, "partner' must be one of"),
        ({"self_play": {"every": 0}}, "self_play.every must be an integer >= 1"),
        ({"self_play": {"weight": -1}}, "self_play.weight is negative"),
        ({"checkpoint_every": 0}, "checkpoint_every must be an integer >= 1"),
        ({"reward_scale": 0}, "reward_scale must be positive"),
        ({"eval_deals": -1}, "eval_deals must be >= 0"),
        ({"policy_kwargs": {"net_arch": [0]}}, "layer sizes must be positive"),
    ],
)
def test_a_wrong_type_or_value_raises_naming_the_key(over, match):
    with pytest.raises(ValueError, match=match):
        load_config("ppo_toy_card", **over)


def test_a_config_is_valid_whenever_it_exists():
    cfg = load_config("ppo_toy_card")
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.timesteps = 5  # type: ignore[misc]
    assert dataclasses.replace(cfg, timesteps=5).timesteps == 5
    with pytest.raises(ValueError, match="timesteps and n_envs must be positive"):
        dataclasses.replace(cfg, timesteps=0)
    with pytest.raises(ValueError, match="config needs a 'name'"):
        from_dict({"game": "toy_card", "role": "seat"})
    with pytest.raises(ValueError, match="a training config is a mapping"):
        from_dict([("name", "x")])  # type: ignore[arg-type]


def test_a_bad_run_record_names_its_file(tmp_path):
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"config": {"name": "x", "game": "toy_card", "role": "seat", "nope": 1}}))
    with pytest.raises(
        ValueError, match=r"run\.json: not a readable training run record: unknown config key"
    ):
        load_run_config(run)
    run.write_text("{")
    with pytest.raises(ValueError, match=r"run\.json: not a readable"):
        load_run_config(run)


def test_the_kakeya_preset_still_reproduces_the_shipped_ppo_kakeya():
    """ppo_kakeya's record (kabu-envs 0.2.0) names 0.2's search "expert"; that player is ``expert_0_2``
    since the registry's ``expert`` became the kernel search (issue #27). The preset, with the record's
    command-line overrides, is the record's config with each "expert" read as ``expert_0_2``, and that
    name builds the teacher the record was cloned from (0.2's class and parameters)."""
    from kabu_envs.agents.registry import make_agent
    from kabu_envs.kakeya.agents.expert import DEFAULT_PARAMS, KakeyaExpertAgent

    record = json.loads((models_dir() / "ppo_kakeya" / "run.json").read_text())
    assert record["versions"]["kabu-envs"] == "0.2.0"
    assert record["command"].endswith("--timesteps 8000000 --curve-every 800000 --no-progress")
    saved = load_run_config(models_dir() / "ppo_kakeya" / "run.json").to_dict()
    assert saved["bc"]["teacher"] == "expert" and "expert" in saved["opponents"]
    then = {"expert": "expert_0_2"}
    saved["bc"]["teacher"] = then[saved["bc"]["teacher"]]
    saved["opponents"] = {then.get(k, k): w for k, w in saved["opponents"].items()}
    saved["curve"]["opponents"] = [then.get(k, k) for k in saved["curve"]["opponents"]]
    preset = load_config("kakeya", timesteps=8_000_000, curve={"every": 800_000}).to_dict()
    assert json.dumps(preset, sort_keys=True) == json.dumps(saved, sort_keys=True)
    teacher = make_agent("kakeya", preset["bc"]["teacher"], 0)
    assert isinstance(teacher, KakeyaExpertAgent) and teacher.params == DEFAULT_PARAMS
    assert type(make_agent("kakeya", "expert", 0)) is not type(teacher)  # "expert" is another player now


@pytest.mark.parametrize("model", ["ei_kakeya", "ei2_kakeya", "ei6p_kakeya", "ei6p2_kakeya"])
def test_the_expert_iteration_presets_name_the_search_their_models_learned_from(model):
    """Their records name the scripted-play-out search "expert"; that player is ``expert_0_3`` since the
    registry's ``expert`` became the search with network play-outs. Each preset is its record's config
    with every "expert" read as ``expert_0_3`` (teacher, opponents, DAgger rounds' opponents)."""
    from kabu_envs.agents.registry import make_agent
    from kabu_envs.kakeya.agents.kernel_expert import KakeyaExpert03Agent

    saved = load_run_config(models_dir() / model / "run.json").to_dict()
    assert saved["bc"]["teacher"] == "expert"
    then = {"expert": "expert_0_3"}

    def read(weights: dict[str, float] | None) -> dict[str, float] | None:
        return None if weights is None else {then.get(k, k): w for k, w in weights.items()}

    saved["bc"]["teacher"] = then[saved["bc"]["teacher"]]
    saved["opponents"] = read(saved["opponents"])
    for r in saved["dagger"]["rounds"]:
        r["opponents"] = read(r.get("opponents"))
    preset = load_config(f"kakeya_{model.removesuffix('_kakeya')}").to_dict()
    for r in preset["dagger"]["rounds"]:
        r["opponents"] = r.get("opponents")
    assert json.dumps(preset, sort_keys=True) == json.dumps(saved, sort_keys=True)
    assert isinstance(make_agent("kakeya", preset["bc"]["teacher"], 0), KakeyaExpert03Agent)
