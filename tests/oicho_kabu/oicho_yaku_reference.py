"""A frozen record of how hands were ranked before the yaku became one record each.

``reference(options)`` evaluates a rule set the way the tests compare it: the resolved yaku table
(name, holders, rank, multiplier, beats, in table order), which yaku a third card voids, and, for every
2- and 3-card hand (all value sequences, with enough choices of card copies to cover the hanafuda
lights), the best yaku and its multiplier for each role, the draw options of every 2-card hand, and
``settle`` on a fixed sample of dealer/bettor pairs. The long results are kept as SHA-256 digests plus a
count per yaku, so the file stays small and a mismatch still says which yaku moved.

``python tests/oicho_kabu/oicho_yaku_reference.py`` rewrites ``data/yaku_reference.json``; it was run
once on the code before the refactor, and ``test_oicho_yaku_reference.py`` checks the code against it.
Only the engine's public functions are used, so the same script runs on the old and the new code.

Deliberate re-recordings (each a rule change, listed with the rule sets whose entries moved):

1. ``free_draw`` became the bettors' permission (docs/oicho_kabu.md#free-draw-is-the-bettors-permission;
   ``kansai`` sets ``dealer_draw_rule="free"``): only ``draw_bettor`` of ``kansai``, ``kansai+all_local`` and
   every ``kansai+only:*``, and ``draw_bettor`` and ``draw_dealer`` of ``all_local+free_draw``.
2. A hand with several yaku takes the one paying its holder most (docs/oicho_kabu.md#settling): a bettor's
   1-1-1 with ``pin_basami`` on is an arashi (x3), no longer a pin-basami (x1). Only ``best_bettor``,
   ``count_bettor`` and ``settle`` of the rule sets with ``pin_basami`` where bettors hold arashi:
   ``only:pin_basami``, ``kansai+only:pin_basami``, ``standard+all_local``, ``kansai+all_local``,
   ``kabufuda_site+all_local`` and every ``all_local+*`` but ``arashi_holders=dealer`` and
   ``core_yaku=none`` (the four 1-1-1 hands move from ``pin_basami`` to ``arashi``).
3. ``standard``'s dealer holds shippin (docs/oicho_kabu.md#traceability, row enc.24: the encyclopedia's
   "even against the dealer's kuppin or shippin"): the rule sets on v2's ``standard`` preset (every
   ``only:*`` and ``all_local+*``; the presets' own entries are v1's): ``table`` (shippin's holders), and
   ``best_dealer``, ``count_dealer`` and ``settle`` (the dealer's 4-1 and 1-4 move from plain to
   ``shippin``) of all of them but ``all_local+kuppin_four_one``, where the dealer's 4-1 is a kuppin.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from kabu_envs.oicho_kabu import make_config
from kabu_envs.oicho_kabu.options import v1_options
from kabu_envs.oicho_kabu.rules import best_yaku, draw_options, settle, yaku_multiplier
from kabu_envs.oicho_kabu.yaku import voided_by_third

DATA = Path(__file__).resolve().parent / "data" / "yaku_reference.json"

# Frozen copies of the names at the time of recording (not imported: the reference must not follow the code).
CORE = ("arashi_kabu", "arashi", "kuppin", "shippin")
LOCAL = (
    "sanpachi_hikari",
    "pin_basami",
    "doshippin",
    "niichi",
    "shidou",
    "shiro",
    "toichi",
    "fujin",
    "raijin",
    "ichi_ni_san",
    "shichi_go_san",
    "nobori",
    "kudari",
    "zoro",
    "zoro_tsubushi",
    "wake_satsu",
)
ROLES = ("dealer", "bettor")


def option_sets() -> dict[str, dict[str, Any]]:
    """Every preset, each local yaku alone, everything on under each preset, and each yaku-related option."""
    out: dict[str, dict[str, Any]] = {}
    for preset in ("standard", "kansai", "kabufuda_site"):
        # recorded under v1's presets (issue #24 changed kabufuda_site's draws and 0-0: v1_options)
        out[preset] = v1_options({"rules": preset})
        out[f"{preset}+all_local"] = v1_options(
            {"rules": preset, "deck": "hanafuda", "local_yaku": list(LOCAL)}
        )
    for name in LOCAL:
        deck = "hanafuda" if name == "sanpachi_hikari" else "kabufuda"
        out[f"only:{name}"] = {"local_yaku": [name], "deck": deck}
        out[f"kansai+only:{name}"] = {"rules": "kansai", "local_yaku": [name], "deck": "hanafuda"}
    variants: dict[str, dict[str, Any]] = {
        "kuppin_order=strict": {"kuppin_order": "strict"},
        "shippin_order=strict": {"shippin_order": "strict"},
        "toichi_order=strict": {"toichi_order": "strict"},
        "kuppin_four_one": {"kuppin_four_one": True},
        "kuppin_four_one+strict": {"kuppin_four_one": True, "kuppin_order": "strict"},
        "arashi_holders=bettors": {"arashi_holders": "bettors"},
        "arashi_holders=dealer": {"arashi_holders": "dealer"},
        "bettor_ten_pair=plain": {"bettor_ten_pair": "plain"},
        "zoro_values=2,5": {"zoro_values": [2, 5]},
        "wake_satsu_beats=arashi": {"wake_satsu_beats": ["arashi"]},
        "core_yaku=none": {"core_yaku": []},
        "overrides": {
            "yaku_overrides": {
                "shippin": {"rank": 45, "holders": "both", "beats": ["kuppin"]},
                "niichi": {"rank": 0, "multiplier": 3},
                "zoro": {"rank": 20, "holders": "dealer"},
            }
        },
        "pair_may_draw=False": {"pair_may_draw": False},
        "free_draw": {"free_draw": True},
        "dealer_draw_rule=free": {"dealer_draw_rule": "free"},
        "shiroku_escape": {"shiroku_escape": True},
        "zero_zero=tie": {"zero_zero": "tie"},
        "tie_rule=dealer_wins": {"tie_rule": "dealer_wins"},
        "bettor_three_tens=push": {"bettor_three_tens": "push"},
        "dealer_three_tens=void": {"dealer_three_tens": "void"},
    }
    arashi_rules = (
        "higher_value",
        "dealer_wins",
        "rank_321",
        "second_card",
        "push",
        "bettor_wins",
        "higher_card",
    )
    for value in arashi_rules:
        variants[f"arashi_vs_arashi={value}"] = {"arashi_vs_arashi": value}
    for key, opts in variants.items():
        out[f"all_local+{key}"] = {"deck": "hanafuda", "local_yaku": list(LOCAL), **opts}
    return out


@lru_cache(maxsize=1)
def hands() -> list[tuple[int, ...]]:
    """Every value sequence of 2 and 3 cards as card ids: low copies (0, 1, 2: a hanafuda light first)
    and high copies (3, 2, 1); when a value with a light (1, 3, 8) is among the first two cards, also
    the first card low and the rest high, and the other way round."""
    out = []
    for n in (2, 3):
        for values in itertools.product(range(1, 11), repeat=n):
            choices = [(True, True), (False, False)]
            if {1, 3, 8} & set(values[:2]):
                choices += [(True, False), (False, True)]
            for first_low, rest_low in choices:
                low_used: Counter[int] = Counter()
                high_used: Counter[int] = Counter()
                ids = []
                for i, v in enumerate(values):
                    if first_low if i == 0 else rest_low:
                        copy = low_used[v]
                        low_used[v] += 1
                    else:
                        copy = 3 - high_used[v]
                        high_used[v] += 1
                    ids.append((v - 1) * 4 + copy)
                out.append(tuple(ids))
    return sorted(set(out))


def _digest(items: list[Any]) -> str:
    return hashlib.sha256(json.dumps(items, separators=(",", ":")).encode()).hexdigest()


def reference(options: dict[str, Any]) -> dict[str, Any]:
    cfg = make_config(**{"yaku_choice": "isolation", **options})  # recorded under v1 (issue #24)
    all_hands = hands()
    table = [
        f"{y.name} holders={','.join(sorted(y.holders))} rank={y.rank} x{y.multiplier} "
        f"beats={','.join(sorted(y.beats)) or '-'}"
        for y in cfg.yaku.values()
    ]
    out: dict[str, Any] = {
        "table": table,
        "voided_by_third": [name for name in CORE + LOCAL if voided_by_third(cfg, name)],
    }
    interesting = []
    for role in ROLES:
        best = []
        for h in all_hands:
            y = best_yaku(cfg, h, role)
            best.append([y, yaku_multiplier(cfg, y, h)] if y else None)
            if y:
                interesting.append(h)
        out[f"best_{role}"] = _digest(best)
        out[f"count_{role}"] = dict(sorted(Counter(b[0] for b in best if b).items()))
        out[f"draw_{role}"] = _digest([list(draw_options(cfg, h, role)) for h in all_hands if len(h) == 2])
    rng = np.random.Generator(np.random.PCG64(2024))
    interesting = sorted(set(interesting)) or all_hands
    pairs = [
        (all_hands[i], all_hands[j]) for i, j in rng.integers(0, len(all_hands), size=(2000, 2)).tolist()
    ] + [
        (interesting[i], interesting[j])
        for i, j in rng.integers(0, len(interesting), size=(2000, 2)).tolist()
    ]
    out["settle"] = _digest([settle(cfg, d, b) for d, b in pairs])
    return out


def main() -> None:
    data = {name: reference(opts) for name, opts in option_sets().items()}
    lines = [f"{json.dumps(name)}: {json.dumps(ref)}" for name, ref in data.items()]
    DATA.write_text("{\n" + ",\n".join(lines) + "\n}\n")  # one rule set per line
    print(f"wrote {DATA} ({len(data)} rule sets, {len(hands())} hands)")


if __name__ == "__main__":
    main()
