"""Training configs: YAML files in training/configs/, merged over the defaults below.

A config names the game and the learner's role, the rule options, the opponent mix
(weights of "random", "scripted", "expert" and frozen self-play snapshots), PPO
hyperparameters and the budget. Unknown keys raise, so a typo never trains silently
with a default.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

CONFIG_DIR = Path(__file__).resolve().parent / "configs"

DEFAULTS: dict[str, Any] = {
    "name": None,
    "game": None,  # oicho_kabu | kakeya | toy
    "role": None,  # oicho_kabu: bettor | dealer; kakeya: partnership; toy: seat
    "partner": "self",  # kakeya: "self" (learner plays both seats) or "pool"
    "env_options": {},
    "seed": 0,
    "timesteps": 100_000,
    "n_envs": 4,
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
}

FIXED_AGENTS = ("random", "scripted", "expert")  # agents/registry.py names ("expert": Oicho-Kabu)
GAME_ROLES = {"oicho_kabu": ("bettor", "dealer"), "kakeya": ("partnership",), "toy": ("seat",)}


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


def presets() -> list[str]:
    return sorted(p.stem for p in CONFIG_DIR.glob("*.yaml"))


def load_config(source: str | Path | dict[str, Any], **overrides: Any) -> dict[str, Any]:
    """Resolve a preset name, a YAML path or a dict into a full, validated config."""
    if isinstance(source, dict):
        raw = source
    else:
        p = Path(source)
        if not p.is_file():
            p = CONFIG_DIR / f"{source}.yaml"
        if not p.is_file():
            raise ValueError(f"no config file or preset {str(source)!r}; presets: {presets()}")
        raw = yaml.safe_load(p.read_text()) or {}
    cfg = _merge(DEFAULTS, raw)
    cfg = _merge(cfg, {k: v for k, v in overrides.items() if v is not None})
    validate(cfg)
    return cfg


def validate(cfg: dict[str, Any]) -> None:
    if cfg["game"] not in GAME_ROLES:
        raise ValueError(f"config 'game' must be one of {sorted(GAME_ROLES)}, got {cfg['game']!r}")
    if cfg["role"] not in GAME_ROLES[cfg["game"]]:
        raise ValueError(f"role {cfg['role']!r} is not a role of {cfg['game']}: {GAME_ROLES[cfg['game']]}")
    if not cfg["name"]:
        raise ValueError("config needs a 'name' (the model directory name, e.g. ppo_oicho_bettor)")
    if not cfg["opponents"] and cfg["self_play"]["weight"] <= 0:
        raise ValueError("config needs opponents or a positive self_play.weight")
    for name, w in cfg["opponents"].items():
        if name not in FIXED_AGENTS and not str(name).startswith("ppo"):
            raise ValueError(f"unknown opponent {name!r} in config")
        if w < 0:
            raise ValueError(f"opponent weight for {name!r} is negative")
    bc = cfg["bc"]
    if bc["teacher"] is not None:
        t = str(bc["teacher"])
        if t not in FIXED_AGENTS and not t.startswith("ppo"):
            raise ValueError(f"unknown bc.teacher {t!r}; use one of {FIXED_AGENTS} or a 'ppo_...' model")
        if int(bc["steps"]) <= 0 or int(bc["epochs"]) <= 0 or int(bc["batch_size"]) <= 0 or bc["lr"] <= 0:
            raise ValueError(f"bc.steps, bc.epochs, bc.batch_size and bc.lr must be positive: {bc}")
        if not 0.0 <= float(bc["smoothing"]) < 1.0:
            raise ValueError(f"bc.smoothing must be in [0, 1), got {bc['smoothing']!r}")
        if cfg["init_from"]:
            raise ValueError("bc and init_from exclude each other (both set the starting policy)")
    if int(cfg["timesteps"]) <= 0 or int(cfg["n_envs"]) <= 0:
        raise ValueError("timesteps and n_envs must be positive")
