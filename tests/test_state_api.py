"""The state API of every registered game's AEC env: ``state_dict`` -> JSON -> ``load_state_dict``
restores the game exactly (same future under the same actions), ``clone`` is independent, and a state
that does not fit is refused naming why, leaving the env as it was."""

from __future__ import annotations

import copy
import json
from typing import Any

import numpy as np
import pytest

from kabu_envs import registry
from kabu_envs.core.env_state import StateError

CASES: list[tuple[str, dict[str, Any]]] = [
    ("toy_card", {}),
    ("oicho_kabu", {}),
    ("oicho_kabu", {"rules": "kansai", "deck": "hanafuda", "num_players": 5}),
    ("oicho_kabu", {"max_rounds": 4, "dealer_change": ["deals", "bust"]}),
    ("kakeya", {}),
    ("kakeya", {"num_players": 6, "six_player_mode": "all_play"}),
]


def _play(env: Any, rng: np.random.Generator, steps: int, seen: list[Any] | None = None) -> list[int | None]:
    """Random legal actions for up to ``steps`` steps (None for done agents); the actions taken (and
    the snapshot after each, into ``seen``)."""
    taken: list[int | None] = []
    for _ in range(steps):
        if not env.agents:
            break
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"])))
        env.step(action)
        taken.append(action)
        if seen is not None:
            seen.append(_snapshot(env))
    return taken


def _snapshot(env: Any) -> Any:
    return (
        list(env.agents),
        env.agent_selection if env.agents else None,
        dict(env._cumulative_rewards),
        dict(env.terminations),
        {a: {k: v.tolist() for k, v in env.observe(a).items()} for a in env.possible_agents},
        env.np_random.bit_generator.state,
    )


def _raw(game: str, options: dict[str, Any]) -> Any:
    return registry.get(game).make_raw_env(**options)


@pytest.mark.parametrize(("game", "options"), CASES)
@pytest.mark.parametrize("split", [0, 7, 23])
def test_saved_state_has_the_same_future(game: str, options: dict[str, Any], split: int) -> None:
    env = _raw(game, options)
    env.reset(seed=split + 11)
    rng = np.random.default_rng(split)
    _play(env, rng, split)
    state = json.loads(json.dumps(env.state_dict()))  # JSON-able, and survives the round trip
    restored = registry.get(game).make_raw_env(**state["rules"])
    restored.load_state_dict(state)
    assert _snapshot(restored) == _snapshot(env)
    seen: list[Any] = []
    future = _play(env, np.random.default_rng(99), 400, seen)
    for action, expected in zip(future, seen, strict=True):
        restored.step(action)
        assert _snapshot(restored) == expected
    env.reset()  # the generator's stream goes on alike: the next deal is the same
    restored.reset()
    assert _snapshot(restored) == _snapshot(env)


@pytest.mark.parametrize(("game", "options"), CASES)
def test_a_stacked_deck_is_kept(game: str, options: dict[str, Any]) -> None:
    env = _raw(game, options)
    deck = [3, 1, 2]
    env.reset(seed=5, options={"deck": deck})
    _play(env, np.random.default_rng(1), 5)
    state = env.state_dict()
    assert state["deck"] == deck
    other = registry.get(game).make_raw_env(**state["rules"])
    other.load_state_dict(state)
    assert _snapshot(other) == _snapshot(env)


@pytest.mark.parametrize(("game", "options"), CASES)
def test_clone_is_independent(game: str, options: dict[str, Any]) -> None:
    env = _raw(game, options)
    env.reset(seed=3)
    _play(env, np.random.default_rng(3), 6)
    before = _snapshot(env)
    twin = env.clone()
    assert type(twin) is type(env) and _snapshot(twin) == before
    _play(twin, np.random.default_rng(4), 400)  # diverge
    twin.reset(seed=77)
    assert _snapshot(env) == before
    # and the clone's future equals the original's under the same actions
    twin = env.clone()
    seen: list[Any] = []
    actions = _play(env, np.random.default_rng(5), 400, seen)
    for action, expected in zip(actions, seen, strict=True):
        twin.step(action)
        assert _snapshot(twin) == expected


def _state(game: str = "kakeya", **options: Any) -> tuple[Any, dict[str, Any]]:
    env = registry.get(game).make_raw_env(**options)
    env.reset(seed=1)
    _play(env, np.random.default_rng(0), 9)
    return env, env.state_dict()


def test_bad_states_are_refused_naming_the_problem() -> None:
    env, state = _state()
    target = registry.get("kakeya").make_raw_env()
    target.reset(seed=42)
    _play(target, np.random.default_rng(7), 3)
    kept = _snapshot(target)
    bad: list[tuple[Any, str]] = [
        ([], "a state is a dict"),
        ({**state, "version": 9}, "not a state of this version"),
        ({k: v for k, v in state.items() if k != "rng"}, "missing \\['rng'\\]"),
        ({**state, "extra": 1}, "unknown \\['extra'\\]"),
        ({**state, "actions": [1.5]}, "'actions' must be a list of action ids"),
        ({**state, "rng": {"bit_generator": "MT19937"}}, "PCG64"),
        ({**state, "actions": state["actions"] + [10**6]}, "does not replay"),
        ({**state, "rewards": {a: 5.0 for a in state["rewards"]}}, "'rewards' differ"),
    ]
    tampered = copy.deepcopy(state)
    first = next(iter(tampered["views"]))
    tampered["views"][first]["observation"][0] += 1.0
    bad.append((tampered, "'views' differ"))
    for value, message in bad:
        with pytest.raises(StateError, match=message):  # (a recomputed digest: the checks behind it)
            redigested = isinstance(value, dict) and "digest" in value
            target.load_state_dict(_redigest(value) if redigested else value)
        assert _snapshot(target) == kept, message
    six = registry.get("kakeya").make_raw_env(num_players=6, six_player_mode="all_play")
    # (six players add their own options, all_play_payment and six_player_mode, to the differing ones)
    with pytest.raises(
        StateError, match="rules differ from this env's in \\['all_play_payment', 'num_players'"
    ):
        six.load_state_dict(state)
    toy = registry.get("toy_card").make_raw_env()
    with pytest.raises(StateError, match="cannot load into"):
        toy.load_state_dict(state)


def test_state_dict_needs_a_reset() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        registry.get("toy_card").make_raw_env().state_dict()


def test_wrapped_env_reaches_the_state_api() -> None:
    env = registry.get("kakeya").make_env()
    env.reset(seed=2)
    state = env.unwrapped.state_dict()
    twin = registry.get("kakeya").make_env()
    twin.reset(seed=9)
    twin.unwrapped.load_state_dict(state)
    assert twin.unwrapped.state_dict() == state


def _redigest(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` with its digest recomputed: an edit made on purpose, reaching the checks behind it."""
    from kabu_envs.core.env_state import digest

    return {**state, "digest": digest(state)}


@pytest.mark.parametrize("game", ["oicho_kabu", "kakeya"])
def test_a_deck_given_as_an_iterator_is_saved(game: str) -> None:
    # issue (hardening #1): the iterator was read by the deal, then again (empty) for the state
    env = registry.get(game).make_raw_env()
    env.reset(seed=4, options={"deck": iter([3, 1, 2])})
    _play(env, np.random.default_rng(2), 6)
    state = env.state_dict()
    assert state["deck"] == [3, 1, 2]
    other = registry.get(game).make_raw_env()
    other.load_state_dict(state)
    assert _snapshot(other) == _snapshot(env)


@pytest.mark.parametrize("game", ["oicho_kabu", "kakeya"])
def test_every_refusal_is_a_state_error(game: str) -> None:
    # issue (hardening #2): OverflowError, a plain ValueError and EpisodeOverError escaped before
    env = registry.get(game).make_raw_env()
    env.reset(seed=8)
    _play(env, np.random.default_rng(1), 10_000)  # to the end
    state = env.state_dict()
    rng = state["rng"]
    bad = [
        {**state, "rng": {**rng, "state": {"state": 10**40, "inc": 1}}},
        {**state, "rng": {**rng, "state": {"state": -5, "inc": -7}}},
        {**state, "deck": [0, 0]},
        {**state, "deck": [10**6]},
        {**state, "actions": [*state["actions"], 0, 0, 0]},
    ]
    target = registry.get(game).make_raw_env()
    target.reset(seed=3)
    kept = _snapshot(target)
    for value in bad:
        with pytest.raises(StateError):
            target.load_state_dict(_redigest(value))
        assert _snapshot(target) == kept


@pytest.mark.parametrize("game", ["oicho_kabu", "kakeya"])
def test_an_edit_of_what_no_seat_has_seen_is_refused(game: str) -> None:
    # issue (hardening #3): the replay cannot see these edits, the digest does
    env = registry.get(game).make_raw_env()
    env.reset(seed=6, options={"deck": [5, 9]})
    _play(env, np.random.default_rng(3), 2)
    state = json.loads(json.dumps(env.state_dict()))
    rng = copy.deepcopy(state["rng"])
    rng["state"]["state"] += 1
    edits = [{**state, "rng": rng}, {**state, "deck": [5, 9, 11]}, {**state, "version": 1}]
    for edit in edits:
        with pytest.raises(StateError, match="digest|version"):
            registry.get(game).make_raw_env().load_state_dict(edit)
    registry.get(game).make_raw_env().load_state_dict(state)  # the unedited state loads
