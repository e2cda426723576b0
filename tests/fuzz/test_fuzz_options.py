"""Rule options, fuzzed from each game's ``OptionSet``: valid sets build a config and an env, junk values
raise ``RuleConfigError`` naming the option (never a TypeError, an OverflowError or silence)."""

from __future__ import annotations

import numpy as np
import pytest
from fuzz_helpers import (
    GAME_IDS,
    JUNK,
    MERGED_OPTIONS,
    accepted_is_valid,
    check_views,
    count,
    examples,
    fix_up,
    is_plain,
    mutate,
    option_set,
    option_sets,
    uncovered_options,
    valid_value,
)
from hypothesis import given
from hypothesis import strategies as st

from kabu_envs import registry
from kabu_envs.core.errors import RuleConfigError


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_option_has_a_strategy(game_id):
    """A hand-written checker needs an entry in ``fuzz_helpers.VALUE_EXTRAS`` to be fuzzed."""
    assert uncovered_options(registry.get(game_id)) == []


@pytest.mark.parametrize("game_id", GAME_IDS)
@examples(3)
@given(data=st.data())
def test_valid_option_sets_build_a_config_and_an_env(game_id, data):
    spec = registry.get(game_id)
    options = option_set(spec)
    opts = data.draw(option_sets(spec, capped=False), label="options")
    cfg = spec.config(**opts)
    for name, value in opts.items():
        held = getattr(cfg, name)
        assert is_plain(held), f"{name}: the config holds {held!r}, not a plain normalised value"
        if name not in MERGED_OPTIONS:
            assert held == options.check(name, value), name
    assert spec.config(**opts) == cfg and hash(spec.config(**opts)) == hash(cfg)
    env = spec.make_raw_env(render_mode="ansi", **opts)
    env.reset(seed=data.draw(st.integers(0, 2**32 - 1), label="seed"))
    check_views(env)
    assert isinstance(env.render(), str)
    count("option sets (valid, config + env)")


def _junk_for(options, data):
    name = data.draw(st.sampled_from(options.names), label="option")
    valid = valid_value(options, name, capped=False)
    if valid is not None and data.draw(st.booleans(), label="mutate a valid value"):
        value = mutate(data.draw(valid, label="valid value"), data)
    else:
        value = data.draw(JUNK, label="junk")
    return name, value


@pytest.mark.parametrize("game_id", GAME_IDS)
@examples(10)
@given(data=st.data())
def test_junk_option_values_raise_rule_config_error_naming_the_option(game_id, data):
    spec = registry.get(game_id)
    options = option_set(spec)
    name, value = _junk_for(options, data)
    opts = fix_up({name: value})
    for build in (spec.config, spec.make_raw_env):
        try:
            built = build(**opts)
        except RuleConfigError as exc:
            assert repr(name) in str(exc), f"the error does not name {name!r}: {exc}"
            count("junk option values (refused)")
        else:  # accepted: then it is a valid value in disguise (a NumPy int, a 1-D array of names, ...)
            cfg = getattr(built, "config", built)
            held = getattr(cfg, name)
            assert accepted_is_valid(options, name, held), f"{name}={value!r} accepted as {held!r}"
            count("junk option values (accepted as a valid value)")


@pytest.mark.parametrize("game_id", GAME_IDS)
@examples(2)
@given(data=st.data())
def test_unknown_option_names_are_refused_by_name(game_id, data):
    spec = registry.get(game_id)
    options = option_set(spec)
    factory_kwargs = ("render_mode", "render_seat", "illegal_reward")  # the env factories' own arguments
    names = st.text(max_size=12).filter(lambda s: s not in options and s not in factory_kwargs)
    bad = data.draw(names, label="name")
    good = data.draw(option_sets(spec), label="options")
    with pytest.raises(RuleConfigError) as info:
        spec.config(**good, **{bad: data.draw(st.one_of(JUNK, st.just(1)))})
    assert repr(bad) in str(info.value)
    with pytest.raises(RuleConfigError):
        spec.make_raw_env(**{bad: np.int64(1)})
    count("unknown option names (refused)")
