"""The shared core: stacked decks, seeded RNG, errors, observation specs."""

import ast
from pathlib import Path

import numpy as np
import pytest

import kabu_envs
from kabu_envs.core import (
    IllegalActionError,
    ObsPiece,
    ObsSpec,
    make_rng,
    ordered_deck,
    seat_of,
    validate_deck_prefix,
)


def test_ordered_deck_prefix_first_then_seeded_rest():
    a = ordered_deck(make_rng(3), 40, [5, 7, 0])
    b = ordered_deck(make_rng(3), 40, [5, 7, 0])
    assert a[:3] == [5, 7, 0]
    assert a == b
    assert sorted(a) == list(range(40))


def test_ordered_deck_is_a_permutation_and_depends_on_seed():
    a = ordered_deck(make_rng(1), 52)
    b = ordered_deck(make_rng(2), 52)
    assert sorted(a) == list(range(52)) and a != b


@pytest.mark.parametrize(
    "deck, words",
    [
        ([1, 1], "appears twice"),
        ([40], "out of range"),
        ([-1], "out of range"),
        (["a"], "not an integer"),
        ("abc", "sequence"),
    ],
)
def test_bad_decks_name_the_problem(deck, words):
    with pytest.raises(ValueError, match=words):
        ordered_deck(make_rng(0), 40, deck)


# Shapes a careless caller passes by accident: a dict was read as its keys, np.array(5) raised a TypeError.
BAD_DECK_SHAPES = [
    (
        {3: 1},
        r"deck must be a sequence of card ids in deal order .*got a dict \{3: 1\}: it has no deal order",
    ),
    ({3, 1}, r"got a set \{1, 3\}: it has no deal order"),
    (np.array(5), r"deck must be a sequence of card ids .*got a 0-D array array\(5\)"),
    (np.array([[3, 1]]), r"got a 2-D array"),
    ([np.float64(3.0)], r"card id np.float64\(3.0\) is not an integer|card id 3.0 is not an integer"),
    ([True], "card id True is not an integer"),
    ([10**400], r"card id 1000.*\.\.\. is out of range 0\.\.39"),
]


@pytest.mark.parametrize("deck, words", BAD_DECK_SHAPES)
def test_decks_of_the_wrong_shape_name_the_problem(deck, words):
    with pytest.raises(ValueError, match=words):
        validate_deck_prefix(deck, 40)
    with pytest.raises(ValueError, match=words):
        ordered_deck(make_rng(0), 40, deck)


def test_numpy_decks_and_ids_are_accepted():
    assert validate_deck_prefix(np.array([5, 7]), 40) == [5, 7]
    assert validate_deck_prefix([np.int64(5), np.int32(7)], 40) == [5, 7]
    assert validate_deck_prefix(iter(range(3)), 40) == [0, 1, 2]


def test_illegal_action_error_lists_legal_actions():
    err = IllegalActionError(9, [0, 1], phase="draw", seat=2, describe=lambda a: f"A{a}")
    text = str(err)
    assert "illegal action 9" in text and "player_2" in text and "0=A0" in text and "1=A1" in text
    assert isinstance(err, ValueError)


def test_obs_spec_slices_and_table():
    spec = ObsSpec((ObsPiece("a", 3, "first"), ObsPiece("b", 2, "second", high=5)))
    assert spec.size == 5 and spec.slices["b"] == slice(3, 5) and spec.high == 5
    table = spec.markdown_table()
    assert "| 3 | 2 | `b` | 0..5 | second |" in table
    assert spec.decode(np.arange(5)) == {"a": [0, 1, 2], "b": [3, 4]}
    with pytest.raises(ValueError, match="twice"):
        ObsSpec((ObsPiece("a", 1, ""), ObsPiece("a", 1, "")))


def test_seat_of():
    assert seat_of("player_3") == 3
    with pytest.raises(ValueError):
        seat_of("dealer")


@pytest.mark.parametrize("deck", ["AS", 7, b"\x00"])
def test_reset_rejects_a_deck_that_is_not_a_sequence_of_ids(deck):
    from kabu_envs import kakeya_v2, oicho_kabu_v1

    for mod in (oicho_kabu_v1, kakeya_v2):
        env = mod.env()
        with pytest.raises(ValueError, match="sequence of card ids"):
            env.reset(seed=0, options={"deck": deck})


# aec_base.reset turns the deck into a list before the game's validate_deck_prefix sees it, so only an
# env that checks the deck as given (Kakeya's reset) can refuse a dict or a 0-D array with that message.
@pytest.mark.parametrize("game", ["kakeya", "oicho_kabu", "toy_card"])
@pytest.mark.parametrize("deck, words", [BAD_DECK_SHAPES[0], BAD_DECK_SHAPES[2]])
def test_reset_names_the_problem_of_a_deck_of_the_wrong_shape(game, deck, words):
    from kabu_envs import registry

    env = registry.get(game).make_env()
    with pytest.raises(ValueError, match=words):
        env.reset(seed=0, options={"deck": deck})


def test_make_rng_is_numpys_pcg64_for_every_kind_of_seed():
    """The one constructor changes no stream: the same draws as ``Generator(PCG64(seed))``."""
    for seed in (0, 12345, np.int64(7), [3, 1, 4], np.random.SeedSequence(9)):
        want = np.random.Generator(np.random.PCG64(seed)).integers(2**62, size=8)
        assert (make_rng(seed).integers(2**62, size=8) == want).all()
    assert make_rng(None).bit_generator.state["bit_generator"] == "PCG64"


def _generator_calls(path: Path) -> list[str]:
    """``line: call`` of every random-stream construction or global-state draw in a module's code: a
    call of ``np.random.<anything>`` but ``SeedSequence`` (a seed hash), and Python's ``random``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Call) and _dotted(node.func):
            name = ast.unparse(node.func)
            if name.startswith(("np.random.", "numpy.random.")) and name.split(".")[-1] != "SeedSequence":
                found.append((node.lineno, name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names]
            module = node.module if isinstance(node, ast.ImportFrom) else None
            if "random" in names and module is None or module == "random":
                found.append((node.lineno, "import random"))
            if module == "numpy.random":
                found.append((node.lineno, f"from numpy.random import {', '.join(names)}"))
    return [f"{line}: {what}" for line, what in sorted(found)]


def _dotted(node: ast.expr) -> bool:
    """``node`` is a plain dotted name (``np.random.PCG64``), not a call's attribute."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def test_only_make_rng_builds_the_librarys_random_streams():
    """Every generator of the library comes from ``kabu_envs.core.rng.make_rng``, so the kind of stream
    (and every seeded result) is chosen in one place; no module draws from a global state."""
    package = Path(kabu_envs.__file__).resolve().parent
    files = sorted(
        {p.resolve() for p in package.rglob("*.py")}
        | {p for d in ("agents", "eval", "training") for p in (package.parent / d).rglob("*.py")}
    )
    assert len(files) > 80
    offenders = {
        str(p.relative_to(package.parent)): calls
        for p in files
        if p != package / "core" / "rng.py" and (calls := _generator_calls(p))
    }
    assert offenders == {}


def test_the_generator_check_finds_what_it_forbids(tmp_path):
    code = tmp_path / "m.py"
    code.write_text(
        "import random\nimport numpy as np\n"
        "a = np.random.default_rng(0)\nb = np.random.Generator(np.random.PCG64(1))\n"
        "c = np.random.SeedSequence(2)\nnp.random.shuffle([1])\n"
        '"""np.random.default_rng(0) in a docstring is prose"""\n'
    )
    assert _generator_calls(code) == [
        "1: import random",
        "3: np.random.default_rng",
        "4: np.random.Generator",
        "4: np.random.PCG64",
        "6: np.random.shuffle",
    ]
