"""A finished deal's record (kabu_envs/kakeya/events.py) says itself in words, and the text render, the
play UI and the picture show those words."""

from __future__ import annotations

import pytest
from kakeya_testlib import deal_order, deck_for, new_game, play_min_until_deal_ends, suit_hands

from kabu_envs.core.picture import Canvas
from kabu_envs.kakeya import Action
from kabu_envs.kakeya.events import DealResult
from kabu_envs.kakeya.picture import draw_table
from kabu_envs.kakeya.render import render_text
from kabu_envs.kakeya.view import VIEWER


@pytest.mark.parametrize(
    ("result", "full", "brief"),
    [
        (
            DealResult(1, 1, 3, 0, 51, {0: 12, 1: 4}, 0, {0: 4, 1: -4}),
            "deal 2: egara {0: 12, 1: 4}, partnership 0 wins, stones {0: 4, 1: -4}",
            "deal 2: partnership 0 wins",
        ),
        (
            DealResult(0, 2, 0, 3, 12, {0: 8, 1: 8}, -1, {0: 0, 1: 0}),
            "deal 1: egara {0: 8, 1: 8}, nobody wins, stones {0: 0, 1: 0}",
            "deal 1: nobody wins",
        ),
    ],
)
def test_a_deal_says_who_won_in_full_and_in_brief(result, full, brief):
    assert result.describe() == full and result.describe(brief=True) == brief


class _Raw:
    """What the viewer reads of a raw env: its game."""

    def __init__(self, game):
        self.game = game


def test_the_render_the_play_ui_and_the_picture_show_the_description(monkeypatch):
    g = new_game(deck_for(suit_hands(), deal_order(4, 1)), max_deals=2)
    g.apply_action(Action.TRUMP(0))
    g.apply_action(Action.LEAD_SELF)
    play_min_until_deal_ends(g)
    r = g.results[0]
    assert f"  {r.describe()}" in render_text(g).splitlines()
    assert VIEWER.seat_view(_Raw(g), 0)["result"][0] == r.describe(brief=True) == "deal 1: partnership 0 wins"
    drawn: list[str] = []
    text = Canvas.text

    def spy(self, xy, words, *args, **kwargs):
        drawn.append(words)
        return text(self, xy, words, *args, **kwargs)

    monkeypatch.setattr(Canvas, "text", spy)
    draw_table(g)  # between the deals: the table's headline is the last deal
    assert "deal 1: partnership 0 wins" in drawn
