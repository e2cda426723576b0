"""Expert iteration with the stronger teacher (preset ``kakeya_ei6``): ``ei5_kakeya``'s network after one
more DAgger round labelled by the network search at 320 sampled deals, its own round's decisions joined
with ``kakeya_ei5``'s; the network is shipped as a member of ``ens5_kakeya`` (beside ``ei5_kakeya``),
not as a model of its own."""

from __future__ import annotations

import json

from kabu_envs.agents.registry import SHIPPED_MODELS, make_agent
from kabu_envs.kakeya.agents.net_expert import KakeyaNetExpertAgent
from kabu_envs.training.config import load_config, presets

MEMBER = SHIPPED_MODELS / "ens5_kakeya" / "members" / "ei6_kakeya"
EI5_DECISIONS = "runs/ei5_kakeya/work/dagger/iter_1/decisions.npz"  # a `kakeya_ei5` run's round


def test_the_preset_continues_ei5_kakeya_labelled_by_the_search_at_320_deals():
    cfg = load_config("kakeya_ei6")
    assert cfg.bc.teacher == "expert:samples=320" and cfg.bc.temperature == 0.1
    teacher = make_agent("kakeya", cfg.bc.teacher, 0)
    assert isinstance(teacher, KakeyaNetExpertAgent) and teacher.params["samples"] == 320
    assert cfg.init_from == "ei5_kakeya" and cfg.timesteps == 0
    assert cfg.dagger.aggregate == [EI5_DECISIONS]
    (r,) = cfg.dagger.schedule(cfg.opponents)
    assert r.opponents == {"expert_0_2": 0.5, "expert_0_3": 0.5}  # the fixed references
    assert cfg.policy_kwargs == load_config("kakeya_ei5").policy_kwargs  # the warm start's network


def test_its_collection_seeds_are_apart_from_every_other_kakeya_presets_at_its_table(kakeya_testlib):
    """Round k's worker w collects from seed + 501 + 7919 k + w (training/run.py passes seed + 501 to
    the DAgger rounds; the older presets' cloning rounds also from seed + 501 + w): none of this preset's
    is another four-player preset's. The six-player ``kakeya_ei6p3`` was made at the same time with the
    same seed (83): its rounds drew the same episode seeds, but they deal six-player games, so no deal is
    shared; this test names that exception so that no other can pass unseen."""

    seeds = kakeya_testlib.collection_seeds
    mine = {load_config("kakeya_ei6").seed + 501 + 7919 + w for w in range(2)}
    assert mine <= seeds("kakeya_ei6")
    others = [p for p in presets() if p != "kakeya_ei6" and load_config(p).game == "kakeya"]
    clashes = [p for p in others if mine & seeds(p)]
    assert clashes == ["kakeya_ei6p3"]
    assert load_config("kakeya_ei6p3").env_options.get("num_players") == 6
    assert load_config("kakeya_ei6").env_options.get("num_players", 4) == 4


def test_the_member_is_its_presets_run_on_ei5_kakeyas_decisions():
    """The member's record is the preset's resolved config and seed; the aggregate it names is the
    round of the run that made ``ei5_kakeya`` (its decision count), pinned by checksum."""
    from kabu_envs.agents.policy_file import read_policy
    from kabu_envs.training.config import load_run_config

    run = json.loads((MEMBER / "run.json").read_text())
    assert load_run_config(MEMBER / "run.json") == load_config("kakeya_ei6")
    assert run["seed"] == 83 and run["timesteps"] == 0
    bc = run["bc"]
    assert bc["init_from"] == "ei5_kakeya" and bc["teacher"] == "expert:samples=320"
    (joined,) = bc["aggregate"]
    ei5_round = json.loads((SHIPPED_MODELS / "ei5_kakeya" / "run.json").read_text())["bc"]["dagger"][0]
    assert joined["path"] == EI5_DECISIONS and joined["decisions"] == ei5_round["decisions"]
    assert len(joined["sha256"]) == 64
    (r,) = bc["dagger"]
    assert r["beta"] == 0.125 and r["decisions"] >= 100_000
    assert r["aggregate"] == r["decisions"] + joined["decisions"]
    policy = read_policy(MEMBER)
    assert policy.training["name"] == "ei6_kakeya"
    assert policy.trained_for == read_policy(SHIPPED_MODELS / "ei5_kakeya").trained_for
    assert policy.features == "cards" and list(policy.policy_layers) == [512, 512]
