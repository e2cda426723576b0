"""The kernels' shared generator and cache upkeep (kabu_envs/core/kernel.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pytest

from kabu_envs.core import kernel

SPLITMIX64_REFERENCE = [  # SplitMix64 seeded 1234567 (the published reference sequence of its C code)
    6457827717110365317,
    3203168211198807973,
    9817491932198370423,
    4593380528125082431,
    16408922859458223821,
]


def test_splitmix64_matches_the_reference_sequence() -> None:
    state = np.array([1234567], dtype=np.uint64)
    assert [int(kernel.next_u64(state, 0)) for _ in range(5)] == SPLITMIX64_REFERENCE


def test_seed_state_separates_seed_row_and_episode() -> None:
    states = {
        int(kernel.seed_state(np.uint64(s), np.uint64(r), np.uint64(e)))
        for s in range(4)
        for r in range(16)
        for e in range(16)
    }
    assert len(states) == 4 * 16 * 16
    many = kernel.seed_states(7, range(3), [0, 0, 0])
    one = kernel.seed_states(7, [2], [0])
    assert many.dtype == np.uint64 and many[2] == one[0]  # a row's state does not depend on the others


def test_bounded_is_uniform_and_in_range() -> None:
    state = kernel.seed_states(11, [0], [0])
    for n in (1, 2, 3, 7, 52, 40):
        draws = np.array([kernel.bounded(state, 0, n) for _ in range(20_000)])
        assert draws.min() >= 0 and draws.max() < n
        counts = np.bincount(draws, minlength=n)
        expected = len(draws) / n
        chi2 = float(((counts - expected) ** 2 / expected).sum())
        assert chi2 < n + 6 * np.sqrt(2 * n) + 10, (n, chi2)  # far beyond the 99.9% quantile


def test_shuffle_is_a_uniform_permutation() -> None:
    state = kernel.seed_states(3, [0], [0])
    first = np.zeros((4, 4), dtype=np.int64)  # [item, position]
    for _ in range(8_000):
        items = np.arange(4, dtype=np.int64)
        kernel.shuffle(state, 0, items, 4)
        assert sorted(items.tolist()) == [0, 1, 2, 3]
        first[items, np.arange(4)] += 1
    assert np.all(np.abs(first - 2_000) < 200), first
    partial = np.arange(10, dtype=np.int64)
    kernel.shuffle(state, 0, partial, 5)
    assert partial[5:].tolist() == [5, 6, 7, 8, 9] and sorted(partial[:5].tolist()) == [0, 1, 2, 3, 4]


_KERNEL = """
import sys
import numba
import numpy as np
from kabu_envs.core import kernel
import table

@numba.njit(cache=True)
def value():
    return table.VALUE

stamp = kernel.fingerprint([table], table.VALUE)
compiling = kernel.prepare("Test", [value], stamp, out=sys.stdout)
print("value", value(), "compiled", compiling)
"""


def _run(folder: Path, extra_env: dict[str, str] | None = None, prefix: tuple[str, ...] = ()) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), *sys.path]), **(extra_env or {})}
    command = [*prefix, sys.executable, str(folder / "kern.py")]
    return subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout


def _unprivileged() -> tuple[str, ...]:
    """Root writes into read-only folders: run as ``nobody`` then (CI runs as root), or as we are."""
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: a read-only folder cannot be made")
    return (setpriv, "--reuid=65534", "--regid=65534", "--clear-groups")


def _words(mask: np.ndarray) -> np.ndarray:
    """Each mask row as the legal set's 64-bit words (bit a of word a // 64)."""
    bits = np.zeros((len(mask), 64 * -(-mask.shape[1] // 64)), dtype=bool)
    bits[:, : mask.shape[1]] = mask
    return np.packbits(bits, axis=1, bitorder="little").view(np.uint64)


@pytest.mark.parametrize("check", ["mask", "words"])
def test_first_illegal_finds_the_first_live_moving_game_with_a_disallowed_action(check: str) -> None:
    """The same answer from the masks (``first_illegal``) and from the legal sets as words
    (``first_illegal_words``), among them actions past the last word and below 0."""
    mask = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 1], [0, 0, 1]], dtype=bool)
    live = np.array([0, 1, -1, 2], dtype=np.int64)
    every = np.ones(4, dtype=bool)
    ok = np.array([2, 1, 9, 2], dtype=np.int64)  # game 2 is over: its action is not read
    legal = _words(mask)
    assert legal.shape == (4, 1)

    def first(acts: np.ndarray, active: np.ndarray) -> int:
        if check == "mask":
            return int(kernel.first_illegal(acts, active, live, mask))
        return int(kernel.first_illegal_words(acts, active, live, legal))

    assert first(ok, every) == -1
    for b, bad in ((0, 1), (1, 0), (3, 3), (3, -1), (0, -5), (1, 64), (1, 2**40)):
        acts = ok.copy()
        acts[b] = bad
        assert first(acts, every) == b
        held = every.copy()
        held[b] = False  # a game that does not move is not checked
        assert first(acts, held) == -1
    two = ok.copy()
    two[1], two[3] = 2, 0
    assert first(two, every) == 1


def test_the_word_check_reads_every_word_of_a_wide_action_set() -> None:
    """Actions past 64 (a game with more than 64 actions: two words a row) are found in their word."""
    mask = np.zeros((2, 130), dtype=bool)
    mask[0, [3, 70, 129]] = True
    mask[1, [64]] = True
    legal, live, every = _words(mask), np.zeros(2, dtype=np.int64), np.ones(2, dtype=bool)
    assert legal.shape == (2, 3)
    for a0, a1, want in ((70, 64, -1), (129, 64, -1), (3, 64, -1), (69, 64, 0), (70, 65, 1), (70, 192, 1)):
        assert kernel.first_illegal_words(np.array([a0, a1], dtype=np.int64), every, live, legal) == want


def test_first_illegal_in_checks_one_chunk_and_answers_none_alike_for_every_chunk() -> None:
    """A parallel step checks its rows chunk by chunk (``first_illegal_in``): a chunk's first illegal
    game, or ``len(actions)`` for every chunk without one (so the smallest answer over the chunks is
    the whole batch's first illegal game)."""
    mask = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 1], [0, 0, 1]], dtype=bool)
    live = np.array([0, 1, -1, 2], dtype=np.int64)
    every = np.ones(4, dtype=bool)
    acts = np.array([1, 1, 9, 0], dtype=np.int64)  # games 0 and 3 illegal, game 2 over
    assert kernel.first_illegal_in(acts, every, live, mask, 0, 4) == 0
    assert kernel.first_illegal_in(acts, every, live, mask, 1, 4) == 3
    assert kernel.first_illegal_in(acts, every, live, mask, 1, 3) == 4  # none in 1:3
    assert kernel.first_illegal_in(acts, every, live, mask, 2, 2) == 4


@pytest.mark.parametrize("rows", [0, 1, 127, 128, 300, 4096, 4097])
@pytest.mark.parametrize("chunks", [1, 2, 3, 32, 33])
def test_chunk_rows_cover_every_row_once_in_chunks_that_differ_by_one_at_most(rows: int, chunks: int) -> None:
    bounds = [kernel.chunk_rows(c, rows, chunks) for c in range(chunks)]
    assert bounds[0][0] == 0 and bounds[-1][1] == rows
    assert all(hi == lo for (_, hi), (lo, _) in zip(bounds[:-1], bounds[1:], strict=True))
    sizes = [hi - lo for lo, hi in bounds]
    assert max(sizes) - min(sizes) <= 1


def test_chunk_marks_sum_or_take_the_first_and_a_chunk_left_unfinished_raises() -> None:
    marks = np.zeros(4, dtype=np.int64)
    kernel.open_chunks(marks)
    assert marks.tolist() == [-1, -1, -1, -1]
    with pytest.raises(RuntimeError, match="NUMBA_NUM_THREADS=1"):
        kernel.chunks_total(marks)
    with pytest.raises(RuntimeError, match="NUMBA_NUM_THREADS=1"):
        kernel.chunks_first(marks, 10)
    marks[:] = [3, 0, 5, 1]
    assert kernel.chunks_total(marks) == 9
    assert kernel.chunks_first(marks, 10) == 0
    marks[:] = 10
    assert kernel.chunks_first(marks, 10) == 10  # (no chunk found anything)
    marks[2] = -1  # a chunk whose thread raised, whatever the others found
    with pytest.raises(RuntimeError, match="lost by numba's threading layer"):
        kernel.chunks_total(marks)


def test_a_changed_constant_invalidates_the_cache(tmp_path: Path) -> None:
    (tmp_path / "kern.py").write_text(textwrap.dedent(_KERNEL))
    (tmp_path / "table.py").write_text("VALUE = 1\n")
    first = _run(tmp_path)
    assert "compiling the Test kernel once; cached in" in first and "value 1 compiled True" in first
    stamp = next((tmp_path / "__pycache__").glob("kern.kabu-stamp"))
    before = stamp.stat()
    warm = _run(tmp_path)
    assert warm.strip() == "value 1 compiled False"  # no line: loaded from the cache
    # a fresh stamp is not written again (a process starting beside it never reads it half-written)
    after = stamp.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    # numba alone would load the stale code: kern.py is unchanged, only the module it reads changed
    (tmp_path / "table.py").write_text("VALUE = 2\n")
    changed = _run(tmp_path)
    assert "compiling the Test kernel" in changed and "value 2 compiled True" in changed
    assert stamp.stat().st_ino != before.st_ino  # a new stamp replaces the file whole
    assert [p.name for p in stamp.parent.glob("kern.kabu-stamp*")] == ["kern.kabu-stamp"]


def test_a_read_only_source_folder_caches_in_the_user_folder() -> None:
    prefix = _unprivileged()
    # pytest's tmp_path sits in a folder only root may enter: a world-readable one for ``nobody``
    tmp_path = Path(tempfile.mkdtemp(prefix="kabu-kernel-"))
    tmp_path.chmod(0o777)  # the user's cache folder lives here: writable by the unprivileged user
    src = tmp_path / "src"
    src.mkdir()
    (src / "kern.py").write_text(textwrap.dedent(_KERNEL))
    (src / "table.py").write_text("VALUE = 3\n")
    src.chmod(0o555)
    user = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path)}
    try:
        out = _run(src, user, prefix)
        assert "value 3 compiled True" in out
        assert str(tmp_path / "cache") in out  # the announced folder is the user's
        assert not (src / "__pycache__").exists()
        assert _run(src, user, prefix).strip() == "value 3 compiled False"
    finally:
        src.chmod(0o755)
        shutil.rmtree(tmp_path, ignore_errors=True)


def test_disabled_jit_runs_plain_python(tmp_path: Path) -> None:
    (tmp_path / "kern.py").write_text(textwrap.dedent(_KERNEL))
    (tmp_path / "table.py").write_text("VALUE = 5\n")
    assert _run(tmp_path, {"NUMBA_DISABLE_JIT": "1"}).strip() == "value 5 compiled False"


def test_importing_the_package_and_making_envs_loads_no_numba() -> None:
    """Nothing compiles (or loads numba) on ``import kabu_envs`` or ``env()``: kernels are for batches."""
    code = (
        "import sys, kabu_envs\n"
        "from kabu_envs import registry\n"
        "for spec in registry.games():\n"
        "    env = spec.make_env()\n"
        "    env.reset(seed=0)\n"
        "assert 'numba' not in sys.modules, 'numba loaded'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)


def test_the_word_state_draws_equal_the_array_state_ones() -> None:
    """``bounded_word`` / ``shuffle_word`` (a generator state held in a variable: a record's field)
    draw exactly what ``bounded`` / ``shuffle`` draw from a row of a state array, and leave the same
    state behind."""
    state = np.array([kernel.seed_state(np.uint64(7), np.uint64(3), np.uint64(1))], dtype=np.uint64)
    z = state[0]
    for n in (1, 2, 3, 10, 40, 1000, 2**31 + 11):
        j, word = kernel.bounded_word(z, n)
        z = np.uint64(word)  # (a compiled caller keeps it uint64; back in Python it is an int)
        assert j == kernel.bounded(state, 0, n) and z == state[0]
    for n in (0, 1, 2, 5, 40):
        items, words = np.arange(40), np.arange(40)
        kernel.shuffle(state, 0, items, n)
        z = np.uint64(kernel.shuffle_word(z, words, n))
        assert np.array_equal(items, words) and z == state[0]


def test_a_kernel_takes_its_legal_sets_as_one_contiguous_uint64_word_a_row() -> None:
    ok = np.zeros((3, 1), dtype=np.uint64)
    assert kernel.legal_words(ok, 3) is ok
    wide = np.zeros((3, 2), dtype=np.uint64)
    for bad in (np.zeros((3, 1), dtype=np.int64), wide, np.zeros((2, 1), dtype=np.uint64), wide[:, :1]):
        with pytest.raises(ValueError, match="one uint64 word a row"):
            kernel.legal_words(bad, 3)
