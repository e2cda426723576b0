"""Every Oicho-Kabu round's showdown is shown before the next deal (hardening #9): the step that ends
a round also deals the next one, and the frame of that step used to show the new deal (no result)."""

from __future__ import annotations

import io
from typing import Any

from kabu_envs.play import replay as replay_cli
from kabu_envs.play.session import HUMAN, Match
from kabu_envs.play.terminal import run

OPTIONS = {"max_rounds": 4}


def _round_ends(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f for f in frames if f["round_over"]]


def _check_showdown(frame: dict[str, Any], seat: int) -> None:
    """The frame shows the finished round: every card of the dealer and the backed spreads face up, a
    result per backed spread and the round's payments."""
    view = frame["view"]
    assert view["result"] and view["result"][-1].startswith("round result:"), view["result"]
    if "nobody staked: no payment" in view["result"]:
        return  # no showdown: the cards nobody saw stay hidden
    dealer = view["zones"][0]
    assert dealer["cards"] and not any(c.get("hidden") for c in dealer["cards"]), dealer
    assert "=" in dealer["note"]  # the dealer's total
    for z in view["zones"][1:5]:
        if z["note"].split(";")[0] != "no stakes":
            assert not any(c.get("hidden") for c in z["cards"]) and "=" in z["note"], z


def test_a_played_match_shows_every_rounds_showdown() -> None:
    match = Match("oicho_kabu", [HUMAN, "expert", "expert", "expert"], OPTIONS, seed=5)
    frames = match.advance()
    while not match.over:
        frames.append(match.play(match.legal_moves()[-1]["action"]))
        frames += match.advance()
    ends = _round_ends(frames)
    assert len(ends) == 4 and [f["over"] for f in ends] == [False, False, False, True]
    assert [f["showdown"] for f in ends] == [True, True, True, False]  # the page holds these three
    for round_no, frame in enumerate(ends, 1):
        _check_showdown(frame, 0)
        assert frame["view"]["round"] == round_no and f"round {round_no}/4" in frame["view"]["title"]
    # the frame after a showdown shows the next deal (no result yet)
    after = frames[frames.index(ends[0]) + 1]
    assert after["view"]["round"] == 1 and after["view"]["result"] == []


def test_the_terminal_prints_each_showdown_table() -> None:
    match = Match("oicho_kabu", [HUMAN, "expert", "expert", "expert"], OPTIONS, seed=5)
    out = io.StringIO()
    assert run(match, io.StringIO("1\n" * 200), out) == 0
    text = out.getvalue()
    assert text.count("--- round over ---") == 4
    assert text.count("phase: SHOWDOWN") == 3  # rounds 1-3; round 4's table is the final one
    for round_no in (1, 2, 3):
        block = text.split(f"== Oicho-Kabu (standard), round {round_no}/4 ==\n")[-1]
        assert block.startswith("you are player_0") and "phase: SHOWDOWN" in block.split("==")[0]


def test_a_replay_shows_each_showdown() -> None:
    match = Match("oicho_kabu", ["expert"] * 4, OPTIONS, seed=9)
    match.advance()
    record = match.record()
    for seat in range(4):
        ends = _round_ends(replay_cli.replay_frames(record, seat))
        assert len(ends) == 4
        for frame in ends:
            _check_showdown(frame, seat)
