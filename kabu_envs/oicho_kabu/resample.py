"""Oicho-Kabu's resampling hook for search bots (``RESAMPLER``; read by ``kabu_envs.openspiel.bots``).

A world re-deals the cards a seat cannot see: the face-down cards it has no stake on (other spreads'
second cards, the dealer's, the other bettors' info cards) and the undealt deck. The deck in play is the
last shuffle; its first cards have been dealt (the count is public: ``Deck.top``, or with the dealer's
top/bottom/4th choice the places taken). A dealt card the seat sees stays where it is; every other
place of the deck gets the other cards in a uniformly random order. A card the seat has seen but that
went back into the deck (the dealer-selection cards, a minso or triple-table redeal) is *not* kept in
place, even when it was dealt again face down: the seat knows it is somewhere in the deck, not where
(keeping it would be clairvoyance; the OpenSpiel cross-check, ``training/crosscheck.py``,
caught exactly that). What the seat sees where it lies is the observation's visibility
(``render.visibility``, tested against the encoder), not the seat view's list of cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kabu_envs.oicho_kabu.render import FACE, visibility


def _seen_in_place(game: Any, seat: int) -> set[int]:
    """The dealt cards ``seat`` sees where they lie (spreads, dealer, info cards: the observation's
    visibility, ``render.visibility``). A card it saw elsewhere (a selection card, a redealt table) is
    not among them: where it is now, the seat does not know."""
    spreads, dealer, info = visibility(game, seat)
    out = {
        c
        for cards, how in zip(game.spreads, spreads, strict=True)
        for c, h in zip(cards, how, strict=True)
        if h == FACE
    }
    out |= {c for c, h in zip(game.dealer_cards, dealer, strict=True) if h == FACE}
    out |= {c for c, h in zip(game.info_cards, info, strict=True) if c >= 0 and h == FACE}
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
        seen = _seen_in_place(game, seat)
        where = [i for i, c in enumerate(deck) if i not in dealt or c not in seen]
        cards = sorted(deck[i] for i in where)  # a set: nothing of the hidden order is read
        out = list(deck)
        for i, k in zip(where, rng.permutation(len(cards)), strict=True):
            out[i] = cards[int(k)]
        return out


RESAMPLER = OichoResampler()
