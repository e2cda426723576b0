"""kabu-play --web's HTTP API, over a real socket: pages, games, moves, errors, records, replays."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from kabu_envs.play.records import read_record, replay
from kabu_envs.play.web import make_server


@pytest.fixture()
def server(tmp_path):
    srv = make_server(port=0, record_dir=tmp_path)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}", srv, tmp_path
    srv.shutdown()
    srv.server_close()


def _call(url: str, body: object | None = None) -> tuple[int, object]:
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    req = urllib.request.Request(url, data, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            raw = r.read()
            return r.status, json.loads(raw) if r.headers["Content-Type"] == "application/json" else raw
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_pages_and_games(server):
    url, srv, _ = server
    assert srv.server_address[0] == "127.0.0.1"  # local only by default
    status, page = _call(url + "/")
    assert status == 200 and b"/static/app.js" in page
    for asset in ("/static/app.js", "/static/style.css"):
        assert _call(url + asset)[0] == 200
    status, games = _call(url + "/api/games")
    ids = {g["id"]: g for g in games}
    assert {"oicho_kabu", "kakeya", "toy_card"} <= set(ids)
    assert "expert" in ids["oicho_kabu"]["agents"] and "ppo_kakeya" in ids["kakeya"]["agents"]
    assert "ppo_kakeya" not in ids["oicho_kabu"]["agents"]
    assert _call(url + "/nope")[0] == 404


def test_a_game_over_http_writes_a_record_that_replays(server):
    url, _, records = server
    status, out = _call(url + "/api/new", {"game": "toy_card", "seat": 1, "seed": 2, "opponents": "random"})
    assert status == 200 and out["state"]["seat"] == 1
    assert len(out["frames"]) == 1 and out["frames"][0]["move"] == "player_0 acts"  # not what it did
    token = out["token"]
    status, err = _call(url + "/api/move", {"token": token, "action": 9})
    assert status == 409 and "9 is not a legal move now; legal: 0 (Pass), 1 (Play)" in err["error"]
    status, out = _call(url + "/api/move", {"token": token, "action": 1})
    assert status == 200 and out["state"]["over"] and out["state"]["moves"] == []
    record = read_record(out["state"]["record_file"])
    assert record.actions[1] == 1 and record.created_by == "kabu-play --web"
    _, totals = replay(record)
    assert totals == out["state"]["totals"]
    status, rec = _call(url + f"/api/record?token={token}")
    assert rec == json.loads(Path(out["state"]["record_file"]).read_text())
    status, rep = _call(url + "/api/replay", {"record": rec})
    assert status == 200 and len(rep["frames"]) == 3 and rep["seat"] == 1
    assert rep["frames"][-1]["view"] == out["state"]["view"]
    rec["version"] = 9
    status, err = _call(url + "/api/replay", {"record": rec})
    assert status == 400 and "record version 9 is not supported" in err["error"]


def test_bad_requests_are_refused_with_a_message(server):
    url, _, _ = server
    cases = [
        ({"game": "go"}, 400, "unknown game 'go'"),
        ({"game": "kakeya", "seat": 4}, 400, "seat 4: this table has seats 0..3"),
        ({"game": "kakeya", "opponents": "nobody"}, 400, "unknown agent 'nobody'"),
        ({"game": "kakeya", "options": {"num_players": 5}}, 400, "num_players"),
    ]
    for body, code, message in cases:
        status, err = _call(url + "/api/new", body)
        assert status == code and message in err["error"], err
    assert _call(url + "/api/move", {"token": "x", "action": 0})[0] == 404
    status, err = _call(url + "/api/new", b"[1")
    assert status == 400 and "bad JSON" in err["error"]


def test_a_saved_game_continues_where_it_stopped(server):
    url, _, _ = server
    _, out = _call(url + "/api/new", {"game": "kakeya", "seat": 2, "seed": 6, "opponents": "scripted"})
    token = out["token"]
    for _ in range(3):
        _, out = _call(url + "/api/move", {"token": token, "action": out["state"]["moves"][0]["action"]})
    _, saved = _call(url + f"/api/record?token={token}")
    assert saved["complete"] is False and saved["viewer"] == 2
    status, resumed = _call(url + "/api/resume", {"record": saved})
    assert status == 200 and resumed["token"] != token
    assert resumed["frames"] == [] and resumed["state"]["view"] == out["state"]["view"]
    assert resumed["state"]["moves"] == out["state"]["moves"]
    saved["viewer"], saved["seats"][2] = None, {"agent": "random", "seed": 1}
    status, err = _call(url + "/api/resume", {"record": saved})
    assert status == 400 and "not a game in progress" in err["error"]


def test_the_docs_list_every_api_route():
    import re

    from kabu_envs.play.web import GET_API, POST_API

    docs = (Path(__file__).resolve().parents[2] / "docs" / "play.md").read_text()
    documented = set(re.findall(r"^\| `(GET|POST) (/api/\w+)", docs, flags=re.M))
    assert documented == {("GET", p) for p in GET_API} | {("POST", p) for p in POST_API}


def test_a_request_for_another_host_name_is_refused(server):
    """DNS rebinding: a site whose name resolves to 127.0.0.1 must not reach the games."""
    url, _, _ = server
    req = urllib.request.Request(url + "/api/games", headers={"Host": "evil.example:8000"})
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=30)
    assert err.value.code == 403
    req = urllib.request.Request(url + "/api/games", headers={"Host": "localhost"})
    with urllib.request.urlopen(req, timeout=30) as r:
        assert r.status == 200


def test_kabu_play_web_serves_from_the_command_line(tmp_path):
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "kabu_envs.play", "--web", "--port", "0", "--record-dir", str(tmp_path)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.startswith("kabu-play: open http://127.0.0.1:") and str(tmp_path) in line
        url = line.split("open ", 1)[1].split("/ ", 1)[0]
        status, games = _call(url + "/api/games")
        assert status == 200 and games
    finally:
        proc.terminate()
        proc.wait(timeout=30)
