"""Stacked-deck scenarios for the table and the dealer's cards: minso, triple-table redeal, info cards,
dealer card choice, dealer_first_card, dealer_second_card_face_up (what each seat observes)."""

from __future__ import annotations

import numpy as np
import pytest
from oicho_game_helpers import BOTTOM, FOURTH, KEEP, REDEAL, TOP, S, bet_round, new_game, stack, values

from kabu_envs.core.rng import make_rng
from kabu_envs.oicho_kabu import events
from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.game import Game, Phase
from kabu_envs.oicho_kabu.observation import encode, obs_spec


def _piece(game, seat, name):
    vec = encode(game, seat)
    return vec[obs_spec(game.cfg).slices[name]]


def _seen_values(game, seat, name, slots):
    """Values seen in the card slots of piece ``name`` (10 entries per slot; 0 = not seen)."""
    vec = _piece(game, seat, name)
    out = []
    for k in range(slots):
        hot = np.flatnonzero(vec[k * 10 : (k + 1) * 10])
        out.append(int(hot[0]) + 1 if len(hot) else 0)
    return out


def _all_cards_accounted(game):
    out = game.cards_in_play()
    rest = game.deck.cards[game.deck.top :]
    assert len(set(out)) == len(out) and not set(out) & set(rest)
    assert sorted(out + rest) == list(range(40))


# --- minso ---------------------------------------------------------------------------------------
def test_minso_keep_keeps_the_table():
    g = new_game([1, 2, 3, 4, 5, 6, 7, 8, 9], minso=True)
    assert g.phase == Phase.MINSO and g.current_player == 0 and g.legal_actions() == [KEEP, REDEAL]
    g.apply_action(KEEP)
    assert values(sp[0] for sp in g.spreads) == [1, 2, 3, 4] and values(g.dealer_cards) == [5]
    assert g.phase == Phase.BET


def test_minso_redeal_returns_the_cards_and_deals_the_next_ones():
    g = new_game([1, 2, 3, 4, 5, 6, 7, 8, 9], minso=True)
    first = [sp[0] for sp in g.spreads]
    g.apply_action(REDEAL)
    assert values(sp[0] for sp in g.spreads) == [5, 6, 7, 8] and values(g.dealer_cards) == [9]
    assert g.phase == Phase.BET  # minso_limit=1: asked no more
    rest = g.deck.cards[g.deck.top :]
    assert set(first) <= set(rest)  # the returned cards are back in the deck
    _all_cards_accounted(g)


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_minso_limit(limit):
    g = new_game(list(range(1, 11)) + [1, 2, 3, 4, 5, 6], minso=True, minso_limit=limit)
    asked = 0
    while g.phase == Phase.MINSO:
        asked += 1
        g.apply_action(REDEAL)
    assert asked == limit and g.minso_redeals == limit
    assert values(sp[0] for sp in g.spreads) == [(4 * limit + i) % 10 + 1 for i in range(4)]


def test_no_minso_question_without_the_option():
    assert new_game().phase == Phase.BET


# --- triple table ----------------------------------------------------------------------------------
@pytest.mark.parametrize("table", [[5, 5, 5, 2], [5, 2, 5, 5], [2, 5, 5, 5], [5, 5, 5, 5]])
def test_triple_table_redeals(table):
    deck = table + [1, 2, 3, 4, 9]
    g = new_game(deck, redeal_on_triple_table=True)
    assert values(sp[0] for sp in g.spreads) == [1, 2, 3, 4] and values(g.dealer_cards) == [9]
    assert any(isinstance(ev, events.TripleRedeal) for ev in g.log)
    _all_cards_accounted(g)
    off = new_game(deck)
    assert values(sp[0] for sp in off.spreads) == table


def test_two_of_a_kind_is_no_triple():
    g = new_game([5, 5, 2, 2, 9], redeal_on_triple_table=True)
    assert values(sp[0] for sp in g.spreads) == [5, 5, 2, 2]


# --- info cards ------------------------------------------------------------------------------------
def test_info_cards_dealt_in_betting_order_and_seen_only_by_their_owner():
    # 4 players, dealer 0: info cards for seats 1, 2, 3, then the table, then the dealer's card
    g = new_game([7, 8, 9, 1, 2, 3, 4, 5], num_players=4, info_cards=True)
    assert [values([c])[0] if c >= 0 else 0 for c in g.info_cards] == [0, 7, 8, 9]
    assert values(sp[0] for sp in g.spreads) == [1, 2, 3, 4] and values(g.dealer_cards) == [5]
    for seat, own in [(0, 0), (1, 7), (2, 8), (3, 9)]:
        assert _seen_values(g, seat, "info_card", 1) == [own]
    off = new_game([7, 8, 9, 1, 2], num_players=4)
    assert values(sp[0] for sp in off.spreads) == [7, 8, 9, 1]
    assert not _piece(off, 1, "info_card").any()


# --- dealer card choice ----------------------------------------------------------------------------
# a whole deck: table 1 2 3 4, then 5 6 7 8 9 10 1 2 3 ..., bottom card 9
FULL = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1]
FULL += [2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 10, 10, 10, 9]


def test_full_stacked_deck_is_valid():
    assert sorted(stack(FULL)) == list(range(40))


@pytest.mark.parametrize(("choice", "expect"), [(TOP, 5), (BOTTOM, 9), (FOURTH, 8)])
def test_dealer_card_choice_first_card(choice, expect):
    g = new_game(FULL, dealer_card_choice=True)
    assert (
        g.phase == Phase.DEALER_CHOICE and g.choice_slot == 0 and g.legal_actions() == [TOP, BOTTOM, FOURTH]
    )
    g.apply_action(choice)
    assert values(g.dealer_cards) == [expect] and g.phase == Phase.BET
    bet_round(g, {1: {0: 1}})
    # the second cards keep coming from the top; a taken 4th card is gone from its place
    seconds = {TOP: [6, 7, 8, 9], BOTTOM: [5, 6, 7, 8], FOURTH: [5, 6, 7, 9]}[choice]
    assert values(sp[1] for sp in g.spreads) == seconds
    _all_cards_accounted(g)


@pytest.mark.parametrize(("choice", "expect"), [(TOP, 10), (BOTTOM, 9), (FOURTH, 3)])
def test_dealer_card_choice_second_card(choice, expect):
    g = new_game(FULL, dealer_card_choice=True)
    g.apply_action(TOP)  # first card: 5
    bet_round(g, {1: {0: 1}})  # seconds 6 7 8 9 -> spread 0: 1+6 = 7 stands
    g.apply_action(S)
    assert g.phase == Phase.DEALER_CHOICE and g.choice_slot == 1
    # deck top now: 10 1 2 3 ...; bottom: 9
    g.apply_action(choice)
    assert values(g.dealer_cards) == [5, expect]
    assert g.phase == Phase.DEALER_DRAW
    _all_cards_accounted(g)


def test_no_choice_phase_without_the_option():
    g = new_game(FULL)
    assert g.phase == Phase.BET and values(g.dealer_cards) == [5]


# --- dealer_first_card -----------------------------------------------------------------------------
def test_dealer_first_card_before_and_after_bets():
    before = new_game([1, 2, 3, 4, 9, 5, 5, 5, 5])
    assert values(before.dealer_cards) == [9]
    bet_round(before, {1: {0: 1}})
    assert values(sp[1] for sp in before.spreads) == [5, 5, 5, 5]
    after = new_game([1, 2, 3, 4, 9, 5, 5, 5, 5], dealer_first_card="after_bets")
    assert after.dealer_cards == []
    bet_round(after, {1: {0: 1}})
    assert values(after.dealer_cards) == [9]
    assert values(sp[1] for sp in after.spreads) == [5, 5, 5, 5]


def test_after_bets_with_choice_asks_after_the_bets():
    g = new_game(FULL, dealer_first_card="after_bets", dealer_card_choice=True)
    assert g.phase == Phase.BET
    bet_round(g, {1: {0: 1}})
    assert g.phase == Phase.DEALER_CHOICE and g.choice_slot == 0
    g.apply_action(BOTTOM)
    assert values(g.dealer_cards) == [9] and values(sp[1] for sp in g.spreads) == [5, 6, 7, 8]


# --- who sees the dealer's cards -------------------------------------------------------------------
@pytest.mark.parametrize("face_up", [True, False])
def test_dealer_cards_visibility(face_up):
    g = new_game([5, 5, 5, 5, 3, 2, 2, 2, 2, 4], num_players=3, dealer_second_card_face_up=face_up)
    for seat in range(3):  # nobody, the dealer included, sees the face-down first card before step 10
        assert _seen_values(g, seat, "dealer_cards", 3) == [0, 0, 0]
        assert list(_piece(g, seat, "dealer_hidden")) == [1, 0, 0]
    bet_round(g, {1: {0: 1}})
    g.apply_action(S)  # spread 0: 5+2 = 7
    assert g.phase == Phase.DEALER_DRAW
    assert _seen_values(g, 0, "dealer_cards", 3) == [3, 4, 0]
    for seat in (1, 2):
        seen = _seen_values(g, seat, "dealer_cards", 3)
        assert seen == ([3, 4, 0] if face_up else [0, 0, 0])
        assert list(_piece(g, seat, "dealer_hidden")) == ([0, 0, 0] if face_up else [1, 1, 0])
    g.apply_action(S)
    for seat in range(3):  # the showdown shows everything
        assert _seen_values(g, seat, "dealer_cards", 3) == [3, 4, 0]


def test_game_rejects_bad_prefix():
    with pytest.raises(ValueError, match="twice"):
        Game(make_config(), make_rng(0), [1, 2, 1])
    with pytest.raises(ValueError, match="out of range"):
        Game(make_config(), make_rng(0), [40])
