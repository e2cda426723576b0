"""Stacked-deck scenarios for settlement through the game: arashi-vs-arashi options, Kansai three tens
and ten pair, pin-basami, kuppin in the presets, sanpachi-hikari with the hanafuda deck."""

from __future__ import annotations

import pytest
from oicho_game_helpers import KEEP, TOP, D, S, bet_round, new_game, stack

from kabu_envs.core.rng import make_rng
from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.game import Game, Phase


def _bettor_reward(game) -> float:
    r = game.pop_rewards()
    assert r.sum() == 0
    return float(r[1])


# bettor 4-4-4 vs dealer 2-2-2; bettor 9-9-9 vs dealer 10-10-10 (stake 1)
ARASHI_LOW = [4, 7, 7, 7, 2, 4, 1, 1, 1, 4, 2, 2]
ARASHI_HIGH = [9, 7, 7, 7, 10, 9, 1, 1, 1, 9, 10, 10]


@pytest.mark.parametrize(
    ("rule", "low", "high"),
    [
        ("dealer_wins", -3, -3),
        ("bettor_wins", 3, 3),
        ("push", 0, 0),
        ("higher_value", -3, 3),  # hand values 2 vs 6, 7 vs 0
        ("rank_321", -3, -3),  # 2 > 4, 10 > 9
        ("second_card", 3, 3),  # pair values 8 vs 4, 8 vs 0
        ("higher_card", 3, -3),  # face values 4 > 2, 9 < 10
    ],
)
def test_arashi_vs_arashi(rule, low, high):
    for deck, expect in ((ARASHI_LOW, low), (ARASHI_HIGH, high)):
        g = new_game(deck, arashi_vs_arashi=rule)
        bet_round(g, {1: {0: 1}})
        g.apply_action(D)  # the pair draws the third card
        g.apply_action(D)  # the dealer's pair (4 or 0) draws its third
        assert len(g.dealer_cards) == 3 and len(g.spreads[0]) == 3
        assert _bettor_reward(g) == expect, (rule, deck)


def _kansai(deck, **opts) -> Game:
    g = new_game(deck, rules="kansai", **opts)
    assert g.phase == Phase.MINSO
    g.apply_action(KEEP)
    return g


def test_kansai_bettor_three_tens_push():
    deck = [10, 7, 7, 8, 5, 10, 1, 1, 1, 10, 4]  # spread 0 draws to 10-10-10, dealer 5+4 = 9
    g = _kansai(deck)
    bet_round(g, {1: {0: 1}})
    g.apply_action(D)
    g.apply_action(S)
    assert _bettor_reward(g) == 0
    std = new_game(deck)  # standard: an arashi, x3
    bet_round(std, {1: {0: 1}})
    std.apply_action(D)
    std.apply_action(S)
    assert _bettor_reward(std) == 3


def test_kansai_dealer_three_tens_voids_the_round():
    deck = [9, 7, 7, 8, 10, 9, 1, 2, 1, 10, 10]  # bettors 8 and 9; dealer 10-10 draws 10
    g = _kansai(deck, num_players=3)
    bet_round(g, {1: {0: 3}, 2: {1: 2}})
    g.apply_action(S)
    g.apply_action(S)
    g.apply_action(D)
    assert g.voided and list(g.pop_rewards()) == [0, 0, 0]
    std = new_game(deck, num_players=3)
    bet_round(std, {1: {0: 3}, 2: {1: 2}})
    for a in (S, S, D):
        std.apply_action(a)
    assert not std.voided and list(std.pop_rewards()) == [15 + 6, -15, -6]  # dealer arashi x3


def test_kansai_bettor_ten_pair_is_plain_zero_even_with_zoro():
    deck = [10, 7, 7, 8, 5, 10, 1, 1, 1, 2]  # spread 10-10; dealer 5+2 = 7
    # kansai: a plain 0, so no yaku exemption: it must draw (free_draw never releases a <= 3)
    g = _kansai([*deck[:9], 5, 2], local_yaku=["zoro"])
    bet_round(g, {1: {0: 1}})
    assert g.legal_actions() == [D]
    g.apply_action(D)  # 10-10-5 = 5
    g.apply_action(S)
    assert _bettor_reward(g) == -1
    std = new_game(deck, local_yaku=["zoro"])  # standard: 10-10 is a zoro, beats a plain 7
    bet_round(std, {1: {0: 1}})
    std.apply_action(S)
    std.apply_action(S)
    assert _bettor_reward(std) == 1


@pytest.mark.parametrize(("local", "expect"), [(["pin_basami"], 10), ([], -2)])
def test_pin_basami_pays_the_middle_card(local, expect):
    deck = [1, 7, 7, 7, 2, 5, 8, 8, 8, 1, 7]  # spread 1-5 draws 1; dealer 2+7 = 9
    g = new_game(deck, local_yaku=local)
    bet_round(g, {1: {0: 2}})  # stake 2
    g.apply_action(D)
    g.apply_action(S)
    assert _bettor_reward(g) == expect


def _one_one_one(rules: str, pin_basami: bool, dealer: tuple[int, ...]) -> float:
    """Spread 0: 1-1 (a 2, must draw) draws a 1; the dealer holds ``dealer`` (a third card if it draws)."""
    d1, d2, *d3 = dealer
    table = [1, 7, 7, 8]
    if rules == "kabufuda_site":
        # selection (player_0 draws the lowest and deals), info card, table, [bets], dealer's first,
        # seconds, third, dealer's second
        deck = [3, 5, 6, *table, d1, 1, 8, 8, 9, 1, d2, *d3]
    else:  # table, dealer's first, [bets], seconds, third, dealer's second
        deck = [*table, d1, 1, 8, 8, 9, 1, d2, *d3]
    g = new_game(deck, rules=rules, local_yaku=["pin_basami"] if pin_basami else [])
    assert g.dealer == 0
    if g.phase == Phase.MINSO:
        g.apply_action(KEEP)
    bet_round(g, {1: {0: 2 if rules == "kabufuda_site" else 3}})  # a stake of 5 (the site's sizes 1, 5, ...)
    while not g.terminal:
        if g.phase == Phase.DEALER_CHOICE:
            g.apply_action(TOP)
        elif g.phase == Phase.DECIDE:
            g.apply_action(D)  # the 1-1 must draw
        else:
            g.apply_action(D if d3 else S)
    assert [c // 4 + 1 for c in g.spreads[0]] == [1, 1, 1]
    assert [c // 4 + 1 for c in g.dealer_cards] == list(dealer)
    return _bettor_reward(g)


@pytest.mark.parametrize("pin_basami", [False, True])
@pytest.mark.parametrize("rules", ["standard", "kansai", "kabufuda_site"])
def test_one_one_one_is_an_arashi_with_or_without_pin_basami(rules, pin_basami):
    """The encyclopedia text: three of a kind pays x3, and pin-basami makes "the dealer lose
    unconditionally". 1-1-1 is both: at the showdown it takes the one best for its holder against the
    actual opposing hand (docs/oicho_kabu.md#several-yaku-on-one-hand; issue #24)."""
    assert _one_one_one(rules, pin_basami, (2, 5)) == 15  # the arashi x3 against a plain 7
    # against the dealer's 2-2-2 (an arashi; higher_value: 3 < 6; kansai: dealer_wins) the arashi loses
    # x3, the pin-basami wins x1; under kabufuda_site only bettors hold arashi, so 2-2-2 is a plain 6
    # and 1-1-1 wins x3
    want = 15 if rules == "kabufuda_site" else 5 if pin_basami else -15
    assert _one_one_one(rules, pin_basami, (2, 2, 2)) == want


@pytest.mark.parametrize("pin_basami", [False, True])
def test_pin_basami_still_pays_its_middle_card_when_nothing_else_fits(pin_basami):
    # with arashi_holders="dealer" a bettor's 1-1-1 is not an arashi: a pin-basami x1, or a plain 3
    g = new_game(
        [1, 7, 7, 8, 2, 1, 8, 8, 9, 1, 5],
        arashi_holders="dealer",
        local_yaku=["pin_basami"] if pin_basami else [],
    )
    bet_round(g, {1: {0: 3}})
    g.apply_action(D)
    g.apply_action(S)  # dealer 2+5 = 7
    assert _bettor_reward(g) == (5 if pin_basami else -5)


@pytest.mark.parametrize(("rules", "expect"), [("standard", -2), ("kansai", -4)])
def test_dealer_kuppin(rules, expect):
    deck = [9, 6, 6, 7, 9, 10, 1, 1, 1, 1]  # bettor 9; dealer 9-1
    g = new_game(deck, rules=rules)
    if rules == "kansai":
        g.apply_action(KEEP)
    bet_round(g, {1: {0: 2}})
    g.apply_action(S)
    g.apply_action(S)
    assert _bettor_reward(g) == expect


@pytest.mark.parametrize(
    ("first", "second", "legal", "expect"), [(4, 1, [S, D], -1), (9, 1, [D], -1), (1, 4, [S, D], 1)]
)
def test_kabufuda_site_strict_dealer_kuppin(first, second, legal, expect):
    # selection draws (1 for seat 0, 5 for seat 1 -> seat 0 deals), seat 1's info card, table,
    # then after the bets the dealer takes its first card (TAKE_TOP), seconds, decide, second card.
    deck = [1, 5, 6, 9, 6, 6, 6, first, 10, 2, 2, 2, second, 3]
    g = new_game(deck, rules="kabufuda_site")
    assert g.dealer == 0 and g.info_cards[1] >= 0
    bet_round(g, {1: {0: 1}})
    g.apply_action(TOP)
    g.apply_action(S)  # spread 0: 9
    g.apply_action(TOP)
    # a strict 9-1 (value 0) must still draw: a third card does not void a strict kuppin
    assert g.phase == Phase.DEALER_DRAW and g.legal_actions() == legal
    g.apply_action(legal[0])
    assert _bettor_reward(g) == expect


def test_kabufuda_site_arashi_is_for_bettors_only():
    # standard: dealer 2-2-2 arashi beats the bettor's 7; kabufuda_site: a plain 6 loses to 7
    std = new_game([3, 6, 6, 6, 2, 4, 1, 1, 1, 2, 2])
    bet_round(std, {1: {0: 1}})
    std.apply_action(S)
    std.apply_action(D)
    assert _bettor_reward(std) == -3
    site = new_game([1, 5, 6, 3, 6, 6, 6, 2, 4, 1, 1, 1, 2, 2], rules="kabufuda_site")
    bet_round(site, {1: {0: 1}})
    for a in (TOP, S, TOP, D):
        site.apply_action(a)
    assert _bettor_reward(site) == 1


@pytest.mark.parametrize(("local", "expect"), [(["sanpachi_hikari"], 1), ([], -1)])
def test_sanpachi_hikari_beats_kuppin(local, expect):
    o = stack([7, 7, 7, 9, 1, 1, 1, 10, 1])
    # spread 0: March light (id 8) and August light (id 28); dealer 9-1 kuppin
    deck = [8, o[0], o[1], o[2], o[3], 28, o[4], o[5], o[6], o[7], o[8]]
    g = Game(
        make_config(num_players=2, deck="hanafuda", local_yaku=local, dealer_selection="fixed"),
        make_rng(0),
        deck,
    )
    bet_round(g, {1: {0: 1}})
    g.apply_action(D)  # 3 + 8 = 1: must draw; the lights were the first two cards
    g.apply_action(S)
    assert _bettor_reward(g) == expect


def test_bet_sizes_set_the_stakes():
    g = new_game([9, 7, 7, 7, 2, 10, 1, 1, 1, 6], bet_sizes=(3, 7))  # bettor 9 beats dealer 8
    assert g.legal_actions() == [8, 9, 10]
    bet_round(g, {1: {0: 2}})  # BET(2) = 7
    assert g.stakes[0][1] == 7
    g.apply_action(S)
    g.apply_action(S)
    assert _bettor_reward(g) == 7


@pytest.mark.parametrize(("holders", "expect"), [("both", -3), ("dealer", -3), ("bettors", 1)])
def test_arashi_holders_for_the_dealer(holders, expect):
    deck = [3, 6, 6, 6, 2, 4, 1, 1, 1, 2, 2]  # bettor 7; dealer 2-2 draws 2 (arashi or a plain 6)
    g = new_game(deck, arashi_holders=holders)
    bet_round(g, {1: {0: 1}})
    g.apply_action(S)
    g.apply_action(D)
    assert _bettor_reward(g) == expect


@pytest.mark.parametrize(("holders", "expect"), [("both", 3), ("bettors", 3), ("dealer", -1)])
def test_arashi_holders_for_the_bettor(holders, expect):
    deck = [5, 7, 7, 7, 3, 5, 1, 1, 1, 5, 4]  # bettor 5-5 draws 5 (arashi or a plain 5); dealer 7
    g = new_game(deck, arashi_holders=holders)
    bet_round(g, {1: {0: 1}})
    g.apply_action(D)
    g.apply_action(S)
    assert _bettor_reward(g) == expect
