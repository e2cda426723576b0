"""A Kakeya table as a picture (``render_mode="rgb_array"``): ``draw_table(game, seat)``.

The seats sit round the table (seat 0 at the bottom, the next seats clockwise, partners opposite),
each with its hand, its stones and its tags (dealing partnership, sits out, to act); the current
trick lies in the middle, each card in front of the seat that played it. The column at the right
holds the trump and Rensho, each partnership's egara taken this deal (J, Q, K, A by suit), its
stones and deals won, and the last trick with the seat that took it.

``seat=None`` is the god view (every hand face up); with a seat, the other hands are card backs
(their sizes are public), so the picture shows no more than that seat's observation holds.
"""

from __future__ import annotations

import math

import numpy as np

from kabu_envs.core import picture as pic
from kabu_envs.core.picture import Canvas
from kabu_envs.kakeya.cards import (
    JACK,
    NUM_RANKS,
    RANK_NAMES,
    SUIT_NAMES,
    bits_to_cards,
    card_name,
    make_card,
    rank_of,
    suit_of,
)
from kabu_envs.kakeya.game import Game, Phase, partnership_of, partnership_seats
from kabu_envs.kakeya.scoring import egara_count
from kabu_envs.kakeya.tricks import Trick

PARTNERSHIP_COLOURS = ((231, 92, 76), (74, 144, 226), (240, 186, 58))
SIDE_W = 290  # the right-hand column
HAND_W, HAND_H, HAND_STEP = 40, 58, 18  # a card in a hand, and the fan's step
TRICK_W, TRICK_H = 52, 76
MINI_W, MINI_H = 30, 44
EGARA_W, EGARA_H = 20, 27
GHOST = (52, 100, 76)  # an egara not taken: its slot, faint on the dark felt


def frame_size(num_players: int) -> tuple[int, int]:
    """(width, height) of the frames of a table of ``num_players`` (fixed for an env)."""
    return (800 + SIDE_W, 640) if num_players == 4 else (960 + SIDE_W, 720)


# --- cards -----------------------------------------------------------------------------------
def draw_card(
    c: Canvas, card: int, x: float, y: float, w: float, h: float, rensho: bool = False, back: bool = False
) -> None:
    """A French-suited card with its top-left corner at (x, y): index at the top left, a big mark."""
    box = (x, y, x + w, y + h)
    if back:
        c.card_back(box)
        return
    c.card_blank(box, border=pic.GOLD if rensho else pic.INK)
    suit = SUIT_NAMES[suit_of(card)]
    rank = rank_of(card)
    ink = pic.suit_colour(suit)
    label = RANK_NAMES[rank]
    size = max(10.0, w * 0.3)
    c.text((x + 3.5 + size * 0.35, y + 3 + size * 0.5), label, size=size, fill=ink, anchor="mm", bold=True)
    c.suit(suit, (x + 3.5 + size * 0.35, y + 5 + size * 1.35), size * 0.8)
    cx, cy = x + w * 0.6, y + h * 0.6
    if rank >= JACK and rank < NUM_RANKS - 1:  # J, Q, K: a framed letter
        c.rect((cx - w * 0.26, cy - h * 0.26, cx + w * 0.26, cy + h * 0.26), outline=ink, width=1, radius=3)
        c.text((cx, cy), label, size=h * 0.3, fill=ink, anchor="mm", bold=True)
    else:
        c.suit(suit, (cx, cy), h * (0.42 if rank == NUM_RANKS - 1 else 0.3))
    if rensho:
        c.tag((x + w - 15, y + h - 9), "R", pic.GOLD, size=9)


def _hand_width(count: int) -> float:
    return HAND_W + max(0, count - 1) * HAND_STEP


# --- layout ----------------------------------------------------------------------------------
def _seat_points(n: int, table_w: float, height: float) -> list[tuple[float, float, float]]:
    """(x, y, angle) of each seat's hand centre on an ellipse: seat 0 at the bottom, then clockwise."""
    cx, cy = table_w / 2, 76 + (height - 76) / 2 + 4
    rx, ry = table_w / 2 - 160, (height - 76) / 2 - 62
    out = []
    for s in range(n):
        a = math.pi / 2 + 2 * math.pi * s / n
        out.append((cx + rx * math.cos(a), cy + ry * math.sin(a), a))
    return out


def _status_line(game: Game) -> str:
    who = f"player_{game.current_player}"
    if game.phase == Phase.TRUMP:
        return f"{who} (first dealer): choose the trump"
    if game.phase == Phase.LEAD:
        return f"{who}: lead, or let the partner lead"
    if game.phase == Phase.PLAY:
        led = game.led_suit
        return f"{who}: play a card" + (f"  (led: {SUIT_NAMES[led]})" if led >= 0 else "  (to lead)")
    return "match over"


def _header(c: Canvas, game: Game, seat: int | None, width: int) -> None:
    cfg = game.cfg
    c.rect((0, 0, width, 34), fill=pic.BAR)
    c.text((16, 17), "KAKEYA", size=17, fill=pic.GOLD, anchor="lm", bold=True)
    deal = min(game.deal_no + 1, cfg.max_deals)
    mode = "" if cfg.num_players == 4 else f" ({cfg.six_player_mode})"
    trick = f"  |  trick {game.tricks_played + 1}" if game.trick is not None else ""
    c.text(
        (104, 17),
        f"{cfg.num_players} players{mode}  |  deal {deal}/{cfg.max_deals}{trick}",
        size=13,
        fill=pic.LIGHT,
        anchor="lm",
    )
    view = "view: god (all hands)" if seat is None else f"view: player_{seat}"
    c.text((width - 16, 17), view, size=13, fill=pic.MUTED if seat is None else pic.GOLD, anchor="rm")
    x = c.tag((16, 52), game.phase.name, pic.GOLD, size=12) + 10
    c.text((x, 52), _status_line(game), size=14, fill=pic.LIGHT, anchor="lm")


def _seat(c: Canvas, game: Game, s: int, seat: int | None, point: tuple[float, float, float]) -> None:
    n = game.num_players
    x, y, _ = point
    p = partnership_of(s, n)
    cards = bits_to_cards(game.hands[s])
    width = max(_hand_width(game.dealt[s].bit_count()), 236)  # the panel keeps its deal-time size
    x0 = x - width / 2
    to_act = not game.terminal and game.current_player == s
    # the name plate above the hand
    py = y - HAND_H / 2 - 24
    c.rect((x0 - 6, py - 12, x0 + width + 6, y + HAND_H / 2 + 6), fill=pic.FELT_DARK, radius=8)
    if to_act:
        c.rect((x0 - 6, py - 12, x0 + width + 6, y + HAND_H / 2 + 6), outline=pic.GOLD, width=2.5, radius=8)
    c.rect((x0 - 6, py - 12, x0, y + HAND_H / 2 + 6), fill=PARTNERSHIP_COLOURS[p], radius=3)
    c.text((x0 + 4, py), f"player_{s}", size=13, fill=pic.LIGHT, anchor="lm", bold=True)
    tags = []
    if p == game.dealer_partnership:
        tags.append("deals")
    if not game.active[s]:
        tags.append("sits out")
    if s == seat:
        tags.append("you")
    if to_act:
        tags.append("to act")
    tx = x0 + 74
    for t in tags:
        tx = c.tag((tx, py), t, pic.GOLD if t in ("to act", "you") else pic.MUTED, size=10) + 4
    stones = str(game.stones[s])
    c.text((x0 + width, py), stones, size=12, fill=pic.LIGHT, anchor="rm", bold=True)
    c.circle((x0 + width - c.text_width(stones, 12) - 9, py), 5.5, pic.MUTED, outline=pic.INK)  # a stone
    hy = y - HAND_H / 2 + 6
    hidden = seat is not None and s != seat
    if not cards:
        c.text((x, hy + HAND_H / 2), "no cards", size=12, fill=pic.MUTED, anchor="mm")
    for i, card in enumerate(cards):
        draw_card(c, card, x0 + i * HAND_STEP, hy, HAND_W, HAND_H, card == game.rensho, back=hidden)


def _trick(
    c: Canvas, game: Game, points: list[tuple[float, float, float]], table_w: float, height: int
) -> None:
    cx, cy = table_w / 2, 76 + (height - 76) / 2 + 4
    trick = game.trick
    if trick is None or not trick.cards:
        if game.results and (game.tricks_played == 0 or game.terminal):  # between deals, at the end
            r = game.results[-1]
            c.text((cx, cy - 100), r.describe(brief=True), size=15, fill=pic.LIGHT, anchor="mm", bold=True)
            moved = ", ".join(f"partnership {p} {v:+d}" for p, v in r.stones_change.items())
            c.text((cx, cy - 78), f"stones: {moved}", size=12, fill=pic.MUTED, anchor="mm")
        return
    rx, ry = (66, 62) if game.num_players == 4 else (105, 84)  # cards of neighbours never overlap
    for s, card in zip(trick.seats, trick.cards, strict=True):
        _, _, a = points[s]
        x = cx + math.cos(a) * rx - TRICK_W / 2
        y = cy + math.sin(a) * ry - TRICK_H / 2
        draw_card(c, card, x, y, TRICK_W, TRICK_H, card == game.rensho)
        if s == trick.leader:
            c.tag((x + 4, y + TRICK_H + 8), "lead", pic.GOLD, size=10)


def _side(c: Canvas, game: Game, x0: float, width: int, height: int) -> None:
    c.rect((x0, 34, width, height), fill=pic.FELT_DARK)
    x = x0 + 16
    y = 84
    c.text((x, y), "trump", size=12, fill=pic.MUTED, anchor="lm", bold=True)
    trump = SUIT_NAMES[game.trump]
    c.rect((x, y + 12, x + 44, y + 56), fill=pic.PAPER, outline=pic.INK, width=1, radius=6)
    c.suit(trump, (x + 22, y + 34), 30)
    c.text((x + 52, y + 34), trump, size=15, fill=pic.LIGHT, anchor="lm", bold=True)
    c.text((x + 150, y), "Rensho", size=12, fill=pic.MUTED, anchor="lm", bold=True)
    draw_card(c, game.rensho, x + 150, y + 12, MINI_W, MINI_H, rensho=True)
    c.text((x + 188, y + 34), card_name(game.rensho), size=15, fill=pic.LIGHT, anchor="lm", bold=True)
    y += 78
    n = game.num_players
    for p in range(game.num_partnerships):
        colour = PARTNERSHIP_COLOURS[p]
        seats = partnership_seats(p, n)
        c.rect((x - 8, y - 10, x - 3, y + 136), fill=colour, radius=2)
        c.text((x, y), f"partnership {p}", size=13, fill=pic.LIGHT, anchor="lm", bold=True)
        c.text((x + 118, y), "seats " + " & ".join(map(str, seats)), size=11, fill=pic.MUTED, anchor="lm")
        egara = egara_count(game.captured[p])
        lines = (
            f"egara {egara}",
            f"stones {game.partnership_stones(p)}",
            f"deals won {game.deals_won[p]}",
        )
        for i, line in enumerate(lines):
            c.text((x + 124, y + 30 + i * 20), line, size=12, fill=pic.LIGHT, anchor="lm")
        if p not in game.playing_partnerships and not game.terminal:
            c.text((x + 124, y + 92), "sits out", size=11, fill=pic.MUTED, anchor="lm")
        # the 16 egara: a row per suit, J Q K A; the ones taken this deal drawn face up
        captured = game.captured[p]
        for si in range(4):
            for k in range(4):
                card = make_card(si, JACK + k)
                ex = x + k * (EGARA_W + 4)
                ey = y + 18 + si * (EGARA_H + 4)
                if captured >> card & 1:
                    _mini_egara(c, card, ex, ey)
                else:  # a faint slot naming the card, so the grid reads without a legend
                    _mini_egara(c, card, ex, ey, ghost=True)
        y += 154
    last = game.last_trick
    if last is not None:
        _last_trick(c, game, last, x, y)


def _mini_egara(c: Canvas, card: int, x: float, y: float, ghost: bool = False) -> None:
    suit = SUIT_NAMES[suit_of(card)]
    if ghost:
        c.rect((x, y, x + EGARA_W, y + EGARA_H), outline=pic.FELT_LIGHT, width=1, radius=3)
        ink = GHOST
    else:
        c.rect((x, y, x + EGARA_W, y + EGARA_H), fill=pic.PAPER, outline=pic.INK, width=1, radius=3)
        ink = pic.suit_colour(suit)
    c.text((x + EGARA_W / 2, y + 8), RANK_NAMES[rank_of(card)], size=10, fill=ink, anchor="mm", bold=True)
    c.suit(suit, (x + EGARA_W / 2, y + 19), 9, fill=ink)


def _last_trick(c: Canvas, game: Game, last: Trick, x: float, y: float) -> None:
    c.text(
        (x, y), f"last trick: player_{last.winner} took it", size=12, fill=pic.MUTED, anchor="lm", bold=True
    )
    for i, (s, card) in enumerate(zip(last.seats, last.cards, strict=True)):
        cx = x + i * (MINI_W + 13)
        draw_card(c, card, cx, y + 14, MINI_W, MINI_H, card == game.rensho)
        c.text(
            (cx + MINI_W / 2, y + MINI_H + 24),
            f"p{s}",
            size=10,
            fill=pic.GOLD if s == last.winner else pic.MUTED,
            anchor="mm",
        )


def draw_table(game: Game, seat: int | None = None) -> np.ndarray:
    """The table as an RGB frame (uint8, H x W x 3, see ``frame_size``) as ``seat`` sees it (None: all)."""
    width, height = frame_size(game.num_players)
    table_w = width - SIDE_W
    c = Canvas(width, height)
    _header(c, game, seat, width)
    points = _seat_points(game.num_players, table_w, height)
    for s in range(game.num_players):
        _seat(c, game, s, seat, points[s])
    _trick(c, game, points, table_w, height)
    _side(c, game, table_w, width, height)
    return c.frame()
