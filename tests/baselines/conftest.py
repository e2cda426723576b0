"""Fixtures of the baselines tests: Toy Card views built through the generic view factory."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from kabu_envs.wrappers.views import make_view


def _toy_view(
    num_players: int = 2,
    learner_seats: Sequence[int] = (0,),
    together: bool = False,
    opponents: Any = "random",
    **kwargs: Any,
):
    """Toy Card from fixed learner seats (one per episode, or all of them ``together``)."""
    return make_view(
        "toy_card",
        seats=learner_seats,
        together=together,
        opponents=opponents,
        num_players=num_players,
        **kwargs,
    )


@pytest.fixture
def toy_view():
    return _toy_view
