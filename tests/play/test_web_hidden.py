"""Hidden information in kabu-play's web API: the JSON the server sends a seat does not change when
cards that seat may not see change (stacked decks, and unseen cards swapped mid-game); a seen card
changed does change it (so the comparison can fail)."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from kabu_envs.play.session import HUMAN, Match
from kabu_envs.play.web import App


def _sent(out: dict) -> str:
    """The response as the browser gets it, minus the session token."""
    return json.dumps({k: v for k, v in out.items() if k != "token"}, sort_keys=True)


def test_kakeya_other_hands_never_reach_the_browser():
    opts = {"dealers_choose_trump": False}
    probe = Match("kakeya", ["random"] * 4, opts, seed=1)
    game = probe.env.game
    seat = game.current_player  # the lead chooser: the person's first decision comes before any card
    receivers = [(game.first_dealer + k) % 4 for k in range(1, 5)]
    deck = [int(c) for c in np.random.default_rng(0).permutation(52)]
    x, y = [p for p in range(4) if p != seat][:2]  # two other seats
    at_x = [p for p in range(52) if receivers[p % 4] == x]  # deck positions dealt to seat x
    at_y = [p for p in range(52) if receivers[p % 4] == y]
    swapped = list(deck)
    for px, py in zip(at_x[:6], at_y[:6], strict=True):  # six cards change hands between x and y
        swapped[px], swapped[py] = swapped[py], swapped[px]
    assert swapped != deck
    app = App()
    body = {"game": "kakeya", "seat": seat, "seed": 1, "opponents": "random", "options": opts}
    one = app.new({**body, "deck": deck})
    two = app.new({**body, "deck": swapped})
    assert one["state"]["moves"] and _sent(one) == _sent(two)
    mine = next(p for p in range(52) if receivers[p % 4] == seat)
    theirs = at_x[0]
    leak = list(deck)
    leak[mine], leak[theirs] = leak[theirs], leak[mine]
    assert _sent(app.new({**body, "deck": leak})) != _sent(one)  # the own hand changed: the JSON did


def test_oicho_kabu_unseen_cards_of_a_stacked_deck_never_reach_the_browser():
    app = App()
    deck = [int(c) for c in np.random.default_rng(3).permutation(40)]
    # standard rules: the table is deck[0:4], the dealer's first card deck[4] (face down), the
    # second cards and draws come after the bets
    other = deck[:4] + [c for c in deck[4:] if c // 4 != deck[4] // 4][:1]
    other += [c for c in deck[4:] if c not in other][::-1]
    assert other[:4] == deck[:4] and other[4] // 4 != deck[4] // 4
    body = {
        "game": "oicho_kabu",
        "seat": 3,
        "seed": 9,
        "opponents": "random",
        "options": {"dealer_selection": "fixed"},
    }
    one, two = app.new({**body, "deck": deck}), app.new({**body, "deck": other})
    assert _sent(one) == _sent(two)
    assert len(one["frames"]) == 8  # seats 1 and 2 bet on the four spreads before seat 3
    for _ in range(3):  # the person's bets while the betting goes on
        a = app.move({"token": one["token"], "action": one["state"]["moves"][-1]["action"]})
        b = app.move({"token": two["token"], "action": two["state"]["moves"][-1]["action"]})
        assert _sent(a) == _sent(b)
        one, two = {**one, **a}, {**two, **b}
    table = deck[:4]
    seen = list(deck)
    seen[0] = next(c for c in deck[4:] if c // 4 != table[0] // 4)
    seen[deck.index(seen[0])] = table[0]
    assert _sent(app.new({**body, "deck": seen})) != _sent(app.new({**body, "deck": deck}))


def _unseen_oicho(game, seat: int) -> list[tuple[list, int]]:
    """(list, index) of every dealt card ``seat`` may not see now (docs/oicho_kabu.md#a-round)."""
    cfg = game.cfg
    out: list[tuple[list, int]] = []
    if not game.showdown:
        out += [(sp, 1) for s, sp in enumerate(game.spreads) if len(sp) > 1 and not game.stakes[s][seat]]
        if not (game.dealer_revealed and (cfg.dealer_second_card_face_up or seat == game.dealer)):
            out += [(game.dealer_cards, k) for k in range(min(2, len(game.dealer_cards)))]
    out += [(game.info_cards, p) for p in range(game.num_players) if p != seat and game.info_cards[p] >= 0]
    return out


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"rules": "kabufuda_site"},
        {"rules": "kansai", "deck": "hanafuda", "dealer_second_card_face_up": False},
    ],
)
def test_oicho_kabu_views_ignore_every_unseen_card_at_every_step(options):
    for seed in range(3):
        match = Match("oicho_kabu", ["random", HUMAN, "random", "random"], options, seed=seed)
        changed = 0
        while True:
            match.advance(limit=1)
            if match.over or match.human_to_act:
                env = match.env
                view = json.dumps(match.view())
                twin = copy.deepcopy(env)
                for cards, k in _unseen_oicho(twin.game, 1):
                    cards[k] = (cards[k] + 4 * (1 + k % 3)) % 40  # another value
                    changed += 1
                match.env = twin
                assert json.dumps(match.view()) == view
                twin.game.spreads[0][0] = (twin.game.spreads[0][0] + 4) % 40  # a seen card
                assert json.dumps(match.view()) != view
                match.env = env
            if match.over:
                break
            if match.human_to_act:
                match.play(match.legal_moves()[-1]["action"])
        assert changed > 0


def test_kakeya_views_ignore_how_the_other_hands_are_split_at_every_step():
    match = Match("kakeya", [HUMAN, "random", "random", "random"], seed=4)
    checked = 0
    while not match.over:
        match.advance()
        if match.over:
            break
        game = match.env.game
        view = json.dumps(match.view())
        h1, h3 = game.hands[1], game.hands[3]
        low1, low3 = h1 & -h1, h3 & -h3
        if low1 and low3:  # swap one card between two other hands
            game.hands[1], game.hands[3] = h1 ^ low1 | low3, h3 ^ low3 | low1
            assert json.dumps(match.view()) == view
            game.hands[1], game.hands[3] = h1, h3
            checked += 1
        match.play(match.legal_moves()[0]["action"])
    assert checked > 5
