"""Data behind ``config.py``: the presets and one validator per option.

Kept as plain data so the docs (``docs.py``) can print exactly what the code enforces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kabu_envs.core.errors import RuleConfigError
from kabu_envs.oicho_kabu.yaku import CORE_YAKU, LOCAL_YAKU, ROLES, YAKU_NAMES

# Presets are data: option -> value, applied before the caller's options (spec section 5).
PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "kabufuda_site": {
        "info_cards": True,
        "dealer_first_card": "after_bets",
        "dealer_card_choice": True,
        "dealer_second_card_face_up": False,
        "dealer_selection": "lowest",
        "arashi_holders": "bettors",
        "kuppin_order": "strict",
        "kuppin_four_one": True,
        "core_yaku": ("arashi", "kuppin"),
        "yaku_overrides": {"kuppin": {"rank": 62}},
    },
    "kansai": {
        "free_draw": True,
        "shiroku_escape": True,
        "minso": True,
        "redeal_on_triple_table": True,
        "core_yaku": ("arashi", "kuppin", "shippin"),
        "yaku_overrides": {"kuppin": {"multiplier": 2}, "shippin": {"multiplier": 2}},
        "arashi_vs_arashi": "dealer_wins",
        "bettor_three_tens": "push",
        "dealer_three_tens": "void",
        "bettor_ten_pair": "plain",
    },
}


# --- validators: each returns the normalised value or raises with what is allowed -------------------


def _choice(*allowed: str) -> Callable[[Any], str]:
    def check(v: Any) -> str:
        if v not in allowed:
            raise ValueError(f"allowed: {', '.join(map(repr, allowed))}")
        return v

    check.allowed = allowed  # type: ignore[attr-defined]
    return check


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise ValueError("allowed: True or False")
    return v


def _int(lo: int, hi: int | None = None) -> Callable[[Any], int]:
    def check(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or v < lo or (hi is not None and v > hi):
            raise ValueError(
                f"allowed: an integer {lo}..{hi}" if hi is not None else f"allowed: an integer >= {lo}"
            )
        return int(v)

    return check


def _seq(v: Any) -> tuple:
    if isinstance(v, (str, bytes)) or not isinstance(v, Iterable):
        raise ValueError("expected a list or tuple")
    return tuple(v)


def _bet_sizes(v: Any) -> tuple[int, ...]:
    t = _seq(v)
    if not t or any(isinstance(x, bool) or not isinstance(x, int) or x <= 0 for x in t):
        raise ValueError("allowed: a non-empty list of positive integers")
    if any(a >= b for a, b in zip(t, t[1:], strict=False)):
        raise ValueError("stake sizes must be strictly increasing")
    return tuple(int(x) for x in t)


def _names(
    universe: tuple[str, ...], what: str, allow_empty: bool = True
) -> Callable[[Any], tuple[str, ...]]:
    def check(v: Any) -> tuple[str, ...]:
        t = _seq(v)
        bad = [x for x in t if x not in universe]
        if bad:
            raise ValueError(f"unknown {what} {', '.join(map(repr, bad))}; allowed: {', '.join(universe)}")
        if len(set(t)) != len(t):
            raise ValueError(f"a {what} is listed twice; allowed: each name at most once")
        if not t and not allow_empty:
            raise ValueError(f"allowed: at least one {what}")
        # canonical order (the universe's), so equal rule sets compare and hash equal
        return tuple(x for x in universe if x in t)

    return check


def _zoro_values(v: Any) -> tuple[int, ...]:
    t = _seq(v)
    if not t or any(isinstance(x, bool) or not isinstance(x, int) or not 1 <= x <= 10 for x in t):
        raise ValueError("allowed: a non-empty list of card values 1..10")
    return tuple(sorted(set(int(x) for x in t)))


_OVERRIDE_KEYS = ("rank", "multiplier", "holders", "beats")


def _yaku_overrides(v: Any) -> tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]:
    """``{yaku: {rank|multiplier|holders|beats: value}}`` -> a canonical, hashable tuple form."""
    if isinstance(v, tuple) and all(isinstance(x, tuple) and len(x) == 2 for x in v):
        v = {n: dict(kv) for n, kv in v}
    if not isinstance(v, Mapping):
        raise ValueError("expected a mapping {yaku name: {'rank'|'multiplier'|'holders'|'beats': value}}")
    out = []
    for name in sorted(v):
        if name not in YAKU_NAMES:
            raise ValueError(f"unknown yaku {name!r}; allowed: {', '.join(YAKU_NAMES)}")
        ch = v[name]
        if not isinstance(ch, Mapping):
            raise ValueError(f"the override of {name!r} must be a mapping")
        norm: dict[str, Any] = {}
        for key, val in ch.items():
            if key not in _OVERRIDE_KEYS:
                raise ValueError(f"{name!r}: unknown field {key!r}; allowed: {', '.join(_OVERRIDE_KEYS)}")
            if key in ("rank", "multiplier"):
                norm[key] = _int(0)(val)
            elif key == "holders":
                h = ("dealer", "bettor") if val == "both" else (val,) if val in ROLES else val
                norm[key] = frozenset(_names(ROLES, "holder", allow_empty=False)(h))
            else:
                norm[key] = frozenset(_names(YAKU_NAMES, "yaku")(val))
        out.append((name, tuple(sorted(norm.items()))))
    return tuple(out)


VALIDATORS: dict[str, Callable[[Any], Any]] = {
    "rules": _choice(*PRESETS),
    "num_players": _int(2, 8),
    "deck": _choice("kabufuda", "hanafuda", "western"),
    "dealer_selection": _choice("fixed", "closest_to_nine", "lowest"),
    "domae": _int(1),
    "bet_sizes": _bet_sizes,
    "bankroll": _int(1),
    "redeal_on_triple_table": _bool,
    "info_cards": _bool,
    "minso": _bool,
    "minso_limit": _int(1),
    "dealer_first_card": _choice("before_bets", "after_bets"),
    "dealer_card_choice": _bool,
    "pair_may_draw": _bool,
    "free_draw": _bool,
    "shiroku_escape": _bool,
    "dealer_second_card_face_up": _bool,
    "dealer_draw_rule": _choice("same_as_bettors", "free"),
    "zero_zero": _choice("dealer_wins", "tie"),
    "tie_rule": _choice("push", "dealer_wins"),
    "arashi_holders": _choice("both", "bettors", "dealer"),
    "kuppin_order": _choice("any", "strict"),
    "shippin_order": _choice("any", "strict"),
    "toichi_order": _choice("any", "strict"),
    "kuppin_four_one": _bool,
    "zoro_values": _zoro_values,
    "core_yaku": _names(CORE_YAKU, "core yaku"),
    "local_yaku": _names(LOCAL_YAKU, "local yaku"),
    "wake_satsu_beats": _names(YAKU_NAMES, "yaku"),
    "yaku_overrides": _yaku_overrides,
    "arashi_vs_arashi": _choice(
        "higher_value", "dealer_wins", "rank_321", "second_card", "push", "bettor_wins", "higher_card"
    ),
    "bettor_three_tens": _choice("arashi", "push"),
    "dealer_three_tens": _choice("arashi", "void"),
    "bettor_ten_pair": _choice("zoro", "plain"),
    "max_rounds": _int(1),
    "dealer_change": _names(("deals", "bust", "doubled", "low_hand", "lost_all"), "dealer-change condition"),
    "dealer_max_deals": _int(1),
}


def check_option(name: str, value: Any) -> Any:
    """Validate one option; the error names the option, the value and what is allowed."""
    try:
        return VALIDATORS[name](value)
    except (TypeError, ValueError) as exc:
        raise RuleConfigError(f"option {name!r} = {value!r} is invalid: {exc}") from None
