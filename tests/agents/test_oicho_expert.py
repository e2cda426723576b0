"""The expert Oicho-Kabu player's expected-value decisions (bets, dealer draw, minso)."""

import pytest
from test_oicho_scripted import ids, stacked_round

from kabu_envs.oicho_kabu import events
from kabu_envs.oicho_kabu.agents.expert import OichoExpertAgent


def _stacked_round(opts: dict, deck: list[int]) -> list[events.Event]:
    return stacked_round(opts, deck, OichoExpertAgent)


def test_bets_only_on_favourable_first_cards_and_stakes_more_there():
    opts = {"num_players": 2}
    # table 1, 6, 7, 8 (edges: only the 1 is clearly good), dealer card, second cards, ...
    log = _stacked_round(opts, ids(1, 6, 7, 8, 2))
    bets = [e for e in log if isinstance(e, events.Bet)]
    assert bets == [events.Bet(1, 0, 10)]


@pytest.mark.parametrize("third, expect", [(1, events.DealerStand), (5, events.DealerDraw)])
def test_dealer_draw_uses_the_spreads_third_cards(third, expect):
    # spread 0: 1 then 2 (=3, must draw) then ``third``; dealer 2 then 3 (=5, free choice).
    # Third card 1 -> the spread is 1+x+1, mostly 2..5: standing on 5 is right (EV +0.17 vs -0.13);
    # third card 5 -> 1+x+5, mostly 7..9: the dealer must improve (EV -0.60 stand vs -0.33 draw).
    opts = {"num_players": 2}
    table = [0, 20, 24, 28]  # values 1, 6, 7, 8
    card = (third - 1) * 4 + 1
    deck = [*table, 4, 5, 21, 25, 29, card, 8]
    log = _stacked_round(opts, deck)
    assert events.Draw(0, card) in log
    assert any(isinstance(e, expect) for e in log), log


def test_minso_redeals_a_bettor_friendly_table_and_keeps_a_poor_one():
    opts = {"rules": "kansai", "num_players": 2}
    good = _stacked_round(opts, ids(1, 4, 1, 4))
    assert events.MinsoRedeal(tuple(ids(1, 4, 1, 4))) in good
    poor = _stacked_round(opts, ids(3, 5, 7, 8))
    assert events.MinsoKeep() in poor
