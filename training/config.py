"""Training configs: YAML files merged over the defaults below.

Presets are the YAML files each game ships in its own package (``GameSpec.folder(PRESETS)``, i.e.
``kabu_envs/<game>/presets/``). A config names the game and the learner's role (both checked against
the game registry), the rule options, the opponent mix (weights of the game's named agents, e.g.
"random", "scripted", "expert", trained "ppo_..." models, and frozen self-play snapshots), PPO
hyperparameters and the budget. Unknown keys raise, so a typo never trains silently with a default.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from kabu_envs import registry
from kabu_envs.training.outputs import check_name

DEFAULTS: dict[str, Any] = {
    "name": None,
    "game": None,  # a registered game id (kabu_envs.registry)
    "role": None,  # one of the game's roles (its registry record)
    "partner": "self",  # a role of several seats: "self" (learner plays them all) or "pool"
    "env_options": {},
    "seed": 0,
    "timesteps": 100_000,
    "n_envs": 4,
    # games stepped together by one batch engine (training/batch_vec_env.py) instead of n_envs
    # DummyVecEnv copies of the view; null = the views. PPO's rollout is batch_envs * ppo.n_steps.
    "batch_envs": None,
    "reward_scale": 1.0,  # training-only constant scale; reported rewards are never scaled
    "opponents": {"random": 0.2, "scripted": 0.8},  # name -> weight
    "self_play": {"weight": 0.0, "every": 50_000, "max_snapshots": 5},
    "ppo": {
        "learning_rate": 3.0e-4,
        "n_steps": 512,
        "batch_size": 256,
        "n_epochs": 5,
        "gamma": 1.0,
        "gae_lambda": 0.95,
        "clip_range": 0.2,
        "ent_coef": 0.01,
        "vf_coef": 0.5,
        "max_grad_norm": 0.5,
    },
    "policy_kwargs": {"net_arch": [128, 128]},
    "checkpoint_every": 100_000,
    "init_from": None,  # a policy file (model dir) to continue training from (its architecture wins)
    "eval_deals": 200,
    # the evaluation curve (training/curve.py): duplicate advantage over fixed references every
    # ``every`` samples (0 = off), on ``deals`` deals, the same deals at every point
    "curve": {"every": 0, "deals": 1000, "opponents": ["scripted"]},
    # behaviour-cloning warm start before PPO (training/bc.py); teacher None = off
    "bc": {
        "teacher": None,
        "steps": 20_000,
        "epochs": 10,
        "lr": 1.0e-3,
        "batch_size": 256,
        "vf_coef": 0.5,
        "smoothing": 0.0,
    },
    # DAgger after the warm start (training/dagger.py): ``iterations`` rounds in which the learner plays
    # (the teacher's action executed with probability beta^k) and the teacher labels ``steps`` new
    # decisions; the policy is refitted on the aggregate. 0 = plain behaviour cloning.
    "dagger": {"iterations": 0, "steps": 50_000, "beta": 0.5, "workers": 1},
}


def _merge(base: dict[str, Any], over: dict[str, Any], where: str = "") -> dict[str, Any]:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if k not in base:
            raise ValueError(f"unknown config key {where}{k!r}; known: {sorted(base)}")
        if isinstance(base[k], dict) and k not in ("env_options", "opponents"):
            if not isinstance(v, dict):
                raise ValueError(f"config key {where}{k!r} must be a mapping, got {v!r}")
            out[k] = _merge(base[k], v, f"{where}{k}.") if base[k] else dict(v)
        else:
            out[k] = copy.deepcopy(v)
    return out


# The folder of a game's package holding its training presets.
PRESETS = "presets"


def preset_dirs() -> list[Path]:
    """Every game's own preset folder."""
    return [d for spec in registry.games() if (d := spec.folder(PRESETS)) is not None]


def preset_files() -> dict[str, Path]:
    """Preset name -> YAML file (a name defined twice raises: presets must be unambiguous)."""
    out: dict[str, Path] = {}
    for d in preset_dirs():
        for p in sorted(d.glob("*.yaml")):
            if p.stem in out:
                raise ValueError(f"training preset {p.stem!r} defined twice: {out[p.stem]} and {p}")
            out[p.stem] = p
    return out


def presets() -> list[str]:
    return sorted(preset_files())


def load_config(source: str | Path | dict[str, Any], **overrides: Any) -> dict[str, Any]:
    """Resolve a preset name, a YAML path or a dict into a full, validated config."""
    if isinstance(source, dict):
        raw = source
    else:
        p = Path(source)
        if not p.is_file():
            p = preset_files().get(str(source), p)
        if not p.is_file():
            raise ValueError(f"no config file or preset {str(source)!r}; presets: {presets()}")
        raw = yaml.safe_load(p.read_text()) or {}
    cfg = _merge(DEFAULTS, raw)
    cfg = _merge(cfg, {k: v for k, v in overrides.items() if v is not None})
    validate(cfg)
    return cfg


def _known_agent(spec: registry.GameSpec, name: Any) -> bool:
    return str(name) in spec.agent_names or str(name).startswith("ppo")


def validate(cfg: dict[str, Any]) -> None:
    if cfg["game"] not in registry.game_ids():
        raise ValueError(f"config 'game' must be one of {registry.game_ids()}, got {cfg['game']!r}")
    spec = registry.get(cfg["game"])
    if cfg["role"] not in spec.role_names:
        raise ValueError(f"role {cfg['role']!r} is not a role of {cfg['game']}: {spec.role_names}")
    if not cfg["name"]:
        raise ValueError("config needs a 'name' (the model directory name, e.g. ppo_oicho_bettor)")
    check_name(cfg["name"])
    if not cfg["opponents"] and cfg["self_play"]["weight"] <= 0:
        raise ValueError("config needs opponents or a positive self_play.weight")
    for name, w in cfg["opponents"].items():
        if not _known_agent(spec, name):
            raise ValueError(
                f"unknown opponent {name!r} in config; {spec.title} offers {list(spec.agent_names)} "
                "and trained 'ppo_...' models"
            )
        if w < 0:
            raise ValueError(f"opponent weight for {name!r} is negative")
    bc = cfg["bc"]
    if bc["teacher"] is not None:
        t = str(bc["teacher"])
        if not _known_agent(spec, t):
            raise ValueError(
                f"unknown bc.teacher {t!r}; use one of {list(spec.agent_names)} or a 'ppo_...' model"
            )
        if int(bc["steps"]) <= 0 or int(bc["epochs"]) <= 0 or int(bc["batch_size"]) <= 0 or bc["lr"] <= 0:
            raise ValueError(f"bc.steps, bc.epochs, bc.batch_size and bc.lr must be positive: {bc}")
        if not 0.0 <= float(bc["smoothing"]) < 1.0:
            raise ValueError(f"bc.smoothing must be in [0, 1), got {bc['smoothing']!r}")
        if cfg["init_from"]:
            raise ValueError("bc and init_from exclude each other (both set the starting policy)")
    _validate_dagger(cfg)
    if int(cfg["timesteps"]) <= 0 or int(cfg["n_envs"]) <= 0:
        raise ValueError("timesteps and n_envs must be positive")
    curve = cfg["curve"]
    if isinstance(curve["every"], bool) or not isinstance(curve["every"], int) or curve["every"] < 0:
        raise ValueError(f"curve.every must be a non-negative integer (0 = off), got {curve['every']!r}")
    if curve["every"] and (not isinstance(curve["deals"], int) or curve["deals"] < 2):
        raise ValueError(f"curve.deals must be an integer >= 2, got {curve['deals']!r}")
    if curve["every"] and not curve["opponents"]:
        raise ValueError("curve.opponents must name at least one reference agent when curve.every > 0")
    for name in curve["opponents"]:
        if not _known_agent(spec, name):
            raise ValueError(f"unknown curve opponent {name!r}; {spec.title} offers {list(spec.agent_names)}")
    be = cfg["batch_envs"]
    if be is not None and (isinstance(be, bool) or not isinstance(be, int) or be <= 0):
        raise ValueError(f"batch_envs must be a positive integer or null (the views), got {be!r}")


def _validate_dagger(cfg: dict[str, Any]) -> None:
    d = cfg["dagger"]
    for key in ("iterations", "steps", "workers"):
        v = d[key]
        if isinstance(v, bool) or not isinstance(v, int) or v < (0 if key == "iterations" else 1):
            low = "a non-negative" if key == "iterations" else "a positive"
            raise ValueError(f"dagger.{key} must be {low} integer, got {v!r}")
    if isinstance(d["beta"], bool) or not isinstance(d["beta"], (int, float)) or not 0.0 <= d["beta"] <= 1.0:
        raise ValueError(f"dagger.beta must be a number in [0, 1], got {d['beta']!r}")
    if d["iterations"] and cfg["bc"]["teacher"] is None:
        raise ValueError(
            "dagger.iterations > 0 needs a bc.teacher (the teacher that labels the learner's states)"
        )
