"""Kakeya's resampling hook for search bots (``RESAMPLER``; read by ``kabu_envs.openspiel.bots``).

A search bot (OpenSpiel's IS-MCTS, PIMC) searches worlds that re-deal the cards its seat cannot see.
Kakeya's deals are constrained: a seat that did not follow suit holds no card of that suit (Rensho
aside, with ``rensho_follow="free"``), so a uniform shuffle of the unseen cards rarely fits late in a
deal. This hook draws the other seats' hands uniformly among the deals consistent with the seat's
observation (the consistent-deal sampler ``agents/sampler.py``, as the expert player does) and writes
them back into the deck's order: card ``i`` of a deal goes to ``receivers[i % len(receivers)]``
(``Game._deal``), so each seat's unseen positions get its new cards.

It reads the seat's observation, the public seating (first dealer, the seats dealt to) and the
positions of the cards the seat sees; never another seat's cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kabu_envs.kakeya.cards import bits_to_cards
from kabu_envs.kakeya.game import Phase
from kabu_envs.kakeya.knowledge import ViewDecoder
from kabu_envs.kakeya.sampler import DealSampler


class KakeyaResampler:
    """``resample_deck(raw_env, seat, deck, rng)``: the deck in play with the other seats' unseen cards
    re-dealt consistently with ``seat``'s observation."""

    def __init__(self) -> None:
        self._decoders: dict[Any, ViewDecoder] = {}

    def resample_deck(
        self, raw_env: Any, seat: int, deck: Sequence[int], rng: np.random.Generator
    ) -> list[int]:
        env = raw_env.unwrapped
        game = env.game
        cfg = env.config
        decoder = self._decoders.get(cfg)
        if decoder is None:
            decoder = self._decoders[cfg] = ViewDecoder(cfg)
        view = decoder.decode(np.asarray(env.observe(env.possible_agents[seat])["observation"]))
        if view.phase is Phase.TRUMP or game.terminal:  # the deck in play is a finished deal's: all seen
            return list(deck)
        n = cfg.num_players
        seats = list(range(1, n))  # relative seats: k is seat (seat + k) % n, the play order
        sampler = DealSampler(
            view.unseen,
            seats,
            [view.hand_counts[k] for k in seats],
            view.voids,
            view.rensho,
            cfg.rensho_follow == "free",
        )
        hands = sampler.sample(rng)
        new_cards = {(seat + k) % n: bits_to_cards(bits) for k, bits in hands.items()}
        receivers = [(game.first_dealer + k) % n for k in range(1, n + 1)]
        receivers = [s for s in receivers if game.active[s]]
        out = list(deck)
        unseen = view.unseen
        taken = {s: 0 for s in new_cards}
        for i, card in enumerate(deck):
            if (unseen >> card) & 1:
                owner = receivers[i % len(receivers)]
                out[i] = new_cards[owner][taken[owner]]
                taken[owner] += 1
        if any(taken[s] != len(new_cards[s]) for s in new_cards):
            raise ValueError("Kakeya resample: the deck's unseen positions do not match the hand counts")
        return out


RESAMPLER = KakeyaResampler()
