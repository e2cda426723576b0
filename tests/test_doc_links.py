"""References into the docs cannot drift: every ``<page>.md#<anchor>`` in the repository names a heading
that page has, and no reference carries a hand-typed section number.

The code, the tests and the docs cite a doc section by its anchor (``docs/kakeya.md#observation``), the
anchor GitHub gives the heading (docs/contributing.md#citing-the-docs). This test computes those anchors
the way GitHub does and resolves every reference in every text file of the repository: plain mentions
(``docs/<page>.md#x`` in a docstring, ``README.md#x`` in pyproject.toml) from the repository root,
Markdown links (``[Options](#options)``, ``(kakeya.md#deal)``) from the file that holds them. The
pages' mentions of repository paths (``kabu_envs/kakeya/agents/expert.py``) must exist too.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEXT_SUFFIXES = {".py", ".md", ".toml", ".yaml", ".yml", ".txt", ".cfg", ".ini", ".js", ".html", ".css"}
TEXT_NAMES = {"Makefile"}
SKIP_DIRS = {".git", "node_modules", "__pycache__", "build", "dist"}
SECTION_SIGN = "\u00a7"  # spelled as an escape so that this file holds none

FENCE = re.compile(r"^ {0,3}(```|~~~)")
HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$")
HTML_ANCHOR = re.compile(r"""<a\s+(?:id|name)=["']([^"']+)["']""")
MD_LINK = re.compile(r"\]\(([^()\s]+)\)")
PAGE_REF = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w.-]+\.md)#([\w-]+)")
NUMBERED_HEADING = re.compile(r"^#{1,6}[ \t]+\d+\..*$", re.M)


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: its rendered text, lower-cased, every character but letters,
    digits, ``_``, ``-`` and spaces dropped, each space a ``-`` (github-slugger)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links and images: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "").replace("*", "")  # code spans and emphasis render as their text
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    """Every anchor of a page: its headings' (a repeated one gets ``-1``, ``-2``, ...) and explicit
    ``<a id=...>`` ones; headings inside fenced code blocks are no headings."""
    out: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in markdown.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        m = None if fenced else HEADING.match(line)
        if m:
            slug = github_anchor(m.group(1))
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else f"{slug}-{n}")
    out.update(HTML_ANCHOR.findall(markdown))
    return out


def text_files(root: Path) -> Iterator[Path]:
    """The repository's text files (sources, docs, configs); virtualenvs, caches and symlinks skipped."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in SKIP_DIRS
            and not d.startswith((".venv", ".mypy", ".ruff", ".pytest"))
            and not d.endswith(".egg-info")
            and not os.path.islink(os.path.join(folder, d))
        )
        for name in sorted(files):
            path = Path(folder, name)
            if (path.suffix in TEXT_SUFFIXES or name in TEXT_NAMES) and not path.is_symlink():
                yield path


def without_code(markdown: str) -> str:
    """``markdown`` with its code (fenced blocks, inline code spans) blanked out, offsets kept: a link
    written there is an example, not a link."""

    def blank(m: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", m.group(0))

    unfenced = re.sub(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$", blank, markdown, flags=re.M | re.S)
    return re.sub(r"`[^`\n]+`", blank, unfenced)


def references(path: Path, root: Path) -> Iterator[tuple[int, Path, str]]:
    """``(line, page, anchor)`` of every anchored reference in ``path``: Markdown links (a ``.md`` file's
    own, relative to it) and plain ``<page>.md#anchor`` mentions (relative to the repository root)."""
    text = path.read_text(encoding="utf-8")

    def line_of(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    plain = text
    if path.suffix == ".md":
        for m in MD_LINK.finditer(without_code(text)):
            target = m.group(1)
            if "#" not in target or re.match(r"[a-z]+:", target):
                continue
            page, anchor = target.split("#", 1)
            yield line_of(m.start()), (path.parent / page).resolve() if page else path, anchor
            plain = plain[: m.start()] + " " * len(m.group(0)) + plain[m.end() :]  # keep the offsets
    for m in PAGE_REF.finditer(plain):
        yield line_of(m.start()), (root / m.group(1)).resolve(), m.group(2)


def broken_references(root: Path, skip: Path | None = None) -> list[str]:
    """Every reference whose page or anchor does not exist, as ``file:line: page#anchor (why)``
    (``skip``: a file not to scan, this one, whose examples name missing anchors on purpose)."""
    pages: dict[Path, set[str]] = {}
    problems: list[str] = []
    for path in text_files(root):
        if path == skip:
            continue
        for line, page, anchor in references(path, root):
            where = f"{path.relative_to(root)}:{line}"
            if not page.is_file():
                problems.append(f"{where}: {page.name}#{anchor} (no page {page})")
                continue
            if page not in pages:
                pages[page] = anchors(page.read_text(encoding="utf-8"))
            if anchor not in pages[page]:
                problems.append(f"{where}: {page.name}#{anchor} (no such heading in {page.name})")
    return problems


def test_every_doc_reference_names_an_existing_anchor():
    assert broken_references(ROOT, skip=Path(__file__).resolve()) == []


def test_the_docs_are_cited_by_anchor():
    """The scan finds the citations (so the test above cannot pass by finding none)."""
    cited = {(page.name, anchor) for f in text_files(ROOT) for _, page, anchor in references(f, ROOT)}
    for expected in [("kakeya.md", "observation"), ("oicho_kabu.md", "a-round"), ("kakeya.md", "play")]:
        assert expected in cited
    assert len(cited) >= 40


def test_no_section_numbers():
    """No ``\u00a7n`` anywhere, and no numbered doc headings (their numbers would be in their anchors)."""
    for path in text_files(ROOT):
        text = path.read_text(encoding="utf-8")
        assert SECTION_SIGN not in text, f"{path.relative_to(ROOT)} cites a section number: use its anchor"
        numbered = NUMBERED_HEADING.findall(text) if path.suffix == ".md" else []
        assert not numbered, f"{path.relative_to(ROOT)}: numbered headings {numbered}"


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("Observation", "observation"),
        ("Seats, roles, table limit", "seats-roles-table-limit"),
        ("What a person sees (`view.py`)", "what-a-person-sees-viewpy"),
        ("Free draw is the bettors' permission", "free-draw-is-the-bettors-permission"),
        ("Traceability: source sentence → option → test", "traceability-source-sentence--option--test"),
        ("**Bold** and [a link](x.md)", "bold-and-a-link"),
        ("Rank-0 yaku", "rank-0-yaku"),
        ("Ray RLlib: multi-agent self-play at scale", "ray-rllib-multi-agent-self-play-at-scale"),
    ],
)
def test_github_anchor(heading, anchor):
    assert github_anchor(heading) == anchor


def test_anchors_repeat_skip_code_and_take_explicit_ids():
    page = "# Top\n## Notes\n```bash\n# not a heading\n```\n## Notes\n<a id='kept'></a>\n"
    assert anchors(page) == {"top", "notes", "notes-1", "kept"}


def test_a_missing_anchor_or_page_is_reported(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "game.md").write_text(
        "# Game\n\n## Cards\n\nSee [Cards](#cards), [x](#nope).\n\n"
        "Examples are no links: `[y](#example)`,\n```md\n[z](#example)\n```\n"
        "but `docs/game.md#deal` is cited.\n"
    )
    (tmp_path / "docs" / "other.md").write_text("# Other\n\n[ok](game.md#cards) [bad](game.md#deal)\n")
    (tmp_path / "code.py").write_text('"""docs/game.md#cards, docs/game.md#12-cards, docs/gone.md#x."""\n')
    assert broken_references(tmp_path) == [
        "code.py:1: game.md#12-cards (no such heading in game.md)",
        f"code.py:1: gone.md#x (no page {tmp_path / 'docs' / 'gone.md'})",
        "docs/game.md:5: game.md#nope (no such heading in game.md)",
        "docs/game.md:11: game.md#deal (no such heading in game.md)",
        "docs/other.md:3: game.md#deal (no such heading in game.md)",
    ]


REPO_PATH = re.compile(
    r"(?<![\w./-])((?:kabu_envs|agents|eval|training|tests|docs|benchmarks|reports)/[\w./-]*)"
)
ENV_ID = re.compile(r"kabu_envs/\w+-v\d+$")  # a PettingZoo id such as kabu_envs/kakeya-v1, not a path


def missing_paths(page: Path, root: Path) -> list[str]:
    """The repository paths ``page`` names that do not exist (placeholders such as ``<game>`` and globs
    excepted)."""
    text = page.read_text(encoding="utf-8")
    out = []
    for m in REPO_PATH.finditer(text):
        path = m.group(1).rstrip(".")
        if text[m.end() : m.end() + 1] in ("<", "*", "{") or ENV_ID.match(path):
            continue
        if not (root / path).exists():
            out.append(f"{page.relative_to(root)}:{text.count(chr(10), 0, m.start()) + 1}: {path}")
    return out


def test_every_path_the_docs_name_exists():
    """A doc naming a file that moved (the agents went into their games' packages) is caught."""
    pages = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md", ROOT / "benchmarks" / "README.md"]
    assert [p for page in pages for p in missing_paths(page, ROOT)] == []


def test_a_missing_path_is_reported(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text(
        "See docs/page.md, `training/configs/x.yaml`, kabu_envs/<game>/agents/ and kabu_envs/kakeya-v1.\n"
    )
    assert missing_paths(tmp_path / "docs" / "page.md", tmp_path) == [
        "docs/page.md:1: training/configs/x.yaml"
    ]
