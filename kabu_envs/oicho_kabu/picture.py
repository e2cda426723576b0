"""An Oicho-Kabu table as a picture (``render_mode="rgb_array"``): ``draw_table(game, seat)``.

The dealer's hand at the top, the four spreads with their stakes (one chip colour per seat), the
seats with their chips at the bottom, and a status line saying whose turn it is and in which phase.

``seat=None`` is the god view: every card is drawn face up, and a card that lies face down on the
table has a blue frame. With a seat, a card is drawn face up only if that seat may see it (the rules
of ``observation.py``, applied by ``render.visibility``: a spread's second card only to its backers,
the dealer's first cards as docs/oicho_kabu.md#a-round says, an info card only to its owner), otherwise as a
card back; the picture then shows no more than the seat's observation holds. Card faces follow ``deck``:
kabufuda (a numeral and value marks), hanafuda (the month, its plant and colour, the lights with a sun) or
western (A..10 and a suit).
"""

from __future__ import annotations

import numpy as np

from kabu_envs.core import picture as pic
from kabu_envs.core.picture import Canvas
from kabu_envs.oicho_kabu import rules
from kabu_envs.oicho_kabu.deck import LIGHT_CARDS, VALUES, face_label
from kabu_envs.oicho_kabu.events import describe_log
from kabu_envs.oicho_kabu.game import ESCAPED, NUM_SPREADS, STOOD, Game, Phase
from kabu_envs.oicho_kabu.render import BACK, FACE, MARKED, visibility

WIDTH = 900
SEATS_TOP, SEAT_H, SEAT_GAP = 464, 84, 8  # the seat panels: one row up to 4 players, else two


def seat_rows(num_players: int) -> int:
    return 1 if num_players <= 4 else 2


def frame_size(num_players: int) -> tuple[int, int]:
    """(width, height) of the frames of a table of ``num_players`` (fixed for an env)."""
    rows = seat_rows(num_players)
    return WIDTH, SEATS_TOP + rows * SEAT_H + (rows - 1) * SEAT_GAP + 12


CARD_W, CARD_H = 60, 88
MINI_W, MINI_H = 30, 44

# hanafuda month -> (plant, colour of its band)
MONTHS = (
    ("pine", (46, 110, 60)),
    ("plum", (196, 48, 80)),
    ("cherry", (232, 120, 160)),
    ("wisteria", (122, 86, 176)),
    ("iris", (62, 92, 180)),
    ("peony", (200, 40, 50)),
    ("clover", (176, 70, 110)),
    ("pampas", (150, 120, 60)),
    ("mum", (214, 160, 30)),
    ("maple", (206, 80, 30)),
)
KABU_FRAME = (92, 34, 26)  # the kabufuda's dark red-brown frame
_STATUS = {STOOD: ("stand", pic.MUTED), 2: ("drew", pic.GOLD), ESCAPED: ("escaped", (150, 160, 255))}


# --- cards ------------------------------------------------------------------------------------
def draw_card(c: Canvas, deck: str, card: int, x: float, y: float, how: int, mini: bool = False) -> None:
    """Card ``card`` with its top-left corner at (x, y), drawn as ``how`` says."""
    w, h = (MINI_W, MINI_H) if mini else (CARD_W, CARD_H)
    box = (x, y, x + w, y + h)
    if how == BACK:
        c.card_back(box, colour=pic.INK if deck == "hanafuda" else pic.BACK)
        return
    marked = how == MARKED
    value = VALUES[card]
    label = face_label(deck, card)
    if deck == "hanafuda":
        plant, colour = MONTHS[value - 1]
        c.card_blank(box, marked=marked)
        band = h * 0.2
        c.rect((x + 3, y + 3, x + w - 3, y + band), fill=colour, radius=3)
        if card in LIGHT_CARDS:
            c.circle((x + w / 2, y + h * 0.58), w * 0.3, (214, 46, 46), outline=pic.GOLD, width=2)
        c.text(
            (x + w / 2, y + h * 0.56),
            label,
            size=h * (0.32 if mini else 0.3),
            fill=pic.INK,
            anchor="mm",
            bold=True,
        )
        if not mini:
            c.text((x + w / 2, y + h * 0.9), plant, size=11, fill=colour, anchor="mm")
        if card in LIGHT_CARDS and not mini:
            c.text((x + w / 2, y + band / 2 + 2), "LIGHT", size=9, fill=pic.LIGHT, anchor="mm")
        return
    if deck == "western":
        suit = pic.SUITS[card % 4]
        ink = pic.suit_colour(suit)
        c.card_blank(box, marked=marked)
        if mini:
            c.text((x + w / 2, y + h * 0.34), label, size=h * 0.3, fill=ink, anchor="mm", bold=True)
            c.suit(suit, (x + w / 2, y + h * 0.72), h * 0.28)
            return
        c.text((x + 6, y + 5), label, size=15, fill=ink, bold=True)
        c.suit(suit, (x + w / 2, y + h * 0.56), h * 0.34)
        c.text((x + w - 6, y + h - 5), label, size=15, fill=ink, anchor="rs", bold=True)
        return
    # kabufuda: a numeral inside a dark red frame, and one mark per point of value
    c.card_blank(box, marked=marked)
    inset = 3.5 if mini else 5
    c.rect((x + inset, y + inset, x + w - inset, y + h - inset), outline=KABU_FRAME, width=1.5, radius=3)
    if mini:
        c.text((x + w / 2, y + h / 2), label, size=h * 0.36, fill=pic.INK, anchor="mm", bold=True)
        return
    c.text((x + w / 2, y + h * 0.4), label, size=30, fill=pic.INK, anchor="mm", bold=True)
    per_row = 5
    for i in range(value):
        row, col = divmod(i, per_row)
        n_row = min(per_row, value - row * per_row)
        px = x + w / 2 + (col - (n_row - 1) / 2) * 8.5
        py = y + h * 0.7 + row * 9
        c.polygon([(px, py - 3.2), (px + 3.2, py), (px, py + 3.2), (px - 3.2, py)], pic.RED)


def _hand_text(game: Game, cards: list[int], role: str) -> str:
    if len(cards) < 2:
        return ""
    yaku = rules.best_yaku(game.cfg, tuple(cards), role)
    return f"= {rules.hand_value(cards)}" + (f"  {yaku}" if yaku else "")


# --- the table ---------------------------------------------------------------------------------
def _status_line(game: Game) -> str:
    phase, who = game.phase, f"player_{game.current_player}"
    if phase == Phase.MINSO:
        return f"{who} (dealer): keep or redeal the table (minso)"
    if phase == Phase.BET:
        return f"{who}: stake on spread {game.active_spread}"
    if phase == Phase.DEALER_CHOICE:
        return f"{who} (dealer): take card {game.choice_slot + 1} from the top, bottom or 4th"
    if phase == Phase.DECIDE:
        return f"{who}: stand, draw or escape on spread {game.active_spread}"
    if phase == Phase.DEALER_DRAW:
        return f"{who} (dealer): stand or draw"
    return "episode over"


def _header(c: Canvas, game: Game, seat: int | None) -> None:
    cfg = game.cfg
    c.rect((0, 0, WIDTH, 34), fill=pic.BAR)
    c.text((16, 17), "OICHO-KABU", size=17, fill=pic.GOLD, anchor="lm", bold=True)
    rnd = min(game.round_index + 1, cfg.max_rounds)
    c.text(
        (140, 17),
        f"{cfg.rules} rules  |  {cfg.num_players} players  |  {cfg.deck} deck  |  "
        f"round {rnd}/{cfg.max_rounds}",
        size=13,
        fill=pic.LIGHT,
        anchor="lm",
    )
    view = "view: god (all cards)" if seat is None else f"view: player_{seat}"
    c.text((WIDTH - 16, 17), view, size=13, fill=pic.MUTED if seat is None else pic.GOLD, anchor="rm")
    phase = game.phase.name
    x = c.tag((16, 52), phase, pic.GOLD, size=12) + 10
    c.text((x, 52), _status_line(game), size=14, fill=pic.LIGHT, anchor="lm")
    left = cfg.domae - game.round_total
    c.text(
        (WIDTH - 16, 52),
        f"domae {cfg.domae}  |  staked {game.round_total}  |  room {left}",
        size=13,
        fill=pic.MUTED,
        anchor="rm",
    )


def _dealer(c: Canvas, game: Game, how: list[int]) -> None:
    x0, y0, x1, y1 = 250, 72, 650, 206
    to_act = not game.terminal and game.current_player == game.dealer
    c.rect((x0, y0, x1, y1), fill=pic.FELT_DARK, outline=pic.GOLD if to_act else None, width=2, radius=10)
    colour = pic.seat_colour(game.dealer)
    c.tag((x0 + 12, y0 + 16), f"DEALER  player_{game.dealer}", colour, size=12)
    cards = game.dealer_cards
    for k in range(3):
        x = x0 + 14 + k * (CARD_W + 8)
        y = y0 + 34
        if k < len(cards):
            draw_card(c, game.cfg.deck, cards[k], x, y, how[k])
        else:
            c.rect((x, y, x + CARD_W, y + CARD_H), outline=pic.FELT_LIGHT, width=1, radius=6)
    tx = x0 + 14 + 3 * (CARD_W + 8) + 6
    if cards and all(h != BACK for h in how):
        c.text(
            (tx, y0 + 66), _hand_text(game, cards, "dealer"), size=18, fill=pic.LIGHT, anchor="lm", bold=True
        )
    elif cards:
        c.text((tx, y0 + 66), "face down", size=13, fill=pic.MUTED, anchor="lm")
    if game.voided and game.showdown:
        c.text((tx, y0 + 96), "round void: stakes back", size=12, fill=pic.GOLD, anchor="lm")


def _spreads(c: Canvas, game: Game, how: list[list[int]]) -> None:
    col_w, gap, x_start, y0, y1 = 207, 10, 18, 218, 452
    shown = game.showdown
    for s in range(NUM_SPREADS):
        x0 = x_start + s * (col_w + gap)
        x1 = x0 + col_w
        active = s == game.active_spread and not game.terminal
        c.rect(
            (x0, y0, x1, y1), fill=pic.FELT_LIGHT, outline=pic.GOLD if active else None, width=2.5, radius=10
        )
        c.text((x0 + 12, y0 + 16), f"spread {s}", size=14, fill=pic.LIGHT, anchor="lm", bold=True)
        state = game.spread_state[s]
        if state in _STATUS or game.turned_up(s):  # an unbacked spread dealt its card: "turned up"
            text, colour = _STATUS.get(state, ("turned up", pic.MUTED))
            c.tag((x1 - 12 - c.text_width(text, 11) - 10, y0 + 16), text, colour, size=11)
        cards = game.spreads[s]
        for k in range(3):
            x = x0 + 8 + k * (CARD_W + 5.5)
            y = y0 + 32
            if k < len(cards):
                draw_card(c, game.cfg.deck, cards[k], x, y, how[s][k])
            else:
                c.rect((x, y, x + CARD_W, y + CARD_H), outline=pic.FELT, width=1, radius=6)
        if cards and all(h != BACK for h in how[s]):
            c.text(
                (x0 + 12, y0 + 138), _hand_text(game, cards, "bettor"), size=15, fill=pic.LIGHT, anchor="lm"
            )
        # stakes: one chip per backer, in its seat colour, the decider's underlined
        stakes = game.stakes[s]
        backers = [(seat_, st) for seat_, st in enumerate(stakes) if st]
        if backers:
            for i, (seat_, st) in enumerate(backers):
                cx = x0 + 22 + (i % 6) * 31
                cy = y0 + 170 + (i // 6) * 30
                c.chip((cx, cy), 13, pic.seat_colour(seat_), str(st))
                if game.decider[s] == seat_:
                    c.line([(cx - 9, cy + 16), (cx + 9, cy + 16)], pic.GOLD, 2)
        else:
            c.text((x0 + 12, y0 + 170), "no stakes", size=12, fill=pic.MUTED, anchor="lm")
        total = game.spread_total[s]
        if total:
            c.text((x1 - 12, y0 + 138), f"total {total}", size=12, fill=pic.MUTED, anchor="rm")
        m = game.results[s]
        if shown and m is not None:
            if state == ESCAPED or m == 0:
                res, colour = ("escaped: push" if state == ESCAPED else "push"), pic.MUTED
            elif m > 0:
                res, colour = f"bettors win x{m}", (120, 230, 140)
            else:
                res, colour = f"dealer wins x{-m}", (255, 130, 120)
            c.text((x0 + 12, y1 - 16), res, size=14, fill=colour, anchor="lm", bold=True)


def _seats(c: Canvas, game: Game, seat: int | None, info_how: list[int]) -> None:
    n = game.num_players
    margin, gap = 18, SEAT_GAP
    per_row = -(-n // seat_rows(n))
    w = (WIDTH - 2 * margin - (per_row - 1) * gap) / per_row
    deck = game.cfg.deck
    for s in range(n):
        row, col = divmod(s, per_row)
        x0 = margin + col * (w + gap)
        x1 = x0 + w
        y0 = SEATS_TOP + row * (SEAT_H + gap)
        y1 = y0 + SEAT_H
        to_act = not game.terminal and game.current_player == s
        c.rect(
            (x0, y0, x1, y1), fill=pic.FELT_DARK, outline=pic.GOLD if to_act else None, width=2.5, radius=8
        )
        c.rect((x0, y0, x0 + 6, y1), fill=pic.seat_colour(s), radius=3)
        c.text((x0 + 14, y0 + 14), f"player_{s}", size=13, fill=pic.LIGHT, anchor="lm", bold=True)
        role = "dealer" if s == game.dealer else "bettor"
        tags = [role] + (["you"] if s == seat else []) + (["to act"] if to_act else [])
        c.text(
            (x0 + 14, y0 + 32), "  ".join(tags), size=11, fill=pic.GOLD if to_act else pic.MUTED, anchor="lm"
        )
        c.chip((x0 + 22, y0 + 60), 8, pic.seat_colour(s))
        c.text((x0 + 35, y0 + 60), str(game.chips[s]), size=15, fill=pic.LIGHT, anchor="lm", bold=True)
        if game.showdown and game.round_rewards[s]:
            r = game.round_rewards[s]
            c.text(
                (x0 + 44 + c.text_width(str(game.chips[s]), 15), y0 + 60),
                f"({r:+d})",
                size=14,
                fill=(120, 230, 140) if r > 0 else (255, 130, 120),
                anchor="lm",
                bold=True,
            )
        # the selection card (public) and the info card (its owner's), small, at the right
        mx = x1 - MINI_W - 8
        for card, how, label in (
            (game.selection_cards[s], FACE, "sel"),
            (game.info_cards[s], info_how[s], "info"),
        ):
            if card >= 0 and mx > x0 + 60:
                draw_card(c, deck, card, mx, y0 + 26, how, mini=True)
                c.text((mx + MINI_W / 2, y0 + 17), label, size=9, fill=pic.MUTED, anchor="mm")
                mx -= MINI_W + 6


def _side_notes(c: Canvas, game: Game, seat: int | None) -> None:
    """Left of the dealer: how to read the picture; right: the latest public events of the deal."""
    x, y = 18, 84
    c.text((x, y), "how to read", size=12, fill=pic.MUTED, anchor="lm", bold=True)
    if seat is None:
        c.rect((x, y + 14, x + 14, y + 34), fill=pic.PAPER, outline=pic.HIDDEN_MARK, width=2.5, radius=3)
        c.text((x + 22, y + 24), "face down on the table", size=11, fill=pic.LIGHT, anchor="lm")
    else:
        c.card_back((x, y + 14, x + 14, y + 34))
        c.text((x + 22, y + 24), f"not seen by player_{seat}", size=11, fill=pic.LIGHT, anchor="lm")
    c.chip((x + 7, y + 50), 7, pic.seat_colour(0))
    c.text((x + 22, y + 50), "stake, in its seat's colour", size=11, fill=pic.LIGHT, anchor="lm")
    c.line([(x, y + 70), (x + 14, y + 70)], pic.GOLD, 2)
    c.text((x + 22, y + 70), "decides the spread", size=11, fill=pic.LIGHT, anchor="lm")
    c.rect((x, y + 82, x + 14, y + 98), outline=pic.GOLD, width=2, radius=3)
    c.text((x + 22, y + 90), "to act", size=11, fill=pic.LIGHT, anchor="lm")
    events = log_lines(game)[-6:]
    x = 662
    c.text((x, y), "latest", size=12, fill=pic.MUTED, anchor="lm", bold=True)
    for i, line in enumerate(events):
        c.text((x, y + 18 + i * 18), line, size=11, fill=pic.LIGHT, anchor="lm")


def log_lines(game: Game) -> list[str]:
    """Short lines for the public events of the deal (``Game.log``), for the picture's side notes."""
    return describe_log(game.log, game.cfg, brief=True)


def draw_table(game: Game, seat: int | None = None) -> np.ndarray:
    """The table as an RGB frame (uint8, H x W x 3, see ``frame_size``) as ``seat`` sees it (None: all)."""
    c = Canvas(*frame_size(game.num_players))
    spread_how, dealer_how, info_how = visibility(game, seat)
    _header(c, game, seat)
    _side_notes(c, game, seat)
    _dealer(c, game, dealer_how)
    _spreads(c, game, spread_how)
    _seats(c, game, seat, info_how)
    return c.frame()
