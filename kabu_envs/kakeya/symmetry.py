"""Kakeya's policy symmetries (``kabu_envs.agents.symmetry``): suits renamed.

``suits``: the 24 permutations of the four suits, each renaming every suit-indexed part of the
observation (``trump``, ``led_suit``, ``voids``, the card sets ``hand`` / ``played`` / ``gone`` /
``trick`` and the ``egara`` blocks) and the actions ``PLAY(card)`` and ``TRUMP(suit)``. Once a deal's
trump is chosen the rules single out two suits only: the trump and Rensho's natural suit (the same suit
when Rensho is the trump ace). A permutation that fixes both maps every lead and card decision of the
deal to an equally good decision of the deal dealt with the suits renamed, the renamed moves being the
equally good moves; later deals are dealt afresh, so what a deal is worth does not depend on the names.
Such permutations apply to LEAD and PLAY decisions: six of them when Rensho is the trump ace (clubs or
spades trumps under the ``seed`` rule), two otherwise. The trump choice gets the identity only: which
ace becomes Rensho depends on the suit chosen. Tested against the engine: the game dealt from a renamed
deck, with the renamed moves, shows the renamed observations. ``suit_rotations`` keeps only the
renamings that turn the free suits round (3 views at most instead of 6: half the cost).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np

from kabu_envs.core.declared import PolicySymmetries
from kabu_envs.kakeya.actions import NUM_ACTIONS, TRUMP_BASE
from kabu_envs.kakeya.cards import CLUBS, NUM_CARDS, NUM_EGARA, NUM_RANKS, NUM_SUITS, SPADES
from kabu_envs.kakeya.config import make_config
from kabu_envs.kakeya.game import Phase
from kabu_envs.kakeya.observation import obs_spec

PERMUTATIONS = tuple(itertools.permutations(range(NUM_SUITS)))  # the identity first
_SUIT_PARTS = ("trump", "led_suit", "voids")  # blocks of NUM_SUITS
_CARD_PARTS = ("hand", "played", "gone", "trick")  # blocks of NUM_CARDS
_EGARA_PER_SUIT = NUM_EGARA // NUM_SUITS


def _renamed(sigma: tuple[int, ...], per_suit: int) -> np.ndarray:
    """Where each entry of a suit-major block (``per_suit`` entries a suit) goes under ``sigma``."""
    i = np.arange(NUM_SUITS * per_suit)
    return np.take(sigma, i // per_suit) * per_suit + i % per_suit


def _image(slices: Mapping[str, slice], size: int, sigma: tuple[int, ...]) -> np.ndarray:
    """Where each observation entry goes when suit s is renamed sigma[s]."""
    image = np.arange(size)
    blocks = [(p, _renamed(sigma, 1)) for p in _SUIT_PARTS] + [
        (p, _renamed(sigma, NUM_RANKS)) for p in _CARD_PARTS
    ]
    blocks.append(("egara", _renamed(sigma, _EGARA_PER_SUIT)))
    for part, within in blocks:
        s = slices[part]
        for start in range(s.start, s.stop, within.size):
            image[start : start + within.size] = start + within
    return image


def _layout_image(layout: tuple[tuple[str, str, str], ...], n: int, sigma: tuple[int, ...]) -> np.ndarray:
    """Where each column of a policy-feature layout goes under ``sigma``: per-card pieces (blocks of 52)
    as cards, per-suit pieces as suits, the rest (seats, counts) unmoved."""
    from kabu_envs.kakeya.features import layout_size

    parts, at = [], 0
    for (_, kind, _), size in zip(layout, layout_size(layout, n), strict=True):
        if kind.endswith("52"):
            parts += [at + k * NUM_CARDS + _renamed(sigma, NUM_RANKS) for k in range(size // NUM_CARDS)]
        elif kind == "4":
            parts.append(at + _renamed(sigma, 1))
        else:
            parts.append(at + np.arange(size))
        at += size
    return np.concatenate(parts)


@cache
def _feature_images(name: str, options: tuple[tuple[str, Any], ...]) -> np.ndarray | None:
    """``(G, size)``: the images of the feature set's columns under each renaming, None for a set the
    renamings are not declared for."""
    from kabu_envs.kakeya.features import CARD_FEATURES, SEAT_FEATURES

    layouts = {"cards": CARD_FEATURES, "cards_seats": CARD_FEATURES + SEAT_FEATURES}
    if name not in layouts:
        return None
    n = make_config(**dict(options)).num_players
    return np.stack([_layout_image(layouts[name], n, sigma) for sigma in PERMUTATIONS])


def suit_feature_maps(name: str, env_options: Mapping[str, Any]) -> np.ndarray | None:
    """The renamings of the policy features ``name`` (kakeya/features.py), as ``suit_maps`` for the
    observation: each set's per-card and per-suit pieces are renamed, the rest stays."""
    return _feature_images(name, _key(env_options))


@cache
def _table(options: tuple[tuple[str, Any], ...]) -> tuple[dict[str, slice], np.ndarray, np.ndarray]:
    spec = obs_spec(make_config(**dict(options)))
    size = max(s.stop for s in spec.slices.values())
    obs_image = np.stack([_image(spec.slices, size, sigma) for sigma in PERMUTATIONS])
    action_image = np.tile(np.arange(NUM_ACTIONS), (len(PERMUTATIONS), 1))
    for g, sigma in enumerate(PERMUTATIONS):
        action_image[g, :NUM_CARDS] = _renamed(sigma, NUM_RANKS)
        action_image[g, TRUMP_BASE : TRUMP_BASE + NUM_SUITS] = TRUMP_BASE + np.asarray(sigma)
    return dict(spec.slices), obs_image, action_image


def _key(env_options: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(dict(env_options).items()))


def suit_maps(env_options: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """The 24 suit renamings' observation and action images for this table (identity first)."""
    _, obs_image, action_image = _table(_key(env_options))
    return obs_image, action_image


_FIXES = np.array([[sigma[t] == t for t in range(NUM_SUITS)] for sigma in PERMUTATIONS])  # (G, suit)


def suit_applies(observations: np.ndarray, env_options: Mapping[str, Any]) -> np.ndarray:
    """``(B, 24)``: the renamings that fix this deal's trump and Rensho's suit, on LEAD and PLAY
    decisions; the identity only elsewhere."""
    slices, _, _ = _table(_key(env_options))
    obs = np.asarray(observations)
    phase = obs[:, slices["phase"]].argmax(axis=1)
    trump = obs[:, slices["trump"]].argmax(axis=1)
    rensho = np.where(obs[:, slices["rensho"]][:, 0] > 0.5, CLUBS, SPADES)
    fixes = _FIXES[:, trump].T & _FIXES[:, rensho].T
    fixes &= ((phase == Phase.LEAD) | (phase == Phase.PLAY))[:, None]
    fixes[:, 0] = True
    return fixes


def _is_rotation(sigma: tuple[int, ...], free: tuple[int, ...]) -> bool:
    """Whether ``sigma`` fixes every suit but ``free`` and turns ``free`` (ascending) by whole steps."""
    if any(sigma[s] != s for s in range(NUM_SUITS) if s not in free):
        return False
    return any(
        all(sigma[f] == free[(i + r) % len(free)] for i, f in enumerate(free)) for r in range(len(free))
    )


@cache
def _rotations() -> np.ndarray:
    """``(trump, rensho suit, G)``: the renamings that turn the other suits round (ascending order)."""
    out = np.zeros((NUM_SUITS, NUM_SUITS, len(PERMUTATIONS)), dtype=bool)
    for t, r in itertools.product(range(NUM_SUITS), repeat=2):
        free = tuple(s for s in range(NUM_SUITS) if s not in (t, r))
        out[t, r] = [_is_rotation(sigma, free) for sigma in PERMUTATIONS]
    return out


def suit_rotation_applies(observations: np.ndarray, env_options: Mapping[str, Any]) -> np.ndarray:
    """``suit_applies`` restricted to the rotations of the other suits (the identity and, with three
    suits free, the two turns; with two, the swap): half the views where Rensho is the trump ace."""
    slices, _, _ = _table(_key(env_options))
    obs = np.asarray(observations)
    trump = obs[:, slices["trump"]].argmax(axis=1)
    rensho = np.where(obs[:, slices["rensho"]][:, 0] > 0.5, CLUBS, SPADES)
    return suit_applies(obs, env_options) & _rotations()[trump, rensho]


POLICY_SYMMETRIES = {
    "suits": PolicySymmetries(
        suit_maps,
        suit_applies,
        suit_feature_maps,
        "the suits renamed: every permutation fixing the trump and Rensho's suit, on lead and card decisions",
    ),
    "suit_rotations": PolicySymmetries(
        suit_maps,
        suit_rotation_applies,
        suit_feature_maps,
        "`suits` restricted to turning the other suits round: at most three views a decision",
    ),
}
