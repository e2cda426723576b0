"""Which yaku a hand qualifies for (spec section 4), before the holder/rank selection in ``rules.py``.

A hand is a tuple of card ids in dealt order; only values matter except for ``sanpachi_hikari``
(the hanafuda March and August lights, ids 8 and 28).
"""

from __future__ import annotations

from collections.abc import Callable

from kabu_envs.oicho_kabu.deck import VALUES, card_id

LIGHTS_3_8 = frozenset({card_id(3), card_id(8)})  # the March and August lights (hanafuda)

# Yaku that only exist on an untouched two-card hand: a third card voids them (spec section 4 table).
# kuppin / shippin are voided only with their "any" order; "strict" reads "first two cards" only.
ALWAYS_TWO_CARD = frozenset({"niichi", "shidou", "shiro", "toichi", "zoro", "zoro_tsubushi", "wake_satsu"})


def voided_by_third(cfg, name: str) -> bool:
    """True when a third card voids yaku ``name`` under ``cfg``."""
    if name in ALWAYS_TWO_CARD:
        return True
    if name == "kuppin":
        return cfg.kuppin_order == "any"
    if name == "shippin":
        return cfg.shippin_order == "any"
    return False


def _pair(a: int, b: int, x: int, y: int, strict: bool) -> bool:
    return (a == x and b == y) or (not strict and a == y and b == x)


def _kuppin(cfg, v: tuple[int, ...], cards: tuple[int, ...], role: str) -> bool:
    strict = cfg.kuppin_order == "strict"
    if len(v) == 3 and not strict:
        return False
    if _pair(v[0], v[1], 9, 1, strict):
        return True
    return cfg.kuppin_four_one and _pair(v[0], v[1], 4, 1, strict)


def _shippin(cfg, v, cards, role) -> bool:
    strict = cfg.shippin_order == "strict"
    if len(v) == 3 and not strict:
        return False
    return _pair(v[0], v[1], 4, 1, strict)


def _two(x: int, y: int) -> Callable:
    def match(cfg, v, cards, role) -> bool:
        return len(v) == 2 and _pair(v[0], v[1], x, y, False)

    return match


def _toichi(cfg, v, cards, role) -> bool:
    return len(v) == 2 and _pair(v[0], v[1], 10, 1, cfg.toichi_order == "strict")


def _three_set(*need: int) -> Callable:
    want = tuple(sorted(need))

    def match(cfg, v, cards, role) -> bool:
        return len(v) == 3 and tuple(sorted(v)) == want

    return match


def _arashi(cfg, v, cards, role) -> bool:
    return len(v) == 3 and v[0] == v[1] == v[2]


def _arashi_kabu(cfg, v, cards, role) -> bool:
    return len(v) == 3 and v[0] == v[1] == v[2] == 3


def _zoro(cfg, v, cards, role) -> bool:
    if len(v) != 2 or v[0] != v[1] or v[0] not in cfg.zoro_values:
        return False
    return not (v[0] == 10 and role == "bettor" and cfg.bettor_ten_pair == "plain")


def _nobori(cfg, v, cards, role) -> bool:
    return len(v) == 3 and v[1] == v[0] + 1 and v[2] == v[1] + 1


def _kudari(cfg, v, cards, role) -> bool:
    return len(v) == 3 and v[1] == v[0] - 1 and v[2] == v[1] - 1


def _pin_basami(cfg, v, cards, role) -> bool:
    return len(v) == 3 and v[0] == 1 and v[2] == 1


def _sanpachi(cfg, v, cards, role) -> bool:
    return cfg.deck == "hanafuda" and {cards[0], cards[1]} == LIGHTS_3_8


MATCHERS: dict[str, Callable] = {
    "sanpachi_hikari": _sanpachi,
    "pin_basami": _pin_basami,
    "arashi_kabu": _arashi_kabu,
    "arashi": _arashi,
    "kuppin": _kuppin,
    "shippin": _shippin,
    "doshippin": _three_set(1, 10, 10),
    "niichi": _two(2, 1),
    "shidou": _two(4, 10),
    "shiro": _two(4, 6),
    "toichi": _toichi,
    "fujin": _three_set(3, 7, 10),
    "raijin": _three_set(4, 7, 9),
    "ichi_ni_san": _three_set(1, 2, 3),
    "shichi_go_san": _three_set(7, 5, 3),
    "nobori": _nobori,
    "kudari": _kudari,
    "zoro": _zoro,
    "zoro_tsubushi": _two(7, 3),
    "wake_satsu": _two(4, 9),
}


def qualifying(cfg, cards: tuple[int, ...], role: str) -> list[str]:
    """Every enabled yaku this hand holds for ``role`` (unordered by rank)."""
    v = tuple(VALUES[c] for c in cards)
    return [
        name
        for name, spec in cfg.yaku.items()
        if role in spec.holders and MATCHERS[name](cfg, v, cards, role)
    ]
