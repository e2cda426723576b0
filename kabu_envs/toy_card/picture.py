"""A Toy Card table as a picture (``render_mode="rgb_array"``), the template of a game's frames.

One card per seat and what each seat did; ``seat=None`` shows every card, a seat sees only its own
card (the others as backs), as its observation does. The drawing kit is ``kabu_envs.core.picture``.
"""

from __future__ import annotations

import numpy as np

from kabu_envs.core import picture as pic
from kabu_envs.core.picture import Canvas
from kabu_envs.toy_card.game import Action, Game

WIDTH, HEIGHT = 640, 320
CARD_W, CARD_H = 56, 80


def draw_table(game: Game, seat: int | None = None) -> np.ndarray:
    """The table as an RGB frame (uint8, ``HEIGHT`` x ``WIDTH`` x 3), as ``seat`` sees it (None: all)."""
    c = Canvas(WIDTH, HEIGHT)
    c.rect((0, 0, WIDTH, 34), fill=pic.BAR)
    c.text((16, 17), "TOY CARD", size=17, fill=pic.GOLD, anchor="lm", bold=True)
    status = "over" if game.terminal else f"player_{game.current_player} to act"
    c.text((130, 17), status, size=13, fill=pic.LIGHT, anchor="lm")
    view = "view: god" if seat is None else f"view: player_{seat}"
    c.text((WIDTH - 16, 17), view, size=13, fill=pic.MUTED if seat is None else pic.GOLD, anchor="rm")
    n = game.num_players
    slot = (WIDTH - 32) / n
    for s in range(n):
        x0 = 16 + s * slot
        to_act = not game.terminal and game.current_player == s
        c.rect(
            (x0 + 4, 60, x0 + slot - 4, HEIGHT - 20),
            fill=pic.FELT_DARK,
            outline=pic.GOLD if to_act else None,
            width=2.5,
            radius=8,
        )
        c.rect((x0 + 4, 60, x0 + 10, HEIGHT - 20), fill=pic.seat_colour(s), radius=3)
        cx = x0 + slot / 2
        c.text((cx, 80), f"player_{s}", size=13, fill=pic.LIGHT, anchor="mm", bold=True)
        box = (cx - CARD_W / 2, 100, cx + CARD_W / 2, 100 + CARD_H)
        if seat is None or seat == s:
            c.card_blank(box)
            c.text((cx, 100 + CARD_H / 2), str(game.values[s]), size=30, fill=pic.INK, anchor="mm", bold=True)
        else:
            c.card_back(box)
        acted = s < game.current_player or game.terminal
        if acted:
            name = Action(game.stakes[s]).name
            c.tag((cx - (c.text_width(name, 12) + 10.8) / 2, 210), name, pic.GOLD, size=12)
    return c.frame()
