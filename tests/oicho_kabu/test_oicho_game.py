"""The Game state machine's API: illegal actions per phase, rewards, the public log, the deck, helpers."""

from __future__ import annotations

from dataclasses import astuple

import numpy as np
import pytest
from oicho_game_helpers import BOTTOM, KEEP, REDEAL, TOP, B, D, S, bet_round, new_game, stack, values

from kabu_envs.core.errors import IllegalActionError
from kabu_envs.core.rng import make_rng
from kabu_envs.oicho_kabu import events
from kabu_envs.oicho_kabu.deck import TAKE_BOTTOM, TAKE_FOURTH, TAKE_TOP, Deck
from kabu_envs.oicho_kabu.game import Phase
from kabu_envs.oicho_kabu.render import render_log, render_text
from kabu_envs.oicho_kabu.session import dealer_must_change, next_dealer


# --- illegal actions -------------------------------------------------------------------------------
def test_illegal_bet_names_action_and_legal_list():
    g = new_game(domae=1)
    with pytest.raises(IllegalActionError) as info:
        g.apply_action(B(2))
    msg = str(info.value)
    assert "illegal action 10 (BET(2)=2)" in msg and "player_1" in msg and "phase BET" in msg
    assert "legal actions: [8=BET(0)=0, 9=BET(1)=1]" in msg
    assert info.value.legal == [B(0), B(1)] and isinstance(info.value, ValueError)


@pytest.mark.parametrize("bad", [S, D, KEEP, TOP, 99, -1])
def test_non_bet_actions_are_illegal_during_bets(bad):
    g = new_game()
    with pytest.raises(IllegalActionError, match=f"illegal action {bad}"):
        g.apply_action(bad)
    assert g.phase == Phase.BET and g.active_spread == 0  # nothing changed


def test_illegal_actions_in_every_phase():
    # table 5 5 5 5, dealer 6 (TAKE_TOP), seconds 4 (spread 0: 9, must stand), dealer's second 1
    g = new_game([5, 5, 5, 5, 6, 4, 4, 4, 4, 1], minso=True, dealer_card_choice=True)
    with pytest.raises(IllegalActionError, match="phase MINSO.*3=KEEP, 4=REDEAL"):
        g.apply_action(B(0))
    g.apply_action(KEEP)
    with pytest.raises(
        IllegalActionError, match="phase DEALER_CHOICE.*5=TAKE_TOP, 6=TAKE_BOTTOM, 7=TAKE_FOURTH"
    ):
        g.apply_action(S)
    g.apply_action(TOP)
    bet_round(g, {1: {0: 1}})
    with pytest.raises(IllegalActionError, match=r"illegal action 1 \(DRAW\).*phase DECIDE.*\[0=STAND\]"):
        g.apply_action(D)
    g.apply_action(S)
    g.apply_action(TOP)
    with pytest.raises(IllegalActionError, match="phase DEALER_DRAW"):
        g.apply_action(KEEP)
    g.apply_action(g.legal_actions()[0])
    assert g.terminal
    with pytest.raises(IllegalActionError, match="phase OVER"):
        g.apply_action(S)


def test_forced_single_actions_still_reject_the_others():
    g = new_game([1, 5, 5, 5, 6, 1])  # 1-1: must draw
    bet_round(g, {1: {0: 1}})
    with pytest.raises(IllegalActionError, match=r"\[1=DRAW\]"):
        g.apply_action(S)


# --- rewards and chips -----------------------------------------------------------------------------
def test_pop_rewards_pays_once_at_round_end():
    g = new_game([9, 7, 7, 7, 2, 10, 1, 1, 1, 6])
    assert list(g.pop_rewards()) == [0, 0]
    bet_round(g, {1: {0: 2}})
    g.apply_action(S)
    assert list(g.pop_rewards()) == [0, 0]  # nothing before the showdown
    g.apply_action(S)
    assert list(g.pop_rewards()) == [-2, 2]
    assert list(g.pop_rewards()) == [0, 0]
    assert g.chips == [98, 102] and g.round_rewards == [-2, 2]


def test_unpopped_rewards_accumulate_over_rounds():
    g = new_game(max_rounds=3, dealer_change=("deals",), dealer_max_deals=1)
    while not g.terminal:
        if g.phase == Phase.BET:
            g.apply_action(g.legal_actions()[-1])
        else:
            g.apply_action(g.legal_actions()[0])
    r = g.pop_rewards()
    assert r.sum() == 0 and list(r) == [c - 100 for c in g.chips]


# --- the public log and render ---------------------------------------------------------------------
def _cards_named(event: events.Event) -> set[int]:
    """Every int an event holds, also inside its tuples (the cards it shows, among seats and counts)."""
    out: set[int] = set()
    for value in astuple(event):
        out.update(value if isinstance(value, tuple) else (value,))
    return out


def test_log_and_render_hide_face_down_cards_until_the_showdown():
    g = new_game([3, 4, 5, 6, 9, 2, 8, 8, 8, 8])
    bet_round(g, {1: {0: 1}})
    text = render_text(g)
    assert "[9]" in text and "[2]" in text  # face-down cards in brackets
    second = g.spreads[0][1]
    assert all(second not in _cards_named(ev) for ev in g.log if not isinstance(ev, events.Showdown))
    g.apply_action(S)
    g.apply_action(S)
    text = render_text(g)
    assert "[9]" not in text and "[2]" not in text and "spread 0: 3 2" in text
    log = render_log(g)
    assert "player_1 stakes 1 on spread 0" in log and "showdown: dealer 9 8" in log
    assert "episode over" in log


def test_action_names():
    g = new_game()
    assert g.action_name(B(3)) == "BET(3)=5" and g.action_name(BOTTOM) == "TAKE_BOTTOM"


# --- deck ------------------------------------------------------------------------------------------
def test_deck_take_and_reshuffle_keep_the_stacked_prefix_on_top():
    prefix = stack([1, 2, 3, 4, 5, 6])
    d = Deck(make_rng(0), prefix)
    assert d.draw() == prefix[0]
    assert d.take(TAKE_FOURTH) == prefix[4]  # 4th from the top: 2 3 4 [5]
    assert d.take(TAKE_TOP) == prefix[1]
    bottom = d.cards[-1]
    assert d.peek(TAKE_BOTTOM) == bottom and d.take(TAKE_BOTTOM) == bottom
    d.reshuffle([prefix[0], prefix[4]])
    assert d.cards[:3] == [prefix[2], prefix[3], prefix[5]]  # the unused prefix stays on top, in order
    assert sorted(d.cards) == sorted(set(range(40)) - {prefix[1], bottom})
    d.fresh()
    assert d.cards[:3] == [prefix[2], prefix[3], prefix[5]] and sorted(d.cards) == list(range(40))
    for _ in range(3):
        d.draw()
    d.fresh()
    assert sorted(d.cards) == list(range(40)) and d.stacked == 0


def test_deck_take_fourth_inside_a_stacked_prefix_shrinks_it():
    d = Deck(make_rng(0), stack([1, 2, 3, 4]))
    assert values([d.take(TAKE_FOURTH)]) == [4]
    d.reshuffle([])
    assert values(d.cards[:3]) == [1, 2, 3] and d.stacked == 3


def test_deck_without_prefix_is_a_seeded_permutation():
    a, b = Deck(make_rng(7)), Deck(make_rng(7))
    assert a.cards == b.cards and sorted(a.cards) == list(range(40)) and len(a) == 40


# --- session helpers -------------------------------------------------------------------------------
def test_next_dealer_skips_seats_without_chips():
    assert next_dealer(0, [5, 5, 5]) == 1
    assert next_dealer(2, [5, 0, 5]) == 0
    assert next_dealer(0, [5, 0, -3]) == 0


@pytest.mark.parametrize(
    ("cond", "kwargs", "expect"),
    [
        ("deals", {"deals": 5}, True),
        ("deals", {"deals": 4}, False),
        ("bust", {"chips": 0}, True),
        ("bust", {"chips": 1}, False),
        ("doubled", {"chips": 150, "start_chips": 100}, True),
        ("doubled", {"chips": 149, "start_chips": 100}, False),
        ("low_hand", {"final_value": 5}, True),
        ("low_hand", {"final_value": 6}, False),
        ("low_hand", {"final_value": None}, False),
        ("lost_all", {"lost_all": True}, True),
    ],
)
def test_dealer_must_change(cond, kwargs, expect):
    base = dict(deals=1, max_deals=5, chips=100, start_chips=100, domae=50, final_value=9, lost_all=False)
    base.update(kwargs)
    assert dealer_must_change((cond,), **base) is expect
    assert dealer_must_change((), **base) is False


def test_redeal_keeps_cards_unique():
    g = new_game([1, 2, 3, 4, 5, 6, 7, 8, 9], minso=True, minso_limit=3)
    for _ in range(3):
        g.apply_action(REDEAL)
    cards = g.cards_in_play() + g.deck.cards[g.deck.top :]
    assert sorted(cards) == list(range(40))
    assert np.all(np.array(cards) >= 0)


def test_one_apply_function_per_phase():
    from kabu_envs.oicho_kabu.game import Game

    for phase in Phase:
        if phase != Phase.OVER:
            assert Game._APPLY[phase].__name__.endswith(
                {"MINSO": "minso", "BET": "bet", "DEALER_CHOICE": "choice", "DECIDE": "decide"}.get(
                    phase.name, "dealer_draw"
                )
            )


def test_numpy_ints_are_accepted_and_floats_rejected():
    g = new_game()
    g.apply_action(np.int64(B(1)))
    assert g.stakes[0][1] == 1
    with pytest.raises(TypeError):
        g.apply_action(8.0)
    assert g.active_spread == 1
