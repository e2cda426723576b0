"""Generated parts of docs/oicho_kabu.md: options, presets, yaku, observation and action tables.

The tables are printed from the same data the code enforces, so the documentation cannot drift:
``python -m kabu_envs.oicho_kabu.docs`` prints them, ``--update`` rewrites the marked blocks of
docs/oicho_kabu.md in place (``<!-- BEGIN generated:NAME -->`` ... ``<!-- END generated:NAME -->``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from kabu_envs.oicho_kabu.actions import BET_BASE, Action
from kabu_envs.oicho_kabu.config import Config, make_config
from kabu_envs.oicho_kabu.observation import obs_spec
from kabu_envs.oicho_kabu.options import OPTIONS, PRESETS
from kabu_envs.oicho_kabu.yaku import YAKU, YAKU_NAMES, Yaku, voided_by_third

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


def generated_blocks() -> dict[str, str]:
    """Every generated block of docs/oicho_kabu.md, by marker name."""
    return {
        "options": options_table(),
        "presets": presets_table(),
        "yaku_records": yaku_records_table(),
        "yaku_standard": yaku_table(make_config()),
        "yaku_kabufuda_site": yaku_table(make_config(rules="kabufuda_site")),
        "yaku_kansai": yaku_table(make_config(rules="kansai")),
        "observation": obs_spec(make_config()).markdown_table(),
        "actions": action_table(),
    }


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(
        rf"(<!-- BEGIN generated:{name} -->\n).*?(<!-- END generated:{name} -->)", flags=re.DOTALL
    )


def update_text(text: str) -> str:
    """``text`` with every generated block replaced by the current tables (missing markers raise)."""
    for name, table in generated_blocks().items():
        pat = _pattern(name)
        if not pat.search(text):
            raise ValueError(f"docs: marker block 'generated:{name}' is missing")
        text = pat.sub(lambda m, t=table: m.group(1) + t + "\n" + m.group(2), text)
    return text


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
