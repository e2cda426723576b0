"""The duplicate evaluation in worker processes (eval/parallel.py): the same JSON for any worker count,
small runs in process, a worker's error raised in the parent, no pool inside a worker.

Each test that starts workers costs a few seconds (spawned interpreters); the rest count work only."""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from kabu_envs.agents.registry import make_agent
from kabu_envs.eval import parallel
from kabu_envs.eval.__main__ import main as eval_main
from kabu_envs.eval.duplicate import play_plan
from kabu_envs.eval.games import duplicate_plan, make_aec, plan_totals
from kabu_envs.eval.tournament import build_lineup, round_robin


def _run(tmp_path: Path, name: str, argv: list[str]) -> str:
    out = tmp_path / f"{name}.json"
    assert eval_main([*argv, "--json", str(out)]) == 0
    return out.read_text()


@pytest.mark.parametrize(
    "argv",
    [
        # Kakeya partnerships (team format), a control row too (differently seeded copies of one name)
        ["--game", "kakeya", "--agents", "random", "scripted", "--opponents", "scripted", "--deals", "7"],
        # Oicho-Kabu's bettor (seat format: the reference on the other seats), a search agent as opponent
        ["--game", "oicho_kabu", "--agents", "random", "--opponents", "expert", "--deals", "9"],
    ],
    ids=["kakeya-team", "oicho-seat"],
)
def test_two_workers_write_the_same_json_as_one(tmp_path, argv, monkeypatch):
    one = _run(tmp_path, "one", [*argv, "--workers", "1"])
    two = _run(tmp_path, "two", [*argv, "--workers", "2"])  # this process and a worker
    assert two == one
    monkeypatch.setattr(parallel, "CALLER_PLAYS", False)  # every slice in the two workers
    assert _run(tmp_path, "three", [*argv, "--workers", "3"]) == one
    rows = json.loads(one)["matchups"]
    assert [r["games"] for r in rows] == [int(argv[-1])] * len(rows)


def test_the_experts_play_the_same_deals_in_two_workers(tmp_path, monkeypatch):
    """The search agents of the done-when row (expert vs expert_0_2), on a few deals."""
    argv = ["--game", "kakeya", "--agents", "expert", "--opponents", "expert_0_2", "--deals", "3"]
    monkeypatch.setattr(parallel, "CALLER_PLAYS", False)  # the slices played in the worker
    two = _run(tmp_path, "two", [*argv, "--workers", "2"])
    assert two == _run(tmp_path, "one", [*argv, "--workers", "1"])


@pytest.mark.parametrize(("game", "names"), [("kakeya", ("expert", "expert_0_2", "scripted"))])
def test_a_play_does_not_depend_on_the_deals_played_before_it(game, names):
    """Why a split cannot change a result: the same agents playing the plays in the reverse order (and
    a deal slice alone) give every play the same rewards (the agents are re-seeded per deal; a search
    keeps nothing from one decision to the next)."""
    plan = duplicate_plan(game, None, 3, seed=5)
    agents = [make_agent(game, n, k) for k, n in enumerate(names)]
    players = {"agent": agents[0], "opponent": agents[1]}
    env = make_aec(game)
    forward = play_plan(plan, players, env=env)
    backward = np.array(
        [play_plan(plan.deal_slice(d, d + 1), players, env=env) for d in reversed(range(plan.deals))]
    )[::-1].reshape(forward.shape)
    assert np.array_equal(forward, backward)
    later = plan_totals(plan.deal_slice(1, 3), {"agent": agents[2], "opponent": agents[1]}, batched=True)
    again = plan_totals(plan.deal_slice(1, 3), {"agent": agents[2], "opponent": agents[1]}, batched=True)
    assert np.array_equal(later, again)


def test_deal_slices_cover_the_deals_in_order():
    assert parallel.deal_slices(10, 1) == [(0, 10)]
    slices = parallel.deal_slices(1000, 2)
    assert len(slices) == 2 * parallel.SLICES_PER_WORKER
    assert {hi - lo for lo, hi in slices} <= {1000 // len(slices), 1000 // len(slices) + 1}
    assert [d for lo, hi in slices for d in range(lo, hi)] == list(range(1000))
    assert parallel.deal_slices(3, 4) == [(0, 1), (1, 2), (2, 3)]
    slices = parallel.deal_slices(6, 2)
    plan = duplicate_plan("oicho_kabu", "bettor", 6, seed=1)
    joined = [p for lo, hi in slices[:3] for p in plan.deal_slice(lo, hi).plays]
    assert len(joined) == 2 * slices[2][1]  # two plays a deal (seat format), deal numbers from 0 a slice
    with pytest.raises(ValueError, match="deal slice 4:9 of a plan of 6 deals"):
        plan.deal_slice(4, 9)


def test_small_runs_stay_in_process_unless_workers_are_asked_for(monkeypatch):
    monkeypatch.setattr(parallel, "numba_threads", lambda: 4)
    least = parallel.MIN_DEALS_PER_WORKER
    assert parallel.worker_count(2 * least - 1) == 1
    assert parallel.worker_count(2 * least) == 2
    assert parallel.worker_count(100 * least) == 4  # never more than numba's thread setting
    assert parallel.worker_count(5, workers=2) == 2  # asked for: used as given (at most one per deal)
    assert parallel.worker_count(1, workers=3) == 1
    assert parallel.thread_share(2) == 2 and parallel.thread_share(3) == 1 and parallel.thread_share(8) == 1
    with pytest.raises(ValueError, match="workers must be a positive integer"):
        parallel.worker_count(10, workers=0)
    # a run below the threshold never starts a pool (nor does a run inside a worker)
    monkeypatch.setattr(parallel, "process_pool", _no_pool)
    out = round_robin("toy_card", ["random"], ["scripted"], deals=2 * least - 1)
    assert out["matchups"][0]["games"] == 2 * least - 1
    monkeypatch.setattr(parallel, "_IN_WORKER", True)
    assert parallel.default_workers() == 1 and parallel.worker_count(100 * least) == 1


def _no_pool(workers: int) -> ProcessPoolExecutor:
    raise AssertionError(f"a pool of {workers} was started for a small run")


def test_a_lineup_of_objects_or_a_recorded_run_plays_in_process(monkeypatch, tmp_path):
    monkeypatch.setattr(parallel, "process_pool", _no_pool)
    lineup = build_lineup("toy_card", ["random"], ["scripted"])
    objects = type(lineup)(lineup.agents, lineup.opponents)  # no recipe: built by the caller
    out = round_robin("toy_card", ["random"], ["scripted"], deals=4, lineup=objects, workers=2)
    assert out["matchups"][0]["games"] == 4
    out = round_robin("toy_card", ["random"], ["scripted"], deals=2, record_dir=str(tmp_path), workers=2)
    assert len(list(tmp_path.glob("*.json"))) == 4  # (two plays a deal)


BROKEN = """
import time
from pathlib import Path

import numpy as np

from kabu_envs.eval import parallel

FLAG = Path({flag!r})


class Broken(Exception):
    pass


class Raises:
    # fails in a worker process; in the calling process (which plays slices too) its first move waits
    # until a worker has begun to play, so that a worker surely plays a slice

    def __init__(self, seed=None):
        self.kind = {kind}

    def act(self, observation, action_mask):
        if parallel._IN_WORKER:
            FLAG.touch()
            raise self.kind("this agent always fails in a worker: deliberately")
        for _ in range(1200):
            if FLAG.exists():
                break
            time.sleep(0.1)
        return int(np.flatnonzero(action_mask)[0])
"""


@pytest.mark.parametrize(
    ("kind", "raised", "message"),
    [("ValueError", ValueError, "^this agent always fails"), ("Broken", Exception, "^Broken: this agent")],
)
def test_an_error_in_a_worker_is_raised_with_its_message(tmp_path, kind, raised, message):
    """A builtin exception crosses as it is (its traceback the worker's); one of a class the parent
    cannot import (a user's file) as its nearest builtin class, its type and message first."""
    path = tmp_path / "raises.py"
    path.write_text(BROKEN.format(kind=kind, flag=str(tmp_path / "a-worker-played")))
    with pytest.raises(raised, match=message) as info:
        round_robin("toy_card", [f"{path}:Raises"], ["random"], deals=40, workers=2)
    assert "this agent always fails in a worker: deliberately" in str(info.value)
    if kind == "Broken":
        assert type(info.value) is Exception and "(the worker's traceback)" in str(info.value)


def _inside() -> tuple[int, int]:
    import numba

    return parallel.default_workers(), int(numba.get_num_threads())


def test_a_worker_runs_its_share_of_threads_and_starts_no_pool():
    with parallel.process_pool(1) as pool:
        workers, threads = pool.submit(_inside).result()
    assert workers == 1 and threads == parallel.thread_share(1)


class _Started(Exception):
    pass


def test_the_demo_pool_is_a_deal_pool_of_the_thread_setting(monkeypatch, tmp_path):
    """``make demo``'s jobs run in ``process_pool`` (spawned, a share of the threads each, no pool of
    their own: the test above), as many as numba's thread setting unless ``--workers`` says."""
    from kabu_envs.eval import demo

    asked: list[int] = []

    def pool(workers: int) -> ProcessPoolExecutor:
        asked.append(workers)
        raise _Started

    monkeypatch.setattr(parallel, "process_pool", pool)
    monkeypatch.setattr(parallel, "numba_threads", lambda: 3)
    for extra, workers in (([], 3), (["--workers", "2"], 2)):
        with pytest.raises(_Started):
            demo.main(["--quick", "--deals", "3", "--out", str(tmp_path), *extra])
        assert asked.pop() == workers


def test_a_bench_card_is_the_same_in_workers(monkeypatch):
    """``kabu-eval bench --workers``: every row's deals, mean, CI, rates and decisions as in one process
    (its times are times)."""
    from kabu_envs.eval.bench import run_bench

    def fixed(card):
        return [
            {k: v for k, v in row.items() if k not in ("seconds", "ms_per_decision")} for row in card["rows"]
        ]

    one = run_bench("toy_card", "scripted", deals=12, workers=1)
    monkeypatch.setattr(parallel, "CALLER_PLAYS", False)
    two = run_bench("toy_card", "scripted", deals=12, workers=2)
    assert fixed(two) == fixed(one) and all(r["decisions"] > 0 for r in one["rows"])
    assert all(r["ms_per_decision"] is not None for r in two["rows"])
