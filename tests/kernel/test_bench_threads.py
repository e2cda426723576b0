"""The thread benchmarks run and report what they claim: ``benchmarks/bench_threads.py`` (1 and 2
threads in one run, the same observations and rewards) and ``benchmarks/bench_thread_parts.py`` (a
step after each kind of caller, the encode, the write, the start of a parallel loop).

Small batches and a few steps: these check that the tools work and say the same games, not speed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RATIO = r"(\d+) / (\d+) = (\d+\.\d\d)x"


def run(script: str, *args: str, threads: int = 2) -> str:
    env = {**os.environ, "NUMBA_NUM_THREADS": str(threads), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_bench_threads_reports_both_counts_and_the_same_games() -> None:
    out = run(
        "bench_threads.py",
        *("--games", "kakeya", "--sizes", "64", "512", "--threads", "1", "2"),
        *("--rounds", "1", "--duration", "0.05", "--no-pgx"),
    )
    rows = [line for line in out.splitlines() if line.startswith("| kakeya |")]
    assert [row.split("|")[2].strip() for row in rows] == ["64", "512"]
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert int(cells[2].replace(",", "")) > 0 and int(cells[3].replace(",", "")) > 0  # 1 and 2 threads
        assert re.fullmatch(r"\d+\.\d\dx", cells[4]) and re.fullmatch(r"\d+\.\d\dx", cells[6])
        assert cells[-1] == "yes"  # the digests of 1 and 2 threads' observations and rewards agree


def test_bench_thread_parts_measures_every_caller() -> None:
    out = run("bench_thread_parts.py", "--games", "kakeya", "--batch", "512", "--steps", "3")
    for kind in ("light", "read obs", "copy other", "numpy", "numpy, two batches"):
        line = next(x for x in out.splitlines() if f"step after a {kind!r} caller" in x)
        one, two, ratio = re.search(RATIO, line).groups()  # type: ignore[union-attr]
        assert abs(int(one) / int(two) - float(ratio)) < 0.2  # (the ratio of the printed, rounded medians)
    assert "observation encode alone" in out and "plain write" in out
    assert len(re.findall(r"after \d+ us: \d+\.\d us", out)) == 4
    assert re.search(r"threading layer: (tbb|omp)", out)


def test_bench_thread_parts_needs_two_threads() -> None:
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_thread_parts.py"), "--games", "kakeya"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode != 0 and "NUMBA_NUM_THREADS >= 2" in done.stderr
