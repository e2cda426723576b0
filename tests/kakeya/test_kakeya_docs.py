"""docs/kakeya.md: its generated tables equal what the code prints now."""

from kabu_envs.kakeya.docs import DOC_PATH, doc_blocks, generated_blocks


def test_doc_tables_match_the_code():
    text = DOC_PATH.read_text()
    assert doc_blocks(text) == generated_blocks(), "run: python -m kabu_envs.kakeya.docs --update"


def test_every_option_is_documented_with_a_default():
    table = generated_blocks()["options"]
    for name in (
        "num_players",
        "six_player_mode",
        "default_trump",
        "dealers_choose_trump",
        "rensho_rule",
        "max_deals",
        "stones_per_player",
        "reward",
    ):
        assert f"| `{name}` |" in table
    assert "| winners took no ace | 4 | 4 | - |" in generated_blocks()["stones"]
