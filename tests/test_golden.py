"""Seeded playthroughs must replay bit for bit (see tests/golden/make_golden.py)."""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))
from make_golden import CASES, HERE, play  # noqa: E402


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_playthrough(name):
    want = json.loads((HERE / f"{name}.json").read_text())
    module, options, seed = CASES[name]
    got = play(module, options, seed)
    assert got["actions"] == want["actions"], "the legal actions or the game flow changed"
    assert got["returns"] == want["returns"]
    assert got["observation_sha256"] == want["observation_sha256"], "an observation or mask changed"
