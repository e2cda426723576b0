"""Policy files with policy features (agents/features.py): the network takes the observation and the
game's derived inputs. Written from a MaskablePPO model trained on those inputs, read back strictly,
played in numpy exactly as the torch model plays; training carries them (PPO, snapshots, init_from)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from policy_testlib import decisions

from kabu_envs.agents.features import FeatureInputs
from kabu_envs.agents.policy_file import policy_from_sb3, read_policy, write_policy
from kabu_envs.agents.ppo_agent import PPOAgent
from kabu_envs.agents.registry import SHIPPED_MODELS, make_agent
from kabu_envs.training.config import load_config

torch = pytest.importorskip("torch")
torch.set_num_threads(1)
NO_BC = {"bc": {"teacher": None}, "dagger": {"iterations": 0}}  # the preset's warm start off


def _view(**opts):
    from kabu_envs.wrappers.views import make_view

    return make_view("kakeya", role="partnership", opponents=["scripted", "random"], seed=0, **opts)


def _model(seed: int = 0, **opts):
    """A fresh MaskablePPO on [observation, cards features] (random weights, as a run starts)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from kabu_envs.training.batch_vec_env import VecFeatures

    inputs = FeatureInputs("kakeya", "cards", opts)
    vec = VecFeatures(DummyVecEnv([lambda: _view(**opts)]), inputs)
    model = MaskablePPO("MlpPolicy", vec, seed=seed, device="cpu", policy_kwargs={"net_arch": [64, 64]})
    return model, inputs


def _observations(n: int, **opts) -> tuple[np.ndarray, np.ndarray]:
    return decisions(_view(**opts), n, 3)


@pytest.mark.parametrize("opts", [{}, {"num_players": 6}], ids=["4p", "6p"])
def test_a_features_policy_file_plays_in_numpy_as_the_torch_model_plays(tmp_path, opts):
    model, inputs = _model(**opts)
    policy = policy_from_sb3(model.policy, "kakeya", "partnership", opts, features="cards")
    write_policy(policy, tmp_path / "p")
    rec = json.loads((tmp_path / "p" / "policy.json").read_text())
    assert rec["features"] == "cards" and rec["obs_size"] == _view(**opts).observation_space.shape[0]
    back = read_policy(tmp_path / "p")
    assert back.features == "cards" and back.input_size == rec["obs_size"] + inputs.size
    assert "features cards" in back.describe()
    agent = make_agent("kakeya", str(tmp_path / "p"), 0, role="partnership", **opts)
    obs, masks = _observations(1500, **opts)
    want, _ = model.predict(inputs(obs), action_masks=masks, deterministic=True)
    got = np.array([agent.act(o, m.astype(np.int8)) for o, m in zip(obs, masks, strict=True)])
    assert (masks.sum(1) > 1).sum() > 300
    assert np.array_equal(got, want)
    assert np.array_equal(agent.act_batch(obs, masks), got)  # batched numpy: the same actions
    rows = np.stack([back.logits(o) for o in obs[:200]])
    assert np.array_equal(back.logits_batch(obs[:200]), rows)  # bit for bit
    # an in-memory model with the same inputs plays the same (the self-play snapshots), slow or fast
    for fast in (False, True):
        mem = PPOAgent(model=model, fast=fast, inputs=inputs)
        mem.check_fits(obs_size=obs.shape[1], num_actions=masks.shape[1])
        assert [mem.act(o, m) for o, m in zip(obs[:200], masks[:200], strict=True)] == got[:200].tolist()
    with pytest.raises(ValueError, match="inputs are for an in-memory model"):
        PPOAgent(path=tmp_path / "p", inputs=inputs)


def test_a_policy_without_features_writes_the_record_it_always_wrote(tmp_path):
    src = SHIPPED_MODELS / "ei_kakeya"
    write_policy(read_policy(src), tmp_path / "same")
    assert (tmp_path / "same" / "policy.json").read_text() == (src / "policy.json").read_text()
    assert "features" not in json.loads((src / "policy.json").read_text())


def _edit(d: Path, **changes) -> None:
    rec = json.loads((d / "policy.json").read_text())
    rec.update(changes)
    (d / "policy.json").write_text(json.dumps(rec))


def test_a_bad_features_entry_is_refused_with_a_message_that_names_it(tmp_path):
    model, _ = _model()
    write_policy(policy_from_sb3(model.policy, "kakeya", "partnership", {}, features="cards"), tmp_path / "p")
    _edit(tmp_path / "p", features="tricks")
    with pytest.raises(
        ValueError, match=r"unknown policy features 'tricks' for kakeya; known: \['cards', 'cards_seats'\]"
    ):
        read_policy(tmp_path / "p")
    _edit(tmp_path / "p", features=7)
    with pytest.raises(ValueError, match="features: must be a non-empty string"):
        read_policy(tmp_path / "p")
    # a plain policy's weights under a features record: the first layer does not fit
    write_policy(read_policy(SHIPPED_MODELS / "ppo_kakeya"), tmp_path / "plain")
    _edit(tmp_path / "plain", features="cards")
    with pytest.raises(
        ValueError, match=r"array 'pi.0.weight' has shape \(256, 446\), the architecture needs"
    ):
        read_policy(tmp_path / "plain")
    # a model trained with features, converted without naming them, does not fit the table
    with pytest.raises(ValueError, match="does not fit kakeya"):
        policy_from_sb3(model.policy, "kakeya", "partnership", {})


def test_a_config_names_known_features_and_init_from_keeps_its_own():
    with pytest.raises(
        ValueError, match=r"unknown policy features 'tricks' for kakeya; known: \['cards', 'cards_seats'\]"
    ):
        load_config("kakeya", **NO_BC, policy_kwargs={"net_arch": [64], "features": "tricks"})
    from kabu_envs.training.run import policy_features

    assert policy_features(load_config("kakeya_ei2")) == "cards"
    assert policy_features(load_config("kakeya")) is None
    plain = load_config(
        "kakeya",
        init_from="ei_kakeya",
        **NO_BC,
        policy_kwargs={"net_arch": [64], "features": "cards"},
    )
    with pytest.raises(
        ValueError, match=r"features 'cards' differ from init_from 'ei_kakeya''s features None"
    ):
        policy_features(plain)


def test_a_short_ppo_run_with_features_trains_snapshots_and_continues(tmp_path):
    from kabu_envs.training.run import train

    over = {
        "timesteps": 1024,
        "n_envs": 2,
        "eval_deals": 0,
        "checkpoint_every": 512,
        "opponents": {"random": 1.0},
        "self_play": {"weight": 0.5, "every": 256, "max_snapshots": 2},
        "ppo": {"n_steps": 256, "batch_size": 128, "n_epochs": 1},
        "policy_kwargs": {"net_arch": [32, 32], "features": "cards"},
        "bc": {"teacher": None},
        "dagger": {"iterations": 0},
    }
    record = train(load_config("kakeya", **over), out=tmp_path / "f", progress_bar=False)
    assert record["snapshots_added"] >= 2
    policy = read_policy(tmp_path / "f" / "model")
    assert policy.features == "cards" and policy.policy_layers == (32, 32)
    agent = make_agent("kakeya", str(tmp_path / "f" / "model"), 0, role="partnership")
    obs, masks = _observations(50)
    assert all(masks[i, agent.act(obs[i], masks[i])] for i in range(len(obs)))
    # continuing from it keeps its features (its network wins, as its architecture does)
    more_over = {k: v for k, v in over.items() if k != "policy_kwargs"}
    more = load_config(
        "kakeya", **{**more_over, "timesteps": 256, "init_from": str(tmp_path / "f" / "model")}
    )
    train(more, out=tmp_path / "g", progress_bar=False)
    assert read_policy(tmp_path / "g" / "model").features == "cards"


def test_extends_chains_are_followed_and_bad_ones_refused(monkeypatch):
    from kabu_envs.agents import features
    from kabu_envs.agents.features import PolicyFeatures, prefix_sets

    assert prefix_sets("kakeya", "cards_seats") == ("cards",) and prefix_sets("kakeya", "cards") == ()
    one = PolicyFeatures(lambda o: 1, lambda x, o: x[:, :1], "one")
    table = {
        "a": one,
        "b": PolicyFeatures(one.size, one.compute, "b", extends="a"),
        "c": PolicyFeatures(one.size, one.compute, "c", extends="b"),
        "loop": PolicyFeatures(one.size, one.compute, "loop", extends="loop"),
        "lost": PolicyFeatures(one.size, one.compute, "lost", extends="nowhere"),
    }
    monkeypatch.setattr(features, "known_features", lambda game: table)
    assert prefix_sets("x", "c") == ("b", "a")
    for name in ("loop", "lost"):
        with pytest.raises(ValueError, match=f"policy features '{name}' of x: bad extends chain"):
            prefix_sets("x", name)
