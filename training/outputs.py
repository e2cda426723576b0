"""Where a training run writes, and how its results appear: whole or not at all.

A run folder (default ``runs/<name>/``) holds:

* ``model/`` — the result: ``policy.npz`` + ``policy.json`` (the policy file), ``run.json`` (resolved
  config, seed, versions, timings, evaluation) and ``progress.csv`` (the learning curve). It is
  written in a staging folder and swapped into place only when complete, so it always holds one
  consistent run: an interrupted run never leaves new weights beside an old ``run.json``.
* ``work/`` — what the run needs while it runs: resumable checkpoints, monitor CSVs, SB3's
  tensorboard/CSV logs, the behaviour-cloning warm start (``bc_policy/``) and ``config.json``.

Publishing (``kabu-train <preset> --publish``) copies ``model/`` to ``<models_dir>/<name>/`` (the shipped
models, or ``$KABU_MODELS_DIR``) by the same swap. Names are checked so that no path leaves its folder.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


def clear(path: Path) -> Path:
    """``path`` with whatever a crashed earlier attempt left there removed (a leftover staging folder)."""
    if path.exists():
        shutil.rmtree(path)
    return path


def check_name(name: Any) -> str:
    """A run or model name: letters, digits, ``_``, ``.``, ``-``; no path separators, no ``..``."""
    if not isinstance(name, str) or not NAME.fullmatch(name) or ".." in name:
        raise ValueError(
            f"name {name!r} is not a valid run/model name: use letters, digits, '_', '.' and '-' "
            "(starting with a letter or digit, no '..'), e.g. ppo_oicho_bettor; it names a folder "
            "under runs/ and models/ and must not leave them"
        )
    return name


def inside(folder: Path, name: str) -> Path:
    """``folder / name``, refusing anything that would resolve outside ``folder``."""
    target = (folder / check_name(name)).resolve()
    if target.parent != folder.resolve():
        raise ValueError(f"{name!r} resolves to {target}, outside {folder}")
    return target


@dataclass(frozen=True)
class RunPaths:
    """The folders of one run (see the module docstring)."""

    root: Path

    @property
    def model(self) -> Path:
        return self.root / "model"

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def checkpoints(self) -> Path:
        return self.work / "checkpoints"

    @property
    def config(self) -> Path:
        return self.work / "config.json"

    def staging(self) -> Path:
        """A fresh, empty staging folder for the next ``model/``."""
        stage = clear(self.root / f".model.incoming-{os.getpid()}")
        stage.mkdir(parents=True)
        return stage


def swap_into_place(staging: Path, dest: Path) -> Path:
    """Replace folder ``dest`` by the complete folder ``staging``.

    Two renames on one file system: ``dest`` → ``dest.old-<pid>``, ``staging`` → ``dest``; the old
    folder is then removed. A crash between the renames leaves the old run under ``.old-<pid>`` and
    the new one under its staging name, each complete, and never a mixture in ``dest``.
    """
    dest.parent.mkdir(parents=True, exist_ok=True)
    old = clear(dest.with_name(f".{dest.name}.old-{os.getpid()}"))
    if dest.exists():
        os.replace(dest, old)
    os.replace(staging, dest)
    clear(old)
    return dest


def copy_published(model_dir: Path, dest: Path) -> Path:
    """Copy a complete ``model/`` folder to ``dest`` (e.g. ``kabu_envs/models/<name>/``) by staging and
    swap."""
    stage = clear(dest.with_name(f".{dest.name}.incoming-{os.getpid()}"))
    shutil.copytree(model_dir, stage)
    return swap_into_place(stage, dest)


def write_json(path: Path, data: Any) -> None:
    """Write JSON through a temporary file and a rename (a reader never sees half a file)."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True))
    os.replace(tmp, path)


def versions(packages: Iterable[str]) -> dict[str, str]:
    """Python's and ``packages``' installed versions, for a run record (reproducibility)."""
    out = {"python": platform.python_version()}
    for p in packages:
        try:
            out[p] = metadata.version(p)
        except metadata.PackageNotFoundError:
            out[p] = "not installed"
    return out
