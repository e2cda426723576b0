"""The deal's event records (kabu_envs/oicho_kabu/events.py): every kind says itself in words, the
text log and the picture's side notes are those words, and records compare by kind and fields."""

from __future__ import annotations

import dataclasses
import typing

import pytest
from oicho_game_helpers import S, bet_round, new_game

from kabu_envs.oicho_kabu import events
from kabu_envs.oicho_kabu.actions import Action
from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.picture import log_lines
from kabu_envs.oicho_kabu.render import render_log

STANDARD = make_config()
HANAFUDA = make_config(deck="hanafuda", dealer_selection="lowest")
WESTERN = make_config(deck="western")

# (event, config, the text log's line, the picture's line or None); the texts are the log's as they
# read before the records (tuples decoded twice), kept letter for letter
CASES = [
    (events.Round(3, 1), STANDARD, "round 3: player_1 deals", "round 3: player_1 deals"),
    (
        events.Select(((0, 4), (1, 0), (2, 8)), 1),
        HANAFUDA,
        "dealer selection (lowest): p0:2, p1:1*, p2:3* -> player_1 deals",
        "selection: player_1 deals",
    ),
    (events.Table((0, 4, 39, 20)), WESTERN, "table: A 2 10 6", None),
    (events.TripleRedeal((20, 21, 22, 4)), STANDARD, "triple_redeal: 6 6 6 2", "table redealt (triple)"),
    (events.MinsoRedeal((0, 28, 1, 8)), HANAFUDA, "minso_redeal: 1* 8* 1 3*", "table redealt (minso)"),
    (events.MinsoKeep(), STANDARD, "minso_keep", "dealer keeps the table"),
    (events.Bet(2, 3, 5), STANDARD, "player_2 stakes 5 on spread 3", "player_2 stakes 5 on spread 3"),
    (events.NoBets(), STANDARD, "no_bets", "no stakes: round ends"),
    (events.Take(0, Action.TAKE_BOTTOM), STANDARD, "dealer card 1: TAKE_BOTTOM", "dealer takes bottom card"),
    (events.Take(1, Action.TAKE_FOURTH), STANDARD, "dealer card 2: TAKE_FOURTH", "dealer takes fourth card"),
    (events.Draw(1, 8), HANAFUDA, "spread 1 draws 3*", "spread 1 draws 3"),
    (events.Draw(0, 1), WESTERN, "spread 0 draws A", "spread 0 draws A"),
    (events.Unbacked(3, 12, 28), HANAFUDA, "unbacked 3: turned up 4, dealt 8*", "spread 3 turned up, gets 8"),
    (events.Unbacked(0, 0, 39), WESTERN, "unbacked 0: turned up A, dealt 10", "spread 0 turned up, gets 10"),
    (events.Stand(2), STANDARD, "stand 2", "spread 2 stands"),
    (events.Escape(1), STANDARD, "escape 1", "spread 1 escapes"),
    (events.DealerDraw(28), HANAFUDA, "dealer draws 8*", "dealer draws 8"),
    (events.DealerStand(), STANDARD, "dealer_stand", "dealer stands"),
    (
        events.Showdown((36, 37, 38), (None, 0, None, None), True),
        STANDARD,
        "showdown: dealer 10 10 10, results [None, 0, None, None] (void)",
        "showdown (void)",
    ),
    (
        events.Showdown((32, 28), (2, -1, None, -3), False),
        STANDARD,
        "showdown: dealer 9 8, results [2, -1, None, -3]",
        "showdown",
    ),
    (events.DealerChange(0, 2), STANDARD, "deal passes from player_0 to player_2", "deal passes to player_2"),
    (events.Over((120, 80, 100)), STANDARD, "episode over, chips [120, 80, 100]", None),
]


@pytest.mark.parametrize(("event", "cfg", "full", "brief"), CASES, ids=[type(c[0]).__name__ for c in CASES])
def test_every_kind_says_itself_in_full_and_in_brief(event, cfg, full, brief):
    assert event.describe(cfg) == full
    assert event.describe(cfg, brief=True) == brief


def test_every_kind_of_the_log_is_covered():
    assert {type(c[0]) for c in CASES} == set(typing.get_args(events.Event))


def test_the_text_log_and_the_side_notes_are_the_descriptions():
    g = new_game([3, 4, 5, 6, 9, 2, 8, 8, 8, 8])
    bet_round(g, {1: {0: 1}})
    g.apply_action(S)
    g.apply_action(S)
    kinds = [type(ev) for ev in g.log]
    assert kinds[:2] == [events.Round, events.Table] and kinds[-3:] == [
        events.DealerStand,
        events.Showdown,
        events.Over,
    ]
    assert render_log(g) == "\n".join(ev.describe(g.cfg) for ev in g.log)
    assert log_lines(g) == [text for ev in g.log if (text := ev.describe(g.cfg, brief=True)) is not None]
    assert "table: 3 4 5 6" in render_log(g) and not any(line.startswith("table") for line in log_lines(g))


def test_records_are_frozen_and_compare_by_kind_and_fields():
    # a tuple log compared ("stand", 2) with ("escape", 2) by position; records of two kinds never match
    assert events.Stand(2) != events.Escape(2) and events.Stand(2) == events.Stand(2)
    assert events.MinsoKeep() != events.DealerStand()
    with pytest.raises(dataclasses.FrozenInstanceError):
        events.Bet(1, 0, 5).size = 10  # type: ignore[misc]
