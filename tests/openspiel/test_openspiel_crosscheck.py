"""The OpenSpiel cross-check of the exact dealer best response (kabu_envs.training.crosscheck): the
posterior worlds' action values agree with the project's exact ones within their errors.

The full run (100 deals, 100 worlds per decision) is in docs/openspiel.md; this one plays a few deals."""

from __future__ import annotations

import os

import numpy as np
import pytest

if not os.environ.get("KABU_REQUIRE_OPENSPIEL"):
    pytest.importorskip("pyspiel", reason="open_spiel is not installed (the 'openspiel' extra)")

from kabu_envs import registry
from kabu_envs.agents.registry import make_agent
from kabu_envs.openspiel import bots
from kabu_envs.training import crosscheck


def test_worlds_agree_with_the_exact_dealer_values() -> None:
    result = crosscheck.crosscheck(env_options={"num_players": 2}, deals=5, worlds=24, seed=0)
    assert len(result.decisions) >= 2
    for d in result.decisions:
        mean, se = d.delta_worlds
        z = (mean[1:] - d.delta_exact[1:]) / np.maximum(se[1:], 1e-9)
        assert np.all(np.abs(z) < 4.5), (d.deal, d.delta_exact, mean, se)
    summary = result.summary()
    lo, hi = summary["gap_difference"][1:]
    assert lo <= 0.0 <= hi or abs(summary["gap_difference"][0]) < 1.0
    assert 0 < summary["acceptance"] <= 1


def test_a_world_where_the_reference_would_have_played_otherwise_is_rejected() -> None:
    options = {"num_players": 2}
    env = registry.get("oicho_kabu").make_raw_env(**options)
    reference = make_agent("oicho_kabu", "scripted", 0, **options)
    env.reset(seed=5)
    dealer = env.possible_agents[env.unwrapped.game.dealer]
    while env.agent_selection != dealer:  # the bettor bets and draws; the dealer's turn
        obs = env.observe(env.agent_selection)
        env.step(int(reference.act(obs["observation"], obs["action_mask"])))
    game = bots.load_game("oicho_kabu", options)
    shuffles, played = bots.history_from_env("oicho_kabu", env)
    seat = env.possible_agents.index(env.agent_selection)
    assert crosscheck.consistent(game, (shuffles, played), seat, reference) is not None
    other = 1 - seat
    # a move of the other seat changed to another legal one: the reference would not have made it
    for k, move in enumerate(played):
        try:
            state = bots.replay(game, (shuffles, played[:k]))
        except ValueError:  # a shuffle still to come after these moves
            continue
        if state.current_player() == other and len(state.legal_actions()) > 1:
            changed = list(played)
            changed[k] = next(a for a in state.legal_actions() if a != move)
            break
    else:
        raise AssertionError("the bettor made no choice in this deal")
    assert crosscheck.consistent(game, (shuffles, changed), seat, reference) is None
