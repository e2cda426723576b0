"""Agent names for the command lines: ``make_agent(game, name, seed, **rule_options)``.

Names:
* ``random`` — ``RandomAgent``, for every game;
* the names a game offers in its registry record (``GameSpec.agents``), e.g. ``scripted`` (rules of
  thumb) and, in Oicho-Kabu, ``expert`` (the expected-value player); each is built with the env's rule
  options so that it reads the same observation layout as the env it plays in;
* ``ppo...`` — a shipped or trained model, ``<models_dir>/<name>/model.zip``
  (``models_dir`` defaults to ``models/`` of the repository, or ``$KABU_MODELS_DIR``);
* ``path/to/model.zip`` — any saved MaskablePPO model.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.base import RandomAgent
from kabu_envs import registry

REPO_ROOT = Path(__file__).resolve().parent.parent


def models_dir() -> Path:
    return Path(os.environ.get("KABU_MODELS_DIR", REPO_ROOT / "models"))


def model_path(name: str) -> Path:
    """Where the model of a ``ppo...`` name or a path lives (it must exist)."""
    p = Path(name)
    candidates = [p] if p.suffix == ".zip" else [models_dir() / name / "model.zip", p / "model.zip"]
    for c in candidates:
        if c.is_file():
            return c
    raise ValueError(f"no model found for agent {name!r}; looked at {[str(c) for c in candidates]}")


def is_model_name(name: str) -> bool:
    """True for names that refer to a trained model rather than a hand-written agent."""
    return name.startswith("ppo") or name.endswith(".zip") or Path(name).is_dir()


def _load_model(name: str, seed: int | None, fast: bool) -> Any:
    from agents.ppo_agent import PPOAgent

    path = model_path(name)
    label = Path(name).stem if name.endswith(".zip") else None
    return PPOAgent(path=path, seed=seed, fast=fast, name=label)


def make_agent(game: str, name: str, seed: int | None = None, fast: bool = False, **rule_options: Any) -> Any:
    """Build the agent called ``name`` for ``game`` (raises ValueError on unknown names)."""
    spec = registry.get(game)
    if not isinstance(name, str):
        raise ValueError(f"an agent name must be a string, got {name!r}")
    if name == "random":
        return RandomAgent(seed=seed)
    if name in spec.agents:
        return registry.resolve(spec.agents[name])(seed=seed, **rule_options)
    if is_model_name(name):
        return _load_model(name, seed, fast)
    raise ValueError(
        f"unknown agent {name!r} for {spec.title}; use one of {list(spec.agent_names)}, "
        f"'ppo_<model>' (a folder under {models_dir()}) or a model .zip path"
    )


def agent_factory(game: str, name: str, **rule_options: Any) -> Callable[[int | None], Any]:
    """A seed -> agent factory, for harnesses that build fresh agents."""
    make_agent(game, name, 0, **rule_options)  # fail fast on a bad name
    return lambda seed=None: make_agent(game, name, seed, **rule_options)


def shipped_models(prefix: str = "ppo") -> list[str]:
    """Names of the models under ``models_dir()`` (each a dir holding model.zip)."""
    d = models_dir()
    if not d.is_dir():
        return []
    return sorted(p.parent.name for p in d.glob(f"{prefix}*/model.zip"))
