"""docs/kakeya.md: its generated tables equal what the code prints now, the code cites its sections by
anchor (never a text outside the repository; tests/test_doc_links.py checks that every anchor exists),
and the traceability table names an existing test on every row and every option with its default."""

import ast
import re

from kabu_envs.kakeya.config import OPTIONS
from kabu_envs.kakeya.docs import DOC_PATH, doc_blocks, generated_blocks

ROOT = DOC_PATH.parents[1]
KAKEYA_FILES = [
    *sorted((ROOT / "kabu_envs" / "kakeya").rglob("*.py")),
    *sorted((ROOT / "kabu_envs").glob("kakeya_v*.py")),
    *sorted((ROOT / "tests" / "kakeya").glob("*.py")),
    ROOT / "tests" / "agents" / "test_kakeya_scripted.py",
    DOC_PATH,
]
# the original rule contract and the source texts live outside the repository: cite docs/kakeya.md instead
OUTSIDE = re.compile("|".join(("spec" + r" sections?\b", "shared" + "/", "seeds" + "/")))
ROW_ID = re.compile(r"\bkakeya\.(\d+)\b")


def test_doc_tables_match_the_code():
    text = DOC_PATH.read_text()
    assert doc_blocks(text) == generated_blocks(), "run: python -m kabu_envs.kakeya.docs --update"


def test_the_code_cites_the_page_by_anchor_and_no_outside_text():
    cited = 0
    for path in KAKEYA_FILES:
        text = path.read_text()
        assert not OUTSIDE.search(text), f"{path.relative_to(ROOT)} cites a text outside the repository"
        cited += len(re.findall(r"docs/kakeya\.md#[\w-]+", text))
    assert cited >= 10


def test_every_option_is_documented_with_a_default():
    table = generated_blocks()["options"]
    for name in (
        "num_players",
        "six_player_mode",
        "default_trump",
        "dealers_choose_trump",
        "rensho_rule",
        "rensho_follow",
        "max_deals",
        "stones_per_player",
        "reward",
    ):
        assert f"| `{name}` |" in table
    assert "| winners took no ace | 4 | 4 | - |" in generated_blocks()["stones"]


def traceability_rows() -> list[str]:
    """The rows of the traceability table (between its markers)."""
    text = DOC_PATH.read_text()
    m = re.search(r"<!-- BEGIN traceability -->\n(.*?)<!-- END traceability -->", text, re.S)
    assert m, "docs/kakeya.md has no traceability block"
    return [ln for ln in m.group(1).splitlines() if re.match(r"\| kakeya\.\d+ \|", ln)]


def test_traceability_rows_are_numbered_and_each_names_existing_tests():
    rows = traceability_rows()
    assert [r.split("|")[1].strip() for r in rows] == [f"kakeya.{i}" for i in range(1, len(rows) + 1)]
    assert len(rows) >= 20
    test_files = {
        p.name: p.read_text() for d in ("kakeya", "agents") for p in (ROOT / "tests" / d).glob("test_*.py")
    }
    for row in rows:
        cited = re.findall(r"`(test_\w+\.py)::(test_\w+)`", row.split("|")[4])
        assert cited, f"a traceability row names no test: {row[:80]}"
        for file, name in cited:
            assert file in test_files, f"{file} (row {row[:60]}) does not exist"
            assert re.search(rf"^def {name}\(", test_files[file], re.M), f"{file}::{name} does not exist"


def _test_source(text: str, name: str) -> str:
    """The source of the top-level test ``name`` of a test file's ``text``, its decorators included."""
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            parts = [*node.decorator_list, node]
            return "\n".join(ast.get_source_segment(text, part) or "" for part in parts)
    raise AssertionError(f"no test {name}")


def test_every_traceability_row_plays_the_setting_it_names():
    """A row naming ``option=value`` other than the default is checked by a test that plays that value:
    one of its tests names the option in its own source (decorators included). Issue #24: a row's tests
    must exercise the row's own setting, not merely exist."""
    defaults = OPTIONS.defaults()
    test_files = {
        p.name: p.read_text() for d in ("kakeya", "agents") for p in (ROOT / "tests" / d).glob("test_*.py")
    }
    for row in traceability_rows():
        cells = [c.strip() for c in row.strip("|").split("|")]
        sources = "\n".join(
            _test_source(test_files[f], n) for f, n in re.findall(r"`(test_\w+\.py)::(test_\w+)`", cells[3])
        )
        for name, value in re.findall(r"`(\w+)=([^`]+)`", cells[2]):
            if OPTIONS.check(name, ast.literal_eval(value)) != defaults[name]:
                assert name in sources, f"{cells[0]}: no test of the row plays {name}={value}"


def test_traceability_names_every_option_with_its_default_and_valid_values():
    """The rules engine and the docs use the same words: every option appears with its default,
    and every ``option=value`` the table writes is a value the option accepts."""
    table = "\n".join(traceability_rows())

    def literal(v) -> str:
        return f'"{v}"' if isinstance(v, str) else repr(v)

    for name, default in OPTIONS.defaults().items():
        assert f"`{name}={literal(default)}`" in table, name
    for name, value in re.findall(r"`(\w+)=([^`]+)`", table):
        assert name in OPTIONS, name
        OPTIONS.check(name, ast.literal_eval(value))


def test_every_cited_row_exists():
    """A row id (``kakeya.n``) cited anywhere in the docs or the tests names a row of the table."""
    rows = len(traceability_rows())
    for path in [*sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "tests").rglob("*.py"))]:
        for n in ROW_ID.findall(path.read_text()):
            assert 1 <= int(n) <= rows, f"{path.relative_to(ROOT)} cites a missing row kakeya.{n}"
