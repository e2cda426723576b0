"""What an installed kabu-envs offers a fresh interpreter (no project imports beforehand)."""

from __future__ import annotations

import hashlib
import importlib
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

import kabu_envs

# Python 3.11's tomllib, else pip's copy of the same parser
tomllib = importlib.import_module("tomllib" if sys.version_info >= (3, 11) else "pip._vendor.tomli")


def test_gymnasium_make_with_the_module_prefix_needs_no_import() -> None:
    """Gymnasium 1.x has no plugin entry points; ``module:id`` imports the registering module first."""
    code = (
        "import sys, gymnasium\n"
        "assert 'kabu_envs' not in sys.modules\n"
        "env = gymnasium.make('kabu_envs.wrappers:kabu_envs/Kakeya-v2')\n"
        "obs, info = env.reset(seed=0)\n"
        "print(obs.shape[0], env.action_space.n)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    size, actions = (int(x) for x in out.stdout.split())
    assert size > 0 and actions > 0


def test_the_package_is_typed() -> None:
    """PEP 561 marker, so users' type checkers read kabu_envs' hints."""
    assert (Path(kabu_envs.__file__).parent / "py.typed").is_file()


# ---------------------------------------------------------------------------------------------------
# The runtime install: a wheel of this checkout in a fresh venv, no extras (so no torch)

REPO = Path(__file__).resolve().parent.parent
# what the wheel is built from: the checkout minus what is not source (venvs, outputs, caches)
NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv*", "runs", "reports", "build", "dist", "*.egg-info", "__pycache__", ".*_cache"
)
KAKEYA_EVAL = ["--game", "kakeya", "--agents", "ppo_kakeya", "--opponents", "random", "--deals", "20"]


def _clean_env() -> dict[str, str]:
    """This environment without ``PYTHONPATH``: the runtime venv must import its installed wheel, not a
    checkout that a developer's ``PYTHONPATH`` points at."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def _run(cmd: list[str | Path], **kw: object) -> subprocess.CompletedProcess[str]:
    kw.setdefault("env", _clean_env())
    out = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600, **kw)
    assert out.returncode == 0, f"{cmd}:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
    return out


@pytest.fixture(scope="module")
def runtime_venv(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A fresh venv holding only the wheel of this checkout and its runtime dependencies."""
    root = tmp_path_factory.mktemp("runtime")
    src = root / "src"
    shutil.copytree(REPO, src, symlinks=True, ignore=NOT_SOURCE)
    # built with this venv's setuptools (no build isolation: nothing to download for the build)
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", root, src])
    (wheel,) = root.glob("kabu_envs-*.whl")
    venv = root / "venv"
    _run([sys.executable, "-m", "venv", venv])
    py = venv / "bin" / "python"
    _run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check", wheel])
    site = Path(_run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    work = root / "work"  # runs happen away from the checkout, so nothing is imported from it
    work.mkdir()
    return {"wheel": wheel, "venv": venv, "py": py, "site": site, "work": work}


def test_the_wheel_claims_no_generic_top_level_names(runtime_venv: dict[str, Path]) -> None:
    with zipfile.ZipFile(runtime_venv["wheel"]) as whl:
        names = whl.namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"kabu_envs"}
    for module in (
        "agents/base.py",
        "eval/__main__.py",
        "training/__main__.py",
        "models/ppo_kakeya/policy.npz",
        "models/ens_kakeya/policy.json",  # an ensemble: the member it alone carries is one folder deeper
        "models/ens_kakeya/members/endgame_kakeya/policy.npz",
    ):
        assert f"kabu_envs/{module}" in names, module
    # no model file stored twice (a shipped ensemble names the shipped models it plays)
    with zipfile.ZipFile(runtime_venv["wheel"]) as whl:
        digests = [hashlib.sha256(whl.read(n)).hexdigest() for n in names if n.endswith(".npz")]
    assert len(digests) == len(set(digests)) > 5
    installed = {p.name for p in runtime_venv["site"].iterdir()}
    assert not {"agents", "eval", "training"} & installed
    code = "import kabu_envs.agents.base, kabu_envs.eval.plans, kabu_envs.training"
    _run([runtime_venv["py"], "-c", code], cwd=runtime_venv["work"])


# ---------------------------------------------------------------------------------------------------
# No symlinks: pyproject maps the repository's agents/, eval/, training/ folders to kabu_envs.*


def _setuptools_config() -> dict[str, Any]:
    return dict(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"])


def test_git_tracks_no_symlink() -> None:
    """A checkout made without symlinks (``git -c core.symlinks=false clone``, the default on many
    Windows machines) is then this checkout, and installs every package the wheel test finds."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    staged = _run(["git", "-C", REPO, "ls-files", "-s"]).stdout.splitlines()
    assert staged and [line for line in staged if line.startswith("120000 ")] == []


def test_the_package_list_is_every_folder_with_an_init() -> None:
    """pyproject lists the packages (a mapped folder cannot be found by setuptools' ``find``): each
    listed package is a folder with an ``__init__.py`` and each such folder is listed."""
    config = _setuptools_config()
    mapped = dict(config["package-dir"])
    assert mapped == {f"kabu_envs.{d}": d for d in ("agents", "eval", "training")}

    def folder(package: str) -> Path:
        for prefix, where in sorted(mapped.items(), key=lambda kv: -len(kv[0])):
            if package == prefix or package.startswith(prefix + "."):
                return REPO / where / package[len(prefix) + 1 :].replace(".", "/")
        return REPO / package.replace(".", "/")

    listed = {folder(p).resolve() for p in config["packages"]}
    found = {
        init.parent.resolve()
        for root in ("kabu_envs", *mapped.values())
        for init in (REPO / root).rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert listed == found
    assert not any(p.is_symlink() for p in (REPO / "kabu_envs").iterdir())


def test_an_editable_install_imports_the_mapped_folders() -> None:
    """In this checkout's venv (``pip install -e .``) ``kabu_envs.agents`` is the repository's agents/."""
    if Path(kabu_envs.__file__).resolve().parent != REPO / "kabu_envs":
        pytest.skip("kabu_envs is not this checkout's (not an editable install)")
    for where in ("agents", "eval", "training"):
        mod = importlib.import_module(f"kabu_envs.{where}")
        assert Path(mod.__file__ or "").resolve() == REPO / where / "__init__.py"


def test_the_runtime_install_has_no_torch(runtime_venv: dict[str, Path]) -> None:
    for mod in ("torch", "stable_baselines3", "sb3_contrib"):
        code = f"import importlib.util; print(importlib.util.find_spec({mod!r}) is None)"
        assert _run([runtime_venv["py"], "-c", code]).stdout.strip() == "True", mod


_ON_TBB = """
import numpy as np
from kabu_envs import batch
from kabu_envs.core import threads
env = batch.make("toy_card", batch_size=threads.PARALLEL_MIN_ROWS, autoreset=True)
env.reset(seed=3)
env.step(np.argmax(env.legal_action_mask, axis=1))
print(threads.layer(), env.rewards.sum())
"""


TBB_WHEELS = sys.platform.startswith("linux") and os.uname().machine == "x86_64"  # (pyproject's marker)


@pytest.mark.skipif(not TBB_WHEELS, reason="tbb is a dependency on Linux x86-64 only")
def test_the_runtime_install_steps_in_parallel_on_tbb(runtime_venv: dict[str, Path]) -> None:
    """pip puts the TBB library in the venv's lib/, off the loader's path: the engines load it themselves,
    so that numba's parallel loops run on TBB (a loaded machine's safe layer) in a plain pip venv, and
    on OpenMP when the user asks for it, with the same games."""
    env = {**_clean_env(), "NUMBA_NUM_THREADS": "2", "NUMBA_CACHE_DIR": str(runtime_venv["work"] / "numba")}
    env.pop("NUMBA_THREADING_LAYER", None)
    on_tbb = _run([runtime_venv["py"], "-c", _ON_TBB], cwd=runtime_venv["work"], env=env).stdout.split()
    omp = {**env, "NUMBA_THREADING_LAYER": "omp"}
    on_omp = _run([runtime_venv["py"], "-c", _ON_TBB], cwd=runtime_venv["work"], env=omp).stdout.split()
    assert on_tbb[0] == "tbb" and on_omp[0] == "omp"
    assert on_tbb[1:] == on_omp[1:]


def test_the_readme_quickstart_runs_on_the_runtime_install(runtime_venv: dict[str, Path]) -> None:
    text = (REPO / "README.md").read_text()
    quickstart = text[text.index("## Quickstart") :]
    quickstart = quickstart[: quickstart.index("\n## ", 1)]
    blocks = re.findall(r"```python\n(.*?)```", quickstart, flags=re.S)
    assert blocks
    for i, block in enumerate(blocks):
        script = runtime_venv["work"] / f"quickstart_{i}.py"
        script.write_text(block)
        _run([runtime_venv["py"], script], cwd=runtime_venv["work"])


def test_kabu_eval_plays_the_shipped_model_on_the_runtime_install(runtime_venv: dict[str, Path]) -> None:
    kabu_eval = runtime_venv["venv"] / "bin" / "kabu-eval"
    out = _run([kabu_eval, *KAKEYA_EVAL], cwd=runtime_venv["work"]).stdout
    assert "ppo_kakeya" in out and "random" in out and "openskill" in out
    where = "import kabu_envs.agents.registry as r; print(r.models_dir())"
    models = Path(_run([runtime_venv["py"], "-c", where], cwd=runtime_venv["work"]).stdout.strip())
    assert models.is_relative_to(runtime_venv["site"]) and (models / "ppo_kakeya" / "policy.json").is_file()
    ens = "from kabu_envs.agents.registry import make_agent as m; print(m('kakeya', 'ens_kakeya').policy)"
    assert "PolicyEnsemble" in _run([runtime_venv["py"], "-c", ens], cwd=runtime_venv["work"]).stdout


def test_kabu_train_without_the_train_extra_says_what_to_install(runtime_venv: dict[str, Path]) -> None:
    kabu_train = runtime_venv["venv"] / "bin" / "kabu-train"
    out = subprocess.run(
        [kabu_train, "kakeya"], capture_output=True, text=True, cwd=runtime_venv["work"], env=_clean_env()
    )
    assert out.returncode == 2
    assert "'train' extra" in out.stderr and "torch" in out.stderr and 'pip install ".[train]"' in out.stderr


def test_no_code_imports_the_repository_folders_by_their_bare_names() -> None:
    """From the checkout, ``agents`` would import a second copy beside ``kabu_envs.agents``."""
    bare = re.compile(r"^\s*(from|import) (agents|eval|training)\b", re.M)
    roots = ("kabu_envs", "agents", "eval", "training", "tests", "benchmarks")
    offenders = [
        str(path.relative_to(REPO))
        for root in roots
        for path in (REPO / root).rglob("*.py")
        if bare.search(path.read_text())
    ]
    assert offenders == []


def test_frames_render_on_the_runtime_install(runtime_venv: dict[str, Path]) -> None:
    """pillow is a runtime dependency: ``render_mode="rgb_array"`` works without any extra."""
    code = (
        "from kabu_envs import kakeya_v2, oicho_kabu_v1\n"
        "for make in (kakeya_v2.env, oicho_kabu_v1.env):\n"
        "    env = make(render_mode='rgb_array')\n"
        "    env.reset(seed=0)\n"
        "    frame = env.render()\n"
        "    print(frame.shape, frame.dtype)\n"
    )
    out = _run([runtime_venv["py"], "-c", code], cwd=runtime_venv["work"]).stdout.split("\n")
    assert out[:2] == ["(640, 1090, 3) uint8", "(560, 900, 3) uint8"]


def test_kabu_play_and_kabu_replay_on_the_runtime_install(runtime_venv: dict[str, Path]) -> None:
    """The console scripts exist, a game is played through stdin and replayed, and the web page's
    files (package data) are served from the installed package."""
    bin_ = runtime_venv["venv"] / "bin"
    record = runtime_venv["work"] / "toy.json"
    play = [bin_ / "kabu-play", "--game", "toy_card", "--seed", "1", "--record", record]
    out = subprocess.run(
        play, input="1\n", capture_output=True, text=True, cwd=runtime_venv["work"], env=_clean_env()
    )
    assert out.returncode == 0 and "=== match summary ===" in out.stdout, out.stderr
    assert "replayed exactly" in _run([bin_ / "kabu-replay", record], cwd=runtime_venv["work"]).stdout
    code = (
        "import json, threading, urllib.request\n"
        "from kabu_envs.play.web import make_server\n"
        "srv = make_server(port=0)\n"
        "threading.Thread(target=srv.serve_forever, daemon=True).start()\n"
        "url = f'http://127.0.0.1:{srv.server_address[1]}'\n"
        "for page in ('/', '/static/app.js', '/static/style.css'):\n"
        "    print(page, len(urllib.request.urlopen(url + page).read()) > 500)\n"
        "srv.shutdown()\n"
    )
    shown = _run([runtime_venv["py"], "-c", code], cwd=runtime_venv["work"]).stdout.split("\n")
    assert shown[:3] == ["/ True", "/static/app.js True", "/static/style.css True"]
