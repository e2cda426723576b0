"""Game records: one game (an AEC episode) as JSON, written by ``kabu-play`` and ``kabu-eval
--record-dir``, replayed exactly by ``kabu-replay``, the web viewer and the tests.

A record holds what makes the game happen again: the game id, its rule options, the seed of
``env.reset`` (and the stacked deck, if any), who sat where (agent names and seeds, for the reader)
and every action in order. Replaying re-creates the env with the same seed and applies the actions,
each checked to be legal; a complete record also holds each seat's total reward, which the replay
must reproduce. The agents are not re-run: a replay needs no model, no torch, no agent code.

An incomplete record (``"complete": false``) is a saved game in progress: ``replay`` restores the env
to that point, which is how ``kabu-play`` saves and restores a game mid-way (``Match.to_json`` /
``Match.from_json``): the state of the engine is its seed and its actions. When a person plays it
(``viewer`` is a seat), its seed and deck are sealed (``kabu_envs.play.seal``: ``"seed"`` and
``"deck"`` null, ``"sealed"`` set) and it replays only as the person's seat saw it until the game is
over (``GameRecord.check_seat``): the other hands stay hidden, and an edited record does not open.

Format (``"version": 1``)::

    {"format": "kabu-envs game record", "version": 1, "game": "kakeya", "options": {...},
     "seed": 7, "deck": null, "seats": [{"agent": "human", "seed": null}, {"agent": "scripted",
     "seed": 123}, ...], "viewer": 0, "actions": [57, 12, ...], "complete": true,
     "rewards": [1.0, -1.0, 1.0, -1.0], "created_by": "kabu-play", "kabu_envs_version": "0.1.0"}

Reading is strict (``from_json``): every field has one type (``"complete": "false"`` or ``"rewards": 5``
are refused, not read as True or as a total), and anything wrong raises ``RecordError`` naming it.
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kabu_envs import __version__, registry
from kabu_envs.play.seal import SealError, seal, unseal

FORMAT = "kabu-envs game record"
VERSION = 1
# every field of a record (to_json writes them all but "sealed", which replaces seed and deck of a
# person's game in progress; from_json refuses others)
_KEYS = frozenset(("format", "version", "game", "options", "seed", "deck", "seats", "viewer", "actions"))
_KEYS |= {"complete", "rewards", "created_by", "kabu_envs_version", "sealed"}
_SEAT_KEYS = frozenset(("agent", "seed"))
# what a seal does not cover: what it hides, and the version that wrote the file
_UNBOUND = frozenset(("seed", "deck", "sealed", "kabu_envs_version"))


class RecordError(ValueError):
    """A record that cannot be read or replayed; the message names the problem."""


@dataclass
class GameRecord:
    """One game: enough to replay it exactly (see the module docstring)."""

    game: str
    options: dict[str, Any]
    seed: int
    seats: list[dict[str, Any]]
    actions: list[int] = field(default_factory=list)
    deck: list[int] | None = None
    viewer: int | None = None  # the seat a person played (the replay viewer shows its view first)
    complete: bool = False
    rewards: list[float] | None = None  # each seat's total reward, when complete
    created_by: str = "kabu-play"
    version: int = VERSION

    @property
    def private(self) -> bool:
        """A person's game in progress: its cards stay hidden (sealed when written; replayed only as
        the person's seat saw it) until it is complete."""
        return not self.complete and self.viewer is not None

    def check_seat(self, seat: int) -> None:
        """``RecordError`` unless ``seat`` may be shown: any seat of a finished game or of a game
        without a person; only the person's seat of their game in progress."""
        if self.private and seat != self.viewer:
            raise RecordError(
                f"this is player_{self.viewer}'s game in progress: until it is finished it replays only as "
                f"player_{self.viewer} saw it (seat {self.viewer}), not as seat {seat}"
            )

    def to_json(self, key: bytes | None = None) -> dict[str, Any]:
        """The record as JSON; a person's game in progress has its seed and deck sealed (with ``key``,
        default the machine's: ``seal.load_key``)."""
        out = {
            "format": FORMAT,
            "version": self.version,
            "game": self.game,
            "options": self.options,
            "seed": self.seed,
            "deck": self.deck,
            "seats": self.seats,
            "viewer": self.viewer,
            "actions": self.actions,
            "complete": self.complete,
            "rewards": self.rewards,
            "created_by": self.created_by,
            "kabu_envs_version": __version__,
        }
        if self.private:
            out["sealed"] = seal({"seed": self.seed, "deck": self.deck}, _bound(out), key)
            out["seed"] = out["deck"] = None
        return out

    @classmethod
    def from_json(cls, data: Any, key: bytes | None = None) -> GameRecord:
        """Validate and read a record (a sealed one opened with ``key``, default the machine's);
        anything wrong raises ``RecordError`` naming it."""
        try:
            return cls._from_json(data, key)
        except RecursionError:
            raise RecordError("the record is nested too deeply") from None

    @classmethod
    def _from_json(cls, data: Any, key: bytes | None) -> GameRecord:
        if not isinstance(data, dict):
            raise RecordError(f"a game record is a JSON object, got {type(data).__name__}")
        if data.get("format") != FORMAT:
            got = _short(data.get("format"))
            raise RecordError(f"not a game record: 'format' is {got}, expected {FORMAT!r}")
        version = data.get("version")
        if not _is_int(version) or version != VERSION:
            raise RecordError(
                f"record version {_short(version)} is not supported; this kabu-envs reads version {VERSION}"
            )
        unknown = sorted(set(data) - _KEYS)
        if unknown:
            raise RecordError(f"unknown record field(s) {_short(unknown)}; known: {sorted(_KEYS)}")
        for name in ("game", "options", "seed", "seats", "actions"):
            if name not in data:
                raise RecordError(f"the record has no {name!r}")
        game = data["game"]
        if not isinstance(game, str):
            raise RecordError(f"'game' must be a game id, got {_short(game)}")
        try:
            spec = registry.get(game)
        except ValueError as exc:
            raise RecordError(str(exc)) from None
        options = data["options"]
        if not isinstance(options, dict):
            raise RecordError(f"'options' must be an object of rule options, got {_short(options)}")
        try:
            spec.config(**options)
        except (ValueError, TypeError) as exc:
            raise RecordError(f"the record's rule options do not fit {spec.title}: {exc}") from None
        seats = data["seats"]
        if not isinstance(seats, list) or not all(_seat_ok(s) for s in seats):
            raise RecordError(
                "'seats' must be a list of {'agent': name, 'seed': non-negative integer or null}, one per "
                "seat ('human' with seed null for a person)"
            )
        actions = data["actions"]
        if not isinstance(actions, list) or not all(_is_int(a) for a in actions):
            raise RecordError("'actions' must be a list of integer action ids")
        viewer = data.get("viewer")
        if viewer is not None and (not _is_int(viewer) or not 0 <= viewer < len(seats)):
            raise RecordError(f"'viewer' must be null or a seat 0..{len(seats) - 1}, got {_short(viewer)}")
        complete = data.get("complete", False)
        if not isinstance(complete, bool):
            raise RecordError(f"'complete' must be true or false, got {_short(complete)}")
        rewards = data.get("rewards")
        if rewards is not None and (
            not isinstance(rewards, list)
            or len(rewards) != len(seats)
            or not all(_is_number(r) for r in rewards)
        ):
            raise RecordError(f"'rewards' must be null or {len(seats)} numbers (one total per seat)")
        if complete and rewards is None:
            raise RecordError("a complete record needs 'rewards': one total per seat")
        created_by = data.get("created_by", "")
        if not isinstance(created_by, str):
            raise RecordError(f"'created_by' must be a string, got {_short(created_by)}")
        seed, deck = data["seed"], data.get("deck")
        if "sealed" in data:
            if complete or viewer is None:
                raise RecordError("this sealed record is not a game in progress with a person's seat")
            if seed is not None or deck is not None:
                raise RecordError("a sealed record has 'seed' and 'deck' null")
            try:
                secret = unseal(data["sealed"], _bound(data), key)
            except SealError as exc:
                raise RecordError(str(exc)) from None
            seed, deck = secret.get("seed"), secret.get("deck")
        if not _is_int(seed) or seed < 0:
            raise RecordError(f"'seed' must be a non-negative integer, got {_short(seed)}")
        if deck is not None and (not isinstance(deck, list) or not all(_is_int(c) for c in deck)):
            raise RecordError(f"'deck' must be null or a list of card ids, got {_short(deck)}")
        return cls(
            game=game,
            options=dict(options),
            seed=int(seed),
            seats=[dict(s) for s in seats],
            actions=[int(a) for a in actions],
            deck=None if deck is None else [int(c) for c in deck],
            viewer=None if viewer is None else int(viewer),
            complete=complete,
            rewards=None if rewards is None else [float(r) for r in rewards],
            created_by=created_by,
        )


def _bound(data: dict[str, Any]) -> bytes:
    """What a seal is bound to: the record but its secret and its writer's version, canonical JSON."""
    rest = {k: v for k, v in data.items() if k not in _UNBOUND}
    return json.dumps(rest, sort_keys=True, separators=(",", ":")).encode()


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _seat_ok(s: Any) -> bool:
    if not isinstance(s, dict) or not set(s) <= _SEAT_KEYS or not isinstance(s.get("agent"), str):
        return False
    seed = s.get("seed")
    return seed is None or (_is_int(seed) and seed >= 0)


def _short(x: Any, limit: int = 60) -> str:
    """``repr`` of a value from a file, cut short (a message stays one line)."""
    text = repr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(raw: bytes | str) -> Any:
    """Strict JSON (no NaN or Infinity); ``ValueError`` naming the problem (too deep, not UTF-8,
    an integer too long, ...)."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte {exc.start})") from None
    try:
        return json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise ValueError(str(exc)) from None


def write_record(record: GameRecord, path: str | Path, key: bytes | None = None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record.to_json(key), indent=1) + "\n")
    return path


MAX_RECORD_BYTES = 64 << 20  # a record of a million actions is ~7 MB


def read_record(path: str | Path) -> GameRecord:
    """Read and validate a record file (``RecordError`` on a bad file). Only a regular file of at most
    ``MAX_RECORD_BYTES``: a FIFO would hang the reader and a device (``/dev/zero``) never ends."""
    try:
        # O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise RecordError(f"cannot read the file: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise RecordError("not a regular file (a record is a JSON file; a pipe or a device is refused)")
        if info.st_size > MAX_RECORD_BYTES:
            raise RecordError(
                f"the file is too large for a record: {info.st_size} bytes (at most {MAX_RECORD_BYTES})"
            )
        try:
            raw = f.read(MAX_RECORD_BYTES + 1)
        except OSError as exc:
            raise RecordError(f"cannot read the file: {exc.strerror or exc}") from None
    if len(raw) > MAX_RECORD_BYTES:  # (it grew while read)
        raise RecordError(f"the file is too large for a record: more than {MAX_RECORD_BYTES} bytes")
    try:
        data = parse_json(raw)
    except ValueError as exc:  # json's own, and the interpreter's limit on the digits of an integer
        raise RecordError(f"the file is not JSON: {exc}") from None
    return GameRecord.from_json(data)


def new_env(record: GameRecord) -> Any:
    """The raw AEC env of the record's game, reset to its seed (and deck; a bad deck is a
    ``RecordError``)."""
    spec = registry.get(record.game)
    env = spec.make_raw_env(**record.options)
    if len(env.possible_agents) != len(record.seats):
        raise RecordError(
            f"the record lists {len(record.seats)} seats, but {spec.title} with these options has "
            f"{len(env.possible_agents)}"
        )
    try:
        env.reset(seed=record.seed, options={"deck": record.deck} if record.deck is not None else None)
    except (ValueError, TypeError) as exc:
        raise RecordError(f"the record's deal does not start: {exc}") from None
    return env


def episode_over(env: Any) -> bool:
    """True once every seat is done (the AEC env needs no more real actions)."""
    return not env.agents or all(env.terminations[a] or env.truncations[a] for a in env.agents)


def step_rewards(env: Any) -> np.ndarray:
    """The rewards the last step (or the reset) paid, one per seat."""
    return np.array([env.rewards.get(a, 0.0) for a in env.possible_agents], dtype=np.float64)


def iter_replay(
    record: GameRecord, env: Any = None, before: Callable[[Any, int, int, int], None] | None = None
) -> Iterator[tuple[Any, int, int, int]]:
    """Replay the record: yields ``(env, step index, actor seat, action)`` after each action.

    Each action is checked against the legal ones before it is applied; one that is not legal (or
    one after the end of the game) raises ``RecordError`` naming the step and the legal actions.
    ``env``: the env ``new_env(record)`` just made (default: a new one); ``before(env, i, actor,
    action)`` is called with each checked action before it is applied (e.g. to describe the move).
    """
    env = new_env(record) if env is None else env
    for i, action in enumerate(record.actions):
        if episode_over(env):
            raise RecordError(
                f"action #{i} ({action}): the game was already over ({len(record.actions)} actions)"
            )
        actor = env.possible_agents.index(env.agent_selection)
        legal = [int(a) for a in env.legal_actions()]
        if action not in legal:
            raise RecordError(
                f"action #{i} ({action}) of player_{actor} is not legal there; legal: {legal}"
                " (a record of another version of the rules, or edited by hand?)"
            )
        if before is not None:
            before(env, i, actor, action)
        env.step(action)
        yield env, i, actor, action


def replay(
    record: GameRecord, on_step: Callable[[Any, int, int, int], None] | None = None
) -> tuple[Any, list[float]]:
    """Replay the whole record and check it; returns the env at its end and each seat's total reward.

    A complete record must end the game and reproduce each seat's total reward; an incomplete one
    (a saved game) leaves the env where the game stopped.
    """
    env = new_env(record)
    totals = step_rewards(env)
    for _, i, actor, action in iter_replay(record, env):
        totals += step_rewards(env)
        if on_step is not None:
            on_step(env, i, actor, action)
    check_end(record, env, totals)
    return env, totals.tolist()


def check_end(record: GameRecord, env: Any, totals: np.ndarray) -> None:
    """A complete record must have ended the game with its recorded rewards (``RecordError`` if not)."""
    if record.complete:
        if not episode_over(env):
            actor = env.possible_agents.index(env.agent_selection)
            raise RecordError(
                f"the record says the game is complete, but after its {len(record.actions)} actions "
                f"player_{actor} is still to act"
            )
        if record.rewards is not None and not np.allclose(totals, record.rewards):
            raise RecordError(
                f"the replay's rewards {totals.tolist()} differ from the record's {record.rewards}"
            )


class DealRecorder:
    """Writes every play of a duplicate match as a game record (``kabu-eval --record-dir``).

    Called by ``eval.duplicate.play_deal`` (a ``duplicate.Recorder``) with the seat agents, their
    seeds, the deal seed and the actions; ``names`` maps an agent object's ``id`` to its name (any
    other agent is ``other``, e.g. the game's reference agent). Files: ``<prefix>-<play>.json``.
    """

    def __init__(
        self,
        directory: str | Path,
        game: str,
        options: dict[str, Any],
        names: dict[int, str],
        other: str,
        prefix: str,
    ) -> None:
        self.directory = Path(directory)
        self.game, self.options = game, dict(options)
        self.names, self.other, self.prefix = names, other, prefix
        self.count = 0
        self.directory.mkdir(parents=True, exist_ok=True)

    def __call__(
        self, seat_agents: Any, seeds: list[int], deal_seed: int, actions: list[int], totals: np.ndarray
    ) -> None:
        seats = [
            {"agent": self.names.get(id(a), self.other), "seed": int(s)}
            for a, s in zip(seat_agents, seeds, strict=True)
        ]
        record = GameRecord(
            self.game,
            self.options,
            int(deal_seed),
            seats,
            list(actions),
            complete=True,
            rewards=[float(x) for x in totals],
            created_by="kabu-eval",
        )
        write_record(record, self.directory / f"{self.prefix}-{self.count:06d}.json")
        self.count += 1
