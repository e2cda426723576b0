"""Agent names for the command lines: ``make_agent(game, name, seed, **rule_options)``.

Names:
* ``random`` — ``RandomAgent``, for every game;
* the names a game offers in its registry record (``GameSpec.agents``), e.g. ``scripted`` (rules of thumb) and
  ``expert`` (Oicho-Kabu's expected-value player, Kakeya's search player); each is built with the env's rule
  options so that it reads the same observation layout as the env it plays in; ``<name>:key=value,...``
  passes the agent its parameters (values read as JSON), e.g. ``expert:samples=128,dd_tricks=3``;
* ``ppo...`` — a shipped or trained model, ``<models_dir>/<name>/`` (``policy.npz`` +
  ``policy.json``; ``models_dir`` is ``$KABU_MODELS_DIR`` when set, else the shipped models,
  ``kabu_envs/models/``, package data that a wheel install carries);
* a model directory or ``policy.json`` path — any policy file (agents/policy_file.py);
* ``openspiel:<bot>[:key=value,...]`` — an OpenSpiel search bot (``ismcts``, ``pimc``) with its parameters,
  e.g. ``openspiel:ismcts:simulations=200,worlds=16`` (values read as JSON; needs the ``openspiel`` extra;
  ``kabu_envs.openspiel.bots``, docs/openspiel.md).

A model is checked against the table it will play at (game, ``role`` when given, number of players,
observation and action sizes) and refused with what it was trained for when it does not fit.
SB3 ``.zip`` files are refused (they can carry code); ``python -m kabu_envs.training.export`` converts them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from kabu_envs import registry
from kabu_envs.agents.base import BaseAgent, RandomAgent, as_agent

# The models shipped with the package (package data: found after a wheel install as in a checkout).
SHIPPED_MODELS = Path(registry.__file__).resolve().parent / "models"


def models_dir() -> Path:
    """Where model names are looked up: ``$KABU_MODELS_DIR``, else the shipped models."""
    return Path(os.environ.get("KABU_MODELS_DIR", SHIPPED_MODELS))


def model_path(name: str) -> Path:
    """The ``policy.json`` of a model name or a path (it must exist)."""
    from kabu_envs.agents.ppo_agent import find_policy

    return find_policy(name, models_dir())


def is_model_name(name: str) -> bool:
    """True for names that refer to a trained model rather than a hand-written agent: a folder under
    ``models_dir()`` (any name: ``ei_kakeya`` as well as ``ppo_kakeya``), any ``ppo...`` name (so a
    missing one is reported as a missing model), a policy file or a model directory."""
    return (
        name.startswith("ppo")
        or name.endswith((".zip", ".json"))
        or Path(name).is_dir()
        or ("/" not in name and (models_dir() / name / "policy.json").is_file())
    )


def make_agent(
    game: str,
    name: str,
    seed: int | None = None,
    fast: bool = False,
    role: str | None = None,
    **rule_options: Any,
) -> BaseAgent:
    """Build the agent called ``name`` for ``game`` (raises ValueError on unknown names).

    ``role`` (the seat the agent plays, when the caller knows it) is only used to check models. A
    game's own agent class that is not a ``BaseAgent`` is adapted (``agents.base.as_agent``).
    """
    spec = registry.get(game)
    if not isinstance(name, str):
        raise ValueError(f"an agent name must be a string, got {name!r}")
    if name == "random":
        return RandomAgent(seed=seed)
    if name in spec.agents:
        return as_agent(registry.resolve(spec.agents[name])(seed=seed, **rule_options))
    base, colon, rest = name.partition(":")
    if colon and base in spec.agents:
        params = parse_params(name, rest)
        clash = sorted(set(params) & set(rule_options))
        if clash:
            raise ValueError(f"agent {name!r}: {clash} are rule options, not the agent's parameters")
        return as_agent(registry.resolve(spec.agents[base])(seed=seed, **rule_options, **params))
    if name.startswith(OPENSPIEL_PREFIX):
        bot, params = parse_openspiel_name(name)
        try:
            from kabu_envs.openspiel.bots import make_bot
        except ImportError as exc:
            raise ValueError(
                f"agent {name!r} needs OpenSpiel: pip install 'kabu-envs[openspiel]' ({exc})"
            ) from None
        return make_bot(game, bot, seed, **params, **rule_options)
    if is_model_name(name):
        from kabu_envs.agents.ppo_agent import load_policy_agent

        expect = {"game": game, "role": role, "env_options": rule_options}
        return load_policy_agent(name, seed, models_dir=models_dir(), expect=expect)
    raise ValueError(
        f"unknown agent {name!r} for {spec.title}; use one of {list(spec.agent_names)}, "
        f"a shipped model {shipped_models()} (a folder under {models_dir()}), a model directory or "
        "'openspiel:<bot>'"
    )


OPENSPIEL_PREFIX = "openspiel:"


def parse_openspiel_name(name: str) -> tuple[str, dict[str, Any]]:
    """``openspiel:<bot>[:key=value,...]`` -> (bot, parameters); each value is JSON (``100``, ``1.5``)."""
    bot, _, rest = name[len(OPENSPIEL_PREFIX) :].partition(":")
    if not bot:
        raise ValueError(f"agent {name!r}: name the bot, e.g. 'openspiel:ismcts'")
    return bot, parse_params(name, rest)


def parse_params(name: str, rest: str) -> dict[str, Any]:
    """``key=value,...`` (the part of an agent name after its ``:``) -> parameters; each value is JSON."""
    params: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        key, sep, text = item.partition("=")
        try:
            if not sep or not key:
                raise ValueError
            params[key] = json.loads(text)
        except ValueError:
            raise ValueError(
                f"agent {name!r}: parameters are key=value pairs with JSON values, got {item!r}"
            ) from None
    return params


def shipped_models() -> list[str]:
    """Names of the models under ``models_dir()`` (each a dir holding policy.json), whatever their name."""
    d = models_dir()
    if not d.is_dir():
        return []
    return sorted(p.parent.name for p in d.glob("*/policy.json"))
