"""The kernels with no writable numba cache folder (kabu_envs/core/kernel.py, ``ReadOnlyCacheLocator``).

A copy of the package in a read-only folder, and ``HOME``, ``XDG_CACHE_HOME`` and ``NUMBA_CACHE_DIR``
pointing under a regular file (no folder can be made there, not even by root): numba alone refuses to load
a kernel module (``no locator available``). Every game's batch engine must still import and play, with
one warning naming ``NUMBA_CACHE_DIR``; a warm cache beside the read-only sources is read.

Root writes into read-only folders, so as root the games run as ``nobody`` (``setpriv``); without
``setpriv`` the cold case puts a regular file named ``__pycache__`` in every package folder instead (numba
can neither make nor read a cache there) and the warm case, which needs a readable cache folder, is
skipped."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from numba.core import caching as numba_caching

import kabu_envs
from kabu_envs.core import kernel as core

GAMES = ("kakeya", "oicho_kabu", "toy_card")

_PLAY = """
import sys
import numpy as np
import kabu_envs
from kabu_envs import batch
from kabu_envs.batch.kernel_env import KernelBatchEnv

assert kabu_envs.__file__.startswith(sys.argv[1]), kabu_envs.__file__
for game in sys.argv[2:]:
    env = batch.make(game, batch_size=4)
    assert isinstance(env, KernelBatchEnv), type(env)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    moves = 0
    while (env.current_player >= 0).any() and moves < 400:
        acts = [rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in env.legal_action_mask]
        env.step(np.array(acts))
        assert np.isfinite(env.observation).all()
        moves += 1
    assert moves > 0
    print("played", game, moves, flush=True)
"""


@pytest.fixture
def folder() -> Iterator[Path]:
    """A world-readable scratch folder (pytest's tmp_path sits in a folder only root may enter)."""
    path = Path(tempfile.mkdtemp(prefix="kabu-ro-cache-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        for sub in path.rglob("*"):  # give write back, so the copy can be removed
            if sub.is_dir() and not sub.is_symlink():
                sub.chmod(0o755)
        shutil.rmtree(path, ignore_errors=True)


def _copy_package(folder: Path) -> Path:
    """The package's sources (no caches, no shipped models) copied to ``folder``; returns its root."""
    root = folder / "site"
    source = Path(kabu_envs.__file__).parent
    shutil.copytree(source, root / "kabu_envs", ignore=shutil.ignore_patterns("__pycache__", "models"))
    (folder / "script.py").write_text(_PLAY)
    return root


def _read_only(root: Path) -> None:
    """Every folder of the copy read-only (files stay readable by all)."""
    for sub in [root, *root.rglob("*")]:
        mode = 0o555 if sub.is_dir() else 0o444
        sub.chmod(mode)


def _as_unprivileged() -> tuple[str, ...] | None:
    """The command prefix that makes a read-only folder unwritable: none needed unless root; as root,
    ``nobody`` through ``setpriv`` (None: root without it)."""
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    return None if setpriv is None else (setpriv, "--reuid=65534", "--regid=65534", "--clear-groups")


def _play(
    folder: Path, root: Path, prefix: tuple[str, ...], games: tuple[str, ...] = GAMES
) -> subprocess.CompletedProcess[str]:
    """Play the games' batch engines from the copy with no usable user or numba cache folder."""
    blocker = folder / "not-a-folder"
    if not blocker.exists():
        blocker.write_text("a regular file: nothing can be made under it\n")
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "PYTHON", "XDG_")) and k != "HOME"
    }
    env |= {
        "PYTHONPATH": str(root),
        "PYTHONDONTWRITEBYTECODE": "1",
        "HOME": str(blocker / "home"),
        "XDG_CACHE_HOME": str(blocker / "cache"),
        "NUMBA_CACHE_DIR": str(blocker / "numba"),
        "OMP_NUM_THREADS": "1",
    }
    command = [*prefix, sys.executable, str(folder / "script.py"), str(root), *games]
    return subprocess.run(command, env=env, cwd=folder, capture_output=True, text=True, timeout=1800)


def test_cold_kernels_compile_in_memory_with_one_warning_naming_numba_cache_dir(folder: Path) -> None:
    root = _copy_package(folder)
    prefix = _as_unprivileged()
    if prefix is None:  # root without setpriv: a regular file where each cache folder would go
        for sub in [p for p in (root / "kabu_envs").rglob("*") if p.is_dir()] + [root / "kabu_envs"]:
            (sub / "__pycache__").write_text("")
        prefix = ()
    _read_only(root)
    run = _play(folder, root, prefix)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "no locator available" not in run.stderr
    for game in GAMES:
        assert f"played {game}" in run.stdout
    assert run.stderr.count("RuntimeWarning") == 1, run.stderr  # one warning for every kernel
    assert "Set NUMBA_CACHE_DIR to a writable folder" in run.stderr
    for title in ("Kakeya", "Oicho-Kabu", "Toy Card"):
        assert f"compiling the {title} kernel" in run.stderr
    assert "cached in" not in run.stderr  # (nothing is)
    assert not list(root.rglob("*.nbi")) and not list(root.rglob("*.kabu-stamp"))


def _warm_caches(folder: Path, root: Path, prefix: tuple[str, ...]) -> None:
    """Fill the caches beside the copy's sources, as a package warmed when it was installed holds them:
    one play from the copy while its folders are writable, by the interpreter and user of the runs to
    come (a cache another Python wrote is another build's: its stamp differs)."""
    for sub in [root, *root.rglob("*")]:
        sub.chmod(0o777 if sub.is_dir() else 0o644)
    warm = _play(folder, root, prefix)
    assert warm.returncode == 0, warm.stderr[-3000:]
    assert "cached in" in warm.stderr and "RuntimeWarning" not in warm.stderr, warm.stderr
    assert list(root.rglob("*.nbi")) and list(root.rglob("*.kabu-stamp"))


def _files(root: Path) -> list[tuple[str, bytes]]:
    return sorted((str(p), p.read_bytes()) for p in root.rglob("*") if p.is_file())


def test_a_warm_read_only_cache_beside_the_sources_is_read(folder: Path) -> None:
    prefix = _as_unprivileged()
    if prefix is None:
        pytest.skip("running as root without setpriv: a read-only cache folder cannot be made")
    root = _copy_package(folder)
    _warm_caches(folder, root, prefix)
    _read_only(root)
    before = _files(root)
    run = _play(folder, root, prefix)
    assert run.returncode == 0, run.stderr[-3000:]
    for game in GAMES:
        assert f"played {game}" in run.stdout
    assert "compiling" not in run.stderr and "RuntimeWarning" not in run.stderr, run.stderr  # all read
    assert _files(root) == before
    # a stale cache (another build's stamp) cannot be dropped: it is not read, the kernel compiles
    pycache = root / "kabu_envs" / "toy_card" / "__pycache__"
    pycache.chmod(0o755)
    (pycache / "kernel.kabu-stamp").chmod(0o644)
    (pycache / "kernel.kabu-stamp").write_text("another build")
    _read_only(root)
    before = _files(root)
    stale = _play(folder, root, prefix, games=("toy_card",))
    assert stale.returncode == 0, stale.stderr[-3000:]
    assert "played toy_card" in stale.stdout
    assert "compiling the Toy Card kernel (not cached: no writable cache folder)" in stale.stderr
    assert stale.stderr.count("RuntimeWarning") == 1 and "NUMBA_CACHE_DIR" in stale.stderr
    assert _files(root) == before and stat.S_IMODE(root.stat().st_mode) == 0o555


def test_the_last_resort_serves_this_package_only(tmp_path: Path) -> None:
    """Another project's functions keep numba's own error; the package's get the read-only locator,
    which reads ``__pycache__`` beside the source and makes nothing."""
    outside = tmp_path / "mine.py"
    outside.write_text("def f():\n    return 1\n")
    namespace: dict[str, object] = {}
    exec(compile(outside.read_text(), str(outside), "exec"), namespace)
    assert core.ReadOnlyCacheLocator.from_function(namespace["f"], str(outside)) is None
    inside = core.ReadOnlyCacheLocator.from_function(core.seed_states, core.__file__)
    assert inside is not None
    assert inside.get_cache_path() == str(Path(core.__file__).parent / "__pycache__")
    inside.ensure_cache_path()  # nothing to make, nothing made
    assert core.ReadOnlyCacheLocator in numba_caching.CacheImpl._locator_classes
    assert numba_caching.CacheImpl._locator_classes[-1] is core.ReadOnlyCacheLocator  # numba's first
