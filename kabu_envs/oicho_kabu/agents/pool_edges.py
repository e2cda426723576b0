"""Exact bettor edges of a spread given the cards a bettor has seen (the expert's ``edges="exact"``).

Why: the expert's default edge of a first-card value is one number per rule set, a Monte Carlo over a
full deck. Where a bettor sees more before betting (its own info card under ``info_cards``: the
kabufuda site) and the edges are a few hundredths of a chip, that number is too coarse to bet on:
the sign of an edge depends on which cards are gone. Here the edge is **exact** for the seat's pool.

The model of one spread: its face-down second card ``x``, the third card ``y`` it draws (when the
shared draw rule draws on first-card value ``v`` and ``x``), the dealer's two cards ``d1, d2`` and its
third ``d3`` (when the modelled dealer draws) are five distinct cards of the unseen pool, in uniformly
random order (every other card that leaves the deck is exchangeable with them). The dealer is the
threshold dealer that draws on a value <= ``threshold``, one higher (``shift``) when the spread stood —
the reference dealer's reaction when this spread's stake dominates the table. The edge is

    sum over (x, y, d1, d2, d3) of P(x, y, d1, d2, d3 | pool) * settle(dealer hand, bettor hand)

with P the probability of drawing those five values in order without replacement: a (10,)^5 tensor
times a precomputed (10,)^6 outcome tensor per first value (``settle`` from ``SettleTable``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from kabu_envs.oicho_kabu.actions import DRAW, ESCAPE, STAND
from kabu_envs.oicho_kabu.agents.common import bettor_decision, dealer_threshold_decision, representative_ids
from kabu_envs.oicho_kabu.config import Config
from kabu_envs.oicho_kabu.deck import NUM_VALUES

_V = np.arange(1, NUM_VALUES + 1)


@lru_cache(maxsize=16)
def outcome_tensor(
    cfg: Config, draw_params: tuple[tuple[str, Any], ...], threshold: int, shift: int
) -> np.ndarray:
    """``[v, x, y, d1, d2, d3]`` (values 1..10 at index 0..9): one unit stake's result on a spread with
    first value ``v`` (module docstring); 0 where the draw rule escapes (the stake comes back)."""
    from kabu_envs.oicho_kabu.agents.expert import settle_table  # (expert imports this module)

    p = dict(draw_params)
    table = settle_table(cfg)
    table.fill()
    bettor = np.zeros((NUM_VALUES + 1,) * 2, dtype=np.int64)
    dealer = np.zeros((2, NUM_VALUES + 1, NUM_VALUES + 1), dtype=np.int64)
    for a in _V:
        for b in _V:
            two = representative_ids([int(a), int(b)], [False, False])
            bettor[a, b] = bettor_decision(cfg, two, p)
            dealer[0, a, b] = dealer_threshold_decision(cfg, two, threshold)
            dealer[1, a, b] = dealer_threshold_decision(cfg, two, threshold + shift)
    v, x, y, d1, d2, d3 = np.meshgrid(_V, _V, _V, _V, _V, _V, indexing="ij", sparse=True)
    action = bettor[v, x]
    dealer_draws = dealer[(action == STAND).astype(np.int64), d1, d2] == DRAW
    pair = (d1 - 1) * table.lights * table.keys + (d2 - 1) * table.lights  # SettleTable's codes, no lights
    d_code = np.where(dealer_draws, table.two + pair * NUM_VALUES + (d3 - 1), pair)
    b_two = (v - 1) * NUM_VALUES + (x - 1)  # its bettor codes
    b_code = np.where(action == DRAW, NUM_VALUES**2 + b_two * NUM_VALUES + (y - 1), b_two)
    out = table.values[d_code, b_code]
    out = np.where(action == ESCAPE, 0.0, out)
    out.flags.writeable = False
    return out


def draw_probabilities(counts: np.ndarray) -> np.ndarray:
    """``[x, y, d1, d2, d3]``: the probability that five cards drawn in order without replacement
    from a pool holding ``counts[k]`` cards of value k + 1 have these values (zero below five cards)."""
    c = np.asarray(counts, dtype=np.float64)
    n = c.sum()
    if n < 5:
        return np.zeros((NUM_VALUES,) * 5)
    eye = np.eye(NUM_VALUES)
    prob = np.ones((1,) * 5)
    for j in range(5):  # the j-th card: its value's count minus the earlier cards of that value
        left = c.reshape([NUM_VALUES if k == j else 1 for k in range(5)])
        for i in range(j):  # (axes i < j: eye on them)
            left = left - eye.reshape([NUM_VALUES if k in (i, j) else 1 for k in range(5)])
        prob = prob * np.maximum(left, 0.0) / (n - j)
    return prob


@lru_cache(maxsize=4096)
def pool_edges(
    cfg: Config, draw_params: tuple[tuple[str, Any], ...], threshold: int, shift: int, pool: tuple[int, ...]
) -> tuple[float, ...]:
    """The exact edge per unit stake of a spread of first value 1..10 given the unseen ``pool``
    (counts of values 1..10, the spread's first card already taken out)."""
    outcomes = outcome_tensor(cfg, draw_params, threshold, shift)
    prob = draw_probabilities(np.asarray(pool))
    return tuple(float(e) for e in np.tensordot(outcomes, prob, axes=5))
