"""Fuzz game records, saved games and ``--resume`` (``Match.from_json``): random truncations and edits
of real records. A record either replays exactly (and a resumed game continues), or is refused with a
``RecordError`` naming the problem: never another exception, never a sealed save opened after an edit,
never a saved game's hidden cards shown."""

from __future__ import annotations

import copy
import json
from typing import Any

import numpy as np
import pytest
from fuzz_helpers import count, examples
from hypothesis import given
from hypothesis import strategies as st

from kabu_envs import registry
from kabu_envs.play.records import GameRecord, RecordError, parse_json, replay
from kabu_envs.play.replay import replay_frames
from kabu_envs.play.session import HUMAN, Match

GAMES = {"oicho_kabu": {"max_rounds": 3}, "kakeya": {}, "toy_card": {}}


def _played(game: str, seed: int, moves: int, seat: int) -> Match:
    """A person's game ``moves`` of the person's moves in (or to its end), agents elsewhere."""
    options = GAMES[game]
    seats = len(registry.get(game).make_raw_env(**options).possible_agents)
    names = ["random" if i != seat % seats else HUMAN for i in range(seats)]
    match = Match(game, names, options, seed=seed)  # a person's game: its save is sealed
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        match.advance()
        if match.over:
            break
        match.play(int(rng.choice([m["action"] for m in match.legal_moves()])))
    return match


def _edit(data: Any, draw: Any) -> tuple[Any, str]:
    """One random edit of a record's JSON: a field changed, removed or added, an action changed,
    dropped or added, a seat changed. Returns the edited record and what was edited."""
    out = copy.deepcopy(data)
    kind = draw(st.sampled_from(["field", "drop", "add", "action", "actions", "seat", "seal"]), label="edit")
    keys = sorted(out)
    if kind == "field":
        key = draw(st.sampled_from(keys), label="key")
        out[key] = draw(st.one_of(st.none(), st.integers(-3, 10**20), st.text(max_size=5), st.booleans(),
                                  st.lists(st.integers(0, 60), max_size=4)), label="value")  # fmt: skip
    elif kind == "drop":
        key = draw(st.sampled_from(keys), label="key")
        del out[key]
    elif kind == "add":
        out[draw(st.text(min_size=1, max_size=6), label="new key")] = 1
    elif kind in ("action", "actions") and out.get("actions"):
        acts = out["actions"]
        i = draw(st.integers(0, len(acts) - 1), label="index")
        if kind == "action":
            acts[i] = draw(st.integers(-2, 80), label="action")
        else:
            del acts[i:]
    elif kind == "seat" and out.get("seats"):
        i = draw(st.integers(0, len(out["seats"]) - 1), label="seat")
        out["seats"][i] = {"agent": draw(st.sampled_from(["random", "scripted", HUMAN, "x"])), "seed": 3}
    elif kind == "seal" and isinstance(out.get("sealed"), str):
        text = out["sealed"]
        i = draw(st.integers(3, len(text) - 1), label="char")
        out["sealed"] = text[:i] + ("A" if text[i] != "A" else "B") + text[i + 1 :]
    return out, kind


@pytest.mark.parametrize("game", sorted(GAMES))
@examples(1)
@given(data=st.data())
def test_edited_saves_are_refused_and_unedited_ones_continue(game, data):
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    moves = data.draw(st.integers(1, 6), label="moves")
    match = _played(game, seed, moves, data.draw(st.integers(0, 5), label="seat"))
    if match.over:
        return
    save = json.loads(json.dumps(match.to_json()))
    assert save["seed"] is None and save["sealed"]  # a person's game in progress is sealed
    resumed = Match.from_json(save)
    assert resumed.view() == match.view() and resumed.legal_moves() == match.legal_moves()
    count("saves resumed unedited")
    rec = GameRecord.from_json(save)
    other = (rec.viewer + 1) % len(rec.seats)
    with pytest.raises(RecordError, match="game in progress"):  # no other seat's cards until it is over
        replay_frames(rec, other)
    edited, kind = _edit(save, data.draw)
    if edited == save:
        return
    try:
        again = Match.from_json(edited)
    except RecordError:
        count(f"edited saves refused ({kind})")
        return
    # only an edit the seal does not cover may open: the writer's version
    assert {k for k in set(save) | set(edited) if save.get(k) != edited.get(k)} <= {"kabu_envs_version"}, kind
    assert again.view() == match.view()
    count("edited saves that still open (unbound field)")


@pytest.mark.parametrize("game", sorted(GAMES))
@examples(1)
@given(data=st.data())
def test_truncated_and_edited_records_replay_or_are_refused(game, data):
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    match = _played(game, seed, 10_000, 0)  # to the end: a clear record
    assert match.over
    record = json.loads(json.dumps(match.to_json()))
    rec = GameRecord.from_json(record)
    _, totals = replay(rec)
    assert np.allclose(totals, rec.rewards)
    cut = data.draw(st.integers(0, len(record["actions"])), label="cut")
    part = {**record, "actions": record["actions"][:cut], "complete": False, "rewards": None, "viewer": None}
    env, _ = replay(GameRecord.from_json(part))  # a prefix is a game in progress
    count("record prefixes replayed")
    frames = replay_frames(GameRecord.from_json(part), data.draw(st.integers(0, len(record["seats"]) - 1)))
    assert len(frames) == cut + 1
    edited, kind = _edit(record, data.draw)
    try:
        replay(GameRecord.from_json(edited))
    except RecordError as exc:
        assert str(exc)
        count(f"edited records refused ({kind})")
    else:
        count(f"edited records that replay ({kind})")
    text = json.dumps(record)
    stop = data.draw(st.integers(0, len(text) - 1), label="truncate at")
    with pytest.raises(ValueError):  # a cut file is not JSON (or not a whole record)
        value = parse_json(text[:stop])
        GameRecord.from_json(value)
        raise ValueError("a cut record read as a whole one")
    count("truncated files refused")
