"""The yaku ranking is exactly what it was when recorded (``data/yaku_reference.json``).

For every rule set of ``oicho_yaku_reference.option_sets()`` (each preset, each local yaku alone, everything
on under each preset, each yaku-related option) the resolved yaku table, the voided-by-a-third-card set, the
best yaku and multiplier of every 2- and 3-card hand, the draw options and a sample of settlements must
match the reference recorded before the yaku were declared as one record each.
"""

import json

import pytest
from oicho_yaku_reference import DATA, option_sets, reference

REFERENCE = json.loads(DATA.read_text())


def test_the_reference_covers_every_rule_set():
    assert list(REFERENCE) == list(option_sets())


@pytest.mark.parametrize("name", list(option_sets()))
def test_rule_set_ranks_hands_as_recorded(name):
    want = REFERENCE[name]
    got = reference(option_sets()[name])
    assert got["table"] == want["table"]
    assert got["voided_by_third"] == want["voided_by_third"]
    for role in ("dealer", "bettor"):
        assert got[f"count_{role}"] == want[f"count_{role}"], role
        assert got[f"best_{role}"] == want[f"best_{role}"], role
        assert got[f"draw_{role}"] == want[f"draw_{role}"], role
    assert got["settle"] == want["settle"]
