"""The game registry: one ``GameSpec`` record per game, describing what the game *is*.

A game package registers itself by holding a module ``registration.py`` that calls
``register(GameSpec(...))`` (the built-in games are the folders ``kabu_envs/<package>/`` holding that
file; other distributions add games through the ``kabu_envs.games`` entry-point group, each entry a
module or a callable that registers). Evaluation, training, the single-agent views and the command lines
ask the registry — never "which game is this?" — so a new game is one package and one ``register()``,
in the spirit of OpenSpiel's ``GameType``/``GameInfo`` and ``pyspiel.register_game``.

The record holds what a game is (its names, player counts, factories, roles and agents), not what a
tool does with it: a tool that needs more of a game (its batch engine, its viewer, its demo plan, its
docs pictures, ...) declares its own small protocol and finds the game's data in the game's own package
(``GameSpec.hook(module, attribute)``, ``GameSpec.folder(name)``); no such hook means the tool does the
generic thing.

Everything here is cheap: factories are ``"module:attribute"`` strings resolved on first use (as
Gymnasium's ``entry_point``), so ``import kabu_envs.registry`` and ``registry.get(id)`` import no env,
no gymnasium, pettingzoo or torch, and no tool. PettingZoo's AEC registry learns the games' ids only
when the PettingZoo side is in use (``register_pettingzoo``).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

# "module:attribute", resolved by ``resolve``.
Ref = str
# A role's seats in games ``rows`` of an engine: (engine, rows) -> (len(rows), G, S) integer seats, -1
# padded (see ``Role``).
SeatPicker = Callable[[Any, np.ndarray], np.ndarray]

DUPLICATE_FORMATS = ("seat", "team")
# The one game of a scalar engine, as ``rows``.
_ONE_ROW = np.zeros(1, dtype=np.int64)


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


def table_groups(table: np.ndarray) -> list[list[list[int]]]:
    """A seat table read back as each game's groups (lists of seats), the -1 padding dropped."""
    games: list[list[list[int]]] = table.tolist()
    return [[[s for s in group if s >= 0] for group in groups if group and group[0] >= 0] for groups in games]


def groups_table(games: Sequence[Sequence[Sequence[int]]]) -> np.ndarray:
    """Each game's groups as one seat table ``(len(games), G, S)`` int64, -1 padded (``table_groups``'s
    inverse), for engines that know the groups game by game."""
    G = max((len(groups) for groups in games), default=0)
    S = max((len(group) for groups in games for group in groups), default=0)
    out = np.full((len(games), G, S), -1, dtype=np.int64)
    for k, groups in enumerate(games):
        for g, group in enumerate(groups):
            out[k, g, : len(group)] = group
    return out


@dataclass(frozen=True)
class Role:
    """A part of the table a learner or an evaluated agent can take.

    ``seats(engine, rows)`` gives the groups of seats holding the role (a bettor role: one group per
    bettor seat; a partnership: one group per partnership) in the games ``rows`` of ``engine``, as an
    integer array ``(len(rows), G, S)``: group g of game k in ``[k, g]``, padded with -1 after a group's
    last seat and after a game's last group. The game writes it once against its own two engines: the
    scalar rules engine behind its raw AEC env (``raw_env.unwrapped.game``, read as a batch of one game,
    ``rows == [0]``) and its vectorised batch engine; e.g. Oicho-Kabu's reads the dealer of each game
    (the ``Game``'s, or the engine's decision view's). Everything else derives from it:
    ``groups(raw_env)`` for the AEC side, and the batch engines' ``seat_table(role, rows)``
    (``kabu_envs.batch``).

    ``duplicate`` is how the duplicate evaluation compares two agents in this role:

    * ``"seat"``: on each deal, group ``deal_index % len(groups)`` is played once by the agent and once
      by the opponent, every other seat by the game's ``reference`` agent; advantage = the difference
      of the first seat's rewards.
    * ``"team"``: the agent plays every group in turn, the opponent all other seats; advantage = the
      mean of the agent's group rewards.
    """

    name: str
    seats: Ref | SeatPicker
    duplicate: str
    doc: str = ""

    def __post_init__(self) -> None:
        if self.duplicate not in DUPLICATE_FORMATS:
            raise ValueError(f"role {self.name!r}: duplicate must be one of {DUPLICATE_FORMATS}")

    def pick(self, engine: Any, rows: Any) -> np.ndarray:
        """The seat table of games ``rows`` of ``engine`` (``seats``, checked): int64 (len(rows), G, S)."""
        rows = np.asarray(rows, dtype=np.int64)
        table = np.asarray(resolve(self.seats)(engine, rows))
        if table.ndim != 3 or table.shape[0] != len(rows) or table.dtype.kind not in "iu":
            raise ValueError(
                f"role {self.name!r}: seats() gave a {table.dtype} array of shape {table.shape} for "
                f"{len(rows)} games; expected integers of shape ({len(rows)}, groups, seats)"
            )
        return table.astype(np.int64, copy=False)

    def groups(self, raw_env: Any) -> list[list[int]]:
        """The role's seat groups in the deal the raw AEC env was just reset to."""
        return table_groups(self.pick(raw_env.unwrapped.game, _ONE_ROW))[0]


def seats_each_seat(engine: Any, rows: np.ndarray) -> np.ndarray:
    """Seats of a role every seat holds alone (e.g. a game without roles): one group per seat."""
    n = engine.num_players
    return np.broadcast_to(np.arange(n, dtype=np.int64)[None, :, None], (len(rows), n, 1))


@dataclass(frozen=True)
class GameSpec:
    """What one game is (the tools' plans for it live with the tools; see the module docstring).

    * ``id``: the registry name (``"oicho_kabu"``, a Python identifier); ``title`` for tables and pages;
      ``doc``: one line saying what the game is.
    * ``package``: the package the game lives in (``"kabu_envs.oicho_kabu"``), where the tools find the
      game's own modules for them (``hook``, ``folder``).
    * ``players``: the player counts the game allows (its ``num_players`` rule option).
    * ``env`` / ``raw_env``: factories ``(render_mode=None, **rule_options)`` of the wrapped and raw
      PettingZoo AEC env; ``make_config``: ``(**rule_options) -> config`` (validates options without
      building an env).
    * ``roles`` (the first is the default); ``reference``: the agent on the other seats in the ``"seat"``
      duplicate format.
    * ``agents``: the named agents the game offers (``"scripted"``, ``"expert"``, ...) as factories
      ``(seed=None, **rule_options) -> Agent``; ``"random"`` and trained models exist for every game.
    * ``pettingzoo_id``, ``gym_ids``: the game's public names, versioned with its rules: its id in
      PettingZoo's AEC registry, and the Gymnasium ids of its single-agent views -> the view's fixed
      keyword arguments (``kabu_envs.wrappers`` registers those).
    * ``rewards``, ``episode``: one sentence each, what a reward pays and when an episode ends; with
      ``versions`` (each versioned module's name -> what that version changed, oldest first) they are
      the lines of the environment card the code cannot compute (``kabu_envs.env_card``).
    """

    id: str
    title: str
    package: str
    players: tuple[int, ...]
    env: Ref
    raw_env: Ref
    make_config: Ref
    roles: tuple[Role, ...]
    agents: Mapping[str, Ref] = field(default_factory=dict)
    reference: str = "scripted"
    pettingzoo_id: str | None = None
    gym_ids: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    doc: str = ""
    rewards: str = ""
    episode: str = ""
    versions: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.id.isidentifier():
            raise ValueError(f"game id {self.id!r} must be a Python identifier")
        if not all(part.isidentifier() for part in self.package.split(".")):
            raise ValueError(f"game {self.id!r}: package {self.package!r} is not a dotted module name")
        if not self.players or not all(type(n) is int and n >= 1 for n in self.players):
            raise ValueError(
                f"game {self.id!r}: players must list the allowed player counts: {self.players!r}"
            )
        if not self.roles:
            raise ValueError(f"game {self.id!r} declares no role")
        names = [r.name for r in self.roles]
        if len(set(names)) != len(names):
            raise ValueError(f"game {self.id!r}: a role is declared twice: {names}")
        for reserved in ("random",):
            if reserved in self.agents:
                raise ValueError(f"game {self.id!r}: agent name {reserved!r} is provided for every game")

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

    # --- where the tools find the game's own modules ------------------------------------------------
    def hook(self, module: str, attribute: str) -> Any:
        """``attribute`` of the game's module ``<package>.<module>``, or None when the game has no such
        module or the module no such attribute (the tool then does the generic thing). A tool declares
        which module and attribute it reads, and what the attribute must be."""
        name = f"{self.package}.{module}"
        if name not in sys.modules and importlib.util.find_spec(name) is None:
            return None
        return getattr(importlib.import_module(name), attribute, None)

    def folder(self, name: str) -> Path | None:
        """The folder ``name`` inside the game's package (e.g. its training presets), None if absent."""
        package = importlib.import_module(self.package)
        for root in getattr(package, "__path__", ()):
            path = Path(root) / name
            if path.is_dir():
                return path
        return None


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
    if "pettingzoo" in sys.modules:  # the PettingZoo side is in use: it learns the id now
        _register_pettingzoo(spec)
    return spec


def unregister(game_id: str) -> None:
    """Remove a game (for tests that register throw-away games)."""
    _GAMES.pop(game_id, None)


def register_pettingzoo() -> None:
    """Add every game's AEC env to PettingZoo's registry (idempotent). Called where the PettingZoo side
    is used: the versioned modules ``kabu_envs.<game>_v<N>``, ``kabu_envs.wrappers``, and ``register``
    once pettingzoo is imported; never on the registry's cheap path."""
    for spec in games():
        _register_pettingzoo(spec)


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


def _builtin_packages() -> list[str]:
    """The folders of ``kabu_envs`` holding a ``registration.py`` file (read from disk: importing a
    subpackage to ask would import the tools, e.g. ``kabu_envs.wrappers`` imports gymnasium)."""
    import kabu_envs

    found: set[str] = set()
    for root in kabu_envs.__path__:
        found |= {p.parent.name for p in Path(root).glob("*/registration.py") if p.parent.name.isidentifier()}
    return sorted(found)


def _load_builtin() -> None:
    """Import every built-in game's ``registration`` module and the entry-point plug-ins, once."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for package in _builtin_packages():
        importlib.import_module(f"kabu_envs.{package}.registration")
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


def iter_gym_ids() -> Iterator[tuple[str, str, Mapping[str, Any]]]:
    """``(gymnasium id, game id, fixed view kwargs)`` for every registered single-agent view."""
    for g in games():
        for gym_id, kwargs in g.gym_ids.items():
            yield gym_id, g.id, kwargs


__all__ = [
    "GameSpec",
    "Role",
    "register",
    "unregister",
    "register_pettingzoo",
    "get",
    "games",
    "game_ids",
    "iter_gym_ids",
    "resolve",
    "seats_each_seat",
    "table_groups",
    "groups_table",
]
