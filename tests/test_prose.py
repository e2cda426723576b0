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
        | {p for d in ("agents", "eval", "training") for p in (package.parent / d).rglob("*.py")}
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


def numba_packages(package: Path) -> list[Path]:
    """The folders of ``package`` (itself included) holding a module that imports numba."""
    found = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            names += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n.split(".")[0] == "numba" for n in names):
                found |= {p for p in path.parents if p.is_relative_to(package)}
    return sorted(found)


def test_no_pure_python_claim_where_a_numba_kernel_lives():
    """A package that holds a numba kernel (or a folder above one) does not call itself pure Python, nor
    does the README call the engines so (they were, before the kernels)."""
    package = Path(kabu_envs.__file__).resolve().parent
    holders = numba_packages(package)
    assert {package / "kakeya", package / "oicho_kabu", package / "core"} <= set(holders)
    claims = [
        str(d / "__init__.py")
        for d in holders
        if (d / "__init__.py").is_file()
        and "pure python" in (ast.get_docstring(ast.parse((d / "__init__.py").read_text())) or "").lower()
    ]
    readme = (package.parent / "README.md").read_text().lower()
    assert claims == [] and "pure python" not in readme


def test_the_numba_check_finds_a_kernel(tmp_path):
    (tmp_path / "game" / "kernel").mkdir(parents=True)
    (tmp_path / "game" / "kernel" / "rules.py").write_text("def f():\n    import numba\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "m.py").write_text("import numpy\n")
    assert numba_packages(tmp_path) == [tmp_path, tmp_path / "game", tmp_path / "game" / "kernel"]
