"""Stacked-deck scenarios: deal order, draw masks (forced, pair, yaku exemption, free draw, escape),
the dealer's draw rule, ties and 0-0, payments.

Two players unless stated: player_0 deals, player_1 bets. Deck order (standard): table 0..3, the
dealer's face-down first card, [bets], second cards 0..3, third cards in draw order, dealer's second
card, dealer's third card.
"""

from __future__ import annotations

import pytest
from oicho_game_helpers import KEEP, D, E, S, bet_round, new_game, play, values

from kabu_envs.oicho_kabu.game import Phase


def _bet_all(game, k=1, seat=1):
    bet_round(game, {seat: dict.fromkeys(range(4), k)})


def test_deal_order_follows_the_round_in_the_docs():
    #          table        d1  seconds      thirds dealer2 dealer3
    deck = [1, 2, 3, 4, 5, 2, 1, 1, 1, 6, 7, 8, 9, 10]
    g = new_game(deck)
    assert values(sp[0] for sp in g.spreads) == [1, 2, 3, 4]
    assert values(g.dealer_cards) == [5]
    _bet_all(g)
    assert values(sp[1] for sp in g.spreads) == [2, 1, 1, 1]
    # values 3, 3, 4, 5: each may draw -> draw each, third cards come in spread order
    for s in range(4):
        assert g.phase == Phase.DECIDE and g.active_spread == s and g.current_player == 1
        g.apply_action(D)
    assert [values(sp) for sp in g.spreads] == [[1, 2, 6], [2, 1, 7], [3, 1, 8], [4, 1, 9]]
    assert g.phase == Phase.DEALER_DRAW and values(g.dealer_cards) == [5, 10]
    assert g.legal_actions() == [S, D]  # dealer 5 + 10 = 5


@pytest.mark.parametrize(
    ("second", "legal"),
    [(2, [D]), (1, [D]), (3, [S, D]), (5, [S, D]), (6, [S]), (8, [S])],
)
def test_forced_draw_and_forced_stand_masks(second, legal):
    # spread 0: 1 + second -> value 3, 2 | 4, 6 | 7, 9
    g = new_game([1, 5, 5, 5, 6, second])
    bet_round(g, {1: {0: 1}})
    assert g.phase == Phase.DECIDE and g.active_spread == 0
    assert g.legal_actions() == legal


@pytest.mark.parametrize(("pair_may_draw", "legal"), [(True, [S, D]), (False, [S])])
def test_pair_draw(pair_may_draw, legal):
    g = new_game([4, 5, 5, 5, 6, 4], pair_may_draw=pair_may_draw)  # 4-4 = 8
    bet_round(g, {1: {0: 1}})
    assert g.legal_actions() == legal
    g9 = new_game([9, 5, 5, 5, 6, 9], pair_may_draw=pair_may_draw)  # 9-9 = 8 as well
    bet_round(g9, {1: {0: 1}})
    assert g9.legal_actions() == legal


def test_yaku_exemption_lets_a_forced_hand_stand():
    deck = [2, 5, 5, 5, 6, 1]  # spread 0: 2-1 = 3, forced draw unless niichi is on
    plain = new_game(deck)
    bet_round(plain, {1: {0: 1}})
    assert plain.legal_actions() == [D]
    niichi = new_game(deck, local_yaku=["niichi"])
    bet_round(niichi, {1: {0: 1}})
    assert niichi.legal_actions() == [S, D]


def test_dealer_kuppin_exemption_and_dealer_draw_rule():
    # dealer 9 (face down) + 1 = 0: forced draw for a plain hand, but kuppin may stand
    g = new_game([5, 5, 5, 5, 9, 2, 2, 2, 2, 1])
    bet_round(g, {1: {0: 1}})
    g.apply_action(S)  # spread 0: 7
    assert g.phase == Phase.DEALER_DRAW and g.legal_actions() == [S, D]
    no_kuppin = new_game([5, 5, 5, 5, 9, 2, 2, 2, 2, 1], core_yaku=("arashi",))
    bet_round(no_kuppin, {1: {0: 1}})
    no_kuppin.apply_action(S)
    assert no_kuppin.legal_actions() == [D]


@pytest.mark.parametrize(
    ("d1", "d2", "same", "free"),
    [(1, 2, [D], [S, D]), (4, 4, [S, D], [S, D]), (3, 5, [S], [S, D]), (2, 3, [S, D], [S, D])],
)
def test_dealer_draw_rule(d1, d2, same, free):
    for rule, legal in (("same_as_bettors", same), ("free", free)):
        g = new_game([6, 6, 6, 6, d1, 10, 10, 10, 10, d2], dealer_draw_rule=rule)
        bet_round(g, {1: {0: 1}})
        g.apply_action(S)
        assert g.legal_actions() == legal, rule


@pytest.mark.parametrize("free_draw", [False, True])
def test_free_draw_is_a_permission_for_bettors(free_draw):
    # spread 0: 9-10 (9), spread 1: 1-1 (2), spread 2: 3-5 (8); dealer 4 + 5 = 9
    thirds = [2, 6] if free_draw else [2]
    g = new_game([9, 1, 3, 6, 4, 10, 1, 5, 7, *thirds, 5], free_draw=free_draw)
    bet_round(g, {1: {0: 1, 1: 1, 2: 1}})
    assert g.legal_actions() == ([S, D] if free_draw else [S])  # 9: may draw only with free_draw
    g.apply_action(D if free_draw else S)
    assert g.legal_actions() == [D]  # 2: must draw either way (free_draw releases nothing)
    g.apply_action(D)
    assert g.legal_actions() == ([S, D] if free_draw else [S])  # 8 (not a pair)
    g.apply_action(S)
    assert g.phase == Phase.DEALER_DRAW and values(g.dealer_cards) == [4, 5]
    # the dealer's 9 stands: free_draw is the bettors'
    # (docs/oicho_kabu.md#free-draw-is-the-bettors-permission)
    assert g.legal_actions() == [S]
    g.apply_action(S)
    want = [[9, 10, 2], [1, 1, 6]] if free_draw else [[9, 10], [1, 1, 2]]
    assert [values(sp) for sp in g.spreads[:2]] == want


@pytest.mark.parametrize("free_draw", [False, True])
def test_kansai_free_draw_tries_for_arashi_on_a_nine(free_draw):
    # the encyclopedia text (Osaka): "whatever the second card's total, players may ask for a third card"
    g = new_game([3, 5, 7, 8, 4, 6, 1, 1, 1, 3, 5], rules="kansai", free_draw=free_draw)
    g.apply_action(KEEP)  # minso
    bet_round(g, {1: {0: 1}})  # spread 0: 3-6 = 9
    assert g.legal_actions() == ([S, D] if free_draw else [S])
    if free_draw:
        g.apply_action(D)  # 3-6-3 = 2: the player gambled and lost to the dealer's 4-5 = 9
        g.apply_action(S)
        assert values(g.spreads[0]) == [3, 6, 3] and list(g.pop_rewards()) == [1, -1]


def test_escape_returns_stakes_and_takes_no_card():
    # spread 0: 4-6 (value 0), spread 1: 1-1 -> draws; with ESCAPE the next card (8) goes to spread 1
    deck = [4, 1, 5, 5, 7, 6, 1, 2, 2, 8, 2]
    g = new_game(deck, shiroku_escape=True)
    bet_round(g, {1: {0: 4, 1: 1}})
    assert g.legal_actions() == [D, E]
    g.apply_action(E)
    assert g.active_spread == 1 and g.legal_actions() == [D]
    g.apply_action(D)
    assert values(g.spreads[0]) == [4, 6] and values(g.spreads[1]) == [1, 1, 8]
    g.apply_action(S)  # dealer 7 + 2 = 9
    rewards = g.pop_rewards()
    assert g.results[0] == 0 and g.results[1] == -1
    assert list(rewards) == [1, -1]  # the 10 on the escaped spread came back untouched
    plain = new_game(deck)
    bet_round(plain, {1: {0: 4, 1: 1}})
    assert plain.legal_actions() == [D]  # no ESCAPE without the option


def test_escape_is_never_offered_to_the_dealer():
    g = new_game([5, 5, 5, 5, 4, 2, 2, 2, 2, 6], shiroku_escape=True)
    bet_round(g, {1: {0: 1}})
    g.apply_action(S)
    assert g.legal_actions() == [D]


@pytest.mark.parametrize(("tie_rule", "reward"), [("push", 0), ("dealer_wins", -2)])
def test_ties(tie_rule, reward):
    g = new_game([2, 5, 5, 5, 3, 3, 1, 1, 1, 2], tie_rule=tie_rule)  # 2+3 = 5 vs dealer 3+2 = 5
    bet_round(g, {1: {0: 2}})
    g.apply_action(S)
    g.apply_action(S)
    assert list(g.pop_rewards()) == [-reward, reward]


@pytest.mark.parametrize(("zero_zero", "reward"), [("dealer_wins", -5), ("tie", 0)])
def test_zero_zero(zero_zero, reward):
    # spread 0: 5+5 = 0 draws 10 -> 0; dealer 4+6 = 0 draws 10 -> 0
    g = new_game([5, 6, 6, 6, 4, 5, 1, 1, 1, 10, 6, 10], zero_zero=zero_zero)
    bet_round(g, {1: {0: 3}})
    play(g, [D, D])
    assert values(g.dealer_cards) == [4, 6, 10]
    assert list(g.pop_rewards()) == [-reward, reward]


def test_plain_payments_and_unbacked_spreads():
    # spreads: 9 (1+8), 5 (2+3), 7 unbacked; dealer 6 (2+4)
    g = new_game([1, 2, 3, 4, 2, 8, 3, 4, 4, 4], num_players=3)
    bet_round(g, {1: {0: 3, 1: 2}, 2: {1: 4}})
    assert g.decider[1] == 1  # first backer in betting order
    play(g, [S, S])  # spread 0 stands on 9, spread 1 on 5 (decided by player_1)
    g.apply_action(S)
    assert g.results == [1, -1, None, None]
    # player_1: +5 on spread 0, -2 on spread 1; player_2: -10 on spread 1
    assert list(g.pop_rewards()) == [7, 3, -10]
    assert g.chips == [107, 103, 90]


def test_arashi_pays_three_times():
    g = new_game([5, 7, 7, 7, 3, 5, 1, 1, 1, 5, 4])
    bet_round(g, {1: {0: 3}})  # stake 5
    g.apply_action(D)  # 5-5 = 0 must draw: 5 -> arashi
    g.apply_action(S)  # dealer 3+4 = 7
    assert list(g.pop_rewards()) == [-15, 15]


def test_no_fourth_card_and_no_stakes_round():
    g = new_game([1, 2, 5, 5, 6, 1, 3, 3, 3, 1, 2])
    bet_round(g, {1: {0: 1}})
    g.apply_action(D)
    assert len(g.spreads[0]) == 3 and g.phase == Phase.DEALER_DRAW
    empty = new_game()
    bet_round(empty, {})
    assert empty.terminal and list(empty.pop_rewards()) == [0, 0]
    assert all(len(sp) == 1 for sp in empty.spreads)
