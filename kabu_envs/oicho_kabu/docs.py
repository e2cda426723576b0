"""Generated parts of docs/oicho_kabu.md: options, presets, yaku, observation and action tables.

The tables are printed from the same data the code enforces, so the documentation cannot drift:
``python -m kabu_envs.oicho_kabu.docs`` prints them, ``--update`` rewrites the marked blocks of
docs/oicho_kabu.md in place (``<!-- BEGIN generated:NAME -->`` ... ``<!-- END generated:NAME -->``).
"""

from __future__ import annotations

import re
import sys
from dataclasses import fields
from pathlib import Path

from kabu_envs.oicho_kabu.actions import BET_BASE, Action
from kabu_envs.oicho_kabu.config import Config, make_config
from kabu_envs.oicho_kabu.observation import obs_spec
from kabu_envs.oicho_kabu.options import PRESETS, VALIDATORS
from kabu_envs.oicho_kabu.yaku import YAKU, YAKU_NAMES, Yaku, voided_by_third

DOC_PATH = Path(__file__).resolve().parents[2] / "docs" / "oicho_kabu.md"

# option -> (allowed values, source, meaning). "spec" = /shared/spec/oicho_kabu.md, 000/001 = the seeds.
OPTION_DOCS: dict[str, tuple[str, str, str]] = {
    "rules": ("", "spec §5", "preset applied first; every other option can be set on top"),
    "num_players": ("2..8", "spec §2", "seats; one deals, the others bet"),
    "deck": ("", "000", "card set; only `hanafuda` changes play (the lights, for `sanpachi_hikari`)"),
    "dealer_selection": ("", "000 / 001", "`fixed`: player_0; `closest_to_nine` (000); `lowest` (001)"),
    "domae": ("integer >= 1", "000, 001", "cap on the total of all bettors' stakes in a round"),
    "bet_sizes": ("strictly increasing positive integers", "spec §2", "the stake amounts of BET(1..)"),
    "bankroll": ("integer >= 1", "spec §2", "chips per seat at the start of an episode"),
    "redeal_on_triple_table": ("True / False", "000 (Kansai)", "3+ equal table cards: deal the table again"),
    "info_cards": ("True / False", "001", "each bettor gets a dead face-down card only it sees"),
    "minso": ("True / False", "000 (Kansai)", "the dealer may REDEAL the table before the bets"),
    "minso_limit": ("integer >= 1", "spec §3", "redeals allowed per round with `minso`"),
    "dealer_first_card": ("", "000 / 001", "dealer's first card dealt before (000) or after (001) the bets"),
    "dealer_card_choice": ("True / False", "001", "dealer takes each of its first two cards top/bottom/4th"),
    "pair_may_draw": ("True / False", "000", "a pair of value 8 (4-4, 9-9) may still draw, for arashi"),
    "free_draw": ("True / False", "000 (Kansai)", "any value may stand or draw"),
    "shiroku_escape": ("True / False", "000 (Kansai)", "a bettor's 4-6 spread may ESCAPE (push)"),
    "dealer_second_card_face_up": ("True / False", "000 / 001", "step 10: everyone sees the dealer's cards"),
    "dealer_draw_rule": ("", "spec §3", "`same_as_bettors`: the draw masks apply to the dealer; `free`"),
    "zero_zero": ("", "000", "two plain 0s: the dealer wins or it is a tie"),
    "tie_rule": ("", "000, 001", "a tie is a push or a dealer win"),
    "arashi_holders": ("", "000, 001", "who may hold `arashi` and `arashi_kabu`"),
    "kuppin_order": ("", "000", "`any`: 9-1 or 1-9, void with a third card; `strict`: 9 first, kept"),
    "shippin_order": ("", "000", "`any`: 4-1 or 1-4, void with a third card; `strict`: 4 first, kept"),
    "toichi_order": ("", "000", "`any`: 1-10 or 10-1; `strict`: 10 first (void with a third card)"),
    "kuppin_four_one": ("True / False", "001", "the dealer's 4-1 also counts as `kuppin`"),
    "zoro_values": ("card values 1..10", "000", "which pairs count as `zoro` (e.g. `(2, 5)`: tsuru, gogo)"),
    "core_yaku": ("subset of the core yaku", "spec §4/§5", "core yaku in play (presets switch some off)"),
    "local_yaku": ("subset of the local yaku", "000", "local yaku switched on by name"),
    "wake_satsu_beats": ("yaku names", "000", "the yaku `wake_satsu` beats"),
    "yaku_overrides": (
        "{yaku: {rank, multiplier, holders, beats}}",
        "spec §4",
        "per-yaku changes; rank/multiplier >= 0 (multiplier 0 = the middle card's value)",
    ),
    "arashi_vs_arashi": ("", "000", "two arashi: see Settling; `higher_value` = total mod 10"),
    "bettor_three_tens": ("", "000 (Kansai)", "a bettor's 10-10-10: an arashi, or always a push"),
    "dealer_three_tens": ("", "000 (Kansai)", "a dealer's 10-10-10: an arashi, or voids the round"),
    "bettor_ten_pair": ("", "000 (Kansai)", "a bettor's 10-10: a zoro (if on) or always a plain 0"),
    "max_rounds": ("integer >= 1", "spec §6", "rounds per episode; chips carry over"),
    "dealer_change": ("subset of the conditions", "000", "when the deal passes to the next seat"),
    "dealer_max_deals": ("integer >= 1", "000", "deals before `deals` passes the deal on"),
}

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


def _fmt(value: object) -> str:
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        return "`" + repr({n: dict(kv) for n, kv in value}) + "`"
    if isinstance(value, frozenset):
        return ", ".join(sorted(value)) or "–"
    return f"`{value!r}`"


def allowed_text(name: str) -> str:
    """What an option accepts: the validator's choices, else the hand-written text."""
    choices = getattr(VALIDATORS[name], "allowed", None)
    return ", ".join(f"`{c}`" for c in choices) if choices else OPTION_DOCS[name][0]


def options_table() -> str:
    """Every option with its default, allowed values, source and meaning."""
    rows = ["| option | default | allowed | source | meaning |", "|---|---|---|---|---|"]
    for f in fields(Config):
        if f.init:
            _, source, meaning = OPTION_DOCS[f.name]
            rows.append(f"| `{f.name}` | {_fmt(f.default)} | {allowed_text(f.name)} | {source} | {meaning} |")
    return "\n".join(rows)


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
