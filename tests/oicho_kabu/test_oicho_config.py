"""Oicho-Kabu rule configuration: defaults, presets, overrides and validation errors."""

import copy
import dataclasses
import pickle

import numpy as np
import pytest

from kabu_envs.core.errors import RuleConfigError
from kabu_envs.oicho_kabu.config import Config, make_config
from kabu_envs.oicho_kabu.options import OPTIONS

DOCUMENTED_OPTIONS = (
    "rules",
    "num_players",
    "deck",
    "dealer_selection",
    "domae",
    "bet_sizes",
    "bankroll",
    "redeal_on_triple_table",
    "info_cards",
    "minso",
    "minso_limit",
    "dealer_first_card",
    "dealer_card_choice",
    "pair_may_draw",
    "free_draw",
    "shiroku_escape",
    "dealer_second_card_face_up",
    "dealer_draw_rule",
    "zero_zero",
    "tie_rule",
    "arashi_holders",
    "kuppin_order",
    "shippin_order",
    "toichi_order",
    "zoro_values",
    "local_yaku",
    "arashi_vs_arashi",
    "max_rounds",
    "dealer_change",
    "dealer_max_deals",
)


def test_every_documented_option_exists():
    assert set(DOCUMENTED_OPTIONS) <= set(OPTIONS.names)


def test_config_fields_are_the_option_records():
    """The dataclass fields and their defaults agree with ``OPTIONS`` (one declaration, in one order)."""
    init = [f for f in dataclasses.fields(Config) if f.init]
    assert [f.name for f in init] == list(OPTIONS.names)
    assert {f.name: f.default for f in init} == OPTIONS.defaults()
    for o in OPTIONS:
        assert OPTIONS.check(o.name, o.default) == o.default, o.name  # each default is valid and canonical
    assert Config().options == {**OPTIONS.defaults(), "yaku_overrides": {}}


def test_standard_defaults_match_the_docs():
    c = make_config()
    expected = {
        "rules": "standard",
        "num_players": 4,
        "deck": "kabufuda",
        "dealer_selection": "closest_to_nine",
        "dealer_selection_each_deal": False,
        "dealer_change": ("deals", "bust", "doubled", "low_hand"),
        "domae": 50,
        "bet_sizes": (1, 2, 5, 10),
        "bankroll": 100,
        "redeal_on_triple_table": False,
        "info_cards": False,
        "minso": False,
        "minso_limit": 1,
        "dealer_first_card": "before_bets",
        "dealer_card_choice": False,
        "pair_may_draw": True,
        "free_draw": False,
        "shiroku_escape": False,
        "dealer_second_card_face_up": True,
        "dealer_draw_rule": "same_as_bettors",
        "zero_zero": "dealer_wins",
        "tie_rule": "push",
        "arashi_holders": "both",
        "kuppin_order": "any",
        "shippin_order": "any",
        "toichi_order": "any",
        "local_yaku": (),
        "arashi_vs_arashi": "higher_value",
        "max_rounds": 1,
        "dealer_max_deals": 5,
        "zoro_values": tuple(range(1, 11)),
    }
    for name, value in expected.items():
        assert getattr(c, name) == value, name
    assert list(c.yaku) == ["arashi_kabu", "arashi", "kuppin", "shippin"]
    y = c.yaku
    assert (y["arashi_kabu"].rank, y["arashi_kabu"].multiplier) == (60, 5)
    assert (y["arashi"].rank, y["arashi"].multiplier) == (50, 3)
    assert (y["kuppin"].rank, y["kuppin"].holders) == (40, frozenset({"dealer"}))
    assert (y["shippin"].rank, y["shippin"].holders) == (30, frozenset({"bettor", "dealer"}))  # enc.24


def test_local_yaku_defaults():
    from kabu_envs.oicho_kabu.yaku import LOCAL_YAKU

    c = make_config(deck="hanafuda", local_yaku=list(LOCAL_YAKU))
    y = c.yaku
    assert (y["sanpachi_hikari"].rank, y["sanpachi_hikari"].multiplier) == (70, 1)
    assert y["sanpachi_hikari"].beats == frozenset(set(y) - {"sanpachi_hikari"})
    assert (y["pin_basami"].rank, y["pin_basami"].multiplier, y["pin_basami"].holders) == (
        65,
        0,
        frozenset({"bettor"}),
    )
    for n in ("doshippin", "niichi", "shidou", "shiro", "toichi", "fujin", "raijin", "nobori", "kudari"):
        assert (y[n].rank, y[n].multiplier, y[n].holders) == (20, 1, frozenset({"dealer", "bettor"}))
    assert (y["zoro"].rank, y["zoro_tsubushi"].rank, y["wake_satsu"].rank) == (10, 0, 0)
    assert y["zoro_tsubushi"].beats == {"zoro"}
    assert y["wake_satsu"].beats == {"kuppin", "shippin"}


def test_kabufuda_site_preset():
    c = make_config(rules="kabufuda_site")
    assert c.info_cards and c.dealer_card_choice and not c.dealer_second_card_face_up
    assert (c.dealer_first_card, c.dealer_selection, c.arashi_holders) == ("after_bets", "lowest", "bettors")
    assert c.dealer_selection_each_deal  # the kabufuda site: the dealer is determined before each deal
    assert (c.kuppin_order, c.kuppin_four_one) == ("strict", True)
    assert set(c.yaku) == {"arashi", "kuppin"}  # shippin off, no great arashi
    assert c.yaku["kuppin"].rank > c.yaku["arashi"].rank
    assert c.yaku["arashi"].holders == {"bettor"}


def test_kansai_preset():
    c = make_config(rules="kansai")
    assert c.free_draw and c.shiroku_escape and c.minso and c.redeal_on_triple_table
    assert c.dealer_draw_rule == "free" and not c.dealer_selection_each_deal
    assert set(c.yaku) == {"arashi", "kuppin", "shippin"}
    y = c.yaku
    assert y["arashi"].rank > y["kuppin"].rank > y["shippin"].rank
    assert (y["arashi"].multiplier, y["kuppin"].multiplier, y["shippin"].multiplier) == (3, 2, 2)
    assert c.arashi_vs_arashi == "dealer_wins"
    assert (c.bettor_three_tens, c.dealer_three_tens, c.bettor_ten_pair) == ("push", "void", "plain")


def test_preset_plus_override():
    c = make_config(rules="kansai", free_draw=False, arashi_vs_arashi="rank_321", num_players=3)
    assert not c.free_draw and c.minso and c.arashi_vs_arashi == "rank_321" and c.num_players == 3
    assert c.rules == "kansai"


def test_yaku_overrides_merge_with_the_preset_ones():
    c = make_config(rules="kansai", yaku_overrides={"kuppin": {"rank": 45}, "arashi": {"multiplier": 4}})
    assert (c.yaku["kuppin"].rank, c.yaku["kuppin"].multiplier) == (45, 2)  # preset x2 kept
    assert c.yaku["arashi"].multiplier == 4
    assert c.yaku["shippin"].multiplier == 2


def test_yaku_overrides_every_field():
    c = make_config(
        local_yaku=["niichi"],
        yaku_overrides={
            "niichi": {"rank": 55, "multiplier": 2, "holders": ["bettor"], "beats": ["arashi_kabu"]},
            "shippin": {"holders": "both"},
        },
    )
    n = c.yaku["niichi"]
    assert (n.rank, n.multiplier, n.holders, n.beats) == (55, 2, {"bettor"}, {"arashi_kabu"})
    assert c.yaku["shippin"].holders == {"dealer", "bettor"}


def test_arashi_holders_applies_to_both_arashi():
    for holders, expect in (("both", {"dealer", "bettor"}), ("bettors", {"bettor"}), ("dealer", {"dealer"})):
        c = make_config(arashi_holders=holders)
        assert c.yaku["arashi"].holders == expect and c.yaku["arashi_kabu"].holders == expect


def test_core_yaku_can_be_switched_off_and_wake_satsu_beats_is_an_option():
    c = make_config(core_yaku=["kuppin"], local_yaku=["wake_satsu"], wake_satsu_beats=["arashi"])
    assert set(c.yaku) == {"kuppin", "wake_satsu"}
    assert c.yaku["wake_satsu"].beats == {"arashi"}


def test_sanpachi_needs_the_hanafuda_deck():
    with pytest.raises(RuleConfigError, match=r"sanpachi_hikari.*deck='hanafuda'.*'kabufuda'"):
        make_config(local_yaku=["sanpachi_hikari"])
    with pytest.raises(ValueError, match="'western'"):
        make_config(local_yaku=["sanpachi_hikari"], deck="western")
    assert "sanpachi_hikari" in make_config(local_yaku=["sanpachi_hikari"], deck="hanafuda").yaku
    assert make_config(deck="western").deck == "western"
    assert make_config(deck="hanafuda").yaku == make_config().yaku


def test_unknown_option_is_named_and_valid_ones_listed():
    with pytest.raises(RuleConfigError) as e:
        make_config(domea=40)
    msg = str(e.value)
    assert "'domea'" in msg and "domae" in msg and "arashi_vs_arashi" in msg
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize(
    "option, value",
    [
        ("rules", "osaka"),
        ("num_players", 1),
        ("num_players", 9),
        ("num_players", True),
        ("num_players", 4.0),
        ("deck", "tarot"),
        ("dealer_selection", "highest"),
        ("domae", 0),
        ("bet_sizes", ()),
        ("bet_sizes", (5, 2)),
        ("bet_sizes", (0, 1)),
        ("bet_sizes", "125"),
        ("bankroll", -5),
        ("redeal_on_triple_table", 1),
        ("info_cards", "yes"),
        ("minso", None),
        ("minso_limit", 0),
        ("dealer_first_card", "never"),
        ("dealer_card_choice", 0),
        ("pair_may_draw", "no"),
        ("free_draw", 1),
        ("shiroku_escape", 1),
        ("dealer_second_card_face_up", 0),
        ("dealer_draw_rule", "never"),
        ("zero_zero", "bettor_wins"),
        ("tie_rule", "bettor_wins"),
        ("arashi_holders", "nobody"),
        ("kuppin_order", "reverse"),
        ("shippin_order", "reverse"),
        ("toichi_order", "reverse"),
        ("kuppin_four_one", "yes"),
        ("zoro_values", (0, 5)),
        ("zoro_values", (11,)),
        ("zoro_values", ()),
        ("core_yaku", ("zoro",)),
        ("local_yaku", ("kuppin",)),
        ("local_yaku", ("goshiki",)),
        ("local_yaku", ("zoro", "zoro")),
        ("wake_satsu_beats", ("nothing",)),
        ("yaku_overrides", {"goshiki": {"rank": 3}}),
        ("yaku_overrides", {"arashi": {"colour": 3}}),
        ("yaku_overrides", {"arashi": {"rank": -1}}),
        ("yaku_overrides", {"arashi": {"holders": ["banker"]}}),
        ("yaku_overrides", {"arashi": {"beats": ["everyone"]}}),
        ("yaku_overrides", ["arashi"]),
        ("arashi_vs_arashi", "coin_flip"),
        ("bettor_three_tens", "win"),
        ("dealer_three_tens", "push"),
        ("bettor_ten_pair", "arashi"),
        ("max_rounds", 0),
        ("dealer_change", ("bored",)),
        ("dealer_max_deals", 0),
    ],
)
def test_bad_values_name_option_and_value(option, value):
    with pytest.raises(RuleConfigError) as e:
        make_config(**{option: value})
    msg = str(e.value)
    assert repr(option) in msg and ("allowed" in msg or "must" in msg or "expected" in msg or "need" in msg)
    if option != "yaku_overrides":
        assert repr(value) in msg


# Values a careless caller passes by accident: each must be a RuleConfigError (a ValueError) naming the
# option and what is allowed, never a TypeError, an OverflowError or a silent acceptance.
BAD_BY_ACCIDENT = [
    ("rules", ["kansai"]),
    ("rules", {}),
    ("rules", {"kansai": 1}),
    ("rules", ("standard",)),
    ("num_players", np.array([4])),
    ("num_players", np.array(4)),
    ("num_players", [4]),
    ("num_players", np.float64(4.0)),
    ("num_players", np.bool_(True)),
    ("deck", ["kabufuda"]),
    ("domae", 10**400),
    ("domae", 2**31),
    ("bankroll", 10**400),
    ("max_rounds", 10**400),
    ("minso_limit", 10**400),
    ("dealer_max_deals", 10**400),
    ("bet_sizes", {1: {}}),
    ("bet_sizes", {1, 2}),
    ("bet_sizes", (1, 10**400)),
    ("bet_sizes", np.array([[1, 2]])),
    ("zoro_values", {5: 5}),
    ("local_yaku", {"zoro": True}),
    ("local_yaku", {"zoro"}),
    ("dealer_change", {"deals": 1}),
    ("core_yaku", "arashi"),
    ("free_draw", np.array([True])),
    ("yaku_overrides", {"arashi": {"rank": 10**400}}),
    ("yaku_overrides", {"arashi": {"beats": {"kuppin": 1}}}),
]


@pytest.mark.parametrize(
    "option, value", BAD_BY_ACCIDENT, ids=[f"{o}-{i}" for i, (o, _) in enumerate(BAD_BY_ACCIDENT)]
)
def test_values_passed_by_accident_are_a_clear_rule_error(option, value):
    with pytest.raises(RuleConfigError) as e:
        make_config(**{option: value})
    msg = str(e.value)
    assert isinstance(e.value, ValueError)
    assert f"option {option!r}" in msg and ("allowed" in msg or "expected" in msg), msg


@pytest.mark.parametrize(
    "option, value", [("rules", ["kansai"]), ("rules", {}), ("domae", 10**400), ("num_players", np.array(4))]
)
def test_the_env_refuses_them_too(option, value):
    from kabu_envs import oicho_kabu_v1, oicho_kabu_v2

    for module in (oicho_kabu_v2, oicho_kabu_v1):
        with pytest.raises(RuleConfigError, match=repr(option)):
            module.env(**{option: value})


def test_unhashable_preset_name_is_named_with_the_allowed_presets():
    for value in (["kansai"], {}, {"kansai"}):
        with pytest.raises(RuleConfigError) as e:
            make_config(rules=value)
        msg = str(e.value)
        assert "'rules'" in msg and "'standard'" in msg and "'kansai'" in msg and "'kabufuda_site'" in msg


def test_too_large_integers_name_the_cap():
    from kabu_envs.core.options import MAX_INT

    assert make_config(domae=MAX_INT).domae == MAX_INT
    for option in ("domae", "bankroll", "max_rounds"):
        with pytest.raises(RuleConfigError, match=rf"'{option}'.*{MAX_INT}"):
            make_config(**{option: MAX_INT + 1})


def test_numpy_scalars_are_accepted_as_plain_values():
    c = make_config(
        num_players=np.int64(4),
        domae=np.int32(40),
        bet_sizes=np.array([1, 5]),
        minso=np.bool_(True),
        deck=np.str_("western"),
        zoro_values=[np.int8(2), 5],
    )
    assert c == make_config(
        num_players=4, domae=40, bet_sizes=(1, 5), minso=True, deck="western", zoro_values=(2, 5)
    )
    assert type(c.num_players) is int and type(c.domae) is int and type(c.minso) is bool
    assert all(type(x) is int for x in c.bet_sizes + c.zoro_values)


def test_direct_construction_validates_too():
    with pytest.raises(RuleConfigError, match="num_players"):
        Config(num_players=12)


def test_lists_are_normalised_and_equal_configs_hash_equal():
    a = make_config(local_yaku=["zoro", "niichi"], bet_sizes=[1, 3], zoro_values=[5, 2, 5])
    b = make_config(local_yaku=("niichi", "zoro"), bet_sizes=(1, 3), zoro_values=(2, 5))
    assert a == b and hash(a) == hash(b)
    assert a.local_yaku == ("niichi", "zoro") and a.bet_sizes == (1, 3) and a.zoro_values == (2, 5)
    assert make_config(rules="kansai") != make_config()


def test_config_is_immutable_and_survives_copy_and_pickle():
    c = make_config(rules="kansai", local_yaku=["zoro"], yaku_overrides={"zoro": {"rank": 11}})
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.domae = 10  # type: ignore[misc]
    with pytest.raises(TypeError):
        c.yaku["zoro"] = None  # type: ignore[index]
    for d in (copy.deepcopy(c), pickle.loads(pickle.dumps(c))):
        assert d == c and hash(d) == hash(c) and dict(d.yaku) == dict(c.yaku)
    assert make_config(**c.options) == c
