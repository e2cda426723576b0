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
* ``path/to/file.py:ClassName`` or ``package.module:ClassName`` — a user's class, built with ``seed=``
  when its constructor takes it, else with no argument; it needs only ``act(observation, action_mask) ->
  int`` (adapted once by ``agents.base.as_agent``), or it is a ``BaseAgent``. The file is the user's own
  code, named on the command line: it is imported as any module is (``load_user_class``);
* ``<family>:<rest>`` — an agent of a family registered in the ``kabu_envs.agents`` entry-point group (the
  entry's name is the family, its object a factory ``(game, name, seed, **rule_options) -> agent``), e.g.
  ``openspiel:<bot>[:key=value,...]``, an OpenSpiel search bot (``ismcts``, ``pimc``) with its parameters:
  ``openspiel:ismcts:simulations=200,worlds=16`` (values read as JSON; needs the ``openspiel`` extra;
  ``kabu_envs.openspiel.bots``, docs/openspiel.md). The families register themselves, so this module
  imports none of them (and an optional dependency they need is imported only when one is named).

A model is checked against the table it will play at (game, ``role`` when given, number of players,
observation and action sizes) and refused with what it was trained for when it does not fit.
SB3 ``.zip`` files are refused (they can carry code); ``python -m kabu_envs.training.export`` converts them.
"""

from __future__ import annotations

import json
import os
from importlib import metadata
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
    if is_user_class(name):
        return as_agent(build_user_agent(load_user_class(name), seed))
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
    if colon and base in agent_families():
        return as_agent(_family_agent(base, name)(game, name, seed, **rule_options))
    if is_model_name(name):
        from kabu_envs.agents.ppo_agent import load_policy_agent

        expect = {"game": game, "role": role, "env_options": rule_options}
        try:
            return load_policy_agent(name, seed, models_dir=models_dir(), expect=expect)
        except ValueError as exc:
            if not str(exc).startswith("no model found"):
                raise
            raise ValueError(
                f"{exc}; {spec.title} offers {list(spec.agent_names)} and the shipped {spec.title} models "
                f"{shipped_models(game)}"
            ) from None
    raise ValueError(
        f"unknown agent {name!r} for {spec.title}; use one of {list(spec.agent_names)}, "
        f"a shipped {spec.title} model {shipped_models(game)} (a folder under {models_dir()}), a model "
        "directory" + "".join(f" or '{family}:...'" for family in sorted(agent_families()))
    )


AGENT_FAMILIES = "kabu_envs.agents"  # the entry-point group of agent families (``<family>:<rest>`` names)


def agent_families() -> dict[str, metadata.EntryPoint]:
    """The registered agent families: name -> entry point (not loaded: loading may need an extra).
    Read distribution by distribution (the first of a name wins), so a stale ``kabu_envs.egg-info`` that
    an in-tree build left in the working directory does not hide the installed package's entries."""
    found: dict[str, metadata.EntryPoint] = {}
    for dist in metadata.distributions():
        for ep in dist.entry_points.select(group=AGENT_FAMILIES):
            found.setdefault(ep.name, ep)
    return found


def is_user_class(name: str) -> bool:
    """``file.py:Class`` or ``package.module:Class``: a user's class (not a game agent's parameters, not a
    family: those names hold no dot before their colon)."""
    where, colon, attr = name.rpartition(":")
    return bool(colon) and attr.isidentifier() and (where.endswith(".py") or "." in where.split(":")[0])


def load_user_class(name: str) -> type:
    """The class a ``file.py:Class`` / ``package.module:Class`` spec names; a clear ValueError when the
    file, the module or the class is missing (the message names what was looked for)."""
    import importlib
    import importlib.util
    import sys

    where, _, attr = name.rpartition(":")
    if where.endswith(".py"):
        path = Path(where).expanduser()
        if not path.is_file():
            raise ValueError(f"agent {name!r}: no file {str(path)!r}")
        module_name = f"kabu_user_agent_{abs(hash(str(path.resolve())))}"
        loader_spec = importlib.util.spec_from_file_location(module_name, path)
        if loader_spec is None or loader_spec.loader is None:
            raise ValueError(f"agent {name!r}: {str(path)!r} cannot be imported as a Python file")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[module_name] = module  # (dataclasses and pickling-free helpers look it up)
        loader_spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as exc:
            raise ValueError(f"agent {name!r}: cannot import {where!r} ({exc})") from None
    cls = getattr(module, attr, None)
    if not isinstance(cls, type):
        found = sorted(k for k, v in vars(module).items() if isinstance(v, type) and not k.startswith("_"))
        raise ValueError(f"agent {name!r}: {where!r} has no class {attr!r}; its classes: {found}")
    return cls


def build_user_agent(cls: type, seed: int | None) -> Any:
    """``cls(seed=seed)`` when its constructor takes ``seed``, else ``cls()`` (then ``reset(seed)`` if it
    has one): the two constructors a user's agent may have."""
    import inspect

    try:
        takes_seed = "seed" in inspect.signature(cls).parameters
    except (TypeError, ValueError):
        takes_seed = False
    agent = cls(seed=seed) if takes_seed else cls()
    if not takes_seed and callable(getattr(agent, "reset", None)):
        agent.reset(seed)
    return agent


def _family_agent(family: str, name: str) -> Any:
    """The factory of ``family``; a missing optional dependency is a ``ValueError`` naming the extra."""
    ep = agent_families()[family]
    try:
        return ep.load()
    except ImportError as exc:
        dist = ep.dist.name if ep.dist is not None else "kabu-envs"
        extras = f"[{','.join(ep.extras)}]" if ep.extras else ""
        raise ValueError(
            f"agent {name!r} needs its family's dependencies: pip install '{dist}{extras}' ({exc})"
        ) from None


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


def shipped_models(game: str | None = None) -> list[str]:
    """Names of the models under ``models_dir()`` (each a dir holding policy.json), whatever their name;
    with ``game``, only those whose record says they were trained for it (what an error may offer)."""
    d = models_dir()
    if not d.is_dir():
        return []
    found = sorted(d.glob("*/policy.json"))
    return [p.parent.name for p in found if game is None or _trained_for_game(p) == game]


def _trained_for_game(record: Path) -> str | None:
    """The game a policy file's record names (None when it cannot be read)."""
    try:
        game = json.loads(record.read_text())["trained_for"]["game"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return game if isinstance(game, str) else None
