"""``kabu-play --web``: a local web page to play any registered game and to replay game records.

Standard library only (``http.server``): a ``ThreadingHTTPServer`` bound to 127.0.0.1 by default (or
``::1``, or any address given), the page (``static/``: plain HTML, CSS and JavaScript, no build step,
no downloaded assets) and a small JSON API. Each game is a ``Match`` (``kabu_envs.play.session``) kept
under a random token in a ``GameStore`` (least recently used first out, idle games expired).

What the browser receives is built from frames and legal moves only, i.e. from the person's seat view
(``kabu_envs.core.views``): **the server never sends a card that seat may not see** (tested by
changing the unseen cards of a stacked deck and comparing the JSON). A saved game in progress is a
sealed record (``kabu_envs.play.seal``): it replays only as the person's seat, until it is over.

API (JSON bodies):

* ``GET /api/games``: the games, their agents and default opponent.
* ``POST /api/new`` ``{game, seat, opponents, options, seed}`` -> ``{token, frames, state}``: the
  agents' moves up to the person's first decision, then the state.
* ``POST /api/move`` ``{token, action}`` -> ``{frames, state}``: the person's move and the agents'
  moves after it, one frame each (the page animates them one by one). At most ``MAX_ADVANCE`` agent
  moves per answer: ``state.pending`` then asks for the rest with ``{token, action: null}``.
* ``POST /api/watch`` ``{game, agents, options, seed, view, god}`` -> ``{token, frames, state}``: agents
  on every seat (``agents``: one name, or one per seat), shown as seat ``view`` (default 0) sees the
  game, or with ``god: true`` every seat's cards (``godview``: no person plays a watched game);
  ``{token, action: null}`` on ``/api/move`` fetches the next moves (``state.pending``).
* ``GET /api/record?token=...``: the game record so far.
* ``POST /api/replay`` ``{record, seat, first, count, god}`` -> ``{frames, first, total, seats, seat}``:
  a page of a record replayed (checked) as that seat saw it (``god``: every seat's cards, where every
  seat may be shown).
* ``POST /api/resume`` ``{record}`` -> ``{token, frames, state}``: continue a saved (incomplete) game.

Hostile and careless requests: every field has one type (``fields``); a request costs a
bounded amount (body ``MAX_BODY``, replays ``MAX_REPLAY_ACTIONS`` actions and ``MAX_PAGE`` frames,
``HEAVY`` replays at a time, sockets time out after ``SOCKET_TIMEOUT`` s, ``MAX_CONNECTIONS`` at
once); requests from other sites are refused (``Origin``, ``Sec-Fetch-Site``, JSON bodies only);
every refusal is a 4xx with a JSON ``{"error": ...}`` that names no server path.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import ipaddress
import json
import math
import secrets
import socket
import sys
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from kabu_envs import registry
from kabu_envs.core.messages import CORE, Msg, catalogue, say
from kabu_envs.play import fields
from kabu_envs.play.errors import MESSAGES as ERROR_MESSAGES
from kabu_envs.play.errors import error_body, field_error, record_error
from kabu_envs.play.fields import FieldError
from kabu_envs.play.records import GameRecord, RecordError, parse_json, write_record
from kabu_envs.play.seal import SealError, load_key
from kabu_envs.play.session import IllegalMove, Match, SeatError, seat_list, viewer_for
from kabu_envs.play.store import Entry, GameStore, StoreFull

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
MAX_SESSIONS = 64  # games held; when full a finished or long idle game goes, else a new one is refused
IDLE_SECONDS = 2 * 3600.0  # a game untouched this long is dropped
MAX_BODY = 1 << 20  # bytes of a request body: a record of MAX_REPLAY_ACTIONS actions is ~300 KB
MAX_REPLAY_ACTIONS = 50_000  # actions of a record the page replays or resumes (~1 s to check)
PAGE, MAX_PAGE = 100, 200  # frames of a replay answer: by default, at most (~3.3 KB each)
MAX_ADVANCE = 500  # agent moves in one answer (a seat that cannot act may wait long)
SOCKET_TIMEOUT = 15.0  # seconds one read of a request may wait
REQUEST_DEADLINE = 20.0  # seconds a whole request (line, headers, body) may take to arrive
MAX_CONNECTIONS = 64  # requests served at once (each a thread); more wait in the backlog
MAX_PER_CLIENT = 48  # of them from one client address (its others wait): other addresses keep 16
BACKLOG = 128  # connections the kernel queues (was 5: 91 of 50 clients' connections were reset)
HEAVY = 2  # replays and resumes at once; more wait up to SOCKET_TIMEOUT, then 429
ICON = "icon.svg"
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/static/cards.js": ("cards.js", "text/javascript; charset=utf-8"),
    "/static/i18n.js": ("i18n.js", "text/javascript; charset=utf-8"),
    "/static/rules.js": ("rules.js", "text/javascript; charset=utf-8"),
    "/static/style.css": ("style.css", "text/css; charset=utf-8"),
    "/static/icon.svg": (ICON, "image/svg+xml"),
    "/favicon.ico": (ICON, "image/svg+xml"),
}


# the JSON API (docs/play.md's table is checked against these): path -> App method
GET_API = {"/api/games": "games", "/api/record": "record", "/api/messages": "messages"}
POST_API = {
    "/api/new": "new",
    "/api/watch": "watch",
    "/api/move": "move",
    "/api/replay": "replay",
    "/api/resume": "resume",
}


class ServeError(Exception):
    """The server cannot start (a bad address, a port in use); the message says why, in one line."""


class ApiError(Exception):
    """A request the API refuses, with the HTTP status, an English message and the same as a message
    of ``errors.MESSAGES`` (``said``) the page writes in its language."""

    def __init__(
        self,
        message: str,
        said: Msg,
        status: HTTPStatus = HTTPStatus.BAD_REQUEST,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.said = said
        self.status = status
        self.retry_after = retry_after  # seconds, for a 429 (sent as ``Retry-After``)


def games_info(policies: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """What the page's game menu needs; ``policies``: model paths given on the command line
    (``--policy``), each listed under the game it was trained for."""
    from kabu_envs.agents.registry import shipped_models

    out = []
    for spec in registry.games():
        models = [m for m in [*shipped_models(), *policies] if _model_game(m) == spec.id]
        out.append(
            {
                "id": spec.id,
                "title": spec.title,
                "agents": list(dict.fromkeys([*spec.agent_names, *models])),  # (each name once)
                "opponent": spec.reference if spec.reference in spec.agent_names else "random",
                "seats": len(spec.make_raw_env().possible_agents),
            }
        )
    return out


def _model_game(name: str) -> str | None:
    """The game a shipped model was trained for (its policy.json), None if unreadable."""
    from kabu_envs.agents.policy_file import read_trained_for
    from kabu_envs.agents.registry import model_path

    try:
        return read_trained_for(model_path(name)).get("game")
    except (OSError, ValueError):
        return None


class App:
    """The games in progress (a ``GameStore``) and where finished games' records go."""

    def __init__(
        self,
        record_dir: str | Path | None = None,
        key: bytes | None = None,
        max_games: int = MAX_SESSIONS,
        idle_seconds: float = IDLE_SECONDS,
        policies: tuple[str, ...] = (),
    ) -> None:
        """``policies``: policy files or model directories the operator named (``--policy``): agents
        the page may pick besides the shipped ones (a request can never name a path itself)."""
        self.record_dir = Path(record_dir) if record_dir else None
        self.policies = tuple(str(p) for p in policies)
        self.store = GameStore(max_games, idle_seconds)
        self.key_note: str | None = None
        if key is None:
            try:
                key = load_key()
            except SealError as exc:  # saved games then open only while this server runs
                key = secrets.token_bytes(32)
                self.key_note = f"{exc}; games saved in progress continue only while this server runs"
        self.key = key
        self.heavy = threading.BoundedSemaphore(HEAVY)
        self.verified: OrderedDict[bytes, bool] = OrderedDict()  # records (and seats) already checked
        self.verified_lock = threading.Lock()
        self._agents: dict[str, list[str]] = {}

    # --- requests ---------------------------------------------------------------------------------
    def games(self) -> list[dict[str, Any]]:
        return games_info(self.policies)

    def new(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            spec = registry.get(fields.string(body, "game"))
            options = fields.obj(body, "options", {})
            n = len(spec.make_raw_env(**options).possible_agents)
            opponents = fields.names(body, "opponents") or [
                spec.reference if spec.reference in spec.agent_names else "random"
            ]
            self._check_agents(spec.id, opponents)
            seats = seat_list(fields.integer(body, "seat", 0), opponents, n)
            seed = fields.optional_integer(body, "seed")
            deck = fields.int_list(body, "deck")
            match = Match(spec.id, seats, options, seed, deck, created_by="kabu-play --web")
        except (ValueError, TypeError) as exc:
            raise ApiError(str(exc), _start_error(exc)) from None
        return self._start(match)

    def watch(self, body: dict[str, Any]) -> dict[str, Any]:
        """Agents on every seat, watched as seat ``view`` sees the game (no person plays: any seat's
        view may be shown)."""
        try:
            spec = registry.get(fields.string(body, "game"))
            options = fields.obj(body, "options", {})
            n = len(spec.make_raw_env(**options).possible_agents)
            agents = fields.names(body, "agents") or ["random"]
            if len(agents) == 1:
                agents = agents * n
            if len(agents) != n:
                raise ApiError(
                    f"agents: give one name, or {n} (one per seat), not {len(agents)}",
                    say("error.agent_count", n=n, got=len(agents)),
                )
            self._check_agents(spec.id, agents)
            eye = fields.optional_integer(body, "view")
            god = fields.boolean(body, "god")
            seed = fields.optional_integer(body, "seed")
            match = Match(
                spec.id, agents, options, seed, created_by="kabu-play --web (watch)", eye=eye, god=god
            )
        except (ValueError, TypeError) as exc:
            raise ApiError(str(exc), _start_error(exc)) from None
        return self._start(match)

    def resume(self, body: dict[str, Any]) -> dict[str, Any]:
        """Continue a game saved as an incomplete record (``Match.from_record``, checked)."""
        data = self._record_body(body)
        with self._heavy():
            try:
                rec = GameRecord.from_json(data, self.key)
                self._check_agents(rec.game, [s["agent"] for s in rec.seats if s["agent"] != "human"])
                match = Match.from_record(rec)
            except (ValueError, TypeError) as exc:
                raise ApiError(f"cannot continue this record: {exc}", record_error(exc)) from None
        if match.seat is None:
            raise ApiError(
                "this record is not a game in progress with a person's seat", say("error.not_resumable")
            )
        return self._start(match)

    def _start(self, match: Match) -> dict[str, Any]:
        token = secrets.token_urlsafe(16)
        try:
            entry = self.store.add(token, match)
        except StoreFull as exc:
            said = say(
                "error.too_many_games",
                capacity=self.store.capacity,
                protect=f"{self.store.protect_seconds / 60:g}",
                minutes=max(1, math.ceil(exc.retry_after / 60)),
            )
            raise ApiError(
                str(exc), said, HTTPStatus.TOO_MANY_REQUESTS, retry_after=exc.retry_after
            ) from None
        with entry.lock:
            frames = match.advance(limit=MAX_ADVANCE)
            return {"token": token, "frames": frames, "state": self._state(token, entry)}

    def move(self, body: dict[str, Any]) -> dict[str, Any]:
        """The person's move (``action``), or with ``action`` null the agents' moves still pending."""
        try:
            token = fields.string(body, "token", "")
            action = body.get("action")
            if action is not None and not fields.is_int(action):
                raise FieldError(f"'action' must be an integer action id, got {str(action)[:40]!r}")
        except FieldError as exc:
            raise ApiError(f"bad move: {exc}", say("error.bad_action", detail=str(exc))) from None
        entry = self._get(token)
        with entry.lock:
            match = entry.match
            frames = []
            if action is not None:
                try:
                    frames.append(match.play(int(action)))
                except IllegalMove as exc:
                    raise ApiError(str(exc), exc.said, HTTPStatus.CONFLICT) from None
            elif match.human_to_act:
                raise ApiError(
                    "bad move: 'action' is required (your turn): one of the legal moves' ids",
                    say("error.action_required"),
                )
            frames += match.advance(limit=MAX_ADVANCE)
            return {"frames": frames, "state": self._state(token, entry)}

    def record(self, token: str) -> dict[str, Any]:
        entry = self._get(token)
        with entry.lock:
            return entry.match.to_json(self.key)

    def replay(self, body: dict[str, Any]) -> dict[str, Any]:
        """A page of frames of a checked record (``iter_frames``): ``first`` .. ``first + count - 1``."""
        from kabu_envs.play.replay import iter_frames

        data = self._record_body(body)
        try:
            first = fields.integer(body, "first", 0)
            count = fields.integer(body, "count", PAGE, lo=1, hi=MAX_PAGE)
            seat = fields.optional_integer(body, "seat")
            god = fields.boolean(body, "god")
        except FieldError as exc:
            raise ApiError(f"cannot replay this record: {exc}", field_error(str(exc))) from None
        with self._heavy():
            try:
                record = GameRecord.from_json(data, self.key)
                if seat is None:
                    seat = record.viewer if record.viewer is not None else 0
                n = len(record.seats)
                if seat >= n:
                    said = say("error.seat_not_in_record", seat=seat, n=n, last=n - 1)
                    raise ApiError(
                        f"cannot replay this record: seat {seat} is not a seat of this game (0..{n - 1})",
                        said,
                    )
                total = len(record.actions) + 1
                if first >= total:
                    said = say("error.first_out_of_range", first=first, last=total - 1)
                    raise ApiError(
                        f"cannot replay this record: 'first' = {first}: "
                        f"this record has frames 0..{total - 1}",
                        said,
                    )
                for s in range(len(record.seats)) if god else (seat,):
                    try:
                        record.check_seat(s)
                    except RecordError as exc:
                        said = say("error.record_in_progress", viewer=record.viewer, seat=s)
                        raise ApiError(
                            f"cannot replay this record: {exc}", said, HTTPStatus.FORBIDDEN
                        ) from None
            except RecordError as exc:
                status = HTTPStatus.FORBIDDEN if "game in progress" in str(exc) else HTTPStatus.BAD_REQUEST
                raise ApiError(f"cannot replay this record: {exc}", record_error(exc), status) from None
            digest = hashlib.sha256(json.dumps([data, seat, god], sort_keys=True).encode()).digest()
            with self.verified_lock:
                known = digest in self.verified
            try:
                frames = list(iter_frames(record, seat, first, first + count, verify=not known, god=god))
            except RecordError as exc:
                raise ApiError(f"cannot replay this record: {exc}", record_error(exc)) from None
            with self.verified_lock:
                self.verified[digest] = True
                while len(self.verified) > 256:
                    self.verified.popitem(last=False)
        return {
            "frames": frames,
            "first": first,
            "total": total,
            "seats": [s.get("agent", "?") for s in record.seats],
            "seat": seat,
            "game": record.game,
            "rewards": record.rewards,
        }

    # --- helpers ----------------------------------------------------------------------------------
    def _record_body(self, body: dict[str, Any]) -> dict[str, Any]:
        """``body["record"]``, refused when longer than the page replays (``MAX_REPLAY_ACTIONS``)."""
        try:
            data = fields.obj(body, "record")
        except FieldError as exc:
            raise ApiError(str(exc), field_error(str(exc))) from None
        actions = data.get("actions")
        if isinstance(actions, list) and len(actions) > MAX_REPLAY_ACTIONS:
            raise ApiError(
                f"this record has {len(actions)} actions; the page replays at most {MAX_REPLAY_ACTIONS} "
                "(kabu-replay FILE replays any record)",
                say("error.record_too_long", actions=len(actions), max=MAX_REPLAY_ACTIONS),
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
            )
        return data

    @contextlib.contextmanager
    def _heavy(self) -> Iterator[None]:
        """One of the ``HEAVY`` slots for a replay or a resume (429 when none frees in time)."""
        if not self.heavy.acquire(timeout=SOCKET_TIMEOUT):
            raise ApiError(
                "the server is busy replaying records; try again",
                say("error.busy"),
                HTTPStatus.TOO_MANY_REQUESTS,
            )
        try:
            yield
        finally:
            self.heavy.release()

    def _check_agents(self, game: str, names: list[str]) -> None:
        """Only the game's own agents, ``random``, its shipped models and the ``--policy`` paths the
        operator gave: never another path on the server."""
        allowed = self._agents.get(game)
        if allowed is None:
            allowed = next((g["agents"] for g in games_info(self.policies) if g["id"] == game), [])
            self._agents[game] = allowed = list(dict.fromkeys(["random", *allowed]))
        for name in names:
            if name not in allowed:
                title = registry.get(game).title
                said = say("error.unknown_agent", name=str(name)[:40], game=game, allowed=", ".join(allowed))
                raise ApiError(f"unknown agent {str(name)[:40]!r} for {title}; use one of {allowed}", said)

    def _get(self, token: str) -> Entry:
        entry = self.store.get(token)
        if entry is None:
            raise ApiError(
                "this game is no longer on the server (idle too long, or the server restarted); "
                "start a new one",
                say("error.game_gone"),
                HTTPStatus.NOT_FOUND,
            )
        return entry

    def _state(self, token: str, entry: Entry) -> dict[str, Any]:
        """What the page shows between moves: the seat's view, its legal moves, the totals at the end."""
        match = entry.match
        over = entry.finished = match.over
        error: Msg | None = None
        if over and self.record_dir is not None and entry.record_file is None:
            try:
                entry.record_file = str(write_record(match.record(), self.record_dir / f"game-{token}.json"))
            except OSError:
                error = say("error.record_unwritable")
        names = [
            f"player_{i} (you)" if i == match.seat else f"player_{i} ({s['agent']})"
            for i, s in enumerate(match.record().seats)
        ]
        return {
            "view": match.view(),
            "moves": match.legal_moves(),
            "over": over,
            "pending": not over and not match.human_to_act,
            "seat": match.seat,
            "eye": match.eye,
            "to_act": match.to_act,
            "names": names,
            "totals": match.totals.tolist() if over else None,
            "record_file": entry.record_file,
            "record_error": None if error is None else ERROR_MESSAGES["error.record_unwritable"][0],
            "record_error_say": error,
            "agents": [s["agent"] for s in match.record().seats],
            "rules": rules_info(match),
        }


def _start_error(exc: Exception) -> Msg:
    """The message of a game that cannot start: a request field, a seat, an unknown game, the rule
    options (their checks explain in English: the ``detail``)."""
    text = str(exc)
    if isinstance(exc, FieldError):
        return field_error(text)
    if isinstance(exc, SeatError):
        return say("error.seat_range", seat=exc.seat, n=exc.n, last=exc.n - 1)
    if text.startswith("unknown game "):
        return say("error.unknown_game", game=text.split("'")[1] if text.count("'") >= 2 else "?")
    return say("error.bad_options", detail=text)


def messages_table() -> dict[str, dict[str, str]]:
    """Every message key the server writes, with its page templates (``en``, ``ja``): the shared ones,
    each registered game's (its viewer's ``messages``) and the errors'."""
    tables: list[Any] = [CORE, ERROR_MESSAGES]
    for spec in registry.games():
        viewer = viewer_for(spec.id)
        tables.append(viewer.messages)
        if f"game.{spec.id}" not in viewer.messages:  # (a game without its own name: its title)
            tables.append({f"game.{spec.id}": (spec.title, spec.title, spec.title)})
    return catalogue(tables)


def rules_info(match: Match) -> dict[str, Any]:
    """What the page's rules panel needs of the rule set being played (public: the game's options).
    The page writes the rules themselves; the server says which of them apply (the yaku switched on,
    the bets, Rensho's rule), so the panel shows this game's rule set, not a generic one."""
    cfg = getattr(getattr(match.env, "game", None), "cfg", None)
    info: dict[str, Any] = {"game": match.spec.id}
    if cfg is None:
        return info
    keys: tuple[str, ...] = ("rules", "deck", "domae", "num_players", "rensho_rule", "rensho_follow")
    keys += ("max_rounds", "max_deals")
    for key in keys:
        value = getattr(cfg, key, None)
        if isinstance(value, (str, int)):
            info[key] = value
    yaku = getattr(cfg, "yaku", None)
    if yaku is not None:
        info["yaku"] = [
            {"name": y.name, "condition": y.condition, "holders": sorted(y.holders), "multiplier": m}
            for y in yaku.values()
            for m in [int(y.multiplier)]
        ]
    bets = getattr(match.env.game, "bet_sizes", None)
    if bets is not None:
        info["bets"] = [int(b) for b in bets]
    return info


def _is_ip(host: str) -> bool:
    """True for an IPv4 or IPv6 address (no DNS name: nothing to rebind)."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _host_name(header: str) -> str:
    """The host of a ``Host`` header, lower case, without its port: ``[::1]:8000`` -> ``::1``."""
    host = header.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        return host[1:end] if end > 0 else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class _DeadlineReader(io.RawIOBase):
    """The socket as the request's raw input, each read waiting at most until the request's deadline:
    the socket timeout alone is per read, so a client sending a header line every few seconds held a
    connection (of ``MAX_CONNECTIONS``) for as long as it liked."""

    def __init__(self, sock: socket.socket, timeout: float) -> None:
        super().__init__()
        self.sock, self.timeout = sock, timeout
        self.deadline = math.inf

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"the request took more than {REQUEST_DEADLINE:g} s to arrive")
        self.sock.settimeout(min(left, self.timeout))
        return self.sock.recv_into(buffer)


class Handler(BaseHTTPRequestHandler):
    """Routes the page and the API to ``App`` (``server.app``); refuses what it cannot serve with a
    4xx JSON error (never a dropped connection or a traceback)."""

    server: Any
    server_version = "kabu-play"
    timeout = SOCKET_TIMEOUT  # (StreamRequestHandler: applied to the socket: a slow client is cut off)

    def setup(self) -> None:
        super().setup()
        self._input = _DeadlineReader(self.connection, self.timeout)
        self.rfile = io.BufferedReader(self._input)

    def handle_one_request(self) -> None:
        """One request, which must arrive whole within ``REQUEST_DEADLINE`` (its reads then time out)."""
        self._input.deadline = time.monotonic() + REQUEST_DEADLINE
        super().handle_one_request()

    def version_string(self) -> str:
        """``kabu-play``: the ``Server`` header names no Python version."""
        return self.server_version

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        if getattr(self.server, "verbose", False):
            super().log_message(format, *args)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The base class's own refusals (a bad request line, an unknown method, ...), as JSON 4xx."""
        status = HTTPStatus.METHOD_NOT_ALLOWED if code == HTTPStatus.NOT_IMPLEMENTED else HTTPStatus(code)
        if status >= 500:
            status = HTTPStatus.BAD_REQUEST
        if status == HTTPStatus.METHOD_NOT_ALLOWED:
            message = f"method {str(self.command)[:20]!r} is not allowed: GET or POST"
        self.close_connection = True
        if getattr(self, "request_version", "HTTP/0.9") == "HTTP/0.9":  # an unreadable request line:
            self.request_version = "HTTP/1.0"  # answer with a status line and headers all the same
        # (called by the base class outside ``_guard``: e.g. > 100 headers, then the client left)
        with contextlib.suppress(OSError):
            said = say("error.http", status=int(status), phrase=message or status.phrase)
            self._json(error_body(said, message or status.phrase), status)

    def _host_ok(self) -> bool:
        """Answer only requests made to a name this server was given: a web site cannot then reach the
        games through DNS rebinding (its own name resolving to this address). On a loopback address: a
        loopback name; on another (``--host``): an IP address, a loopback name or the ``--host`` name."""
        host = _host_name(self.headers.get("Host") or "")
        if host in LOOPBACK_NAMES:
            return True
        if not getattr(self.server, "loopback", False):
            if host == getattr(self.server, "host_name", None) or _is_ip(host):
                return True
            said = say("error.bad_host", allowed="its address or the --host name", host=repr(host[:60]))
            self._json(
                error_body(
                    said, f"this page answers to its address or to the --host name, not {host[:60]!r}"
                ),
                HTTPStatus.FORBIDDEN,
            )
            return False
        said = say("error.bad_host", allowed="127.0.0.1, [::1], localhost", host=repr(host[:60]))
        self._json(
            error_body(said, f"this page answers on 127.0.0.1, [::1] or localhost, not {host[:60]!r}"),
            HTTPStatus.FORBIDDEN,
        )
        return False

    def _same_origin(self) -> bool:
        """The API answers the page itself and tools, not other sites: a browser marks a cross-site
        request (``Sec-Fetch-Site``) and names its page's origin (``Origin``), which must be this
        server's own (``http://`` + the ``Host`` it was asked as)."""
        site = (self.headers.get("Sec-Fetch-Site") or "same-origin").lower()
        origin = self.headers.get("Origin")
        own = "http://" + (self.headers.get("Host") or "").strip().lower()
        if site in ("same-origin", "none") and (origin is None or origin.strip().lower() == own):
            return True
        self._json(
            error_body(say("error.cross_site"), "a request from another site is refused"),
            HTTPStatus.FORBIDDEN,
        )
        return False

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._guard(self._get)

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        self._guard(self._post)

    def _guard(self, serve: Callable[[], None]) -> None:
        """An unexpected error is a bug: one line on stderr and a JSON 500, and the server goes on."""
        try:
            serve()
        except (BrokenPipeError, ConnectionResetError):  # the client left
            self.close_connection = True
        except TimeoutError:
            self.close_connection = True
            self._json(
                error_body(say("error.timeout"), "the request did not arrive in time"),
                HTTPStatus.REQUEST_TIMEOUT,
            )
        except Exception as exc:  # noqa: BLE001 - the last resort of a request
            print(f"kabu-play: internal error on {self.command} {urlparse(self.path).path}: "
                  f"{type(exc).__name__}: {exc}"[:300], file=sys.stderr, flush=True)  # fmt: skip
            self.close_connection = True
            self._json(error_body(say("error.internal"), "internal error"), HTTPStatus.INTERNAL_SERVER_ERROR)

    def _get(self) -> None:
        if not self._host_ok():
            return
        url = urlparse(self.path)
        if url.path in STATIC:
            name, ctype = STATIC[url.path]
            data = resources.files("kabu_envs.play").joinpath("static").joinpath(name).read_bytes()
            self._send(HTTPStatus.OK, data, ctype)
        elif url.path in GET_API:
            if not self._same_origin():
                return
            if url.path == "/api/games":
                self._call(self.server.app.games)
            elif url.path == "/api/messages":
                self._call(messages_table)
            else:
                token = parse_qs(url.query).get("token", [""])[0]
                self._call(lambda: self.server.app.record(token))
        else:
            self._json(
                error_body(say("error.no_page", path=url.path[:80]), f"no page {url.path[:80]}"),
                HTTPStatus.NOT_FOUND,
            )

    def _post(self) -> None:
        if not self._host_ok() or not self._same_origin():
            return
        name = POST_API.get(urlparse(self.path).path)
        if name is None:
            path = urlparse(self.path).path[:80]
            self._json(error_body(say("error.no_page", path=path), f"no API {path}"), HTTPStatus.NOT_FOUND)
            return
        route = getattr(self.server.app, name)
        body = self._body()
        if body is not None:
            self._call(lambda: route(body))

    def _body(self) -> dict[str, Any] | None:
        """The request's JSON object (None once a refusal is sent): ``application/json`` only (a page of
        another site cannot send that without asking first), a byte count, at most ``MAX_BODY``."""
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        refusal: tuple[str, HTTPStatus, Msg] | None = None
        length = self.headers.get("Content-Length")
        if ctype != "application/json":
            refusal = (
                "the body must be JSON (Content-Type: application/json)",
                HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
                say("error.body_type"),
            )
        elif self.headers.get("Transfer-Encoding") is not None or length is None:
            refusal = (
                "a body needs a Content-Length (no chunked encoding)",
                HTTPStatus.LENGTH_REQUIRED,
                say("error.no_length"),
            )
        elif not (length.strip().isascii() and length.strip().isdigit()):
            said = say("error.bad_length", length=repr(length[:20]))
            refusal = (f"Content-Length {length[:20]!r} is not a byte count", HTTPStatus.BAD_REQUEST, said)
        elif int(length) > MAX_BODY:
            refusal = (
                f"request too large: at most {MAX_BODY} bytes",
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                say("error.too_large", max=MAX_BODY),
            )
        if refusal is not None:
            self.close_connection = True  # (the body, if any, is not read)
            self._json(error_body(refusal[2], refusal[0]), refusal[1])
            return None
        assert length is not None
        raw = self.rfile.read(int(length))  # (the socket times out: TimeoutError -> 408)
        if len(raw) < int(length):
            self.close_connection = True
            self._json(
                error_body(say("error.body_short"), "the body ended before its Content-Length"),
                HTTPStatus.BAD_REQUEST,
            )
            return None
        try:
            body = parse_json(raw or b"{}")
        except ValueError as exc:
            said = say("error.bad_json", detail=str(exc)[:200])
            self._json(error_body(said, f"bad JSON: {str(exc)[:200]}"), HTTPStatus.BAD_REQUEST)
            return None
        if not isinstance(body, dict):
            self._json(
                error_body(say("error.not_object"), "bad JSON: the body must be a JSON object"),
                HTTPStatus.BAD_REQUEST,
            )
            return None
        return body

    def _call(self, fn: Callable[[], Any]) -> None:
        try:
            out = fn()
        except ApiError as exc:
            extra = {} if exc.retry_after is None else {"retry_after": math.ceil(exc.retry_after)}
            self._json(error_body(exc.said, str(exc), **extra), exc.status, extra)
            return
        except RecursionError:
            self._json(
                error_body(say("error.too_nested"), "the request is nested too deeply"),
                HTTPStatus.BAD_REQUEST,
            )
            return
        self._json(out)

    def _json(
        self, data: Any, status: HTTPStatus = HTTPStatus.OK, extra: dict[str, Any] | None = None
    ) -> None:
        retry = (extra or {}).get("retry_after")
        headers = {} if retry is None else {"Retry-After": str(retry)}
        self._send(status, json.dumps(data).encode(), "application/json", headers)

    def _send(
        self, status: HTTPStatus, data: bytes, ctype: str, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        # no other site may frame the page (clickjacking): the old header and the CSP one
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Content-Security-Policy", "frame-ancestors 'none'")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    """At most ``MAX_CONNECTIONS`` requests at once (threads), ``MAX_PER_CLIENT`` of them from one
    address: the connections of an address beyond that wait in its own queue (not the accept loop),
    so slow clients of one address cannot hold every slot; a backlog of ``BACKLOG``."""

    daemon_threads = True
    request_queue_size = BACKLOG

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self.per_client: dict[str, int] = {}  # address -> connections being served
        self.waiting: dict[str, deque[tuple[Any, Any]]] = {}  # address -> connections waiting their turn
        self.per_client_lock = threading.Lock()
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        who = str(client_address[0])
        with self.per_client_lock:
            held = self.per_client.get(who, 0)
            if held >= MAX_PER_CLIENT:
                queue = self.waiting.setdefault(who, deque())
                if len(queue) < BACKLOG:
                    queue.append((request, client_address))
                    return
            else:
                self.per_client[who] = held + 1
        if held >= MAX_PER_CLIENT:  # and its queue is full
            self.shutdown_request(request)
            return
        self._serve(request, client_address)

    def _serve(self, request: Any, client_address: Any) -> None:
        """A thread for the connection once a slot is free (at most ``SOCKET_TIMEOUT`` s of waiting)."""
        if not self.slots.acquire(timeout=SOCKET_TIMEOUT):
            self.shutdown_request(request)  # every slot held by slow clients for this long
            self._done(str(client_address[0]))
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            self._done(str(client_address[0]))
            raise

    def _done(self, who: str) -> None:
        """One connection of ``who`` is over: its next waiting one (if any) is served in its place."""
        with self.per_client_lock:
            queue = self.waiting.get(who)
            following = queue.popleft() if queue else None
            if queue is not None and not queue:
                del self.waiting[who]
            if following is None:
                left = self.per_client.get(who, 1) - 1
                if left > 0:
                    self.per_client[who] = left
                else:
                    self.per_client.pop(who, None)
        if following is not None:
            self._serve(*following)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()
            self._done(str(client_address[0]))

    def server_close(self) -> None:
        super().server_close()
        with self.per_client_lock:
            waiting = [r for queue in self.waiting.values() for r, _ in queue]
            self.waiting.clear()
        for request in waiting:
            self.shutdown_request(request)


class _Server6(_Server):
    address_family = socket.AF_INET6


def make_server(
    host: str = "127.0.0.1",
    port: int = 8000,
    record_dir: str | Path | None = None,
    **app_options: Any,
) -> ThreadingHTTPServer:
    """The server (not started): ``server.app`` holds the games; port 0 picks a free port. ``host`` may
    be a name, an IPv4 or an IPv6 address (``::1``). ``ServeError`` in one line when it cannot listen."""
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ServeError(f"port {port!r}: a port is 0..65535 (0 = any free one)")
    try:
        family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError):
        raise ServeError(f"cannot serve on {host!r}: no such address on this machine") from None
    cls = _Server6 if family == socket.AF_INET6 else _Server
    if record_dir is not None:
        try:
            Path(record_dir).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ServeError(f"cannot write records to {record_dir}: {exc.strerror or exc}") from None
    try:
        server = cls((str(address[0]), int(address[1])), Handler)
    except OSError as exc:
        raise ServeError(f"cannot serve on {host} port {port}: {exc.strerror or exc}") from None
    bound = ipaddress.ip_address(str(server.server_address[0]))
    server.loopback = bound.is_loopback  # type: ignore[attr-defined]
    server.host_name = _host_name(host)  # type: ignore[attr-defined]
    server.app = App(record_dir, **app_options)  # type: ignore[attr-defined]
    return server


def server_url(server: ThreadingHTTPServer) -> str:
    """``http://127.0.0.1:8000`` or ``http://[::1]:8000``: where the page is."""
    host, port = str(server.server_address[0]), int(server.server_address[1])
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    record_dir: str | Path | None = None,
    policies: tuple[str, ...] = (),
) -> int:
    """Serve until Ctrl-C; 0, or 2 (one line on stderr) when the server cannot start."""
    for path in policies:
        if _model_game(path) is None:
            print(f"kabu-play: --policy {path}: not a policy file or model directory", file=sys.stderr)
            return 2
    try:
        server = make_server(host, port, record_dir, policies=tuple(policies))
    except ServeError as exc:
        print(f"kabu-play: {exc}", file=sys.stderr)
        return 2
    print(
        f"kabu-play: open {server_url(server)}/ (Ctrl-C stops)"
        + (f"; records go to {record_dir}" if record_dir else ""),
        flush=True,
    )
    if server.app.key_note:  # type: ignore[attr-defined]
        print(f"warning: {server.app.key_note}", flush=True)  # type: ignore[attr-defined]
    if not server.loopback:  # type: ignore[attr-defined]
        print(
            f"warning: bound to {host}: other machines can reach this page (it answers to IP addresses,"
            f" loopback names and {host!r} only)",
            flush=True,
        )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
