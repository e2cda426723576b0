"""The version lives in one place, ``kabu_envs.__version__``; pyproject.toml reads it from there."""

import importlib.metadata
from pathlib import Path

import pytest

import kabu_envs

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def test_installed_metadata_is_the_package_version():
    installed = importlib.metadata.version("kabu-envs")
    assert installed == kabu_envs.__version__, (
        f"installed metadata says {installed}, kabu_envs.__version__ is {kabu_envs.__version__}: "
        "reinstall (make install, or pip install -e .)"
    )


def test_pyproject_takes_the_version_from_the_package():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    config = tomllib.loads(PYPROJECT.read_text())
    assert "version" not in config["project"], "the version is kabu_envs.__version__ only"
    assert "version" in config["project"]["dynamic"]
    assert config["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "kabu_envs.__version__"}
