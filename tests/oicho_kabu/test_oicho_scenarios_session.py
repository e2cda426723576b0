"""Stacked-deck scenarios for sessions: every dealer_change condition, dealer selection (once, or before
every deal with the seat order of the selection cards), bet masks by domae and chips, seats without
chips, early episode end, the stacked prefix across rounds."""

from __future__ import annotations

import pytest
from oicho_game_helpers import B, D, S, bet_round, new_game, values

from kabu_envs.oicho_kabu import events
from kabu_envs.oicho_kabu.game import Phase


def _finish_round(game, actions=()):
    """Play the given decisions, then the first legal action until the round (index) changes."""
    start = game.round_index
    for a in actions:
        game.apply_action(a)
    while not game.terminal and game.round_index == start:
        game.apply_action(game.legal_actions()[0])


# --- dealer_change ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("max_deals", "dealers"), [(1, [0, 1, 0, 1]), (2, [0, 0, 1, 1]), (3, [0, 0, 0, 1])])
def test_dealer_change_after_deals(max_deals, dealers):
    g = new_game(max_rounds=4, dealer_change=("deals",), dealer_max_deals=max_deals)
    seen = []
    while not g.terminal:
        seen.append(g.dealer)
        bet_round(g, {g.betting_order[0]: {0: 1}})
        _finish_round(g)
    assert seen == dealers


# bettor stakes 10 on spread 0: 5-5 draws 5 (arashi x3: dealer -30); dealer 3+4 = 7
BUST_DECK = [5, 7, 7, 7, 3, 5, 1, 1, 1, 5, 4]


@pytest.mark.parametrize(("conditions", "next_dealer"), [(("bust",), 1), (("deals",), 0)])
def test_dealer_change_when_bust(conditions, next_dealer):
    g = new_game(BUST_DECK, num_players=3, bankroll=10, max_rounds=2, dealer_change=conditions)
    bet_round(g, {1: {0: 4}})
    _finish_round(g, [D, S])
    assert g.chips == [-20, 40, 10]
    assert not g.terminal and g.dealer == next_dealer


@pytest.mark.parametrize(("k", "changed"), [(4, True), (3, False)])
def test_dealer_change_when_doubled(k, changed):
    # bettor 2+2 = 4 stands, dealer 5+4 = 9: the dealer wins the stake (10 = domae, or 5)
    g = new_game([2, 7, 7, 7, 5, 2, 1, 1, 1, 4], domae=10, max_rounds=2, dealer_change=("doubled",))
    bet_round(g, {1: {0: k}})
    _finish_round(g, [S, S])
    assert g.dealer == (1 if changed else 0)


@pytest.mark.parametrize(("d2", "changed"), [(3, True), (4, False)])
def test_dealer_change_on_low_hand(d2, changed):
    g = new_game([9, 7, 7, 7, 2, 10, 1, 1, 1, d2], max_rounds=2, dealer_change=("low_hand",))
    bet_round(g, {1: {0: 1}})
    _finish_round(g, [S, S])  # dealer 2+3 = 5 (low) or 2+4 = 6
    assert g.dealer == (1 if changed else 0)


@pytest.mark.parametrize(("second", "changed"), [(7, True), (5, False)])
def test_dealer_change_when_lost_all(second, changed):
    # spreads 1+8 = 9 and 2+second (9 or 7) against the dealer's 4+4 = 8
    g = new_game([1, 2, 7, 7, 4, 8, second, 1, 1, 4], max_rounds=2, dealer_change=("lost_all",))
    bet_round(g, {1: {0: 1, 1: 1}})
    _finish_round(g, [S, S, S])
    assert g.dealer == (1 if changed else 0)


def test_no_change_condition_keeps_the_dealer():
    g = new_game(BUST_DECK, max_rounds=3, dealer_change=("doubled",))
    bet_round(g, {1: {0: 1}})
    _finish_round(g, [D, S])
    assert g.dealer == 0 and g.round_index == 1


# --- seats without chips ---------------------------------------------------------------------------
def test_seat_without_chips_sits_out_and_the_deal_skips_it():
    # player_1 stakes all its 10 on spread 0 (1+6 = 7) and loses to the dealer's 9
    g = new_game(
        [1, 7, 7, 7, 4, 6, 2, 2, 2, 5],
        num_players=3,
        bankroll=10,
        max_rounds=2,
        dealer_change=("deals",),
        dealer_max_deals=1,
        info_cards=False,
    )
    bet_round(g, {1: {0: 4}})
    _finish_round(g, [S, S])
    assert g.chips == [20, 0, 10]
    assert g.dealer == 2  # the deal passes from 0 to 2, skipping the broke player_1
    assert g.betting_order == [0]
    while g.phase == Phase.BET:
        assert g.current_player == 0
        g.apply_action(B(0))


def test_episode_ends_when_fewer_than_two_seats_have_chips():
    g = new_game([1, 7, 7, 7, 4, 6, 2, 2, 2, 5], bankroll=10, max_rounds=5)
    bet_round(g, {1: {0: 4}})
    _finish_round(g, [S, S])
    assert g.terminal and g.round_index == 1 and g.chips == [20, 0]
    assert g.current_player == -1 and g.legal_actions() == []


# --- bet masks -------------------------------------------------------------------------------------
def test_bet_mask_respects_domae():
    g = new_game(domae=12)
    assert g.legal_actions() == [B(0), B(1), B(2), B(3), B(4)]
    g.apply_action(B(4))  # 10 on spread 0
    assert g.legal_actions() == [B(0), B(1), B(2)]
    g.apply_action(B(2))
    assert g.legal_actions() == [B(0)]


def test_bet_mask_respects_own_chips():
    g = new_game(bankroll=6, num_players=3)
    assert g.legal_actions() == [B(0), B(1), B(2), B(3)]
    g.apply_action(B(3))  # 5
    assert g.legal_actions() == [B(0), B(1)]
    g.apply_action(B(1))
    assert g.legal_actions() == [B(0)]
    g.apply_action(B(0))
    g.apply_action(B(0))
    assert g.current_player == 2 and g.legal_actions() == [B(0), B(1), B(2), B(3)]  # its own 6 chips


def test_each_bettor_is_asked_once_per_spread_in_betting_order():
    g = new_game(num_players=4)
    asked = []
    while g.phase == Phase.BET:
        asked.append((g.current_player, g.active_spread))
        g.apply_action(B(1))
    assert asked == [(seat, s) for seat in (1, 2, 3) for s in range(4)]
    assert g.decider == [1, 1, 1, 1]


# --- dealer selection ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("selection", "draws", "dealer"),
    [
        ("closest_to_nine", [5, 9, 7], 1),
        ("closest_to_nine", [9, 9, 3, 2, 8], 1),  # tie: seats 0 and 1 draw again
        ("closest_to_nine", [10, 1, 2], 2),  # a 10 counts 0
        ("lowest", [5, 2, 7], 1),
        ("lowest", [2, 2, 7, 6, 3], 1),
        ("lowest", [10, 1, 1, 4, 4, 9, 2], 2),  # two ties in a row
    ],
)
def test_dealer_selection(selection, draws, dealer):
    g = new_game(draws + [6, 6, 6, 10, 8], num_players=3, dealer_selection=selection)
    assert g.dealer == dealer
    sel = [ev for ev in g.log if isinstance(ev, events.Select)]
    assert len(sel) == 1 and [values([c])[0] for _, c in sel[0].draws] == draws and sel[0].dealer == dealer
    # the selection cards went back; the table comes from the rest of the stacked deck
    assert values(sp[0] for sp in g.spreads) == [6, 6, 6, 10] and values(g.dealer_cards) == [8]
    assert g.current_player == (dealer + 1) % 3 and g.betting_order[0] == (dealer + 1) % 3
    assert len(set(g.cards_in_play())) == 5 and len(g.deck) == 35


def test_fixed_selection_draws_nothing():
    g = new_game([6, 6, 6, 10, 8], num_players=3)
    assert g.dealer == 0 and not [ev for ev in g.log if isinstance(ev, events.Select)]
    assert values(sp[0] for sp in g.spreads) == [6, 6, 6, 10]


# --- the stacked prefix carries into the next round ------------------------------------------------
def test_stacked_prefix_continues_into_round_two_and_chips_carry_over():
    r1 = [9, 7, 7, 7, 2, 10, 1, 1, 1, 6]  # bettor 9 beats dealer 8: +2
    r2 = [3, 4, 5, 6, 8]
    g = new_game(r1 + r2, max_rounds=2)
    bet_round(g, {1: {0: 2}})
    _finish_round(g, [S, S])
    assert g.round_index == 1 and g.chips == [98, 102]
    assert values(sp[0] for sp in g.spreads) == [3, 4, 5, 6] and values(g.dealer_cards) == [8]
    assert len(set(g.cards_in_play())) == 5 and len(g.deck) == 35


# --- dealer_selection_each_deal (the kabufuda site: "before each deal the dealer is determined") ------------
def _deal_values(g):
    return values(sp[0] for sp in g.spreads), values(g.dealer_cards)


@pytest.mark.parametrize("each_deal", [False, True])
def test_selection_before_every_deal_chooses_the_dealer_and_the_seat_order(each_deal):
    # round 1: selection 5, 2, 7 -> player_1 deals (lowest); table 6 6 6 10, dealer 8, seconds 1 2 3 4
    # (spread 0: 6+1 = 7 stands), dealer's second 10 (8 stands); round 2 (each deal): selection 9, 3, 1
    round1 = [5, 2, 7, 6, 6, 6, 10, 8, 1, 2, 3, 4, 10]
    round2 = ([9, 3, 1] if each_deal else []) + [2, 3, 4, 5, 7]
    g = new_game(
        round1 + round2,
        num_players=3,
        max_rounds=2,
        dealer_selection="lowest",
        dealer_selection_each_deal=each_deal,
    )
    assert g.dealer == 1
    # each deal: the others bet and decide by their cards (5 sits at the dealer's right, then 7);
    # otherwise in seat order from the dealer on
    assert g.betting_order == ([0, 2] if each_deal else [2, 0])
    assert values(c for c in g.selection_cards if c >= 0) == [5, 2, 7]
    bet_round(g, {0: {0: 1}, 2: {0: 1}})
    assert g.decider[0] == (0 if each_deal else 2)  # the first backer in betting order decides
    assert g.phase == Phase.DECIDE and g.current_player == g.decider[0]
    _finish_round(g)
    assert g.round_index == 1 and _deal_values(g) == ([2, 3, 4, 5], [7])  # the stacked prefix goes on
    if each_deal:  # a new selection: player_2 drew the 1 and deals, then 3 (player_1) before 9
        assert g.dealer == 2 and g.betting_order == [1, 0] and g.current_player == 1
        assert values(g.selection_cards) == [9, 3, 1]
        assert [type(ev) for ev in g.log[:2]] == [events.Select, events.Round]
    else:  # selection once per episode: the dealer stays (dealer_change "deals" after 5 deals)
        assert g.dealer == 1 and g.betting_order == [2, 0] and g.selection_cards == [-1, -1, -1]
        assert [type(ev) for ev in g.log[:1]] == [events.Round]
    assert len(set(g.cards_in_play())) == 5 and len(g.deck) == 35


def test_selection_ties_redraw_and_equal_cards_keep_seat_order():
    # 4 players: 3, 8, 3, 8 -> players 0 and 2 redraw: 6, 4 -> player_2 deals; the others by their
    # first card: player_0 (3), then the 8s in seat order from the dealer on: player_3, player_1
    g = new_game(
        [3, 8, 3, 8, 6, 4, 5, 5, 5, 10, 9],
        num_players=4,
        dealer_selection="lowest",
        dealer_selection_each_deal=True,
    )
    assert g.dealer == 2 and g.betting_order == [0, 3, 1]
    assert values(g.selection_cards) == [3, 8, 3, 8]  # a redraw only breaks the tie for the deal
    assert _deal_values(g) == ([5, 5, 5, 10], [9])
    cn = new_game(
        [3, 8, 1, 10, 6, 6, 6, 5, 4],
        num_players=4,
        dealer_selection="closest_to_nine",
        dealer_selection_each_deal=True,
    )  # closest to 9: the 8 deals; the others by closeness to 9: 3, 1, then 10 (a 0)
    assert cn.dealer == 1 and cn.betting_order == [0, 2, 3]


def test_selection_each_deal_seats_without_chips_draw_nothing():
    # round 1: selection 2, 5, 7 -> player_0 deals; player_1 stakes all its 10 on 1+6 = 7, loses to 4+5
    deck = [2, 5, 7, 1, 7, 7, 7, 4, 6, 2, 2, 2, 5] + [8, 3, 9, 9, 9, 10, 6]
    g = new_game(
        deck,
        num_players=3,
        bankroll=10,
        max_rounds=2,
        dealer_selection="lowest",
        dealer_selection_each_deal=True,
    )
    assert g.dealer == 0 and g.betting_order == [1, 2]
    bet_round(g, {1: {0: 4}})
    _finish_round(g, [S, S])
    assert g.chips == [20, 0, 10]
    # round 2: only players 0 and 2 draw (8, 3): player_2 deals, player_0 bets
    assert g.dealer == 2 and g.betting_order == [0]
    assert [values([c])[0] if c >= 0 else None for c in g.selection_cards] == [8, None, 3]
    assert _deal_values(g) == ([9, 9, 9, 10], [6])


@pytest.mark.parametrize("each_deal", [False, True])
def test_selection_each_deal_takes_precedence_over_dealer_change(each_deal):
    # the same seat draws the lowest card before both deals: it deals again although dealer_change
    # ("deals" after 1) would pass the deal on; its tenure goes on (2 deals)
    deck = [1, 9, 10, 7, 8, 8, 8] + ([1, 9] if each_deal else []) + [2, 3, 4, 5, 6]
    g = new_game(
        deck,
        max_rounds=3,
        dealer_selection="lowest",
        dealer_selection_each_deal=each_deal,
        dealer_change=("deals",),
        dealer_max_deals=1,
    )
    assert g.dealer == 0
    _finish_round(g)  # no stakes: the round ends after the bets
    assert g.round_index == 1
    assert g.dealer == (0 if each_deal else 1)
    assert g.deals_by_dealer == (1 if each_deal else 0)
    assert _deal_values(g) == ([2, 3, 4, 5], [6])


def test_selection_each_deal_needs_selection_draws():
    from kabu_envs.core.errors import RuleConfigError

    with pytest.raises(RuleConfigError, match="dealer_selection_each_deal.*fixed"):
        new_game(dealer_selection_each_deal=True)
    with pytest.raises(RuleConfigError, match="dealer_selection_each_deal"):
        new_game(rules="kabufuda_site", dealer_selection="fixed")
    assert new_game([2, 1], rules="kabufuda_site").dealer == 1  # the preset: lowest, each deal
