"""Issue #24, Oicho-Kabu: the defaults v2 changed to follow the sources, each a stacked-deck scenario
through the AEC env played under v2 (``oicho_kabu_v2``) and under v1 (``oicho_kabu_v1``, an alias of v2
with v1's values, which must play as before). docs/oicho_kabu.md#traceability cites these tests."""

from __future__ import annotations

import importlib
import warnings

import pytest
from oicho_game_helpers import TOP, B, D, S, stack, values

from kabu_envs import oicho_kabu_v2
from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.game import Phase
from kabu_envs.oicho_kabu.options import PRESETS, V1_PRESETS, v1_options

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from kabu_envs import oicho_kabu_v1


def _env(module, deck_values, **options):
    e = module.raw_env(**options)
    e.reset(seed=0, options={"deck": stack(deck_values)})
    return e


def _act(e, *actions: int) -> None:
    for a in actions:
        e.step(a)


def test_v1_is_deprecated_and_plays_with_v1s_values():
    with pytest.warns(DeprecationWarning, match="oicho_kabu_v2"):
        importlib.reload(oicho_kabu_v1)
    for preset in PRESETS:
        got = oicho_kabu_v1.raw_env(rules=preset).config
        assert got == make_config(rules=preset, **V1_PRESETS[preset])
        assert got != make_config(rules=preset) or not V1_PRESETS[preset]
    assert oicho_kabu_v1.raw_env().config.dealer_selection == "fixed"  # v1's standard: player_0 deals
    assert oicho_kabu_v1.raw_env(dealer_selection="lowest").config.dealer_selection == "lowest"  # caller wins
    assert v1_options({"rules": "kabufuda_site"})["bet_sizes"] == (1, 2, 5, 10)


# --- standard (the encyclopedia text) ------------------------------------------------------------------


def test_enc_dealer_selection_is_the_standard_default():
    """The encyclopedia text: "everyone turns up a card; the one closest to 9 deals; ties turn up another"."""
    # 3 players: 4, 4, 1 -> players 0 and 1 tie and turn up another: 2, 8 -> player_1 deals
    e = _env(oicho_kabu_v2, [4, 4, 1, 2, 8, 5, 6, 7, 10, 3], num_players=3)
    assert e.game.dealer == 1 and e.agent_selection == "player_2"  # the seat after the dealer bets first
    assert values(c for c in e.game.selection_cards if c >= 0) == [4, 4, 1]
    assert values(sp[0] for sp in e.game.spreads) == [5, 6, 7, 10]
    fixed = _env(
        oicho_kabu_v2, [5, 6, 7, 10, 3], num_players=3, dealer_selection="fixed"
    )  # the option keeps player_0
    assert fixed.game.dealer == 0 and values(sp[0] for sp in fixed.game.spreads) == [5, 6, 7, 10]
    v1 = _env(oicho_kabu_v1, [5, 6, 7, 10, 3], num_players=3)
    assert v1.game.dealer == 0 and v1.game.selection_cards == [-1, -1, -1]


@pytest.mark.parametrize(
    ("condition", "dealer_second", "bettor_action", "domae"),
    [("low_hand", 1, S, 50), ("doubled", 10, S, 1)],
)
def test_enc_dealer_change_low_hand_and_doubled_in_standard(condition, dealer_second, bettor_action, domae):
    """The encyclopedia text: the deal passes when the dealer "has dealt the agreed number of times, is broke,
    has doubled the domae, or ends with 5 or less". ``low_hand``: the dealer stands on 9 + 5 = 4 (and loses
    to the bettor's 9); ``doubled``: the dealer's 9 + 10 = 9 beats the bettor's 6 and wins the domae of 1."""
    # table 2 7 7 8, dealer's first 9 | bets | seconds 7 (or 4) 1 1 1 | v2: the unbacked spreads 1-3
    # get 3 3 6 | the dealer's second
    second = 7 if condition == "low_hand" else 4
    deal = [2, 7, 7, 8, 9, second, 1, 1, 1]
    last = [dealer_second if condition == "doubled" else 5]
    dealers = {}
    for name, module, head, unbacked in (("v2", oicho_kabu_v2, [9, 1], [3, 3, 6]), ("v1", oicho_kabu_v1, [], [])):
        e = _env(module, head + deal + unbacked + last, num_players=2, max_rounds=2, domae=domae)
        assert e.game.dealer == 0
        _act(e, B(1), B(0), B(0), B(0), bettor_action, S)  # one chip on spread 0; both stand
        assert e.game.round_index == 1
        dealers[name] = e.game.dealer
    assert dealers == {"v2": 1, "v1": 0}  # v1 (deals, bust) keeps the dealer


# --- kabufuda_site (the kabufuda site) -----------------------------------------------------------------
# deck: selection (player_0 draws the lowest and deals), the bettor's info card, the table, [bets], the
# dealer's first (TAKE_TOP), the spreads' seconds, [thirds], the dealer's second (TAKE_TOP), [its third]


def test_site_no_third_card_on_eight_for_a_pair_bettor_or_dealer():
    """The kabufuda site: "rules for everyone, the dealer included: no third card on 7 or more"."""
    deck = [3, 5, 6, 4, 7, 7, 8, 4, 4, 1, 1, 1, 4]  # spread 0: 4-4; the dealer 4-4
    for module, legal in ((oicho_kabu_v2, [S]), (oicho_kabu_v1, [S, D])):
        e = _env(module, deck, rules="kabufuda_site", num_players=2)
        _act(e, B(1), B(0), B(0), B(0), TOP)
        assert e.game.phase == Phase.DECIDE and e.game.legal_actions() == legal
        _act(e, S, TOP)
        assert e.game.phase == Phase.DEALER_DRAW and e.game.legal_actions() == legal
        _act(e, S)
        assert values(e.game.dealer_cards) == [4, 4] and e.game.round_rewards == [0, 0]


def test_site_zero_against_zero_goes_by_the_tie_rule():
    """The kabufuda site has no "dealer wins on 0-0" rule: ties go by the table's tie rule."""
    # spread 0: 5-5 draws 10 (0); the dealer 5-5 draws 10 (0)
    deck = [3, 6, 6, 5, 7, 7, 8, 5, 5, 1, 1, 1, 10, 5, 10]
    results = {}
    for name, module in (("v2", oicho_kabu_v2), ("v1", oicho_kabu_v1)):
        for tie_rule in ("push", "dealer_wins"):
            e = _env(module, deck, rules="kabufuda_site", num_players=2, tie_rule=tie_rule)
            _act(e, B(1), B(0), B(0), B(0), TOP, D, TOP, D)
            assert values(e.game.spreads[0]) == [5, 5, 10] and values(e.game.dealer_cards) == [5, 5, 10]
            results[name, tie_rule] = e.game.round_rewards[1]
    assert results == {
        ("v2", "push"): 0,
        ("v2", "dealer_wins"): -1,
        ("v1", "push"): -1,
        ("v1", "dealer_wins"): -1,
    }


def test_site_decisions_go_in_asking_order():
    """The kabufuda site: "the dealer asks each player in turn whether he wants a card; on a card backed by
    several, the first asked decides". Selection 1, 2, 3: player_0 deals, player_1 is asked first."""
    deck = [1, 2, 3, 6, 6, 5, 6, 7, 8, 9, 10, 10, 1, 1]  # info cards 6 6; spreads 0, 1: 5 and 6 (free)
    for module, first in ((oicho_kabu_v2, (1, 1)), (oicho_kabu_v1, (2, 0))):
        e = _env(module, deck, rules="kabufuda_site", num_players=3)
        assert e.game.betting_order == [1, 2]
        _act(e, B(0), B(1), B(0), B(0), B(1), B(0), B(0), B(0), TOP)  # player_1 on spread 1, player_2 on 0
        assert e.game.decider[:2] == [2, 1]
        assert (e.game.current_player, e.game.active_spread) == first
        _act(e, S)
        assert (e.game.current_player, e.game.active_spread) == (3 - first[0], 1 - first[1])


def test_site_one_bettor_may_stake_the_whole_domae():
    """The kabufuda site: "one player may bet the whole maximum" (domae 50, the preset's own)."""
    e = _env(oicho_kabu_v2, [3, 5, 6, 4, 7, 7, 8], rules="kabufuda_site", num_players=2)
    assert e.game.cfg.domae == 50 and e.game.bet_sizes == (1, 5, 10, 25)
    _act(e, B(4), B(4))  # 25 + 25
    assert e.game.seat_total[1] == 50 and e.game.legal_actions() == [B(0)]
    v1 = _env(oicho_kabu_v1, [3, 5, 6, 4, 7, 7, 8], rules="kabufuda_site", num_players=2)
    _act(v1, B(4), B(4), B(4), B(4))  # 10 on every spread: v1's bettor reached 40 at most
    assert v1.game.seat_total[1] == 40


def test_enc_one_one_one_takes_pin_basami_against_the_dealers_arashi():
    """The encyclopedia text: pin-basami makes "the dealer lose unconditionally", and 1-1-1 is also an
    arashi. A hand holding several yaku takes, at the showdown, the one best for its holder against the
    actual opposing hand: against the dealer's 2-2-2 the pin-basami (+1), not the losing arashi (-3)."""
    # table 1 7 7 8, the dealer's first 2 | bets | seconds 1 8 8 9, spread 0 draws a 1 | v2: the unbacked
    # spreads 1-3 get 3 3 4 | the dealer's 2, then 2
    deal = [1, 7, 7, 8, 2, 1, 8, 8, 9, 1]
    got = {}
    for name, module, head, unbacked in (("v2", oicho_kabu_v2, [9, 1], [3, 3, 4]), ("v1", oicho_kabu_v1, [], [])):
        e = _env(module, head + deal + unbacked + [2, 2], num_players=2, local_yaku=["pin_basami"])
        _act(e, B(1), B(0), B(0), B(0), D, D)
        assert values(e.game.spreads[0]) == [1, 1, 1] and values(e.game.dealer_cards) == [2, 2, 2]
        got[name] = e.game.round_rewards[1]
    assert got == {"v2": 1, "v1": -3}
