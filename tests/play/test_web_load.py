"""A bounded load test of ``kabu-play --web`` (issue #25): 50 clients at once for 20 s on 127.0.0.1.

The server runs as ``python -m kabu_envs.play --web`` in its own process (its memory is its own). Each
client plays games one after another as a person would, without pauses: a new game (Kakeya or Toy
Card, scripted or random opponents), its first legal move until the end, now and then the record so
far and a replay of a page of a finished record. Checked: no answer is a 5xx, no game in use is ever
gone (no 404), every answer is 200; the server's peak memory stays bounded (its ``VmHWM``). The figures
(requests/s, latency, peak memory) are printed (``pytest -s``) and quoted in docs/play.md.

It runs in ``make test`` (about 25 s); ``-m "not load"`` leaves it out of a quick run.
"""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
import time
from collections import Counter

import pytest

CLIENTS = 50
SECONDS = 20.0
PEAK_MB = 400  # the server's peak resident memory may not exceed this

pytestmark = pytest.mark.load


def _memory_kb(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(f"no {field} for process {pid}")


class Client:
    """One person: games one after another, every request timed and its status counted."""

    def __init__(self, port: int, index: int, stats: Stats) -> None:
        self.port, self.index, self.stats = port, index, stats

    def call(self, method: str, path: str, body: object | None = None) -> tuple[int, object]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        start = time.perf_counter()
        try:
            conn.request(method, path, data, headers)
            res = conn.getresponse()
            raw = res.read()
        finally:
            conn.close()
        self.stats.add(res.status, time.perf_counter() - start, path)
        return res.status, json.loads(raw)

    def run(self, until: float) -> None:
        game = 0
        while time.monotonic() < until:
            game += 1
            kind = ("kakeya", "scripted") if (self.index + game) % 2 else ("toy_card", "random")
            seat = (self.index + game) % 2
            status, out = self.call("POST", "/api/new", {"game": kind[0], "seat": seat, "opponents": kind[1]})
            if status != 200:
                continue
            token, state, moves = out["token"], out["state"], 0
            while not state["over"] and time.monotonic() < until:
                if state["pending"]:
                    body: dict[str, object] = {"token": token, "action": None}
                else:
                    body = {"token": token, "action": state["moves"][0]["action"]}
                status, out = self.call("POST", "/api/move", body)
                if status != 200:
                    self.stats.lost.append((token, status, out))
                    break
                state, moves = out["state"], moves + 1
                if moves % 10 == 0:
                    self.call("GET", f"/api/record?token={token}")
            if state["over"] and game % 3 == 0:
                status, record = self.call("GET", f"/api/record?token={token}")
                if status == 200:
                    self.call("POST", "/api/replay", {"record": record, "seat": 1, "first": 0, "count": 20})


class Stats:
    """Every answer's status and time, shared by the clients."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.status: Counter[int] = Counter()
        self.times: list[float] = []
        self.by_path: Counter[str] = Counter()
        self.lost: list[tuple[str, int, object]] = []

    def add(self, status: int, seconds: float, path: str) -> None:
        with self.lock:
            self.status[status] += 1
            self.times.append(seconds)
            self.by_path[path.split("?")[0]] += 1


def test_fifty_clients_for_twenty_seconds():
    proc = subprocess.Popen(
        [sys.executable, "-m", "kabu_envs.play", "--web", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        port = int(line.split("open http://127.0.0.1:", 1)[1].split("/", 1)[0])
        stats = Stats()
        idle_kb = _memory_kb(proc.pid, "VmRSS")
        start = time.monotonic()
        until = start + SECONDS
        clients = [threading.Thread(target=Client(port, i, stats).run, args=(until,)) for i in range(CLIENTS)]
        for c in clients:
            c.start()
        samples = []
        while any(c.is_alive() for c in clients):
            samples.append(_memory_kb(proc.pid, "VmRSS"))
            time.sleep(0.5)
        for c in clients:
            c.join()
        elapsed = time.monotonic() - start
        peak_kb = _memory_kb(proc.pid, "VmHWM")
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    times = sorted(stats.times)
    n = len(times)
    figures = {
        "clients": CLIENTS,
        "seconds": round(elapsed, 1),
        "requests": n,
        "requests_per_s": round(n / elapsed, 1),
        "latency_ms": {q: round(1000 * times[min(n - 1, int(q / 100 * n))], 1) for q in (50, 95, 99)}
        | {"max": round(1000 * times[-1], 1)},
        "status": dict(stats.status),
        "by_path": dict(stats.by_path),
        "server_rss_mb": {
            "idle": round(idle_kb / 1024, 1),
            "peak": round(peak_kb / 1024, 1),
            "last": round(samples[-1] / 1024, 1),
        },
    }
    print("\nload test:", json.dumps(figures))
    assert "Traceback" not in err, err
    assert not stats.lost, stats.lost[:3]  # no game in use was gone (404) or refused
    assert set(stats.status) == {200}, stats.status  # no 5xx, nor any refusal
    assert elapsed >= SECONDS and n >= 10 * CLIENTS  # the load was real
    assert peak_kb < PEAK_MB * 1024, figures
