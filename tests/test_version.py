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


ROOT = PYPROJECT.parent


def test_the_licence_file_is_the_licence_pyproject_declares():
    tomllib = pytest.importorskip("tomllib")
    declared = tomllib.loads(PYPROJECT.read_text())["project"]["license"]["text"]
    text = (ROOT / "LICENSE").read_text()
    assert declared == "MIT" and text.startswith("MIT License"), (declared, text[:40])
    assert "Permission is hereby granted, free of charge" in text


def test_the_citation_file_names_this_version_and_licence():
    """CITATION.cff (GitHub's "Cite this repository") must follow a version bump."""
    yaml = pytest.importorskip("yaml")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0"
    assert cff["license"] == "MIT"
    assert cff["title"].startswith("kabu-envs") and cff["authors"]
    assert str(cff["version"]) == kabu_envs.__version__
