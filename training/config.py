"""Training configs: YAML files merged over the defaults, resolved into one typed ``TrainConfig``.

Presets are the YAML files each game ships in its own package (``GameSpec.folder(PRESETS)``, i.e.
``kabu_envs/<game>/presets/``). A config names the game and the learner's role (both checked against
the game registry), the rule options, the opponent mix (weights of the game's named agents, e.g.
"random", "scripted", "expert", trained "ppo_..." models, and frozen self-play snapshots), PPO
hyperparameters and the budget. Unknown keys raise, so a typo never trains silently with a default.

Why a dataclass: the keys are declared once, with their defaults and types, and every consumer reads
attributes that mypy checks instead of indexing a ``dict[str, Any]`` by strings. ``load_config``
merges the layers (the defaults, the YAML or dict, the command line's overrides) and builds the
config, which validates itself whole when it is made (``TrainConfig.__post_init__``): a wrong key,
type or value raises ``ValueError`` naming the key. ``to_dict()`` is the resolved config as plain
JSON data, key for key what the run record (``run.json``) stores.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from kabu_envs import registry
from kabu_envs.training.outputs import check_name


@dataclass(frozen=True)
class SelfPlay:
    """Frozen copies of the learner join the opponent pool: every ``every`` steps, sharing ``weight``,
    at most ``max_snapshots`` of them."""

    weight: float = 0.0
    every: int = 50_000
    max_snapshots: int = 5


@dataclass(frozen=True)
class PPOSettings:
    """MaskablePPO's hyperparameters, named as Stable-Baselines3 names its keyword arguments."""

    learning_rate: float = 3.0e-4
    n_steps: int = 512
    batch_size: int = 256
    n_epochs: int = 5
    gamma: float = 1.0
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5

    def kwargs(self) -> dict[str, Any]:
        """The keyword arguments of ``MaskablePPO(...)``."""
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class PolicyKwargs:
    """The policy network of a fresh model (``init_from``'s architecture and features win over it).

    ``features``: policy features the network gets after the observation, a name the game declares
    (agents/features.py, e.g. Kakeya's "cards"); None = the observation alone."""

    net_arch: list[int] = field(default_factory=lambda: [128, 128])
    features: str | None = None


@dataclass(frozen=True)
class Curve:
    """The evaluation curve (training/curve.py): duplicate advantage over fixed references every
    ``every`` samples (0 = off), on ``deals`` deals, the same deals at every point."""

    every: int = 0
    deals: int = 1000
    opponents: list[str] = field(default_factory=lambda: ["scripted"])


@dataclass(frozen=True)
class BehaviourCloning:
    """The behaviour-cloning warm start before PPO (training/bc.py); ``teacher`` None = off."""

    teacher: str | None = None
    steps: int = 20_000
    epochs: int = 10
    lr: float = 1.0e-3
    batch_size: int = 256
    vf_coef: float = 0.5
    smoothing: float = 0.0
    # soft targets: softmax of the teacher's action values / temperature (0: the teacher's action only)
    temperature: float = 0.0
    # the learning rate over a fit's steps: "none" (constant) or "cosine" (from lr down to 0 at the end)
    lr_decay: str = "none"
    # the share of each collected batch (its last rows) held out of the fit: the epoch whose policy
    # agrees best with the teacher there is kept (0: no held-out rows, the last epoch is kept)
    holdout: float = 0.0


LR_DECAYS = ("none", "cosine")


@dataclass(frozen=True)
class DaggerRound:
    """One DAgger round's overrides (``dagger.rounds``); None keeps the default: ``dagger.steps``
    decisions, the teacher's share ``dagger.beta ** k``, the run's ``opponents``."""

    steps: int | None = None
    beta: float | None = None
    opponents: dict[str, float] | None = None


@dataclass(frozen=True)
class DaggerRefit:
    """The refit after each DAgger round, from the current weights: its own ``epochs`` and ``lr`` (None:
    ``bc.epochs`` / ``bc.lr``); a warm refit needs fewer passes and a smaller step than the first fit."""

    epochs: int | None = None
    lr: float | None = None


def _cores() -> int:
    """numba's thread setting (``NUMBA_NUM_THREADS``, else the cores): the default collection workers."""
    from kabu_envs.eval.parallel import default_workers

    return default_workers()


@dataclass(frozen=True)
class Dagger:
    """DAgger after the warm start (training/dagger.py): ``iterations`` rounds in which the learner plays
    (the teacher's action executed with probability beta^k) and the teacher labels ``steps`` new
    decisions; the policy is refitted on the aggregate. 0 = plain behaviour cloning."""

    iterations: int = 0
    steps: int = 50_000
    beta: float = 0.5
    # the collection's shares (worker w: its own seeds and steps / workers, so the decisions depend on
    # it); default numba's thread setting (the cores), resolved here and recorded in run.json
    workers: int = field(default_factory=lambda: _cores())
    # per-round overrides (steps, beta, opponents), one per iteration; [] = every round the defaults
    rounds: list[DaggerRound] = field(default_factory=list)
    refit: DaggerRefit = field(default_factory=DaggerRefit)
    # labelled decisions of an earlier run (its work/dagger/iter_<k>/decisions.npz files) joined to the
    # aggregate before the first fit: a run that continues ``init_from``'s network keeps what it learnt on
    aggregate: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        # the YAML gives plain mappings: build the nested records (their keys and types checked here)
        if not isinstance(self.rounds, list):
            raise ValueError(
                f"config key 'dagger.rounds' must be a list of mappings (steps, beta, opponents), "
                f"got {self.rounds!r}"
            )
        rounds = [_nested(DaggerRound, r, f"dagger.rounds[{i}].") for i, r in enumerate(self.rounds)]
        object.__setattr__(self, "rounds", rounds)
        object.__setattr__(self, "refit", _nested(DaggerRefit, self.refit, "dagger.refit."))

    def schedule(self, opponents: dict[str, float]) -> list[DaggerRound]:
        """Every round resolved, ``iterations`` of them: its steps, beta and opponent mix (``opponents``
        is the run's mix, the default)."""
        out = []
        for k in range(1, self.iterations + 1):
            r = self.rounds[k - 1] if self.rounds else DaggerRound()
            out.append(
                DaggerRound(
                    self.steps if r.steps is None else r.steps,
                    float(self.beta) ** k if r.beta is None else r.beta,
                    dict(opponents if r.opponents is None else r.opponents),
                )
            )
        return out


@dataclass(frozen=True)
class TrainConfig:
    """One training run, resolved and valid (see the module docstring). Fields in the run record's order."""

    name: str  # the model directory name, e.g. ppo_oicho_bettor
    game: str  # a registered game id (kabu_envs.registry)
    role: str  # one of the game's roles (its registry record)
    partner: str = "self"  # a role of several seats: "self" (learner plays them all) or "pool"
    env_options: dict[str, Any] = field(default_factory=dict)  # rule options (the game's Config checks)
    seed: int = 0
    timesteps: int = 100_000
    n_envs: int = 4
    # games stepped together by one batch engine (training/batch_vec_env.py) instead of n_envs
    # DummyVecEnv copies of the view; None = the views. PPO's rollout is batch_envs * ppo.n_steps.
    batch_envs: int | None = None
    reward_scale: float = 1.0  # training-only constant scale; reported rewards are never scaled
    opponents: dict[str, float] = field(default_factory=lambda: {"random": 0.2, "scripted": 0.8})
    self_play: SelfPlay = field(default_factory=SelfPlay)
    ppo: PPOSettings = field(default_factory=PPOSettings)
    policy_kwargs: PolicyKwargs = field(default_factory=PolicyKwargs)
    checkpoint_every: int = 100_000
    init_from: str | None = None  # a policy file (model dir) to continue training from
    eval_deals: int = 200
    curve: Curve = field(default_factory=Curve)
    bc: BehaviourCloning = field(default_factory=BehaviourCloning)
    dagger: Dagger = field(default_factory=Dagger)

    def __post_init__(self) -> None:
        _check_types(self)
        _validate(self)

    def to_dict(self) -> dict[str, Any]:
        """The resolved config as plain JSON data (the run record's ``config``; ``load_config`` reads
        it back)."""
        return dataclasses.asdict(self)


# --- building a config from layers of plain data ------------------------------------------------------
_HINTS: dict[type[Any], dict[str, Any]] = {}


def _hints(cls: type[Any]) -> dict[str, Any]:
    """The field annotations of ``cls``, evaluated once (they are strings in this module's source)."""
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _sections(cls: type[Any]) -> dict[str, type[Any]]:
    """The fields of ``cls`` that are sections (dataclasses of their own): name -> class."""
    hints = _hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls) if dataclasses.is_dataclass(hints[f.name])}


def _overlay(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` on ``base``: a section's keys merge into the section, any other key replaces the value
    (``env_options`` and ``opponents`` are values: a layer gives the whole mapping)."""
    if not isinstance(over, Mapping):
        raise ValueError(f"a training config is a mapping of keys to values, got {over!r}")
    out = copy.deepcopy(base)
    sections = _sections(TrainConfig)
    for key, value in over.items():
        if key in sections:
            if not isinstance(value, Mapping):
                raise ValueError(f"config key {key!r} must be a mapping, got {value!r}")
            out[key] = {**out.get(key, {}), **copy.deepcopy(dict(value))}
        else:
            out[key] = copy.deepcopy(value)
    return out


def _nested(cls: type[Any], value: Any, where: str) -> Any:
    """A record inside a section (``dagger.refit``, each of ``dagger.rounds``) from its mapping: unknown
    keys and wrong types raise ``ValueError`` naming the key (``where`` is its path)."""
    if isinstance(value, cls):
        return value
    if not isinstance(value, Mapping):
        raise ValueError(f"config key '{where[:-1]}' must be a mapping, got {value!r}")
    _unknown(cls, value, where)
    hints = _hints(cls)
    for key, v in value.items():
        if not _type_ok(v, hints[key]):
            raise ValueError(f"config key '{where}{key}' must be {_words(hints[key])}, got {v!r}")
    return cls(**copy.deepcopy(dict(value)))


# The folder of a game's package holding its training presets.
PRESETS = "presets"


def _unknown(cls: type[Any], data: Mapping[str, Any], where: str) -> None:
    known = [f.name for f in dataclasses.fields(cls)]
    for key in data:
        if key not in known:
            raise ValueError(f"unknown config key {where}{key!r}; known: {sorted(known)}")


def from_dict(data: Mapping[str, Any]) -> TrainConfig:
    """The config of plain data (a merged layer, or a run record's ``config``); a key it does not name
    takes its default. Raises ``ValueError`` naming a wrong key, type or value."""
    if not isinstance(data, Mapping):
        raise ValueError(f"a training config is a mapping of keys to values, got {data!r}")
    _unknown(TrainConfig, data, "")
    sections = _sections(TrainConfig)
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(TrainConfig):
        if f.name in sections:
            part = data.get(f.name, {})
            if not isinstance(part, Mapping):
                raise ValueError(f"config key {f.name!r} must be a mapping, got {part!r}")
            _unknown(sections[f.name], part, f"{f.name}.")
            kwargs[f.name] = sections[f.name](**copy.deepcopy(dict(part)))
        elif f.name in data:
            kwargs[f.name] = copy.deepcopy(data[f.name])
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            kwargs[f.name] = None  # a required key left out: the validation names it
    return TrainConfig(**kwargs)


# --- checking -----------------------------------------------------------------------------------------
def _type_ok(value: Any, hint: Any) -> bool:
    """Whether ``value`` (plain YAML/JSON data) fits the annotation ``hint`` (an int fits ``float``)."""
    if hint is Any:
        return True
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        return any(_type_ok(value, a) for a in args)
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    if origin is list:
        return isinstance(value, list) and all(_type_ok(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(
            _type_ok(k, args[0]) and _type_ok(v, args[1]) for k, v in value.items()
        )
    return isinstance(value, hint)


_NOUNS: dict[Any, tuple[str, str]] = {
    int: ("an integer", "integers"),
    float: ("a number", "numbers"),
    str: ("a string", "strings"),
    bool: ("true or false", "booleans"),
    type(None): ("null", "nulls"),
    Any: ("a value", "values"),
}


def _words(hint: Any, plural: bool = False) -> str:
    """An annotation in words, for an error message (``a list of integers``)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        return " or ".join(_words(a, plural) for a in args)
    if hint in _NOUNS:
        return _NOUNS[hint][plural]
    if origin is list:
        return ("lists" if plural else "a list") + f" of {_words(args[0], True)}"
    if origin is dict:
        return (
            "mappings" if plural else "a mapping"
        ) + f" of {_words(args[0], True)} to {_words(args[1], True)}"
    return getattr(hint, "__name__", str(hint))


def _check_types(cfg: TrainConfig) -> None:
    """Every value of ``cfg`` and of its sections has its field's type (the YAML can hold anything)."""
    for obj, where in [(cfg, ""), *((getattr(cfg, name), f"{name}.") for name in _sections(TrainConfig))]:
        hints = _hints(type(obj))
        for f in dataclasses.fields(obj):
            value, hint = getattr(obj, f.name), hints[f.name]
            if f.name in ("name", "game", "role") and value is None:
                continue  # left out: _validate says what it must be
            if not _type_ok(value, hint):
                raise ValueError(f"config key '{where}{f.name}' must be {_words(hint)}, got {value!r}")


def _known_agent(spec: registry.GameSpec, name: str) -> bool:
    """A name ``make_agent`` may build: the game's agents (parameters after a ``:`` allowed:
    ``expert:samples=128``), a ``ppo...`` model or a model directory / ``policy.json`` path (the
    exploitability yardstick trains against any frozen agent), or a ``package.module:Class`` agent
    class (a search that is not a registry name yet, as a teacher); a class that cannot be loaded
    raises, naming what was looked for."""
    from kabu_envs.agents.registry import is_model_name, is_user_class, load_user_class

    if is_user_class(name):
        load_user_class(name)
        return True
    return name.partition(":")[0] in spec.agent_names or is_model_name(name)


def _validate(cfg: TrainConfig) -> None:
    """The values and how they go together (the types are checked already)."""
    if cfg.game not in registry.game_ids():
        raise ValueError(f"config 'game' must be one of {registry.game_ids()}, got {cfg.game!r}")
    spec = registry.get(cfg.game)
    if cfg.role not in spec.role_names:
        raise ValueError(f"role {cfg.role!r} is not a role of {cfg.game}: {spec.role_names}")
    if not cfg.name:
        raise ValueError("config needs a 'name' (the model directory name, e.g. ppo_oicho_bettor)")
    check_name(cfg.name)
    try:
        spec.config(**cfg.env_options)
    except (ValueError, TypeError) as exc:  # an unknown option, or a value the game refuses
        raise ValueError(f"config 'env_options' do not fit {spec.title}: {exc}") from None
    from kabu_envs.wrappers.views import PARTNER_MODES

    if cfg.partner not in PARTNER_MODES:
        raise ValueError(f"config 'partner' must be one of {PARTNER_MODES}, got {cfg.partner!r}")
    if not cfg.opponents and cfg.self_play.weight <= 0:
        raise ValueError("config needs opponents or a positive self_play.weight")
    for name, w in cfg.opponents.items():
        if not _known_agent(spec, name):
            raise ValueError(
                f"unknown opponent {name!r} in config; {spec.title} offers {list(spec.agent_names)} "
                "and trained 'ppo_...' models"
            )
        if w < 0:
            raise ValueError(f"opponent weight for {name!r} is negative")
    if cfg.policy_kwargs.features is not None:
        from kabu_envs.agents.features import get_features

        get_features(cfg.game, cfg.policy_kwargs.features)  # an unknown name raises, naming the known
    counts = (
        ("self_play.every", cfg.self_play.every, 1),
        ("self_play.max_snapshots", cfg.self_play.max_snapshots, 0),
        ("checkpoint_every", cfg.checkpoint_every, 1),
    )
    for key, value, low in counts:
        if value < low:
            raise ValueError(f"{key} must be an integer >= {low}, got {value!r}")
    if cfg.self_play.weight < 0:
        raise ValueError(f"self_play.weight is negative: {cfg.self_play.weight!r}")
    if cfg.reward_scale <= 0:
        raise ValueError(f"reward_scale must be positive, got {cfg.reward_scale!r}")
    if cfg.eval_deals < 0:
        raise ValueError(f"eval_deals must be >= 0 (0: no evaluation), got {cfg.eval_deals!r}")
    _validate_bc(cfg, spec)
    _validate_dagger(cfg, spec)
    no_ppo = cfg.timesteps == 0 and cfg.bc.teacher is not None  # the clone is the model
    if (cfg.timesteps <= 0 and not no_ppo) or cfg.n_envs <= 0:
        raise ValueError(
            "timesteps and n_envs must be positive (timesteps 0 = no PPO, only with a bc.teacher: "
            f"the clone is the model), got timesteps={cfg.timesteps!r}, n_envs={cfg.n_envs!r}"
        )
    curve = cfg.curve
    if curve.every < 0:
        raise ValueError(f"curve.every must be a non-negative integer (0 = off), got {curve.every!r}")
    if curve.every and curve.deals < 2:
        raise ValueError(f"curve.deals must be an integer >= 2, got {curve.deals!r}")
    if curve.every and not curve.opponents:
        raise ValueError("curve.opponents must name at least one reference agent when curve.every > 0")
    for name in curve.opponents:
        if not _known_agent(spec, name):
            raise ValueError(f"unknown curve opponent {name!r}; {spec.title} offers {list(spec.agent_names)}")
    if cfg.batch_envs is not None and cfg.batch_envs <= 0:
        raise ValueError(f"batch_envs must be a positive integer or null (the views), got {cfg.batch_envs!r}")
    if any(size <= 0 for size in cfg.policy_kwargs.net_arch):
        raise ValueError(
            f"policy_kwargs.net_arch: layer sizes must be positive, got {cfg.policy_kwargs.net_arch}"
        )


def _validate_bc(cfg: TrainConfig, spec: registry.GameSpec) -> None:
    bc = cfg.bc
    if bc.teacher is None:
        return
    if not _known_agent(spec, bc.teacher):
        raise ValueError(
            f"unknown bc.teacher {bc.teacher!r}; use one of {list(spec.agent_names)}, a 'ppo_...' model or a "
            "'package.module:Class' agent class"
        )
    if bc.steps <= 0 or bc.epochs <= 0 or bc.batch_size <= 0 or bc.lr <= 0:
        raise ValueError(
            f"bc.steps, bc.epochs, bc.batch_size and bc.lr must be positive: {dataclasses.asdict(bc)}"
        )
    if not 0.0 <= bc.smoothing < 1.0:
        raise ValueError(f"bc.smoothing must be in [0, 1), got {bc.smoothing!r}")
    if isinstance(bc.temperature, bool) or not isinstance(bc.temperature, (int, float)) or bc.temperature < 0:
        raise ValueError(f"bc.temperature must be a number >= 0 (0: hard labels), got {bc.temperature!r}")
    if bc.lr_decay not in LR_DECAYS:
        raise ValueError(f"bc.lr_decay must be one of {LR_DECAYS}, got {bc.lr_decay!r}")
    if not 0.0 <= bc.holdout < 0.5:
        raise ValueError(f"bc.holdout must be a share in [0, 0.5) (0: none held out), got {bc.holdout!r}")
    if cfg.init_from and not cfg.dagger.iterations:
        raise ValueError(
            "bc and init_from exclude each other (both set the starting policy); with dagger.iterations > 0 "
            "the DAgger rounds continue init_from's network instead of cloning first"
        )


def _validate_dagger(cfg: TrainConfig, spec: registry.GameSpec) -> None:
    d = cfg.dagger
    for key in ("iterations", "steps", "workers"):
        v = getattr(d, key)
        if v < (0 if key == "iterations" else 1):
            low = "a non-negative" if key == "iterations" else "a positive"
            raise ValueError(f"dagger.{key} must be {low} integer, got {v!r}")
    if not 0.0 <= d.beta <= 1.0:
        raise ValueError(f"dagger.beta must be a number in [0, 1], got {d.beta!r}")
    if d.iterations and cfg.bc.teacher is None:
        raise ValueError(
            "dagger.iterations > 0 needs a bc.teacher (the teacher that labels the learner's states)"
        )
    if d.rounds and len(d.rounds) != d.iterations:
        raise ValueError(
            f"dagger.rounds lists {len(d.rounds)} rounds but dagger.iterations is {d.iterations}: "
            "give one entry per iteration"
        )
    for i, r in enumerate(d.rounds):
        where = f"dagger.rounds[{i}]"
        if r.steps is not None and r.steps < 1:
            raise ValueError(f"{where}.steps must be a positive integer, got {r.steps!r}")
        if r.beta is not None and not 0.0 <= r.beta <= 1.0:
            raise ValueError(f"{where}.beta must be a number in [0, 1], got {r.beta!r}")
        if r.opponents is not None:
            for name, w in r.opponents.items():
                if not _known_agent(spec, name):
                    raise ValueError(
                        f"unknown opponent {name!r} in {where}.opponents; {spec.title} offers "
                        f"{list(spec.agent_names)} and trained 'ppo_...' models"
                    )
                if w < 0:
                    raise ValueError(f"{where}.opponents: the weight of {name!r} is negative")
            if not any(w > 0 for w in r.opponents.values()):
                raise ValueError(f"{where}.opponents needs an opponent with a positive weight")
    if d.aggregate and not d.iterations:
        raise ValueError("dagger.aggregate needs dagger.iterations > 0 (the decisions join a DAgger refit)")
    if d.refit.epochs is not None and d.refit.epochs < 1:
        raise ValueError(f"dagger.refit.epochs must be a positive integer, got {d.refit.epochs!r}")
    if d.refit.lr is not None and d.refit.lr <= 0:
        raise ValueError(f"dagger.refit.lr must be a positive number, got {d.refit.lr!r}")


# --- presets and loading ------------------------------------------------------------------------------
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


# A preset's own key beside the training config (not part of it, not in run.json): how long the preset
# takes, ``estimate: {seconds: N, source: "..."}``, measured (its run.json timings, or a timed run).
ESTIMATE = "estimate"


def _read_yaml(path: Path) -> dict[str, Any]:
    import yaml  # the 'train' extra: reading a run record (load_run_config) needs no YAML

    raw = yaml.safe_load(path.read_text()) or {}
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: a training config is a mapping of keys to values, got {raw!r}")
    return raw


def preset_estimate(name: str) -> dict[str, Any] | None:
    """The preset's ``estimate`` (``seconds`` on 2 cores and where the figure comes from), or None."""
    found = _read_yaml(preset_files()[name]).get(ESTIMATE)
    return dict(found) if isinstance(found, Mapping) else None


def stage_plan(cfg: TrainConfig) -> list[str]:
    """The stages a run goes through, in order, e.g. ``["bc (scripted, 20000 decisions)", "ppo (16384
    steps)"]``: what ``--list`` shows and a run prints first (``timesteps`` is the PPO stage only)."""
    out = []
    if cfg.bc.teacher:
        if not cfg.init_from:
            out.append(f"bc ({cfg.bc.teacher}, {cfg.bc.steps} decisions)")
        if cfg.dagger.iterations:
            rounds = cfg.dagger.schedule(cfg.opponents)
            total = sum(r.steps or 0 for r in rounds)
            out.append(f"dagger ({cfg.dagger.iterations} rounds, {total} decisions)")
    if cfg.timesteps:
        out.append(f"ppo ({cfg.timesteps} steps)")
    return out


def load_config(source: str | Path | Mapping[str, Any], **overrides: Any) -> TrainConfig:
    """Resolve a preset name, a YAML path or a mapping, with ``overrides`` on top (None: not given; a
    section's overrides merge into it), into a full, validated config."""
    if isinstance(source, Mapping):
        raw: Any = source
    else:
        p = Path(source)
        if not p.is_file():
            p = preset_files().get(str(source), p)
        if not p.is_file():
            raise ValueError(f"no config file or preset {str(source)!r}; presets: {presets()}")
        raw = {k: v for k, v in _read_yaml(p).items() if k != ESTIMATE}
    merged = _overlay(_overlay({}, raw), {k: v for k, v in overrides.items() if v is not None})
    return from_dict(merged)


def load_run_config(run_json: str | Path) -> TrainConfig:
    """The config a run record (``run.json`` beside a model) was trained with; a record written before a
    key existed gets that key's default. Raises ``ValueError`` naming the file and the problem."""
    try:
        record = json.loads(Path(run_json).read_text())
        return from_dict(record["config"])
    except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{run_json}: not a readable training run record: {exc}") from None
