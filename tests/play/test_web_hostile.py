"""kabu-play --web under hostile and careless requests (issue #25), over real sockets.

Hidden cards through a saved record; the cost of one replay; requests from other sites; games in use
evicted; bad bodies, headers and methods; loose types; start-up errors; the cosmetics of the page.
Every refusal is a 4xx with a JSON error, and the server keeps serving.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request

import pytest

from kabu_envs.play import web
from kabu_envs.play.records import GameRecord
from kabu_envs.play.replay import replay_frames
from kabu_envs.play.session import HUMAN, Match, viewer_for
from kabu_envs.play.store import GameStore, StoreFull
from kabu_envs.play.web import ApiError, App, ServeError, make_server, server_url

JSON = {"Content-Type": "application/json"}


@pytest.fixture()
def server(tmp_path):
    srv = make_server(port=0, record_dir=tmp_path)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield server_url(srv), srv
    srv.shutdown()
    srv.server_close()


def _call(url: str, body: object | None = None, headers: dict | None = None) -> tuple[int, object]:
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    req = urllib.request.Request(url, data, {**JSON, **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            raw = r.read()
            return r.status, json.loads(raw) if r.headers["Content-Type"] == "application/json" else raw
    except urllib.error.HTTPError as e:
        assert e.headers["Content-Type"] == "application/json"
        return e.code, json.loads(e.read())


def _raw(url: str, request: bytes, timeout: float = 30) -> tuple[int, dict]:
    """Send ``request`` as is on a new connection; the status and the JSON answer."""
    host, port = url.rsplit("/", 1)[-1].rsplit(":", 1)
    with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout) as s:
        s.sendall(request)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    assert b"application/json" in head, head
    return status, json.loads(body)


def _post(path: str, body: bytes, extra: str = "", length: str | None = None) -> bytes:
    n = str(len(body)) if length is None else length
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {n}\r\n{extra}\r\n"
    ).encode() + body


def _move(url: str, out: dict) -> dict:
    token = out["token"]
    status, nxt = _call(url + "/api/move", {"token": token, "action": out["state"]["moves"][0]["action"]})
    assert status == 200, nxt
    return {**nxt, "token": token}


# --- item 1 ---------------------------------------------------------------------------------------------
def test_a_saved_game_never_shows_another_seat_until_it_is_over(server):
    url, srv = server
    _, out = _call(url + "/api/new", {"game": "kakeya", "seat": 0, "seed": 12345, "opponents": "scripted"})
    token = out["token"]
    for _ in range(3):
        out = _move(url, {**out, "token": token})
    _, saved = _call(url + f"/api/record?token={token}")
    assert saved["seed"] is None and saved["deck"] is None and saved["sealed"]
    status, err = _call(url + "/api/replay", {"record": saved, "seat": 1})
    assert status == 403 and "player_0's game in progress" in err["error"]
    match = srv.app.store.get(token).match
    theirs = {c["name"] for c in match.view(1)["hand"]["cards"]}
    status, mine = _call(url + "/api/replay", {"record": saved})
    assert status == 200 and mine["seat"] == 0 and mine["frames"][-1]["view"] == out["state"]["view"]
    assert not any(f'"name": "{c}"' in json.dumps(mine["frames"][-1]["view"]["hand"]) for c in theirs)
    saved["seed"] = 12345  # the seed in the clear is refused, not used
    assert _call(url + "/api/replay", {"record": saved})[0] == 400
    saved["seed"] = None
    status, resumed = _call(url + "/api/resume", {"record": saved})
    assert status == 200 and resumed["state"]["view"] == out["state"]["view"]
    out = {**resumed, "token": resumed["token"]}
    while not out["state"]["over"]:
        out = _move(url, out)
    _, done = _call(url + f"/api/record?token={out['token']}")
    assert done["complete"] and done["seed"] == 12345 and "sealed" not in done
    status, theirs_now = _call(url + "/api/replay", {"record": done, "seat": 1})
    assert status == 200 and theirs_now["seat"] == 1  # a finished game may be seen from any seat


# --- item 2 ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def long_record() -> dict:
    match = Match("kakeya", ["random"] * 4, {"max_deals": 100, "stones_per_player": 1000}, seed=1)
    match.advance()
    assert len(match.record().actions) > 5000
    return match.to_json()


def test_a_long_replay_comes_in_pages_of_bounded_size_and_cost(server, long_record, monkeypatch):
    import tracemalloc

    url, srv = server
    n = len(long_record["actions"])
    # the cost is counted, not timed (a wall-clock bound fails on a loaded machine): the views drawn,
    # most of a frame's cost, are the page's, not the record's
    viewer, drawn = viewer_for("kakeya"), []
    seat_view = viewer.seat_view
    monkeypatch.setattr(viewer, "seat_view", lambda env, seat: drawn.append(seat) or seat_view(env, seat))
    raw = urllib.request.urlopen(
        urllib.request.Request(url + "/api/replay", json.dumps({"record": long_record}).encode(), JSON),
        timeout=120,
    ).read()
    monkeypatch.undo()
    first = json.loads(raw)
    assert first["total"] == n + 1 and len(first["frames"]) == web.PAGE and first["first"] == 0
    assert len(raw) < 1 << 20  # (all of it: ~18 MB)
    assert web.PAGE <= len(drawn) <= 2 * web.PAGE < n  # (a deal's end in the page draws its showdown too)
    # the page at the end equals the full replay's last frames
    status, last = _call(url + "/api/replay", {"record": long_record, "first": n + 1 - 50, "count": 50})
    assert status == 200 and len(last["frames"]) == 50
    full = replay_frames(GameRecord.from_json(long_record), 0)
    assert last["frames"] == json.loads(json.dumps(full[-50:]))
    tracemalloc.start()
    srv.app.replay({"record": long_record, "first": 3000, "count": web.MAX_PAGE})
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 16 << 20, peak
    for bad in ({"count": web.MAX_PAGE + 1}, {"count": 0}, {"first": n + 1}, {"first": -1}):
        status, err = _call(url + "/api/replay", {"record": long_record, **bad})
        assert status == 400, (bad, err)


def test_a_record_longer_than_the_page_replays_is_refused_before_any_work(server, monkeypatch):
    url, _ = server
    huge = {"format": "kabu-envs game record", "version": 1, "game": "kakeya", "options": {}, "seed": 1}
    huge |= {"seats": [{"agent": "random", "seed": 1}] * 4, "actions": [0] * (web.MAX_REPLAY_ACTIONS + 1)}
    read = []  # counted, not timed: no record is even read

    class Counted(GameRecord):
        @classmethod
        def from_json(cls, *args, **kwargs):
            read.append(args)
            return GameRecord.from_json(*args, **kwargs)

    monkeypatch.setattr(web, "GameRecord", Counted)
    for route in ("/api/replay", "/api/resume"):
        status, err = _call(url + route, {"record": huge})
        assert status == 413 and f"at most {web.MAX_REPLAY_ACTIONS}" in err["error"]
    assert not read
    ok = {**huge, "actions": []}  # (the counter counts: a record that is read)
    _call(url + "/api/replay", {"record": ok})
    assert len(read) == 1
    status, err = _raw(url, _post("/api/new", b"", length=str(web.MAX_BODY + 1)))  # (not read at all)
    assert status == 413 and f"at most {web.MAX_BODY} bytes" in err["error"]


# --- item 3 ---------------------------------------------------------------------------------------------
def test_requests_from_other_sites_are_refused_and_the_page_s_own_pass(server):
    url, _ = server
    host = url.split("//", 1)[1]
    body = {"game": "toy_card"}
    cases = [
        ({"Content-Type": "text/plain", "Origin": "http://evil.example"}, 403),
        ({"Content-Type": "text/plain"}, 415),
        ({"Origin": "http://evil.example"}, 403),
        ({"Origin": "null"}, 403),
        ({"Sec-Fetch-Site": "cross-site"}, 403),
        ({"Sec-Fetch-Site": "same-site"}, 403),
        ({"Origin": f"http://{host}", "Sec-Fetch-Site": "same-origin"}, 200),  # what the page's fetch sends
        ({}, 200),  # a tool (no browser headers)
    ]
    for headers, code in cases:
        status, out = _call(url + "/api/new", body, headers)
        assert status == code, (headers, out)
    assert _call(url + "/api/games", headers={"Sec-Fetch-Site": "cross-site"})[0] == 403
    req = urllib.request.Request(url + "/", headers={"Sec-Fetch-Site": "cross-site"})  # a link to the page
    with urllib.request.urlopen(req, timeout=30) as r:
        assert r.status == 200


# --- item 4 ---------------------------------------------------------------------------------------------
def test_a_game_in_use_survives_new_games_elsewhere():
    app = App(max_games=8)
    mine = app.new({"game": "kakeya", "seat": 0, "seed": 1, "opponents": "random"})
    played = 0
    for i in range(70):
        try:
            other = app.new({"game": "toy_card", "seat": 0, "seed": i, "opponents": "random"})
            app.move({"token": other["token"], "action": 0})  # finished: may go first
        except ApiError as exc:
            assert exc.status == 429
        state = app.move({"token": mine["token"], "action": mine["state"]["moves"][0]["action"]})
        mine = {**mine, **state}
        played += 1
        if mine["state"]["over"]:
            break
    assert played >= 10 and app.store.dropped > 0
    # eight games in use and none finished or idle: a ninth is refused, none in use dropped
    full = App(max_games=3)
    tokens = [full.new({"game": "kakeya", "seed": i, "opponents": "random"})["token"] for i in range(3)]
    with pytest.raises(ApiError, match="holds 3 games in progress") as err:
        full.new({"game": "kakeya", "opponents": "random"})
    assert err.value.status == 429
    assert all(full.record(t)["game"] == "kakeya" for t in tokens)


def test_idle_games_expire_and_the_page_is_told():
    now = [0.0]
    store = GameStore(capacity=2, idle_seconds=100, protect_seconds=50, clock=lambda: now[0])

    class M:
        over = False

    store.add("a", M())
    store.add("b", M())
    now[0] = 30
    assert store.get("a") is not None  # a is now the most recently used
    with pytest.raises(StoreFull):
        store.add("c", M())  # b was used 30 s ago: in use
    now[0] = 90
    store.add("c", M())  # b (idle 90 s > 50) goes, not a
    assert store.get("b") is None and store.get("a") is not None
    now[0] = 500
    assert store.get("a") is None and len(store) == 0  # idle past 100 s: expired
    app = App()
    with pytest.raises(ApiError, match="no longer on the server") as err:
        app.move({"token": "gone", "action": 0})
    assert err.value.status == 404


# --- item 5 ---------------------------------------------------------------------------------------------
def test_bad_bodies_and_headers_get_a_4xx_json_error_and_the_server_goes_on(server, capfd, monkeypatch):
    url, _ = server
    monkeypatch.setattr(web.Handler, "timeout", 1.0)
    deep = b"[" * 100_000 + b"]" * 100_000
    cases = [
        (_post("/api/new", deep), 400, "nested too deeply"),
        (_post("/api/new", b'{"game": "kakeya", "seed": Infinity}'), 400, "Infinity is not a JSON number"),
        (_post("/api/new", b'{"game": "kakeya", "seed": NaN}'), 400, "NaN"),
        (_post("/api/new", b"{}", length="abc"), 400, "not a byte count"),
        (_post("/api/new", b"{}", length="-1"), 400, "not a byte count"),
        (_post("/api/new", b"{}", length="100"), 408, "did not arrive in time"),
        (_post("/api/new", b'{"game": "\xff"}'), 400, "not UTF-8"),
        (_post("/api/new", b"[1, 2]"), 400, "must be a JSON object"),
        (_post("/api/new", b'{"game": "kakeya", "seed": ' + b"9" * 5000 + b"}"), 400, "bad JSON"),
        (b"POST /api/new HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\r\n", 411, ""),
        (_post("/api/new", b"{}", extra="Transfer-Encoding: chunked\r\n"), 411, "no chunked"),
        (b"DELETE /api/new HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 405, "GET or POST"),
        (b"BREW /api/new HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 405, "GET or POST"),
        (b"GET /\x01 HTTP/1.1 extra\r\n\r\n", 400, ""),
        (b"GET / HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n", 400, ""),
        (b"GET /api/games HTTP/1.1\r\nHost: [::1]\r\n\r\n", 200, ""),
        (b"GET /api/games HTTP/1.1\r\nHost: LOCALHOST:1\r\n\r\n", 200, ""),
        (b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1.evil.example\r\n\r\n", 403, "not"),
    ]
    for request, code, message in cases:
        status, out = _raw(url, request)
        assert status == code and (code == 200 or message in out["error"]), (request[:60], out)
    assert _call(url + "/api/games")[0] == 200  # still serving
    err = capfd.readouterr().err
    assert "Traceback" not in err and "internal error" not in err, err


def test_many_connections_at_once_are_all_served(server):
    url, _ = server
    results: list[int] = []

    def one() -> None:
        results.append(_call(url + "/api/games")[0])

    threads = [threading.Thread(target=one) for _ in range(100)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == [200] * 100


# --- item 6 ---------------------------------------------------------------------------------------------
def test_loose_types_are_refused_with_a_message(server):
    url, _ = server
    _, out = _call(url + "/api/new", {"game": "toy_card", "seat": 0, "seed": 2, "opponents": "random"})
    token = out["token"]
    for action, message in (
        (8.9, "must be an integer"),
        (True, "must be an integer"),
        ("1", "must be an integer"),
    ):
        status, err = _call(url + "/api/move", {"token": token, "action": action})
        assert status == 400 and message in err["error"], err
    status, err = _call(url + "/api/move", {"token": token})
    assert status == 400 and "'action' is required" in err["error"]
    for field, value in (
        ("seat", 1.7),
        ("seat", True),
        ("seed", 1.5),
        ("seed", True),
        ("seed", "7"),
        ("seed", -1),
    ):
        status, err = _call(url + "/api/new", {"game": "toy_card", field: value})
        assert status == 400 and repr(field) in err["error"], (field, value, err)
    for field, value in (("options", [1]), ("opponents", 3), ("game", 1), ("deck", [1.5])):
        status, err = _call(
            url + "/api/new", {"game": "toy_card", field: value} if field != "game" else {field: value}
        )
        assert status == 400, (field, value, err)
    _, rec = _call(url + f"/api/record?token={token}")
    status, err = _call(url + "/api/replay", {"record": {**rec, "complete": "false"}})
    assert status == 400 and "'complete' must be true or false" in err["error"]
    status, err = _call(url + "/api/replay", {"record": rec, "seat": 0.5})
    assert status == 400 and "'seat' must be an integer" in err["error"]


# --- item 7 ---------------------------------------------------------------------------------------------
def test_start_up_errors_are_one_line_and_ipv6_loopback_is_served(tmp_path):
    busy = make_server(port=0)
    port = busy.server_address[1]
    try:
        with pytest.raises(
            ServeError, match=f"cannot serve on 127.0.0.1 port {port}: Address already in use"
        ):
            make_server(port=port)
    finally:
        busy.server_close()
    with pytest.raises(ServeError, match="a port is 0..65535"):
        make_server(port=99999)
    with pytest.raises(ServeError, match="no such address"):
        make_server("no-such-host.invalid", 0)
    six = make_server("::1", 0)
    threading.Thread(target=six.serve_forever, daemon=True).start()
    try:
        assert server_url(six).startswith("http://[::1]:")
        assert _call(server_url(six) + "/api/games")[0] == 200
    finally:
        six.shutdown()
        six.server_close()
    for argv, message in (
        (["--port", "99999"], "is not a port: 0..65535"),
        (["--host", "no-such-host.invalid", "--port", "0"], "no such address on this machine"),
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "kabu_envs.play", "--web", *argv],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_errors_reveal_no_server_path_nor_whether_a_file_exists(server, tmp_path):
    url, _ = server
    (tmp_path / "exists").mkdir()
    answers = []
    for path in (str(tmp_path / "exists"), str(tmp_path / "missing"), "/etc/passwd", "ppo_nothing"):
        status, err = _call(url + "/api/new", {"game": "kakeya", "opponents": path})
        assert status == 400
        answers.append(err["error"].replace(repr(path[:40]), "NAME"))
    assert len(set(answers)) == 1 and "unknown agent NAME for Kakeya" in answers[0]
    saved = Match("kakeya", [HUMAN, "random", "random", "random"], seed=1).to_json()
    del saved["sealed"]  # a game saved in the clear (before records were sealed): its seats are read
    saved["seed"] = 1
    saved["seats"][1]["agent"] = str(tmp_path / "exists")
    status, err = _call(url + "/api/resume", {"record": saved})
    assert status == 400 and "unknown agent" in err["error"] and str(tmp_path) not in err["error"][:30]


def test_an_unwritable_record_folder_is_reported_without_its_path(tmp_path):
    folder = tmp_path / "records"
    app = App(record_dir=folder)
    folder.write_text("not a folder")  # the folder went away and a file took its place
    out = app.new({"game": "toy_card", "seat": 0, "seed": 1, "opponents": "random"})
    state = app.move({"token": out["token"], "action": 0})["state"]
    assert state["over"] and state["record_file"] is None
    assert "could not be written" in state["record_error"] and str(tmp_path) not in state["record_error"]


# --- agents with many moves; cosmetics ---------------------------------------------------------------
def test_a_long_run_of_agent_moves_comes_in_bounded_answers(monkeypatch):
    monkeypatch.setattr(web, "MAX_ADVANCE", 2)
    app = App()
    out = app.new({"game": "kakeya", "seat": 3, "seed": 4, "opponents": "random"})
    assert len(out["frames"]) <= 2
    state, frames = out["state"], list(out["frames"])
    while state["pending"]:
        nxt = app.move({"token": out["token"], "action": None})
        assert len(nxt["frames"]) <= 2
        state, frames = nxt["state"], frames + nxt["frames"]
    whole = Match("kakeya", ["random", "random", "random", HUMAN], seed=4).advance()
    assert state["moves"] and len(frames) == len(whole) > 2  # the same moves, in answers of two


def test_the_page_s_cosmetics(server):
    url, _ = server
    status, icon = _call(url + "/favicon.ico")
    assert status == 200 and icon.startswith(b"<svg")
    _, page = _call(url + "/")
    assert b"\xe2\x8f\xae" not in page and b"\xe2\x8f\xad" not in page  # no U+23EE / U+23ED (no glyph)
    assert b'rel="icon"' in page and b">Last</button>" in page  # words, not glyphs (issue #29)
    match = Match("kakeya", [HUMAN, "random", "random", "random"], seed=3)
    while not match.over:
        frames = match.advance()
        if match.over:
            break
        frame = match.play(match.legal_moves()[0]["action"])
        if frame["move"].startswith("you "):
            assert frame["move"].startswith("you play "), frame["move"]
        text = json.dumps(match.view())
        assert not re.search(r"\b1 (cards|deals|stones)\b", text), text
    notes = [z["note"] for z in match.view()["zones"]]
    assert any("0 cards in hand" in n for n in notes) and frames is not None
