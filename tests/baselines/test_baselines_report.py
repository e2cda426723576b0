"""The shipped results: the published tables are the ones make demo wrote, and they meet the bar."""

import json

import pytest

from kabu_envs.agents.registry import shipped_models
from kabu_envs.eval import report
from kabu_envs.eval.plans import demo_plan

SUMMARY = json.loads(report.SUMMARY.read_text())


@pytest.mark.parametrize("doc", report.DOCS, ids=lambda p: p.name)
def test_published_tables_match_reports_summary(doc):
    text = doc.read_text()
    assert report.render_all(text, SUMMARY, report.required_blocks(doc)) == text, (
        f"{doc.name} is out of date: run python -m kabu_envs.eval.report --write"
    )


def test_the_results_page_holds_every_block_and_readme_any():
    """docs/results.md must hold every table (a missing block is refused, nothing written); README.md
    gets rewritten whichever of them it shows, and a page without blocks is left as it is."""
    assert report.blocks_in(report.RESULTS_PAGE.read_text()) == list(report.BLOCKS)
    assert report.required_blocks(report.RESULTS_PAGE) == report.BLOCKS
    assert report.required_blocks(report.ROOT / "README.md") == ()
    with pytest.raises(ValueError, match="generated:exploit"):
        report.render_all(
            "<!-- BEGIN generated:results -->\n<!-- END generated:results -->\n"
            "<!-- BEGIN generated:best_response -->\n<!-- END generated:best_response -->\n",
            SUMMARY,
            report.BLOCKS,
        )
    only = "a\n<!-- BEGIN generated:results -->\nold\n<!-- END generated:results -->\nb\n"
    rendered = report.render_all(only, SUMMARY)
    assert rendered == only.replace("old\n", report.results_markdown(SUMMARY))
    assert report.render_all("no blocks\n", SUMMARY) == "no blocks\n"


def test_exploit_table_shows_every_shipped_exploiter():
    rows = [r for block in SUMMARY.values() for r in block.get("exploit", [])]
    assert rows
    table = report.exploit_markdown(SUMMARY).splitlines()
    assert len(table) == 2 + len(rows)
    assert any("| Kakeya | standard | expert | partnership |" in line for line in table)


def test_best_response_table_shows_every_gap_row_with_its_rules():
    rows = [r for block in SUMMARY.values() for r in block.get("best_response", [])]
    assert rows
    table = report.best_response_markdown(SUMMARY).splitlines()
    assert len(table) == 2 + len(rows)
    # a richer setting's rows get their own rules column and come after the standard ones
    fake = {
        "oicho_kabu": {
            "best_response": [
                {**rows[0], "rules": "kansai", "agent": "ppo_x", "gap": 0.01234},
                {**rows[0], "rules": "standard"},
            ]
        }
    }
    lines = report.best_response_markdown(fake).splitlines()[2:]
    assert "| standard |" in lines[0] and "| kansai | bettor | ppo_x |" in lines[1]
    assert "| +0.0123 |" in lines[1]


def _row(block: dict, agent: str, opponent: str, like: dict | None = None) -> dict:
    """The one row of ``agent`` against ``opponent`` (in the rule setting and role of row ``like``)."""
    [row] = [
        m
        for m in block["matchups"]
        if (m["agent"], m["opponent"]) == (agent, opponent)
        and (like is None or (m.get("rules"), m["role"]) == (like.get("rules"), like["role"]))
    ]
    return row


def test_every_shipped_model_beats_random_and_scripted():
    """The bar, on the committed reports/summary.json (the test set of make demo): every shipped model
    beats random, and beats scripted wherever the expert does in the same rule setting. Where the expert
    does not (v2's kabufuda_site: docs/studies/oicho_models.md#the-shipped-models-under-v2s-rules), a
    model must not lose to scripted."""
    for game, block in SUMMARY.items():
        assert block["deals_per_matchup"] == demo_plan(game).deals >= 1000
        trained = {m["agent"] for m in block["matchups"]} & set(shipped_models())
        assert trained, game
        for agent in trained:
            versus_random = _row(block, agent, "random")
            assert versus_random["games"] >= 1000 and versus_random["ci95"][0] > 0, versus_random
            row = _row(block, agent, "scripted")
            reference = _row(block, "expert", "scripted", row)
            assert row["games"] >= 1000, row
            if reference["ci95"][0] > 0:
                assert row["ci95"][0] > 0, (row, reference)
            else:
                assert row["ci95"][1] > 0, (row, reference)


def test_the_bar_falls_back_only_where_the_expert_does_not_beat_scripted():
    """The fallback of the bar above is taken only where the summary shows the expert failing too."""
    for game, block in SUMMARY.items():
        for m in block["matchups"]:
            if m["agent"] in shipped_models() and m["opponent"] == "scripted" and m["ci95"][0] <= 0:
                reference = _row(block, "expert", "scripted", m)
                assert reference["ci95"][0] <= 0, (game, m, reference)


def test_render_into_needs_a_block():
    with pytest.raises(ValueError, match="generated:results"):
        report.render_into("no block here", "| x |\n")
    with pytest.raises(ValueError, match="generated:best_response"):
        report.render_into("no block here", "| x |\n", "best_response")
    text = "a\n<!-- BEGIN generated:results -->\nold\n<!-- END generated:results -->\nb"
    assert report.render_into(text, "new\n") == text.replace("old\n", "new\n")


def test_every_published_row_records_the_seed_the_demo_gives_it():
    """Each row of the committed summary names its deals (``seed``, what ``kabu-eval --seed`` replays):
    the seed ``eval.demo.matchup_seed`` gives the row's game, role, opponent and rules in today's plan,
    so every agent met an opponent on the same deals."""
    from kabu_envs.agents.registry import models_dir
    from kabu_envs.eval import demo

    planned = {
        (j.game, j.agent, j.opponent, j.role, demo.rules_label(json.loads(j.options))): demo.matchup_seed(
            2024, j
        )
        for j in demo.plan(models_dir())
    }
    rows = [(game, row) for game, block in SUMMARY.items() for row in block["matchups"]]
    assert len(rows) == len(planned)
    for game, row in rows:
        key = (game, row["agent"], row["opponent"], row["role"], row["rules"])
        assert row["seed"] == planned[key], row
