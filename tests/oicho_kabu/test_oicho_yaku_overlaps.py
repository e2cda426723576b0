"""A hand that qualifies for several enabled yaku takes the one paying its holder most, so enabling a
yaku never downgrades a hand (docs/oicho_kabu.md#several-yaku-on-one-hand).

Every 2- and 3-card hand (every value sequence, with and without the hanafuda lights) is checked under
every preset alone, with each local yaku alone and with all of them, with the order options at
``any`` and at ``strict`` (plus ``kuppin_four_one``): the options that change which hands match.
"""

from __future__ import annotations

import itertools

import pytest

from kabu_envs.oicho_kabu import docs
from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.options import PRESETS
from kabu_envs.oicho_kabu.rules import best_yaku, yaku_multiplier
from kabu_envs.oicho_kabu.yaku import LOCAL_YAKU, ROLES, qualifying

HANDS = docs.enumerated_hands()


def _worth(cfg, name, cards) -> tuple[bool, int]:
    """(ranked, pays) of scoring ``cards`` as ``name`` (``None``: a plain hand, unranked, pays 1)."""
    if name is None:
        return (False, 1)
    return (cfg.yaku[name].rank > 0, yaku_multiplier(cfg, name, cards))


def test_every_value_sequence_is_enumerated():
    values = {tuple(c // 4 + 1 for c in h) for h in HANDS}
    assert values == {v for n in (2, 3) for v in itertools.product(range(1, 11), repeat=n)}
    assert {8, 28} <= {c for h in HANDS for c in h[:2]}  # the lights of sanpachi_hikari


@pytest.mark.parametrize("rule_set", list(docs.overlap_rule_sets()))
def test_a_hand_with_several_yaku_takes_the_one_paying_its_holder_most(rule_set):
    cfg = make_config(**docs.overlap_rule_sets()[rule_set])
    for role, cards in itertools.product(ROLES, HANDS):
        names = qualifying(cfg, cards, role)
        if len(names) < 2:
            continue
        best = best_yaku(cfg, cards, role)
        assert best in names
        for other in names:
            got, alt = _worth(cfg, best, cards), _worth(cfg, other, cards)
            assert got >= alt, (rule_set, role, cards, best, other)
            if got == alt:  # same pay: the higher rank
                assert cfg.yaku[best].rank >= cfg.yaku[other].rank, (rule_set, role, cards, best, other)


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("strict", [False, True], ids=["any_order", "strict_order"])
def test_enabling_local_yaku_never_downgrades_a_hand(preset, strict):
    """With a local yaku on, every hand is scored at least as well for its holder as without it."""
    opts = {"rules": preset, "deck": "hanafuda"}
    if strict:
        opts.update(docs.overlap_rule_sets()[f"{preset} (strict orders, kuppin_four_one)"])
    base = make_config(**opts)
    added = [[name] for name in LOCAL_YAKU] + [list(LOCAL_YAKU)]
    for local in added:
        cfg = make_config(**opts, local_yaku=local)
        for role, cards in itertools.product(ROLES, HANDS):
            before = _worth(base, best_yaku(base, cards, role), cards)
            after = _worth(cfg, best_yaku(cfg, cards, role), cards)
            assert after >= before, (preset, local, role, cards)


def test_the_overlapping_yaku_are_the_documented_ones():
    """If a new yaku record overlaps another, this list (and the generated docs table) must be reviewed."""
    pairs = {frozenset(pair) for r in docs.overlaps() for pair in itertools.combinations(r["yaku"], 2)}
    assert pairs == {
        frozenset({"arashi_kabu", "arashi"}),  # 3-3-3
        frozenset({"pin_basami", "arashi"}),  # 1-1-1
        frozenset({"ichi_ni_san", "nobori"}),  # 1-2-3
        frozenset({"ichi_ni_san", "kudari"}),  # 3-2-1
        frozenset({"kuppin", "shippin"}),  # the dealer's 4-1 with kuppin_four_one (standard: shippin too)
    }
    scored = {(r["yaku"], r["best"]) for r in docs.overlaps()}
    assert scored == {
        (("arashi_kabu", "arashi"), "arashi_kabu"),
        (("pin_basami", "arashi"), "arashi"),
        (("ichi_ni_san", "nobori"), "ichi_ni_san"),
        (("ichi_ni_san", "kudari"), "ichi_ni_san"),
        (("kuppin", "shippin"), "kuppin"),  # kuppin outranks shippin: "kuppin has priority" (enc.23)
    }
