"""The RLlib demo against Ray itself: the real RLModule, RLlib's PettingZoo wrapper, a very short run.

Ray is not in the project's main venv (``ray[rllib]==2.58.0`` pins gymnasium 1.2.2, the main venv
has 1.4.0), so CI's ``make test`` skips this file with the reason below. ``make rllib-test`` builds
``.venv-rllib`` (the ``rllib`` extra) and runs it and tests/test_rllib_export.py: about a minute,
most of it Ray starting. The short run trains one iteration of a few hundred steps, so it proves the
pipeline (env, masking module, export, evaluation, files), not learning: ``make rllib-demo`` does.
"""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

pytest.importorskip(
    "ray.rllib",
    reason="Ray RLlib is not installed in this venv (CI's `make test` venv has none: Ray pins another "
    "gymnasium); run `make rllib-test`, which builds .venv-rllib with the 'rllib' extra",
)

from kabu_envs.agents.registry import make_agent  # noqa: E402
from kabu_envs.training.rllib_demo import export_policy, module_state, parse_args, resolve_config, run  # noqa: E402
from kabu_envs.training.rllib_env import MASK_KEY, OBS_KEY, make_aec, rllib_env  # noqa: E402

GAME = "kakeya"


def build_module(cfg):
    """RLlib's action-masking PPO module for the game's spaces, as the demo configures it."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    env = make_aec(GAME)
    seat = env.possible_agents[0]
    spec = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        observation_space=env.observation_space(seat),
        action_space=env.action_space(seat),
        model_config=cfg.model.config(),
    )
    return spec.build()


def observations(n: int, seed: int = 1) -> list[dict[str, np.ndarray]]:
    env = make_aec(GAME)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        out.append(obs)
        if len(out) == n:
            break
        env.step(int(rng.choice(np.flatnonzero(obs[MASK_KEY]))))
    return out


@pytest.mark.parametrize("argv", [["--hidden", "32,16"], ["--hidden", "24", "--activation", "relu"]])
def test_exported_policy_plays_as_the_rllib_module(argv) -> None:
    import torch

    cfg = resolve_config(parse_args(argv))
    module = build_module(cfg)
    policy = export_policy(module_state(module), cfg, env_steps=0)
    obs = observations(60)
    batch = {
        "obs": {
            OBS_KEY: torch.from_numpy(np.stack([o[OBS_KEY] for o in obs])),
            MASK_KEY: torch.from_numpy(np.stack([o[MASK_KEY] for o in obs])),
        }
    }
    with torch.no_grad():
        logits = module.forward_inference(batch)["action_dist_inputs"].numpy()
    for row, o in zip(logits, obs, strict=True):
        legal = np.flatnonzero(o[MASK_KEY])
        assert (row[np.flatnonzero(o[MASK_KEY] == 0)] < -1e30).all()  # the module masks
        np.testing.assert_allclose(policy.logits(o[OBS_KEY])[legal], row[legal], rtol=1e-5, atol=1e-5)
        assert int(np.argmax(policy.masked_probs(o[OBS_KEY], o[MASK_KEY]))) == int(np.argmax(row))


def test_pettingzoo_wrapper_reports_every_seats_reward() -> None:
    env = rllib_env({"game": GAME, "env_options": {}})
    rng = np.random.default_rng(0)
    for episode in range(3):
        obs, _ = env.reset(seed=episode)
        totals: dict[str, float] = {}
        done = False
        while not done:
            (agent,) = obs  # one seat acts at a time (AEC)
            action = int(rng.choice(np.flatnonzero(obs[agent][MASK_KEY])))
            obs, rew, term, trunc, _ = env.step({agent: action})
            for a, r in rew.items():
                totals[a] = totals.get(a, 0.0) + float(r)
            done = term["__all__"] or trunc["__all__"]
            obs = {a: o for a, o in obs.items() if not term.get(a)}
        assert set(totals) == set(env.possible_agents)
        assert abs(sum(totals.values())) < 1e-9  # Kakeya's stones: a zero-sum table


def test_a_very_short_run_writes_every_output(tmp_path) -> None:
    argv = [
        "--iterations",
        "1",
        "--batch",
        "256",
        "--minibatch",
        "64",
        "--epochs",
        "1",
        "--envs-per-runner",
        "4",
    ]
    argv += [
        "--hidden",
        "16",
        "--num-cpus",
        "1",
        "--eval-every",
        "1",
        "--curve-deals",
        "2",
        "--eval-deals",
        "4",
    ]
    cfg = resolve_config(parse_args([*argv, "--seed", "7"]))
    record = run(cfg, tmp_path, log=lambda *_: None)
    model = tmp_path / "model"
    assert sorted(p.name for p in model.iterdir()) == sorted(
        ["policy.npz", "policy.json", "run.json", "eval.json", "progress.csv", "learning_curve.png"]
    )
    saved = json.loads((model / "run.json").read_text())
    assert saved["config"] == cfg.to_dict() and saved["seed"] == 7 and saved["iterations"] == 1
    assert saved["versions"]["ray"] == "2.58.0" and saved["timesteps"] >= 256
    ev = json.loads((model / "eval.json").read_text())
    assert ev["games"] == 4 and ev["opponent"] == "random" and len(ev["ci95"]) == 2
    assert record["eval"] == {k: ev[k] for k in ("games", "mean", "ci95")}
    rows = list(csv.DictReader((model / "progress.csv").read_text().splitlines()))
    assert [r["iteration"] for r in rows] == ["0", "1"]  # the untrained policy, then each iteration
    assert rows[0]["env_steps"] == "0" and int(rows[1]["env_steps"]) >= 256
    assert rows[0]["dup_deals"] == rows[1]["dup_deals"] == "2"
    agent = make_agent(GAME, str(model), 0, role="partnership")
    assert agent.policy.training["timesteps"] == saved["timesteps"]
    assert agent.policy.policy_layers == (16,)
