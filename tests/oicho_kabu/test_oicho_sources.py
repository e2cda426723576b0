"""Source sentences that no other scenario checks on its own (docs/oicho_kabu.md#traceability cites
these beside the other tests): each test quotes the rule it checks."""

from __future__ import annotations

import pytest
from oicho_game_helpers import KEEP, B, D, S, bet_round, new_game, values

from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.deck import card_id, card_ids
from kabu_envs.oicho_kabu.game import Phase
from kabu_envs.oicho_kabu.rules import best_yaku, hand_value, settle


@pytest.mark.parametrize(("cards", "value"), [((8, 9, 3), 0), ((1, 9, 5), 5), ((6, 7, 7), 0), ((4, 10), 4)])
def test_enc_the_worst_hand_is_zero_ya_ku_sa(cards, value):
    """The encyclopedia text: "the worst hands have value 0; one is 8, 9 and 3, ya-ku-sa"; the kabufuda site's
    examples."""
    assert hand_value(card_ids(*cards)) == value


def test_enc_domae_caps_the_total_of_all_stakes():
    """The encyclopedia text: "if the domae is 50 and A stakes 25, B 15, C 10, then D cannot bet"."""
    g = new_game(num_players=5)  # player_0 deals; A, B, C, D = players 1..4
    plan = {1: {0: 4, 1: 4, 2: 3}, 2: {0: 4, 1: 3}, 3: {0: 4}}  # 10+10+5, 10+5, 10 (bet_sizes 1, 2, 5, 10)
    while g.phase == Phase.BET and g.current_player != 4:
        g.apply_action(B(plan.get(g.current_player, {}).get(g.active_spread, 0)))
    assert [g.seat_total[s] for s in (1, 2, 3)] == [25, 15, 10] and g.round_total == 50
    while g.phase == Phase.BET:
        assert g.current_player == 4 and g.legal_actions() == [B(0)]
        g.apply_action(B(0))


@pytest.mark.parametrize(("kuppin_beats_arashi", "expect"), [(False, 3), (True, -2)])
def test_enc_kansai_dealer_kuppin_outright_is_an_override(kuppin_beats_arashi, expect):
    """The encyclopedia text (Kansai, minor): "the dealer's kuppin is an unconditional win". Not in the preset
    (the Kansai ranking puts arashi first); ``yaku_overrides={"kuppin": {"beats": ["arashi"]}}`` plays it."""
    over = {"yaku_overrides": {"kuppin": {"beats": ["arashi"]}}} if kuppin_beats_arashi else {}
    # spread 0: 5-5 (0) must draw a 5: arashi; the dealer's 9-1 is a kuppin and stands
    g = new_game([5, 7, 7, 8, 9, 5, 1, 2, 2, 5, 1], rules="kansai", **over)
    g.apply_action(KEEP)
    bet_round(g, {1: {0: 1}})
    g.apply_action(D)
    g.apply_action(S)
    assert values(g.spreads[0]) == [5, 5, 5] and values(g.dealer_cards) == [9, 1]
    assert list(g.pop_rewards()) == [-expect, expect]  # arashi x3, or the Kansai kuppin x2


def test_enc_kuppin_outranks_shippin_in_play():
    """The encyclopedia text: "if kuppin and shippin occur in one round, kuppin has priority"."""
    g = new_game([4, 7, 7, 8, 9, 1, 2, 2, 2, 1])  # spread 0: 4-1 shippin; dealer 9-1 kuppin
    bet_round(g, {1: {0: 2}})
    g.apply_action(S)  # the shippin stands (a third card would void it)
    g.apply_action(S)  # so does the kuppin
    assert list(g.pop_rewards()) == [2, -2]


@pytest.mark.parametrize(
    ("override", "expect"),
    [({}, -1), ({"pin_basami": {"rank": 71, "beats": ["sanpachi_hikari"]}}, 7)],
)
def test_enc_sanpachi_against_pin_basami(override, expect):
    """The encyclopedia text: sanpachi hikari is «Лучше, чем любая другая рука» (better than any other
    hand) and pin-basami makes «дилер безусловно проигрывает» (the dealer loses unconditionally). Read: the
    dealer's sanpachi beats a bettor's pin-basami (the bettor pays x1), since sanpachi's sentence ranks it
    above every hand by name; ``yaku_overrides`` plays the other reading (the dealer pays the middle 7)."""
    cfg = make_config(deck="hanafuda", local_yaku=["sanpachi_hikari", "pin_basami"], yaku_overrides=override)
    dealer = [card_id(3), card_id(8)]  # the March and August lights
    bettor = [card_id(1, 3), card_id(7, 3), card_id(1, 2)]  # 1-7-1, no light (copy 0 of a 1 is one)
    assert best_yaku(cfg, dealer, "dealer") == "sanpachi_hikari"
    assert best_yaku(cfg, bettor, "bettor") == "pin_basami"
    assert settle(cfg, dealer, bettor) == expect
