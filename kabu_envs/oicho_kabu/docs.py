"""Generated parts of docs/oicho_kabu.md: options, presets, yaku, observation and action tables.

The tables are printed from the same data the code enforces, so the documentation cannot drift:
``python -m kabu_envs.oicho_kabu.docs`` prints them, ``--update`` rewrites the marked blocks of
docs/oicho_kabu.md in place (``<!-- BEGIN generated:NAME -->`` ... ``<!-- END generated:NAME -->``).
"""

from __future__ import annotations

import itertools
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from kabu_envs.core.doc_blocks import replace_blocks
from kabu_envs.oicho_kabu.actions import BET_BASE, Action
from kabu_envs.oicho_kabu.config import Config, make_config
from kabu_envs.oicho_kabu.deck import COPIES, VALUES, card_id
from kabu_envs.oicho_kabu.observation import obs_spec
from kabu_envs.oicho_kabu.options import OPTIONS, PRESETS
from kabu_envs.oicho_kabu.rules import best_yaku, preference
from kabu_envs.oicho_kabu.yaku import LOCAL_YAKU, ROLES, YAKU, YAKU_NAMES, Yaku, qualifying, voided_by_third

DOC_PATH = Path(__file__).resolve().parents[2] / "docs" / "oicho_kabu.md"

ACTION_MEANINGS: dict[str, str] = {
    "STAND": "decider / dealer: take no third card",
    "DRAW": "decider / dealer: take a face-up third card",
    "ESCAPE": "decider of a 4-6 spread (`shiroku_escape`): every stake on it is returned",
    "KEEP": "dealer, `minso`: keep the table",
    "REDEAL": "dealer, `minso`: return the table cards, reshuffle, deal the table again",
    "TAKE_TOP": "dealer, `dealer_card_choice`: take the top card",
    "TAKE_BOTTOM": "dealer, `dealer_card_choice`: take the bottom card",
    "TAKE_FOURTH": "dealer, `dealer_card_choice`: take the 4th card from the top",
}


def _fmt(names: frozenset[str]) -> str:
    return ", ".join(sorted(names)) or "–"


def options_table() -> str:
    """Every option with its default, allowed values, source and meaning (from ``options.OPTIONS``)."""
    return OPTIONS.markdown_table()


def presets_table() -> str:
    """What each preset sets (on top of the defaults)."""
    rows = ["| preset | options it sets |", "|---|---|"]
    for name, opts in PRESETS.items():
        text = "; ".join(f"`{k}={v!r}`" for k, v in opts.items()) or "(the defaults)"
        rows.append(f"| `{name}` | {text} |")
    return "\n".join(rows)


def _multiplier(y: Yaku) -> str:
    return "x (middle card)" if y.multiplier == 0 else str(y.multiplier)


def _beats(y: Yaku) -> str:
    return "every other yaku" if y.beats >= set(YAKU_NAMES) - {y.name} else _fmt(y.beats)


def yaku_table(cfg: Config) -> str:
    """The enabled yaku of ``cfg`` as resolved (holders, rank, multiplier, third card, beats), by rank."""
    rows = [
        "| yaku | holders | condition | rank | × | third card | beats |",
        "|---|---|---|---|---|---|---|",
    ]
    for y in sorted(cfg.yaku.values(), key=lambda y: -y.rank):
        third = "voids it" if voided_by_third(cfg, y.name) else "kept"
        rows.append(
            f"| `{y.name}` | {_fmt(y.holders)} | {y.condition} | {y.rank} | {_multiplier(y)} | {third} "
            f"| {_beats(y)} |"
        )
    return "\n".join(rows)


def yaku_records_table() -> str:
    """Every yaku record of ``yaku.YAKU`` with its defaults, in table order (which breaks equal ranks)."""
    rows = [
        "| yaku | kind | holders | condition | rank | × | third card | beats |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for y in YAKU:
        if isinstance(y.two_card_only, bool):
            third = "voids it" if y.two_card_only else "kept"
        else:
            third = f"voids it with `{y.two_card_only}='any'`, kept with `'strict'`"
        kind = "core" if y.core else "local"
        rows.append(
            f"| `{y.name}` | {kind} | {_fmt(y.holders)} | {y.condition} | {y.rank} | {_multiplier(y)} "
            f"| {third} | {_beats(y)} |"
        )
    return "\n".join(rows)


# --- hands that qualify for several yaku (docs/oicho_kabu.md#several-yaku-on-one-hand) -----------

# the options that change which hands a yaku matches, all at their most permissive
_MATCH_VARIANTS: dict[str, dict[str, Any]] = {
    "": {},
    "strict orders, kuppin_four_one": {
        "kuppin_order": "strict",
        "shippin_order": "strict",
        "toichi_order": "strict",
        "kuppin_four_one": True,
    },
}


def overlap_rule_sets() -> dict[str, dict[str, Any]]:
    """Every preset alone, with each local yaku alone and with all of them, under each matching variant."""
    out: dict[str, dict[str, Any]] = {}
    for preset in PRESETS:
        for vname, variant in _MATCH_VARIANTS.items():
            tail = f" ({vname})" if vname else ""
            base = {"rules": preset, "deck": "hanafuda", **variant}
            out[preset + tail] = base
            for name in LOCAL_YAKU:
                out[f"{preset} + {name}{tail}"] = {**base, "local_yaku": [name]}
            out[f"{preset} + all local{tail}"] = {**base, "local_yaku": list(LOCAL_YAKU)}
    return out


@lru_cache(maxsize=1)
def enumerated_hands() -> tuple[tuple[int, ...], ...]:
    """Every 2- and 3-card value sequence as card ids (no lights), and each with the lights among the
    first two cards (the only place a light matters)."""
    out = []
    for n in (2, 3):
        for values in itertools.product(range(1, 11), repeat=n):
            used: dict[int, int] = {}
            plain = []
            for v in values:  # copies 3, 2, 1, 0: a light (copy 0) only for a fourth equal value
                k = used.get(v, 0)
                used[v] = k + 1
                plain.append(card_id(v, COPIES - 1 - k))
            out.append(tuple(plain))
            if {1, 3, 8} & set(values[:2]) and len(set(values[:2])) == 2:
                lit = tuple(
                    card_id(v) if i < 2 and v in (1, 3, 8) else c
                    for i, (v, c) in enumerate(zip(values, plain, strict=True))
                )
                out.append(lit)
    return tuple(sorted(set(out)))


def overlaps() -> list[dict[str, Any]]:
    """Every set of yaku one hand qualifies for together, over ``overlap_rule_sets()``: the yaku, the
    roles, the hands (by value), the rule sets, the yaku it is scored as (``best_yaku``) and why."""
    found: dict[tuple[Any, ...], dict[str, Any]] = {}
    for rs_name, opts in overlap_rule_sets().items():
        cfg = make_config(**opts)
        for role in ROLES:
            for cards in enumerated_hands():
                names = qualifying(cfg, cards, role)
                if len(names) < 2:
                    continue
                best = best_yaku(cfg, cards, role)
                assert best is not None  # the hand qualifies for two yaku or more
                why = _why(best, {n: preference(cfg, n, cards) for n in names})
                rec = found.setdefault(
                    (tuple(names), best, why),
                    {
                        "yaku": tuple(names),
                        "best": best,
                        "why": why,
                        "roles": [],
                        "hands": [],
                        "rule_sets": [],
                    },
                )
                for key, item in (
                    ("roles", role),
                    ("hands", "-".join(str(VALUES[c]) for c in cards)),
                    ("rule_sets", rs_name),
                ):
                    if item not in rec[key]:
                        rec[key].append(item)
    return sorted(found.values(), key=lambda r: (r["yaku"], r["best"]))


def _why(best: str, prefs: dict[str, tuple[Any, ...]]) -> str:
    ranked, pays, rank = prefs[best]
    parts = []
    for other, (o_ranked, o_pays, o_rank) in prefs.items():
        if other == best:
            continue
        if ranked != o_ranked:
            parts.append(f"ranked over `{other}` (rank 0)")
        elif pays != o_pays:
            parts.append(f"pays ×{pays} > ×{o_pays}")
        elif rank != o_rank:
            parts.append(f"same pay ×{pays}, rank {rank} > {o_rank}")
        else:
            parts.append(f"same pay ×{pays} and rank {rank}: first in table order")
    return "; ".join(parts)


def overlap_table() -> str:
    """The yaku that overlap on some hand and how each overlap resolves (docs/oicho_kabu.md#settling)."""
    rows = [
        "| the hand qualifies for | holder | hands | where | scored as | because |",
        "|---|---|---|---|---|---|",
    ]
    for r in overlaps():
        presets = [p for p in PRESETS if any(rs.split(" ")[0] == p for rs in r["rule_sets"])]
        needs = [n for n in r["yaku"] if n in LOCAL_YAKU]
        where = ", ".join(f"`{p}`" for p in presets) + "".join(f" + `{n}`" for n in needs)
        if all("strict" in rs for rs in r["rule_sets"]):
            where += " with strict orders / `kuppin_four_one`"
        rows.append(
            f"| {' + '.join(f'`{n}`' for n in r['yaku'])} | {', '.join(sorted(r['roles']))} "
            f"| {', '.join(r['hands'])} | {where} | `{r['best']}` | {r['why']} |"
        )
    return "\n".join(rows)


def action_table(bet_sizes: tuple[int, ...] | None = None) -> str:
    """Every action id with its name and meaning (BET rows for ``bet_sizes``, default the config's)."""
    sizes = make_config().bet_sizes if bet_sizes is None else bet_sizes
    rows = ["| id | action | meaning |", "|---|---|---|"]
    for a in Action:
        if a < BET_BASE:
            rows.append(f"| {int(a)} | `{a.name}` | {ACTION_MEANINGS[a.name]} |")
    rows.append(f"| {BET_BASE} | `BET(0)` | bettor: no stake on the active spread |")
    for k, size in enumerate(sizes, 1):
        rows.append(f"| {BET_BASE + k} | `BET({k})` | bettor: stake `bet_sizes[{k - 1}]` = {size} |")
    return "\n".join(rows)


def optional_observation_table() -> str:
    """The pieces some options append to the observation (4 players), after the default ones."""
    base = {p.name for p in obs_spec(make_config()).pieces}
    full = obs_spec(make_config(deck="hanafuda", dealer_selection="lowest", dealer_selection_each_deal=True))
    rows = ["| size | name | added by | meaning |", "|---|---|---|---|"]
    for p in full.pieces:
        if p.name not in base:
            by = "`dealer_selection_each_deal`" if p.name == "selection_cards" else '`deck="hanafuda"`'
            rows.append(f"| {p.size} | `{p.name}` | {by} | {p.description} |")
    return "\n".join(rows)


def generated_blocks() -> dict[str, str]:
    """Every generated block of docs/oicho_kabu.md, by marker name."""
    return {
        "options": options_table(),
        "presets": presets_table(),
        "yaku_records": yaku_records_table(),
        "yaku_standard": yaku_table(make_config()),
        "yaku_kabufuda_site": yaku_table(make_config(rules="kabufuda_site")),
        "yaku_kansai": yaku_table(make_config(rules="kansai")),
        "yaku_overlaps": overlap_table(),
        "observation": obs_spec(make_config()).markdown_table(),
        "observation_optional": optional_observation_table(),
        "actions": action_table(),
    }


def update_text(text: str) -> str:
    """``text`` with every generated block replaced by the current tables (missing markers raise)."""
    return replace_blocks(text, generated_blocks())


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if "--update" in args:
        DOC_PATH.write_text(update_text(DOC_PATH.read_text()))
        print(f"updated {DOC_PATH}")
    else:
        for name, table in generated_blocks().items():
            print(f"## {name}\n\n{table}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
