"""Helpers for the Kakeya tests: stacked decks from wished hands, scripted play."""

from __future__ import annotations

import numpy as np

from kabu_envs.kakeya import make_config
from kabu_envs.kakeya.cards import card_ids
from kabu_envs.kakeya.game import Game

ids = card_ids  # the engine's helper, under the name the tests use


def deal_order(n: int, first_dealer: int, skip: tuple[int, ...] = ()) -> list[int]:
    """Seats in deal order: from the seat after the first dealer, round the table."""
    return [s for s in ((first_dealer + k) % n for k in range(1, n + 1)) if s not in skip]


def deck_for(hands: dict[int, list], order: list[int]) -> list[int]:
    """The stacked deck (deal order) that gives every seat exactly ``hands[seat]``."""
    hands = {s: ids(h) for s, h in hands.items()}
    deck = []
    taken = dict.fromkeys(order, 0)
    for i in range(sum(len(h) for h in hands.values())):
        seat = order[i % len(order)]
        deck.append(hands[seat][taken[seat]])
        taken[seat] += 1
    return deck


def suit_hands() -> dict[int, list[int]]:
    """Seat s holds the whole suit s (clubs, diamonds, hearts, spades)."""
    return {s: list(range(13 * s, 13 * s + 13)) for s in range(4)}


def new_game(deck=None, seed: int = 0, **options) -> Game:
    return Game(make_config(**options), np.random.Generator(np.random.PCG64(seed)), deck)


def play_min_until_deal_ends(game: Game) -> np.ndarray:
    """Play the lowest legal card id until the current deal is scored; returns its rewards."""
    deals = game.deal_no
    while game.deal_no == deals:
        game.apply_action(min(game.legal_actions()))
    return game.pop_rewards()
