"""Watch mode (issue #29): agents on every seat over the HTTP API, a seat's view or the god view, and
the zones' placing fields (seat, backs, stakes) the table layout reads."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request

import pytest

from kabu_envs.core.views import zone
from kabu_envs.play.records import read_record, replay
from kabu_envs.play.session import HUMAN, Match
from kabu_envs.play.web import make_server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    records = tmp_path_factory.mktemp("records")
    srv = make_server(port=0, record_dir=records)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}", records
    srv.shutdown()
    srv.server_close()


def _post(url: str, body: object) -> tuple[int, dict]:
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def _watch_all(url: str, body: dict) -> tuple[list[dict], dict]:
    status, out = _post(f"{url}/api/watch", body)
    assert status == 200, out
    frames, state = list(out["frames"]), out["state"]
    while state["pending"]:
        status, more = _post(f"{url}/api/move", {"token": out["token"], "action": None})
        assert status == 200, more
        frames += more["frames"]
        state = more["state"]
    return frames, state


def test_a_watched_game_is_played_to_the_end_and_recorded(server):
    url, records = server
    before = set(records.iterdir())
    frames, state = _watch_all(url, {"game": "kakeya", "agents": "scripted", "seed": 3, "view": 1})
    assert state["over"] and state["seat"] is None and state["eye"] == 1 and state["moves"] == []
    assert all(f["view"]["status"][0].startswith("you are player_1") for f in frames)
    assert [f["to_act"] for f in frames[:-1]] == [f["actor"] for f in frames[1:]]
    [path] = set(records.iterdir()) - before
    record = read_record(path)
    _, totals = replay(record)
    assert state["totals"] == pytest.approx(totals) and record.viewer is None


def test_the_god_view_shows_every_hand_a_seat_view_does_not(server):
    url, _ = server
    body = {"game": "kakeya", "agents": ["random", "scripted", "random", "scripted"], "seed": 5}
    seat_frames, _ = _watch_all(url, {**body, "view": 0})
    god_frames, _ = _watch_all(url, {**body, "view": 0, "god": True})
    assert len(seat_frames) == len(god_frames)  # the same game
    seat0, god0 = seat_frames[0]["view"], god_frames[0]["view"]
    others = [z for z in seat0["zones"] if z["seat"] not in (None, 0)]
    assert others and all(z["backs"] > 0 and z["cards"] == [] for z in others)  # backs with counts only
    hands = [z for z in god0["zones"] if z["label"].endswith("'s hand")]
    assert sorted(z["seat"] for z in hands) == [1, 2, 3]
    assert [len(z["cards"]) for z in hands] == [b["backs"] for b in others]
    assert not any(c.get("hidden") for z in god0["zones"] for c in z["cards"])


def test_the_god_view_is_refused_where_a_person_plays():
    with pytest.raises(ValueError, match="only for a game no person plays"):
        Match("kakeya", [HUMAN, "random", "random", "random"], seed=1, god=True)
    with pytest.raises(ValueError, match="only from the person's seat"):
        Match("kakeya", [HUMAN, "random", "random", "random"], seed=1, eye=2)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"game": "kakeya", "agents": ["random", "random"]}, "give one name, or 4"),
        ({"game": "kakeya", "agents": "nobody"}, "unknown agent 'nobody'"),
        ({"game": "kakeya", "god": "yes"}, "'god' must be true or false"),
        ({"game": "kakeya", "view": 9}, "view seat 9"),
        ({"game": "kakeya", "agents": "/etc/passwd"}, "unknown agent"),
    ],
)
def test_bad_watch_requests_are_refused_with_a_message(server, body, message):
    status, out = _post(f"{server[0]}/api/watch", body)
    assert status == 400 and message in out["error"], out


def test_oicho_spreads_carry_their_stakes_and_the_dealer_sits_at_a_seat():
    m = Match("oicho_kabu", ["scripted"] * 4, seed=4)
    frames = m.advance()
    staked = [z for f in frames for z in f["view"]["zones"] if z["stakes"]]
    assert staked and all(z["label"].startswith("spread") and z["seat"] is None for z in staked)
    assert all(isinstance(p, int) and a > 0 for z in staked for p, a in z["stakes"])
    dealer = frames[0]["view"]["zones"][0]
    assert dealer["label"].startswith("dealer") and dealer["seat"] == m.env.game.dealer


def test_a_zone_refuses_a_negative_count_of_backs():
    with pytest.raises(ValueError, match="backs"):
        zone("hand", [], backs=-1)


def test_a_policy_named_on_the_command_line_can_be_watched_and_no_other_path(tmp_path):
    from kabu_envs.agents.registry import models_dir
    from kabu_envs.play.web import serve

    shipped = models_dir() / "ppo_kakeya"
    copy = tmp_path / "my_policy"
    copy.mkdir()
    for f in shipped.iterdir():
        if f.is_file():
            (copy / f.name).write_bytes(f.read_bytes())
    srv = make_server(port=0, policies=(str(copy),))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{srv.server_address[1]}"
    try:
        with urllib.request.urlopen(f"{url}/api/games", timeout=30) as r:
            games = {g["id"]: g for g in json.loads(r.read())}
        assert str(copy) in games["kakeya"]["agents"] and str(copy) not in games["oicho_kabu"]["agents"]
        frames, state = _watch_all(url, {"game": "kakeya", "agents": [str(copy), "random"] * 2, "seed": 1})
        assert state["over"] and frames
        status, out = _post(f"{url}/api/watch", {"game": "kakeya", "agents": str(shipped)})
        assert status == 400 and "unknown agent" in out["error"]  # a path the operator did not give
    finally:
        srv.shutdown()
        srv.server_close()
    assert serve(port=0, policies=(str(tmp_path / "nothing"),)) == 2  # refused before serving


def test_a_record_replays_in_the_god_view_only_where_every_seat_may_be_shown(server):
    url, _ = server
    done = Match("kakeya", ["scripted"] * 4, seed=2)
    done.advance()
    body = {"record": done.to_json(), "seat": 1, "god": True, "count": 8}  # (dealt after the trump)
    status, out = _post(f"{url}/api/replay", body)
    assert status == 200, out
    hands = [z for z in out["frames"][-1]["view"]["zones"] if z["label"].endswith("'s hand")]
    assert sorted(z["seat"] for z in hands) == [0, 2, 3]
    started = Match("kakeya", [HUMAN, "scripted", "scripted", "scripted"], seed=2)
    started.advance()
    started.play(started.legal_moves()[0]["action"])
    status, out = _post(f"{url}/api/replay", {"record": started.to_json(), "seat": 0, "god": True})
    assert status == 403 and "game in progress" in out["error"]
    status, out = _post(f"{url}/api/replay", {"record": started.to_json(), "seat": 0})
    assert status == 200  # its own seat: yes


def test_the_readme_shows_the_table_as_the_browser_test_sees_it():
    """docs/img's pictures of the web table are the browser test's reference screenshots (as palette
    PNGs, a third of the size: each pixel within the screen comparison's tolerance of the reference)."""
    from pathlib import Path

    import numpy as np
    from PIL import Image

    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    pictures = {
        "oicho_kabu-en": "web_table",
        "oicho_kabu-hanafuda-phone": "web_table_phone",
        "oicho_kabu-hanafuda-showdown-ja": "web_oicho_hanafuda_round_ja",
        "oicho_kabu-kabufuda-showdown-ja": "web_oicho_kabufuda_round_ja",
        "kakeya-deal-ja": "web_kakeya_deal_ja",
        "watch-kakeya": "web_watch_kakeya",
        "kakeya-phone-ja": "web_kakeya_phone_ja",
    }
    for picture in ("web_table", "web_table_phone"):
        assert f"docs/img/{picture}.png" in readme
    play_md = (root / "docs" / "play.md").read_text()
    for reference, picture in pictures.items():
        assert f"img/{picture}.png" in play_md, picture
        shot = np.asarray(Image.open(root / "tests" / "play" / "screens" / f"{reference}.png").convert("RGB"))
        doc = np.asarray(Image.open(root / "docs" / "img" / f"{picture}.png").convert("RGB"))
        assert doc.shape == shot.shape, picture
        differ = (np.abs(doc.astype(np.int16) - shot).max(axis=2) > 64).mean()
        assert differ <= 0.015, (picture, differ)
