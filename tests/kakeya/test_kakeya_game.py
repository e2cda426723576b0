"""Kakeya engine scenarios on stacked decks: deal order, seats, trump and lead choice,
whole deals with known outcomes, matches over several deals, errors."""

import gc
import tracemalloc

import numpy as np
import pytest
from kakeya_testlib import deal_order, deck_for, ids, new_game, play_min_until_deal_ends, suit_hands

from kabu_envs.core import IllegalActionError
from kabu_envs.kakeya import Action, Phase, card_id
from kabu_envs.kakeya.cards import bits_to_cards
from kabu_envs.kakeya.game import RESULTS_KEPT


# --- deal order and seats --------------------------------------------------------------------
def test_four_players_deal_one_at_a_time_from_the_seat_after_the_first_dealer():
    g = new_game(list(range(52)), dealers_choose_trump=False)
    assert g.first_dealer == 1 and g.dealer_partnership == 1
    # order 2, 3, 0, 1
    assert bits_to_cards(g.dealt[2]) == list(range(0, 52, 4))
    assert bits_to_cards(g.dealt[3]) == list(range(1, 52, 4))
    assert bits_to_cards(g.dealt[0]) == list(range(2, 52, 4))
    assert bits_to_cards(g.dealt[1]) == list(range(3, 52, 4))


def test_six_players_dealers_sit_out():
    g = new_game(
        list(range(52)), num_players=6, six_player_mode="dealers_sit_out", dealers_choose_trump=False
    )
    assert g.first_dealer == 2 and g.active == [True, True, False, True, True, False]
    assert g.playing_partnerships == [0, 1]
    for i, seat in enumerate([3, 4, 0, 1]):
        assert bits_to_cards(g.dealt[seat]) == list(range(i, 52, 4))
    assert g.hands[2] == g.hands[5] == 0
    assert g.current_player == 3  # the seat after the first dealer chooses the lead
    g.apply_action(Action.LEAD_PARTNER)
    assert g.current_player == 0 and g.trick.order == [0, 1, 3, 4]


def test_six_players_all_play_9_9_9_9_8_8():
    g = new_game(list(range(52)), num_players=6, six_player_mode="all_play", dealers_choose_trump=False)
    assert g.first_dealer == 2 and all(g.active)
    order = [3, 4, 5, 0, 1, 2]
    for i, seat in enumerate(order):
        assert bits_to_cards(g.dealt[seat]) == list(range(i, 52, 6))
    assert [g.hand_counts[s] for s in order] == [9, 9, 9, 9, 8, 8]
    assert g.playing_partnerships == [0, 1, 2]
    assert g.lead_chooser == 3


def test_stacked_prefix_then_seeded_rest():
    a = new_game(ids(["AS", "AC"]), seed=3, dealers_choose_trump=False)
    b = new_game(ids(["AS", "AC"]), seed=3, dealers_choose_trump=False)
    assert a.dealt == b.dealt
    assert a.dealt[2] >> card_id("AS") & 1 and a.dealt[3] >> card_id("AC") & 1


# --- trump choice ---------------------------------------------------------------------------------
@pytest.mark.parametrize("n, dealer", [(4, 1), (6, 2)])
def test_first_dealer_chooses_trump_before_any_card_is_dealt(n, dealer):
    g = new_game(num_players=n)
    assert g.phase is Phase.TRUMP and g.current_player == dealer
    assert g.legal_actions() == [52, 53, 54, 55]
    assert not any(g.hands)
    g.apply_action(Action.TRUMP(2))
    assert g.trump == 2 and g.phase is Phase.LEAD and sum(g.hand_counts) == 52


@pytest.mark.parametrize(
    "rule, trump, rensho",
    [("traditional", 3, "AC"), ("traditional", 0, "AS"), ("seed", 0, "AC"), ("seed", 3, "AS")],
)
def test_trump_choice_sets_rensho(rule, trump, rensho):
    g = new_game(rensho_rule=rule)
    g.apply_action(Action.TRUMP(trump))
    assert g.rensho == card_id(rensho)


def test_default_trump_without_choice():
    g = new_game(default_trump="hearts", dealers_choose_trump=False)
    assert g.phase is Phase.LEAD and g.trump == 2
    assert new_game().trump == 0  # clubs by default


# --- lead choice and play -----------------------------------------------------------------------------
@pytest.mark.parametrize("action, leader", [(Action.LEAD_SELF, 2), (Action.LEAD_PARTNER, 0)])
def test_lead_choice(action, leader):
    g = new_game(dealers_choose_trump=False)
    assert g.current_player == 2 and g.legal_actions() == [56, 57]
    g.apply_action(action)
    assert g.phase is Phase.PLAY and g.current_player == leader
    assert g.trick.order == [(leader + k) % 4 for k in range(4)]


def test_follow_suit_and_rensho_any_time_in_a_game():
    hands = {
        0: list(range(0, 13)),  # all clubs (trumps)
        1: list(range(13, 24)) + ids(["2H", "AS"]),  # 2D..QD, 2H and Rensho
        2: list(range(27, 39)) + ids(["KD"]),  # 3H..AH and KD
        3: list(range(39, 51)) + ids(["AD"]),  # 2S..KS and AD
    }
    g = new_game(deck_for(hands, deal_order(4, 1)), dealers_choose_trump=False, rensho_rule="traditional")
    g.apply_action(Action.LEAD_SELF)  # seat 2 leads
    g.apply_action(card_id("3H"))
    assert g.legal_actions() == ids(["AD"]) + list(range(39, 51))  # seat 3 has no heart: anything
    g.apply_action(card_id("2S"))
    g.apply_action(card_id("2C"))
    assert g.legal_actions() == ids(["2H", "AS"])  # seat 1 follows hearts, or plays Rensho
    g.apply_action(card_id("AS"))
    assert g.last_trick.winner == 1 and g.current_player == 1  # Rensho discarded on hearts wins
    g.apply_action(card_id("2D"))
    assert g.legal_actions() == ids(["KD"])
    g.apply_action(card_id("KD"))
    with pytest.raises(
        IllegalActionError, match=r"illegal action 41 \(PLAY\(4S\)\).*legal actions: \[25=PLAY\(AD\)\]"
    ):
        g.apply_action(card_id("4S"))
    g.apply_action(card_id("AD"))
    assert g.legal_actions() == list(range(1, 13))  # seat 0 holds no diamond
    g.apply_action(card_id("3C"))
    assert g.last_trick.winner == 0 and g.captured[0] == (1 << card_id("KD")) | (1 << card_id("AD"))


# --- whole deals with known outcomes ----------------------------------------------------------------
def test_whole_deal_suit_per_seat_traditional():
    """Seat s holds suit s; clubs trump, Rensho AS (seat 3). Lowest-card play: seat 0 trumps every
    trick but the last, where seat 3's AS takes AC AD AH AS: 12 egara, no ace, for partnership 0."""
    g = new_game(deck_for(suit_hands(), deal_order(4, 1)), rensho_rule="traditional")
    g.apply_action(Action.TRUMP(0))
    g.apply_action(Action.LEAD_SELF)
    rewards = play_min_until_deal_ends(g)
    r = g.results[0]
    assert r.egara == {0: 12, 1: 4} and r.winner == 0 and r.stones_change == {0: 4, 1: -4}
    assert list(rewards) == [4, -4, 4, -4]
    assert g.stones == [7, 3, 7, 3]
    assert g.terminal and g.phase is Phase.OVER and g.current_player == -1


def test_whole_deal_suit_per_seat_seed_rule():
    """Seed Rensho with clubs trump is AC (seat 0): partnership 0 takes all 16 egara = 4 stones."""
    g = new_game(deck_for(suit_hands(), deal_order(4, 1)), rensho_rule="seed", reward="egara")
    g.apply_action(Action.TRUMP(0))
    g.apply_action(Action.LEAD_SELF)
    rewards = play_min_until_deal_ends(g)
    assert g.results[0].egara == {0: 16, 1: 0} and g.results[0].stones_change == {0: 4, 1: -4}
    assert list(rewards) == [1.0, -1.0, 1.0, -1.0]  # egara reward: (16 - 0) / 16


def test_whole_deal_spades_trump_mirror():
    """Spades trump (traditional): seat 3 trumps, AC (seat 0) is Rensho and takes the last trick."""
    g = new_game(deck_for(suit_hands(), deal_order(4, 1)), reward="egara", rensho_rule="traditional")
    g.apply_action(Action.TRUMP(3))
    g.apply_action(Action.LEAD_PARTNER)  # seat 0 leads: 2C; seat 3 trumps with 2S
    rewards = play_min_until_deal_ends(g)
    assert g.results[0].egara == {0: 4, 1: 12} and g.results[0].winner == 1
    assert list(rewards) == [-0.5, 0.5, -0.5, 0.5]


# --- matches ----------------------------------------------------------------------------------------------
def test_match_losers_deal_winners_lead_stones_carry():
    g = new_game(deck_for(suit_hands(), deal_order(4, 1)), max_deals=3)
    g.apply_action(Action.TRUMP(0))
    g.apply_action(Action.LEAD_SELF)
    play_min_until_deal_ends(g)
    assert g.stones == [7, 3, 7, 3] and not g.terminal
    # partnership 1 lost: it deals again (first dealer seat 1), the winners' seat 2 chooses the lead
    assert g.phase is Phase.TRUMP and g.current_player == 1 and g.trump == 0
    g.apply_action(Action.TRUMP(2))
    assert g.lead_chooser == 2 and g.current_player == 2
    play_min_until_deal_ends(g)
    r = g.results[1]
    loser = 1 - r.winner
    assert g.partnership_totals == [14 + r.stones_change[0], 6 + r.stones_change[1]]
    assert g.dealer_partnership == loser and g.first_dealer == loser
    assert g.trump == 2  # the trump carries over until a dealer changes it
    g.apply_action(Action.TRUMP(2))
    winners_seat = next(s for s in [(loser + k) % 4 for k in range(1, 5)] if s % 2 == r.winner)
    assert g.lead_chooser == winners_seat


def test_fixed_trump_match_keeps_the_default_trump_for_every_deal():
    """kakeya.13 with ``dealers_choose_trump=False`` (the trump set for the whole match): no deal asks for
    a trump and every deal of the match is played under ``default_trump``."""
    g = new_game(deck_for(suit_hands(), deal_order(4, 1)), max_deals=3, dealers_choose_trump=False)
    trumps, deals = set(), set()
    while not g.terminal:
        assert g.phase is not Phase.TRUMP
        trumps.add(g.trump)
        deals.add(len(g.results))
        g.apply_action(g.legal_actions()[0])
    assert trumps == {g.cfg.default_trump_suit} and len(deals) > 1


def test_match_ends_when_a_partnership_runs_out_of_stones():
    g = new_game(deck_for(suit_hands(), deal_order(4, 1)), max_deals=5, stones_per_player=2)
    g.apply_action(Action.TRUMP(0))
    g.apply_action(Action.LEAD_SELF)
    rewards = play_min_until_deal_ends(g)
    assert g.stones == [4, 0, 4, 0] and g.terminal and len(g.results) == 1
    assert list(rewards) == [4, -4, 4, -4]


def test_payment_capped_and_shared_between_partners():
    g = new_game(deck_for(suit_hands(), deal_order(4, 1)), stones_per_player=1, max_deals=2)
    g.apply_action(Action.TRUMP(0))
    g.apply_action(Action.LEAD_SELF)
    rewards = play_min_until_deal_ends(g)
    assert g.stones == [2, 0, 2, 0] and list(rewards) == [2, -2, 2, -2] and g.terminal


def test_six_player_sit_out_match_rotates_the_sitting_partnership():
    hands = {3: list(range(0, 13)), 4: list(range(13, 26)), 0: list(range(26, 39)), 1: list(range(39, 52))}
    g = new_game(
        deck_for(hands, [3, 4, 0, 1]),
        num_players=6,
        six_player_mode="dealers_sit_out",
        rensho_rule="traditional",
        max_deals=2,
        dealers_choose_trump=False,
    )
    g.apply_action(Action.LEAD_SELF)  # seat 3 (clubs = trumps) leads
    rewards = play_min_until_deal_ends(g)
    # seat 3 holds all trumps and wins every trick but the one where seat 1 (spades) plays AS
    r = g.results[0]
    assert r.winner == 0 and r.egara == {0: 12, 1: 4}
    assert list(rewards) == [4, -4, 0, 4, -4, 0]  # the sitting-out seats get 0
    assert g.dealer_partnership == 1 and g.active == [True, False, True, True, False, True]
    assert g.lead_chooser == 3  # the first winners (partnership 0) seat after the first dealer, seat 1
    assert g.playing_partnerships == [0, 2]


# --- errors -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "deck, words", [([1, 1], "twice"), ([52], "out of range"), ([0.5], "not an integer")]
)
def test_bad_decks(deck, words):
    with pytest.raises(ValueError, match=words):
        new_game(deck)


def test_illegal_actions_name_the_legal_ones():
    g = new_game()
    with pytest.raises(
        IllegalActionError, match=r"illegal action 56 \(LEAD_SELF\) \(player_1, phase trump\)"
    ):
        g.apply_action(Action.LEAD_SELF)
    with pytest.raises(IllegalActionError, match=r"52=TRUMP\(clubs\)"):
        g.apply_action(99)
    with pytest.raises(IllegalActionError, match="legal actions"):
        g.apply_action(-1)
    g.apply_action(Action.TRUMP(0))
    with pytest.raises(IllegalActionError, match=r"56=LEAD_SELF, 57=LEAD_PARTNER"):
        g.apply_action(0)
    np.testing.assert_array_equal(g.pop_rewards(), 0)


# --- Rensho and following suit: rensho_follow, both settings (docs/kakeya.md#play) ------------------
def game_after_lead(seat3: list[str], lead: str, **opts):
    """Seat 3 holds ``seat3`` (13 cards); seat 2 leads ``lead``; the rest is dealt in id order.
    Returns the game with seat 3 to play."""
    mine = ids(seat3)
    rest = [c for c in range(52) if c not in mine and c != card_id(lead)]
    hands = {3: mine, 2: [card_id(lead), *rest[:12]], 0: rest[12:25], 1: rest[25:]}
    g = new_game(deck_for(hands, deal_order(4, 1)), dealers_choose_trump=False, **opts)
    g.apply_action(Action.LEAD_SELF)  # seat 2 (the seat after the first dealer) leads
    g.apply_action(card_id(lead))
    assert g.current_player == 3
    return g


HEARTS_DIAMONDS = ["2H", "3H", "4H", "5H", "6H", "7H", "2D", "3D", "4D", "5D", "6D", "7D"]


@pytest.mark.parametrize("rensho_follow", ["free", "must_follow"])
def test_rensho_alone_in_the_led_suit(rensho_follow):
    """{Rensho AS, hearts, diamonds} facing a spade lead: "free" may play any card (and keeps
    Rensho back), "must_follow" only Rensho."""
    g = game_after_lead(
        ["AS", *HEARTS_DIAMONDS], "2S", rensho_follow=rensho_follow, rensho_rule="traditional"
    )
    assert g.rensho == card_id("AS")
    hand = bits_to_cards(g.hands[3])
    assert g.legal_actions() == (hand if rensho_follow == "free" else ids(["AS"]))
    if rensho_follow == "free":
        g.apply_action(card_id("2H"))
        # shown out of spades (public), though it still holds Rensho, a spade
        assert g.void_bits == 1 << (4 * 3 + 3) and g.hands[3] >> card_id("AS") & 1
        g.apply_action(g.legal_actions()[0])
        g.apply_action(g.legal_actions()[0])
        assert g.last_trick.winner != 3 and card_id("AS") not in g.last_trick.cards
    else:
        g.apply_action(card_id("AS"))
        assert g.void_bits == 0


@pytest.mark.parametrize("rensho_follow", ["free", "must_follow"])
def test_rensho_and_another_card_of_the_led_suit(rensho_follow):
    """{Rensho AS, 5S, ...} facing a spade lead: 5S or Rensho, in both settings."""
    g = game_after_lead(["AS", "5S", *HEARTS_DIAMONDS[1:]], "2S", rensho_follow=rensho_follow)
    assert g.legal_actions() == ids(["5S", "AS"])


@pytest.mark.parametrize("rensho_follow", ["free", "must_follow"])
def test_a_seat_without_the_led_suit_plays_anything(rensho_follow):
    g = game_after_lead([*HEARTS_DIAMONDS, "8H"], "2S", rensho_follow=rensho_follow)
    assert g.legal_actions() == bits_to_cards(g.hands[3])
    g = game_after_lead(["AS", *HEARTS_DIAMONDS], "2C", rensho_follow=rensho_follow)
    assert g.legal_actions() == bits_to_cards(g.hands[3])  # no club: anything, Rensho included


@pytest.mark.parametrize("rensho_follow", ["free", "must_follow"])
@pytest.mark.parametrize(
    "rule, trump, rensho, lead",
    [
        ("traditional", "clubs", "AS", "2S"),
        ("traditional", "spades", "AC", "2C"),  # spades trumps: AC is Rensho, a plain club
        ("seed", "clubs", "AC", "2C"),  # AC is Rensho and a trump: a trump lead
        ("seed", "hearts", "AS", "2S"),
        ("seed", "spades", "AS", "2S"),  # AS is Rensho and a trump: a trump lead
    ],
)
def test_rensho_follow_under_both_rensho_rules(rensho_follow, rule, trump, rensho, lead):
    g = game_after_lead(
        [rensho, *HEARTS_DIAMONDS], lead, rensho_rule=rule, default_trump=trump, rensho_follow=rensho_follow
    )
    assert g.rensho == card_id(rensho)
    want = bits_to_cards(g.hands[3]) if rensho_follow == "free" else ids([rensho])
    assert g.legal_actions() == want


@pytest.mark.parametrize("rensho_follow", ["free", "must_follow"])
def test_the_trump_ace_that_is_not_rensho_must_follow(rensho_follow):
    """Spades trumps (traditional): AS is the trump ace, not Rensho, so it follows like any spade."""
    g = game_after_lead(
        ["AS", *HEARTS_DIAMONDS],
        "2S",
        default_trump="spades",
        rensho_follow=rensho_follow,
        rensho_rule="traditional",
    )
    assert g.rensho == card_id("AC") and g.legal_actions() == ids(["AS"])


@pytest.mark.parametrize("rensho_follow", ["free", "must_follow"])
def test_rensho_led_calls_for_its_natural_suit(rensho_follow):
    """Rensho led (AS): spades are led; a seat holding spades follows, one without plays anything."""
    g = game_after_lead(["5S", "9S", *HEARTS_DIAMONDS[3:], "8H", "9H"], "AS", rensho_follow=rensho_follow)
    assert g.led_suit == 3 and g.legal_actions() == ids(["5S", "9S"])
    g = game_after_lead([*HEARTS_DIAMONDS, "8H"], "AS", rensho_follow=rensho_follow)
    assert g.legal_actions() == bits_to_cards(g.hands[3])


# --- memory ------------------------------------------------------------------------------------------------
def test_a_long_match_stores_a_bounded_history():
    """A match of many deals (large max_deals, stones that never run out): the engine keeps the last
    RESULTS_KEPT deal results plus running totals, and the memory it holds does not grow with the
    number of deals (it kept every DealResult: about 1 MiB per 100k steps)."""
    g = new_game(seed=0, max_deals=10**6, stones_per_player=10**6)
    rng = np.random.default_rng(0)

    def play_until(deals: int) -> None:
        while g.deal_no < deals:
            legal = g.legal_actions()
            g.apply_action(legal[int(rng.integers(len(legal)))])
            g.pop_rewards()

    play_until(50)
    tracemalloc.start()
    try:
        play_until(100)
        gc.collect()
        held_100 = tracemalloc.get_traced_memory()[0]  # blocks allocated since deal 50 and still held
        play_until(300)
        gc.collect()
        held_300 = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert not g.terminal and g.deal_no == 300
    assert len(g.results) == RESULTS_KEPT and [r.deal for r in g.results] == list(
        range(300 - RESULTS_KEPT, 300)
    )
    assert sum(g.egara_totals) == 16 * 300 and sum(g.deals_won) == 300  # two sides: every deal has a winner
    assert held_300 - held_100 < 10_000, (held_100, held_300)  # 200 more deals (~21k steps)
