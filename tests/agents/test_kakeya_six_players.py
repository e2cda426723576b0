"""The six-player Kakeya networks (all play, the v2 default for six): ``ei6p_kakeya``, the clone of the
six-player ``expert`` (preset ``kakeya_ei6p``), ``ei6p2_kakeya``, that clone continued by two more DAgger
rounds (preset ``kakeya_ei6p2``), ``ei6p3_kakeya``, that one continued by a round labelled by the network
search (preset ``kakeya_ei6p3``), ``ei6p4_kakeya`` and ``ei6p5_kakeya``, two more rounds labelled by the
six-player ``expert`` itself (presets ``kakeya_ei6p4``, ``kakeya_ei6p5``; the three shipped inside
``ens6p_kakeya``'s folder only), and ``ens6p_kakeya``, those three over the suit rotations. Each is what
its command wrote, plays legal moves at its table only, and plays a batch as it plays one row."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kabu_envs import kakeya_v2
from kabu_envs.agents.ensemble import member_records, read_ensemble
from kabu_envs.agents.policy_file import read_policy
from kabu_envs.agents.registry import SHIPPED_MODELS, make_agent
from kabu_envs.eval.curve_file import read_curve
from kabu_envs.training.config import load_config

SIX = {"num_players": 6}
EI6P3 = SHIPPED_MODELS / "ens6p_kakeya" / "members" / "ei6p3_kakeya"
EI6P4 = SHIPPED_MODELS / "ens6p_kakeya" / "members" / "ei6p4_kakeya"
EI6P5 = SHIPPED_MODELS / "ens6p_kakeya" / "members" / "ei6p5_kakeya"
SIX_PLAYER_MODELS = ["ei6p_kakeya", "ei6p2_kakeya", str(EI6P3), str(EI6P4), str(EI6P5), "ens6p_kakeya"]


def test_ei6p_kakeya_is_its_presets_run(kakeya_testlib):
    """The preset's resolved config, seed and rounds (behaviour cloning, then one DAgger round against
    the searches), no PPO, trained for six players all playing, and a curve point per round."""
    d = SHIPPED_MODELS / "ei6p_kakeya"
    run = json.loads((d / "run.json").read_text())
    cfg = load_config("kakeya_ei6p")
    assert kakeya_testlib.run_config_then(d / "run.json") == cfg
    assert cfg.env_options == SIX and run["seed"] == 61 and run["timesteps"] == 0
    rounds = run["bc"]["dagger"]
    assert [r["beta"] for r in rounds] == [1.0, 0.25]
    assert all(r["decisions"] >= s for r, s in zip(rounds, (100_000, 60_000), strict=True))
    assert rounds[1]["opponents"] == {"expert_0_2": 0.5, "expert": 0.5}
    policy = read_policy(d)
    table = {"game": "kakeya", "role": "partnership", "num_players": 6, "env_options": SIX}
    assert policy.trained_for == table
    assert policy.training["rule_options"]["six_player_mode"] == "all_play"
    assert policy.features == "cards" and list(policy.policy_layers) == [512, 512]
    curve = read_curve(d / "curve.csv")
    assert sorted(curve) == ["expert", "scripted"]
    assert all(c["samples"] == [r["aggregate"] for r in rounds] for c in curve.values())


def test_ei6p2_kakeya_continues_ei6p_kakeya_with_its_decisions(kakeya_testlib):
    """The preset's resolved config and seed; two DAgger rounds from the shipped ``ei6p_kakeya``'s
    network (no cloning round) on an aggregate that starts with that run's 160k labelled decisions,
    named by checksum."""
    d = SHIPPED_MODELS / "ei6p2_kakeya"
    run = json.loads((d / "run.json").read_text())
    cfg = load_config("kakeya_ei6p2")
    assert kakeya_testlib.run_config_then(d / "run.json") == cfg
    assert cfg.init_from == "ei6p_kakeya" and cfg.env_options == SIX and run["seed"] == 71
    first = json.loads((SHIPPED_MODELS / "ei6p_kakeya" / "run.json").read_text())["bc"]
    joined = run["bc"]["aggregate"]
    assert [a["decisions"] for a in joined] == [r["decisions"] for r in first["dagger"]]
    assert [a["path"] for a in joined] == cfg.dagger.aggregate and all(len(a["sha256"]) == 64 for a in joined)
    rounds = run["bc"]["dagger"]
    assert [r["iteration"] for r in rounds] == [1, 2] and [r["beta"] for r in rounds] == [0.125, 0.0625]
    assert rounds[0]["aggregate"] == first["decisions"] + rounds[0]["decisions"]
    assert rounds[1]["aggregate"] == rounds[0]["aggregate"] + rounds[1]["decisions"]
    assert all(
        r["decisions"] >= 100_000 and r["opponents"] == {"expert_0_2": 0.5, "expert": 0.5} for r in rounds
    )
    curve = read_curve(d / "curve.csv")  # measured after the run, a point per round of its own
    assert sorted(curve) == ["expert", "scripted"]
    assert all(c["samples"] == [r["aggregate"] for r in rounds] for c in curve.values())
    policy = read_policy(d)
    assert policy.trained_for == read_policy(SHIPPED_MODELS / "ei6p_kakeya").trained_for
    assert policy.features == "cards" and list(policy.policy_layers) == [512, 512]


def test_ei6p3_kakeya_is_its_presets_run_kept_in_ens6p_kakeyas_folder():
    """The preset's resolved config and seed; one DAgger round from the shipped ``ei6p2_kakeya``'s
    network, labelled by the network search with soft targets; trained for six players all playing."""
    run = json.loads((EI6P3 / "run.json").read_text())
    cfg = load_config("kakeya_ei6p3")
    assert load_config(run["config"]) == cfg
    assert run["seed"] == 83 and run["timesteps"] == 0
    bc = run["bc"]
    assert bc["init_from"] == "ei6p2_kakeya" and bc["teacher"] == "expert:samples=160"
    assert bc["temperature"] == 0.1 and "aggregate" not in bc
    (r,) = bc["dagger"]
    assert r["iteration"] == 1 and r["beta"] == 0.25 and r["decisions"] == r["aggregate"] >= 150_000
    assert "opponents" not in r and run["config"]["opponents"] == {"expert_0_2": 0.5, "expert_0_3": 0.5}
    policy = read_policy(EI6P3)
    assert policy.trained_for == read_policy(SHIPPED_MODELS / "ei6p2_kakeya").trained_for
    assert policy.training["name"] == "ei6p3_kakeya"
    assert policy.features == "cards" and list(policy.policy_layers) == [512, 512]


def test_ei6p4_and_ei6p5_kakeya_are_their_presets_runs_kept_in_ens6p_kakeyas_folder():
    """Each member's record is its preset's resolved config and seed: one round labelled by the 320-deal
    search from ``ei6p3_kakeya``'s network, then one more from ``ei6p4_kakeya``'s on both rounds'
    decisions (the aggregate named by its decision count and checksum)."""
    runs = {d.name: json.loads((d / "run.json").read_text()) for d in (EI6P4, EI6P5)}
    for d, preset, seed in ((EI6P4, "kakeya_ei6p4", 97), (EI6P5, "kakeya_ei6p5", 89)):
        run = runs[d.name]
        assert load_config(run["config"]) == load_config(preset)
        assert run["seed"] == seed and run["timesteps"] == 0
        assert run["bc"]["teacher"] == "expert:samples=320" and run["bc"]["temperature"] == 0.1
        assert read_policy(d).training["name"] == d.name
        assert read_policy(d).trained_for == read_policy(EI6P3).trained_for
    first, second = runs["ei6p4_kakeya"]["bc"], runs["ei6p5_kakeya"]["bc"]
    assert first["init_from"] == "ens6p_kakeya/members/ei6p3_kakeya" and "aggregate" not in first
    (r1,) = first["dagger"]
    assert r1["beta"] == 0.25 and r1["decisions"] == r1["aggregate"] >= 100_000
    assert second["init_from"] == "runs/ei6p4_kakeya/model"
    (joined,) = second["aggregate"]
    assert joined["path"] == "runs/ei6p4_kakeya/work/dagger/iter_1/decisions.npz"
    assert joined["decisions"] == r1["decisions"] and len(joined["sha256"]) == 64
    (r2,) = second["dagger"]
    assert r2["beta"] == 0.125 and r2["decisions"] >= 100_000
    assert r2["aggregate"] == r1["decisions"] + r2["decisions"]


def test_ens6p_kakeya_is_ei6p5_ei6p4_and_ei6p3_kakeya_over_the_suit_rotations():
    """Its three members are stored in its own folder (not models of their own), pinned by checksum."""
    d = SHIPPED_MODELS / "ens6p_kakeya"
    ens = read_ensemble(d)
    assert ens.names == ("ei6p5_kakeya", "ei6p4_kakeya", "ei6p3_kakeya") and ens.views == "suit_rotations"
    assert member_records(d) == {m.name: m / "policy.json" for m in (EI6P5, EI6P4, EI6P3)}
    assert not any((SHIPPED_MODELS / m.name).exists() for m in (EI6P5, EI6P4, EI6P3))
    recipe = json.loads((d / "recipe.json").read_text())
    assert recipe["command"] == (
        "python -m kabu_envs.training.ensemble ens6p_kakeya runs/ei6p5_kakeya runs/ei6p4_kakeya "
        "runs/ei6p3_kakeya --views suit_rotations"
    )


@pytest.mark.parametrize("name", SIX_PLAYER_MODELS, ids=lambda n: n.rsplit("/", 1)[-1])
def test_a_six_player_model_refuses_four_players(name):
    with pytest.raises(ValueError, match=r"does not fit.*6 players.*players 6 != 4"):
        make_agent("kakeya", name, 0)


@pytest.mark.parametrize("name", SIX_PLAYER_MODELS, ids=lambda n: n.rsplit("/", 1)[-1])
def test_a_six_player_model_plays_every_seat_of_six_player_deals(name):
    """Legal moves on every seat of three six-player deals, and a batch of the observations met played
    as each row alone (the same greedy actions)."""
    agent = make_agent("kakeya", name, 0, role="partnership", **SIX)
    obs_seen, masks_seen, actions = [], [], []
    for seed in range(3):
        env = kakeya_v2.env(**SIX)
        env.reset(seed=seed)
        for seat in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = agent.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action] == 1, (seat, action)
            obs_seen.append(obs["observation"])
            masks_seen.append(obs["action_mask"])
            actions.append(action)
            env.step(action)
    assert len(actions) > 100
    batch = agent.act_batch(np.stack(obs_seen), np.stack(masks_seen))
    np.testing.assert_array_equal(batch, actions)


def test_the_ei6p3_preset_continues_ei6p2_kakeya_labelled_by_the_network_search(kakeya_testlib):
    """``kakeya_ei5``'s recipe at six players: one round from ``ei6p2_kakeya``'s network, labelled by the
    network search at 160 deals with soft targets, against the fixed references, none of the weaker
    teacher's labels aggregated; its collection seeds apart from the other six-player runs'."""
    from kabu_envs.kakeya.agents.net_expert import KakeyaNetExpertAgent

    cfg = load_config("kakeya_ei6p3")
    assert cfg.env_options == SIX and cfg.init_from == "ei6p2_kakeya" and cfg.timesteps == 0
    teacher = make_agent("kakeya", cfg.bc.teacher, 0, **SIX)
    assert isinstance(teacher, KakeyaNetExpertAgent) and teacher.params["samples"] == 160
    assert cfg.bc.temperature == 0.1 and not cfg.dagger.aggregate
    rounds = cfg.dagger.schedule(cfg.opponents)
    assert [(r.steps, r.beta) for r in rounds] == [(150_000, 0.25)]
    assert all(r.opponents == {"expert_0_2": 0.5, "expert_0_3": 0.5} for r in rounds)
    assert cfg.policy_kwargs == load_config("kakeya_ei6p2").policy_kwargs  # the warm start's network

    seeds = kakeya_testlib.collection_seeds
    others = set().union(*(seeds(p) for p in ("kakeya_ei6p", "kakeya_ei6p2", "kakeya_ei5")))
    assert not seeds("kakeya_ei6p3") & others


def test_the_ei6p4_preset_continues_ei6p3_kakeya_labelled_by_the_six_player_expert_itself(kakeya_testlib):
    """``kakeya_ei6``'s recipe at six players: one round from ``ei6p3_kakeya``'s network (the member kept
    in ``ens6p_kakeya``'s folder), labelled by the search at 320 deals (the registry's six-player
    ``expert``, the target itself) with soft targets, against the fixed references; its collection seeds
    apart from every other preset's (seed 83 is already shared by two)."""
    from kabu_envs.kakeya.agents.net_expert import KakeyaNetExpertAgent
    from kabu_envs.training.config import presets
    from kabu_envs.training.dagger import init_policy_dir

    cfg = load_config("kakeya_ei6p4")
    assert cfg.env_options == SIX and cfg.timesteps == 0
    assert cfg.init_from == "ens6p_kakeya/members/ei6p3_kakeya"
    assert init_policy_dir(cfg.init_from) == str(EI6P3)
    teacher = make_agent("kakeya", cfg.bc.teacher, 0, **SIX)
    target = make_agent("kakeya", "expert", 0, **SIX)
    assert isinstance(teacher, KakeyaNetExpertAgent) and teacher.params["samples"] == 320
    assert type(target) is type(teacher) and target.params == teacher.params
    assert cfg.bc.temperature == 0.1 and not cfg.dagger.aggregate
    (r,) = cfg.dagger.schedule(cfg.opponents)
    assert (r.steps, r.beta) == (100_000, 0.25)
    assert r.opponents == {"expert_0_2": 0.5, "expert_0_3": 0.5}  # the fixed references, as ei6p3
    assert cfg.policy_kwargs == load_config("kakeya_ei6p3").policy_kwargs  # the warm start's network

    seeds = kakeya_testlib.collection_seeds
    mine = seeds("kakeya_ei6p4")
    assert mine == {97 + 501 + 7919 + w for w in range(2)} | {97 + 501 + w for w in range(2)}
    clashes = [p for p in presets() if p != "kakeya_ei6p4" and mine & seeds(p)]
    assert clashes == []
    assert [p for p in presets() if load_config(p).seed == cfg.seed] == ["kakeya_ei6p4"]


def test_the_ei6p5_preset_is_a_second_such_round_on_ei6p4s_network_and_decisions(kakeya_testlib):
    """``kakeya_ei6``'s way at six players: ``kakeya_ei6p4``'s run continued (its network and its round's
    decisions joined), one more round labelled by the six-player ``expert``; its seeds its own."""
    from kabu_envs.training.config import presets

    cfg = load_config("kakeya_ei6p5")
    first = load_config("kakeya_ei6p4")
    assert cfg.env_options == SIX and cfg.timesteps == 0
    assert cfg.init_from == f"runs/{first.name}/model"
    assert cfg.dagger.aggregate == [f"runs/{first.name}/work/dagger/iter_1/decisions.npz"]
    assert cfg.bc == first.bc and cfg.bc.teacher == "expert:samples=320"
    (r,) = cfg.dagger.schedule(cfg.opponents)
    assert (r.steps, r.beta) == (100_000, 0.125) and r.opponents == {"expert_0_2": 0.5, "expert_0_3": 0.5}
    assert cfg.policy_kwargs == first.policy_kwargs and cfg.dagger.refit == first.dagger.refit

    seeds = kakeya_testlib.collection_seeds
    mine = seeds("kakeya_ei6p5")
    assert mine == {89 + 501 + 7919 + w for w in range(2)} | {89 + 501 + w for w in range(2)}
    assert [p for p in presets() if p != "kakeya_ei6p5" and mine & seeds(p)] == []
    assert [p for p in presets() if load_config(p).seed == cfg.seed] == ["kakeya_ei6p5"]
