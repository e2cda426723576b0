"""Fuzz the OpenSpiel game with presets and non-default options (hardening #7, #8): the parameters
say what is played and load the same rule set again, ``keep`` forces a registry default under a
preset, random episodes stay within the declared bounds, and serialized states replay."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspiel", reason="open_spiel is not installed (the 'openspiel' extra)")

import numpy as np
import pyspiel
from fuzz_helpers import count, examples, option_sets
from hypothesis import given
from hypothesis import strategies as st

from kabu_envs import registry
from kabu_envs.openspiel import game_name, register
from kabu_envs.openspiel.game import KEEP, _param, default_parameters

register()
PRESETS = ["standard", "kansai", "kabufuda_site"]


def _plain(value: object) -> object:
    """Python scalars for numpy ones (OpenSpiel's parameters are plain values)."""
    if isinstance(value, (np.generic, np.ndarray)):
        return _plain(value.tolist())
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _load(game_id: str, options: dict, keep: list[str]) -> pyspiel.Game | None:
    """The OpenSpiel game of ``options`` (``keep``: names passed even at their default), or None when the
    rule set is refused (then with a ValueError-like message naming an option)."""
    defaults = default_parameters(game_id)
    # an index of a named option goes as text (OpenSpiel checks the parameter's type: docs/openspiel.md)
    params = {
        k: str(v) if isinstance(defaults[k], str) and type(v) is int else _param(v)
        for k, v in options.items()
    }
    if keep:
        params[KEEP] = ";".join(keep)
    try:
        return pyspiel.load_game(game_name(game_id), params)
    except (ValueError, pyspiel.SpielError) as exc:
        assert str(exc)
        return None


@pytest.mark.parametrize("game_id", ["oicho_kabu", "kakeya", "toy_card"])
@examples(1)
@given(data=st.data())
def test_parameters_match_the_rules_played_and_bounds_hold(game_id, data):
    spec = registry.get(game_id)
    options = {k: _plain(v) for k, v in data.draw(option_sets(spec), label="options").items()}
    if game_id == "oicho_kabu" and data.draw(st.booleans(), label="preset"):
        options["rules"] = data.draw(st.sampled_from(PRESETS), label="rules")
    keep = sorted(options) if data.draw(st.booleans(), label="keep all") else []
    keep = [k for k in keep if k != "rules"]
    try:
        direct = spec.make_raw_env(**options).config
    except ValueError:
        direct = None
    game = _load(game_id, options, keep)
    if game is None:
        assert direct is None or not keep  # every option passed: what the env takes, OpenSpiel takes
        count("openspiel option sets refused")
        return
    played = game.make_env().config
    if keep or "rules" not in options:
        assert played == direct  # every option reached the env as given
    params = game.get_parameters()
    assert pyspiel.load_game(str(game)).make_env().config == played  # the game string: the same rules
    for name, value in game.make_env().rule_options().items():
        assert params[name] == _param(value), name  # the parameters say what is played
    count("openspiel option sets loaded")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal() and steps < 800:
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        else:
            legal = state.legal_actions()
            state.apply_action(int(legal[-1] if rng.random() < 0.5 else rng.choice(legal)))
        steps += 1
    assert len(state.history()) <= game.max_game_length()
    assert all(abs(r) <= game.max_utility() for r in state.returns())
    assert abs(sum(state.returns())) < 1e-6 * max(1.0, game.max_utility())
    again = game.deserialize_state(state.serialize())
    assert again.history() == state.history() and again.returns() == state.returns()
    count("openspiel episodes" + (" (finished)" if state.is_terminal() else " (cut at 800 moves)"))
