"""Policy features: derived inputs a policy network computes from the observation itself.

Why: some facts a good player uses are simple for code and hard for a small network to learn from
raw bits, e.g. in a trick-taking game "this card is the highest one still out in its suit" or "this
card would win the trick as it stands". A game may declare such features; a policy file that names
one (``policy.json``: ``"features"``) feeds the network ``[observation, features(observation)]``.
The features are a pure numpy function of the observation, so a policy still sees only what its seat
may see, plays in numpy without torch, and is computed by one implementation for acting, training and
evaluation.

Protocol: a game's module ``features.py`` holds ``POLICY_FEATURES``, a mapping of names to
``PolicyFeatures`` (``GameSpec.hook("features", "POLICY_FEATURES")``); a game without it has none.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from kabu_envs.agents.declared import declared, pick
from kabu_envs.core.declared import FEATURES_HOOK, PolicyFeatures


def known_features(game: str) -> dict[str, PolicyFeatures]:
    """The policy features ``game`` declares (name -> record), none when it declares none."""
    return declared(game, FEATURES_HOOK)


def get_features(game: str, name: str) -> PolicyFeatures:
    """The record of ``name``; an unknown name raises naming the game's features."""
    return pick(known_features(game), "policy features", game, name)


class FeatureInputs:
    """The network input of a policy with features ``name``: the observation, then its features."""

    def __init__(self, game: str, name: str, env_options: Mapping[str, Any]) -> None:
        self.name = name
        self.record = get_features(game, name)
        self.env_options = dict(env_options)
        self.size = int(self.record.size(self.env_options))

    def __call__(self, observations: np.ndarray) -> np.ndarray:
        """``(B, obs_size)`` -> ``(B, obs_size + size)`` float32."""
        x = np.asarray(observations, dtype=np.float32)
        if x.ndim != 2:
            raise ValueError(f"policy features take a batch (B, obs_size), got shape {x.shape}")
        f = np.asarray(self.record.compute(x, self.env_options), dtype=np.float32)
        if f.shape != (x.shape[0], self.size):
            raise ValueError(
                f"policy features {self.name!r} returned shape {f.shape}, expected {(x.shape[0], self.size)}"
            )
        return np.concatenate([x, f], axis=1)

    def batched(self, observations: np.ndarray, chunk: int = 65_536) -> np.ndarray:
        """``__call__`` over a large array in chunks (the features' temporaries stay small)."""
        x = np.asarray(observations, dtype=np.float32)
        if len(x) <= chunk:
            return self(x)
        return np.concatenate([self(x[i : i + chunk]) for i in range(0, len(x), chunk)])


def prefix_sets(game: str, name: str) -> tuple[str, ...]:
    """The feature sets whose inputs are a prefix of ``name``'s (its ``extends`` chain, nearest first)."""
    known = known_features(game)
    chain: list[str] = []
    at = get_features(game, name).extends
    while at is not None:
        if at not in known or at in chain or at == name:
            raise ValueError(f"policy features {name!r} of {game}: bad extends chain {chain + [at]}")
        chain.append(at)
        at = known[at].extends
    return tuple(chain)


def feature_inputs(game: str, name: str | None, env_options: Mapping[str, Any]) -> FeatureInputs | None:
    """``FeatureInputs`` of ``name``, None for a policy without features."""
    return None if name is None else FeatureInputs(game, name, env_options)
