"""The hand-written agents' ``act_batch`` against their own ``act``, on real decision points.

Decisions are collected from AEC games in which every seat is, per episode, either the agent itself or
a random player (so the agent meets the states its own play leads to, and random play reaches the rare
ones). ``act_batch(obs, masks, rngs)`` must equal ``[act(o, m)]`` row by row with ``rng = rngs[i]``:
the actions, each generator's state afterwards and the ``fallbacks`` count. The masks are then thinned
(the scalar choice removed where another action is legal) so that the other branches and the
illegal-move fallback, with its draws from ``rngs[i]``, are compared too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from kabu_envs import kakeya_v2, oicho_kabu_v2
from kabu_envs.agents.base import RandomAgent
from kabu_envs.kakeya.agents.scripted import KakeyaScriptedAgent
from kabu_envs.oicho_kabu.actions import DRAW, STAND
from kabu_envs.oicho_kabu.agents.expert import OichoExpertAgent
from kabu_envs.oicho_kabu.agents.scripted import OichoScriptedAgent
from kabu_envs.oicho_kabu.game import Phase

OICHO_OPTIONS: list[dict[str, Any]] = [
    {},
    {"num_players": 2},
    {"num_players": 6, "bet_sizes": (1, 2, 5, 10, 20), "info_cards": True},
    {"rules": "kansai", "num_players": 3},
    {"rules": "kabufuda_site", "num_players": 4},
    {
        "deck": "hanafuda",
        "local_yaku": ("sanpachi_hikari", "nobori", "kudari", "zoro", "ichi_ni_san"),
        "dealer_second_card_face_up": False,
        "pair_may_draw": True,
    },
    {"free_draw": True, "shiroku_escape": True, "dealer_draw_rule": "free", "tie_rule": "push"},
]
KAKEYA_OPTIONS: list[dict[str, Any]] = [
    {},
    {"rensho_follow": "must_follow", "rensho_rule": "seed"},
    {"num_players": 6},
    {"num_players": 6, "six_player_mode": "all_play", "max_deals": 2, "rensho_follow": "must_follow"},
    {"dealers_choose_trump": False, "default_trump": "hearts", "max_deals": 2},
]


def collect(env: Any, make: Callable[[int], Any], n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` (observation, mask) pairs of every seat, from games of the agent mixed with random players."""
    rng = np.random.default_rng(seed)
    seats = len(env.possible_agents)
    players = [make(i) for i in range(seats)] + [RandomAgent(seed=seed + i) for i in range(seats)]
    obs, masks = [], []
    episode = 0
    while len(obs) < n:
        env.reset(seed=seed * 1000 + episode)
        episode += 1
        who = [players[i] if rng.random() < 0.6 else players[seats + i] for i in range(seats)]
        for name in env.agent_iter():
            o, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            obs.append(o["observation"].copy())
            masks.append(o["action_mask"].astype(bool))
            env.step(who[env.possible_agents.index(name)].act(o["observation"], o["action_mask"]))
    return np.stack(obs[:n]), np.stack(masks[:n])


def assert_batch_equals_scalar(make: Callable[[int], Any], obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``act_batch`` == ``act`` row by row (actions, generator states, fallbacks); the scalar actions."""
    batched, scalar = make(7), make(7)
    rngs = [np.random.default_rng([3, i]) for i in range(len(obs))]
    twins = [np.random.default_rng([3, i]) for i in range(len(obs))]
    got = batched.act_batch(obs, masks, rngs)
    want = []
    for i, (o, m) in enumerate(zip(obs, masks, strict=True)):
        scalar.rng = twins[i]
        want.append(scalar.act(o, m.astype(np.int8)))
    assert got.dtype == np.int64 and got.shape == (len(obs),)
    mismatch = np.flatnonzero(got != np.array(want))
    assert mismatch.size == 0, f"rows {mismatch[:10].tolist()}: batch {got[mismatch[:10]]}, act {want}"
    assert [r.bit_generator.state for r in rngs] == [r.bit_generator.state for r in twins]
    assert getattr(batched, "fallbacks", 0) == getattr(scalar, "fallbacks", 0)
    # without rngs: the agent's own generator, row after row
    batched, scalar = make(11), make(11)
    got = batched.act_batch(obs, masks)
    want = [scalar.act(o, m.astype(np.int8)) for o, m in zip(obs, masks, strict=True)]
    assert np.array_equal(got, want)
    assert batched.rng.bit_generator.state == scalar.rng.bit_generator.state
    return np.array(want)


def thinned(masks: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """The masks without the chosen action wherever another one stays legal."""
    out = masks.copy()
    rows = np.flatnonzero(masks.sum(axis=1) > 1)
    out[rows, actions[rows]] = False
    return out


def assert_vectorised(agent: Any, obs: np.ndarray, masks: np.ndarray, want: np.ndarray) -> None:
    """On real decisions no row needs the scalar code (its per-row escape is for malformed rows only)."""

    def scalar(*args: Any) -> int:
        raise AssertionError("act_batch fell back to the scalar agent on a real decision")

    for method in ("act", "_bet", "_decide", "_dealer_draw", "_minso", "_play", "_lead"):
        setattr(agent, method, scalar)
    assert np.array_equal(agent.act_batch(obs, masks), want)


def check(make: Callable[[int], Any], env: Any, n: int, seed: int) -> np.ndarray:
    obs, masks = collect(env, make, n, seed)
    actions = assert_batch_equals_scalar(make, obs, masks)
    assert_vectorised(make(0), obs, masks, actions)
    assert assert_batch_equals_scalar(make, obs, thinned(masks, actions)) is not None
    return obs


@pytest.mark.parametrize("agent_cls", [OichoScriptedAgent, OichoExpertAgent])
@pytest.mark.parametrize("options", OICHO_OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_oicho_act_batch_equals_act(agent_cls, options):
    def make(seed: int) -> Any:
        return agent_cls(seed=seed, **options)

    obs = check(make, oicho_kabu_v2.env(**options), 2500, seed=1)
    phases = make(0)._decode(obs).phase
    assert {Phase.BET, Phase.DECIDE, Phase.DEALER_DRAW} <= set(phases.tolist())


@pytest.mark.parametrize("agent_cls", [OichoScriptedAgent, OichoExpertAgent])
def test_oicho_decode_reads_any_observation_as_act_does(agent_cls):
    """``_decode`` reads card values by one matrix product when the card blocks are exact one-hots (as
    the env's always are), else by the argmax ``act`` uses: both routes give ``act``'s values, and
    malformed blocks (two 1s, a 0.7, a NaN) take the argmax route (so the scripted ``act_batch`` still
    equals its ``act`` there; the expert's ``act`` rejects such hands)."""
    agent = agent_cls(seed=0)
    obs, masks = collect(oicho_kabu_v2.env(), lambda i: agent_cls(seed=i), 600, seed=5)
    start = agent.sl["spread_cards"].start
    for bad in (None, 1.0, 0.7, np.nan):
        odd = obs.copy()
        if bad is not None:
            odd[::3, start + 2] = bad  # (a second 1, a fraction or NaN beside the first card's value)
            odd[1::3, start + 13] = bad
        assert (agent._onehot_values(odd) is None) == (bad is not None)
        d = agent._decode(odd)
        for piece, got in (("spread_cards", d.values), ("dealer_cards", d.dealer_values)):
            for i in range(0, len(odd), 7):
                blocks = odd[i, agent.sl[piece]].reshape(-1, 10)
                assert got[i].reshape(-1).tolist() == [agent._value(b) for b in blocks]
        if agent_cls is OichoScriptedAgent:
            assert_batch_equals_scalar(lambda i: agent_cls(seed=i), odd, masks)


@pytest.mark.parametrize(
    "options",
    [{"num_players": 2}, {"num_players": 2, "deck": "hanafuda", "local_yaku": ("sanpachi_hikari",)}],
)
def test_oicho_expert_dealer_draw_equals_act_on_many_tables(options):
    """The expert's expected-value draw, the one decision with real arithmetic, on hundreds of tables
    (hanafuda lights included): both choices occur and every row agrees with ``act``."""

    def make(seed: int) -> Any:
        return OichoExpertAgent(seed=seed, **options)

    obs, masks = collect(oicho_kabu_v2.env(**options), make, 8000, seed=5)
    agent = make(0)
    rows = (agent._decode(obs).phase == Phase.DEALER_DRAW) & masks[:, STAND] & masks[:, DRAW]
    want = assert_batch_equals_scalar(make, obs[rows], masks[rows])
    assert rows.sum() > 150 and {STAND, DRAW} == set(want.tolist())
    assert_vectorised(agent, obs[rows], masks[rows], want)


@pytest.mark.parametrize("options", KAKEYA_OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_kakeya_act_batch_equals_act(options):
    def make(seed: int) -> Any:
        return KakeyaScriptedAgent(seed=seed, **options)

    check(make, kakeya_v2.env(**options), 2500, seed=2)
