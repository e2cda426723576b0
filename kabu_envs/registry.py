"""The game registry: one ``GameSpec`` record per game, consumed by every tool.

A game package registers itself by holding a module ``registration.py`` that calls
``register(GameSpec(...))`` (the built-in games are found by scanning ``kabu_envs``'s subpackages;
other distributions add games through the ``kabu_envs.games`` entry-point group, each entry a module
or a callable that registers). Evaluation, training, the single-agent views and the command lines
ask the registry — never "which game is this?" — so a new game is one package and one ``register()``,
in the spirit of OpenSpiel's ``pyspiel.register_game`` and Pgx's ``pgx.make(id)``.

Everything in a spec is cheap to import: factories are ``"module:attribute"`` strings resolved on
first use (as Gymnasium's ``entry_point``), so ``import kabu_envs.registry`` pulls in no game engine,
no gymnasium, pettingzoo or torch.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

import numpy as np

# "module:attribute", resolved by ``resolve``.
Ref = str
# A role's seat groups in a reset raw AEC env: each group is what one learner controls together.
SeatGroups = Callable[[Any], list[list[int]]]
# The same for game b of a batch engine (kabu_envs.batch) just reset: (batch_env, b) -> groups.
BatchSeatGroups = Callable[[Any, int], list[list[int]]]
# The same for the games ``rows`` of a batch engine at once: (batch_env, rows) -> (len(rows), G, S) int64
# seats, group g of game k in [k, g] in ``BatchSeatGroups``' order, -1 past a game's groups and seats.
BatchSeatTable = Callable[[Any, Any], Any]

DUPLICATE_FORMATS = ("seat", "team")


def resolve(ref: Ref | Callable[..., Any]) -> Any:
    """The object a ``"module:attribute"`` reference names (callables pass through)."""
    if callable(ref):
        return ref
    module, sep, attr = ref.partition(":")
    if not sep or not module or not attr:
        raise ValueError(f"bad reference {ref!r}; expected 'package.module:attribute'")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class Role:
    """A part of the table a learner or an evaluated agent can take.

    ``seat_groups(raw_env)`` gives, for the deal the env was just reset to, the groups of seats holding
    the role (a bettor role: one group per bettor seat; a partnership: one group per partnership).
    ``duplicate`` is how the duplicate evaluation compares two agents in this role:

    * ``"seat"``: on each deal, group ``deal_index % len(groups)`` is played once by the agent and once
      by the opponent, every other seat by the game's ``reference`` agent; advantage = the difference
      of the first seat's rewards.
    * ``"team"``: the agent plays every group in turn, the opponent all other seats; advantage = the
      mean of the agent's group rewards.

    ``batch_seat_groups(batch_env, b)`` gives the groups of game ``b`` of a vectorised batch engine
    (what the training VecEnv over the batch engine needs); the reference loop ``LoopBatchEnv`` needs
    none (it holds the AEC envs ``seat_groups`` reads). ``batch_seat_table(batch_env, rows)``, optional,
    gives the same groups for many games as one array (``BatchSeatTable``): the VecEnv's restarts read
    it without a Python call per game; without it they read ``batch_seat_groups`` game by game.
    """

    name: str
    seat_groups: Ref | SeatGroups
    duplicate: str
    doc: str = ""
    batch_seat_groups: Ref | BatchSeatGroups | None = None
    batch_seat_table: Ref | BatchSeatTable | None = None

    def __post_init__(self) -> None:
        if self.duplicate not in DUPLICATE_FORMATS:
            raise ValueError(f"role {self.name!r}: duplicate must be one of {DUPLICATE_FORMATS}")

    def groups(self, raw_env: Any) -> list[list[int]]:
        return [list(g) for g in resolve(self.seat_groups)(raw_env)]

    def batch_groups(self, batch_env: Any, b: int) -> list[list[int]]:
        """The groups of game ``b`` of a batch engine just reset (see the class docstring)."""
        envs = getattr(batch_env, "envs", None)  # the reference loop's AEC envs
        if envs is not None:
            return self.groups(envs[b])
        if self.batch_seat_groups is not None:
            return [list(g) for g in resolve(self.batch_seat_groups)(batch_env, b)]
        raise ValueError(
            f"role {self.name!r}: {type(batch_env).__name__} is a vectorised batch engine and the role "
            "declares no batch_seat_groups (its registry record must say how to read the groups of a game "
            "of the batch)"
        )


@dataclass(frozen=True)
class DemoPlan:
    """What ``make demo`` evaluates for a game: data, not code.

    Every shipped model of the game (its role read from its run record) meets each of ``opponents``;
    ``reference_rows`` are extra ``(agent, opponent)`` rows between the hand-written players, in each
    of ``roles``. ``deals`` duplicate deals per matchup; ``sample_title`` heads the rendered sample;
    ``order`` places the game among the others in the reports. ``agent_deals`` names agents too slow for
    ``deals`` (a search player deciding one move at a time): a matchup with one of them plays that many
    deals instead (the smallest, if both are listed), and the demo starts those matchups first.
    """

    roles: tuple[str, ...]
    opponents: tuple[str, ...]
    reference_rows: tuple[tuple[str, str], ...]
    deals: int
    sample_title: str
    order: int = 0  # position of the game in the demo's reports (lower first)
    # gap to a best response (``GameSpec.best_response``): these agents (plus the shipped models of
    # the game) in each of ``roles``, on ``best_response_deals`` deals per role (0: not in the demo)
    best_response_agents: tuple[str, ...] = ()
    best_response_deals: int = 0
    # the same for each richer rule setting a shipped model of the role was trained for (its models
    # and ``best_response_agents`` at that table; fewer deals: those best responses cost more)
    best_response_setting_deals: int = 0
    agent_deals: Mapping[str, int] = field(default_factory=dict)

    def deals_for(self, agent: str, opponent: str) -> int:
        """Duplicate deals of the ``agent`` vs ``opponent`` matchup."""
        return min([self.deals] + [self.agent_deals[a] for a in (agent, opponent) if a in self.agent_deals])


@dataclass(frozen=True)
class Screenshot:
    """A picture of the game for the docs, written by ``python -m kabu_envs.render_screenshots``.

    The game is reset with ``seed`` and ``rule_options``, the seats are played by ``agents`` (names,
    seat i by ``agents[i % len(agents)]``; default: the game's ``reference`` agent) for ``steps``
    actions (fewer if the episode ends), and the table is drawn as ``seat`` sees it (None: the god
    view) to ``<name>.png``. ``caption`` is the picture's alt text.
    """

    name: str
    steps: int
    seed: int = 0
    seat: int | None = None
    rule_options: Mapping[str, Any] = field(default_factory=dict)
    agents: tuple[str, ...] = ()
    caption: str = ""


@dataclass(frozen=True)
class GameSpec:
    """Everything the tools need to know about one game.

    * ``id``: the registry name (``"oicho_kabu"``); ``title`` for tables and pages.
    * ``env`` / ``raw_env``: factories ``(render_mode=None, **rule_options)`` of the wrapped and raw
      PettingZoo AEC env; ``pettingzoo_id``: its id in PettingZoo's registry.
    * ``make_config``: ``(**rule_options) -> config`` (validates options without building an env).
    * ``roles`` (the first is the default), ``reference``: the agent on the other seats in the ``"seat"``
      duplicate format.
    * ``agents``: the named agents the game offers (``"scripted"``, ``"expert"``, ...) as factories
      ``(seed=None, **rule_options) -> Agent``; ``"random"`` and trained models exist for every game.
    * ``eval_opponents``: whom a freshly trained model meets in its run's quick evaluation.
    * ``eval_deals``: default duplicate deals for ``python -m kabu_envs.eval``; ``demo``: see ``DemoPlan``.
    * ``gym_ids``: Gymnasium ids of the single-agent views -> the view's fixed keyword arguments.
    * ``training_presets``: ``"package:folder"`` of YAML training presets shipped with the game.
    * ``batch``: a vectorised batch engine ``(batch_size, autoreset, **rule_options)`` (see
      ``kabu_envs.batch``); without one, ``batch.make`` serves the game with the reference loop.
    * ``best_response``: a factory ``(role, seed, **options) -> player`` of a best response to the
      ``reference`` seats (``kabu_envs.eval.best_response``): per play of a deal ``player.begin(state,
      seat, seat_agents, deal)``, then at each of the seat's turns ``player.act(state, seat,
      observation, action_mask) -> action`` (it plays) or ``player.regret(state, seat, observation,
      action_mask, action) -> chips`` (an agent plays; what the best response's choice gains there),
      ``state`` being the raw env's ``game`` (read only to simulate, never to peek). Optionally
      ``factory.check_rules(role, **options)``: raises a ValueError for a role and rule set it does not
      model (the demo then leaves that setting's gaps out).
    * ``screenshots``: pictures of the game for the docs (see ``Screenshot``; the env must draw
      ``render_mode="rgb_array"`` frames).
    * ``viewer``: what a person playing a seat is shown (``kabu-play``, ``kabu-replay``): an object with
      ``seat_view``, ``action_label``, ``move_text`` and ``action_card`` (``kabu_envs.core.views.Viewer``);
      without one the tools show the raw observation and the engine's action names.
    """

    id: str
    title: str
    env: Ref
    raw_env: Ref
    make_config: Ref
    roles: tuple[Role, ...]
    agents: Mapping[str, Ref] = field(default_factory=dict)
    reference: str = "scripted"
    eval_opponents: tuple[str, ...] = ("random", "scripted")
    eval_deals: int = 1000
    demo: DemoPlan | None = None
    pettingzoo_id: str | None = None
    gym_ids: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    training_presets: str | None = None
    batch: Ref | None = None
    best_response: Ref | None = None
    screenshots: tuple[Screenshot, ...] = ()
    viewer: Ref | None = None
    doc: str = ""

    def __post_init__(self) -> None:
        if not self.id.isidentifier():
            raise ValueError(f"game id {self.id!r} must be a Python identifier")
        if not self.roles:
            raise ValueError(f"game {self.id!r} declares no role")
        names = [r.name for r in self.roles]
        if len(set(names)) != len(names):
            raise ValueError(f"game {self.id!r}: a role is declared twice: {names}")
        for reserved in ("random",):
            if reserved in self.agents:
                raise ValueError(f"game {self.id!r}: agent name {reserved!r} is provided for every game")
        if self.demo is not None:
            bad = [r for r in self.demo.roles if r not in names]
            if bad:
                raise ValueError(f"game {self.id!r}: demo roles {bad} are not roles {names}")

    # --- conveniences every tool uses ---------------------------------------------------------
    @property
    def role_names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.roles)

    @property
    def default_role(self) -> str:
        return self.roles[0].name

    def role(self, name: str | None = None) -> Role:
        """The role called ``name`` (default: the first); unknown names raise naming the known ones."""
        if name is None:
            return self.roles[0]
        for r in self.roles:
            if r.name == name:
                return r
        raise ValueError(f"{self.title} has no role {name!r}; roles: {list(self.role_names)}")

    def make_env(self, render_mode: str | None = None, **rule_options: Any) -> Any:
        return resolve(self.env)(render_mode=render_mode, **rule_options)

    def make_raw_env(self, render_mode: str | None = None, **rule_options: Any) -> Any:
        return resolve(self.raw_env)(render_mode=render_mode, **rule_options)

    def config(self, **rule_options: Any) -> Any:
        return resolve(self.make_config)(**rule_options)

    @property
    def agent_names(self) -> tuple[str, ...]:
        """Every agent name this game offers (``random`` first)."""
        return ("random", *self.agents)


_GAMES: dict[str, GameSpec] = {}
_loaded = False


def register(spec: GameSpec, *, replace: bool = False) -> GameSpec:
    """Add a game; registering an id twice raises unless ``replace`` (tests, reloads)."""
    if not isinstance(spec, GameSpec):
        raise TypeError(f"register() takes a GameSpec, got {type(spec).__name__}")
    old = _GAMES.get(spec.id)
    if old is not None and old != spec and not replace:
        raise ValueError(f"game {spec.id!r} is already registered")
    _GAMES[spec.id] = spec
    _register_pettingzoo(spec)
    return spec


def unregister(game_id: str) -> None:
    """Remove a game (for tests that register throw-away games)."""
    _GAMES.pop(game_id, None)


def _register_pettingzoo(spec: GameSpec) -> None:
    """Add the AEC env to PettingZoo's registry (PettingZoo >= 1.25 has one; older ones do not)."""
    if not spec.pettingzoo_id or not isinstance(spec.env, str):
        return
    try:
        from pettingzoo.env_registry.registration import aec_registry
        from pettingzoo.env_registry.registration import register as pz_register
    except ImportError:  # no PettingZoo registry: nothing to do
        return
    if spec.pettingzoo_id not in aec_registry:
        pz_register("aec", spec.pettingzoo_id, entry_point=spec.env)


def _load_builtin() -> None:
    """Import every ``kabu_envs.<package>.registration`` module and the entry-point plug-ins, once."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    import kabu_envs

    for info in pkgutil.iter_modules(kabu_envs.__path__):
        if not info.ispkg:
            continue
        name = f"kabu_envs.{info.name}.registration"
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name)
    for ep in metadata.entry_points(group="kabu_envs.games"):
        target = ep.load()
        if callable(target):
            target()


def games() -> list[GameSpec]:
    """Every registered game, ordered by id."""
    _load_builtin()
    return [_GAMES[k] for k in sorted(_GAMES)]


def game_ids() -> list[str]:
    return [g.id for g in games()]


def get(game_id: str) -> GameSpec:
    """The spec of ``game_id``; unknown ids raise naming the registered ones."""
    _load_builtin()
    try:
        return _GAMES[game_id]
    except (KeyError, TypeError):
        raise ValueError(f"unknown game {game_id!r}; registered games: {sorted(_GAMES)}") from None


def demo_games() -> list[GameSpec]:
    """The games ``make demo`` evaluates, ordered by their plan's ``order`` (then id)."""
    planned = [(g.demo.order, g.id, g) for g in games() if g.demo is not None]
    return [g for _, _, g in sorted(planned, key=lambda t: t[:2])]


def iter_gym_ids() -> Iterator[tuple[str, str, Mapping[str, Any]]]:
    """``(gymnasium id, game id, fixed view kwargs)`` for every registered single-agent view."""
    for g in games():
        for gym_id, kwargs in g.gym_ids.items():
            yield gym_id, g.id, kwargs


def seat_groups_each_seat(raw_env: Any) -> list[list[int]]:
    """Seat groups of a role every seat holds alone (e.g. a game without roles)."""
    return [[s] for s in range(len(raw_env.possible_agents))]


def batch_seat_groups_each_seat(batch_env: Any, b: int) -> list[list[int]]:
    """``seat_groups_each_seat`` for game ``b`` of a batch engine."""
    return [[s] for s in range(batch_env.num_players)]


def batch_seat_table_each_seat(batch_env: Any, rows: Any) -> Any:
    """``batch_seat_groups_each_seat`` for the games ``rows`` as a ``BatchSeatTable``."""
    n = batch_env.num_players
    return np.broadcast_to(np.arange(n, dtype=np.int64)[None, :, None], (len(rows), n, 1))


__all__ = [
    "GameSpec",
    "Role",
    "DemoPlan",
    "Screenshot",
    "register",
    "unregister",
    "get",
    "games",
    "game_ids",
    "demo_games",
    "iter_gym_ids",
    "resolve",
    "seat_groups_each_seat",
    "batch_seat_groups_each_seat",
    "batch_seat_table_each_seat",
]
