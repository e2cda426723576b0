"""Behaviour-cloning warm start (training/bc.py): data, masked fit, config keys, run record."""

import json

import numpy as np
import pytest
import torch

from kabu_envs.agents.registry import make_agent
from kabu_envs.toy_card.agents import ScriptedAgent as ToyScriptedAgent
from kabu_envs.toy_card.game import Action
from kabu_envs.training.bc import agreement, collect, fit
from kabu_envs.training.config import load_config

torch.set_num_threads(1)
PASS, RAISE = Action.PASS, Action.RAISE


def test_collect_records_teacher_actions_masks_and_returns(toy_view):
    view = toy_view(num_players=3, learner_seats=[0, 1, 2], opponents="random", seed=0)
    data = collect(view, ToyScriptedAgent(), 300, seed=4, reward_scale=0.5)
    assert len(data) >= 300 and data.episodes == len(data)  # one decision per toy episode
    high = data.obs[:, :10].argmax(1) >= 5
    assert np.all(data.actions[high] == RAISE) and np.all(data.actions[~high] == PASS)
    assert np.all(data.masks[np.arange(len(data)), data.actions])  # teacher moves are legal
    assert not data.masks[~high, RAISE].any()
    # one decision per episode: the return is the episode's scaled reward; a raised high card never loses
    assert np.all(data.returns[high] >= 0) and np.all(data.returns[~high] <= 0.5 * 2)
    again = collect(
        toy_view(num_players=3, learner_seats=[0, 1, 2], opponents="random", seed=0),
        ToyScriptedAgent(),
        300,
        seed=4,
        reward_scale=0.5,
    )
    assert np.array_equal(again.actions, data.actions) and np.array_equal(again.returns, data.returns)
    with pytest.raises(ValueError, match="bc.steps"):
        collect(view, ToyScriptedAgent(), 0, seed=0)


def test_fit_reproduces_the_teacher_and_smoothing_keeps_exploration(toy_view):
    from sb3_contrib import MaskablePPO

    view = toy_view(num_players=2, learner_seats=[0, 1], opponents="random", seed=1)
    data = collect(view, ToyScriptedAgent(), 600, seed=2)
    model = MaskablePPO("MlpPolicy", view, seed=0, device="cpu", policy_kwargs={"net_arch": [32]})
    before = agreement(model.policy, data)
    stats = fit(model.policy, data, epochs=30, lr=3e-3, batch_size=64, vf_coef=0.5, seed=0, smoothing=0.1)
    assert stats["accuracy"] == 1.0 and before < 0.9
    obs, mask = data.obs[:1], data.masks[:1]
    with torch.no_grad():
        p = model.policy.get_distribution(torch.as_tensor(obs), action_masks=mask).distribution.probs[0]
    teacher = data.actions[0]
    assert 0.8 < float(p[teacher]) < 0.99  # the clone still explores (smoothing 0.1)
    assert float(p[~torch.as_tensor(mask[0])].sum()) == 0.0
    # the value head learnt the sign of the returns: high cards are worth more than low ones
    with torch.no_grad():
        v = model.policy.predict_values(torch.as_tensor(data.obs)).numpy().ravel()
    high = data.obs[:, :10].argmax(1) >= 5
    assert v[high].mean() > v[~high].mean() + 0.3


def test_bc_config_keys_validate():
    cfg = load_config("ppo_toy_card", bc={"teacher": "scripted", "steps": 100})
    assert cfg.bc.epochs == 10 and cfg.bc.smoothing == 0.0
    assert load_config("ppo_toy_card").bc.teacher is None
    with pytest.raises(ValueError, match=r"unknown config key bc\.'step'"):
        load_config("ppo_toy_card", bc={"teacher": "scripted", "step": 100})
    with pytest.raises(ValueError, match="unknown bc.teacher"):
        load_config("ppo_toy_card", bc={"teacher": "oracle"})
    with pytest.raises(ValueError, match="must be positive"):
        load_config("ppo_toy_card", bc={"teacher": "scripted", "epochs": 0})
    with pytest.raises(ValueError, match="smoothing"):
        load_config("ppo_toy_card", bc={"teacher": "scripted", "smoothing": 1.0})
    with pytest.raises(ValueError, match="exclude each other"):
        load_config("ppo_toy_card", bc={"teacher": "scripted"}, init_from="models/x")


def test_training_with_bc_records_the_warm_start(tmp_path, toy_view):
    from kabu_envs.training.run import train

    cfg = load_config(
        "ppo_toy_card",
        timesteps=512,
        eval_deals=0,
        bc={"teacher": "scripted", "steps": 400, "epochs": 20, "lr": 3e-3, "batch_size": 64},
    )
    train(cfg, out=tmp_path / "ppo_toy", progress_bar=False)
    run = json.loads((tmp_path / "ppo_toy" / "model" / "run.json").read_text())
    assert run["bc"]["teacher"] == "scripted" and run["bc"]["decisions"] >= 400
    assert run["bc"]["accuracy"] >= 0.95
    assert run["config"]["bc"]["steps"] == 400
    assert (tmp_path / "ppo_toy" / "work" / "bc_policy" / "policy.npz").is_file()
    clone = make_agent("toy_card", str(tmp_path / "ppo_toy" / "work" / "bc_policy"), 0)
    teacher = ToyScriptedAgent()
    view = toy_view(num_players=2, learner_seats=[0], seed=3)
    same = 0
    for s in range(100):
        obs, _ = view.reset(seed=s)
        mask = view.action_masks().astype(np.int8)
        same += clone.act(obs, mask) == teacher.act(obs, mask)
    assert same >= 95
