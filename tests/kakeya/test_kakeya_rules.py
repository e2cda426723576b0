"""Kakeya rules, table-driven: actions, options, Rensho, tricks, the stones table, payments."""

from dataclasses import fields

import numpy as np
import pytest

from kabu_envs.core import RuleConfigError
from kabu_envs.core.options import MAX_INT
from kabu_envs.kakeya import NUM_ACTIONS, Action, Config, action_name, card_id, card_name, make_config
from kabu_envs.kakeya.cards import (
    CLUBS,
    DIAMONDS,
    EGARA_MASK,
    HEARTS,
    SPADES,
    SUIT_MASK,
    bits_to_cards,
    cards_to_bits,
    is_egara,
    rank_of,
    suit_of,
)
from kabu_envs.kakeya.config import OPTIONS
from kabu_envs.kakeya.game import partnership_of, partnership_seats
from kabu_envs.kakeya.scoring import (
    STONES_TABLE,
    deal_winner,
    egara_rewards,
    pay,
    stones_column,
    stones_row,
    stones_won,
)
from kabu_envs.kakeya.tricks import legal_plays, rensho_card, trick_winner

C = card_id


def bits(*names: str) -> int:
    return cards_to_bits(C(x) for x in names)


# --- actions and options ---------------------------------------------------------------
def test_action_ids_match_the_spec_and_round_trip():
    assert [Action.PLAY(c) for c in (0, 51)] == [0, 51]
    assert [Action.TRUMP(s) for s in range(4)] == [52, 53, 54, 55]
    assert (Action.LEAD_SELF, Action.LEAD_PARTNER, NUM_ACTIONS) == (56, 57, 58)
    names = [action_name(a) for a in range(NUM_ACTIONS)]
    assert len(set(names)) == NUM_ACTIONS and names[51] == "PLAY(AS)" and names[54] == "TRUMP(hearts)"
    assert all(card_id(card_name(c)) == c for c in range(52))
    assert (C("2C"), C("AC"), C("10D"), C("JH"), C("AS")) == (0, 12, 21, 35, 51)
    with pytest.raises(ValueError, match="card id"):
        Action.PLAY(52)
    with pytest.raises(ValueError, match="suit"):
        Action.TRUMP(4)
    with pytest.raises(ValueError, match="not a card name"):
        card_id("ZZ")


def test_card_helpers_agree_with_the_masks():
    egara = [c for c in range(52) if is_egara(c)]
    assert egara == bits_to_cards(EGARA_MASK) and len(egara) == 16
    assert [card_name(c) for c in egara[:4]] == ["JC", "QC", "KC", "AC"]
    assert all(suit_of(c) * 13 + rank_of(c) == c for c in range(52))
    assert all(cards_to_bits(range(13 * s, 13 * s + 13)) == SUIT_MASK[s] for s in range(4))


def test_config_defaults_are_the_option_records_defaults():
    assert {f.name: f.default for f in fields(Config)} == OPTIONS.defaults()
    assert [f.name for f in fields(Config)] == list(OPTIONS.names)
    assert make_config() == Config()


def test_defaults_and_validation():
    cfg = make_config()
    six_only = ("six_player_mode", "all_play_payment")
    assert cfg.as_dict() == {k: v for k, v in OPTIONS.defaults().items() if k not in six_only}
    assert make_config(default_trump=2).default_trump == "hearts"
    assert make_config(default_trump="Spades").default_trump_suit == SPADES


@pytest.mark.parametrize(
    "opts",
    [
        {},
        {"num_players": 6},
        {"num_players": 6, "six_player_mode": "all_play", "max_deals": 3, "reward": "egara"},
        {"num_players": 6, "all_play_payment": "each_loser"},
    ],
)
def test_as_dict_rebuilds_the_config(opts):
    cfg = make_config(**opts)
    assert make_config(**cfg.as_dict()) == cfg


def test_numpy_integer_scalars_are_accepted_as_plain_ints():
    cfg = make_config(num_players=np.int64(6), max_deals=np.int32(3), stones_per_player=np.int64(4))
    assert (cfg.num_players, cfg.max_deals, cfg.stones_per_player) == (6, 3, 4)
    assert all(type(v) is int for v in (cfg.num_players, cfg.max_deals, cfg.stones_per_player))
    assert cfg == make_config(num_players=6, max_deals=3, stones_per_player=4)
    assert make_config(default_trump=np.int64(3)).default_trump == "spades"
    assert make_config(six_player_mode=np.str_("all_play"), num_players=6).all_play


# Each case was accepted before the options were declared as records (the array ones silently, as
# arrays or through a deprecated int() of a 1-element array).
@pytest.mark.parametrize(
    "opts, message",
    [
        ({"num_players": np.array([4])}, r"option 'num_players' = array\(\[4\]\) is invalid: allowed: 4, 6"),
        ({"num_players": np.array(4)}, r"option 'num_players' = array\(4\) is invalid: allowed: 4, 6"),
        (
            {"num_players": 6, "six_player_mode": np.array("all_play")},
            r"option 'six_player_mode' = array\('all_play'.* is invalid: "
            r"allowed: 'dealers_sit_out', 'all_play'",
        ),
        (
            {"rensho_rule": np.array("seed")},
            r"option 'rensho_rule' = array\('seed'.* allowed: 'traditional', 'seed'",
        ),
        (
            {"reward": np.array(["egara"])},
            r"option 'reward' = array\(\['egara'\].* allowed: 'stones', 'egara'",
        ),
        (
            {"stones_per_player": 10**400},
            rf"option 'stones_per_player' = 1000.* allowed: an integer 1..{MAX_INT}",
        ),
        ({"max_deals": 10**400}, rf"option 'max_deals' = 1000.* allowed: an integer 1..{MAX_INT}"),
        ({"max_deals": MAX_INT + 1}, rf"option 'max_deals' = {MAX_INT + 1} is invalid"),
        (
            {"default_trump": np.array(2)},
            r"option 'default_trump' = array\(2\) is invalid: allowed: a suit name",
        ),
    ],
)
def test_arrays_and_unusable_integers_are_refused_naming_option_value_and_allowed(opts, message):
    with pytest.raises(RuleConfigError, match=message):
        make_config(**opts)
    with pytest.raises(RuleConfigError, match=message):
        Config(**opts)  # the dataclass checks its values too


@pytest.mark.parametrize("mode", ["dealers_sit_out", "all_play"])
def test_six_player_mode_with_four_players_is_an_error_saying_so(mode):
    msg = rf"option 'six_player_mode' = '{mode}' has no meaning with num_players=4.*set num_players=6"
    with pytest.raises(RuleConfigError, match=msg):
        make_config(six_player_mode=mode)
    with pytest.raises(RuleConfigError, match=msg):
        make_config(num_players=4, six_player_mode=mode)
    assert make_config(num_players=6, six_player_mode=mode).six_player_mode == mode
    with pytest.raises(RuleConfigError, match="'six_player_mode' = 'all' is invalid"):
        make_config(six_player_mode="all")  # a bad value is named as such first


@pytest.mark.parametrize(
    "opts, words",
    [
        ({"players": 4}, "unknown Kakeya option"),
        ({"num_players": 5}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"six_player_mode": "all"}, "six_player_mode"),
        ({"default_trump": "stars"}, "default_trump"),
        ({"default_trump": 4}, "default_trump"),
        ({"dealers_choose_trump": 1}, "dealers_choose_trump"),
        ({"rensho_rule": "modern"}, "rensho_rule"),
        ({"rensho_follow": "never"}, "rensho_follow"),
        ({"rensho_follow": True}, "rensho_follow"),
        ({"max_deals": 0}, "max_deals"),
        ({"stones_per_player": 2.5}, "stones_per_player"),
        ({"reward": "points"}, "reward"),
    ],
)
def test_bad_options_raise_value_error_naming_them(opts, words):
    with pytest.raises(ValueError, match=words):
        make_config(**opts)


# --- seats and partnerships (docs/kakeya.md#seats-and-partnerships) ----------------------
@pytest.mark.parametrize("n, partnerships", [(4, [[0, 2], [1, 3]]), (6, [[0, 3], [1, 4], [2, 5]])])
def test_partners_never_sit_side_by_side(n, partnerships):
    """The Kakeya text: sticks 1-3 and 2-4 (four players), 1-4, 2-5, 3-6 (six); each player has
    opponents on the left and on the right."""
    assert [partnership_seats(p, n) for p in range(n // 2)] == partnerships
    assert all(partnership_of(s, n) != partnership_of((s + 1) % n, n) for s in range(n))


# --- Rensho ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "trump, traditional, seed",
    [(CLUBS, "AS", "AC"), (DIAMONDS, "AS", "AS"), (HEARTS, "AS", "AS"), (SPADES, "AC", "AS")],
)
def test_rensho_for_every_trump_under_both_rules(trump, traditional, seed):
    assert card_name(rensho_card(trump, "traditional")) == traditional
    assert card_name(rensho_card(trump, "seed")) == seed


# --- follow suit (docs/kakeya.md#play) ---------------------------------------------------
ANY = "any"  # every card of the hand


@pytest.mark.parametrize(
    "hand, led, rensho, free, must_follow",
    [
        (("2C", "KH", "AS"), -1, "AS", ANY, ANY),  # leading: anything
        (("2C", "KH", "3H", "AS"), HEARTS, "AS", ("KH", "3H", "AS"), ("KH", "3H", "AS")),  # Rensho any time
        (("2C", "KH", "AS"), DIAMONDS, "AS", ANY, ANY),  # no diamond: anything
        (("2C", "KH", "AC"), CLUBS, "AS", ("2C", "AC"), ("2C", "AC")),  # AC is no Rensho: follow clubs
        (("2S", "KH", "AC"), SPADES, "AC", ("2S", "AC"), ("2S", "AC")),  # Rensho AC on a spade lead
        # the hand: Rensho is its only spade
        (("AS", "2H", "3D"), SPADES, "AS", ANY, ("AS",)),
        # Rensho and another spade: follow with the spade, or Rensho (both settings)
        (("AS", "5S", "2H"), SPADES, "AS", ("AS", "5S"), ("AS", "5S")),
        # Rensho AC (spades trumps, or clubs trumps under rensho_rule="seed") on a club lead
        (("AC", "2H", "3D"), CLUBS, "AC", ANY, ("AC",)),
        (("AC", "KC", "2H"), CLUBS, "AC", ("AC", "KC"), ("AC", "KC")),
        # AS is no Rensho (spades trumps, traditional): an ordinary spade that must follow
        (("AS", "2H", "3D"), SPADES, "AC", ("AS",), ("AS",)),
        (("AC",), CLUBS, "AC", ("AC",), ("AC",)),  # a hand of Rensho alone
    ],
)
def test_follow_suit_under_both_rensho_follow_settings(hand, led, rensho, free, must_follow):
    for setting, legal in (("free", free), ("must_follow", must_follow)):
        want = bits(*hand) if legal == ANY else bits(*legal)
        assert legal_plays(bits(*hand), led, C(rensho), setting) == want, setting


def test_rensho_follow_option_default_values_and_unknown_setting():
    assert make_config().rensho_follow == "free"
    assert make_config(rensho_follow="must_follow").rensho_follow == "must_follow"
    with pytest.raises(RuleConfigError, match=r"'rensho_follow' = 'forced'.*allowed: 'free', 'must_follow'"):
        make_config(rensho_follow="forced")
    with pytest.raises(ValueError, match="rensho_follow"):
        legal_plays(bits("AS", "2H"), SPADES, C("AS"), "forced")


# --- trick resolution --------------------------------------------------------------------
@pytest.mark.parametrize(
    "cards, trump, rensho, winner",
    [
        (("AS", "2C", "KS", "QS"), CLUBS, "AS", 0),  # Rensho led wins over trumps
        (("KH", "AH", "AS", "2C"), CLUBS, "AS", 2),  # Rensho discarded on a heart lead still wins
        (("KH", "2C", "AH", "3C"), CLUBS, "AS", 3),  # trumps beat the led suit; highest trump
        (("5D", "9D", "AH", "2D"), CLUBS, "AS", 1),  # no trump played: highest of the led suit
        (("5D", "AC", "KS", "2S"), SPADES, "AC", 1),  # spades trumps: AC is Rensho
        (("5D", "AS", "KS", "2S"), SPADES, "AC", 1),  # ... and AS is the highest trump
        (("QH", "KD", "AD", "JH"), SPADES, "AS", 0),  # off-suit aces do not win
        (("2H", "AC", "3H", "KC"), CLUBS, "AC", 1),  # seed rule with clubs: AC is both
    ],
)
def test_trick_resolution(cards, trump, rensho, winner):
    led = C(cards[0]) // 13
    assert trick_winner([C(c) for c in cards], led, trump, C(rensho)) == winner


# --- the stones table ----------------------------------------------------------------------
EGARA_ALL = [c for c in range(52) if c % 13 >= 9]


def captured_with(n_egara: int, aces: tuple[str, ...]) -> int:
    """n_egara egara including exactly ``aces`` (non-ace egara fill the rest)."""
    picked = [C(a) for a in aces]
    picked += [c for c in EGARA_ALL if c % 13 != 12][: n_egara - len(picked)]
    assert len(picked) == n_egara
    return cards_to_bits(picked) | bits("2C", "3D")  # plain cards never count


@pytest.mark.parametrize(
    "n_egara, aces, trump, rensho, stones",
    [
        # row "no ace"
        (8, (), CLUBS, "AS", 4),
        (11, (), CLUBS, "AS", 4),
        (12, (), HEARTS, "AS", 4),
        # row "1-2 aces, neither Rensho nor the trump ace"
        (9, ("AD",), CLUBS, "AS", 2),
        (11, ("AD", "AH"), CLUBS, "AS", 2),
        (12, ("AH",), CLUBS, "AS", 2),
        (14, ("AD", "AH"), CLUBS, "AS", 2),
        # row "otherwise": Rensho, the trump ace, or 3+ aces
        (8, ("AS",), CLUBS, "AS", 1),  # Rensho
        (10, ("AC",), CLUBS, "AS", 1),  # trump ace
        (11, ("AD", "AH", "AC"), DIAMONDS, "AS", 1),  # three aces
        (12, ("AS",), CLUBS, "AS", 2),
        (14, ("AC", "AD"), CLUBS, "AS", 2),
        (15, ("AC", "AD", "AH"), HEARTS, "AS", 2),
        (10, ("AS",), SPADES, "AC", 1),  # spades trumps: AS is the trump ace
        (10, ("AC",), SPADES, "AC", 1),  # ... and AC is Rensho
        (10, ("AC",), CLUBS, "AC", 1),  # seed rule, clubs: AC is Rensho and the trump ace
        (16, ("AC", "AD", "AH", "AS"), CLUBS, "AS", 4),
    ],
)
def test_stones_table_every_row_and_column(n_egara, aces, trump, rensho, stones):
    cap = captured_with(n_egara, aces)
    assert stones_won(cap, trump, C(rensho)) == stones


def test_stones_table_shape_and_impossible_cells():
    assert STONES_TABLE == ((4, 4, None), (2, 2, None), (1, 2, 4))
    assert [stones_column(e) for e in (8, 11, 12, 15, 16)] == [0, 0, 1, 1, 2]
    with pytest.raises(ValueError, match="egara"):
        stones_column(7)
    assert stones_row(bits("AD", "AH", "AC"), DIAMONDS, C("AS")) == 2  # 3 aces
    assert stones_row(bits("AD", "AH"), DIAMONDS, C("AS")) == 2  # AD is the trump ace
    assert stones_row(bits("AD", "AH"), SPADES, C("AC")) == 1


# --- deal winner, the 8-8 rule ---------------------------------------------------------------
def test_more_egara_wins_and_8_8_goes_to_the_side_without_rensho():
    nine = captured_with(9, ("AS",))
    seven = captured_with(7, ())
    assert deal_winner([nine, seven], [0, 1], C("AS"), all_play=False) == 0
    assert deal_winner([seven, nine], [0, 1], C("AS"), all_play=False) == 1
    with_r = captured_with(8, ("AS",))
    without = captured_with(8, ("AD",))
    assert deal_winner([with_r, without], [0, 1], C("AS"), all_play=False) == 1
    assert deal_winner([without, with_r], [0, 1], C("AS"), all_play=False) == 0
    # sit-out mode: only the two playing partnerships count
    assert deal_winner([0, with_r, without], [1, 2], C("AS"), all_play=False) == 2


def test_all_play_needs_nine_egara():
    assert (
        deal_winner([captured_with(9, ()), captured_with(4, ()), captured_with(3, ())], [0, 1, 2], 51, True)
        == 0
    )
    assert (
        deal_winner([captured_with(8, ()), captured_with(4, ()), captured_with(4, ())], [0, 1, 2], 51, True)
        == -1
    )
    assert (
        deal_winner([captured_with(2, ()), captured_with(5, ()), captured_with(9, ())], [0, 1, 2], 51, True)
        == 2
    )


# --- payments and rewards ---------------------------------------------------------------------
def test_payment_takes_from_the_richer_member_and_gives_to_the_poorer():
    stones = [5, 6, 2, 3]
    assert pay(stones, [1, 3], [0, 2], 4) == 4
    # out: 6->5->4->3 from seat 1, then the 3-3 tie goes to the lower seat (1); in: seat 2 up to 5,
    # then the 5-5 tie goes to the lower seat (0)
    assert stones == [6, 2, 5, 3]
    assert sum(stones) == 16


def test_payment_is_capped_at_what_the_payer_has():
    stones = [5, 1, 5, 1]
    assert pay(stones, [1, 3], [0, 2], 4) == 2
    assert stones == [6, 0, 6, 0]


def test_egara_reward_formula():
    assert egara_rewards({0: 12, 1: 4}) == {0: 0.5, 1: -0.5}
    assert egara_rewards({1: 16, 2: 0}) == {1: 1.0, 2: -1.0}
    r = egara_rewards({0: 10, 1: 4, 2: 2})
    assert r == {0: (10 - 3) / 16, 1: (4 - 6) / 16, 2: (2 - 7) / 16}
    assert abs(sum(r.values())) < 1e-12
