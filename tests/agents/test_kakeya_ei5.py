"""Expert iteration with the network search as teacher (preset ``kakeya_ei5``): a teacher may be given as
an agent class (``package.module:Class``, a search that is not a registry name), and its rounds record
the search's action values for the soft targets."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from kabu_envs.agents.registry import make_agent
from kabu_envs.kakeya.agents.net_expert import KakeyaNetExpertAgent
from kabu_envs.training import dagger
from kabu_envs.training.config import load_config

NET_TEACHER = "expert:samples=160"  # the registry's expert (the network search) at 160 deals a decision
# what the shipped run's record names: the search's class, whose default was 160 deals before it became
# the registry's `expert` (at 320): the same player as NET_TEACHER (the teacher test below)
RECORDED_TEACHER = "kabu_envs.kakeya.agents.net_expert:KakeyaNetExpertAgent"


def test_the_preset_continues_ei2_kakeya_labelled_by_the_network_search(kakeya_testlib):
    cfg = load_config("kakeya_ei5")
    assert cfg.bc.teacher == NET_TEACHER and cfg.bc.temperature > 0
    teacher = make_agent("kakeya", cfg.bc.teacher, 0)
    assert isinstance(teacher, KakeyaNetExpertAgent) and teacher.params["samples"] == 160
    assert isinstance(make_agent("kakeya", RECORDED_TEACHER, 0), KakeyaNetExpertAgent)
    assert KakeyaNetExpertAgent(seed=0, samples=160).params == teacher.params
    assert cfg.init_from == "ei2_kakeya" and cfg.timesteps == 0 and not cfg.dagger.aggregate
    rounds = cfg.dagger.schedule(cfg.opponents)
    assert all(r.opponents == {"expert_0_2": 0.5, "expert_0_3": 0.5} for r in rounds)  # fixed references
    ei2 = load_config("kakeya_ei2")
    assert cfg.policy_kwargs == ei2.policy_kwargs  # the warm start's network and inputs
    # its collection seeds (the run's formula: seed + 501 + 7919 k + worker) are apart from the other
    # four-player clones' (seeds 3 and 10)
    mine = kakeya_testlib.collection_seeds("kakeya_ei5")
    assert {cfg.seed + 501 + 7919 + w for w in range(cfg.dagger.workers)} <= mine
    others = kakeya_testlib.collection_seeds("kakeya_ei") | kakeya_testlib.collection_seeds("kakeya_ei4")
    assert {load_config(p).seed for p in ("kakeya_ei", "kakeya_ei4")} == {3, 10}
    assert not mine & others


@pytest.mark.parametrize(
    ("teacher", "match"),
    [
        ("kabu_envs.kakeya.agents.net_expert:NoSuchAgent", "has no class 'NoSuchAgent'"),
        ("kabu_envs.kakeya.agents.no_such_module:KakeyaNetExpertAgent", "cannot import"),
        ("oracle", "'package.module:Class' agent class"),
    ],
)
def test_a_teacher_class_that_does_not_load_is_refused_by_name(teacher, match):
    with pytest.raises(ValueError, match=match):
        load_config("kakeya_ei5", bc={"teacher": teacher})


def test_the_class_teacher_labels_its_decisions_with_its_values():
    """A round collected with the class teacher: every recorded decision has the search's values, the
    label is the best-valued legal card wherever the search valued cards, and the seed fixes it all."""
    cfg = load_config("kakeya_ei5")
    cfg = dataclasses.replace(
        cfg, opponents={"scripted": 1.0}, dagger=dataclasses.replace(cfg.dagger, workers=1)
    )
    data = dagger.collect_mixture(cfg, None, 1.0, 30, seed=11)
    assert len(data) >= 30 and data.values is not None and data.values.shape == data.masks.shape
    valued = 0
    for values, mask, action in zip(data.values, data.masks, data.actions, strict=True):
        assert mask[action]
        legal = np.where(mask, values, np.nan)
        if np.isfinite(legal).any():
            valued += 1
            assert legal[action] == np.nanmax(legal)
    assert valued >= len(data) // 2
    again = dagger.collect_mixture(cfg, None, 1.0, 30, seed=11)
    assert np.array_equal(again.actions, data.actions)
    assert np.array_equal(again.values, data.values, equal_nan=True)


def test_ei5_kakeya_is_its_presets_run(kakeya_testlib):
    """The preset's resolved config and seed; one DAgger round from ``ei2_kakeya``'s network, no PPO,
    labelled by the class teacher with soft targets, trained for the four-player partnership."""
    from kabu_envs.agents.policy_file import read_policy
    from kabu_envs.agents.registry import SHIPPED_MODELS
    from kabu_envs.training.config import load_run_config

    d = SHIPPED_MODELS / "ei5_kakeya"
    run = json.loads((d / "run.json").read_text())
    assert load_run_config(d / "run.json").bc.teacher == RECORDED_TEACHER
    assert kakeya_testlib.run_config_then(d / "run.json", {RECORDED_TEACHER: NET_TEACHER}) == load_config(
        "kakeya_ei5"
    )
    assert run["seed"] == 47 and run["timesteps"] == 0
    bc = run["bc"]
    assert bc["init_from"] == "ei2_kakeya" and bc["teacher"] == RECORDED_TEACHER and bc["temperature"] == 0.1
    (r,) = bc["dagger"]
    assert r["iteration"] == 1 and r["beta"] == 0.25 and r["decisions"] >= 150_000
    assert "opponents" not in r and run["config"]["opponents"] == {"expert_0_2": 0.5, "expert_0_3": 0.5}
    policy = read_policy(d)
    assert policy.trained_for == read_policy(SHIPPED_MODELS / "ei2_kakeya").trained_for
    assert policy.features == "cards" and list(policy.policy_layers) == [512, 512]


def test_ens5_kakeya_is_ens_kakeya_with_ei5_kakeya_and_its_continuation_for_ei2_kakeya():
    """The same construction as ``ens_kakeya`` (its endgame specialist, ``ei_kakeya``, the suit
    rotations), with ``ei5_kakeya`` and ``kakeya_ei6``'s network (stored in its folder) in the main stage;
    every member is named by checksum, the specialist found in ``ens_kakeya``'s folder (stored once)."""
    from kabu_envs.agents.ensemble import member_records, read_ensemble
    from kabu_envs.agents.registry import SHIPPED_MODELS

    d = SHIPPED_MODELS / "ens5_kakeya"
    ens, old = read_ensemble(d), read_ensemble(SHIPPED_MODELS / "ens_kakeya")
    assert ens.names == ("ei6_kakeya", "ei5_kakeya", "ei_kakeya", "endgame_kakeya")
    assert (ens.views, ens.stages) == (old.views, old.stages)
    assert dict(zip(ens.names, ens.member_stages, strict=True)) == {
        "ei6_kakeya": ("main",),
        "ei5_kakeya": ("main",),
        "ei_kakeya": ("main",),
        "endgame_kakeya": ("endgame",),
    }
    records = member_records(d)
    assert records["ei6_kakeya"] == d / "members" / "ei6_kakeya" / "policy.json"
    assert records["ei5_kakeya"] == SHIPPED_MODELS / "ei5_kakeya" / "policy.json"
    assert records["ei_kakeya"] == SHIPPED_MODELS / "ei_kakeya" / "policy.json"
    spec = SHIPPED_MODELS / "ens_kakeya" / "members" / "endgame_kakeya" / "policy.json"
    assert records["endgame_kakeya"] == spec
    assert sorted(p.name for p in (d / "members").iterdir()) == ["ei6_kakeya"]
    recipe = json.loads((d / "recipe.json").read_text())
    command = "python -m kabu_envs.training.ensemble ens5_kakeya runs/ei6_kakeya ei5_kakeya ei_kakeya "
    assert recipe["command"].startswith(command)


def test_ens5_kakeya_plays_legal_moves_as_one_decision_or_a_batch():
    from kabu_envs import kakeya_v2

    agent = make_agent("kakeya", "ens5_kakeya", 0, role="partnership")
    env = kakeya_v2.env()
    env.reset(seed=3)
    obs_l, mask_l = [], []
    for _seat in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        a = agent.act(obs["observation"], mask)
        assert mask[a]
        obs_l.append(obs["observation"])
        mask_l.append(mask)
        env.step(a)
    batch = agent.act_batch(np.stack(obs_l), np.stack(mask_l))
    assert list(batch) == [agent.act(o, m) for o, m in zip(obs_l, mask_l, strict=True)]
