"""The yaku are declared once, one ``Yaku`` record each (``kabu_envs.oicho_kabu.yaku.YAKU``)."""

import dataclasses
import itertools

import pytest

from kabu_envs.oicho_kabu import docs, make_config
from kabu_envs.oicho_kabu.config import Config
from kabu_envs.oicho_kabu.deck import card_ids
from kabu_envs.oicho_kabu.rules import best_yaku
from kabu_envs.oicho_kabu.yaku import (
    CORE_YAKU,
    LOCAL_YAKU,
    YAKU,
    YAKU_BY_NAME,
    YAKU_NAMES,
    Yaku,
    qualifying,
    voided_by_third,
)

ALL = make_config(deck="hanafuda", local_yaku=list(LOCAL_YAKU))


def test_one_record_per_yaku_in_table_order():
    assert tuple(y.name for y in YAKU) == YAKU_NAMES and len(set(YAKU_NAMES)) == len(YAKU)
    assert (
        CORE_YAKU == tuple(y.name for y in YAKU if y.core) == ("arashi_kabu", "arashi", "kuppin", "shippin")
    )
    assert tuple(y.name for y in YAKU if not y.core) == LOCAL_YAKU
    assert list(ALL.yaku) == list(YAKU_NAMES)  # the resolved table keeps the records' order


def test_every_record_is_complete():
    options = {f.name for f in dataclasses.fields(Config)}
    for y in YAKU:
        assert callable(y.matcher) and y.condition and y.holders and y.holders <= {"dealer", "bettor"}
        assert y.rank >= 0 and y.multiplier >= 0 and y.beats <= set(YAKU_NAMES) - {y.name}
        if not isinstance(y.two_card_only, bool):
            assert y.two_card_only in options  # an order option: "any" voids, "strict" keeps
            assert voided_by_third(make_config(**{y.two_card_only: "any"}), y.name)
            assert not voided_by_third(make_config(**{y.two_card_only: "strict"}), y.name)
        assert y.deck in ("", "hanafuda")


def test_the_config_holds_the_records_with_options_applied():
    for name, y in ALL.yaku.items():
        assert isinstance(y, Yaku) and y.matcher is YAKU_BY_NAME[name].matcher
        assert y.condition == YAKU_BY_NAME[name].condition
    c = make_config(arashi_holders="dealer", local_yaku=["wake_satsu"], wake_satsu_beats=["arashi"])
    assert c.yaku["arashi"].holders == {"dealer"} and c.yaku["wake_satsu"].beats == {"arashi"}
    assert make_config().yaku["kuppin"] == YAKU_BY_NAME["kuppin"]


def test_a_two_card_only_yaku_never_survives_a_third_card():
    voided = {name for name in ALL.yaku if voided_by_third(ALL, name)}
    assert voided == {
        "kuppin",
        "shippin",
        "niichi",
        "shidou",
        "shiro",
        "toichi",
        "zoro",
        "zoro_tsubushi",
        "wake_satsu",
    }
    for values in itertools.product(range(1, 11), repeat=3):
        cards = tuple(card_ids(*values))
        for role in ("dealer", "bettor"):
            assert not voided & set(qualifying(ALL, cards, role)), values


def test_a_record_that_needs_a_deck_is_refused_with_another():
    needs = [y for y in YAKU if y.deck]
    assert [y.name for y in needs] == ["sanpachi_hikari"]
    with pytest.raises(ValueError, match=r"sanpachi_hikari.*requires deck='hanafuda'"):
        make_config(local_yaku=["sanpachi_hikari"], deck="western")


def test_equal_ranks_go_to_the_first_in_table_order():
    # 1-2-3 in dealt order is both ichi_ni_san and nobori (rank 20): ichi_ni_san comes first
    c = make_config(local_yaku=["nobori", "ichi_ni_san"])
    assert best_yaku(c, tuple(card_ids(1, 2, 3)), "bettor") == "ichi_ni_san"
    assert YAKU_NAMES.index("ichi_ni_san") < YAKU_NAMES.index("nobori")


def test_the_docs_print_one_row_per_record():
    table = docs.yaku_records_table()
    rows = table.splitlines()[2:]
    assert [r.split("|")[1].strip(" `") for r in rows] == list(YAKU_NAMES)
    for y in YAKU:
        assert y.condition in table
