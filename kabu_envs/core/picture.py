"""A small drawing kit for the games' ``render_mode="rgb_array"`` frames (pillow).

Why a kit: every game draws the same things — a felt table, rounded cards and card backs, suit
marks, stake chips, labels — so each game's picture module only lays out its own table. Nothing is
downloaded: text uses pillow's built-in font (``ImageFont.load_default(size=...)``, Latin glyphs
only), suit marks are drawn shapes. A ``Canvas`` draws at ``SCALE`` times the frame size and shrinks
the result once (cheap anti-aliasing for rounded corners, circles and text).

Only the picture modules import this one, and only when a frame is asked for: the engines and the
envs never import pillow (``render_mode=None`` costs nothing).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

RGB = tuple[int, int, int]
Box = tuple[float, float, float, float]  # left, top, right, bottom (frame pixels)

SCALE = 2  # drawn at twice the size, then shrunk: smooth edges without an anti-aliasing library

FELT: RGB = (27, 94, 64)
FELT_DARK: RGB = (18, 66, 45)
FELT_LIGHT: RGB = (40, 118, 82)
BAR: RGB = (16, 28, 22)
LIGHT: RGB = (238, 241, 232)
MUTED: RGB = (170, 196, 180)
GOLD: RGB = (246, 196, 66)
PAPER: RGB = (250, 245, 230)
INK: RGB = (34, 30, 28)
RED: RGB = (196, 34, 40)
BACK: RGB = (120, 26, 34)
BACK_LINE: RGB = (168, 58, 62)
HIDDEN_MARK: RGB = (70, 120, 220)  # outline of a face-down card shown in a god view
# one colour per seat (stake chips, name tags), up to 8 seats
SEAT_COLOURS: tuple[RGB, ...] = (
    (231, 92, 76),
    (74, 144, 226),
    (240, 186, 58),
    (160, 110, 222),
    (64, 190, 154),
    (238, 132, 192),
    (166, 204, 76),
    (248, 148, 62),
)
SUITS = ("clubs", "diamonds", "hearts", "spades")


@lru_cache(maxsize=64)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's built-in font at ``size`` pixels (pillow >= 10.1 scales it; no font file is read)."""
    return ImageFont.load_default(size=size)


def seat_colour(seat: int) -> RGB:
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def suit_colour(suit: str) -> RGB:
    return RED if suit in ("diamonds", "hearts") else INK


class Canvas:
    """A ``width`` x ``height`` frame; every method takes frame coordinates (pixels of the result)."""

    def __init__(self, width: int, height: int, background: RGB = FELT) -> None:
        self.width, self.height = width, height
        self.image = Image.new("RGB", (width * SCALE, height * SCALE), background)
        self.draw = ImageDraw.Draw(self.image)

    # --- primitives --------------------------------------------------------------------
    @staticmethod
    def _box(box: Box) -> tuple[float, float, float, float]:
        return (box[0] * SCALE, box[1] * SCALE, box[2] * SCALE, box[3] * SCALE)

    def rect(
        self,
        box: Box,
        fill: RGB | None = None,
        outline: RGB | None = None,
        width: float = 1,
        radius: float = 0,
    ) -> None:
        """A (rounded) rectangle; ``width`` is the outline's width in frame pixels."""
        self.draw.rounded_rectangle(
            self._box(box),
            radius=radius * SCALE,
            fill=fill,
            outline=outline,
            width=max(1, round(width * SCALE)) if outline is not None else 0,
        )

    def circle(
        self,
        centre: tuple[float, float],
        r: float,
        fill: RGB | None,
        outline: RGB | None = None,
        width: float = 1.0,
    ) -> None:
        x, y = centre
        self.draw.ellipse(
            self._box((x - r, y - r, x + r, y + r)),
            fill=fill,
            outline=outline,
            width=max(1, round(width * SCALE)) if outline is not None else 0,
        )

    def line(self, points: Sequence[tuple[float, float]], fill: RGB, width: float = 1) -> None:
        self.draw.line([(x * SCALE, y * SCALE) for x, y in points], fill=fill, width=round(width * SCALE))

    def polygon(self, points: Sequence[tuple[float, float]], fill: RGB) -> None:
        self.draw.polygon([(x * SCALE, y * SCALE) for x, y in points], fill=fill)

    def text(
        self,
        xy: tuple[float, float],
        text: str,
        size: float = 14,
        fill: RGB = LIGHT,
        anchor: str = "la",
        bold: bool = False,
    ) -> None:
        """``text`` at ``xy``; ``anchor`` as in pillow (``"mm"`` centres it). ``bold`` thickens strokes."""
        px = round(size * SCALE)
        self.draw.text(
            (xy[0] * SCALE, xy[1] * SCALE),
            text,
            font=font(px),
            fill=fill,
            anchor=anchor,
            stroke_width=max(1, px // 22) if bold else 0,
            stroke_fill=fill,
        )

    def text_width(self, text: str, size: float = 14) -> float:
        """Width in frame pixels of ``text`` at ``size``."""
        return self.draw.textlength(text, font=font(round(size * SCALE))) / SCALE

    # --- table pieces ------------------------------------------------------------------
    def suit(self, suit: str, centre: tuple[float, float], size: float, fill: RGB | None = None) -> None:
        """A drawn suit mark (clubs, diamonds, hearts, spades) about ``size`` pixels tall."""
        fill = suit_colour(suit) if fill is None else fill
        x, y = centre
        h = size / 2
        if suit == "diamonds":
            self.polygon([(x, y - h), (x + h * 0.72, y), (x, y + h), (x - h * 0.72, y)], fill)
            return
        r = h * 0.5
        if suit == "hearts":
            self.circle((x - r * 0.92, y - h * 0.38), r, fill)
            self.circle((x + r * 0.92, y - h * 0.38), r, fill)
            self.polygon([(x - h * 0.94, y - h * 0.22), (x + h * 0.94, y - h * 0.22), (x, y + h)], fill)
            return
        stem = [(x, y + h * 0.1), (x - h * 0.42, y + h), (x + h * 0.42, y + h)]
        if suit == "spades":
            self.circle((x - r * 0.9, y + h * 0.2), r * 0.95, fill)
            self.circle((x + r * 0.9, y + h * 0.2), r * 0.95, fill)
            self.polygon([(x - h * 0.93, y + h * 0.08), (x + h * 0.93, y + h * 0.08), (x, y - h)], fill)
        else:  # clubs
            rc = h * 0.42
            self.circle((x, y - h * 0.5), rc, fill)
            self.circle((x - h * 0.5, y + h * 0.1), rc, fill)
            self.circle((x + h * 0.5, y + h * 0.1), rc, fill)
            self.circle((x, y), rc * 0.6, fill)
        self.polygon(stem, fill)

    def card_blank(self, box: Box, face: RGB = PAPER, border: RGB = INK, marked: bool = False) -> None:
        """An empty card face; ``marked`` draws the god view's blue frame of a face-down card."""
        w = box[2] - box[0]
        radius = max(3.0, w * 0.11)
        self.rect((box[0] + 1, box[1] + 2, box[2] + 1, box[3] + 2), fill=FELT_DARK, radius=radius)  # shadow
        self.rect(
            box, fill=face, outline=HIDDEN_MARK if marked else border, width=3 if marked else 1, radius=radius
        )

    def card_back(self, box: Box, colour: RGB = BACK, line: RGB = BACK_LINE) -> None:
        """A face-down card: a grid of small diamonds inside a framed panel."""
        x0, y0, x1, y1 = box
        w = x1 - x0
        radius = max(3.0, w * 0.11)
        self.rect((x0 + 1, y0 + 2, x1 + 1, y1 + 2), fill=FELT_DARK, radius=radius)
        self.rect(box, fill=colour, outline=INK, width=1, radius=radius)
        inset = max(3.0, w * 0.1)
        ix0, iy0, ix1, iy1 = x0 + inset, y0 + inset, x1 - inset, y1 - inset
        self.rect((ix0, iy0, ix1, iy1), outline=line, width=1, radius=radius * 0.5)
        cols = max(2, round((ix1 - ix0) / 7))
        rows = max(2, round((iy1 - iy0) / 7))
        dx, dy = (ix1 - ix0) / cols, (iy1 - iy0) / rows
        d = min(dx, dy) * 0.28
        for i in range(cols):
            for j in range(rows):
                cx, cy = ix0 + dx * (i + 0.5), iy0 + dy * (j + 0.5)
                self.polygon([(cx, cy - d), (cx + d, cy), (cx, cy + d), (cx - d, cy)], line)

    def chip(self, centre: tuple[float, float], r: float, fill: RGB, label: str = "") -> None:
        """A stake chip: a coloured disc with a dashed rim and its amount."""
        self.circle(centre, r, fill, outline=INK, width=1)
        self.circle(centre, r * 0.72, None, outline=LIGHT, width=max(1.0, r * 0.12))
        if label:
            self.text(
                centre, label, size=r * 0.95, fill=INK if sum(fill) > 480 else LIGHT, anchor="mm", bold=True
            )

    def tag(self, xy: tuple[float, float], text: str, fill: RGB, ink: RGB = INK, size: float = 12) -> float:
        """A small rounded label starting at ``xy`` (left, vertical centre); returns its right edge."""
        w = self.text_width(text, size) + size * 0.9
        x, y = xy
        self.rect((x, y - size * 0.75, x + w, y + size * 0.75), fill=fill, radius=size * 0.5)
        self.text((x + w / 2, y), text, size=size, fill=ink, anchor="mm")
        return x + w

    # --- result ------------------------------------------------------------------------
    def frame(self) -> np.ndarray:
        """The picture as a uint8 array of shape (height, width, 3)."""
        return np.array(self.image.reduce(SCALE), dtype=np.uint8)  # a box filter: fast, enough at 2x
