"""Docstrings say what and why, not how fast: benchmark figures go stale in them, so they live in
benchmarks/README.md and the CHANGELOG (docs/contributing.md#figures-go-stale)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

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


def test_the_readme_is_short_and_use_it_first():
    """The front door: at most 200 lines, the install and quickstart before the contributor route."""
    text = (Path(kabu_envs.__file__).resolve().parent.parent / "README.md").read_text()
    assert len(text.splitlines()) <= 200
    assert text.index("## Install") < text.index("## Quickstart") < text.index("## For contributors")
    assert "kabu-train kakeya-quick" in text and "kabu-eval bench" in text


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


# --- the house rule: docs are for users (docs/contributing.md#docs-are-for-users) ----------------------
# User pages carry no issue numbers and no internal history; research notes live in docs/studies/, a
# section labelled as such, and the history in CHANGELOG.md. What counts as history, case-insensitive,
# outside code (a code span or block may quote an action number such as `action #12`):
HISTORY = {
    "issue reference": r"\b(?:issues?|PRs?|pull requests?|tickets?)\s*#?\d+",
    "bare #N reference": r"(?<![\w&/#])#\d+\b(?!-)",  # not an anchor such as (#1-1-1-with-...)
    "work session": r"\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|this|that|"
    r"the same|next|previous|earlier|later|last|one|another)\s+(?:work\s+)?session\b|\bsessions?\s+\d+\b",
    "a version's possessive": r"\b\d+\.\d+(?:\.\d+)?'s\b",
    "release history": r"\b(?:in|until|since|before|after) (?:this|the last|the previous) release\b",
}
HISTORY_RE = {name: re.compile(pattern, re.I) for name, pattern in HISTORY.items()}
# a code span may run over a line break, never over a blank line
CODE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$|`(?:[^`\n]|\n(?!\n))+`", re.M | re.S)


def user_pages(root: Path) -> list[Path]:
    """The user-facing pages: the README and docs/**/*.md outside docs/studies/."""
    docs = root / "docs"
    pages = sorted(p for p in docs.rglob("*.md") if "studies" not in p.relative_to(docs).parts)
    readme = root / "README.md"
    return [readme, *pages] if readme.is_file() else pages


def history_phrases(page: Path) -> list[str]:
    """``line: phrase (kind)`` of every issue reference or piece of internal history on a page."""
    text = page.read_text(encoding="utf-8")
    prose = CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    return [
        f"{prose.count(chr(10), 0, m.start()) + 1}: {m.group(0)} ({name})"
        for name, pattern in HISTORY_RE.items()
        for m in pattern.finditer(prose)
    ]


def test_user_docs_carry_no_issue_numbers_or_history():
    root = Path(kabu_envs.__file__).resolve().parent.parent
    pages = user_pages(root)
    assert {"README.md", "index.md", "views.md", "agents.md", "training.md", "evaluation.md"} <= {
        p.name for p in pages
    }
    assert not any("studies" in p.parts for p in pages)
    offenders = {str(p.relative_to(root)): found for p in pages if (found := history_phrases(p))}
    assert offenders == {}


def test_studies_carry_no_issue_numbers_either():
    """The studies are research notes, labelled as such; they name models and searches by what they are,
    not by the issue or the work session that made them."""
    root = Path(kabu_envs.__file__).resolve().parent.parent
    studies = sorted((root / "docs" / "studies").glob("*.md"))
    assert len(studies) >= 5
    for page in studies:
        assert '!!! note "Study: research notes, measured"' in page.read_text(), page.name
    offenders = {p.name: found for p in studies if (found := history_phrases(p))}
    assert offenders == {}


@pytest.mark.parametrize(
    "phrase",
    [
        "Fixed in issue #27 item 3.",
        "see #27's expert",
        "measured in the seventh session",
        "(session 8, benchmarks/README.md)",
        "the views' 0.2's name",
        "Until this release the seeds were positional.",
        "as PR 41 did",
    ],
)
def test_the_history_check_finds_a_planted_phrase(tmp_path, phrase):
    (tmp_path / "docs" / "studies").mkdir(parents=True)
    page = tmp_path / "docs" / "guide.md"
    page.write_text(f"# Guide\n\nA user page.\n{phrase}\n")
    (tmp_path / "docs" / "studies" / "notes.md").write_text(f"# Notes\n\n{phrase}\n")
    assert user_pages(tmp_path) == [page]
    assert {f.split(":")[0] for f in history_phrases(page)} == {"4"}


def test_the_history_check_spares_game_terms_and_code(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "# Sessions and dealer rotation\n\n"
        "A play session seats the agent; the session's end passes the deal (v2's rules).\n"
        "Links such as [Options](#options) and `action #12 (57)` or\n```\nissue #3\n```\nare no history.\n"
    )
    assert history_phrases(page) == []


# what the API reference, ``help()`` and the training presets users copy show: the library's docstrings,
# comments and preset files name no issue of this project (another project's issue, e.g. "PettingZoo
# issue #1147", is a citation and stays)
OUR_ISSUE = re.compile(r"(?<!PettingZoo )(?<!sb3-contrib )(?<!numba )\b(?:issues?|hardening) #\d+", re.I)


def our_issue_numbers(folders: list[Path]) -> list[str]:
    """``path:line: text`` of every mention of this project's issue numbers in the Python sources and
    the YAML presets."""
    return [
        f"{path}:{n}: {line.strip()}"
        for folder in folders
        for path in sorted([*folder.rglob("*.py"), *folder.rglob("*.yaml")])
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OUR_ISSUE.search(line)
    ]


def test_the_sources_name_no_issue_of_ours():
    root = Path(kabu_envs.__file__).resolve().parent.parent
    assert our_issue_numbers([root / d for d in ("kabu_envs", "agents", "eval", "training")]) == []


def test_the_source_check_finds_one_and_spares_a_citation(tmp_path):
    (tmp_path / "m.py").write_text('"""A view (issue #25)."""\n# the PettingZoo issue #1147 tutorial\n')
    (tmp_path / "p.yaml").write_text("# a preset (hardening #7)\nseed: 3\n")
    assert our_issue_numbers([tmp_path]) == [
        f'{tmp_path / "m.py"}:1: """A view (issue #25)."""',
        f"{tmp_path / 'p.yaml'}:1: # a preset (hardening #7)",
    ]
