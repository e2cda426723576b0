"""The habits `make lint` enforces, kept in one place: the pre-commit hooks run exactly its checks,
and mypy's strict flags stay on."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def _lint_commands() -> list[str]:
    """The commands of the Makefile's ``lint`` recipe, with the venv prefix dropped."""
    lines = (ROOT / "Makefile").read_text().splitlines()
    start = lines.index(next(line for line in lines if line.startswith("lint:")))
    recipe = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        recipe.append(re.sub(r"^\$\(PY\) (-m )?", "", line.strip()))
    return recipe


def _hook_commands() -> list[str]:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    hooks = [h for repo in config["repos"] for h in repo["hooks"]]
    out = []
    for h in hooks:
        entry = h["entry"].removeprefix(".venv/bin/").removeprefix("python ")
        out.append(entry + ("" if h.get("pass_filenames", True) is False else " ."))
    return out


def test_pre_commit_runs_what_make_lint_runs():
    assert _lint_commands() == ["ruff check .", "ruff format --check .", ".ci/typecheck.py"]
    assert _hook_commands() == _lint_commands()


def test_mypy_is_strict():
    text = (ROOT / "pyproject.toml").read_text()
    section = text.split("[tool.mypy]", 1)[1].split("\n[", 1)[0]
    for flag in ("disallow_untyped_defs", "disallow_any_generics", "check_untyped_defs"):
        assert re.search(rf"^{flag} = true$", section, re.M), flag


def test_mypy_checks_every_installed_folder():
    """pyproject's ``files`` holds kabu_envs and each folder ``package-dir`` maps into it (agents/,
    eval/, training/), which .ci/typecheck.py names as installed."""
    text = (ROOT / "pyproject.toml").read_text()
    files = re.search(r"^files = \[(.*)\]", text.split("[tool.mypy]", 1)[1], re.M)
    mapped = re.search(r"^package-dir = \{(.*)\}", text, re.M)
    assert files and mapped
    folders = set(re.findall(r'= "(\w+)"', mapped.group(1)))
    assert folders == {"agents", "eval", "training"}
    assert set(re.findall(r'"(\w+)"', files.group(1))) == {"kabu_envs"} | folders
