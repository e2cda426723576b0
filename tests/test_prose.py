"""Docstrings say what and why, not how fast: benchmark figures go stale in them, so they live in
benchmarks/README.md and the CHANGELOG (docs/contributing.md#figures-go-stale)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import kabu_envs

# a time per call, a rate, or a speed-up factor: "28 us", "6 ms", "30k steps/s", "2.5-5x faster"
FIGURE = re.compile(
    r"\d\s?(?:ns|us|µs|ms)\b|\d\s?k?\s?(?:steps|decisions|deals|games|calls)/s\b"
    r"|\d(?:\.\d+)?(?:\s?-\s?\d(?:\.\d+)?)?\s?x\s(?:faster|slower|speed)"
)


def docstring_figures(path: Path) -> list[str]:
    """``line: text`` of every benchmark figure in the docstrings of a module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                start = node.body[0].lineno
                found += [
                    f"{start + i}: {ln.strip()}" for i, ln in enumerate(doc.splitlines()) if FIGURE.search(ln)
                ]
    return found


def test_no_benchmark_figures_in_docstrings():
    package = Path(kabu_envs.__file__).resolve().parent
    files = sorted(
        {p.resolve() for p in package.rglob("*.py")}
        | {p for d in ("agents", "eval", "training") for p in (package / d).resolve().rglob("*.py")}
    )
    assert len(files) > 80
    offenders = {str(p): figures for p in files if (figures := docstring_figures(p))}
    assert offenders == {}


def test_the_figure_check_finds_figures(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        '"""Fast: about 6 ms a decision."""\n\n\n'
        "def f():\n"
        '    """30k steps/s, 2.5-5x faster than before; a 640 x 1090 x 3 picture is no figure."""\n'
    )
    assert docstring_figures(module) == [
        "1: Fast: about 6 ms a decision.",
        "5: 30k steps/s, 2.5-5x faster than before; a 640 x 1090 x 3 picture is no figure.",
    ]
