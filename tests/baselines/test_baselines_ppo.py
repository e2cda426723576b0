"""PPOAgent masks, fast actor, registry, and a seconds-long training run that beats random."""

import json

import numpy as np
import pytest
import torch

from kabu_envs.agents.base import RandomAgent
from kabu_envs.agents.ppo_agent import PPOAgent
from kabu_envs.agents.registry import make_agent
from kabu_envs.eval.games import matchup
from kabu_envs.toy_card.game import Action
from kabu_envs.training.config import load_config

torch.set_num_threads(1)
RAISE = Action.RAISE


def _model_preferring_raise(toy_view):
    from sb3_contrib import MaskablePPO

    env = toy_view(num_players=2, learner_seats=[0])
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0, device="cpu")
    with torch.no_grad():
        model.policy.action_net.weight.zero_()
        model.policy.action_net.bias[:] = torch.tensor([0.0, 0.0, 50.0])
    return model, env


def test_mask_reaches_predict_and_unmasked_argmax_would_be_illegal(toy_view):
    model, env = _model_preferring_raise(toy_view)
    obs, _ = env.reset(seed=0, options={"deck": [8]})  # card value 2: RAISE is illegal
    mask = env.action_masks()
    assert not mask[RAISE]
    unmasked, _ = model.predict(obs, deterministic=True)
    assert int(unmasked) == RAISE  # what sb3-contrib #212 would play
    for fast in (False, True):
        for deterministic in (True, False):
            agent = PPOAgent(model=model, fast=fast, deterministic=deterministic, seed=1)
            assert {agent.act(obs, mask.astype(np.int8)) for _ in range(20)} <= {0, 1}
    p = PPOAgent(model=model).action_probs(obs, mask)
    assert p[RAISE] == 0.0 and p.sum() == pytest.approx(1.0)


def test_fast_actor_matches_predict_on_random_weights(toy_view):
    from sb3_contrib import MaskablePPO

    env = toy_view(num_players=3, learner_seats=[0, 1, 2])
    model = MaskablePPO("MlpPolicy", env, seed=3, device="cpu", policy_kwargs={"net_arch": [16, 16]})
    slow, fast = PPOAgent(model=model), PPOAgent(model=model, fast=True)
    rng = np.random.default_rng(0)
    for _ in range(50):
        obs = rng.random(env.observation_space.shape).astype(np.float32)
        mask = (rng.random(3) < 0.7).astype(np.int8)
        mask[rng.integers(3)] = 1
        assert slow.act(obs, mask) == fast.act(obs, mask)


def test_registry_names_and_errors(tmp_path):
    assert isinstance(make_agent("toy_card", "random", 0), RandomAgent)
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("toy_card", "alphazero")
    with pytest.raises(ValueError, match="no model found"):
        make_agent("toy_card", "ppo_does_not_exist")
    with pytest.raises(ValueError, match="unknown game"):
        make_agent("chess", "random")
    from kabu_envs.oicho_kabu.agents.expert import OichoExpertAgent
    from kabu_envs.oicho_kabu.agents.scripted import OichoScriptedAgent

    assert type(make_agent("oicho_kabu", "scripted", 0, rules="kansai")) is OichoScriptedAgent
    expert = make_agent("oicho_kabu", "expert", 0, rules="kansai")
    assert type(expert) is OichoExpertAgent and expert.cfg.free_draw
    from kabu_envs.kakeya.agents.expert import KakeyaExpert02Agent
    from kabu_envs.kakeya.agents.kernel_expert import KakeyaExpert03Agent
    from kabu_envs.kakeya.agents.net_expert import KakeyaNetExpertAgent

    assert type(make_agent("kakeya", "expert", 0)) is KakeyaNetExpertAgent
    assert type(make_agent("kakeya", "expert_0_3", 0)) is KakeyaExpert03Agent
    assert type(make_agent("kakeya", "expert_0_2", 0)) is KakeyaExpert02Agent
    with pytest.raises(ValueError, match="unknown agent .alphazero. for Kakeya"):
        make_agent("kakeya", "alphazero")


def test_config_validation():
    with pytest.raises(ValueError, match="unknown config key"):
        load_config({"name": "x", "game": "toy_card", "role": "seat", "timestep": 5})
    with pytest.raises(ValueError, match="role"):
        load_config({"name": "x", "game": "oicho_kabu", "role": "banker"})
    with pytest.raises(ValueError, match="no config file or preset"):
        load_config("no_such_preset")
    cfg = load_config("ppo_toy_card", seed=7)
    assert cfg.seed == 7 and cfg.ppo.gamma == 1.0


def test_short_training_beats_random_with_ci_above_zero(tmp_path):
    from kabu_envs.training.run import train

    cfg = load_config("ppo_toy_card", timesteps=3072, eval_deals=0)
    record = train(cfg, out=tmp_path / "ppo_toy", progress_bar=False)
    model_dir = tmp_path / "ppo_toy" / "model"
    run = json.loads((model_dir / "run.json").read_text())
    assert run["seed"] == 0 and run["versions"]["sb3-contrib"] and run["config"]["timesteps"] == 3072
    assert record["timesteps"] >= 3072 and (model_dir / "progress.csv").is_file()
    assert not list((tmp_path / "ppo_toy").rglob("*.zip"))  # no pickles anywhere in the run
    agent = make_agent("toy_card", str(model_dir), 0)
    s = matchup("toy_card", agent, RandomAgent(seed=1), deals=400, seed=9).summary()
    assert s.lo > 0, s
    more = load_config("ppo_toy_card", timesteps=512, eval_deals=0, init_from=str(model_dir))
    assert train(more, out=tmp_path / "more", progress_bar=False)["timesteps"] >= 3072 + 512
