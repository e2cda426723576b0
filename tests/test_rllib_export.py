"""The RLlib demo's parts that need no Ray: the env adapter and the RLModule -> policy-file conversion.

Run in every venv (CI's included). The parts that need Ray itself are in tests/test_rllib_demo.py.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from kabu_envs import registry
from kabu_envs.agents.registry import make_agent
from kabu_envs.eval.games import matchup
from kabu_envs.training.rllib_demo import parse_args, resolve_config, write_curve
from kabu_envs.training.rllib_env import MASK_KEY, OBS_KEY, make_aec
from kabu_envs.training.rllib_export import model_activation, policy_from_rllib_state, rllib_names

GAME = "kakeya"


def _sizes(game: str = GAME) -> tuple[int, int]:
    env = registry.get(game).make_env()
    seat = env.possible_agents[0]
    return int(env.observation_space(seat)["observation"].shape[0]), int(env.action_space(seat).n)


def fake_rllib_state(
    n_obs: int, n_act: int, hidden: list[int], head: list[int], shared: bool, seed: int = 0
) -> dict[str, np.ndarray]:
    """A state dict with the names and shapes RLlib's default PPO module gives (see rllib_export)."""
    rng = np.random.default_rng(seed)
    state: dict[str, np.ndarray] = {}

    def stack(prefix: str, sizes: list[int]) -> None:
        for i in range(len(sizes) - 1):
            state[f"{prefix}.{2 * i}.weight"] = rng.normal(0, 0.3, (sizes[i + 1], sizes[i])).astype(
                np.float32
            )
            state[f"{prefix}.{2 * i}.bias"] = rng.normal(0, 0.3, sizes[i + 1]).astype(np.float32)

    encoders = (
        ["encoder.encoder.net.mlp"]
        if shared
        else ["encoder.actor_encoder.net.mlp", "encoder.critic_encoder.net.mlp"]
    )
    for enc in encoders:
        stack(enc, [n_obs, *hidden])
    stack("pi.net.mlp", [hidden[-1], *head, n_act])
    stack("vf.net.mlp", [hidden[-1], *head, 1])
    state["pi.log_std_clip_param_const"] = np.array([20.0], dtype=np.float32)
    state["vf.log_std_clip_param_const"] = np.array([20.0], dtype=np.float32)
    return state


def rllib_forward(state: dict[str, np.ndarray], encoder: str, head: str, x: np.ndarray, act) -> np.ndarray:
    """RLlib's forward pass written out: every encoder layer and hidden head layer activated."""
    x = x.astype(np.float32)
    n_enc = len([k for k in state if k.startswith(encoder) and k.endswith(".weight")])
    for i in range(n_enc):
        x = act(state[f"{encoder}.{2 * i}.weight"] @ x + state[f"{encoder}.{2 * i}.bias"])
    n_head = len([k for k in state if k.startswith(head) and k.endswith(".weight")])
    for i in range(n_head):
        x = state[f"{head}.{2 * i}.weight"] @ x + state[f"{head}.{2 * i}.bias"]
        if i < n_head - 1:
            x = act(x)
    return x


def real_observations(n: int = 40, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    env = registry.get(GAME).make_env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        out.append((obs["observation"], obs["action_mask"]))
        if len(out) >= n:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


# --- the env adapter ---------------------------------------------------------------------------------------
def test_adapter_renames_the_keys_only() -> None:
    inner = registry.get(GAME).make_env()
    env = make_aec(GAME)
    inner.reset(seed=5)
    env.reset(seed=5)
    seat = env.possible_agents[0]
    space = env.observation_space(seat)
    assert set(space.spaces) == {OBS_KEY, MASK_KEY}
    assert space[OBS_KEY] == inner.observation_space(seat)["observation"]
    assert space[MASK_KEY] == inner.observation_space(seat)["action_mask"]
    rng = np.random.default_rng(0)
    steps = 0
    while env.agents:
        assert env.agent_selection == inner.agent_selection
        o, r, t, tr, _ = env.last()
        oi, ri, ti, tri, _ = inner.last()
        assert space.contains(o)
        np.testing.assert_array_equal(o[OBS_KEY], oi["observation"])
        np.testing.assert_array_equal(o[MASK_KEY], oi["action_mask"])
        assert (r, t, tr) == (ri, ti, tri)
        action = None if t or tr else int(rng.choice(np.flatnonzero(o[MASK_KEY])))
        env.step(action)
        inner.step(action)
        steps += 1
    assert steps > 50 and not inner.agents


def test_adapter_passes_pettingzoo_api_test() -> None:
    from pettingzoo.test import api_test

    api_test(make_aec(GAME), num_cycles=200)


# --- the conversion ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("hidden", "head", "shared", "activation"),
    [([32, 16], [], False, "tanh"), ([24], [8], True, "relu"), ([16, 16], [12], False, "tanh")],
)
def test_converted_policy_computes_rllib_forward_pass(hidden, head, shared, activation) -> None:
    n_obs, n_act = _sizes()
    state = fake_rllib_state(n_obs, n_act, hidden, head, shared)
    policy = policy_from_rllib_state(state, activation, GAME, "partnership", {}, {"seed": 3})
    act = np.tanh if activation == "tanh" else (lambda v: np.maximum(v, 0))
    actor = "encoder.encoder.net.mlp" if shared else "encoder.actor_encoder.net.mlp"
    critic = "encoder.encoder.net.mlp" if shared else "encoder.critic_encoder.net.mlp"
    assert policy.policy_layers == (*hidden, *head) and policy.value_layers == (*hidden, *head)
    for obs, mask in real_observations():
        want = rllib_forward(state, actor, "pi.net.mlp", obs, act)
        np.testing.assert_allclose(policy.logits(obs), want, rtol=1e-5, atol=1e-5)
        legal = np.flatnonzero(mask)
        assert int(np.argmax(policy.masked_probs(obs, mask))) == legal[np.argmax(want[legal])]
        # the critic is kept too (for training on from the file): the same function as RLlib's
        x = obs.astype(np.float32)
        n_vf = len(policy.value_layers)
        for i in range(n_vf + 1):
            x = policy.arrays[f"vf.{i}.weight"] @ x + policy.arrays[f"vf.{i}.bias"]
            x = act(x) if i < n_vf else x
        np.testing.assert_allclose(
            x, rllib_forward(state, critic, "vf.net.mlp", obs, act), rtol=1e-5, atol=1e-5
        )


def test_converted_policy_file_plays_through_make_agent(tmp_path) -> None:
    from kabu_envs.agents.policy_file import write_policy

    n_obs, n_act = _sizes()
    policy = policy_from_rllib_state(
        fake_rllib_state(n_obs, n_act, [16], [], False), "tanh", GAME, "partnership", {}
    )
    write_policy(policy, tmp_path)
    agent = make_agent(GAME, str(tmp_path), 0, role="partnership")
    res = matchup(GAME, agent, make_agent(GAME, "random", 1), "partnership", deals=3, seed=0).summary()
    assert res.n == 3
    assert json.loads((tmp_path / "policy.json").read_text())["trained_for"]["game"] == GAME


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda s: s.update({"encoder.actor_encoder.net.mlp.1.weight": np.ones(16, np.float32)}),
            "not Linear layers",
        ),
        (lambda s: s.update({"extra.weight": np.ones(3, np.float32)}), "are not those of a PPO MLP"),
        (lambda s: s.pop("pi.net.mlp.0.bias"), "missing"),
        (lambda s: [s.pop(k) for k in list(s) if k.startswith("vf.net")], "no vf encoder and head"),
    ],
)
def test_conversion_refuses_what_the_format_cannot_hold(edit, message) -> None:
    n_obs, n_act = _sizes()
    state = fake_rllib_state(n_obs, n_act, [16], [], False)
    edit(state)
    with pytest.raises(ValueError, match=message):
        rllib_names(state)


def test_conversion_checks_the_table_and_the_activation() -> None:
    n_obs, n_act = _sizes()
    with pytest.raises(ValueError, match="does not fit kakeya"):
        policy_from_rllib_state(
            fake_rllib_state(n_obs + 1, n_act, [8], [], False), "tanh", GAME, "partnership", {}
        )
    with pytest.raises(ValueError, match="cannot be written"):
        policy_from_rllib_state(
            fake_rllib_state(n_obs, n_act, [8], [], False), "swish", GAME, "partnership", {}
        )
    assert model_activation({"fcnet_activation": "relu", "head_fcnet_hiddens": []}) == "relu"
    with pytest.raises(ValueError, match="one activation"):
        model_activation(
            {"fcnet_activation": "tanh", "head_fcnet_hiddens": [8], "head_fcnet_activation": "relu"}
        )
    with pytest.raises(ValueError, match="layer norm"):
        model_activation({"fcnet_activation": "tanh", "fcnet_use_layernorm": True})
    with pytest.raises(ValueError, match="cannot be written"):
        model_activation({"fcnet_activation": "silu"})


# --- the command line -------------------------------------------------------------------------------------
def test_resolved_config_is_plain_json_and_generic() -> None:
    for game in registry.game_ids():
        cfg = resolve_config(parse_args(["--game", game]))
        assert cfg.game == game and cfg.role == registry.get(game).default_role
        assert json.loads(json.dumps(cfg.to_dict())) == cfg.to_dict()
        assert list(cfg.to_dict()) == [
            *("game", "role", "env_options", "seed", "opponent", "iterations", "max_minutes"),
            *("ray", "ppo", "model", "eval_every", "curve_deals", "eval_deals"),
        ]
    cfg = resolve_config(parse_args(["--option", "reward=egara", "--hidden", "64,32", "--address", "auto"]))
    assert cfg.env_options == {"reward": "egara"} and cfg.model.fcnet_hiddens == [64, 32]
    assert cfg.ray.address == "auto" and cfg.ray.num_cpus is None
    assert cfg.model.config() == {
        "fcnet_hiddens": [64, 32],
        "fcnet_activation": "tanh",
        "vf_share_layers": False,
    }
    assert cfg.ppo.kwargs()["lambda_"] == 0.95 and cfg.to_dict()["ppo"] == cfg.ppo.kwargs()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "chess"], "unknown game"),
        (["--option", "colour=red"], "colour"),
        (["--role", "dealer"], "no role"),
        (["--minibatch", "5000"], "--minibatch"),
        (["--eval-deals", "1"], "--eval-deals"),
        (["--hidden", ","], "--hidden"),
    ],
)
def test_bad_settings_raise_before_ray_starts(argv, message) -> None:
    with pytest.raises(ValueError, match=message):
        resolve_config(parse_args(argv))


def test_learning_curve_files(tmp_path) -> None:
    nan = float("nan")
    rows = [
        {
            "iteration": i,
            "env_steps": 100 * i,
            "episodes": i,
            "train_seconds": i,
            "episode_return_mean": 0.0,
            "episode_len_mean": 54.0,
            "entropy": 1.0 / i,
            "dup_mean": 0.1 * i if i % 2 == 0 else nan,
            "dup_lo": 0.05 * i if i % 2 == 0 else nan,
            "dup_hi": 0.2 * i if i % 2 == 0 else nan,
            "dup_deals": 10 if i % 2 == 0 else 0,
        }
        for i in range(1, 5)
    ]
    write_curve(rows, tmp_path / "c.csv", tmp_path / "c.png", "t")
    lines = (tmp_path / "c.csv").read_text().splitlines()
    assert lines[0].startswith("iteration,env_steps") and len(lines) == 5
    assert (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"
