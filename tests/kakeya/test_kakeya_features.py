"""Kakeya's policy features (kabu_envs/kakeya/features.py) against the engine's own state and rules.

Each feature is recomputed here from the engine (the hands, the cards played, the trick and the rules'
``trick_winner``), not from the observation, on the decisions of random games of 4 and 6 players and
under both Rensho rules; a batch gives the same numbers as one row at a time; the layout documented in
``CARD_FEATURES`` is the layout computed.
"""

from __future__ import annotations

import numpy as np
import pytest

from kabu_envs.agents.features import FeatureInputs, get_features, known_features
from kabu_envs.kakeya import make_config
from kabu_envs.kakeya.cards import JACK, NUM_CARDS, NUM_RANKS, NUM_SUITS
from kabu_envs.kakeya.features import (
    CARD_FEATURES,
    SEAT_FEATURES,
    card_features,
    card_features_size,
    cards_seats_features,
    cards_seats_size,
    layout_size,
    seat_features,
)
from kabu_envs.kakeya.game import Game, Phase, partnership_of
from kabu_envs.kakeya.observation import Encoder
from kabu_envs.kakeya.tricks import trick_winner

TABLES = [{}, {"num_players": 6}, {"rensho_rule": "seed"}]


def _can_win(card: int, led: int, trump: int, rensho: int) -> bool:
    """Whether ``card`` can take a trick led in ``led``: the rules' trick_winner with a low card of
    the led suit in front of it (or the card itself leading)."""
    lead = led * NUM_RANKS if card != led * NUM_RANKS else led * NUM_RANKS + 1
    return card // NUM_RANKS == led or trick_winner([lead, card], led, trump, rensho) == 1


def _expected(game: Game, seat: int) -> np.ndarray:
    """The features of ``seat``'s decision, from the engine's state and ``trick_winner``."""
    n = game.cfg.num_players
    hand, gone = game.hands[seat], game.played | game.hands[seat]
    out = [not (gone >> c) & 1 for c in range(NUM_CARDS)]
    trick = game.trick
    cards = list(trick.cards) if trick is not None else []
    led = trick.led_suit if trick is not None and cards else -1
    trump, rensho = game.trump, game.rensho
    above = np.zeros(NUM_CARDS)
    threats = np.zeros(NUM_CARDS)
    beats = np.zeros(NUM_CARDS)
    for c in range(NUM_CARDS):
        suit, rank = divmod(c, NUM_RANKS)
        above[c] = sum(out[suit * NUM_RANKS + r] for r in range(rank + 1, NUM_RANKS))
        lead_suit = led if led >= 0 else suit  # leading: a trick led with c
        others = [d for d in range(NUM_CARDS) if d != c and out[d]]
        if _can_win(c, lead_suit, trump, rensho):  # d beats c: played after c, d takes the trick
            threats[c] = sum(trick_winner([c, d], lead_suit, trump, rensho) == 1 for d in others)
        else:  # c cannot take the trick: every card that can is a threat
            threats[c] = sum(_can_win(d, lead_suit, trump, rensho) for d in others)
        if (hand >> c) & 1:
            if not cards:
                beats[c] = 1.0
            else:
                beats[c] = trick_winner([*cards, c], led, trump, rensho) == len(cards)
    safe = beats * (threats == 0)
    winning = np.zeros(n)
    if cards:
        winner = trick.seats[trick_winner(cards, led, trump, rensho)]
        winning[(winner - seat) % n] = 1.0
    stake = sum(c % NUM_RANKS >= JACK for c in cards) / 4.0
    suit_out = [sum(out[s * NUM_RANKS : (s + 1) * NUM_RANKS]) / 13.0 for s in range(NUM_SUITS)]
    suit_mine = [
        ((hand >> (s * NUM_RANKS)) & ((1 << NUM_RANKS) - 1)).bit_count() / 13.0 for s in range(NUM_SUITS)
    ]
    return np.concatenate(
        [
            above / 12.0,
            threats / 13.0,
            beats,
            safe,
            winning,
            winning[n // 2 : n // 2 + 1],
            [stake],
            suit_out,
            suit_mine,
        ]
    ).astype(np.float32)


def _beats(c: int, d: int, lead_suit: int, trump: int, rensho: int) -> bool:
    """Card ``d`` would beat card ``c`` in a trick led in ``lead_suit`` (``threats``' definition)."""
    if _can_win(c, lead_suit, trump, rensho):
        return trick_winner([c, d], lead_suit, trump, rensho) == 1
    return _can_win(d, lead_suit, trump, rensho)


def _expected_seats(game: Game, seat: int) -> np.ndarray:
    """``SEAT_FEATURES`` of ``seat``'s decision, from the engine's hands, voids, trick and captures."""
    n = game.cfg.num_players
    hand, gone = game.hands[seat], game.played | game.hands[seat]
    trick = game.trick
    cards = list(trick.cards) if trick is not None else []
    in_trick = set(trick.seats) if trick is not None else set()
    led = trick.led_suit if trick is not None and cards else -1
    may_hold = np.zeros((n, NUM_CARDS))
    to_play = np.zeros(n)
    for k in range(1, n):
        other = (seat + k) % n
        if game.hand_counts[other] == 0:
            continue
        to_play[k] = other not in in_trick
        for c in range(NUM_CARDS):
            void = (game.void_bits >> (NUM_SUITS * other + c // NUM_RANKS)) & 1
            may_hold[k, c] = not (gone >> c) & 1 and not void
    opponents = [k for k in range(1, n) if k != n // 2 and to_play[k]]
    opp_may = may_hold[opponents].any(0) if opponents else np.zeros(NUM_CARDS, dtype=bool)
    opp_threats = np.zeros(NUM_CARDS)
    opp_safe = np.zeros(NUM_CARDS)
    for c in range(NUM_CARDS):
        lead_suit = led if led >= 0 else c // NUM_RANKS
        opp_threats[c] = sum(
            _beats(c, d, lead_suit, game.trump, game.rensho)
            for d in range(NUM_CARDS)
            if d != c and opp_may[d]
        )
        if (hand >> c) & 1:
            wins = not cards or trick_winner([*cards, c], led, game.trump, game.rensho) == len(cards)
            opp_safe[c] = wins and opp_threats[c] == 0
    egara = [sum(c % NUM_RANKS >= JACK for c in range(NUM_CARDS) if (cap >> c) & 1) for cap in game.captured]
    mine = partnership_of(seat, n)
    theirs = max(e for p, e in enumerate(egara) if p != mine)
    in_hand = sum(c % NUM_RANKS >= JACK for c in range(NUM_CARDS) if (hand >> c) & 1)
    return np.concatenate(
        [
            may_hold[1:].ravel(),
            to_play[1:],
            opp_threats / 13.0,
            opp_safe,
            [egara[mine] / 16.0, theirs / 16.0, (16 - sum(egara)) / 16.0, in_hand / 16.0],
        ]
    ).astype(np.float32)


def _decisions(options: dict, games: int, seed: int):
    """(observation, engine copy of the expected features) at every card decision of random games."""
    cfg = make_config(**options)
    enc = Encoder(cfg)
    rng = np.random.default_rng(seed)
    for g in range(games):
        game = Game(cfg, np.random.default_rng(seed + g))
        deals = game.deal_no
        while not game.terminal and game.deal_no == deals:
            seat = game.current_player
            if game.phase == Phase.PLAY:
                yield (
                    enc.encode(game, seat),
                    np.concatenate([_expected(game, seat), _expected_seats(game, seat)]),
                )
            game.apply_action(int(rng.choice(game.legal_actions())))


def _check_layout(got: np.ndarray, want: np.ndarray, layout: tuple, n: int) -> None:
    """Piece by piece, so that a failure names the feature; and every piece varies (a constant column
    would pass any comparison with a wrong engine copy too)."""
    at = 0
    for (name, _, _), size in zip(layout, layout_size(layout, n), strict=True):
        np.testing.assert_array_equal(got[:, at : at + size], want[:, at : at + size], err_msg=name)
        assert got[:, at : at + size].std() > 0, name
        at += size
    assert at == got.shape[1] == want.shape[1]


@pytest.mark.parametrize("options", TABLES, ids=["4p", "6p", "seed-rensho"])
def test_every_feature_is_what_the_engine_and_the_rules_say(options):
    pairs = list(_decisions(options, 4, 11))
    assert len(pairs) > 150
    obs = np.stack([o for o, _ in pairs])
    want = np.stack([e for _, e in pairs])
    n = make_config(**options).num_players
    cards = card_features(obs, options)
    assert cards.shape == (len(pairs), card_features_size(options))
    _check_layout(cards, want[:, : cards.shape[1]], CARD_FEATURES, n)
    seats = seat_features(obs, options)
    _check_layout(seats, want[:, cards.shape[1] :], SEAT_FEATURES, n)
    both = cards_seats_features(obs, options)
    assert both.shape == (len(pairs), cards_seats_size(options))
    assert np.array_equal(both, np.concatenate([cards, seats], axis=1))


def test_a_batch_gives_each_row_what_that_row_alone_gives():
    obs = np.stack([o for o, _ in _decisions({}, 2, 5)])
    for compute in (card_features, cards_seats_features):
        batch = compute(obs, {})
        rows = np.concatenate([compute(o[None], {}) for o in obs])
        assert np.array_equal(batch, rows), compute.__name__


def test_the_game_declares_its_features_and_an_unknown_name_says_what_is_known():
    assert sorted(known_features("kakeya")) == ["cards", "cards_seats"]
    assert known_features("oicho_kabu") == {}
    assert get_features("kakeya", "cards").size({"num_players": 6}) == card_features_size({"num_players": 6})
    with pytest.raises(
        ValueError, match=r"unknown policy features 'tricks' for kakeya; known: \['cards', 'cards_seats'\]"
    ):
        get_features("kakeya", "tricks")
    with pytest.raises(ValueError, match="known: none"):
        get_features("oicho_kabu", "cards")
    inputs = FeatureInputs("kakeya", "cards", {})
    obs = np.stack([o for o, _ in _decisions({}, 1, 3)])
    x = inputs(obs)
    assert x.shape == (len(obs), obs.shape[1] + inputs.size) and np.array_equal(x[:, : obs.shape[1]], obs)
    with pytest.raises(ValueError, match="take a batch"):
        inputs(obs[0])
