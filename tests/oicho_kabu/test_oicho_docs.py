"""docs/oicho_kabu.md carries exactly the tables the code generates (observation, actions, options, yaku)."""

import ast
import re
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from kabu_envs.oicho_kabu import docs
from kabu_envs.oicho_kabu.actions import Action, num_actions
from kabu_envs.oicho_kabu.config import Config, make_config
from kabu_envs.oicho_kabu.observation import obs_spec
from kabu_envs.oicho_kabu.options import OPTIONS, PRESETS

DOC = Path(__file__).resolve().parents[2] / "docs" / "oicho_kabu.md"


@pytest.fixture(scope="module")
def text() -> str:
    return DOC.read_text()


def test_doc_holds_the_observation_table_exactly(text):
    assert obs_spec(make_config()).markdown_table() in text


def test_doc_holds_the_action_table_generated_from_action(text):
    table = docs.action_table()
    assert table in text
    rows = table.splitlines()[2:]
    assert len(rows) == num_actions(len(make_config().bet_sizes))
    for a in Action:
        if a < Action.BET_BASE:
            assert f"| {int(a)} | `{a.name}` |" in table


def test_every_generated_block_is_up_to_date(text):
    assert docs.update_text(text) == text, "run: python -m kabu_envs.oicho_kabu.docs --update"


def test_every_option_is_documented_with_its_default(text):
    names = [f.name for f in fields(Config) if f.init]
    assert names == list(OPTIONS.names)
    table = docs.options_table()
    for f in fields(Config):
        if f.init:
            assert f"| `{f.name}` | `{f.default!r}` | " in table
    assert "| `domae` | `50` |" in table and "| `rules` | `'standard'` |" in table
    for o in OPTIONS:
        assert o.source and o.meaning and o.allowed_text(), o.name


def test_choice_options_list_exactly_what_the_checker_accepts():
    for o in OPTIONS:
        allowed = getattr(o.check, "allowed", None)
        if allowed:
            for value in allowed:
                assert f"`{value!r}`" in o.allowed_text()
                assert getattr(make_config(**{o.name: value}), o.name) == value
                assert getattr(make_config(**{o.name: np.str_(value)}), o.name) == value


def test_yaku_tables_follow_the_config():
    t = docs.yaku_table(make_config(rules="kansai"))
    assert "| `kuppin` | dealer |" in t and "| 40 | 2 |" in t and "arashi_kabu" not in t
    t = docs.yaku_table(make_config(local_yaku=["pin_basami"]))
    assert "x (middle card)" in t


def test_missing_marker_is_an_error():
    with pytest.raises(ValueError, match="generated:options"):
        docs.update_text("no markers here")


def test_doc_sections_exist(text):
    for heading in ("## Choices", "## Observation", "## Actions", "## Presets", "## Traceability"):
        assert f"\n{heading}\n" in text


ROOT = Path(__file__).resolve().parents[2]
CITING = [
    *sorted((ROOT / "kabu_envs" / "oicho_kabu").rglob("*.py")),
    ROOT / "kabu_envs" / "oicho_kabu_v1.py",
    *sorted((ROOT / "tests" / "oicho_kabu").glob("*.py")),
    DOC,
]


def test_the_docs_page_is_the_rule_text_cited_by_anchor():
    """No citation of a rule text users cannot see; the code cites the page's sections by anchor
    (tests/test_doc_links.py checks that every anchor exists)."""
    hidden = re.compile(r"shared/spec|spec section|\bthe spec\b", flags=re.IGNORECASE)
    cited = 0
    for path in CITING:
        body = path.read_text()
        if path.name == Path(__file__).name:
            body = body.replace(hidden.pattern, "")
        assert not hidden.search(body), f"{path.relative_to(ROOT)} cites a rule text users cannot see"
        cited += len(re.findall(r"docs/oicho_kabu\.md#[\w-]+", body))
    assert cited >= 20


ROW_ID = re.compile(r"\b(?:enc\.K?|site\.)\d+\b")


def traceability_rows(text: str) -> list[str]:
    """The rows of the traceability table: one per sentence of the encyclopedia text (``enc.n``, its
    Kansai rules ``enc.Kn``) and of the kabufuda site (``site.n``)."""
    section = text[text.index("\n## Traceability\n") :]
    return [line for line in section.splitlines() if re.match(r"^\| (enc|site)\.", line)]


def test_every_cited_row_exists(text):
    """A row id cited anywhere in the docs or the tests names a row of the table."""
    ids = {row.split("|")[1].strip() for row in traceability_rows(text)}
    for path in [*sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "tests").rglob("*.py"))]:
        for cited in ROW_ID.findall(path.read_text()):
            assert cited in ids, f"{path.relative_to(ROOT)} cites a missing row {cited}"


def _test_source(path: Path, name: str) -> str:
    """The source of the top-level test ``name`` in ``path``, its decorators included."""
    text = path.read_text()
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            parts = [*node.decorator_list, node]
            return "\n".join(ast.get_source_segment(text, part) or "" for part in parts)
    raise AssertionError(f"{path.name} has no test {name}")


# how a test's source names a preset (its own constants included)
_PRESET_WORDS = {"standard": r"standard", "kansai": r"kansai|KANSAI", "kabufuda_site": r"kabufuda_site|SITE"}


def test_every_traceability_row_plays_the_setting_it_names(text):
    """A row naming ``option=value`` other than what `standard` plays is checked by a test that plays that
    value: one of its tests names the option, or a preset that sets it to that value, in its own source
    (decorators included). Issue #24: a row's tests must exercise the row's own setting (the site's rows
    once named tests that ran another preset), not merely exist."""
    standard = make_config()
    homes = [ROOT / "tests" / "oicho_kabu", ROOT / "tests" / "agents"]
    checked = 0
    for row in traceability_rows(text):
        cells = [c.strip() for c in row.strip("|").split("|")]
        sources = "\n".join(
            _test_source(next(h / f for h in homes if (h / f).exists()), n)
            for f, n in re.findall(r"`(test_\w+\.py)::(test_\w+)`", cells[3])
        )
        for name, value in re.findall(r"`(\w+)=([^`]+)`", cells[2]):
            try:
                literal = ast.literal_eval(value)
            except (ValueError, SyntaxError):
                continue  # prose such as `zoro_values=(1..10)`
            want = OPTIONS.check(name, literal)
            if want == getattr(standard, name):
                continue
            presets = [p for p, d in PRESETS.items() if name in d and OPTIONS.check(name, d[name]) == want]
            played = name in sources or any(re.search(_PRESET_WORDS[p], sources) for p in presets)
            assert played, f"{cells[0]}: no test of the row plays {name}={value}"
            checked += 1
    assert checked >= 10


def test_every_traceability_row_names_tests_that_exist(text):
    """Every source sentence has an option (or a reason) and at least one test, and each test exists."""
    rows = traceability_rows(text)
    assert len(rows) >= 60
    ids = [row.split("|")[1].strip() for row in rows]
    assert len(set(ids)) == len(ids), "duplicate row numbers"
    homes = [ROOT / "tests" / "oicho_kabu", ROOT / "tests" / "agents"]
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == 4 and all(cells), row
        refs = re.findall(r"`(test_\w+\.py)::(test_\w+)`", cells[3])
        assert refs, f"row {cells[0]} names no test"
        for file, name in refs:
            paths = [h / file for h in homes if (h / file).exists()]
            assert paths, f"row {cells[0]}: no file {file}"
            assert re.search(rf"^def {name}\(", paths[0].read_text(), flags=re.MULTILINE), (
                f"row {cells[0]}: {file} has no test {name}"
            )
