"""Stacked decks (``reset(options={"deck": ...})``), fuzzed: valid prefixes in any container deal the
same game; broken ones raise a ``ValueError`` naming the deck and leave the env usable."""

from __future__ import annotations

import numpy as np
import pytest
from fuzz_helpers import (
    GAME_IDS,
    broken_decks,
    check_views,
    count,
    deck_size,
    examples,
    obs_key,
    option_sets,
    valid_decks,
)
from hypothesis import given
from hypothesis import strategies as st

from kabu_envs import registry

SEEDS = st.integers(0, 2**32 - 1)


def _views(env):
    return {a: obs_key(env.observe(a)) for a in env.possible_agents}


def test_deck_sizes_found_through_the_envs():
    """The probe (first card id a stacked deck refuses) agrees with the engines' constants."""
    from kabu_envs.kakeya.cards import NUM_CARDS
    from kabu_envs.oicho_kabu.deck import DECK_SIZE as OICHO
    from kabu_envs.toy_card.game import DECK_SIZE as TOY

    known = {"kakeya": NUM_CARDS, "oicho_kabu": OICHO, "toy_card": TOY}
    for game_id in GAME_IDS:
        assert deck_size(registry.get(game_id)) == known.get(game_id, deck_size(registry.get(game_id))) > 0


@pytest.mark.parametrize("game_id", GAME_IDS)
@examples(3)
@given(data=st.data())
def test_valid_decks_deal_the_same_game_in_any_container(game_id, data):
    spec = registry.get(game_id)
    opts = data.draw(option_sets(spec), label="options")
    deck = data.draw(valid_decks(deck_size(spec)), label="deck")
    seed = data.draw(SEEDS, label="seed")
    env = spec.make_raw_env(**opts)
    env.reset(seed=seed, options={"deck": deck})
    check_views(env)
    views = _views(env)
    again = spec.make_raw_env(**opts)
    again.reset(seed=seed, options={"deck": [int(c) for c in deck]})  # the same ids as a plain list
    assert _views(again) == views
    count("decks (valid)")


@pytest.mark.parametrize("game_id", GAME_IDS)
@examples(3)
@given(data=st.data())
def test_broken_decks_raise_value_error_naming_the_deck(game_id, data):
    spec = registry.get(game_id)
    opts = data.draw(option_sets(spec), label="options")
    deck = data.draw(broken_decks(deck_size(spec)), label="deck")
    seed = data.draw(SEEDS, label="seed")
    env = spec.make_env(**opts)
    if data.draw(st.booleans(), label="reset first"):
        env.reset(seed=seed)
    with pytest.raises(ValueError, match="(?i)deck"):
        env.reset(seed=seed, options={"deck": deck})
    env.reset(seed=seed)  # still usable: the same game as a fresh env's
    fresh = spec.make_env(**opts)
    fresh.reset(seed=seed)
    assert _views(env) == _views(fresh)
    count("decks (broken, refused)")


# A deck the validator accepts must be dealt, not crash later: ``validate_deck_prefix`` takes any
# iterable of card ids (a generator, ``iter(list)``), and Kakeya and Toy Card deal it.
KNOWN_BUGS: dict[str, str] = {}  # game id -> a known defect (none today)


@pytest.mark.parametrize(
    "game_id",
    [
        pytest.param(g, marks=pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[g])) if g in KNOWN_BUGS else g
        for g in GAME_IDS
    ],
)
def test_an_iterator_deck_deals_like_a_list_or_is_refused(game_id):
    spec = registry.get(game_id)
    prefix = list(np.random.default_rng(3).permutation(deck_size(spec))[:6].tolist())
    for make in (iter, lambda p: (c for c in p)):
        env, ref = spec.make_raw_env(), spec.make_raw_env()
        ref.reset(seed=1, options={"deck": prefix})
        try:
            env.reset(seed=1, options={"deck": make(prefix)})
        except ValueError as exc:
            assert "deck" in str(exc)
        else:
            assert _views(env) == _views(ref)
