"""Training outputs: safe names, runs/ by default, whole-or-nothing results, Ctrl-C and --resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

import kabu_envs.training.run as run_mod
from kabu_envs.agents.base import RandomAgent
from kabu_envs.training.__main__ import main as train_main
from kabu_envs.training.config import load_config
from kabu_envs.training.outputs import check_name, inside
from kabu_envs.training.run import TrainingInterrupted, train

torch.set_num_threads(1)


def _cfg(**over):
    base = {"timesteps": 512, "eval_deals": 0, "checkpoint_every": 256}
    return load_config("ppo_toy_card", **{**base, **over})


@pytest.mark.parametrize("name", ["../../..", "../models/x", "a/b", "", ".hidden", "x..y", None, 5])
def test_names_that_leave_their_folder_are_refused(name, tmp_path):
    with pytest.raises(ValueError, match="not a valid run/model name"):
        check_name(name)
    with pytest.raises(ValueError, match="name"):
        load_config({"name": name, "game": "toy_card", "role": "seat"})
    assert inside(tmp_path, "ppo_ok-1.2") == (tmp_path / "ppo_ok-1.2").resolve()


def test_default_output_is_runs_and_publishing_is_explicit(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # runs/ is under the working directory
    monkeypatch.setenv("KABU_MODELS_DIR", str(tmp_path / "models"))  # publishing goes to models_dir()
    train(_cfg(), progress_bar=False)
    model = tmp_path / "runs" / "ppo_toy_card" / "model"
    assert (model / "policy.json").is_file() and (model / "run.json").is_file()
    assert not (tmp_path / "models").exists()  # reproducing a model never overwrites the shipped one
    train(_cfg(), progress_bar=False, publish=True)
    shipped = tmp_path / "models" / "ppo_toy_card"
    assert sorted(p.name for p in shipped.iterdir()) == sorted(p.name for p in model.iterdir())
    assert (shipped / "policy.npz").read_bytes() == (model / "policy.npz").read_bytes()


def _consistent(model_dir: Path) -> int:
    """The step count of a model folder whose run record and policy file agree (else fail)."""
    run = json.loads((model_dir / "run.json").read_text())
    policy = json.loads((model_dir / "policy.json").read_text())
    assert run["timesteps"] == policy["training"]["timesteps"] and run["seed"] == policy["training"]["seed"]
    return run["timesteps"]


def test_interrupted_evaluation_keeps_the_previous_run_whole(tmp_path, monkeypatch):
    out = tmp_path / "run"
    train(_cfg(seed=1), out=out, progress_bar=False)
    before = {p.name: p.read_bytes() for p in (out / "model").iterdir()}

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(run_mod, "quick_eval", interrupted)
    with pytest.raises(KeyboardInterrupt):
        train(_cfg(seed=2, timesteps=768, eval_deals=10), out=out, progress_bar=False)
    after = {p.name: p.read_bytes() for p in (out / "model").iterdir()}
    assert after == before  # the old result, whole: no new weights beside the old run.json
    assert _consistent(out / "model") == 512


class _InterruptAfter(RandomAgent):
    """An opponent whose n-th move is a Ctrl-C (what a user does mid-training)."""

    def __init__(self, n: int) -> None:
        super().__init__(seed=0)
        self.left = n

    def act(self, observation, action_mask):
        self.left -= 1
        if self.left == 0:
            raise KeyboardInterrupt
        return super().act(observation, action_mask)


def test_ctrl_c_saves_a_checkpoint_and_resume_finishes_the_run(tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    real_pool = run_mod.build_pool
    monkeypatch.setattr(
        run_mod, "build_pool", lambda cfg, seed: run_mod.OpponentPool([(_InterruptAfter(700), 1.0)])
    )
    with pytest.raises(TrainingInterrupted, match="--resume"):
        train(_cfg(timesteps=1024), out=out, progress_bar=False)
    checkpoints = sorted((out / "work" / "checkpoints").glob("step_*"))
    assert checkpoints and not (out / "model").exists()
    assert not list(out.rglob("*.zip")) and not list(out.rglob("*.pkl"))
    monkeypatch.setattr(run_mod, "build_pool", real_pool)
    with pytest.raises(ValueError, match="different config"):
        train(_cfg(timesteps=1024, seed=5), out=out, progress_bar=False, resume=True)
    record = train(_cfg(timesteps=1024), out=out, progress_bar=False, resume=True)
    assert record["resumed_from"] == checkpoints[-1].name
    assert record["timesteps"] >= 1024 and _consistent(out / "model") == record["timesteps"]
    rows = (out / "model" / "progress.csv").read_text().strip().splitlines()
    assert len(rows) >= 3  # the header and the updates of both segments
    with pytest.raises(ValueError, match="nothing to resume"):
        train(_cfg(), out=tmp_path / "empty", progress_bar=False, resume=True)


def test_cli_bc_steps_flag_and_interrupt_message(tmp_path, capsys, monkeypatch):
    cfg_file = tmp_path / "bc.yaml"
    cfg_file.write_text(
        "name: ppo_toy_bc\ngame: toy_card\nrole: seat\ntimesteps: 256\nn_envs: 2\neval_deals: 0\n"
        "ppo: {n_steps: 128, batch_size: 64}\npolicy_kwargs: {net_arch: [16]}\n"
        "bc: {teacher: scripted, steps: 100000, epochs: 2}\n"
    )
    out = tmp_path / "r"
    assert train_main([str(cfg_file), "--bc-steps", "80", "--out", str(out), "--no-progress"]) == 0
    run = json.loads((out / "model" / "run.json").read_text())
    assert run["config"]["bc"]["steps"] == 80 and 80 <= run["bc"]["decisions"] < 1000
    assert f"result: {out / 'model'}" in capsys.readouterr().out

    def interrupted(*args, **kwargs):
        raise TrainingInterrupted("training interrupted at 10 steps; checkpoint c. Resume with: ...")

    monkeypatch.setattr(run_mod, "train", interrupted)
    assert train_main([str(cfg_file), "--out", str(out), "--no-progress"]) == 130
    assert "Resume with" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # (0 is allowed with a bc.teacher: no PPO, the clone is the model)
        train_main([str(cfg_file), "--timesteps", "-1"])


def test_batch_envs_from_the_command_line_train_reproducibly(tmp_path):
    """``kabu-train --batch-envs N`` trains on ``BatchVecEnv`` (recorded in run.json with the resolved
    config), logs its episodes, and the same seed gives the same policy bit for bit."""
    policies = []
    for k in range(2):
        out = tmp_path / f"run{k}"
        args = ["ppo_toy_card", "--batch-envs", "16", "--timesteps", "512", "--eval-deals", "0"]
        assert train_main([*args, "--out", str(out), "--no-progress"]) == 0
        run = json.loads((out / "model" / "run.json").read_text())
        assert run["vec_env"] == "BatchVecEnv" and run["config"]["batch_envs"] == 16
        assert run["timesteps"] >= 512 and run["seed"] == 0
        episodes = (out / "work" / "monitor_batch.monitor.csv").read_text().splitlines()
        assert len(episodes) > 100  # (two header lines, then one line per finished game)
        policies.append((out / "model" / "policy.npz").read_bytes())
    assert policies[0] == policies[1]
