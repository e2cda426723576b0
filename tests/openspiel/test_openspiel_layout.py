"""Only ``kabu_envs.openspiel`` imports pyspiel or open_spiel (the optional extra), and importing the
rest of the library never pulls it in."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import kabu_envs

ROOT = Path(kabu_envs.__file__).resolve().parent


def _imports_openspiel(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        if any(n.split(".")[0] in ("pyspiel", "open_spiel") for n in names):
            return True
    return False


def test_only_the_openspiel_package_imports_pyspiel():
    found = sorted(
        str(p.relative_to(ROOT))
        for p in ROOT.rglob("*.py")
        if _imports_openspiel(p) and "openspiel" not in p.relative_to(ROOT).parts
    )
    assert found == []
    assert _imports_openspiel(ROOT / "openspiel" / "game.py")  # the scan sees an import where there is one


def test_the_library_and_its_tools_import_without_pyspiel():
    code = (
        "import sys, kabu_envs, kabu_envs.registry as r, kabu_envs.eval.games, kabu_envs.agents.registry\n"
        "[s.make_raw_env() for s in r.games()]\n"
        "assert 'pyspiel' not in sys.modules, 'pyspiel was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
