"""Staged ensembles (agents/stages.py, agents/ensemble.py ``stages``): each decision is played by the
members of its stage only, alone or with views; Kakeya's ``endgame`` split checked against the engine;
bad records and commands refused with the reason."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from policy_testlib import decisions

from kabu_envs.agents.ensemble import read_model, write_ensemble
from kabu_envs.agents.policy_file import read_policy
from kabu_envs.agents.registry import SHIPPED_MODELS
from kabu_envs.agents.stages import StageSplit, get_stages, known_stages
from kabu_envs.agents.symmetry import SymmetricViews
from kabu_envs.training.ensemble import main as ensemble_main

MAIN, END = "ei2_kakeya", "ei_kakeya"  # any two clones of one table: one plays the main stage, one the end


@pytest.fixture(scope="module")
def real() -> tuple[np.ndarray, np.ndarray]:
    from kabu_envs.wrappers.views import make_view

    view = make_view("kakeya", role="partnership", opponents=["scripted", "random"], seed=0)
    return decisions(view, 1200, 4, read_policy(SHIPPED_MODELS / MAIN))


def _staged(out: Path, views: str | None = None) -> Path:
    write_ensemble(
        {MAIN: SHIPPED_MODELS / MAIN, END: SHIPPED_MODELS / END},
        out,
        {"name": out.name},
        views=views,
        stages="endgame",
        member_stages={MAIN: ["main"], END: ["endgame"]},
    )
    return out


def test_kakeya_declares_the_endgame_split_and_oicho_kabu_none():
    assert sorted(known_stages("kakeya")) == ["endgame"] and known_stages("oicho_kabu") == {}
    assert get_stages("kakeya", "endgame").names == ("main", "endgame")
    with pytest.raises(ValueError, match=r"unknown policy stages 'late' for kakeya; known: \['endgame'\]"):
        get_stages("kakeya", "late")
    with pytest.raises(ValueError, match=r"no stage 'end'; stages: \['main', 'endgame'\]"):
        StageSplit("kakeya", "endgame", {}).index("end")


@pytest.mark.parametrize("num_players", [4, 6])
def test_the_endgame_is_the_card_decisions_with_four_cards_or_fewer_in_hand(num_players):
    """Read from the engine, not the observation: the seat to act's hand size and the phase."""
    from kabu_envs.kakeya.env import raw_env
    from kabu_envs.kakeya.game import Phase

    env = raw_env(num_players=num_players)
    split = StageSplit("kakeya", "endgame", {"num_players": num_players})
    rng = np.random.default_rng(1)
    seen = {(False, 0), (True, 1)}
    got = set()
    for deal in range(3):
        env.reset(seed=deal)
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            o = env.observe(agent)
            seat = env.possible_agents.index(agent)
            game = env.game
            endgame = game.phase is Phase.PLAY and game.hand_counts[seat] <= 4
            stage = int(split.of(o["observation"][None])[0])
            assert stage == int(endgame)
            got.add((endgame, stage))
            env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    assert got == seen


def test_each_stage_is_played_by_its_members_alone(real, tmp_path):
    ens = read_model(_staged(tmp_path / "staged"))
    assert ens.stages == "endgame" and "ei2_kakeya [main]" in ens.describe()
    obs, masks = real
    stage = StageSplit("kakeya", "endgame", {}).of(obs)
    assert 200 < stage.sum() < len(stage) - 200
    got = ens.masked_probs_batch(obs, masks)
    for name, s in ((MAIN, 0), (END, 1)):
        want = read_policy(SHIPPED_MODELS / name).masked_probs_batch(obs[stage == s], masks[stage == s])
        assert np.allclose(got[stage == s], want, atol=1e-6)
        assert np.array_equal(got[stage == s].argmax(1), want.argmax(1))
    single = np.stack([ens.masked_probs(o, m) for o, m in zip(obs, masks, strict=True)])
    assert np.array_equal(got, single)


def test_with_views_each_stage_averages_its_members_over_the_views(real, tmp_path):
    ens = read_model(_staged(tmp_path / "staged_views", views="suit_rotations"))
    views = SymmetricViews("kakeya", "suit_rotations", {})
    obs, masks = real[0][:300], real[1][:300]
    stage = StageSplit("kakeya", "endgame", {}).of(obs)
    members = [read_policy(SHIPPED_MODELS / n) for n in (MAIN, END)]
    row, element, view_obs, view_masks = views.views(obs, masks)
    assert (np.bincount(row) > 1).any()
    for r in range(len(obs)):
        member = members[stage[r]]
        at = np.flatnonzero(row == r)
        probs = [member.masked_probs(view_obs[i], view_masks[i]).astype(np.float64) for i in at]
        logs = [
            views.back(np.log(np.maximum(p, 1e-300))[None], element[i : i + 1])[0]
            for p, i in zip(probs, at, strict=True)
        ]
        mean = np.mean(logs, 0)
        m = masks[r]
        want = np.exp(mean - mean[m].max()) * m
        want /= want.sum()
        assert np.allclose(ens.masked_probs(obs[r], m), want, atol=2e-5)
    batch = ens.masked_probs_batch(obs, masks)
    assert np.array_equal(batch, np.stack([ens.masked_probs(o, m) for o, m in zip(obs, masks, strict=True)]))


def test_a_member_without_stages_plays_every_stage(real, tmp_path):
    """``ei2_kakeya`` everywhere and ``ei_kakeya`` in the endgame: the main stage is ``ei2_kakeya``'s,
    the endgame the mean of both."""
    out = tmp_path / "both"
    write_ensemble(
        {MAIN: SHIPPED_MODELS / MAIN, END: SHIPPED_MODELS / END},
        out,
        {"name": "both"},
        stages="endgame",
        member_stages={END: ["endgame"]},
    )
    ens = read_model(out)
    obs, masks = real
    stage = StageSplit("kakeya", "endgame", {}).of(obs)
    got = ens.masked_probs_batch(obs, masks)
    main = read_policy(SHIPPED_MODELS / MAIN)
    want = main.masked_probs_batch(obs[stage == 0], masks[stage == 0])
    assert np.allclose(got[stage == 0], want, atol=1e-6)
    plain = tmp_path / "plain"
    write_ensemble({MAIN: SHIPPED_MODELS / MAIN, END: SHIPPED_MODELS / END}, plain, {"name": "plain"})
    pair = read_model(plain).masked_probs_batch(obs[stage == 1], masks[stage == 1])
    assert np.allclose(got[stage == 1], pair, atol=1e-6)


def test_bad_stages_are_refused_with_the_reason(tmp_path):
    staged = _staged(tmp_path / "staged")
    rec = json.loads((staged / "policy.json").read_text())
    assert rec["stages"] == "endgame" and rec["members"][1]["stages"] == ["endgame"]

    def member_stages(*stages):
        return [m | {"stages": s} for m, s in zip(rec["members"], stages, strict=True)]

    cases = [
        ({"stages": "late"}, r"stages: unknown policy stages 'late' for kakeya"),
        ({"members": member_stages(["main"], ["end"])}, r"member 'ei_kakeya': .*no stage 'end'"),
        ({"members": member_stages(["main"], ["main"])}, r"no member plays stage\(s\) \['endgame'\]"),
        ({"members": member_stages(["main"], [])}, "its stages must be distinct stage names"),
        ({"members": member_stages(["main"], "endgame")}, "must be a list of stage names"),
        ({"stages": None}, "members name stages, but the ensemble names no stage split"),
    ]
    for change, match in cases:
        d = tmp_path / f"s{len(list(tmp_path.iterdir()))}"
        shutil.copytree(staged, d)
        new = {k: v for k, v in (rec | change).items() if v is not None}
        (d / "policy.json").write_text(json.dumps(new))
        with pytest.raises(ValueError, match=match):
            read_model(d)


def test_the_command_writes_a_staged_ensemble(tmp_path, real, capsys):
    out = tmp_path / "cmd"
    args = ["staged", MAIN, END, "--views", "suit_rotations", "--stages", "endgame"]
    plays = ["--plays", f"{MAIN}=main", "--plays", f"{END}=endgame"]
    assert ensemble_main([*args, *plays, "--out", str(out)]) == 0
    made = read_model(out / "model")
    twin = read_model(_staged(tmp_path / "twin", views="suit_rotations"))
    obs, masks = real
    assert np.array_equal(made.masked_probs_batch(obs, masks), twin.masked_probs_batch(obs, masks))
    recipe = json.loads((out / "model" / "recipe.json").read_text())
    assert recipe["member_stages"] == {MAIN: ["main"], END: ["endgame"]}
    assert recipe["command"].endswith(f"--stages endgame --plays {MAIN}=main --plays {END}=endgame")
    for bad, message in (
        (["--plays", f"{END}=endgame"], "--plays needs --stages"),
        (["--stages", "endgame", "--plays", "nobody=endgame"], "expected MEMBER=STAGE"),
        (["--stages", "endgame", "--plays", f"{END}=endgame", "--plays", f"{END}=main"], "twice"),
        (["--stages", "endgame", "--plays", f"{MAIN}=main", "--plays", f"{END}=main"], "no member plays"),
    ):
        assert ensemble_main(["bad", MAIN, END, *bad, "--out", str(tmp_path / "bad")]) == 2
        assert message in capsys.readouterr().err or pytest.fail(message)
