"""docs/kakeya.md: its generated tables equal what the code prints now, and the code cites its
numbered sections (never a text outside the repository)."""

import re

from kabu_envs.kakeya.docs import DOC_PATH, doc_blocks, generated_blocks

ROOT = DOC_PATH.parents[1]
KAKEYA_FILES = [
    *sorted((ROOT / "kabu_envs" / "kakeya").glob("*.py")),
    ROOT / "kabu_envs" / "kakeya_v0.py",
    ROOT / "agents" / "kakeya_scripted.py",
    *sorted((ROOT / "tests" / "kakeya").glob("*.py")),
    ROOT / "tests" / "agents" / "test_kakeya_scripted.py",
    DOC_PATH,
]
# the original rule contract and the seeds live outside the repository: cite docs/kakeya.md instead
OUTSIDE = re.compile("|".join(("spec" + r" §", "spec" + r" sections?\b", "shared" + "/", "seeds" + "/")))


def test_doc_tables_match_the_code():
    text = DOC_PATH.read_text()
    assert doc_blocks(text) == generated_blocks(), "run: python -m kabu_envs.kakeya.docs --update"


def doc_sections() -> dict[str, str]:
    """Section number -> title, from the doc's ``## n. Title`` headings."""
    return dict(re.findall(r"^## (\d+)\. (.+)$", DOC_PATH.read_text(), re.M))


def test_sections_are_numbered_in_order():
    numbers = [int(n) for n in doc_sections()]
    assert numbers == list(range(1, len(numbers) + 1))


def test_citations_name_existing_sections_and_no_outside_text():
    sections = doc_sections()
    cited = 0
    for path in KAKEYA_FILES:
        text = path.read_text()
        rel = path.relative_to(ROOT)
        assert not OUTSIDE.search(text), f"{rel} cites a text outside the repository"
        for number, title in re.findall(r"docs/kakeya\.md §(\d+)(?: ([A-Z][a-z]+(?: [a-z]+)*))?", text):
            cited += 1
            assert number in sections, f"{rel}: docs/kakeya.md §{number} does not exist"
            assert not title or sections[number].startswith(title), (
                f"{rel}: §{number} is {sections[number]!r}"
            )
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
