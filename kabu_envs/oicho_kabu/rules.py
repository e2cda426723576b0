"""Oicho-Kabu hand rules (docs/oicho_kabu.md#cards, docs/oicho_kabu.md#a-round,
docs/oicho_kabu.md#settling): values, yaku, draw masks and settlement.

Pure functions of ``(cfg, cards)``; the game calls only these. They sit on the hot path, so the yaku
and draw lookups are memoised per config (the config is immutable, the memo lives on it). The memo
names a card by its *class* (its value, or its value + 10 for a hanafuda light), all the rules ever look
at, so it holds at most 13**2 + 13**3 hands per role and lookup however long the play.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral
from typing import Any

from kabu_envs.oicho_kabu.config import Config
from kabu_envs.oicho_kabu.deck import DECK_SIZE, LIGHT_CARDS, VALUES
from kabu_envs.oicho_kabu.yaku import ROLES, qualifying, voided_by_third

__all__ = [
    "card_value",
    "hand_value",
    "best_yaku",
    "preference",
    "yaku_multiplier",
    "draw_options",
    "settle",
    "voids_round",
]

# arashi_vs_arashi="rank_321": 3 > 2 > 1 > 10 > 9 > ... > 4 (the encyclopedia text, Kansai); lower index =
# stronger.
_RANK_321 = {v: i for i, v in enumerate((3, 2, 1, 10, 9, 8, 7, 6, 5, 4))}


# card id -> class for the memo keys: the value 1..10, or 11..13 for a hanafuda light (only
# ``sanpachi_hikari`` tells a light from its month's other cards)
_CLASS: dict[int, int] = {c: VALUES[c] + (10 if c in LIGHT_CARDS else 0) for c in range(DECK_SIZE)}


def _key(tag: str, role: str, cards: Sequence[int]) -> tuple[Any, ...]:
    """The memo key of a hand. A hand that is not 2 or 3 known card ids gets a key that is never
    stored, so the caller's checks reject it."""
    try:
        if len(cards) == 3:
            a, b, c = cards
            return (tag, role, _CLASS[a], _CLASS[b], _CLASS[c])
        a, b = cards
        return (tag, role, _CLASS[a], _CLASS[b])
    except (KeyError, TypeError, ValueError):
        return (tag, role, "unchecked", tuple(cards))


def card_value(card: int) -> int:
    """Value 1..10 of card id 0..39 (id = (value-1)*4 + copy)."""
    if not 0 <= card < DECK_SIZE:
        raise ValueError(f"card id {card} is out of range 0..{DECK_SIZE - 1}")
    return VALUES[card]


def hand_value(cards: Sequence[int]) -> int:
    """Sum of the card values mod 10 (9 best, 0 worst)."""
    return sum(VALUES[c] for c in cards) % 10


def _check(role: str, cards: tuple[int, ...]) -> None:
    """Validate on a memo miss only, so the hot path stays a dict lookup."""
    if role not in ROLES:
        raise ValueError(f"role must be 'dealer' or 'bettor', got {role!r}")
    for c in cards:
        if not (isinstance(c, Integral) and 0 <= c < DECK_SIZE):
            raise ValueError(f"card id {c!r} in hand {cards} is out of range 0..{DECK_SIZE - 1}")


def preference(cfg: Config, name: str, cards: Sequence[int]) -> tuple[bool, int, int]:
    """How much yaku ``name`` is worth to the holder of ``cards``
    (docs/oicho_kabu.md#several-yaku-on-one-hand): ``(ranked, pays, rank)``, compared in that order.
    ``ranked``: rank > 0 (a rank-0 yaku is a plain hand except for its ``beats``); ``pays``: what a win
    collects per stake (the multiplier; for ``multiplier == 0`` the middle card's value); ``rank``: how many
    hands it beats."""
    y = cfg.yaku[name]
    return (y.rank > 0, y.multiplier or VALUES[cards[1]], y.rank)


def best_yaku(cfg: Config, cards: Sequence[int], role: str) -> str | None:
    """The yaku this hand is scored as for ``role``: of the enabled yaku it qualifies for, the one that
    pays its holder most (highest ``preference``: a ranked yaku, then the highest multiplier, then the
    highest rank; still equal: the first in table order). ``None`` for a plain hand."""
    key = _key("y", role, cards)
    memo = cfg._memo
    hit = memo.get(key, memo)
    if hit is not memo:
        return hit
    _check(role, tuple(cards))
    if not 2 <= len(cards) <= 3:
        raise ValueError(f"a hand has 2 or 3 cards, got {len(cards)}: {tuple(cards)}")
    best, best_pref = None, None
    for name in qualifying(cfg, tuple(cards), role):  # table order: a later yaku must be strictly better
        pref = preference(cfg, name, cards)
        if best_pref is None or pref > best_pref:
            best, best_pref = name, pref
    memo[key] = best
    return best


def showdown_yaku(cfg: Config, cards: Sequence[int], role: str) -> tuple[str | None, ...]:
    """The yaku this hand may be scored as at the showdown: with ``yaku_choice="showdown"`` every one it
    qualifies for (``settle`` takes the best against the opposing hand), else ``best_yaku`` alone;
    ``(None,)`` for a plain hand."""
    if cfg.yaku_choice != "showdown":
        return (best_yaku(cfg, cards, role),)
    key = _key("q", role, cards)
    memo = cfg._memo
    hit = memo.get(key)
    if hit is None:
        best_yaku(cfg, cards, role)  # checks the hand
        hit = memo[key] = tuple(qualifying(cfg, tuple(cards), role)) or (None,)
    return hit


def yaku_multiplier(cfg: Config, name: str | None, cards: Sequence[int]) -> int:
    """Payment multiplier of a winning hand: 1 for a plain hand; ``multiplier == 0`` means the middle card."""
    if name is None:
        return 1
    m = cfg.yaku[name].multiplier
    return m if m else VALUES[cards[1]]


def draw_options(cfg: Config, cards: Sequence[int], role: str) -> tuple[bool, bool, bool]:
    """(stand_ok, draw_ok, escape_ok) of a two-card hand about to decide (docs/oicho_kabu.md#a-round,
    steps 9-10)."""
    key = _key("d", role, cards)
    hit = cfg._memo.get(key)
    if hit is not None:
        return hit
    _check(role, tuple(cards))
    if len(cards) != 2:
        raise ValueError(f"draw options exist only for a two-card hand, got {tuple(cards)}")
    a, b = VALUES[cards[0]], VALUES[cards[1]]
    escape = role == "bettor" and cfg.shiroku_escape and {a, b} == {4, 6}
    if role == "dealer" and cfg.dealer_draw_rule == "free":
        out = (True, True, False)
    else:
        v = (a + b) % 10
        stand, draw = v >= 4, v <= 6
        if a == b and cfg.pair_may_draw:
            draw = True
        if role == "bettor" and cfg.free_draw:
            # a permission to draw on 7..9; <= 3 must still draw
            # (docs/oicho_kabu.md#free-draw-is-the-bettors-permission)
            draw = True
        if not stand and any(voided_by_third(cfg, n) for n in qualifying(cfg, tuple(cards), role)):
            stand = True
        out = (stand, draw, escape)
    cfg._memo[key] = out
    return out


def voids_round(cfg: Config, dealer_cards: Sequence[int]) -> bool:
    """Kansai: a dealer's 10-10-10 voids the round (every stake is returned)."""
    return (
        cfg.dealer_three_tens == "void"
        and len(dealer_cards) == 3
        and all(VALUES[c] == 10 for c in dealer_cards)
    )


def _plain(cfg: Config, dv: int, bv: int) -> int:
    """+1 bettor wins, -1 dealer wins, 0 tie (before ``tie_rule``) for two plain values."""
    if dv == bv == 0 and cfg.zero_zero == "dealer_wins":
        return -1
    return (bv > dv) - (bv < dv)


def _same_yaku(cfg: Config, name: str, d: Sequence[int], b: Sequence[int]) -> int | None:
    """+1 / -1 / 0 (tie) for the same yaku on both sides; ``None`` = a push whatever ``tie_rule`` says."""
    if name == "arashi":
        rule = cfg.arashi_vs_arashi
        dv, bv = VALUES[d[0]], VALUES[b[0]]
        if rule == "dealer_wins":
            return -1
        if rule == "bettor_wins":
            return 1
        if rule == "push":
            return None
        if rule == "higher_value":  # hand value: 3-3-3 (9) best, 10-10-10 (0) worst
            return (3 * bv % 10 > 3 * dv % 10) - (3 * bv % 10 < 3 * dv % 10)
        if rule == "higher_card":  # face value: 10 best, 1 worst
            return (bv > dv) - (bv < dv)
        if rule == "rank_321":
            return (_RANK_321[bv] < _RANK_321[dv]) - (_RANK_321[bv] > _RANK_321[dv])
        # second_card: the two-card value of the pair (4=9 > 3=8 > ... > 5=10); equal -> dealer
        d2, b2 = 2 * dv % 10, 2 * bv % 10
        return 1 if b2 > d2 else -1
    if name in ("nobori", "kudari"):
        dv, bv = hand_value(d), hand_value(b)
        return (bv > dv) - (bv < dv)
    if name == "zoro":  # 9 best ... 1, 10 worst
        dv, bv = VALUES[d[0]] % 10, VALUES[b[0]] % 10
        return (bv > dv) - (bv < dv)
    return 0


def settle(cfg: Config, dealer_cards: Sequence[int], bettor_cards: Sequence[int]) -> int:
    """Signed multiplier for ONE stake on this spread, from the bettor's side
    (docs/oicho_kabu.md#settling)."""
    if voids_round(cfg, dealer_cards):
        return 0
    if (
        cfg.bettor_three_tens == "push"
        and len(bettor_cards) == 3
        and all(VALUES[c] == 10 for c in bettor_cards)
    ):
        return 0
    if cfg.yaku_choice != "showdown":
        return _settle_as(
            cfg,
            dealer_cards,
            bettor_cards,
            best_yaku(cfg, dealer_cards, "dealer"),
            best_yaku(cfg, bettor_cards, "bettor"),
        )
    # A hand qualifying for several yaku takes the one best for its holder against the actual opposing
    # hand (docs/oicho_kabu.md#several-yaku-on-one-hand): the bettor's best, against the dealer's best reply.
    dys = showdown_yaku(cfg, dealer_cards, "dealer")
    return max(
        min(_settle_as(cfg, dealer_cards, bettor_cards, dy, by) for dy in dys)
        for by in showdown_yaku(cfg, bettor_cards, "bettor")
    )


def _settle_as(
    cfg: Config, dealer_cards: Sequence[int], bettor_cards: Sequence[int], dy: str | None, by: str | None
) -> int:
    """``settle`` with the dealer's hand scored as ``dy`` and the bettor's as ``by`` (``None``: plain)."""
    table = cfg.yaku
    d_beats = dy is not None and by is not None and by in table[dy].beats
    b_beats = dy is not None and by is not None and dy in table[by].beats
    if d_beats != b_beats:
        outcome = 1 if b_beats else -1
    else:
        # a rank-0 yaku (zoro_tsubushi, wake_satsu) is a plain hand unless its `beats` applies
        dr = table[dy].rank if dy is not None and table[dy].rank > 0 else None
        br = table[by].rank if by is not None and table[by].rank > 0 else None
        if dr is None:
            dy = None
        if br is None:
            by = None
        if dr is None and br is None:
            outcome = _plain(cfg, hand_value(dealer_cards), hand_value(bettor_cards))
        elif dr is None or br is None:
            outcome = -1 if br is None else 1
        elif dr != br:
            outcome = 1 if br > dr else -1
        elif dy == by:
            assert dy is not None  # both ranked (dr == br is not None): both hold a yaku
            same = _same_yaku(cfg, dy, dealer_cards, bettor_cards)
            if same is None:
                return 0
            outcome = same
        else:  # different yaku of equal rank: compared as plain hands (docs: choices)
            outcome = _plain(cfg, hand_value(dealer_cards), hand_value(bettor_cards))
    if outcome == 0:
        if cfg.tie_rule == "push":
            return 0
        outcome = -1
    if outcome > 0:
        return yaku_multiplier(cfg, by, bettor_cards)
    return -yaku_multiplier(cfg, dy, dealer_cards)
