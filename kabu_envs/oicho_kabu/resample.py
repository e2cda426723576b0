"""Oicho-Kabu's resampling hook for search bots (``RESAMPLER``; read by ``kabu_envs.openspiel.bots``).

A world re-deals the cards a seat cannot see: the face-down cards it has no stake on (other spreads'
second cards, the dealer's, the other bettors' info cards) and the undealt deck. The deck in play is the
last shuffle; its first cards have been dealt (the count is public: ``Deck.top``, or with the dealer's
top/bottom/4th choice the places taken). A dealt card the seat sees stays where it is; every other
place of the deck gets the other cards in a uniformly random order. A card the seat has seen but that
went back into the deck (the dealer-selection cards, a minso or triple-table redeal) is *not* kept in
place: the seat knows it is somewhere in the deck, not where (keeping it would be clairvoyance; the
OpenSpiel cross-check, ``kabu_envs/openspiel/crosscheck.py``, caught exactly that).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kabu_envs.oicho_kabu.view import VIEWER


def _shown(view: Any) -> set[int]:
    """The card ids a seat view shows face up (``kabu_envs.core.views`` face cards)."""
    out: set[int] = set()
    stack = [view]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "kind" in item and isinstance(item.get("id"), int):
                out.add(item["id"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out


class OichoResampler:
    """``resample_deck(raw_env, seat, deck, rng)``: the deck in play with the cards ``seat`` cannot see
    re-dealt (module docstring)."""

    def resample_deck(
        self, raw_env: Any, seat: int, deck: Sequence[int], rng: np.random.Generator
    ) -> list[int]:
        game = raw_env.unwrapped.game
        undealt = set(game.deck.cards[game.deck.top :])
        # the places dealt from (public: how many cards left the deck, and from where)
        dealt = {i for i, c in enumerate(deck) if c not in undealt}
        shown = _shown(VIEWER.seat_view(raw_env.unwrapped, seat))
        where = [i for i, c in enumerate(deck) if i not in dealt or c not in shown]
        cards = sorted(deck[i] for i in where)  # a set: nothing of the hidden order is read
        out = list(deck)
        for i, k in zip(where, rng.permutation(len(cards)), strict=True):
            out[i] = cards[int(k)]
        return out


RESAMPLER = OichoResampler()
