"""Per-config lookup tables for the Oicho-Kabu batch engine, built by calling ``rules`` itself.

The rules only ever look at a card's *class* (its value, or for a hanafuda deck one of the three
lights), so a 2- or 3-card hand is one index into ``K**2 + K**3`` hands. Every table here is the answer
of ``rules.draw_options`` / ``rules.best_yaku`` / ``rules.settle`` on a representative of each class:
the batch engine cannot drift from the AEC rules, whatever the options and yaku overrides say.

``settle`` is tabulated over hand *signatures*, not hand pairs (10**6 pairs would take seconds): a
signature is everything ``rules.settle`` reads of one hand (ten-ten-ten, its best yaku, its value, its
first card's value when it holds a yaku, its win multiplier). ``tests/oicho_kabu/test_batch_oicho.py``
checks the signature table against ``rules.settle`` on random hand pairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from kabu_envs.oicho_kabu import rules
from kabu_envs.oicho_kabu.config import Config
from kabu_envs.oicho_kabu.deck import COPIES, DECK_SIZE, LIGHT_CARDS, NUM_VALUES, VALUES

# draw-option codes: bit 0 STAND, bit 1 DRAW, bit 2 ESCAPE
STAND_BIT, DRAW_BIT, ESCAPE_BIT = 1, 2, 4
_LIGHTS = tuple(sorted(LIGHT_CARDS))


@dataclass(frozen=True)
class HandTables:
    """Card classes, hand indices and the rule answers per hand (see the module docstring)."""

    num_classes: int  # K: 10, or 13 with the hanafuda lights
    card_class: np.ndarray  # (40,) card id -> class 0..K-1
    hand_value: np.ndarray  # (K**2 + K**3,) hand -> value mod 10
    draw_bettor: np.ndarray  # (K**2,) two-card hand -> draw-option code of a bettor
    draw_dealer: np.ndarray  # (K**2,) the same for the dealer (never ESCAPE)
    dealer_sig: np.ndarray  # (K**2 + K**3,) hand -> dealer signature
    bettor_sig: np.ndarray  # (K**2 + K**3,) hand -> bettor signature
    settle: np.ndarray  # (dealer signatures, bettor signatures) -> signed multiplier per stake


def hand2(c0: np.ndarray, c1: np.ndarray, k: int) -> np.ndarray:
    """Hand index of two card classes in dealt order."""
    return c0 * k + c1


def hand3(c0: np.ndarray, c1: np.ndarray, c2: np.ndarray, k: int) -> np.ndarray:
    """Hand index of three card classes in dealt order (after the ``k**2`` two-card hands)."""
    return k * k + (c0 * k + c1) * k + c2


def _representatives(cfg: Config) -> tuple[np.ndarray, list[int]]:
    """(card id -> class, class -> a card id of that class)."""
    cls = np.array([VALUES[c] - 1 for c in range(DECK_SIZE)], dtype=np.int64)
    reps = [v * COPIES + 1 for v in range(NUM_VALUES)]  # copy 1 is never a light
    if cfg.deck == "hanafuda":
        for i, c in enumerate(_LIGHTS):
            cls[c] = NUM_VALUES + i
            reps.append(c)
    return cls, reps


@lru_cache(maxsize=32)
def hand_tables(cfg: Config) -> HandTables:
    """The tables of rule set ``cfg`` (cached: a config is immutable and hashable)."""
    cls, reps = _representatives(cfg)
    k = len(reps)
    hands: list[tuple[int, ...]] = [(reps[a], reps[b]) for a in range(k) for b in range(k)]
    hands += [(reps[a], reps[b], reps[c]) for a in range(k) for b in range(k) for c in range(k)]
    value = np.array([rules.hand_value(h) for h in hands], dtype=np.int64)
    draw = {}
    for role in ("bettor", "dealer"):
        codes = np.zeros(k * k, dtype=np.int64)
        for i, h in enumerate(hands[: k * k]):
            stand, drw, esc = rules.draw_options(cfg, h, role)
            codes[i] = stand * STAND_BIT + drw * DRAW_BIT + (esc and role == "bettor") * ESCAPE_BIT
        draw[role] = codes
    sigs, reps_of = {}, {}
    for role in ("dealer", "bettor"):
        index: dict[tuple[Any, ...], int] = {}
        first: list[tuple[int, ...]] = []
        out = np.zeros(len(hands), dtype=np.int64)
        for i, h in enumerate(hands):
            out[i] = index.setdefault(_signature(cfg, h, role), len(index))
            if out[i] == len(first):
                first.append(h)
        sigs[role], reps_of[role] = out, first
    settle = np.array(
        [[rules.settle(cfg, d, b) for b in reps_of["bettor"]] for d in reps_of["dealer"]], dtype=np.int64
    )
    return HandTables(
        num_classes=k,
        card_class=cls,
        hand_value=value,
        draw_bettor=draw["bettor"],
        draw_dealer=draw["dealer"],
        dealer_sig=sigs["dealer"],
        bettor_sig=sigs["bettor"],
        settle=settle,
    )


def _signature(cfg: Config, hand: tuple[int, ...], role: str) -> tuple[Any, ...]:
    """Everything ``rules.settle`` reads of one side's hand."""
    names = rules.showdown_yaku(cfg, hand, role)  # the yaku settle may score it as
    tens = len(hand) == 3 and all(VALUES[c] == 10 for c in hand)
    first = VALUES[hand[0]] if names != (None,) else 0  # same-yaku comparisons (arashi, zoro)
    pays = tuple(rules.yaku_multiplier(cfg, y, hand) for y in names)
    return (tens, names, rules.hand_value(hand), first, pays)
