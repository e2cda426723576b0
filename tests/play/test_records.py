"""Game records: every registered game is recorded and replayed exactly (every observation of every
seat compared), bad records are refused with clear messages, and a game saved mid-way restores."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kabu_envs import registry
from kabu_envs.play.records import (
    GameRecord,
    RecordError,
    iter_replay,
    new_env,
    read_record,
    replay,
    step_rewards,
    write_record,
)
from kabu_envs.play.session import HUMAN, Match

# (game, rule options, agent names): every registered game, and rule sets that change the deal's flow
CASES = [
    ("oicho_kabu", {}, ["scripted", "expert", "random", "scripted"]),
    ("oicho_kabu", {"rules": "kabufuda_site", "max_rounds": 3}, ["random", "scripted", "expert", "random"]),
    ("oicho_kabu", {"rules": "kansai", "deck": "hanafuda", "num_players": 5}, ["random"] * 5),
    ("kakeya", {}, ["scripted", "random", "scripted", "random"]),
    ("kakeya", {"num_players": 6, "max_deals": 2}, ["scripted", "random"] * 3),
    ("toy_card", {"num_players": 3}, ["scripted", "random", "random"]),
]


def observations(env) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(o["observation"].copy(), o["action_mask"].copy()) for o in map(env.observe, env.possible_agents)]


@pytest.mark.parametrize(("game", "options", "agents"), CASES)
def test_every_registered_game_replays_every_observation(tmp_path, game, options, agents):
    assert {c[0] for c in CASES} >= set(registry.game_ids())
    match = Match(game, agents, options, seed=11, created_by="test")
    seen = [observations(match.env)]
    while not match.over:
        obs = match.env.observe(match.env.agent_selection)
        match.step(int(match.agents[match.to_act].act(obs["observation"], obs["action_mask"])))
        seen.append(observations(match.env))
    record = read_record(write_record(match.record(), tmp_path / "game.json"))
    assert record.complete and record.rewards == pytest.approx(match.totals.tolist())
    env = new_env(record)
    replayed = [observations(env)]
    totals = step_rewards(env)
    for _env, _i, _actor, _action in iter_replay(record, env):
        replayed.append(observations(env))
        totals += step_rewards(env)
    assert len(replayed) == len(seen) == len(record.actions) + 1
    for step, (a, b) in enumerate(zip(seen, replayed, strict=True)):
        for seat, ((oa, ma), (ob, mb)) in enumerate(zip(a, b, strict=True)):
            assert np.array_equal(oa, ob) and np.array_equal(ma, mb), f"step {step}, seat {seat}"
    assert totals.tolist() == pytest.approx(record.rewards)
    _, again = replay(record)
    assert again == pytest.approx(record.rewards)


def test_a_stacked_deck_is_recorded_and_replayed():
    deck = [39, 0, 38]
    match = Match("toy_card", ["scripted"] * 3, {"num_players": 3}, seed=3, deck=deck)
    match.advance()
    rec = GameRecord.from_json(json.loads(json.dumps(match.to_json())))
    assert rec.deck == deck
    env, totals = replay(rec)
    assert totals == pytest.approx(match.totals.tolist())
    assert env.game.values == [9, 0, 9]  # the deck, not the seed, dealt the cards


def _good() -> dict:
    m = Match("toy_card", ["scripted", "scripted"], seed=1)
    m.advance()
    return m.to_json()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(version=2), "version 2 is not supported"),
        (lambda d: d.update(format="x"), "not a game record"),
        (lambda d: d.update(game="chess"), "unknown game 'chess'"),
        (lambda d: d.update(options={"raise_threshold": 99}), "rule options do not fit Toy Card"),
        (lambda d: d.update(options={"colour": 1}), "colour"),
        (lambda d: d.update(seed=-1), "'seed' must be a non-negative integer"),
        (lambda d: d.update(actions=["x"]), "'actions' must be a list of integer"),
        (lambda d: d.update(extra=1), "unknown record field(s) ['extra']"),
        (lambda d: d.pop("actions"), "has no 'actions'"),
        (lambda d: d.update(rewards=None), "needs 'rewards'"),
    ],
)
def test_bad_records_are_refused_naming_the_problem(edit, message):
    data = _good()
    edit(data)
    with pytest.raises(RecordError, match=None) as err:
        GameRecord.from_json(data)
    assert message in str(err.value)


def test_replay_refuses_illegal_actions_wrong_rewards_and_short_games(tmp_path):
    rec = GameRecord.from_json(_good())
    rec.actions[0] = 7
    with pytest.raises(RecordError, match=r"action #0 \(7\) of player_0 is not legal there; legal: \[0, 1"):
        replay(rec)
    rec = GameRecord.from_json(_good())
    rec.rewards = [5.0, -5.0]
    with pytest.raises(RecordError, match="differ from the record's"):
        replay(rec)
    rec = GameRecord.from_json(_good())
    rec.actions = rec.actions[:1]
    with pytest.raises(RecordError, match="still to act"):
        replay(rec)
    rec = GameRecord.from_json(_good())
    rec.actions.append(0)
    with pytest.raises(RecordError, match="already over"):
        replay(rec)
    rec = GameRecord.from_json(_good())
    rec.seats.append({"agent": "random", "seed": 1})
    with pytest.raises(RecordError, match="lists 3 seats, but Toy Card with these options has 2"):
        replay(rec)
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(RecordError, match="is not JSON"):
        read_record(tmp_path / "bad.json")


@pytest.mark.parametrize("game", ["oicho_kabu", "kakeya"])
def test_a_game_saved_mid_way_restores_and_continues_alike(game):
    seats = [HUMAN, "random", "random", "random"]
    options = {"max_rounds": 10} if game == "oicho_kabu" else {}  # still going after three moves
    a = Match(game, seats, options, seed=21)
    rng = np.random.default_rng(0)
    for _ in range(3):
        a.advance()
        a.play(int(rng.choice([m["action"] for m in a.legal_moves()])))
    saved = json.loads(json.dumps(a.to_json()))
    assert saved["complete"] is False and saved["seed"] is None and saved["sealed"]
    b = Match.from_json(saved)
    assert b.view() == a.view() and b.legal_moves() == a.legal_moves()
    assert b.totals.tolist() == a.totals.tolist() and b.seat == a.seat == 0
    while not a.over:  # the same moves on both: the same game
        for m in (a, b):
            m.agents = [None, *[_Fixed() for _ in range(3)]]
        a.advance(), b.advance()
        if a.over:
            break
        action = a.legal_moves()[0]["action"]
        a.play(action), b.play(action)
        assert b.view() == a.view()
    assert b.over and b.record().rewards == a.record().rewards


class _Fixed:
    """Plays the first legal action (deterministic, so two restored games stay in step)."""

    def act(self, observation, mask):
        return int(np.flatnonzero(mask)[0])
