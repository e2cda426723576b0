"""The yaku, one record each (docs/oicho_kabu.md#settling): adding a yaku is one entry in ``YAKU``.

A ``Yaku`` holds everything about one special hand: the matcher deciding whether cards form it, the
condition text the docs print, who may hold it, its rank and multiplier, whether a third card voids it,
the yaku it beats, and whether it is core (on by default) or local (switched on by name). ``YAKU`` is in
table order, which breaks ties between equal ranks (the first wins); every rank is written out, never
derived from positions. ``Config.yaku`` holds these records with the options and overrides applied.

A hand is a tuple of card ids in dealt order; matchers get the card values too. Only values matter,
except for ``sanpachi_hikari`` (the hanafuda March and August lights).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from kabu_envs.oicho_kabu.deck import VALUES, card_id

ROLES = ("dealer", "bettor")
BOTH = frozenset(ROLES)
DEALER = frozenset({"dealer"})
BETTOR = frozenset({"bettor"})

LIGHTS_3_8 = frozenset({card_id(3), card_id(8)})  # the March and August lights (hanafuda)

# (cfg, card values, card ids, role) -> True when the hand forms the yaku
Matcher = Callable[[Any, tuple[int, ...], tuple[int, ...], str], bool]


@dataclass(frozen=True)
class Yaku:
    """One special hand.

    ``multiplier == 0`` means "x": the value of the hand's middle card (``pin_basami``).
    ``two_card_only``: ``True`` when a third card voids the yaku; the name of an order option
    (``"kuppin_order"``) when that depends on it: voided when the option is ``"any"``, kept with
    ``"strict"`` (the yaku is then judged on the first two cards).
    ``deck``: the deck the yaku needs (``""``: any); enabling it with another deck is an error.
    """

    name: str
    matcher: Matcher = field(repr=False)
    condition: str
    holders: frozenset[str]
    rank: int
    multiplier: int
    two_card_only: bool | str = False
    beats: frozenset[str] = frozenset()
    core: bool = False
    deck: str = ""

    def replace(self, **changes: Any) -> Yaku:
        return replace(self, **changes)


# --- matchers ------------------------------------------------------------------------------------------
# ``qualifying`` drops the two-card-only yaku from three-card hands, so their matchers read the first
# two cards only.


def _pair(a: int, b: int, x: int, y: int, strict: bool) -> bool:
    return (a == x and b == y) or (not strict and a == y and b == x)


def _kuppin(cfg: Any, v: tuple[int, ...], cards: tuple[int, ...], role: str) -> bool:
    strict = cfg.kuppin_order == "strict"
    if _pair(v[0], v[1], 9, 1, strict):
        return True
    return cfg.kuppin_four_one and _pair(v[0], v[1], 4, 1, strict)


def _shippin(cfg: Any, v: tuple[int, ...], cards: tuple[int, ...], role: str) -> bool:
    return _pair(v[0], v[1], 4, 1, cfg.shippin_order == "strict")


def _two(x: int, y: int) -> Matcher:
    """The first two cards are x and y, in either order."""

    def match(cfg: Any, v: tuple[int, ...], cards: tuple[int, ...], role: str) -> bool:
        return _pair(v[0], v[1], x, y, False)

    return match


def _toichi(cfg: Any, v: tuple[int, ...], cards: tuple[int, ...], role: str) -> bool:
    return _pair(v[0], v[1], 10, 1, cfg.toichi_order == "strict")


def _three_set(*need: int) -> Matcher:
    """Three cards of these values, in any order."""
    want = tuple(sorted(need))

    def match(cfg: Any, v: tuple[int, ...], cards: tuple[int, ...], role: str) -> bool:
        return len(v) == 3 and tuple(sorted(v)) == want

    return match


def _arashi(cfg: Any, v: tuple[int, ...], cards: tuple[int, ...], role: str) -> bool:
    return len(v) == 3 and v[0] == v[1] == v[2]


def _arashi_kabu(cfg: Any, v: tuple[int, ...], cards: tuple[int, ...], role: str) -> bool:
    return len(v) == 3 and v[0] == v[1] == v[2] == 3


def _zoro(cfg: Any, v: tuple[int, ...], cards: tuple[int, ...], role: str) -> bool:
    if v[0] != v[1] or v[0] not in cfg.zoro_values:
        return False
    return not (v[0] == 10 and role == "bettor" and cfg.bettor_ten_pair == "plain")


def _nobori(cfg: Any, v: tuple[int, ...], cards: tuple[int, ...], role: str) -> bool:
    return len(v) == 3 and v[1] == v[0] + 1 and v[2] == v[1] + 1


def _kudari(cfg: Any, v: tuple[int, ...], cards: tuple[int, ...], role: str) -> bool:
    return len(v) == 3 and v[1] == v[0] - 1 and v[2] == v[1] - 1


def _pin_basami(cfg: Any, v: tuple[int, ...], cards: tuple[int, ...], role: str) -> bool:
    return len(v) == 3 and v[0] == 1 and v[2] == 1


def _sanpachi(cfg: Any, v: tuple[int, ...], cards: tuple[int, ...], role: str) -> bool:
    return cfg.deck == "hanafuda" and {cards[0], cards[1]} == LIGHTS_3_8


# --- the records, in table order -----------------------------------------------------------------------

_EVERY_OTHER = frozenset({"*"})  # placeholder in a record: beats every other yaku (expanded below)

_DECLARED = (
    Yaku(
        "sanpachi_hikari",
        _sanpachi,
        "first two cards: the March and August lights (hanafuda)",
        BOTH,
        rank=70,
        multiplier=1,
        beats=_EVERY_OTHER,
        deck="hanafuda",
    ),
    Yaku("pin_basami", _pin_basami, "1, x, 1 in dealt order; pays x", BETTOR, rank=65, multiplier=0),
    Yaku("arashi_kabu", _arashi_kabu, "3-3-3 (great arashi)", BOTH, rank=60, multiplier=5, core=True),
    Yaku("arashi", _arashi, "three cards of one value", BOTH, rank=50, multiplier=3, core=True),
    Yaku(
        "kuppin",
        _kuppin,
        "first two cards 9 and 1 (`kuppin_order`; 4 and 1 too with `kuppin_four_one`)",
        DEALER,
        rank=40,
        multiplier=1,
        two_card_only="kuppin_order",
        core=True,
    ),
    Yaku(
        "shippin",
        _shippin,
        "first two cards 4 and 1 (`shippin_order`)",
        BETTOR,
        rank=30,
        multiplier=1,
        two_card_only="shippin_order",
        core=True,
    ),
    Yaku("doshippin", _three_set(1, 10, 10), "1, 10, 10 any order", BOTH, rank=20, multiplier=1),
    Yaku("niichi", _two(2, 1), "2 and 1, no third card", BOTH, rank=20, multiplier=1, two_card_only=True),
    Yaku("shidou", _two(4, 10), "4 and 10, no third card", BOTH, rank=20, multiplier=1, two_card_only=True),
    Yaku("shiro", _two(4, 6), "4 and 6, no third card", BOTH, rank=20, multiplier=1, two_card_only=True),
    Yaku(
        "toichi",
        _toichi,
        "1 and 10, no third card (`toichi_order`)",
        BOTH,
        rank=20,
        multiplier=1,
        two_card_only=True,
    ),
    Yaku("fujin", _three_set(3, 7, 10), "3, 7, 10 any order", BOTH, rank=20, multiplier=1),
    Yaku("raijin", _three_set(4, 7, 9), "4, 7, 9 any order", BOTH, rank=20, multiplier=1),
    Yaku("ichi_ni_san", _three_set(1, 2, 3), "1, 2, 3 any order", BOTH, rank=20, multiplier=1),
    Yaku("shichi_go_san", _three_set(7, 5, 3), "7, 5, 3 any order", BOTH, rank=20, multiplier=1),
    Yaku(
        "nobori", _nobori, "three cards rising by one in dealt order (no wrap)", BOTH, rank=20, multiplier=1
    ),
    Yaku(
        "kudari", _kudari, "three cards falling by one in dealt order (no wrap)", BOTH, rank=20, multiplier=1
    ),
    Yaku(
        "zoro",
        _zoro,
        "a pair, no third card (`zoro_values`)",
        BOTH,
        rank=10,
        multiplier=1,
        two_card_only=True,
    ),
    Yaku(
        "zoro_tsubushi",
        _two(7, 3),
        "7 and 3, no third card",
        BOTH,
        rank=0,
        multiplier=1,
        two_card_only=True,
        beats=frozenset({"zoro"}),
    ),
    Yaku(
        "wake_satsu",
        _two(4, 9),
        "4 and 9, no third card",
        BOTH,
        rank=0,
        multiplier=1,
        two_card_only=True,
        beats=frozenset({"kuppin", "shippin"}),  # the default of the option `wake_satsu_beats`
    ),
)

YAKU_NAMES: tuple[str, ...] = tuple(y.name for y in _DECLARED)
YAKU: tuple[Yaku, ...] = tuple(
    y.replace(beats=frozenset(YAKU_NAMES) - {y.name}) if y.beats == _EVERY_OTHER else y for y in _DECLARED
)
YAKU_BY_NAME: dict[str, Yaku] = {y.name: y for y in YAKU}
CORE_YAKU: tuple[str, ...] = tuple(y.name for y in YAKU if y.core)
LOCAL_YAKU: tuple[str, ...] = tuple(y.name for y in YAKU if not y.core)


def _voided(cfg: Any, y: Yaku) -> bool:
    rule = y.two_card_only
    return rule if isinstance(rule, bool) else getattr(cfg, rule) == "any"


def voided_by_third(cfg: Any, name: str) -> bool:
    """True when a third card voids yaku ``name`` under ``cfg``."""
    return _voided(cfg, YAKU_BY_NAME[name])


def qualifying(cfg: Any, cards: tuple[int, ...], role: str) -> list[str]:
    """Every enabled yaku this hand holds for ``role``, in table order."""
    v = tuple(VALUES[c] for c in cards)
    third = len(v) == 3
    return [
        name
        for name, y in cfg.yaku.items()
        if role in y.holders and not (third and _voided(cfg, y)) and y.matcher(cfg, v, cards, role)
    ]
