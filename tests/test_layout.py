"""The house's one template: a game is one package, and nothing outside it imports it.

Every registered game lives in ``kabu_envs/<game>/`` with its agents (``agents/``) and training presets
(``presets/``); the tools (``agents/``, ``eval/``, ``training/``, ``play/``, ``batch/``, ...) reach a
game only through the registry (``registry.get(id)``, ``registry.resolve("module:attr")``). The one
exception is the versioned PettingZoo modules (``kabu_envs/<game>_v<N>.py``), which are a game's public
names, as PettingZoo's ``classic/leduc_holdem_v4.py``.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import kabu_envs
from kabu_envs import registry

PACKAGE = Path(kabu_envs.__file__).resolve().parent
GAME_PACKAGES = sorted(p.parent.name for p in PACKAGE.glob("*/registration.py"))
REPO = PACKAGE.parent
MAPPED = {"kabu_envs.agents": "agents", "kabu_envs.eval": "eval", "kabu_envs.training": "training"}
VERSIONED = re.compile(r"^(?P<game>[a-z_]+)_v\d+\.py$")


def _library_files() -> list[Path]:
    """Every module of the installed package: kabu_envs/ and the folders pyproject maps into it
    (agents/, eval/, training/ are kabu_envs.agents, ...)."""
    files = sorted(PACKAGE.rglob("*.py"))
    for folder in MAPPED.values():
        files += sorted((REPO / folder).rglob("*.py"))
    return files


def _imported_modules(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` of every import in ``path``, including those inside functions."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
            if node.module == "kabu_envs":  # from kabu_envs import kakeya_v1, oicho_kabu
                out += [(node.lineno, f"kabu_envs.{a.name}") for a in node.names]
    return out


def _owner(path: Path) -> str | None:
    """The game package a file belongs to (its folder, or its versioned module), else None."""
    rel = path.resolve().relative_to(PACKAGE.resolve()) if path.resolve().is_relative_to(PACKAGE) else None
    if rel is None:
        return None
    if rel.parts[0] in GAME_PACKAGES:
        return rel.parts[0]
    m = VERSIONED.match(rel.name) if len(rel.parts) == 1 else None
    return m.group("game") if m else None


def offenders(files: list[Path]) -> list[str]:
    out = []
    for path in files:
        owner = _owner(path)
        for line, module in _imported_modules(path):
            parts = module.split(".")
            if len(parts) < 2 or parts[0] != "kabu_envs":
                continue
            versioned = re.match(r"^([a-z_]+)_v\d+$", parts[1])
            game = versioned.group(1) if versioned else parts[1]
            if game in GAME_PACKAGES and game != owner:
                out.append(f"{path}:{line}: imports {module}")
    return out


def test_every_builtin_game_has_the_template_layout():
    assert set(GAME_PACKAGES) >= {"oicho_kabu", "kakeya", "toy_card"}
    for game in GAME_PACKAGES:
        root = PACKAGE / game
        assert (root / "agents" / "__init__.py").is_file(), game
        assert list((root / "presets").glob("*.yaml")), game
        spec = registry.get(game)
        for ref in spec.agents.values():
            assert isinstance(ref, str) and ref.startswith(f"kabu_envs.{game}.agents."), (game, ref)


def test_no_module_outside_a_game_package_imports_it():
    bad = offenders(_library_files())
    assert not bad, "game modules imported outside their package:\n" + "\n".join(bad)


def test_the_import_check_finds_a_game_import(tmp_path: Path):
    tool = tmp_path / "tool.py"
    tool.write_text("def f():\n    from kabu_envs.kakeya.game import Game\n    import kabu_envs.toy_card\n")
    found = offenders([tool])
    assert len(found) == 2 and "kabu_envs.kakeya.game" in found[0]
    tool.write_text("from kabu_envs import kakeya_v1, registry\n")
    assert offenders([tool]) == [f"{tool}:1: imports kabu_envs.kakeya_v1"]


@pytest.mark.parametrize("game", ["kakeya", "oicho_kabu"])
def test_agent_files_saved_before_the_move_still_load(tmp_path: Path, game: str):
    from kabu_envs.agents.base import BaseAgent

    old = {
        "kakeya": "kabu_envs.agents.kakeya_scripted.KakeyaScriptedAgent",
        "oicho_kabu": "kabu_envs.agents.oicho_scripted.OichoScriptedAgent",
    }[game]
    path = tmp_path / "agent.json"
    path.write_text(json.dumps({"class": old, "params": {}}))
    agent = BaseAgent.load(path, seed=0)
    assert type(agent).__module__ == f"kabu_envs.{game}.agents.scripted"
