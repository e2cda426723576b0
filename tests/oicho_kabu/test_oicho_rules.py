"""Oicho-Kabu hand rules, table-driven: values, every yaku, settlement and the draw masks."""

import itertools

import numpy as np
import pytest

from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.deck import card_ids
from kabu_envs.oicho_kabu.rules import (
    best_yaku,
    card_value,
    draw_options,
    hand_value,
    settle,
    voids_round,
    yaku_multiplier,
)
from kabu_envs.oicho_kabu.yaku import LOCAL_YAKU


def h(*values: int) -> tuple[int, ...]:
    """Card ids for these values in dealt order, a fresh copy of each repeated value."""
    return tuple(card_ids(*values))


def cfg(**kw):
    return make_config(**kw)


ALL_LOCAL = dict(deck="hanafuda", local_yaku=list(LOCAL_YAKU))
LIGHT3, LIGHT8, PLAIN3, PLAIN8 = 8, 28, 9, 29  # copy 0 of a month is its light


# ---------------------------------------------------------------- values


def test_card_values_and_ids():
    assert [card_value(i) for i in (0, 3, 4, 35, 36, 39)] == [1, 1, 2, 9, 10, 10]
    for bad in (-1, 40):
        with pytest.raises(ValueError, match="out of range"):
            card_value(bad)


@pytest.mark.parametrize(
    "values, expect",
    [((9, 1), 0), ((5, 4), 9), ((10, 10), 0), ((7, 8), 5), ((3, 3, 3), 9), ((10, 5), 5), ((6, 7, 8), 1)],
)
def test_hand_value(values, expect):
    assert hand_value(h(*values)) == expect


# ---------------------------------------------------------------- yaku

YAKU_CASES = [
    # (options, hand values, role, expected best yaku)
    ({}, (3, 3, 3), "bettor", "arashi_kabu"),
    ({}, (3, 3, 3), "dealer", "arashi_kabu"),
    ({}, (5, 5, 5), "dealer", "arashi"),
    ({}, (10, 10, 10), "bettor", "arashi"),
    ({}, (5, 5), "bettor", None),
    ({}, (9, 1), "dealer", "kuppin"),
    ({}, (1, 9), "dealer", "kuppin"),
    ({}, (9, 1), "bettor", None),
    ({}, (9, 1, 5), "dealer", None),
    ({}, (4, 1), "bettor", "shippin"),
    ({}, (1, 4), "bettor", "shippin"),
    ({}, (4, 1), "dealer", "shippin"),  # standard: the dealer's shippin (enc.24)
    ({}, (4, 1, 2), "dealer", None),
    ({"rules": "kansai"}, (4, 1), "dealer", None),  # Kansai: "shippin only for players" (enc.K2)
    ({"rules": "kansai"}, (4, 1), "bettor", "shippin"),
    ({}, (4, 1, 2), "bettor", None),
    ({"kuppin_order": "strict"}, (1, 9), "dealer", None),
    ({"kuppin_order": "strict"}, (9, 1), "dealer", "kuppin"),
    ({"kuppin_order": "strict"}, (9, 1, 5), "dealer", "kuppin"),
    ({"shippin_order": "strict"}, (1, 4), "bettor", None),
    ({"shippin_order": "strict"}, (4, 1), "bettor", "shippin"),
    ({"shippin_order": "strict"}, (4, 1, 3), "bettor", "shippin"),
    ({"kuppin_four_one": True, "kuppin_order": "strict"}, (4, 1), "dealer", "kuppin"),
    ({"kuppin_four_one": True, "kuppin_order": "strict"}, (1, 4), "dealer", "shippin"),  # any order
    ({"kuppin_four_one": True, "kuppin_order": "strict", "rules": "kansai"}, (1, 4), "dealer", None),
    ({"kuppin_four_one": True}, (1, 4), "dealer", "kuppin"),
    ({"arashi_holders": "bettors"}, (5, 5, 5), "dealer", None),
    ({"arashi_holders": "bettors"}, (3, 3, 3), "dealer", None),
    ({"arashi_holders": "bettors"}, (5, 5, 5), "bettor", "arashi"),
    ({"arashi_holders": "dealer"}, (5, 5, 5), "bettor", None),
    ({"core_yaku": ["arashi"]}, (3, 3, 3), "bettor", "arashi"),
    ({"local_yaku": ["pin_basami"]}, (1, 7, 1), "bettor", "pin_basami"),
    ({"local_yaku": ["pin_basami"]}, (1, 7, 1), "dealer", None),
    ({"local_yaku": ["pin_basami"]}, (1, 1, 1), "bettor", "arashi"),  # x3 over pin-basami's x1
    ({"local_yaku": ["pin_basami"], "arashi_holders": "dealer"}, (1, 1, 1), "bettor", "pin_basami"),
    ({"local_yaku": ["pin_basami"], "rules": "kabufuda_site"}, (1, 1, 1), "bettor", "arashi"),
    ({"local_yaku": ["pin_basami"]}, (1, 7, 2), "bettor", None),
    ({"local_yaku": ["pin_basami"]}, (7, 1, 1), "bettor", None),
    ({"local_yaku": ["doshippin"]}, (10, 1, 10), "dealer", "doshippin"),
    ({"local_yaku": ["doshippin"]}, (1, 10, 10), "bettor", "doshippin"),
    ({"local_yaku": ["doshippin"]}, (1, 10), "bettor", None),
    ({"local_yaku": ["niichi"]}, (2, 1), "dealer", "niichi"),
    ({"local_yaku": ["niichi"]}, (1, 2), "bettor", "niichi"),
    ({"local_yaku": ["niichi"]}, (2, 1, 5), "bettor", None),
    ({"local_yaku": ["shidou"]}, (4, 10), "bettor", "shidou"),
    ({"local_yaku": ["shidou"]}, (10, 4), "dealer", "shidou"),
    ({"local_yaku": ["shidou"]}, (4, 10, 1), "bettor", None),
    ({"local_yaku": ["shiro"]}, (6, 4), "bettor", "shiro"),
    ({"local_yaku": ["shiro"]}, (4, 6, 2), "bettor", None),
    ({"local_yaku": ["toichi"]}, (1, 10), "bettor", "toichi"),
    ({"local_yaku": ["toichi"]}, (10, 1), "dealer", "toichi"),
    ({"local_yaku": ["toichi"], "toichi_order": "strict"}, (10, 1), "bettor", "toichi"),
    ({"local_yaku": ["toichi"], "toichi_order": "strict"}, (1, 10), "bettor", None),
    ({"local_yaku": ["toichi"], "toichi_order": "strict"}, (10, 1, 3), "bettor", None),
    ({"local_yaku": ["fujin"]}, (10, 3, 7), "bettor", "fujin"),
    ({"local_yaku": ["fujin"]}, (3, 7), "bettor", None),
    ({"local_yaku": ["raijin"]}, (9, 4, 7), "dealer", "raijin"),
    ({"local_yaku": ["ichi_ni_san"]}, (3, 1, 2), "bettor", "ichi_ni_san"),
    ({"local_yaku": ["shichi_go_san"]}, (5, 7, 3), "dealer", "shichi_go_san"),
    ({"local_yaku": ["nobori"]}, (2, 3, 4), "bettor", "nobori"),
    ({"local_yaku": ["nobori"]}, (8, 9, 10), "bettor", "nobori"),
    ({"local_yaku": ["nobori"]}, (4, 3, 2), "bettor", None),
    ({"local_yaku": ["nobori", "kudari"]}, (9, 10, 1), "bettor", None),
    ({"local_yaku": ["nobori", "kudari"]}, (1, 10, 9), "bettor", None),
    ({"local_yaku": ["nobori", "kudari"]}, (2, 4, 3), "bettor", None),
    ({"local_yaku": ["kudari"]}, (4, 3, 2), "dealer", "kudari"),
    ({"local_yaku": ["kudari"]}, (10, 9, 8), "bettor", "kudari"),
    ({"local_yaku": ["zoro"]}, (5, 5), "bettor", "zoro"),
    ({"local_yaku": ["zoro"]}, (10, 10), "bettor", "zoro"),
    ({"local_yaku": ["zoro"]}, (5, 5, 1), "bettor", None),
    ({"local_yaku": ["zoro"], "zoro_values": (2, 5)}, (3, 3), "bettor", None),
    ({"local_yaku": ["zoro"], "zoro_values": (2, 5)}, (2, 2), "dealer", "zoro"),
    ({"local_yaku": ["zoro"], "bettor_ten_pair": "plain"}, (10, 10), "bettor", None),
    ({"local_yaku": ["zoro"], "bettor_ten_pair": "plain"}, (10, 10), "dealer", "zoro"),
    ({"local_yaku": ["zoro_tsubushi"]}, (7, 3), "bettor", "zoro_tsubushi"),
    ({"local_yaku": ["zoro_tsubushi"]}, (3, 7), "dealer", "zoro_tsubushi"),
    ({"local_yaku": ["zoro_tsubushi"]}, (7, 3, 1), "bettor", None),
    ({"local_yaku": ["wake_satsu"]}, (4, 9), "bettor", "wake_satsu"),
    ({"local_yaku": ["wake_satsu"]}, (9, 4), "dealer", "wake_satsu"),
    ({"local_yaku": ["wake_satsu"]}, (4, 9, 2), "dealer", None),
    # several qualify: the one paying the holder most (ranked, then multiplier, then rank, then table order)
    (ALL_LOCAL, (3, 3, 3), "dealer", "arashi_kabu"),  # x5 over arashi's x3
    (ALL_LOCAL, (1, 1, 1), "bettor", "arashi"),  # x3 over pin_basami's x1 (rank 65 > 50 does not count)
    (ALL_LOCAL, (1, 2, 3), "bettor", "ichi_ni_san"),  # also nobori, same x1 and rank: table order
    (ALL_LOCAL, (3, 2, 1), "dealer", "ichi_ni_san"),  # also kudari
    (
        {"local_yaku": ["ichi_ni_san", "nobori"], "yaku_overrides": {"nobori": {"multiplier": 2}}},
        (1, 2, 3),
        "bettor",
        "nobori",  # pays x2
    ),
    (
        {"local_yaku": ["ichi_ni_san", "nobori"], "yaku_overrides": {"nobori": {"rank": 25}}},
        (1, 2, 3),
        "bettor",
        "nobori",  # same x1, higher rank
    ),
    (
        {
            "local_yaku": ["ichi_ni_san", "nobori"],
            "yaku_overrides": {"ichi_ni_san": {"rank": 0, "multiplier": 5}},
        },
        (1, 2, 3),
        "bettor",
        "nobori",  # a ranked yaku over a rank-0 one (a plain hand but for its beats), whatever it pays
    ),
    (
        {"local_yaku": ["pin_basami"], "yaku_overrides": {"arashi": {"multiplier": 1}}},
        (1, 1, 1),
        "bettor",
        "pin_basami",  # both x1: the higher rank (65 > 50)
    ),
    ({"local_yaku": ["nobori"]}, (1, 2, 3), "bettor", "nobori"),
    ({"local_yaku": ["niichi"], "yaku_overrides": {"niichi": {"holders": "bettor"}}}, (2, 1), "dealer", None),
    ({"yaku_overrides": {"shippin": {"holders": "both"}}}, (4, 1), "dealer", "shippin"),
    ({"yaku_overrides": {"shippin": {"rank": 45, "holders": "both"}}}, (9, 1), "dealer", "kuppin"),
    (
        {"local_yaku": ["doshippin"], "yaku_overrides": {"doshippin": {"rank": 99}}},
        (10, 10, 1),
        "bettor",
        "doshippin",
    ),
]


@pytest.mark.parametrize("options, values, role, expect", YAKU_CASES)
def test_best_yaku(options, values, role, expect):
    assert best_yaku(cfg(**options), h(*values), role) == expect


def test_sanpachi_hikari_needs_both_lights():
    c = cfg(**ALL_LOCAL)
    for role in ("dealer", "bettor"):
        assert best_yaku(c, (LIGHT3, LIGHT8), role) == "sanpachi_hikari"
        assert best_yaku(c, (LIGHT8, LIGHT3), role) == "sanpachi_hikari"
        assert best_yaku(c, (LIGHT3, LIGHT8, 0), role) == "sanpachi_hikari"  # first two cards
        assert best_yaku(c, (PLAIN3, LIGHT8), role) is None
        assert best_yaku(c, (LIGHT3, PLAIN8), role) is None
    assert best_yaku(cfg(deck="hanafuda"), (LIGHT3, LIGHT8), "bettor") is None


def test_pin_basami_multiplier_is_the_middle_card():
    c = cfg(local_yaku=["pin_basami"])
    for x in range(1, 11):
        hand = h(1, x, 1)
        assert yaku_multiplier(c, "pin_basami", hand) == x
    assert yaku_multiplier(cfg(yaku_overrides={"pin_basami": {"multiplier": 2}}), None, h(1, 5, 1)) == 1


def test_numpy_card_ids_work():
    c = cfg()
    assert settle(c, tuple(np.array(h(9, 1))), tuple(np.array(h(4, 5)))) == -1


def test_bad_role_and_bad_hand_size():
    c = cfg()
    with pytest.raises(ValueError, match="role"):
        best_yaku(c, h(1, 2), "banker")
    with pytest.raises(ValueError, match="2 or 3 cards"):
        best_yaku(c, h(1, 2, 3, 4), "bettor")
    with pytest.raises(ValueError, match="two-card"):
        draw_options(c, h(1, 2, 3), "bettor")
    with pytest.raises(ValueError, match="role"):
        draw_options(c, h(1, 2), "player")
    for bad in ((3, 40), (-1, 5), (2, 2.0)):
        with pytest.raises(ValueError, match="out of range"):
            best_yaku(c, bad, "bettor")
        with pytest.raises(ValueError, match="out of range"):
            settle(c, h(1, 2), bad)


# ---------------------------------------------------------------- settlement

STD = {}
NOB = {"local_yaku": ["nobori", "kudari"]}
ZORO = {"local_yaku": ["zoro"]}
ARASHI_ONLY = {"core_yaku": ["arashi"]}


def _avs(rule):
    return {**ARASHI_ONLY, "arashi_vs_arashi": rule}


SETTLE_CASES = [
    # (options, dealer values, bettor values, signed multiplier for the bettor)
    (STD, (5, 2), (6, 2), 1),
    (STD, (6, 2), (5, 2), -1),
    (STD, (5, 2), (4, 3), 0),
    ({"tie_rule": "dealer_wins"}, (5, 2), (4, 3), -1),
    (STD, (5, 5), (10, 10), -1),  # zero_zero default: dealer wins
    ({"zero_zero": "tie"}, (5, 5), (10, 10), 0),
    ({"zero_zero": "tie", "tie_rule": "dealer_wins"}, (5, 5), (10, 10), -1),
    (STD, (2, 3), (9, 1), -1),  # bettor 0 loses to 5
    (STD, (4, 5), (5, 5, 5), 3),  # arashi x3 beats a plain 9
    (STD, (5, 5, 5), (4, 5), -3),
    (STD, (9, 9, 9), (3, 3, 3), 5),  # great arashi x5 beats arashi
    (STD, (3, 3, 3), (4, 5), -5),
    (STD, (9, 1), (4, 5), -1),  # kuppin beats a plain 9
    (STD, (9, 1), (4, 1), -1),  # kuppin outranks shippin
    (STD, (9, 1), (5, 5, 5), 3),  # arashi beats kuppin (the encyclopedia text)
    (STD, (4, 5), (4, 1), 1),  # shippin beats a plain 9
    (STD, (9, 1, 3), (1, 1), -1),  # a kuppin voided by a third card is a plain 3
    # two arashi, every arashi_vs_arashi
    (_avs("higher_value"), (5, 5, 5), (2, 2, 2), 3),  # 5 vs 6
    (_avs("higher_value"), (10, 10, 10), (7, 7, 7), 3),  # 0 vs 1
    (_avs("higher_value"), (6, 6, 6), (9, 9, 9), -3),  # 8 vs 7
    (_avs("higher_value"), (2, 2, 2), (3, 3, 3), 3),  # 3-3-3 is the best arashi
    (_avs("dealer_wins"), (5, 5, 5), (2, 2, 2), -3),
    (_avs("dealer_wins"), (4, 4, 4), (3, 3, 3), -3),
    (_avs("bettor_wins"), (3, 3, 3), (4, 4, 4), 3),
    (_avs("bettor_wins"), (10, 10, 10), (1, 1, 1), 3),  # "not even with three tens" (encyclopedia, Kansai)
    ({**_avs("push"), "tie_rule": "dealer_wins"}, (3, 3, 3), (4, 4, 4), 0),
    (_avs("higher_card"), (5, 5, 5), (2, 2, 2), -3),
    (_avs("higher_card"), (2, 2, 2), (10, 10, 10), 3),
    (_avs("rank_321"), (10, 10, 10), (1, 1, 1), 3),
    (_avs("rank_321"), (4, 4, 4), (5, 5, 5), 3),
    (_avs("rank_321"), (2, 2, 2), (10, 10, 10), -3),
    (_avs("rank_321"), (2, 2, 2), (3, 3, 3), 3),
    (_avs("second_card"), (4, 4, 4), (9, 9, 9), -3),  # equal -> dealer
    (_avs("second_card"), (3, 3, 3), (9, 9, 9), 3),
    (_avs("second_card"), (5, 5, 5), (1, 1, 1), 3),
    (_avs("second_card"), (8, 8, 8), (2, 2, 2), -3),
    (_avs("second_card"), (10, 10, 10), (5, 5, 5), -3),
    # nobori / kudari: higher total mod 10; nobori vs kudari compared the same way
    (NOB, (1, 2, 3), (2, 3, 4), 1),
    (NOB, (2, 3, 4), (1, 2, 3), -1),
    (NOB, (4, 3, 2), (1, 2, 3), -1),
    (NOB, (1, 2, 3), (3, 2, 1), 0),
    (NOB, (4, 5), (1, 2, 3), 1),  # a yaku beats a plain 9
    # zoro: 9 best ... 1, 10 worst
    (ZORO, (9, 9), (1, 1), -1),
    (ZORO, (10, 10), (1, 1), 1),
    (ZORO, (1, 1), (2, 2), 1),
    (ZORO, (5, 5), (5, 5), 0),
    (ZORO, (4, 5), (10, 10), 1),
    ({**ZORO, "zoro_values": (2, 5)}, (4, 5), (3, 3), -1),
    # zoro_tsubushi beats zoro, else a plain 0
    ({"local_yaku": ["zoro", "zoro_tsubushi"]}, (9, 9), (7, 3), 1),
    ({"local_yaku": ["zoro", "zoro_tsubushi"]}, (3, 7), (9, 9), -1),
    ({"local_yaku": ["zoro_tsubushi"]}, (5, 6), (7, 3), -1),
    ({"local_yaku": ["zoro_tsubushi"]}, (2, 8), (7, 3), -1),
    ({"local_yaku": ["zoro_tsubushi"], "zero_zero": "tie"}, (2, 8), (7, 3), 0),
    ({"local_yaku": ["zoro_tsubushi"]}, (7, 3), (5, 6), 1),
    # wake_satsu beats kuppin / shippin (option), else a plain 3
    ({"local_yaku": ["wake_satsu"]}, (9, 1), (4, 9), 1),
    ({"local_yaku": ["wake_satsu"]}, (4, 9), (4, 1), -1),
    ({"local_yaku": ["wake_satsu"]}, (2, 3), (4, 9), -1),
    ({"local_yaku": ["wake_satsu"]}, (1, 1), (9, 4), 1),
    ({"local_yaku": ["wake_satsu"], "wake_satsu_beats": ["arashi"]}, (5, 5, 5), (4, 9), 1),
    ({"local_yaku": ["wake_satsu"], "wake_satsu_beats": ["arashi"]}, (9, 1), (4, 9), -1),
    # pin_basami x middle card
    ({"local_yaku": ["pin_basami"]}, (4, 5), (1, 7, 1), 7),
    ({"local_yaku": ["pin_basami"]}, (4, 5), (1, 10, 1), 10),
    ({"local_yaku": ["pin_basami"]}, (5, 5, 5), (1, 7, 1), 7),
    ({"local_yaku": ["pin_basami"]}, (3, 3, 3), (1, 7, 1), 7),
    ({"local_yaku": ["pin_basami"]}, (4, 5), (1, 1, 1), 3),  # an arashi, x3
    # 1-1-1 is an arashi and a pin-basami: against the dealer's 2-2-2 the pin-basami wins x1 (issue #24);
    # v1 took the arashi in isolation and lost x3
    ({"local_yaku": ["pin_basami"]}, (2, 2, 2), (1, 1, 1), 1),
    ({"local_yaku": ["pin_basami"], "yaku_choice": "isolation"}, (2, 2, 2), (1, 1, 1), -3),
    ({"local_yaku": ["pin_basami"]}, (9, 1), (1, 1, 1), 3),  # arashi over the dealer's kuppin
    # same rank, different yaku: compared as plain hands
    ({"local_yaku": ["niichi", "shidou"]}, (2, 1), (4, 10), 1),
    ({"local_yaku": ["shiro", "toichi"]}, (4, 6), (1, 10), 1),
    ({"local_yaku": ["fujin", "raijin"]}, (3, 7, 10), (4, 7, 9), -1),  # 0 vs 0: zero_zero
    ({"local_yaku": ["niichi"]}, (4, 5), (2, 1), 1),
    ({"local_yaku": ["niichi"]}, (2, 1), (4, 5), -1),
    # per-yaku overrides reach settlement
    ({"yaku_overrides": {"arashi": {"multiplier": 4}}}, (4, 5), (5, 5, 5), 4),
    ({"yaku_overrides": {"shippin": {"rank": 45}}}, (9, 1), (4, 1), 1),
    ({"yaku_overrides": {"shippin": {"beats": ["kuppin", "arashi"]}}}, (5, 5, 5), (4, 1), 1),
    ({"yaku_overrides": {"kuppin": {"beats": ["arashi"]}}}, (9, 1), (5, 5, 5), -1),
    ({"yaku_overrides": {"kuppin": {"multiplier": 2}}}, (9, 1), (4, 5), -2),
    # kansai: arashi x3 > dealer kuppin x2 > bettor shippin x2 > plain
    ({"rules": "kansai"}, (9, 1), (5, 5, 5), 3),
    ({"rules": "kansai"}, (9, 1), (4, 1), -2),
    ({"rules": "kansai"}, (4, 5), (4, 1), 2),
    ({"rules": "kansai"}, (1, 9), (4, 5), -2),
    ({"rules": "kansai"}, (4, 1), (3, 3), 1),  # dealer 4-1 is a plain 5
    ({"rules": "kansai"}, (4, 1), (2, 2), -1),
    ({"rules": "kansai"}, (4, 5), (10, 10, 10), 0),  # bettor 10-10-10: push
    ({"rules": "kansai"}, (5, 5, 5), (10, 10, 10), 0),
    ({"rules": "kansai"}, (2, 2, 2), (5, 5, 5), -3),  # two arashi: dealer wins
    ({"rules": "kansai"}, (3, 3, 3), (4, 5), -3),  # no great arashi in kansai
    ({"rules": "kansai", "local_yaku": ["zoro"]}, (2, 8), (10, 10), -1),  # bettor 10-10 plain 0
    ({"rules": "kansai", "local_yaku": ["zoro"]}, (10, 10), (2, 8), -1),  # dealer 10-10 still a zoro
    ({"rules": "kansai", "local_yaku": ["zoro"]}, (4, 5), (9, 9), 1),
    ({"local_yaku": ["zoro"]}, (2, 8), (10, 10), 1),
    (STD, (4, 5), (10, 10, 10), 3),
    # kabufuda_site: dealer strict 4-1 and 9-1 above arashi, no shippin, arashi for bettors only
    ({"rules": "kabufuda_site"}, (4, 1), (5, 5, 5), -1),
    ({"rules": "kabufuda_site"}, (9, 1), (5, 5, 5), -1),
    ({"rules": "kabufuda_site"}, (9, 1, 4), (4, 5), -1),  # strict: a third card does not void it
    ({"rules": "kabufuda_site"}, (1, 9), (3, 3), 1),  # 1 then 9: plain 0
    ({"rules": "kabufuda_site"}, (1, 4), (3, 3), 1),  # 1 then 4: plain 5
    ({"rules": "kabufuda_site"}, (3, 3), (4, 1), -1),  # no shippin: plain 5
    ({"rules": "kabufuda_site"}, (5, 5, 5), (3, 4), 1),  # dealer triple is a plain 5
    ({"rules": "kabufuda_site"}, (4, 5), (5, 5, 5), 3),
    ({"rules": "kabufuda_site"}, (4, 5), (3, 3, 3), 3),  # a 3-3-3 is an ordinary arashi
]


@pytest.mark.parametrize("options, dealer, bettor, expect", SETTLE_CASES)
def test_settle(options, dealer, bettor, expect):
    assert settle(cfg(**options), h(*dealer), h(*bettor)) == expect


def test_sanpachi_beats_every_hand():
    c = cfg(**ALL_LOCAL)
    lights = (LIGHT3, LIGHT8)
    assert settle(c, h(9, 9, 9), lights) == 1  # sanpachi x1 over an arashi
    assert settle(c, (9, 10, 11), lights) == 1  # ... and over 3-3-3 (the other three 3s)
    assert settle(c, lights, h(1, 7, 1)) == -1  # over pin_basami
    assert settle(c, lights, h(9, 1)) == -1


def test_three_tens_void_the_round_only_in_kansai():
    k, s = cfg(rules="kansai"), cfg()
    assert voids_round(k, h(10, 10, 10)) and settle(k, h(10, 10, 10), h(4, 5)) == 0
    assert not voids_round(k, h(10, 10)) and not voids_round(k, h(10, 10, 5))
    assert not voids_round(s, h(10, 10, 10)) and settle(s, h(10, 10, 10), h(4, 5)) == -3
    assert voids_round(cfg(dealer_three_tens="void"), h(10, 10, 10))
    assert settle(cfg(bettor_three_tens="push"), h(9, 9, 9), h(10, 10, 10)) == 0


def test_settle_is_zero_sum_antisymmetric_for_plain_hands():
    """Swapping two plain hands flips the winner (except the dealer's 0-0 and tie privileges)."""
    c = cfg(core_yaku=[])
    for a, b in itertools.combinations(range(1, 10), 2):
        d, p = h(a, 10), h(b, 10)
        assert settle(c, d, p) == -settle(c, p, d) == (1 if b > a else -1)


# ---------------------------------------------------------------- draw options

T, F = True, False
DRAW_CASES = [
    # (options, two-card values, role, (stand_ok, draw_ok, escape_ok))
    (STD, (1, 2), "bettor", (F, T, F)),  # 3: must draw
    (STD, (2, 8), "dealer", (F, T, F)),  # 0: must draw
    (STD, (2, 2), "bettor", (T, T, F)),  # 4: free
    (STD, (3, 3), "dealer", (T, T, F)),  # 6: free
    (STD, (3, 4), "bettor", (T, F, F)),  # 7: stand
    (STD, (4, 5), "dealer", (T, F, F)),  # 9: stand
    (STD, (4, 4), "bettor", (T, T, F)),  # pair 8: may draw for arashi
    (STD, (9, 9), "dealer", (T, T, F)),
    ({"pair_may_draw": False}, (4, 4), "bettor", (T, F, F)),
    ({"pair_may_draw": False}, (9, 9), "dealer", (T, F, F)),
    (STD, (1, 1), "bettor", (F, T, F)),  # pair 2: still must draw
    # the yaku exemption: stand always legal for a two-card yaku a third card would void
    (STD, (9, 1), "dealer", (T, T, F)),  # kuppin
    (STD, (1, 9), "dealer", (T, T, F)),
    (STD, (9, 1), "bettor", (F, T, F)),  # not the bettor's yaku
    ({"kuppin_order": "strict"}, (9, 1), "dealer", (F, T, F)),  # strict kuppin survives a draw
    ({"core_yaku": ["arashi"]}, (9, 1), "dealer", (F, T, F)),
    ({"local_yaku": ["niichi"]}, (1, 2), "bettor", (T, T, F)),
    ({"local_yaku": ["niichi"]}, (2, 1), "dealer", (T, T, F)),
    (
        {"local_yaku": ["niichi"], "yaku_overrides": {"niichi": {"holders": "bettor"}}},
        (2, 1),
        "dealer",
        (F, T, F),
    ),
    ({"local_yaku": ["zoro"]}, (5, 5), "bettor", (T, T, F)),
    (STD, (5, 5), "bettor", (F, T, F)),
    ({"local_yaku": ["zoro"], "zoro_values": (2,)}, (5, 5), "bettor", (F, T, F)),
    ({"local_yaku": ["zoro"], "bettor_ten_pair": "plain"}, (10, 10), "bettor", (F, T, F)),
    ({"local_yaku": ["zoro"], "bettor_ten_pair": "plain"}, (10, 10), "dealer", (T, T, F)),
    ({"local_yaku": ["zoro_tsubushi"]}, (7, 3), "bettor", (T, T, F)),
    ({"local_yaku": ["wake_satsu"]}, (4, 9), "dealer", (T, T, F)),
    ({"local_yaku": ["shiro"]}, (4, 6), "bettor", (T, T, F)),
    ({"local_yaku": ["toichi"]}, (1, 10), "bettor", (T, T, F)),
    ({"local_yaku": ["toichi"], "toichi_order": "strict"}, (1, 10), "bettor", (F, T, F)),
    ({"local_yaku": ["shidou"]}, (4, 10), "bettor", (T, T, F)),  # 4 anyway
    ({"local_yaku": ["doshippin"]}, (10, 10), "bettor", (F, T, F)),  # a 3-card yaku: no exemption
    # free_draw: a permission to draw where the standard rule forbids it (7..9), never a release
    ({"free_draw": True}, (4, 5), "bettor", (T, T, F)),  # 9 may draw
    ({"free_draw": True}, (3, 4), "bettor", (T, T, F)),  # 7 may draw
    ({"free_draw": True}, (3, 5), "bettor", (T, T, F)),  # 8 may draw
    ({"free_draw": True, "pair_may_draw": False}, (9, 9), "bettor", (T, T, F)),  # 9-9: try for arashi
    ({"free_draw": True}, (2, 3), "bettor", (T, T, F)),  # 5: as without it
    ({"free_draw": True}, (1, 2), "bettor", (F, T, F)),  # 3: must still draw
    ({"free_draw": True}, (2, 8), "bettor", (F, T, F)),  # 0: must still draw
    ({"free_draw": True, "local_yaku": ["niichi"]}, (1, 2), "bettor", (T, T, F)),  # the yaku exemption
    ({"free_draw": True}, (4, 5), "dealer", (T, F, F)),  # bettors only: the dealer's 9 stands
    ({"free_draw": True}, (1, 2), "dealer", (F, T, F)),
    ({"free_draw": True, "dealer_draw_rule": "free"}, (4, 5), "dealer", (T, T, F)),
    # shiroku_escape: bettors only
    ({"shiroku_escape": True}, (4, 6), "bettor", (F, T, T)),
    ({"shiroku_escape": True}, (6, 4), "bettor", (F, T, T)),
    ({"shiroku_escape": True}, (4, 6), "dealer", (F, T, F)),
    ({"shiroku_escape": True}, (5, 5), "bettor", (F, T, F)),
    ({"rules": "kansai"}, (4, 6), "bettor", (F, T, T)),  # 0: draw or escape, free_draw adds no STAND
    ({"rules": "kansai"}, (4, 6), "dealer", (T, T, F)),  # the Kansai dealer: dealer_draw_rule="free"
    ({"rules": "kansai", "dealer_draw_rule": "same_as_bettors"}, (4, 6), "dealer", (F, T, F)),
    ({"rules": "kansai", "dealer_draw_rule": "same_as_bettors"}, (4, 5), "dealer", (T, F, F)),
    ({"rules": "kansai", "local_yaku": ["shiro"]}, (4, 6), "bettor", (T, T, T)),
    # dealer_draw_rule
    ({"dealer_draw_rule": "free"}, (1, 2), "dealer", (T, T, F)),
    ({"dealer_draw_rule": "free"}, (4, 5), "dealer", (T, T, F)),
    ({"dealer_draw_rule": "free"}, (1, 2), "bettor", (F, T, F)),
    ({"dealer_draw_rule": "free"}, (4, 5), "bettor", (T, F, F)),
    ({"rules": "kabufuda_site"}, (9, 1), "dealer", (F, T, F)),  # strict 9-1: must still draw
    ({"rules": "kabufuda_site"}, (4, 1), "dealer", (T, T, F)),
]


@pytest.mark.parametrize("options, values, role, expect", DRAW_CASES)
def test_draw_options(options, values, role, expect):
    assert draw_options(cfg(**options), h(*values), role) == expect


@pytest.mark.parametrize(
    "options",
    [STD, {"rules": "kansai"}, {"rules": "kabufuda_site"}, {"pair_may_draw": False}, ALL_LOCAL],
    ids=["standard", "kansai", "kabufuda_site", "no_pair_draw", "all_local"],
)
def test_never_both_stand_and_draw_illegal(options):
    c = cfg(**options)
    for a, b in itertools.product(range(40), repeat=2):
        if a == b:
            continue
        for role in ("dealer", "bettor"):
            stand, draw, _ = draw_options(c, (a, b), role)
            assert stand or draw


def test_rules_do_not_touch_the_global_rng():
    state = np.random.get_state()[1].copy()
    c = cfg(**ALL_LOCAL)
    for a, b, x in itertools.islice(itertools.permutations(range(40), 3), 2000):
        settle(c, (a, b), (b, a, x))
        draw_options(c, (a, b), "bettor")
    assert (np.random.get_state()[1] == state).all()


def test_card_ids_stack_a_deck_by_value():
    from kabu_envs.oicho_kabu import card_ids as exported

    assert exported is card_ids
    assert card_ids(1, 6, 1) == [0, 20, 1]
    assert card_ids(*[10] * 4) == [36, 37, 38, 39]
    with pytest.raises(ValueError, match="fifth"):
        card_ids(*[3] * 5)
    with pytest.raises(ValueError, match="not in 1..10"):
        card_ids(0)
