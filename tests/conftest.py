"""Fixtures shared by every test folder.

Helper modules that live beside the tests of one folder (``tests/kakeya/kakeya_testlib.py``,
``tests/golden/make_golden.py``) are loaded here by file path and handed to tests in other
folders as fixtures, so that no test edits ``sys.path`` to reach them.
"""

from __future__ import annotations

import atexit
import functools
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

TESTS = Path(__file__).resolve().parent

# The key that seals saved games in progress (kabu_envs.play.seal): one per test process, never the
# user's own; subprocesses (kabu-play, kabu-replay) inherit it.
if not os.environ.get("KABU_PLAY_KEY_FILE"):
    _KEY_DIR = tempfile.mkdtemp(prefix="kabu-test-key-")
    atexit.register(shutil.rmtree, _KEY_DIR, True)
    os.environ["KABU_PLAY_KEY_FILE"] = str(Path(_KEY_DIR) / "saved-games.key")


@functools.cache
def load_helper(relpath: str) -> ModuleType:
    """The helper module ``tests/<relpath>``, executed once per test process.

    It gets a private module name, so it never shadows (nor is shadowed by) the copy that the
    tests of its own folder import by their usual ``from kakeya_testlib import ...``.
    """
    path = TESTS / relpath
    name = "_tests_helper_" + "_".join(Path(relpath).with_suffix("").parts)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load the test helper {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_plain_python(code: str, *paths: Path) -> str:
    """Run ``code`` in a fresh interpreter under ``NUMBA_DISABLE_JIT=1`` (the kernels as plain Python:
    coverage, debugging), from the repository root with ``paths`` first on the import path; its stdout.
    Raises ``CalledProcessError`` (with the child's stderr) when it fails."""
    root = TESTS.parent
    path = os.pathsep.join([*map(str, paths), str(root), *sys.path])
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": path}
    command = [sys.executable, "-W", "ignore::RuntimeWarning", "-c", code]
    return subprocess.run(command, env=env, cwd=root, capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="session")
def plain_python() -> Callable[..., str]:
    """``run_plain_python``: a test's code run once with the kernels as plain Python."""
    return run_plain_python


@pytest.fixture(scope="session")
def kakeya_testlib() -> ModuleType:
    """``tests/kakeya/kakeya_testlib.py``: stacked Kakeya decks from wished hands (``ids``,
    ``deal_order``, ``deck_for``, ...)."""
    return load_helper("kakeya/kakeya_testlib.py")


@pytest.fixture(scope="session")
def golden() -> ModuleType:
    """``tests/golden/make_golden.py``: the golden playthrough cases, ``play`` and ``HERE``."""
    return load_helper("golden/make_golden.py")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test taking ``golden_case`` runs once per case of ``make_golden.CASES`` (by name)."""
    if "golden_case" in metafunc.fixturenames:
        metafunc.parametrize("golden_case", sorted(load_helper("golden/make_golden.py").CASES))
