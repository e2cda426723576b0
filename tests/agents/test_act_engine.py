"""Agents that act from a batch engine's state (``act_engine``): exactly ``act_batch`` on the observation.

The training VecEnv plays its opponents with ``act_engine`` when their ``capabilities.engine`` and
``acts_on_engine`` allow it, so that an opponent's turn encodes no observation (the engines encode
them when read); these tests hold the two routes to the same actions on many engine states: every
phase, several rule sets and table sizes, strategy variants, subsets of the games.
"""

from __future__ import annotations

import numpy as np
import pytest

from kabu_envs import batch
from kabu_envs.agents.base import RandomAgent
from kabu_envs.oicho_kabu.agents.expert import OichoExpertAgent
from kabu_envs.oicho_kabu.agents.scripted import OichoScriptedAgent
from kabu_envs.oicho_kabu.game import Phase

RULES = [
    {},
    {"rules": "kansai"},
    {"rules": "kabufuda_site"},
    {"num_players": 2},
    {"num_players": 8, "deck": "hanafuda"},
    {"rules": "kansai", "num_players": 6, "deck": "hanafuda", "dealer_second_card_face_up": False},
    {"rules": "kabufuda_site", "num_players": 3, "max_rounds": 3, "bet_sizes": [1, 5, 20]},
]
STRATEGIES = [
    {},
    {"escape": False, "pair_draw": True, "take": "bottom", "draw_threshold": 4, "reveal_shift": 0},
]


def _rngs(seed: int, n: int) -> list[np.random.Generator]:
    return [np.random.Generator(np.random.PCG64(seed + i)) for i in range(n)]


@pytest.mark.parametrize("options", RULES, ids=[str(sorted(o.items())) for o in RULES])
def test_scripted_act_engine_equals_act_batch_on_the_observation(options):
    eng = batch.make("oicho_kabu", batch_size=96, autoreset=True, **options)
    eng.reset(seed=3)
    agents = [OichoScriptedAgent(seed=1, **s, **options) for s in STRATEGIES]
    assert all(_reads(a, eng) for a in agents)
    rng = np.random.default_rng(0)
    phases = set()
    for step in range(150):
        rows = np.flatnonzero(eng.current_player >= 0)
        if step % 3 == 1:  # a subset of the games, as the VecEnv passes the games its opponents move
            rows = rows[rng.random(rows.size) < 0.5]
        got = [a.act_engine(eng, rows, rngs=_rngs(step, rows.size)) for a in agents]
        assert eng._any_stale or step == 0  # the engine's state was read, no observation encoded
        obs, masks = eng.observation[rows], eng.legal_action_mask[rows]
        for agent, g in zip(agents, got, strict=True):
            want = agent.act_batch(obs, masks, rngs=_rngs(step, rows.size))
            assert g.dtype == np.int64 and np.array_equal(g, want), (step, np.flatnonzero(g != want))
        phases.update(eng.decision_view().phase[rows].tolist())
        _check_decoded(agents[0], eng, rows, obs)
        masks = eng.legal_action_mask
        acts = np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1)
        if step % 2:  # half the steps played by the scripted agent itself: its own lines of play
            live = np.flatnonzero(eng.current_player >= 0)
            acts[live] = agents[0].act_engine(eng, live)
        eng.step(acts)
    assert {Phase.BET, Phase.DECIDE, Phase.DEALER_DRAW} <= phases
    if options.get("rules") == "kansai":
        assert Phase.MINSO in phases
    if options.get("rules") == "kabufuda_site":
        assert Phase.DEALER_CHOICE in phases
    assert all(a.fallbacks == 0 for a in agents)


def _check_decoded(agent: OichoScriptedAgent, eng, rows: np.ndarray, obs: np.ndarray) -> None:
    """``_decode_engine`` reads from the state what ``_decode`` reads from the observation, field by field
    (what any seat sees: second cards of spreads it does not back and a hidden dealer hand are unseen)."""
    seen, view = agent._decode(obs), eng.decision_view()
    for phase in np.unique(view.phase[rows]).tolist():
        at = np.flatnonzero(view.phase[rows] == phase)
        d = agent._decode_engine(view, rows[at], phase)
        for field in ("phase", "active", "values", "lights", "dealer_values", "dealer_lights", "status"):
            assert np.array_equal(getattr(d, field), getattr(seen, field)[at]), field
        if phase == Phase.DEALER_DRAW:
            span = agent.sl["total_stakes"]
            assert np.array_equal(d.obs[:, span], obs[at][:, span])


def _reads(agent, engine) -> bool:
    """What the training VecEnv asks: the declared capability, narrowed to the engines it reads."""
    return agent.capabilities.engine and agent.acts_on_engine(engine)


def test_who_acts_on_which_engine():
    std = batch.make("oicho_kabu", batch_size=4)
    assert _reads(OichoScriptedAgent(seed=0), std)
    # another rule set's engine (another layout), an agent without engine decisions, another game
    assert not _reads(OichoScriptedAgent(seed=0, num_players=5), std)
    assert not _reads(OichoExpertAgent(seed=0), std)
    assert not _reads(OichoScriptedAgent(seed=0), batch.make("kakeya", batch_size=4))
    # the random player needs only the mask: any engine
    assert _reads(RandomAgent(seed=0), batch.make("kakeya", batch_size=4))


@pytest.mark.parametrize("game", ["kakeya", "oicho_kabu", "toy_card"])
def test_random_act_engine_equals_act_batch(game):
    eng = batch.make(game, batch_size=32, autoreset=True)
    eng.reset(seed=1)
    agent = RandomAgent(seed=0)
    for step in range(20):
        rows = np.flatnonzero(eng.current_player >= 0)[::2]
        got = agent.act_engine(eng, rows, rngs=_rngs(step, rows.size))
        want = agent.act_batch(None, eng.legal_action_mask[rows], rngs=_rngs(step, rows.size))
        assert np.array_equal(got, want)
        eng.step(agent.act_batch(None, eng.legal_action_mask))


def test_act_engine_checks_its_input():
    eng = batch.make("oicho_kabu", batch_size=4)
    eng.reset(seed=0)
    agent = OichoScriptedAgent(seed=0)
    with pytest.raises(ValueError, match="one generator per row"):
        agent.act_engine(eng, np.arange(4), rngs=_rngs(0, 3))
    eng.step(agent.act_engine(eng, np.arange(4)))
    over = np.flatnonzero(eng.current_player < 0)
    if over.size:
        with pytest.raises(ValueError, match="not to act"):
            agent.act_engine(eng, over)
