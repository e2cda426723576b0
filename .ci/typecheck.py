"""``make lint``'s strict mypy over the package as it installs: ``python .ci/typecheck.py [mypy args]``.

Why not ``python -m mypy``: pyproject maps the repository's ``agents/``, ``eval/`` and ``training/``
folders to ``kabu_envs.agents``, ``kabu_envs.eval`` and ``kabu_envs.training`` (``package-dir``, no
symlinks), and mypy names a file by its folders, so it would check ``agents/base.py`` as ``agents.base``
and find no ``kabu_envs.agents``. This runs mypy itself with the sources of pyproject's ``files``, each
mapped folder's modules renamed as setuptools installs them; mypy's options are pyproject's as usual.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from mypy import build
from mypy.errors import CompileError
from mypy.main import process_options
from mypy.modulefinder import BuildSource

# Python 3.11's tomllib, else pip's copy of the same parser (tomli)
tomllib = importlib.import_module("tomllib" if sys.version_info >= (3, 11) else "pip._vendor.tomli")

ROOT = Path(__file__).resolve().parent.parent


def package_dirs() -> dict[str, str]:
    """pyproject's ``package-dir``: folder -> the package it installs as (``agents`` ->
    ``kabu_envs.agents``)."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return {folder: package for package, folder in setuptools.get("package-dir", {}).items()}


def renamed(sources: list[BuildSource], mapped: dict[str, str]) -> list[BuildSource]:
    """``sources`` with each module of a mapped folder named as installed."""
    out = []
    for s in sources:
        head, dot, rest = (s.module or "").partition(".")
        if head in mapped:
            s = BuildSource(s.path, mapped[head] + dot + rest, s.text, base_dir=s.base_dir)
        out.append(s)
    return out


def main(argv: list[str]) -> int:
    sources, options = process_options(argv)
    try:
        messages = build.build(renamed(sources, package_dirs()), options).errors
    except CompileError as e:
        messages = e.messages
    for line in messages:
        print(line)
    if any(": error:" in m for m in messages):
        return 1
    print(f"Success: no issues found in {len(sources)} source files")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main(sys.argv[1:]))
