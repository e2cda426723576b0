"""kabu-eval --record-dir: every play of the duplicate matches is written as a game record that replays
exactly, and recording changes no result."""

from __future__ import annotations

import pytest

from kabu_envs.eval.__main__ import main as eval_main
from kabu_envs.eval.tournament import matchup_record
from kabu_envs.play.records import read_record, replay


@pytest.mark.parametrize(("game", "agent", "opponent", "deals", "plays"), [
    ("toy_card", "scripted", "random", 6, 12),  # "team": each of the 2 seats per deal
    ("kakeya", "scripted", "random", 2, 4),  # "team": each of the 2 partnerships per deal
    ("oicho_kabu", "expert", "random", 3, 6),  # "seat": the agent's play and the opponent's per deal
])  # fmt: skip
def test_records_of_eval_replay_and_change_nothing(tmp_path, game, agent, opponent, deals, plays):
    row, res = matchup_record(game, agent, opponent, deals=deals, seed=5, record_dir=str(tmp_path))
    plain, res_plain = matchup_record(game, agent, opponent, deals=deals, seed=5)
    assert res.advantages == res_plain.advantages and row["mean"] == plain["mean"]
    files = sorted(tmp_path.iterdir())
    assert len(files) == plays
    names = set()
    for f in files:
        record = read_record(f)
        assert record.complete and record.created_by == "kabu-eval" and record.game == game
        replay(record)  # every action legal, the recorded rewards reproduced
        names |= {s["agent"] for s in record.seats}
    assert {agent, opponent} <= names


def test_the_command_line_writes_records(tmp_path, capsys):
    assert eval_main(["--game", "toy_card", "--agents", "scripted", "--opponents", "random",
                      "--deals", "3", "--record-dir", str(tmp_path / "recs")]) == 0  # fmt: skip
    assert len(list((tmp_path / "recs").glob("toy_card-seat-scripted-vs-random-seed*.json"))) == 6
