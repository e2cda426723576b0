"""Training that says what it does (front-door issue, items 4 and 6): --list shows each preset's game,
stages, output and measured time; a quick preset per game; plain stage lines on stdout without a
terminal; SIGTERM checkpoints like Ctrl-C; --resume with nothing to resume is one line; every run
record and policy file names its env ids, resolved rules, package version and commit."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

import kabu_envs
from kabu_envs import registry
from kabu_envs.agents.policy_file import read_policy
from kabu_envs.eval.plans import evaluation
from kabu_envs.training.__main__ import main as train_main
from kabu_envs.training.config import load_config, preset_estimate, presets
from kabu_envs.training.stage_log import StageProgress

ROOT = Path(kabu_envs.__file__).resolve().parent.parent  # the source tree under test

torch.set_num_threads(1)

TINY_BC = (
    "name: toy_front\ngame: toy_card\nrole: seat\ntimesteps: 256\nn_envs: 2\neval_deals: 0\n"
    "ppo: {n_steps: 128, batch_size: 64}\npolicy_kwargs: {net_arch: [16]}\n"
    "bc: {teacher: scripted, steps: 80, epochs: 2}\n"
)


def test_list_shows_game_stages_output_and_measured_time(capsys: pytest.CaptureFixture[str]) -> None:
    assert train_main(["--list"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line for line in out.splitlines() if line.strip()}
    assert "time (2 cores)" in rows["preset"]
    assert "kakeya / partnership" in rows["kakeya"] and "runs/ppo_kakeya/" in rows["kakeya"]
    assert re.search(r"bc \(expert_0_2, 150000 decisions\) -> dagger \(3 rounds, \d+ decisions\) -> ppo", out)
    assert "runs/kakeya-quick/" in rows["kakeya-quick"] and "oicho_kabu / bettor" in rows["oicho-quick"]
    for name in presets():
        if preset_estimate(name) is not None:
            assert re.search(r"~[\d.]+ (s|min|h)$", rows[name]), rows[name]


@pytest.mark.parametrize("game", ["kakeya", "oicho_kabu"])
def test_each_game_has_a_quick_preset_named_as_its_output(game: str) -> None:
    quick = [p for p in presets() if p.endswith("-quick") and load_config(p).game == game]
    assert len(quick) == 1
    cfg = load_config(quick[0])
    assert cfg.name == quick[0]  # runs/<preset>/: the preset's name is the run's
    estimate = preset_estimate(quick[0])
    assert estimate is not None and 0 < estimate["seconds"] <= 300 and "measured" in estimate["source"]
    assert "random" in evaluation(game).opponents  # its run's own evaluation meets random


def test_every_estimate_names_its_source() -> None:
    for name in presets():
        est = preset_estimate(name)
        if est is not None:
            assert set(est) == {"seconds", "source"} and est["seconds"] > 0, name


def test_stage_lines_are_rate_limited_and_the_last_always_shows() -> None:
    now = [0.0]
    out = io.StringIO()
    lines = StageProgress("bc", 1000, "decisions", every=10.0, out=out, clock=lambda: now[0])
    for done in range(0, 1001, 100):
        now[0] += 3.0  # a line at most every 10 s
        lines.update(done)
    lines.finish("40 episodes")
    text = out.getvalue().splitlines()
    assert len(text) == 3  # at 12 and 24 s (10 s apart at least), then the last at 33 s
    assert text[:2] == ["[bc] 300/1000 decisions (30%) 12 s", "[bc] 700/1000 decisions (70%) 24 s"]
    assert text[-1] == "[bc] 1000/1000 decisions (100%) 33 s; 40 episodes"


def test_a_run_prints_its_stages_on_stdout_without_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "bc.yaml"
    cfg.write_text(TINY_BC)
    assert train_main([str(cfg), "--out", str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    assert "[run] toy_front: toy_card seat; stages bc (scripted, 80 decisions) -> ppo (256 steps)" in out
    assert re.search(r"\[bc\] \d+/80 decisions \(100%\) \d+ s; \d+ episodes", out)
    assert "[bc] 2/2 fit epochs" in out
    assert re.search(r"\[ppo\] 256/256 steps \(100%\) \d+ s", out)


def test_resume_with_nothing_to_resume_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert train_main(["ppo_toy_card", "--resume", "--out", str(tmp_path / "empty")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("kabu-train: error: nothing to resume in ")


def test_sigterm_saves_a_checkpoint_and_the_run_resumes(tmp_path: Path) -> None:
    cfg = tmp_path / "long.yaml"
    cfg.write_text(
        "name: toy_term\ngame: toy_card\nrole: seat\ntimesteps: 10000000\nn_envs: 2\neval_deals: 0\n"
        "ppo: {n_steps: 128, batch_size: 64}\npolicy_kwargs: {net_arch: [16]}\ncheckpoint_every: 100000000\n"
    )
    out = tmp_path / "run"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "kabu_envs.training", str(cfg), "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    for line in proc.stdout:  # PPO has started: its first line
        if line.startswith("[ppo] learning"):
            break
    time.sleep(3)  # a few PPO updates
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    assert "--resume" in err and "Traceback" not in err
    checkpoints = sorted((out / "work" / "checkpoints").glob("step_*"))
    assert checkpoints and not (out / "model").exists()
    steps = int(checkpoints[-1].name.split("_")[1])
    assert steps > 0  # what PPO learnt before the signal, saved
    # resumed with a budget it has reached: it writes the model of the checkpoint
    assert train_main([str(cfg), "--resume", "--out", str(out), "--timesteps", str(max(steps, 1))]) == 0
    assert json.loads((out / "model" / "run.json").read_text())["timesteps"] == steps


def test_run_and_policy_records_name_env_ids_rules_version_and_commit(tmp_path: Path) -> None:
    out = tmp_path / "r"
    assert train_main(["ppo_toy_card", "--timesteps", "256", "--eval-deals", "0", "--out", str(out)]) == 0
    run = json.loads((out / "model" / "run.json").read_text())
    policy = json.loads((out / "model" / "policy.json").read_text())["training"]
    spec = registry.get("toy_card")
    expect = {
        "env_id": spec.pettingzoo_id,
        "view_id": "kabu_envs/ToyCard-v1",
        "rule_options": spec.config().as_dict(),
        "package_version": kabu_envs.__version__,
    }
    for record in (run["provenance"], policy):
        assert {k: record[k] for k in expect} == expect
        commit = record["git_commit"]
        assert commit is None or re.fullmatch(r"[0-9a-f]{40}(\+dirty)?", commit)
        if (ROOT / ".git").exists():  # run from a checkout (a worktree's .git is a file): its commit
            head = subprocess.run(
                ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True
            )
            assert commit is not None and commit.split("+")[0] == head.stdout.strip()
    assert kabu_envs.__version__ == "0.3.0"
    read_policy(out / "model")  # the strict reader takes the new fields


def test_the_commit_is_the_checkout_that_tracks_the_source_and_not_a_repository_around_a_copy(
    tmp_path: Path,
) -> None:
    """From a development checkout the record names its commit (it was null: the lookup started one
    folder above the repository); an installed copy inside another project's repository names none."""
    from kabu_envs.training import provenance

    source = Path(provenance.__file__).resolve()
    git = ["git", "-C", str(source.parent)]
    if subprocess.run([*git, "ls-files", "--error-unmatch", source.name], capture_output=True).returncode:
        pytest.skip("not run from a git checkout of kabu-envs")
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    assert provenance.git_commit() is not None and provenance.git_commit().split("+")[0] == head
    # a copy inside another repository (a virtualenv's site-packages in a user's project), untracked there
    other = tmp_path / "project"
    (other / ".venv" / "site-packages" / "kabu_envs").mkdir(parents=True)
    for args in (
        ["init", "-q"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"],
    ):
        subprocess.run(["git", "-C", str(other), *args], check=True, capture_output=True)
    copy = other / ".venv" / "site-packages" / "kabu_envs" / "provenance.py"
    copy.write_bytes(source.read_bytes())
    assert provenance.git_commit(copy) is None
    assert provenance.git_commit(tmp_path / "nowhere" / "provenance.py") is None  # no checkout at all


def test_the_kakeya_compile_notice_names_the_parts_that_compile(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One line per call that compiles, naming its parts: a process using the batch engine and then the
    search said "compiling the Kakeya kernel once" twice (four times with DAgger's workers)."""
    from kabu_envs.core import kernel as core
    from kabu_envs.kakeya import kernel

    compiled: set[str] = set()

    def fake_prepare(title: str, dispatchers: object, stamp: str, *, out: object = None) -> bool:
        new = title not in compiled  # as core.prepare: once a process
        compiled.add(title)
        return new

    monkeypatch.setattr(core, "prepare", fake_prepare)
    assert kernel.prepare((kernel.rules, kernel.batch))
    assert kernel.prepare((kernel.rules, kernel.search))
    assert not kernel.prepare((kernel.rules, kernel.search))
    lines = capsys.readouterr().err.strip().splitlines()
    assert [line.split(" once;")[0] for line in lines] == [
        "compiling the Kakeya kernel (rules, batch)",
        "compiling the Kakeya kernel (search)",
    ]
