"""kabu-play in the terminal, driven through stdin: numbered moves, re-prompts, summaries, records,
a saved game resumed, and kabu-replay of what was written."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from kabu_envs.play import replay as replay_cli
from kabu_envs.play.__main__ import main
from kabu_envs.play.records import read_record, replay
from kabu_envs.play.session import HUMAN, Match
from kabu_envs.play.terminal import run


def test_kabu_play_through_stdin_with_bad_input_and_a_record(tmp_path):
    path = tmp_path / "game.json"
    moves = "\n".join(["hello", "0", "999", *["1"] * 80]) + "\n"
    proc = subprocess.run(
        [sys.executable, "-m", "kabu_envs.play", "--game", "kakeya", "--seat", "1", "--seed", "3",
         "--opponents", "scripted", "random", "scripted", "--record", str(path)],
        input=moves, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr
    assert "not a choice: 'hello'" in out and "not a choice: '0'" in out and "not a choice: '999'" in out
    assert "your move [1-" in out and "  1) " in out
    assert "--- round over ---" in out and "=== match summary ===" in out
    record = read_record(path)
    assert record.complete and record.viewer == 1
    assert [s["agent"] for s in record.seats] == ["scripted", HUMAN, "random", "scripted"]
    _, totals = replay(record)
    for i, total in enumerate(totals):  # the summary shows the engine's totals
        name = "you" if i == 1 else f"player_{i} ({record.seats[i]['agent']})"
        assert f"  {name}: {total:+g}" in out
    # the seat's own hand in full, the others' as counts (no card of theirs)
    hands = [line.split(": ", 1)[1].split() for line in out.splitlines() if line.startswith("  your hand: ")]
    assert max(len(h) for h in hands) == 13 and "13 cards in hand" in out


def test_quit_saves_the_game_and_resume_finishes_it(tmp_path, monkeypatch, capsys):
    path = tmp_path / "saved.json"
    match = Match("oicho_kabu", ["random", HUMAN, "random", "random"], seed=8)
    out = io.StringIO()
    assert run(match, io.StringIO("1\nq\n"), out, str(path)) == 1
    assert "game stopped (not finished)" in out.getvalue() and "a saved game" in out.getvalue()
    saved = json.loads(path.read_text())
    assert saved["complete"] is False and len(saved["actions"]) >= 1
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 40))
    assert main(["--resume", str(path)]) == 0
    assert "=== match summary ===" in capsys.readouterr().out
    record = read_record(path)
    assert record.complete and record.actions[: len(saved["actions"])] == saved["actions"]
    replay(record)


def test_toy_card_plays_by_move_name_and_hides_the_other_card():
    match = Match("toy_card", [HUMAN, "scripted"], seed=0, deck=[20, 39])
    out = io.StringIO()
    assert run(match, io.StringIO("play\n"), out) == 0
    text = out.getvalue()
    assert (
        "you: 5" in text and "player_1: [##]" in text and "9" not in text.split("player_1")[1].split("\n")[0]
    )
    assert match.record().actions[0] == 1


def test_bad_command_lines_name_the_problem(capsys):
    for argv, message in [
        (["--game", "kakeya", "--seat", "7"], "this table has seats 0..3"),
        (["--game", "kakeya", "--opponents", "random", "random"], "give one name, or 3"),
        (["--game", "kakeya", "--opponents", "nobody"], "unknown agent 'nobody'"),
        (["--game", "kakeya", "--option", "colour=1"], "colour"),
    ]:
        with pytest.raises(SystemExit):
            main(argv)
        assert message in capsys.readouterr().err


def test_kabu_replay_prints_the_game_and_refuses_a_bad_record(tmp_path, capsys):
    match = Match("oicho_kabu", ["scripted"] * 4, seed=5)
    match.advance()
    path = tmp_path / "r.json"
    path.write_text(json.dumps(match.to_json()))
    assert replay_cli.main([str(path), "--seat", "2"]) == 0
    out = capsys.readouterr().out
    assert "seen by player_2" in out and "you are player_2" in out
    assert "replayed exactly" in out and "rewards match the record" in out
    data = json.loads(path.read_text())
    data["actions"][0] = 1  # DRAW while the table bets
    path.write_text(json.dumps(data))
    assert replay_cli.main([str(path)]) == 1
    assert "action #0 (1) of player_" in capsys.readouterr().err


def test_a_game_without_a_viewer_plays_on_the_generic_view(tmp_path, monkeypatch):
    """A game whose package has no ``view.py``: the raw observation and the engine's action names."""
    import dataclasses

    from kabu_envs import registry

    (tmp_path / "bare_game").mkdir()
    (tmp_path / "bare_game" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = dataclasses.replace(
        registry.get("toy_card"), id="toy_bare", package="bare_game", gym_ids={}, pettingzoo_id=None
    )
    registry.register(spec)
    try:
        match = Match("toy_bare", [HUMAN, "random"], seed=1)
        out = io.StringIO()
        assert run(match, io.StringIO("1\n"), out, str(tmp_path / "bare.json")) == 0
        text = out.getvalue()
        assert "observation: " in text and "1) PASS" in text and "=== match summary ===" in text
        replay(read_record(tmp_path / "bare.json"))
    finally:
        registry.unregister("toy_bare")


def test_without_game_everything_is_asked_and_bad_answers_asked_again(tmp_path, monkeypatch, capsys):
    path = tmp_path / "asked.json"
    answers = ["9", "oicho_kabu", 'rules="nope"', 'rules="kansai" num_players=3', "5", "1", "nobody",
               "expert random", *["1"] * 30]  # fmt: skip
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(answers) + "\n"))
    assert main(["--seed", "4", "--record", str(path)]) == 0
    out = capsys.readouterr().out
    for refusal in (
        "not a choice: '9'",
        "'rules' = 'nope' is invalid",
        "not a seat: '5'",
        "unknown agent 'nobody'",
    ):
        assert refusal in out
    record = read_record(path)
    assert record.game == "oicho_kabu" and record.options == {"rules": "kansai", "num_players": 3}
    assert [s["agent"] for s in record.seats] == ["expert", HUMAN, "random"] and record.seed == 4
    replay(record)
