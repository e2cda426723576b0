"""The kernels' parallel entry points (``core.threads``): the same games, observations and rewards bit
for bit whatever the thread count, and the serial entry below ``PARALLEL_MIN_ROWS`` rows.

Each run is a fresh process with ``NUMBA_NUM_THREADS`` set (numba reads it once, at its first parallel
call): one thread through the serial entry, one thread through the parallel entry (forced), and two
threads through the parallel entry, on numba's default layer (TBB, installed with the package on Linux
x86-64) and on OpenMP. Every game, both observation formats, autoreset, seeded and fed
resets mid-play and partial steps; each run prints one digest per case."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kabu_envs.core import kernel as core

ROOT = Path(__file__).resolve().parents[2]
TBB_WHEELS = sys.platform.startswith("linux") and os.uname().machine == "x86_64"  # (pyproject's tbb marker)

_PLAY = """
import hashlib
import sys

import numba
import numpy as np

from kabu_envs import batch
from kabu_envs.batch import kernel_env
from kabu_envs.core import threads

mode = sys.argv[1]
if mode == "forced":  # the parallel entry points even with one thread
    threads.use_parallel = lambda rows, min_rows=0: True
B = threads.PARALLEL_MIN_ROWS + 44
CASES = [
    ("kakeya", {}),
    ("kakeya", {"num_players": 6, "six_player_mode": "dealers_sit_out", "max_deals": 2, "reward": "egara"}),
    ("oicho_kabu", {}),
    ("oicho_kabu", {"num_players": 8, "deck": "hanafuda"}),
    ("oicho_kabu", {"max_rounds": 4, "minso": True, "redeal_on_triple_table": True}),
    ("toy_card", {"num_players": 3}),
]
use = threads.use_parallel
print("threads", numba.get_num_threads(), "parallel", use(B), "small", use(64))
for game, options in CASES:
    for fmt in ("float32", "compact"):
        env = batch.make(game, batch_size=B, autoreset=True, observation=fmt, **options)
        env.reset(seed=11)
        rng = np.random.default_rng(5)
        digest = hashlib.sha256()
        for t in range(120):
            if t == 30:  # fed games (Python's shuffles) and stacked decks amid the stream rows
                rows = np.arange(0, B, 7)
                env.reset(rows=rows, seeds=[1000 + int(r) for r in rows])
            if t == 60:
                env.reset(rows=np.arange(3, B, 5))  # the rows' next episodes of the stream
            mask = env.legal_action_mask
            acts = np.argmax(mask * rng.random(mask.shape), axis=1)
            if t % 4 == 3:
                env.step(acts, active=rng.random(B) < 0.5)
            else:
                env.step(acts)
            seen = (env.observation, env.legal_action_mask, env.rewards, env.terminated, env.current_player)
            for a in seen:
                digest.update(np.ascontiguousarray(a).tobytes())
        print(game, fmt, sorted(options.items()), digest.hexdigest())
if mode == "auto":
    print("layer", threads.layer())
if mode == "forced":  # every cached function, the parallel entries too, has one version (one type set)
    import importlib

    from kabu_envs.core import kernel as core

    names = ["kakeya.kernel.rules", "kakeya.kernel.batch", "toy_card.kernel", "oicho_kabu.kernel.flow"]
    names.append("oicho_kabu.kernel.observe")
    many = []
    for name in names:
        module = importlib.import_module("kabu_envs." + name)
        for f in vars(module).values():
            if hasattr(f, "py_func") and f.__module__ == module.__name__ and core.is_cached(f):
                if len(f.signatures) > 1:
                    many.append(f.__name__)
    print("versions", many)
if mode == "forced":  # an error raised in a thread reaches Python
    env = batch.make("kakeya", batch_size=B, max_deals=4)
    env.reset(seeds=list(range(B)))
    env.state.g[0, env._kernel.READY] = 0
    try:
        env.step(np.array([int(np.flatnonzero(m)[0]) for m in env.legal_action_mask]))
    except RuntimeError as err:
        print("error:", err)
"""


def _run(threads: int, mode: str, layer: str | None = None) -> list[str]:
    env = {**os.environ, "NUMBA_NUM_THREADS": str(threads), "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    env.pop("NUMBA_THREADING_LAYER", None)
    if layer is not None:
        env["NUMBA_THREADING_LAYER"] = layer
    done = subprocess.run(
        [sys.executable, "-c", _PLAY, mode], env=env, capture_output=True, text=True, cwd=ROOT, timeout=1500
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.splitlines()


@pytest.mark.skipif(core.jit_disabled(), reason="plain Python: no threads")
def test_any_thread_count_plays_the_same_games_bit_for_bit() -> None:
    serial = _run(1, "serial")
    forced = _run(1, "forced")
    two = _run(2, "auto")
    omp = _run(2, "auto", layer="omp")  # (the layer where TBB is not installed)
    assert serial[0] == "threads 1 parallel False small False"
    assert forced[0] == "threads 1 parallel True small True"
    assert two[0] == omp[0] == "threads 2 parallel True small False"  # (small: below the threshold)
    assert len(serial) == 1 + 6 * 2
    assert serial[1:] == forced[1 : len(serial)] == two[1:-1] == omp[1:-1]
    assert omp[-1] == "layer omp" and two[-1] == f"layer {'tbb' if TBB_WHEELS else 'omp'}"
    assert forced[len(serial)] == "versions []"
    # an error raised in a thread: numba's workqueue layer drops it, the parallel step still raises
    assert forced[len(serial) + 1] == f"error: {core.THREAD_ERROR}"


def test_the_parallel_entry_needs_rows_and_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    from kabu_envs.core import threads

    monkeypatch.setattr(threads, "threads", lambda: 4)
    assert threads.use_parallel(threads.PARALLEL_MIN_ROWS)
    assert not threads.use_parallel(threads.PARALLEL_MIN_ROWS - 1)
    monkeypatch.setattr(threads, "threads", lambda: 1)
    assert not threads.use_parallel(10**6)


_FORK = """
import hashlib
import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor

import numba
import numpy as np

from kabu_envs import batch
from kabu_envs.core import threads


B = threads.PARALLEL_MIN_ROWS + 44


def play(_: int = 0) -> str:
    env = batch.make("kakeya", batch_size=B, autoreset=True)
    env.reset(seed=3)
    rng = np.random.default_rng(4)
    digest = hashlib.sha256()
    for _ in range(30):
        acts = np.argmax(env.legal_action_mask * rng.random(env.legal_action_mask.shape), axis=1)
        env.step(acts)
        digest.update(env.observation.tobytes())
        digest.update(env.rewards.tobytes())
    return digest.hexdigest()


if __name__ == "__main__":
    assert threads.use_parallel(B)  # (two threads: the parent takes the parallel entry points)
    parent = play()  # the parent's threads run first, then it forks (or spawns) a worker
    print(numba.threading_layer())  # (omp here: GNU OpenMP, not fork-safe by itself)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context(sys.argv[1])) as pool:
        print(pool.submit(play).result() == parent)  # (a worker that dies: BrokenProcessPool)
"""


@pytest.mark.skipif(core.jit_disabled(), reason="plain Python: no threads")
@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_a_worker_forked_after_the_parallel_kernels_plays_the_same_games(start: str, tmp_path: Path) -> None:
    """GNU OpenMP terminates a forked child's parallel loop; ``core.threads`` drops a forked child to one
    thread (the serial entry points), so a pool forked (the default on Linux) by a process that ran the
    parallel kernels plays the same games; a spawned one runs the parallel kernels itself."""
    script = tmp_path / "fork_play.py"
    script.write_text(_FORK)
    env = {**os.environ, "NUMBA_NUM_THREADS": "2", "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    env.pop("NUMBA_THREADING_LAYER", None)
    done = subprocess.run(
        [sys.executable, str(script), start], env=env, capture_output=True, text=True, cwd=ROOT, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    layer, same = done.stdout.split()
    assert layer in ("omp", "tbb", "workqueue")
    assert same == "True"


@pytest.mark.skipif(core.jit_disabled(), reason="plain Python: no threads")
def test_oicho_kabu_encodes_in_the_parallel_step_when_the_observations_are_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After a step whose observations were read, Oicho-Kabu's parallel step encodes them itself (one
    kernel call: ``step_encode_parallel``); the observations equal the serial engine's, games paused at
    a shuffle included, and a step not followed by a read leaves the encoding to the read."""
    import numpy as np

    from kabu_envs import batch
    from kabu_envs.core import threads
    from kabu_envs.oicho_kabu import kernel

    B = threads.PARALLEL_MIN_ROWS + 44
    monkeypatch.setattr(threads, "use_parallel", lambda rows, min_rows=0: True)  # (any thread count)
    fused, calls = kernel.step_encode_parallel, []
    monkeypatch.setattr(kernel, "step_encode_parallel", lambda *a: calls.append(1) or fused(*a))
    rules = {"max_rounds": 6, "minso": True, "redeal_on_triple_table": True}  # (shuffles mid-episode)
    serial = batch.make("oicho_kabu", batch_size=B, autoreset=True, **rules)
    serial._wide = False  # type: ignore[attr-defined]  # (the serial entry points)
    wide = batch.make("oicho_kabu", batch_size=B, autoreset=True, **rules)
    for env in (serial, wide):
        env.reset(seed=4)
    rng = np.random.default_rng(6)
    steps = 80
    for t in range(steps):
        if t == 20:  # fed games: they pause at each shuffle for Python's permutation
            rows = np.arange(0, B, 3)
            for env in (serial, wide):
                env.reset(rows=rows, seeds=[500 + int(r) for r in rows])
        acts = np.argmax(serial.legal_action_mask * rng.random(serial.legal_action_mask.shape), axis=1)
        active = rng.random(B) < 0.6 if t % 5 == 4 else None
        for env in (serial, wide):
            env.step(acts, active=active)
        if t % 7 != 3:  # (some steps not read: the next step takes the two-call path)
            assert np.array_equal(wide.observation, serial.observation)
        assert np.array_equal(wide.rewards, serial.rewards)
        assert np.array_equal(wide.legal_action_mask, serial.legal_action_mask)
    assert 0 < len(calls) < steps


@pytest.mark.skipif(core.jit_disabled(), reason="plain Python: no threads")
@pytest.mark.parametrize(("game", "options"), [("kakeya", {"max_deals": 1}), ("toy_card", {})])
@pytest.mark.parametrize(("fmt", "autoreset"), [("float32", False), ("compact", False), ("float32", True)])
@pytest.mark.parametrize("on_threads", [True, False], ids=["check-on-threads", "check-on-caller"])
def test_the_parallel_step_checks_the_actions_itself_with_the_check_s_errors(
    game: str,
    options: dict[str, int],
    fmt: str,
    autoreset: bool,
    on_threads: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kakeya's and Toy Card's steps check the actions themselves before they move any game: the parallel
    one chunk by chunk on numba's threads from ``CHECK_MIN_ROWS`` rows on, else in one loop on the calling
    thread, the serial one in its own call: a bad id, an illegal action or a wrong array raises the error
    ``_check_actions`` raises (the first such game named), and nothing changes; a held or finished game's
    action is not read (and, with autoreset, a game that just ended and restarted is)."""
    import numpy as np

    from kabu_envs import batch
    from kabu_envs.batch import kernel_env
    from kabu_envs.core import threads

    B = threads.PARALLEL_MIN_ROWS + 44
    monkeypatch.setattr(threads, "CHECK_MIN_ROWS", 0 if on_threads else B + 1)
    engines = {}
    for name, parallel in (("serial", False), ("parallel", True)):
        monkeypatch.setattr(threads, "use_parallel", lambda rows, min_rows=0, p=parallel: p)
        env = batch.make(game, batch_size=B, observation=fmt, autoreset=autoreset, **options)
        env.reset(seed=9)
        engines[name] = env
    calls = []
    fused = kernel_env.KernelBatchEnv._advance_checking
    monkeypatch.setattr(
        kernel_env.KernelBatchEnv, "_advance_checking", lambda self, *a: calls.append(self) or fused(self, *a)
    )
    serial, wide = engines["serial"], engines["parallel"]
    serial._wide = False  # type: ignore[attr-defined]  # (the serial entry and its one-thread check)
    monkeypatch.setattr(threads, "use_parallel", lambda rows, min_rows=0: True)
    rng = np.random.default_rng(3)

    def snapshot(env: batch.BatchEnv) -> list[bytes]:
        arrays = [*env.state, env.observation, env.legal_action_mask, env.rewards, env.terminated]  # type: ignore[attr-defined]
        return [np.ascontiguousarray(a).tobytes() for a in arrays]

    def both_raise(acts: object, active: object = None) -> str:
        before = [snapshot(serial), snapshot(wide)]
        errors = []
        for env in (serial, wide):
            with pytest.raises(ValueError) as err:  # (IllegalActionError is one)
                env.step(acts, active=active)
            errors.append(f"{type(err.value).__name__}: {err.value}")
        assert errors[0] == errors[1]
        assert [snapshot(serial), snapshot(wide)] == before  # (nothing moved, in either entry)
        return errors[1]

    for t in range(70):
        mask = serial.legal_action_mask
        acts = np.argmax(mask * rng.random(mask.shape), axis=1)
        live = np.flatnonzero(serial.current_player >= 0)
        if t % 5 == 2 and len(live) > 2:
            late, early = int(live[-1]), int(live[len(live) // 2])
            bad = acts.copy()
            bad[late] = serial.num_actions  # (out of range) ...
            illegal = np.flatnonzero(~mask[early])  # ... and an illegal one before it (or a negative id)
            bad[early] = int(illegal[0]) if len(illegal) else -2
            assert f"game {early} of the batch" in both_raise(bad)
            held = np.ones(B, dtype=bool)
            held[early] = False
            assert f"game {late} of the batch" in both_raise(bad, held)
            bad[late] = -1
            held[late] = False  # (the held games' actions are not read: the step goes on)
            for env in (serial, wide):
                env.step(bad, active=held)
        elif t % 5 == 4:
            both_raise(acts.astype(np.float64))  # (not integer ids)
            both_raise(acts[:-1])
            huge = acts.astype(np.uint64)
            huge[int(live[0]) if len(live) else 0] = np.uint64(2**64 - 1)
            if len(live):
                both_raise(huge)
            for env in (serial, wide):
                env.step(acts)
        else:
            over = serial.current_player < 0
            acts[over] = 99  # a finished game's action is not read
            for env in (serial, wide):
                env.step(acts)
        assert np.array_equal(wide.observation, serial.observation)
        assert np.array_equal(wide.rewards, serial.rewards)
        assert np.array_equal(wide.current_player, serial.current_player)
    assert (serial.current_player < 0).any() != autoreset  # (without it, finished games were stepped past)
    assert sum(env is wide for env in calls) >= 70  # (every step took the parallel entry and its check)
    assert sum(env is serial for env in calls) >= 70  # (and the serial entry, which checks too)


def test_openmp_spin_is_capped_unless_the_user_set_a_wait_policy() -> None:
    """A loaded machine made OpenMP's default spin between parallel loops five times slower than the
    serial step: ``core.threads`` caps it (``GOMP_SPINCOUNT``) before OpenMP loads, and leaves a user's
    own ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` alone."""
    probe = "import os; from kabu_envs.core import threads; print(os.environ.get('GOMP_SPINCOUNT'))"
    base = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    base["PYTHONPATH"] = str(ROOT)

    def spin(**extra: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", probe], env={**base, **extra}, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout.strip()

    from kabu_envs.core import threads

    assert spin() == threads.SPIN_COUNT
    assert spin(GOMP_SPINCOUNT="7") == "7"
    assert spin(OMP_WAIT_POLICY="PASSIVE") == "None"
