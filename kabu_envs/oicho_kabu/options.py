"""Every Oicho-Kabu rule option, declared once as an ``Option`` record, and the presets.

``OPTIONS`` (an ``OptionSet``) is the single declaration: each record holds the option's default, its
checker, its source and its meaning. ``Config``'s field defaults come from it, ``Config`` validates every
value through ``OPTIONS.check`` (an error names the option, the value and what is allowed), and the
options table of docs/oicho_kabu.md#options is ``OPTIONS.markdown_table()``.

Sources (docs/sources.md): ``encyclopedia`` = the encyclopedia text (yaku, local yaku, Kansai/Osaka rules);
``kabufuda site`` = the kabufuda site (info cards, the dealer's top/bottom/4th card, the dealer's 4-1 and
9-1); ``project`` = a rule this project sets (docs/oicho_kabu.md is the normative text).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kabu_envs.core.options import MAX_INT, Option, OptionSet, boolean, choice, integer, names, sequence
from kabu_envs.oicho_kabu.yaku import CORE_YAKU, LOCAL_YAKU, ROLES, YAKU_BY_NAME, YAKU_NAMES

# Presets are data: option -> value, applied before the caller's options (docs/oicho_kabu.md#presets).
PRESETS: dict[str, dict[str, Any]] = {
    # the encyclopedia's dealer selection (closest to 9), its four dealer-change conditions
    # and its unbacked spread, turned up and dealt one face-up card; the dealer's shippin (the arashi
    # sentence names it, and the Kansai section lists "shippin for players only" as a change)
    "standard": {
        "dealer_selection": "closest_to_nine",
        "dealer_change": ("deals", "bust", "doubled", "low_hand"),
        "unbacked_spread_card": True,
        "yaku_overrides": {"shippin": {"holders": "both"}},
    },
    "kabufuda_site": {
        "info_cards": True,
        "dealer_first_card": "after_bets",
        "dealer_card_choice": True,
        "dealer_second_card_face_up": False,
        "dealer_selection": "lowest",
        "dealer_selection_each_deal": True,
        "arashi_holders": "bettors",
        "kuppin_order": "strict",
        "kuppin_four_one": True,
        "core_yaku": ("arashi", "kuppin"),
        "yaku_overrides": {"kuppin": {"rank": 62}},
        # no third card on 7 or more for anyone; 0-0 goes by the tie rule; decisions in
        # asking order; one bettor can reach the whole domae (25 + 25)
        "pair_may_draw": False,
        "zero_zero": "tie",
        "decision_order": "asking",
        "bet_sizes": (1, 5, 10, 25),
        # the site deals every spread its second card and a third only to a player who asks for one
        "unbacked_spread_card": False,
    },
    "kansai": {
        # the main game's rules the Kansai "main changes" leave alone, as in `standard`: its
        # dealer selection and dealer changes, the unbacked spread's card
        "dealer_selection": "closest_to_nine",
        "dealer_change": ("deals", "bust", "doubled", "low_hand"),
        "unbacked_spread_card": True,
        "free_draw": True,
        "dealer_draw_rule": "free",
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

DEALER_CHANGES = ("deals", "bust", "doubled", "low_hand", "lost_all")

# v1's values where v2 changed a preset. ``v1_options`` puts them under the caller's
# options, so ``kabu_envs.oicho_kabu_v1`` stays an exact alias of v1 for one release.
V1_PRESETS: dict[str, dict[str, Any]] = {
    "standard": {
        "dealer_selection": "fixed",
        "dealer_change": ("deals", "bust"),
        "yaku_choice": "isolation",
        "unbacked_spread_card": False,
        "yaku_overrides": {"shippin": {"holders": "bettor"}},
    },
    "kansai": {
        "dealer_selection": "fixed",
        "dealer_change": ("deals", "bust"),
        "yaku_choice": "isolation",
        "unbacked_spread_card": False,
    },
    "kabufuda_site": {
        "yaku_choice": "isolation",
        "pair_may_draw": True,
        "zero_zero": "dealer_wins",
        "decision_order": "spread",
        "bet_sizes": (1, 2, 5, 10),
    },
}


def v1_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` as v1 read them: v1's preset values first, the caller's options on top. Per-yaku
    overrides merge yaku by yaku and field by field (the caller's win), as ``make_config`` merges a
    preset's: a caller's override of another yaku must not drop v1's bettor-only shippin."""
    preset = options.get("rules", "standard")
    if not isinstance(preset, str) or preset not in V1_PRESETS:
        return dict(options)  # make_config names the bad preset
    out = {**V1_PRESETS[preset], **options}
    mine, theirs = V1_PRESETS[preset].get("yaku_overrides"), options.get("yaku_overrides")
    if mine is not None and theirs is not None:
        try:
            extra = yaku_overrides(theirs)
        except ValueError:
            return out  # make_config names the bad value
        merged = {n: dict(kv) for n, kv in yaku_overrides(mine)}
        for n, kv in extra:
            merged.setdefault(n, {}).update(dict(kv))
        out["yaku_overrides"] = merged
    return out


# --- game-specific checkers, built on the shared ones ----------------------------------------------------

_stake = integer(1)
_card_value = integer(1, 10)
_rank = integer(0)


def bet_sizes(v: Any) -> tuple[int, ...]:
    """strictly increasing positive integers"""
    try:
        t = tuple(_stake(x) for x in sequence(v))
    except ValueError:
        t = ()
    if not t:
        raise ValueError(f"allowed: a non-empty list of positive integers up to {MAX_INT}")
    if any(a >= b for a, b in zip(t, t[1:], strict=False)):
        raise ValueError("stake sizes must be strictly increasing")
    return t


def zoro_values(v: Any) -> tuple[int, ...]:
    """card values 1..10"""
    try:
        t = {_card_value(x) for x in sequence(v)}
    except ValueError:
        t = set()
    if not t:
        raise ValueError("allowed: a non-empty list of card values 1..10")
    return tuple(sorted(t))


_holders = names(ROLES, "holder", allow_empty=False)
_beats = names(YAKU_NAMES, "yaku")
_OVERRIDE_KEYS = ("rank", "multiplier", "holders", "beats")


def _name_list(v: Any) -> Any:
    """A set of names as a sorted list (``names`` takes lists; the normalised overrides hold frozensets)."""
    return sorted(v) if isinstance(v, (set, frozenset)) else v


def yaku_overrides(v: Any) -> tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]:
    """{yaku: {rank, multiplier, holders, beats}}"""
    if isinstance(v, tuple) and all(isinstance(x, tuple) and len(x) == 2 for x in v):
        v = {n: dict(kv) for n, kv in v}  # the canonical form below, as stored in a Config
    if not isinstance(v, Mapping):
        raise ValueError("expected a mapping {yaku name: {'rank'|'multiplier'|'holders'|'beats': value}}")
    out = []
    for name in sorted(v, key=str):
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
                norm[key] = _rank(val)
            elif key == "holders":
                if isinstance(val, str):
                    val = ROLES if val == "both" else (val,)
                norm[key] = frozenset(_holders(_name_list(val)))
            else:
                norm[key] = frozenset(_beats(_name_list(val)))
        out.append((name, tuple(sorted(norm.items()))))
    return tuple(out)


# --- the options, in the order of the docs table ---------------------------------------------------------

_O = Option
OPTIONS = OptionSet(
    "Oicho-Kabu",
    (
        _O(
            "rules",
            "standard",
            choice(*PRESETS),
            "project",
            "preset applied first; every other option can be set on top",
        ),
        _O("num_players", 4, integer(2, 8), "project", "seats; one deals, the others bet"),
        _O(
            "deck",
            "kabufuda",
            choice("kabufuda", "hanafuda", "western"),
            "encyclopedia",
            "card set; only `hanafuda` changes play (the lights, for `sanpachi_hikari`)",
        ),
        _O(
            "dealer_selection",
            "fixed",
            choice("fixed", "closest_to_nine", "lowest"),
            "encyclopedia / kabufuda site",
            "`fixed`: player_0 deals first; `closest_to_nine` (encyclopedia); `lowest` (kabufuda site)",
        ),
        _O(
            "dealer_selection_each_deal",
            False,
            boolean,
            "kabufuda site",
            "selection draws before every deal, not once: the best card deals, the others bet and decide "
            "in the order of their cards; `dealer_change` is not used",
        ),
        _O(
            "domae",
            50,
            integer(1),
            "encyclopedia, kabufuda site",
            "cap on the total of all bettors' stakes in a round",
        ),
        _O(
            "bet_sizes",
            (1, 2, 5, 10),
            bet_sizes,
            "project",
            "the stake amounts of BET(1..): a discretisation of a free stake",
        ),
        _O("bankroll", 100, integer(1), "project", "chips per seat at the start of an episode"),
        _O(
            "redeal_on_triple_table",
            False,
            boolean,
            "encyclopedia (Kansai)",
            "3+ equal table cards: deal the table again",
        ),
        _O(
            "info_cards",
            False,
            boolean,
            "kabufuda site",
            "each bettor gets a dead face-down card only it sees",
        ),
        _O(
            "minso",
            False,
            boolean,
            "encyclopedia (Kansai)",
            "the dealer may REDEAL the table before the bets",
        ),
        _O("minso_limit", 1, integer(1), "project", "redeals allowed per round with `minso`"),
        _O(
            "dealer_first_card",
            "before_bets",
            choice("before_bets", "after_bets"),
            "encyclopedia / kabufuda site",
            "dealer's first card dealt before (encyclopedia) or after (kabufuda site) the bets",
        ),
        _O(
            "dealer_card_choice",
            False,
            boolean,
            "kabufuda site",
            "dealer takes each of its first two cards top/bottom/4th",
        ),
        _O(
            "pair_may_draw",
            True,
            boolean,
            "encyclopedia",
            "a pair of value 8 (4-4, 9-9) may still draw, for arashi",
        ),
        _O(
            "free_draw",
            False,
            boolean,
            "encyclopedia (Kansai)",
            "a bettor may also DRAW on 7, 8, 9 (a permission: <= 3 must still draw; not the dealer)",
        ),
        _O(
            "shiroku_escape",
            False,
            boolean,
            "encyclopedia (Kansai)",
            "a bettor's 4-6 spread may ESCAPE (push)",
        ),
        _O(
            "decision_order",
            "spread",
            choice("spread", "asking"),
            "kabufuda site",
            "backed spreads decide in spread order 0..3, or in asking order: decider by decider in "
            "betting order, each one's spreads in spread order",
        ),
        _O(
            "unbacked_spread_card",
            False,
            boolean,
            "encyclopedia",
            "after the draws, each unbacked spread (spread order) is turned up and dealt one face-up "
            "card, seen by everyone; never settled ([A round](#a-round), step 9)",
        ),
        _O(
            "dealer_second_card_face_up",
            True,
            boolean,
            "encyclopedia / kabufuda site",
            "[A round](#a-round), step 10: everyone sees the dealer's cards",
        ),
        _O(
            "dealer_draw_rule",
            "same_as_bettors",
            choice("same_as_bettors", "free"),
            "project",
            "`same_as_bettors`: the standard draw masks (not `free_draw`) apply to the dealer; `free`: any",
        ),
        _O(
            "zero_zero",
            "dealer_wins",
            choice("dealer_wins", "tie"),
            "encyclopedia",
            "two plain 0s: the dealer wins or it is a tie",
        ),
        _O(
            "tie_rule",
            "push",
            choice("push", "dealer_wins"),
            "encyclopedia, kabufuda site",
            "a tie is a push or a dealer win",
        ),
        _O(
            "arashi_holders",
            "both",
            choice("both", "bettors", "dealer"),
            "encyclopedia, kabufuda site",
            "who may hold `arashi` and `arashi_kabu`",
        ),
        _O(
            "kuppin_order",
            "any",
            choice("any", "strict"),
            "encyclopedia",
            "`any`: 9-1 or 1-9, void with a third card; `strict`: 9 first, kept",
        ),
        _O(
            "shippin_order",
            "any",
            choice("any", "strict"),
            "encyclopedia",
            "`any`: 4-1 or 1-4, void with a third card; `strict`: 4 first, kept",
        ),
        _O(
            "toichi_order",
            "any",
            choice("any", "strict"),
            "encyclopedia",
            "`any`: 1-10 or 10-1; `strict`: 10 first (void with a third card)",
        ),
        _O("kuppin_four_one", False, boolean, "kabufuda site", "the dealer's 4-1 also counts as `kuppin`"),
        _O(
            "zoro_values",
            tuple(range(1, 11)),
            zoro_values,
            "encyclopedia",
            "which pairs count as `zoro` (e.g. `(2, 5)`: tsuru, gogo)",
        ),
        _O(
            "core_yaku",
            CORE_YAKU,
            names(CORE_YAKU, "core yaku"),
            "project",
            "core yaku in play (presets switch some off)",
            allowed="subset of the core yaku",
        ),
        _O(
            "local_yaku",
            (),
            names(LOCAL_YAKU, "local yaku"),
            "encyclopedia",
            "local yaku switched on by name",
            allowed="subset of the local yaku",
        ),
        _O(
            "wake_satsu_beats",
            tuple(n for n in YAKU_NAMES if n in YAKU_BY_NAME["wake_satsu"].beats),
            _beats,
            "encyclopedia",
            "the yaku `wake_satsu` beats",
            allowed="yaku names",
        ),
        _O(
            "yaku_overrides",
            (),
            yaku_overrides,
            "project",
            "per-yaku changes; rank/multiplier >= 0 (multiplier 0 = the middle card's value)",
        ),
        _O(
            "yaku_choice",
            "showdown",
            choice("showdown", "isolation"),
            "encyclopedia",
            "a hand holding several yaku: the best for its holder against the opposing hand at the "
            "showdown, or the one paying most in isolation (v1)",
        ),
        _O(
            "arashi_vs_arashi",
            "higher_value",
            choice(
                "higher_value", "dealer_wins", "rank_321", "second_card", "push", "bettor_wins", "higher_card"
            ),
            "encyclopedia",
            "two arashi: see [Settling](#settling); `higher_value` = total mod 10",
        ),
        _O(
            "bettor_three_tens",
            "arashi",
            choice("arashi", "push"),
            "encyclopedia (Kansai)",
            "a bettor's 10-10-10: an arashi, or always a push",
        ),
        _O(
            "dealer_three_tens",
            "arashi",
            choice("arashi", "void"),
            "encyclopedia (Kansai)",
            "a dealer's 10-10-10: an arashi, or voids the round",
        ),
        _O(
            "bettor_ten_pair",
            "zoro",
            choice("zoro", "plain"),
            "encyclopedia (Kansai)",
            "a bettor's 10-10: a zoro (if on) or always a plain 0",
        ),
        _O("max_rounds", 1, integer(1), "project", "rounds per episode; chips carry over"),
        _O(
            "dealer_change",
            ("deals", "bust"),
            names(DEALER_CHANGES, "dealer-change condition"),
            "encyclopedia",
            "when the deal passes to the next seat",
            allowed="subset of " + ", ".join(f"`{c}`" for c in DEALER_CHANGES),
        ),
        _O("dealer_max_deals", 5, integer(1), "encyclopedia", "deals before `deals` passes the deal on"),
    ),
)
