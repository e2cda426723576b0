"""Ensembles of policy files (agents/ensemble.py, training/ensemble.py): the combination rule on real
decisions, batched play equal to single play, strict reading (checksums, one table), and the command."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from policy_testlib import decisions

from kabu_envs.agents.ensemble import (
    PolicyEnsemble,
    member_records,
    read_ensemble,
    read_model,
    write_ensemble,
)
from kabu_envs.agents.policy_file import read_policy
from kabu_envs.agents.registry import SHIPPED_MODELS, make_agent, shipped_models
from kabu_envs.training.ensemble import main as ensemble_main
from kabu_envs.training.ensemble import make_ensemble

MEMBERS = ("ei2_kakeya", "ei_kakeya")  # two clones of one teacher, with and without the card features


@pytest.fixture(scope="module")
def pair(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ens") / "pair"
    write_ensemble({m: SHIPPED_MODELS / m for m in MEMBERS}, out, {"name": "pair", "package_version": "0"})
    return out


@pytest.fixture(scope="module")
def real(pair) -> tuple[np.ndarray, np.ndarray]:
    from kabu_envs.wrappers.views import make_view

    view = make_view("kakeya", role="partnership", opponents=["scripted", "random"], seed=0)
    return decisions(view, 1500, 3, read_model(pair))


def test_the_ensemble_plays_the_mean_of_its_members_masked_log_probabilities(pair, real):
    ens = read_model(pair)
    assert isinstance(ens, PolicyEnsemble) and ens.names == MEMBERS
    members = [read_policy(SHIPPED_MODELS / m) for m in MEMBERS]
    obs, masks = real
    assert (masks.sum(1) > 1).sum() > 500
    for o, m in zip(obs[:400], masks[:400], strict=True):
        p = ens.masked_probs(o, m)
        logs = np.mean(
            [np.log(np.maximum(x.masked_probs(o, m).astype(np.float64), 1e-300)) for x in members], 0
        )
        want = np.exp(logs - logs[m].max()) * m
        want /= want.sum()
        assert np.allclose(p, want, atol=2e-5), (p, want)
        assert p[~m].max(initial=0.0) == 0.0 and abs(float(p.sum()) - 1.0) < 1e-5
    # it is neither member: on real decisions it disagrees with each sometimes
    mine = np.array([np.argmax(ens.masked_probs(o, m)) for o, m in zip(obs, masks, strict=True)])
    for x in members:
        theirs = np.array([np.argmax(x.masked_probs(o, m)) for o, m in zip(obs, masks, strict=True)])
        assert 0 < (mine != theirs).sum() < 0.5 * len(obs)


def test_copies_of_one_policy_play_that_policy(real, tmp_path):
    """Members with the same features share their inputs; two copies of one clone are that clone."""
    one = SHIPPED_MODELS / "ei2_kakeya"
    twice = read_model(Path(write_ensemble({"a": one, "b": one}, tmp_path / "twice", {"name": "t"})))
    member = read_policy(one)
    obs, masks = real
    got = twice.masked_probs_batch(obs, masks)
    want = member.masked_probs_batch(obs, masks)
    assert np.allclose(got, want, atol=1e-6)
    assert np.array_equal(got.argmax(1), want.argmax(1))


def test_batched_play_equals_single_play_bit_for_bit(pair, real):
    ens = read_model(pair)
    obs, masks = real
    batch = ens.masked_probs_batch(obs, masks)
    single = np.stack([ens.masked_probs(o, m) for o, m in zip(obs, masks, strict=True)])
    assert np.array_equal(batch, single)


def _seat_features_member(out: Path) -> Path:
    """A `cards_seats` policy file (random weights of ``ei2_kakeya``'s sizes): its features extend
    `cards`, which ``ei2_kakeya`` takes."""
    from kabu_envs.agents.features import FeatureInputs
    from kabu_envs.agents.policy_file import policy_from_arrays, write_policy

    base = read_policy(SHIPPED_MODELS / "ei2_kakeya")
    width = base.obs_size + FeatureInputs("kakeya", "cards_seats", {}).size
    rng = np.random.default_rng(5)
    arrays = {k: (rng.standard_normal(v.shape) * 0.05).astype(np.float32) for k, v in base.arrays.items()}
    for head in ("pi", "vf"):
        arrays[f"{head}.0.weight"] = (rng.standard_normal((512, width)) * 0.05).astype(np.float32)
    layers = {"pi": base.policy_layers, "vf": base.value_layers}
    seats = policy_from_arrays(
        arrays,
        layers,
        base.activation,
        "kakeya",
        "partnership",
        {},
        {"name": "seats"},
        features="cards_seats",
    )
    write_policy(seats, out)
    return out


def test_an_extended_feature_set_is_read_off_the_extending_one(real, monkeypatch, tmp_path):
    """Members taking `cards` and `cards_seats` (which extends it): the features are computed once, and
    the play is bit for bit what each member computing its own inputs gives."""
    from kabu_envs.agents import features

    seats = _seat_features_member(tmp_path / "seats")
    out = write_ensemble(
        {"ei2_kakeya": SHIPPED_MODELS / "ei2_kakeya", "seats": seats}, tmp_path / "e", {"name": "e"}
    )
    ens = read_model(out)
    assert [m.features for m in ens.members] == ["cards", "cards_seats"]
    width = ens.members[1].input_size
    assert ens._plan == {
        "cards": ("cards_seats", ens.members[0].input_size),
        "cards_seats": ("cards_seats", width),
    }
    own = read_model(out)
    own._plan = {f: (f, width) for f, (_, width) in own._plan.items()}
    obs, masks = real
    calls: list[str] = []
    call = features.FeatureInputs.__call__
    monkeypatch.setattr(
        features.FeatureInputs, "__call__", lambda self, x: calls.append(self.name) or call(self, x)
    )
    got = ens.masked_probs_batch(obs, masks)
    assert calls == ["cards_seats"]
    assert np.array_equal(got, own.masked_probs_batch(obs, masks))
    assert calls == ["cards_seats", "cards", "cards_seats"]
    o, m = obs[7], masks[7]
    assert np.array_equal(ens.masked_probs(o, m), own.masked_probs(o, m))


def test_an_ensemble_is_an_agent_name_and_plays_a_match(pair, tmp_path, monkeypatch):
    from kabu_envs.eval.games import matchup

    models = tmp_path / "models"
    shutil.copytree(pair, models / "pair")
    monkeypatch.setenv("KABU_MODELS_DIR", str(models))
    assert shipped_models() == ["pair"]
    agent = make_agent("kakeya", "pair", 0, role="partnership")
    assert agent.name == "pair" and agent.capabilities.batch
    other = make_agent("kakeya", "scripted", 1)
    batched = matchup("kakeya", agent, other, "partnership", deals=6, seed=5)
    single = matchup("kakeya", agent, other, "partnership", deals=6, seed=5, batched=False)
    assert batched.summary().n == 6 and batched.summary().mean == single.summary().mean
    with pytest.raises(ValueError, match="does not fit"):
        make_agent("kakeya", "pair", 0, role="partnership", num_players=6, six_player_mode="all_play")
    agent.save(tmp_path / "saved")
    assert read_ensemble(tmp_path / "saved").names == MEMBERS


def test_bad_ensembles_are_refused_with_the_reason(pair, tmp_path):
    def edited(fn) -> Path:
        d = tmp_path / f"e{len(list(tmp_path.iterdir()))}"
        shutil.copytree(pair, d)
        fn(d)
        return d

    def record(d: Path, **change) -> None:
        rec = json.loads((d / "policy.json").read_text())
        rec.update(change)
        (d / "policy.json").write_text(json.dumps(rec))

    def swap_member(d: Path) -> None:
        p = d / "members" / "ei_kakeya" / "policy.json"
        p.write_text(p.read_text().replace('"timesteps": 0', '"timesteps": 1'))

    def rename_member(d: Path, name: str) -> None:
        rec = json.loads((d / "policy.json").read_text())
        rec["members"][1]["name"] = name
        (d / "policy.json").write_text(json.dumps(rec))
        shutil.rmtree(d / "members" / "ei_kakeya")

    def shipped_instead(d: Path) -> None:  # the copy gone: the shipped model of its name, other bytes
        shutil.rmtree(d / "members" / "ei_kakeya")
        rec = json.loads((d / "policy.json").read_text())
        rec["members"][1]["record_sha256"] = "0" * 64
        (d / "policy.json").write_text(json.dumps(rec))

    cases = [
        (shipped_instead, r"member 'ei_kakeya': its policy.json does not match .*found at .*ei_kakeya"),
        (lambda d: record(d, combine="max"), "unknown combine rule 'max'"),
        (lambda d: record(d, extra=1), r"unknown key\(s\) \['extra'\]"),
        (lambda d: record(d, format_version=2), "format_version 2 is not supported"),
        (lambda d: record(d, members=json.loads((d / "policy.json").read_text())["members"][:1]), ">= 2"),
        (lambda d: rename_member(d, "no_such_model"), "member 'no_such_model' is missing"),
        (swap_member, "member 'ei_kakeya': its policy.json does not match the record_sha256"),
        (lambda d: record(d, members=[{"name": "../x", "record_sha256": "0"}] * 2), "plain folder name"),
    ]
    for fn, message in cases:
        with pytest.raises(ValueError, match=message):
            read_model(edited(fn))
    with pytest.raises(ValueError, match="every member must fit the same table"):
        write_ensemble(
            {"a": SHIPPED_MODELS / "ei2_kakeya", "b": SHIPPED_MODELS / "ppo_oicho_dealer"},
            tmp_path / "mixed",
            {"name": "mixed"},
        )
    # one network is asked for (training's init_from, export): the ensemble says what it is
    with pytest.raises(ValueError, match="is an ensemble of policy files"):
        read_policy(pair)


def test_the_command_writes_the_ensemble_with_its_members_records(tmp_path, monkeypatch, capsys):
    out = make_ensemble("duo", list(MEMBERS), tmp_path / "runs" / "duo")
    assert out == tmp_path / "runs" / "duo" / "model"
    assert read_ensemble(out).names == MEMBERS
    # members given by a model's name are named (name and checksum), not copied: read from the models
    assert not (out / "members").exists()
    assert member_records(out) == {m: SHIPPED_MODELS / m / "policy.json" for m in MEMBERS}
    paths = [str(SHIPPED_MODELS / m) for m in MEMBERS]
    copied = make_ensemble("duo", paths, tmp_path / "runs" / "copied")
    for m in MEMBERS:  # given by path, each member's own run record (config, seed, versions) travels with it
        assert (copied / "members" / m / "run.json").read_bytes() == (
            SHIPPED_MODELS / m / "run.json"
        ).read_bytes()
    recipe = json.loads((out / "recipe.json").read_text())
    assert [r["name"] for r in recipe["members"]] == list(MEMBERS) and "numpy" in recipe["versions"]
    models = tmp_path / "models"
    models.mkdir()
    monkeypatch.setenv("KABU_MODELS_DIR", str(models))
    assert ensemble_main(["duo", *paths, "--out", str(tmp_path / "r2"), "--publish"]) == 0
    assert shipped_models() == ["duo"] and read_ensemble(models / "duo").names == MEMBERS
    assert ensemble_main(["trio", paths[0], paths[0], "--out", str(tmp_path / "r3")]) == 2
    assert "the same name" in capsys.readouterr().err


def test_the_shipped_ensemble_is_its_presets_clones_and_an_endgame_specialist_over_the_suit_rotations():
    """``ens_kakeya``: the shipped ``ei2_kakeya`` and ``ei_kakeya``, named by checksum (their run records
    their presets' configs, so each reproduces by one command) in the main stage, the endgame specialist
    (its run record: the specialist command's settings) in the endgame, over Kakeya's suit rotations,
    made by the command its recipe records, with a curve of its own: a point per member."""
    from kabu_envs.eval.curve_file import read_curve
    from kabu_envs.training.config import load_config, load_run_config

    d = SHIPPED_MODELS / "ens_kakeya"
    ens = read_ensemble(d)
    members = {"ei2_kakeya": "kakeya_ei2", "ei_kakeya": "kakeya_ei"}
    assert ens.names == (*members, "endgame_kakeya") and ens.views == "suit_rotations"
    assert ens.stages == "endgame" and ens.member_stages == (("main",), ("main",), ("endgame",))
    assert ens.training["name"] == "ens_kakeya"
    # the clones are the shipped models of their names (pinned by checksum), not copies; the specialist,
    # no model of its own, is the one member the ensemble carries
    assert member_records(d) == {
        "ei2_kakeya": SHIPPED_MODELS / "ei2_kakeya" / "policy.json",
        "ei_kakeya": SHIPPED_MODELS / "ei_kakeya" / "policy.json",
        "endgame_kakeya": d / "members" / "endgame_kakeya" / "policy.json",
    }
    assert sorted(p.name for p in (d / "members").iterdir()) == ["endgame_kakeya"]
    then = {"expert": "expert_0_3"}  # (the records' name of the search the presets now call expert_0_3)
    for member, preset in members.items():
        run = load_run_config(SHIPPED_MODELS / member / "run.json").to_dict()
        run["bc"]["teacher"] = then.get(run["bc"]["teacher"], run["bc"]["teacher"])
        for r in run["dagger"]["rounds"]:
            if r.get("opponents"):
                r["opponents"] = {then.get(k, k): w for k, w in r["opponents"].items()}
        assert run == load_config(preset).to_dict()
    spec = json.loads((d / "members" / "endgame_kakeya" / "run.json").read_text())
    assert spec["kind"] == "stage specialist" and spec["config"]["name"] == "endgame_kakeya"
    assert spec["config"] | {"name": "x"} == SPECIALIST | {"name": "x"}
    recipe = json.loads((d / "recipe.json").read_text())
    assert recipe["command"] == (
        "python -m kabu_envs.training.ensemble ens_kakeya ei2_kakeya ei_kakeya runs/endgame_kakeya "
        "--views suit_rotations --stages endgame --plays ei2_kakeya=main --plays ei_kakeya=main "
        "--plays endgame_kakeya=endgame"
    )
    curve = read_curve(d / "curve.csv")
    assert sorted(curve) == ["expert", "expert_0_2"] and all(len(c["mean"]) == 3 for c in curve.values())


# the endgame specialist's settings (python -m kabu_envs.training.specialist endgame_kakeya ...)
SPECIALIST = {
    "name": "endgame_kakeya",
    "base": "ei2_kakeya",
    "init": "ei2_kakeya",
    "teacher": "expert",
    "stages": "endgame",
    "stage": "endgame",
    "deals": 120000,
    "workers": 2,
    "seed": 5,
    "beta": 0.5,
    "explore": 0.3,
    "chunk": 256,
    "epochs": 4,
    "lr": 0.0005,
    "batch_size": 512,
    "smoothing": 0.0,
    "temperature": 0.1,
    "holdout": 0.03,
}


def test_the_shipped_endgame_specialist_is_reproduced_by_its_settings():
    """Its run record's settings give, from the shipped base and init models (their record checksums as
    recorded), worker 0's first chunk of labelled decisions again, bit for bit (its recorded checksum)."""
    import dataclasses

    from kabu_envs.training.specialist import SpecialistConfig, _record_sha, collect_worker, decisions_sha256

    spec = json.loads((SHIPPED_MODELS / "ens_kakeya" / "members" / "endgame_kakeya" / "run.json").read_text())
    assert spec["config"]["teacher"] == "expert"  # the search called expert_0_3 since: its labels
    cfg = SpecialistConfig(**{**spec["config"], "teacher": "expert_0_3"})
    assert spec["models"] == {k: _record_sha(getattr(cfg, k)) for k in ("base", "init")}
    first = spec["bc"]["first_chunk"]
    data = collect_worker(dataclasses.replace(cfg, deals=cfg.chunk * cfg.workers), 0)
    assert first == {"decisions": len(data), "sha256": decisions_sha256(data)}


@pytest.fixture(scope="module")
def viewed(tmp_path_factory) -> Path:
    """``ei2_kakeya`` alone over Kakeya's suit renamings, made by the command."""
    out = tmp_path_factory.mktemp("views")
    assert ensemble_main(["viewed", "ei2_kakeya", "--views", "suits", "--out", str(out)]) == 0
    return out / "model"


def test_a_new_ensemble_records_its_provenance(viewed):
    """Its table's env id with its version and the resolved rules, as a training run's policy file."""
    from kabu_envs import __version__, registry

    training = json.loads((viewed / "policy.json").read_text())["training"]
    spec = registry.get("kakeya")
    assert training["env_id"] == spec.pettingzoo_id == "kabu_envs/Kakeya-v2"
    assert training["view_id"] == "kabu_envs/Kakeya-v2" and training["package_version"] == __version__
    assert training["rule_options"] == spec.config().as_dict() and "git_commit" in training
    assert read_model(viewed).training == training


def test_over_views_it_plays_the_mean_of_the_renamed_decisions(viewed, real):
    """Each decision: the member's masked log-probabilities on every renaming that applies (the
    decision's suits renamed, its moves renamed back), averaged; the trump choice has the identity only."""
    from kabu_envs.agents.symmetry import SymmetricViews

    ens = read_model(viewed)
    assert ens.views == "suits" and ens.names == ("ei2_kakeya",) and "over the suits views" in ens.describe()
    member = read_policy(SHIPPED_MODELS / "ei2_kakeya")
    views = SymmetricViews("kakeya", "suits", {})
    obs, masks = real
    row, element, view_obs, view_masks = views.views(obs[:300], masks[:300])
    counts = np.bincount(row, minlength=300)
    assert set(counts) <= {1, 2, 6} and (counts == 6).any() and (counts == 2).any()
    for r in range(300):
        at = np.flatnonzero(row == r)
        logs = [
            np.log(np.maximum(member.masked_probs(view_obs[i], view_masks[i]).astype(np.float64), 1e-300))
            for i in at
        ]
        mean = np.mean(
            [views.back(lp[None], element[i : i + 1])[0] for lp, i in zip(logs, at, strict=True)], 0
        )
        m = masks[r]
        want = np.exp(mean - mean[m].max()) * m
        want /= want.sum()
        got = ens.masked_probs(obs[r], m)
        assert np.allclose(got, want, atol=2e-5)
        if counts[r] == 1:
            assert np.allclose(got, member.masked_probs(obs[r], m), atol=1e-6)
    batch = ens.masked_probs_batch(obs, masks)
    assert np.array_equal(batch, np.stack([ens.masked_probs(o, m) for o, m in zip(obs, masks, strict=True)]))
    assert ens._sources is not None  # the features relabeled, not computed per view: the same bits
    computed = read_model(viewed)
    computed._sources = None
    assert np.array_equal(computed.masked_probs_batch(obs, masks), batch)
    recipe = json.loads((viewed.parent / "model" / "recipe.json").read_text())
    assert recipe["views"] == "suits" and recipe["command"].endswith("ei2_kakeya --views suits")


def test_the_shipped_model_plays_the_mean_over_its_stages_members_and_views(real):
    """``ens_kakeya``: each main-stage decision, both clones' masked log-probabilities on every suit
    rotation that applies (``ei_kakeya`` reads the rotated observation, ``ei2_kakeya`` its features);
    each endgame decision, the specialist's on every rotation; moved back and averaged; batched play
    equal to single play."""
    from kabu_envs.agents.stages import StageSplit
    from kabu_envs.agents.symmetry import SymmetricViews

    ens = read_model(SHIPPED_MODELS / "ens_kakeya")
    members = [read_policy(p) for p in member_records(SHIPPED_MODELS / "ens_kakeya").values()]
    assert [m.features for m in members] == ["cards", None, "cards"]
    views = SymmetricViews("kakeya", "suit_rotations", {})
    obs, masks = real
    n = 300
    stage = StageSplit("kakeya", "endgame", {}).of(obs[:n])
    assert 30 < stage.sum() < n - 30
    row, element, view_obs, view_masks = views.views(obs[:n], masks[:n])
    counts = np.bincount(row, minlength=n)
    assert set(counts) <= {1, 2, 3} and (counts == 3).any() and (counts == 1).any()
    for r in range(n):
        at = np.flatnonzero(row == r)
        playing = members[2:] if stage[r] else members[:2]
        probs = [(p.masked_probs(view_obs[i], view_masks[i]), i) for p in playing for i in at]
        logs = [
            views.back(np.log(np.maximum(q.astype(np.float64), 1e-300))[None], element[i : i + 1])[0]
            for q, i in probs
        ]
        mean = np.mean(logs, 0)
        m = masks[r]
        want = np.exp(mean - mean[m].max()) * m
        want /= want.sum()
        assert np.allclose(ens.masked_probs(obs[r], m), want, atol=2e-5)
    batch = ens.masked_probs_batch(obs[:n], masks[:n])
    single = np.stack([ens.masked_probs(o, m) for o, m in zip(obs[:n], masks[:n], strict=True)])
    assert np.array_equal(batch, single)


def test_views_in_the_record_are_checked(viewed, tmp_path, capsys):
    rec = json.loads((viewed / "policy.json").read_text())
    assert rec["views"] == "suits"
    for change, match in (
        (
            {"views": "seats"},
            r"views: unknown policy symmetries 'seats' for kakeya; known: \['suit_rotations', 'suits'\]",
        ),
        ({"views": 3}, "views"),
        ({"views": None}, "number of members: must be >= 2, got 1"),
    ):
        d = tmp_path / f"v{len(list(tmp_path.iterdir()))}"
        shutil.copytree(viewed, d)
        (d / "policy.json").write_text(json.dumps(rec | change))
        with pytest.raises(ValueError, match=match):
            read_model(d)
    with pytest.raises(SystemExit):
        ensemble_main(["one", "ei2_kakeya", "--out", str(tmp_path / "one")])
    assert "at least 2 members (1 with --views)" in capsys.readouterr().err
