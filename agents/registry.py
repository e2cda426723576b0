"""Agent names for the command lines: ``make_agent(game, name, seed, **env_options)``.

Names:
* ``random`` — ``RandomAgent``;
* ``scripted`` — the game's scripted agent (rules of thumb), built with the env's rule options
  so that it reads the same observation layout as the env it plays in;
* ``expert`` — Oicho-Kabu only: the expected-value player (``agents/oicho_expert.py``), the
  reference ceiling of the baselines;
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

GAMES = ("oicho_kabu", "kakeya", "toy")
REPO_ROOT = Path(__file__).resolve().parent.parent


def models_dir() -> Path:
    return Path(os.environ.get("KABU_MODELS_DIR", REPO_ROOT / "models"))


def _scripted(game: str, seed: int | None, env_options: dict[str, Any]) -> Any:
    if game == "oicho_kabu":
        from agents.oicho_scripted import OichoScriptedAgent

        return OichoScriptedAgent(seed=seed, **env_options)
    if game == "kakeya":
        from agents.kakeya_scripted import KakeyaScriptedAgent

        return KakeyaScriptedAgent(seed=seed, **env_options)
    from kabu_envs.wrappers.toy_env import ToyScriptedAgent

    return ToyScriptedAgent(seed=seed)


def _expert(game: str, seed: int | None, env_options: dict[str, Any]) -> Any:
    if game != "oicho_kabu":
        raise ValueError(f"agent 'expert' exists for oicho_kabu only, not {game!r}; use 'scripted'")
    from agents.oicho_expert import OichoExpertAgent

    return OichoExpertAgent(seed=seed, **env_options)


def model_path(name: str) -> Path:
    """Where the model of a ``ppo...`` name or a path lives (it must exist)."""
    p = Path(name)
    candidates = [p] if p.suffix == ".zip" else [models_dir() / name / "model.zip", p / "model.zip"]
    for c in candidates:
        if c.is_file():
            return c
    raise ValueError(f"no model found for agent {name!r}; looked at {[str(c) for c in candidates]}")


def make_agent(game: str, name: str, seed: int | None = None, fast: bool = False, **env_options: Any) -> Any:
    """Build the agent called ``name`` for ``game`` (raises ValueError on unknown names)."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; known: {list(GAMES)}")
    if name == "random":
        return RandomAgent(seed=seed)
    if name == "scripted":
        return _scripted(game, seed, env_options)
    if name == "expert":
        return _expert(game, seed, env_options)
    if name.startswith("ppo") or name.endswith(".zip") or Path(name).is_dir():
        from agents.ppo_agent import PPOAgent

        path = model_path(name)
        label = Path(name).stem if name.endswith(".zip") else None
        return PPOAgent(path=path, seed=seed, fast=fast, name=label)
    raise ValueError(
        f"unknown agent {name!r}; use 'random', 'scripted', 'expert', 'ppo_<model>' or a model .zip path"
    )


def agent_factory(game: str, name: str, **env_options: Any) -> Callable[[int | None], Any]:
    """A seed -> agent factory, for harnesses that build fresh agents."""
    make_agent(game, name, 0, **env_options)  # fail fast on a bad name
    return lambda seed=None: make_agent(game, name, seed, **env_options)


def shipped_models(prefix: str = "ppo") -> list[str]:
    """Names of the models under ``models_dir()`` (each a dir holding model.zip)."""
    d = models_dir()
    if not d.is_dir():
        return []
    return sorted(p.parent.name for p in d.glob(f"{prefix}*/model.zip"))
