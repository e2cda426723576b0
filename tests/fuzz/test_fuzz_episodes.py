"""Random episodes of every registered game under random valid rule options, with random illegal
attempts, odd calls, mid-episode resets and hidden-information checks; each is replayed in a fresh env.

Invariants (``fuzz_helpers.run_episode``): rewards sum to zero at every step and over the episode, and
what ``last()`` hands out adds up to what was paid; chips/stones are conserved; only the seat to act
has a non-empty mask; observations lie in their space; a legal action never raises; a refused action
raises the documented error and changes nothing; permuting the cards a seat cannot see leaves its
observation unchanged; the episode ends within a bound from its rule options; after the end ``last()``
and ``step()`` raise ``EpisodeOverError``; the same seed and actions replay the same game.
"""

from __future__ import annotations

import pytest
from fuzz_helpers import (
    COUNTS,
    GAME_IDS,
    UNSEEN_PERMUTERS,
    Plan,
    deck_size,
    examples,
    option_sets,
    replay,
    run_episode,
    valid_decks,
)
from hypothesis import given
from hypothesis import strategies as st

from kabu_envs import registry


def plans(game_id: str) -> st.SearchStrategy:
    spec = registry.get(game_id)
    return st.builds(
        Plan,
        game=st.just(game_id),
        options=option_sets(spec),
        wrapped=st.booleans(),
        seed=st.integers(0, 2**32 - 1),
        deck=st.one_of(st.none(), valid_decks(deck_size(spec))),
        policy_seed=st.integers(0, 2**32 - 1),
        p_illegal=st.sampled_from([0.0, 0.05, 0.3]),
        p_odd=st.sampled_from([0.0, 0.05, 0.3]),
        max_resets=st.integers(0, 2),
    )


@pytest.mark.parametrize("game_id", GAME_IDS)
@examples(5)
@given(data=st.data())
def test_random_episodes_keep_every_invariant_and_replay(game_id, data):
    spec = registry.get(game_id)
    plan = data.draw(plans(game_id), label="plan")
    trace = run_episode(spec, plan)
    again = replay(spec, plan, trace.script)
    assert again.seen == trace.seen, "the same seed and actions did not replay the same game"


@pytest.mark.parametrize("game_id", [g for g in GAME_IDS if g in UNSEEN_PERMUTERS])
def test_hidden_info_checks_move_cards_other_seats_see(game_id):
    """The unseen-card hook is not vacuous: it moves cards, and some other seat sees the move."""
    spec = registry.get(game_id)
    before = COUNTS.copy()
    for k in range(4):
        plan = Plan(
            game_id, {}, k % 2 == 0, seed=k, deck=None, policy_seed=k, p_illegal=0.0, p_odd=1.0, max_resets=0
        )
        run_episode(spec, plan)
    moved = COUNTS["hidden-info checks (cards moved)"] - before["hidden-info checks (cards moved)"]
    seen = (
        COUNTS["hidden-info checks (another seat saw the move)"]
        - before["hidden-info checks (another seat saw the move)"]
    )
    assert moved > 0 and seen > 0


# ``render()`` on a raw env before the first reset (the wrapped env's OrderEnforcingWrapper refuses it,
# naming reset()): Oicho-Kabu and Toy Card return a line saying so.
RENDER_BEFORE_RESET_BUGS: dict[str, str] = {}  # game id -> the known defect (none today)


@pytest.mark.parametrize(
    "game_id",
    [
        pytest.param(g, marks=pytest.mark.xfail(strict=True, reason=RENDER_BEFORE_RESET_BUGS[g]))
        if g in RENDER_BEFORE_RESET_BUGS
        else g
        for g in GAME_IDS
    ],
)
def test_raw_env_render_before_reset_says_so(game_id):
    env = registry.get(game_id).make_raw_env(render_mode="ansi")
    text = env.render()
    assert isinstance(text, str) and "reset" in text
