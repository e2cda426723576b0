"""Seeded playthroughs must replay bit for bit (see tests/golden/make_golden.py).

``golden`` is that module and ``golden_case`` one of its case names (fixtures of tests/conftest.py).
"""

import json


def test_golden_playthrough(golden, golden_case):
    want = json.loads((golden.HERE / f"{golden_case}.json").read_text())
    module, options, seed = golden.CASES[golden_case]
    got = golden.play(module, options, seed)
    assert got["actions"] == want["actions"], "the legal actions or the game flow changed"
    assert got["returns"] == want["returns"]
    assert got["observation_sha256"] == want["observation_sha256"], "an observation or mask changed"
