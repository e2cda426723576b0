"""Helpers for the policy-file tests: real decisions of a learner's view."""

from __future__ import annotations

from typing import Any

import numpy as np


def decisions(view: Any, n: int, seed: int, policy: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """At least ``n`` (observation, mask) pairs of the view's learner seat(s), episode after episode:
    random moves, or with ``policy`` half of them its masked arg-max (states the model itself reaches)."""
    rng = np.random.default_rng(seed)
    obs_l, mask_l = [], []
    episode = 0
    while len(obs_l) < n:
        obs, _ = view.reset(seed=episode)
        episode += 1
        done = False
        while not done:
            mask = view.action_masks()
            obs_l.append(obs)
            mask_l.append(mask)
            if policy is None or rng.random() < 0.5:
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                action = int(np.argmax(policy.masked_probs(obs, mask)))
            obs, _, term, trunc, _ = view.step(action)
            done = term or trunc
    return np.asarray(obs_l, np.float32), np.asarray(mask_l, bool)
