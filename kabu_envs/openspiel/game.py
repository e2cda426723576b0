"""Any registered game as an OpenSpiel game (``python_kabu_<game id>``), built on its raw AEC env.

The OpenSpiel state drives the game's own raw env (``registry.get(id).make_raw_env``), so legal
actions, observations, action names and rewards are the env's by construction:

* every rule option is a game parameter (scalars as they are, lists and tables as JSON strings);
  the options that differ from the defaults go to ``make_raw_env`` (so a ``rules`` preset's values
  stand for the options left at their defaults, unless named in the ``keep`` parameter), and
  ``get_parameters`` reports the options as played;
* every shuffle the engine makes is a run of chance nodes, card by card (``chance.ChanceRng``): the
  first deal's outcomes are exactly a stacked deck;
* ``information_state_tensor`` and ``observation_tensor`` are the env's observation of the seat;
  ``information_state_string`` is the seat's own record (its actions and every change of its
  observation, as short digests: perfect recall of what the env showed it, nothing more);
  ``observation_string`` names the observation's non-zero entries;
* ``returns`` are the env's rewards summed, ``rewards`` the last step's;
* ``serialize`` is the action history (chance outcomes included), which ``deserialize_state`` replays.

A state keeps its env in step with its history; an action whose shuffle needs chance outcomes
leaves the env mid-step, and the state rebuilds it (a fresh env, the history replayed) once the
shuffle's outcomes are in: a rebuild per shuffle, not per step.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import json
from typing import Any

import numpy as np
import pyspiel

from kabu_envs import registry
from kabu_envs.core.rng import make_rng
from kabu_envs.core.views import GenericViewer
from kabu_envs.openspiel.chance import ChanceRng, NeedChance

PREFIX = "python_kabu_"
# The bounds of a game without its own (``config.utility_bound`` / ``config.length_bound`` in the game's
# package, computed from the rule options: OpenSpiel asks for a bound, not a tight one, but a valid rule
# set must stay within it). OpenSpiel keeps the length in a C int: at most INT_MAX.
MAX_UTILITY = float(2**31)
MAX_GAME_LENGTH = 100_000
INT_MAX = 2**31 - 1
# The parameter naming options passed on even at their registry default (see ``rule_options``).
KEEP = "keep"


def game_name(game_id: str) -> str:
    """The OpenSpiel short name of a registry game: ``python_kabu_<id>``."""
    return PREFIX + game_id


def _jsonable(value: Any, pairs_as_dict: bool = False) -> Any:
    """Plain JSON data of an option's value; ``pairs_as_dict``: a sequence of (name, value) pairs as an
    object (how table options such as ``yaku_overrides`` are written)."""
    if isinstance(value, (tuple, list)):
        pairs = all(isinstance(v, (tuple, list)) and len(v) == 2 and isinstance(v[0], str) for v in value)
        if pairs_as_dict and pairs:
            return {k: _jsonable(v, pairs_as_dict) for k, v in value}
        return [_jsonable(v, pairs_as_dict) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(_jsonable(v, pairs_as_dict) for v in value)
    if isinstance(value, dict):
        return {str(k): _jsonable(v, pairs_as_dict) for k, v in value.items()}
    return value


def _param(value: Any, pairs_as_dict: bool = False) -> bool | int | float | str:
    """An option's value as an OpenSpiel parameter: scalars as they are, anything else as JSON text
    with ``;`` for ``,`` (OpenSpiel's game strings separate parameters with commas)."""
    if isinstance(value, (bool, int, float, str)):
        return value
    return json.dumps(_jsonable(value, pairs_as_dict), separators=(";", ":"))


def _from_param(name: str, text: str) -> Any:
    """``_param``'s inverse for a list or table option (plain JSON is accepted too)."""
    try:
        return json.loads(text.replace(";", ","))
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"parameter {name!r} = {text!r} must be JSON (with ';' or ',' between items): {exc}"
        ) from None


@functools.cache
def _defaults(game_id: str) -> tuple[tuple[str, bool | int | float | str], ...]:
    cfg = registry.get(game_id).config()
    if not dataclasses.is_dataclass(cfg):
        raise TypeError(f"game {game_id!r}: its config is no dataclass; its options cannot be listed")
    out = []
    for f in dataclasses.fields(cfg):
        if not f.init:
            continue
        value = getattr(cfg, f.name)
        # a list or a table: the JSON text that the option's checker reads back to the same value
        for candidate in (_param(value), _param(value, pairs_as_dict=True)):
            if isinstance(candidate, str) and not isinstance(value, str):
                given = _from_param(f.name, candidate)
                try:
                    if registry.get(game_id).config(**{f.name: given}) != cfg:
                        continue
                except ValueError:
                    continue
            out.append((f.name, candidate))
            break
        else:
            raise TypeError(f"game {game_id!r}: option {f.name!r} = {value!r} has no JSON form")
    return tuple(out)


def default_parameters(game_id: str) -> dict[str, bool | int | float | str]:
    """Every rule option of the game with its default (the registry's config), as OpenSpiel parameters."""
    return dict(_defaults(game_id))


def keep_names(game_id: str, text: Any) -> list[str]:
    """The option names of the ``keep`` parameter (``"a;b"``, or a JSON list), checked."""
    if not isinstance(text, str):
        raise ValueError(f"parameter {KEEP!r} must be option names separated by ';', got {text!r}")
    names = _from_param(KEEP, text) if text.strip().startswith("[") else text.split(";")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"parameter {KEEP!r} must be option names separated by ';', got {text!r}")
    names = sorted({n.strip() for n in names if n.strip()})
    unknown = sorted(set(names) - set(default_parameters(game_id)))
    if unknown:
        raise ValueError(f"parameter {KEEP!r}: unknown option(s) {unknown}")
    return names


def rule_options(game_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """The rule options ``params`` set, JSON ones decoded.

    OpenSpiel fills every parameter not given with its default before the game sees them, so a value
    equal to the registry's default cannot be told from one left out: it is not passed on, and a
    preset (``rules="kansai"``) then supplies its own value, unless the option is named in ``keep``
    (``keep="dealer_selection"``): then it is passed and overrides the preset. A rule
    set that fails with such a value left to the preset names ``keep`` in its error. An option that
    takes a name or its index (Kakeya's ``default_trump``) is a string parameter (OpenSpiel checks the
    type first): its index as text (``"3"``) is read as the index."""
    params = dict(params)
    keep = keep_names(game_id, params.pop(KEEP, ""))
    defaults = default_parameters(game_id)
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise ValueError(f"{game_name(game_id)}: unknown parameter(s) {unknown}; known: {sorted(defaults)}")
    spec = registry.get(game_id)
    cfg = spec.config()
    out: dict[str, Any] = {}
    for name, value in params.items():
        if name not in keep and value == defaults[name] and type(value) is type(defaults[name]):
            continue
        if isinstance(value, str) and not isinstance(getattr(cfg, name), str):  # a list or table as JSON
            value = _from_param(name, value)
        elif isinstance(value, str) and value.isascii() and value.isdigit():
            try:
                spec.config(**{name: value})
            except ValueError:
                value = int(value)  # a name's index given as text (the env names the problem if not)
        out[name] = value
    return out


def _effective(env: Any) -> dict[str, bool | int | float | str]:
    """The rule options the env plays, every one, as parameters: what ``get_parameters`` reports, so
    that the game string loads the same rule set again (a preset's values included)."""
    return {k: _param(v) for k, v in env.rule_options().items()}


def _bounds(game_id: str, env: Any, deck_size: int) -> tuple[float, int]:
    """(max utility, max game length) of this rule set: the game's own (``config.utility_bound``,
    ``config.length_bound``), else the generic ones."""
    spec = registry.get(game_id)
    utility, length = spec.hook("config", "utility_bound"), spec.hook("config", "length_bound")
    top = MAX_UTILITY if utility is None else max(1.0, float(utility(env.config)))
    most = MAX_GAME_LENGTH if length is None else int(length(env.config, deck_size))
    return top, min(INT_MAX, max(1, most))


class _ProbeRng:
    """A seeded generator's shuffles that note the largest card id: the deck size, learnt from the
    game's first shuffle (every shuffle of a game shuffles cards of the same deck)."""

    def __init__(self) -> None:
        self.rng = make_rng(0)
        self.size = 0

    def permutation(self, n: int) -> np.ndarray:
        self.size = max(self.size, int(n))
        return self.rng.permutation(n)

    def shuffle(self, x: np.ndarray) -> None:
        if len(x):
            self.size = max(self.size, int(np.max(x)) + 1)
        self.rng.shuffle(x)


def game_type(game_id: str) -> pyspiel.GameType:
    spec = registry.get(game_id)
    return pyspiel.GameType(
        short_name=game_name(game_id),
        long_name=f"kabu_envs {spec.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.REWARDS,
        max_num_players=max(spec.players),
        min_num_players=min(spec.players),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={**default_parameters(game_id), KEEP: ""},
    )


class KabuGame(pyspiel.Game):
    """One registered game with one rule set (``params``); subclassed per game id by ``register``."""

    game_id = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        gtype = game_type(self.game_id)
        given = dict(params or {})
        self.options = rule_options(self.game_id, given)
        spec = registry.get(self.game_id)
        try:
            probe_env = spec.make_raw_env(**self.options)
        except ValueError as exc:
            if "rules" not in self.options:
                raise
            try:  # the options left at their registry default that the preset changes
                preset, plain = spec.config(rules=self.options["rules"]), spec.config()
            except ValueError:
                raise exc from None
            left = sorted(
                k
                for k in given
                if k not in (KEEP, "rules")
                and k not in self.options
                and getattr(preset, k) != getattr(plain, k)
            )
            if not left:
                raise
            raise ValueError(
                f"{exc} (under rules={self.options['rules']!r} the parameters at their registry default "
                f"stand for the preset's values, OpenSpiel filling in every parameter not given; to play "
                f'one of {left} at the registry default, name it in keep, e.g. keep="{left[0]}")'
            ) from None
        probe = _ProbeRng()
        probe_env.np_random = probe
        probe_env.reset()
        while not probe.size and not probe_env.game.terminal:  # a deal may wait for a first decision
            probe_env.step(min(probe_env.legal_actions()))
        self.num_seats = int(probe_env.num_players)
        self.obs_size = int(probe_env.obs_spec.size)
        self.deck_size = probe.size
        viewer = spec.hook("view", "VIEWER")
        self.viewer = viewer if viewer is not None else GenericViewer()
        top, most = _bounds(self.game_id, probe_env, self.deck_size)
        info = pyspiel.GameInfo(
            num_distinct_actions=int(probe_env.num_actions),
            max_chance_outcomes=max(self.deck_size, 1),
            num_players=self.num_seats,
            min_utility=-top,
            max_utility=top,
            utility_sum=0.0,
            max_game_length=most,
        )
        defaults = default_parameters(self.game_id)
        played = {k: v for k, v in _effective(probe_env).items() if k in defaults}
        # an option passed to the env whose played value reads as the registry default would be left to
        # the preset when the game string is loaded again: it is kept (found by the OpenSpiel fuzz suite)
        again = {k for k in self.options if k != "rules" and played.get(k) == defaults[k]}
        kept = ";".join(sorted(again | set(keep_names(self.game_id, given.get(KEEP, "")))))
        super().__init__(gtype, info, {**defaults, **played, KEEP: kept})

    def make_env(self) -> Any:
        """A fresh raw env of this rule set (what a state drives)."""
        return registry.get(self.game_id).make_raw_env(**self.options)

    def new_initial_state(self) -> KabuState:
        return KabuState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict[str, Any] | None = None
    ) -> KabuObserver:
        if params:
            raise ValueError(f"{game_name(self.game_id)}: observation parameters are not supported: {params}")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return KabuObserver(self.obs_size, perfect_recall)


def game_class(game_id: str) -> type[KabuGame]:
    """The ``KabuGame`` subclass of one game, a module attribute (pyspiel copies games by name)."""
    name = f"KabuGame_{game_id}"
    cls = globals().get(name)
    if cls is None:
        cls = type(name, (KabuGame,), {"game_id": game_id, "__module__": __name__, "__qualname__": name})
        globals()[name] = cls
    return cls


def _digest(obs: np.ndarray) -> str:
    return hashlib.blake2b(obs.tobytes(), digest_size=6).hexdigest()


class _Run:
    """What one state holds and its copies must not share: the history, the env, what each seat saw."""

    def __init__(self, game: KabuGame) -> None:
        n = game.num_seats
        self.outcomes: list[int] = []  # every chance outcome so far
        self.moves: list[int] = []  # every player action so far
        self.pending: list[int] = []  # cards of the unfinished shuffle (empty: none)
        self.env: Any = None
        self.returns = np.zeros(n)
        self.rewards = np.zeros(n)
        self.obs = [np.zeros(game.obs_size, dtype=np.float32) for _ in range(n)]
        self.trail: list[list[str]] = [[] for _ in range(n)]
        self.seen: list[str | None] = [None] * n

    def __deepcopy__(self, memo: dict[int, Any]) -> _Run:
        """A copy for search (OpenSpiel clones a Python state by deep-copying its attributes): its own
        history, engine and AEC dicts; the env's rule set, spaces and encoder are shared (an encoder's
        caches are keyed by the engine object, so a copied engine never reads the original's)."""
        new = object.__new__(_Run)
        new.outcomes, new.moves, new.pending = list(self.outcomes), list(self.moves), list(self.pending)
        new.returns, new.rewards = self.returns.copy(), self.rewards.copy()
        new.obs = list(self.obs)  # arrays never written in place: replaced at each commit
        new.trail = [list(t) for t in self.trail]
        new.seen = list(self.seen)
        new.env = _copy_env(self.env, new.outcomes)
        return new


class KabuState(pyspiel.State):
    """A point of one episode: the history (chance outcomes and actions) and the env it leads to."""

    def __init__(self, game: KabuGame) -> None:
        super().__init__(game)
        self._shared = _Shared(game)
        self._run = _Run(game)
        self._rebuild()

    # --- keeping the env in step ---------------------------------------------------------------
    def _rebuild(self) -> None:
        """A fresh env, the history replayed; stops at the first shuffle the outcomes do not finish."""
        r = self._run
        env = self._shared.game.make_env()
        env.np_random = ChanceRng(r.outcomes)
        returns = np.zeros(self._shared.game.num_seats)
        r.env = env
        try:
            env.reset()
            returns += _rewards_now(env)
            for action in r.moves:
                env.step(action)
                returns += _rewards_now(env)
        except NeedChance as need:
            r.pending = need.cards
            return
        r.pending = []
        r.returns = returns
        self._commit()

    def _commit(self) -> None:
        """After a finished step: each seat's observation, and its record when it changed."""
        r = self._run
        env = r.env
        r.rewards = _rewards_now(env)
        for p, agent in enumerate(env.possible_agents):
            obs = np.asarray(env.observe(agent)["observation"], dtype=np.float32).copy()
            r.obs[p] = obs
            token = _digest(obs)
            if token != r.seen[p]:
                r.seen[p] = token
                r.trail[p].append(token)

    # --- the OpenSpiel API ---------------------------------------------------------------------------
    def current_player(self) -> int:
        r = self._run
        if r.pending:
            return int(pyspiel.PlayerId.CHANCE)
        game = r.env.game
        if game.terminal:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(game.current_player)

    def _legal_actions(self, player: int) -> list[int]:
        if self._run.pending or player != self.current_player():
            return []
        return sorted(int(a) for a in self._run.env.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        cards = self._run.pending
        p = 1.0 / len(cards)
        return [(c, p) for c in cards]

    def _apply_action(self, action: int) -> None:
        r = self._run
        action = int(action)
        if r.pending:
            r.outcomes.append(action)
            r.pending = [c for c in r.pending if c != action]
            if len(r.pending) == 1:  # the shuffle is finished: the last card is forced
                self._rebuild()
            return
        player = r.env.game.current_player
        r.moves.append(action)
        r.trail[player].append(f"a{action}")
        try:
            r.env.step(action)
        except NeedChance as need:  # the env is mid-step: rebuilt once the shuffle's outcomes are in
            r.pending = need.cards
            return
        r.returns = r.returns + _rewards_now(r.env)
        self._commit()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        return str(self._shared.game.viewer.action_label(self._run.env, int(action)))

    def is_terminal(self) -> bool:
        return not self._run.pending and bool(self._run.env.game.terminal)

    def returns(self) -> list[float]:
        return [float(x) for x in self._run.returns]

    def rewards(self) -> list[float]:
        r = self._run
        return [0.0] * len(r.rewards) if r.pending else [float(x) for x in r.rewards]

    def __str__(self) -> str:
        return f"chance {self._run.outcomes} actions {self._run.moves}"

    # --- for the observer and the bots -----------------------------------------------------------------
    @property
    def env(self) -> Any:
        """The raw env at this point (mid-step while a shuffle waits for chance outcomes): read only."""
        return self._run.env

    def seat_observation(self, player: int) -> np.ndarray:
        """The env's observation of ``player`` after the last finished step (zeros before the deal)."""
        return self._run.obs[player]

    def seat_record(self, player: int) -> str:
        return f"p{player} " + " ".join(self._run.trail[player])


def _rewards_now(env: Any) -> np.ndarray:
    return np.asarray([env.rewards[a] for a in env.possible_agents], dtype=np.float64)


class _Shared:
    """The state's game, shared by the state's copies (OpenSpiel deep-copies a Python state's attributes)."""

    def __init__(self, game: KabuGame) -> None:
        self.game = game

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self


def _shared(value: Any) -> bool:
    """Parts of an env or engine that never change during an episode: frozen dataclasses (rule sets)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return bool(value.__dataclass_params__.frozen)  # type: ignore[attr-defined]
    return False


def _copy_env(env: Any, outcomes: list[int]) -> Any:
    """An independent copy of a raw env mid-episode whose shuffles read ``outcomes``."""
    rng = ChanceRng(outcomes)
    rng.used = env.np_random.used
    memo: dict[int, Any] = {id(env.np_random): rng}
    static = (
        *("observation_spaces", "action_spaces", "obs_spec", "_encoder", "_mask_cache", "_no_mask"),
        *("_seat_index", "possible_agents", "metadata", "render_mode", "render_seat"),
    )
    for name in static:
        if name in env.__dict__:
            memo[id(env.__dict__[name])] = env.__dict__[name]
    for part in (env, env.game) if env.game is not None else (env,):
        for value in vars(part).values():
            if _shared(value):
                memo[id(value)] = value
    end = getattr(env.game, "round_end", None)  # a finished round's read-only picture (Oicho-Kabu)
    if end is not None:
        memo[id(end)] = end
    new = copy.copy(env)
    new.__dict__.update({k: copy.deepcopy(v, memo) for k, v in env.__dict__.items()})
    return new


class KabuObserver:
    """OpenSpiel's Python observer: the env's observation as the tensor, for both observation types."""

    def __init__(self, size: int, perfect_recall: bool) -> None:
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}
        self.perfect_recall = perfect_recall

    def set_from(self, state: KabuState, player: int) -> None:
        self.tensor[:] = state.seat_observation(player)

    def string_from(self, state: KabuState, player: int) -> str:
        if self.perfect_recall:
            return state.seat_record(player)
        obs = state.seat_observation(player)
        return f"p{player} " + " ".join(f"{i}:{obs[i]:g}" for i in np.flatnonzero(obs))
