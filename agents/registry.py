"""Agent names for the command lines: ``make_agent(game, name, seed, **env_options)``.

Names:
* ``random`` — ``RandomAgent``;
* ``scripted`` — the game's scripted agent (rules of thumb), built with the env's rule options
  so that it reads the same observation layout as the env it plays in;
* ``expert`` — Oicho-Kabu only: the expected-value player (``agents/oicho_expert.py``), the
  reference ceiling of the baselines;
* ``ppo...`` — a shipped or trained model, ``<models_dir>/<name>/`` (``policy.npz`` +
  ``policy.json``; ``models_dir`` defaults to ``models/`` of the repository, or ``$KABU_MODELS_DIR``);
* a model directory or ``policy.json`` path — any policy file (agents/policy_file.py).

A model is checked against the table it will play at (game, ``role`` when given, number of players,
observation and action sizes) and refused with what it was trained for when it does not fit.
SB3 ``.zip`` files are refused (they can carry code); ``python -m training.export`` converts them.
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
    """The ``policy.json`` of a ``ppo...`` name or a path (it must exist)."""
    from agents.ppo_agent import find_policy

    return find_policy(name, models_dir())


def make_agent(
    game: str,
    name: str,
    seed: int | None = None,
    fast: bool = False,
    role: str | None = None,
    **env_options: Any,
) -> Any:
    """Build the agent called ``name`` for ``game`` (raises ValueError on unknown names).

    ``role`` (the seat the agent plays, when the caller knows it) is only used to check models.
    """
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; known: {list(GAMES)}")
    if name == "random":
        return RandomAgent(seed=seed)
    if name == "scripted":
        return _scripted(game, seed, env_options)
    if name == "expert":
        return _expert(game, seed, env_options)
    if name.startswith("ppo") or name.endswith((".zip", ".json")) or Path(name).is_dir():
        from agents.ppo_agent import load_policy_agent

        expect = {"game": game, "role": role, "env_options": env_options}
        return load_policy_agent(name, seed, models_dir=models_dir(), expect=expect)
    raise ValueError(
        f"unknown agent {name!r}; use 'random', 'scripted', 'expert', 'ppo_<model>' or a model directory"
    )


def agent_factory(game: str, name: str, **env_options: Any) -> Callable[[int | None], Any]:
    """A seed -> agent factory, for harnesses that build fresh agents."""
    make_agent(game, name, 0, **env_options)  # fail fast on a bad name
    return lambda seed=None: make_agent(game, name, seed, **env_options)


def shipped_models(prefix: str = "ppo") -> list[str]:
    """Names of the models under ``models_dir()`` (each a dir holding policy.json)."""
    d = models_dir()
    if not d.is_dir():
        return []
    return sorted(p.parent.name for p in d.glob(f"{prefix}*/policy.json"))
