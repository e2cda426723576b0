"""Kakeya's policy stages (``kabu_envs.agents.stages``).

``endgame``: a card decision with at most ``ENDGAME_CARDS`` cards in the seat's own hand is in stage
``endgame`` (the last four tricks of a four-player deal), every other decision (the trump and lead
choices included) in ``main``. Why there: the search `expert` reads the last tricks far better than its
clones do — played by the search in those decisions only, a clone loses most of its gap to it
(docs/studies/kakeya_models.md#where-the-clone-loses) — and those positions are small enough for a specialist.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np

from kabu_envs.core.declared import PolicyStages
from kabu_envs.kakeya.config import make_config
from kabu_envs.kakeya.game import Phase
from kabu_envs.kakeya.observation import obs_spec

ENDGAME_CARDS = 4


@cache
def _slices(key: tuple[tuple[str, Any], ...]) -> tuple[slice, slice]:
    spec = obs_spec(make_config(**dict(key)))
    return spec.slices["phase"], spec.slices["hand"]


def endgame_of(observations: np.ndarray, env_options: Mapping[str, Any]) -> np.ndarray:
    """``(B,)``: 1 (``endgame``) for a PLAY decision with at most ``ENDGAME_CARDS`` cards in hand, else 0."""
    phase, hand = _slices(tuple(sorted(env_options.items())))
    obs = np.asarray(observations)
    playing = obs[:, phase].argmax(axis=1) == Phase.PLAY
    return (playing & (obs[:, hand].sum(axis=1) <= ENDGAME_CARDS)).astype(np.int64)


POLICY_STAGES = {
    "endgame": PolicyStages(
        ("main", "endgame"),
        endgame_of,
        f"`endgame`: card decisions with at most {ENDGAME_CARDS} cards in hand; `main`: every other decision",
    ),
}
