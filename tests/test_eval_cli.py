"""``python -m kabu_envs.eval``: bad arguments are argparse errors naming the problem, never tracebacks."""

from __future__ import annotations

import json

import pytest

from kabu_envs.eval.__main__ import main
from kabu_envs.eval.tournament import format_table

BASE = ["--game", "toy_card", "--agents", "scripted", "--opponents", "random"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--deals", "0"], "must be at least 1"),
        (["--deals", "ten"], "is not an integer"),
        (["--rating-block", "-3"], "must be at least 1"),
        (["--role", "banker"], "no role 'banker'"),
        (["--option", "num_players"], "expected KEY=VALUE"),
        (["--option", "num_players=99"], "num_players"),
        (["--option", "colour=1"], "unknown Toy Card option"),
    ],
)
def test_bad_arguments_are_argparse_errors(extra, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main([*BASE, *extra])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_unknown_game_and_agent_are_argparse_errors(capsys):
    with pytest.raises(SystemExit):
        main(["--game", "chess", "--agents", "random"])
    assert "invalid choice: 'chess'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--game", "toy_card", "--agents", "ppo_nothing_here", "--opponents", "random"])
    assert "no model found" in capsys.readouterr().err


def test_the_same_agent_on_both_sides_is_named(capsys, tmp_path):
    out = tmp_path / "c.json"
    argv = ["--game", "toy_card", "--agents", "random", "--opponents", "random", "--deals", "40"]
    assert main([*argv, "--json", str(out)]) == 0
    assert "played as a control matchup" in capsys.readouterr().out
    [row] = json.loads(out.read_text())["matchups"]
    assert row["games"] == 40 and row["ci95"][0] <= 0 <= row["ci95"][1]
    assert (
        main(
            ["--game", "toy_card", "--agents", "random", "scripted", "--opponents", "random", "--deals", "5"]
        )
        == 0
    )
    assert "no matchup of an agent against itself (random)" in capsys.readouterr().out


def test_long_names_keep_the_table_aligned():
    row = {"role": "seat", "games": 10, "mean": 0.5, "ci95": [0.1, 0.9], "win_rate": 0.6}
    rows = [
        {**row, "agent": "a_very_long_agent_name_from_a_model_folder", "opponent": "random"},
        {**row, "agent": "x", "opponent": "an_opponent_with_a_long_name_too"},
    ]
    lines = format_table("toy_card", rows).splitlines()
    for line in lines[2:]:
        assert len(line) == len(lines[0])
        assert line.index("0.500") == lines[2].index("0.500")  # the numbers stay in their column
