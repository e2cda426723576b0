"""Fixtures of the baselines tests: Toy Card views built through the generic view factory, and a tiny
exploitability table."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
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


def _tiny_exploit_table(folder: Path) -> dict[str, Any]:
    """A one-row exploitability table under ``folder`` as ``kabu_envs.training.exploit.table`` writes it (a
    300-step dealer exploiter of scripted); the row."""
    from kabu_envs.training import exploit

    out = folder / "oicho_kabu" / "scripted"
    res = exploit.run("oicho_kabu", "scripted", role="dealer", timesteps=300, deals=10, out=out)
    row = res["rows"][0] | {"env_options": {}}
    row["policy"] = str(Path(row["policy"]).relative_to(folder))
    (folder / exploit.EXPLOIT_FILE).write_text(json.dumps({"oicho_kabu": {"plan": {}, "rows": [row]}}))
    return row


@pytest.fixture
def tiny_exploit_table():
    return _tiny_exploit_table
