"""``kabu-play --web``: a local web page to play any registered game and to replay game records.

Standard library only (``http.server``): a ``ThreadingHTTPServer`` bound to 127.0.0.1 by default, the
page (``static/``: plain HTML, CSS and JavaScript, no build step, no downloaded assets) and a small
JSON API. Each game is a ``Match`` (``kabu_envs.play.session``) kept under a random token.

What the browser receives is built from frames and legal moves only, i.e. from the person's seat view
(``kabu_envs.core.views``): **the server never sends a card that seat may not see** (tested by
changing the unseen cards of a stacked deck and comparing the JSON).

API (JSON bodies):

* ``GET /api/games``: the games, their agents and default opponent.
* ``POST /api/new`` ``{game, seat, opponents, options, seed}`` -> ``{token, frames, state}``: the
  agents' moves up to the person's first decision, then the state.
* ``POST /api/move`` ``{token, action}`` -> ``{frames, state}``: the person's move and the agents'
  moves after it, one frame each (the page animates them one by one).
* ``GET /api/record?token=...``: the game record so far.
* ``POST /api/replay`` ``{record, seat}`` -> ``{frames, seats, seat}``: a record replayed (checked)
  as that seat saw it.
* ``POST /api/resume`` ``{record}`` -> ``{token, frames, state}``: continue a saved (incomplete) game.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from kabu_envs import registry
from kabu_envs.play.records import GameRecord, RecordError, write_record
from kabu_envs.play.session import IllegalMove, Match, seat_list

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
MAX_SESSIONS = 64  # the oldest game is dropped beyond this
MAX_BODY = 4 << 20  # bytes: a record of a long match fits
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/static/style.css": ("style.css", "text/css; charset=utf-8"),
}


# the JSON API (docs/play.md's table is checked against these): path -> App method
GET_API = {"/api/games": "games", "/api/record": "record"}
POST_API = {"/api/new": "new", "/api/move": "move", "/api/replay": "replay", "/api/resume": "resume"}


class ApiError(Exception):
    """A request the API refuses, with the HTTP status and a message for the page."""

    def __init__(self, message: str, status: HTTPStatus = HTTPStatus.BAD_REQUEST) -> None:
        super().__init__(message)
        self.status = status


def games_info() -> list[dict[str, Any]]:
    """What the page's game menu needs."""
    from kabu_envs.agents.registry import shipped_models

    out = []
    for spec in registry.games():
        models = [m for m in shipped_models() if _model_game(m) == spec.id]
        out.append(
            {
                "id": spec.id,
                "title": spec.title,
                "agents": [*spec.agent_names, *models],
                "opponent": spec.reference if spec.reference in spec.agent_names else "random",
                "seats": len(spec.make_raw_env().possible_agents),
            }
        )
    return out


def _model_game(name: str) -> str | None:
    """The game a shipped model was trained for (its policy.json), None if unreadable."""
    from kabu_envs.agents.registry import model_path

    try:
        return json.loads(model_path(name).read_text()).get("trained_for", {}).get("game")
    except (OSError, ValueError):
        return None


class App:
    """The games in progress (by token) and where finished games' records go."""

    def __init__(self, record_dir: str | Path | None = None) -> None:
        self.record_dir = Path(record_dir) if record_dir else None
        self.matches: OrderedDict[str, tuple[Match, threading.Lock]] = OrderedDict()
        self.lock = threading.Lock()
        self.written: dict[str, Path] = {}

    # --- requests ---------------------------------------------------------------------------------
    def games(self) -> list[dict[str, Any]]:
        return games_info()

    def new(self, body: dict[str, Any]) -> dict[str, Any]:
        game = body.get("game")
        try:
            spec = registry.get(game)  # type: ignore[arg-type]
            options = body.get("options") or {}
            if not isinstance(options, dict):
                raise ValueError(f"options must be an object of rule options, got {options!r}")
            n = len(spec.make_raw_env(**options).possible_agents)
            opponents = body.get("opponents") or [
                spec.reference if spec.reference in spec.agent_names else "random"
            ]
            if isinstance(opponents, str):
                opponents = [o.strip() for o in opponents.split(",") if o.strip()]
            seats = seat_list(int(body.get("seat", 0)), opponents, n)
            seed = body.get("seed")
            seed = None if seed in (None, "") else int(seed)
            deck = body.get("deck")
            match = Match(spec.id, seats, options, seed, deck, created_by="kabu-play --web")
        except (ValueError, TypeError) as exc:
            raise ApiError(str(exc)) from None
        return self._start(match)

    def resume(self, body: dict[str, Any]) -> dict[str, Any]:
        """Continue a game saved as an incomplete record (``Match.from_json``)."""
        try:
            match = Match.from_json(body.get("record"))  # type: ignore[arg-type]
        except (RecordError, ValueError, TypeError) as exc:
            raise ApiError(f"cannot continue this record: {exc}") from None
        if match.seat is None or match.over:
            raise ApiError("this record is not a game in progress with a person's seat")
        return self._start(match)

    def _start(self, match: Match) -> dict[str, Any]:
        token = secrets.token_urlsafe(16)
        lock = threading.Lock()
        with self.lock:
            self.matches[token] = (match, lock)
            while len(self.matches) > MAX_SESSIONS:
                self.matches.popitem(last=False)
        with lock:
            frames = match.advance()
            return {"token": token, "frames": frames, "state": self._state(token, match)}

    def move(self, body: dict[str, Any]) -> dict[str, Any]:
        token = str(body.get("token", ""))
        match, lock = self._get(token)
        with lock:
            try:
                action = int(body["action"])
                frames = [match.play(action)]
            except IllegalMove as exc:
                raise ApiError(str(exc), HTTPStatus.CONFLICT) from None
            except (KeyError, ValueError, TypeError) as exc:
                raise ApiError(f"bad move: {exc}") from None
            frames += match.advance()
            return {"frames": frames, "state": self._state(token, match)}

    def record(self, token: str) -> dict[str, Any]:
        match, lock = self._get(token)
        with lock:
            return match.to_json()

    def replay(self, body: dict[str, Any]) -> dict[str, Any]:
        from kabu_envs.play.replay import replay_frames

        try:
            record = GameRecord.from_json(body.get("record"))
            seat = body.get("seat")
            seat = record.viewer if seat in (None, "") and record.viewer is not None else int(seat or 0)
            frames = replay_frames(record, seat)
        except (RecordError, ValueError, TypeError) as exc:
            raise ApiError(f"cannot replay this record: {exc}") from None
        seats = [s.get("agent", "?") for s in record.seats]
        return {
            "frames": frames,
            "seats": seats,
            "seat": seat,
            "game": record.game,
            "rewards": record.rewards,
        }

    # --- helpers ----------------------------------------------------------------------------------
    def _get(self, token: str) -> tuple[Match, threading.Lock]:
        with self.lock:
            found = self.matches.get(token)
        if found is None:
            raise ApiError("unknown or expired game; start a new one", HTTPStatus.NOT_FOUND)
        return found

    def _state(self, token: str, match: Match) -> dict[str, Any]:
        """What the page shows between moves: the seat's view, its legal moves, the totals at the end."""
        over = match.over
        path = None
        if over and self.record_dir is not None:
            if token not in self.written:
                self.written[token] = write_record(match.record(), self.record_dir / f"game-{token}.json")
            path = str(self.written[token])
        names = [
            f"player_{i} (you)" if i == match.seat else f"player_{i} ({s['agent']})"
            for i, s in enumerate(match.record().seats)
        ]
        return {
            "view": match.view(),
            "moves": match.legal_moves(),
            "over": over,
            "seat": match.seat,
            "names": names,
            "totals": match.totals.tolist() if over else None,
            "record_file": path,
        }


class Handler(BaseHTTPRequestHandler):
    """Routes the page and the API to ``App`` (``server.app``)."""

    server: Any
    server_version = "kabu-play"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        if getattr(self.server, "verbose", False):
            super().log_message(format, *args)

    def _host_ok(self) -> bool:
        """On a loopback address, answer only requests made to a loopback name: a web site cannot then
        reach the games through DNS rebinding (its own name resolving to 127.0.0.1)."""
        if not getattr(self.server, "loopback", False):
            return True
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0].strip("[]")
        if host in LOOPBACK_NAMES:
            return True
        self._json(
            {"error": f"this page answers on 127.0.0.1 or localhost, not {host!r}"}, HTTPStatus.FORBIDDEN
        )
        return False

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if not self._host_ok():
            return
        url = urlparse(self.path)
        if url.path in STATIC:
            name, ctype = STATIC[url.path]
            data = resources.files("kabu_envs.play").joinpath("static").joinpath(name).read_bytes()
            self._send(HTTPStatus.OK, data, ctype)
        elif url.path == "/api/games":
            self._call(self.server.app.games)
        elif url.path == "/api/record":
            token = parse_qs(url.query).get("token", [""])[0]
            self._call(lambda: self.server.app.record(token))
        else:
            self._json({"error": f"no page {url.path}"}, HTTPStatus.NOT_FOUND)

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        if not self._host_ok():
            return
        name = POST_API.get(urlparse(self.path).path)
        route = getattr(self.server.app, name) if name else None
        if route is None:
            self._json({"error": f"no API {self.path}"}, HTTPStatus.NOT_FOUND)
            return
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self._json({"error": "request too large"}, HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
            return
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
            if not isinstance(body, dict):
                raise ValueError("the body must be a JSON object")
        except ValueError as exc:
            self._json({"error": f"bad JSON: {exc}"}, HTTPStatus.BAD_REQUEST)
            return
        self._call(lambda: route(body))

    def _call(self, fn: Any) -> None:
        try:
            self._json(fn())
        except ApiError as exc:
            self._json({"error": str(exc)}, exc.status)

    def _json(self, data: Any, status: HTTPStatus = HTTPStatus.OK) -> None:
        self._send(status, json.dumps(data).encode(), "application/json")

    def _send(self, status: HTTPStatus, data: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)


def make_server(
    host: str = "127.0.0.1", port: int = 8000, record_dir: str | Path | None = None
) -> ThreadingHTTPServer:
    """The server (not started): ``server.app`` holds the games; port 0 picks a free port."""
    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    server.loopback = host in LOOPBACK_NAMES  # type: ignore[attr-defined]
    server.app = App(record_dir)  # type: ignore[attr-defined]
    return server


def serve(host: str = "127.0.0.1", port: int = 8000, record_dir: str | Path | None = None) -> int:
    server = make_server(host, port, record_dir)
    h, p = str(server.server_address[0]), int(server.server_address[1])
    print(
        f"kabu-play: open http://{h}:{p}/ (Ctrl-C stops)"
        + (f"; records go to {record_dir}" if record_dir else ""),
        flush=True,
    )
    if host not in LOOPBACK_NAMES:
        print(f"warning: bound to {host}: other machines can reach this page", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
