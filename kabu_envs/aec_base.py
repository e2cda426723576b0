"""The thin PettingZoo AEC adapter shared by every game.

A game engine (pure Python, see ``GameEngine``) owns the rules; this class only maps
seats to agent names, builds the observation dict and the int8 action mask,
accumulates rewards and handles the AEC termination dance. Game modules subclass it
with an observation encoder and renderers: ``_render_text`` (``"ansi"``/``"human"``) and, for a game
that lists ``"rgb_array"`` in its ``metadata["render_modes"]``, ``_render_frame`` (a picture drawn
with pillow, imported only when a frame is asked for).
"""

from __future__ import annotations

import copy
import json
from array import array
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, TypeVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from kabu_envs.core import env_state
from kabu_envs.core.errors import (
    ActionTypeError,
    EpisodeOverError,
    IllegalActionError,
    action_id,
    action_type_reason,
    check_seed,
)
from kabu_envs.core.obs_spec import ObsSpec
from kabu_envs.core.rng import make_rng
from kabu_envs.core.seats import agent_names, seat_of

# The only reset option of every game (``options={"deck": [...]}`` stacks the deck).
RESET_OPTIONS = frozenset({"deck"})


def known_reset_options(
    options: dict[str, Any] | None, known: frozenset[str] = RESET_OPTIONS
) -> dict[str, Any]:
    """The entries of ``options`` named in ``known``; a warning names any other key.

    An unknown key cannot raise: PettingZoo's ``api_test`` resets with ``options={"options": 1}``.
    It is named in a warning instead of being dropped silently (the AEC envs and the single-agent
    views both go through here, so they behave alike).
    """
    if not options:
        return {}
    unknown = set(options) - known
    if unknown:
        gymnasium.logger.warn(
            f"reset(): unknown option(s) {sorted(unknown)} ignored; the only one is 'deck'"
            if known == RESET_OPTIONS
            else f"reset(): unknown option(s) {sorted(unknown)} ignored; known: {sorted(known)}"
        )
    return {k: v for k, v in options.items() if k in known}


class GameEngine(Protocol):
    """What the adapter needs from a rules engine."""

    num_players: int
    num_actions: int
    current_player: int  # -1 once the episode is over
    terminal: bool

    def legal_actions(self) -> list[int]: ...

    def apply_action(self, action: int) -> None: ...

    def pop_rewards(self) -> np.ndarray:
        """Rewards paid since the last call, one float per seat (then cleared)."""
        ...


EngineT = TypeVar("EngineT", bound=GameEngine)
_Self = TypeVar("_Self", bound="CardGameAECEnv")
EngineT_co = TypeVar("EngineT_co", bound=GameEngine, covariant=True)


class _MakesGame(Protocol[EngineT_co]):
    """An env whose ``_new_game`` hook builds engines of type ``EngineT_co`` (typing only)."""

    def _new_game(self, rng: np.random.Generator, deck: list[int] | None) -> EngineT_co: ...


class _FastDiscrete(spaces.Discrete):
    """``Discrete`` with a fast path for plain ints in ``contains``.

    ``AssertOutOfBoundsWrapper`` calls ``contains`` on every step, and gymnasium's version builds
    ``np.iinfo`` each time; for a Python int the answer is just the range check (same result).
    Unlike gymnasium's, ``contains(True)`` is False: ``step()`` refuses bools as actions.
    """

    def contains(self, x: Any) -> bool:
        if type(x) is int:
            return self._lo <= x < self._hi
        if isinstance(x, bool):  # gymnasium counts True as 1; the envs refuse bools
            return False
        return super().contains(x)

    def __init__(self, n: int) -> None:
        super().__init__(n)
        self._lo, self._hi = int(self.start), int(self.start) + int(self.n)


# What an env's clone shares with it (fixed once the env is built, never written during play).
_SHARED = frozenset(
    (
        "config",
        "obs_spec",
        "observation_spaces",
        "action_spaces",
        "possible_agents",
        "_seat_index",
        "_no_mask",
        "_mask_cache",
        "_encoder",  # a function of (game, seat): its caches key on the game object and its version
        "metadata",
    )
)


class CardGameAECEnv(AECEnv):
    """Base AEC env: subclasses set ``metadata`` and implement the hooks below."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "is_parallelizable": False}
    # The keys ``reset(options=...)`` understands (others are ignored with a warning).
    reset_options: ClassVar[frozenset[str]] = RESET_OPTIONS

    if TYPE_CHECKING:
        # ``game`` is a plain instance attribute at run time (no property on the per-step path).
        # For the type checker it has the type that the class's ``_new_game`` returns, so a
        # subclass whose hook returns ``Game`` reads ``self.game`` as a ``Game`` without
        # restating it. It is None only until the first ``reset()``; the methods that read it
        # are the AEC calls, which need that reset (code that may run earlier checks for None).
        @property
        def game(self: _MakesGame[EngineT]) -> EngineT: ...

        @game.setter
        def game(self, value: GameEngine | None) -> None: ...

    # --- hooks -----------------------------------------------------------------
    def _new_game(self, rng: np.random.Generator, deck: list[int] | None) -> GameEngine:
        raise NotImplementedError

    def _encode(self, seat: int) -> np.ndarray:
        """The flat float32 observation of ``seat`` (only what it may see)."""
        raise NotImplementedError

    def _render_text(self) -> str:
        raise NotImplementedError

    def _render_frame(self, seat: int | None) -> np.ndarray:
        """The table as an RGB uint8 (H, W, 3) frame as ``seat`` sees it (None: every card).

        Only games that list ``"rgb_array"`` in ``metadata["render_modes"]`` implement it; the frame
        size must stay the same for a given env (video recorders need one size).
        """
        raise NotImplementedError

    # --- construction ------------------------------------------------------------
    def __init__(
        self,
        num_players: int,
        num_actions: int,
        obs_spec: ObsSpec,
        render_mode: str | None = None,
        render_seat: int | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode={render_mode!r} is not supported; use one of "
                f"{self.metadata['render_modes']} or None"
            )
        self.render_mode = render_mode
        self.num_players = num_players
        self.render_seat = self._check_render_seat(render_seat, "render_seat")
        self.obs_spec = obs_spec
        self.num_actions = num_actions
        self.possible_agents = list(agent_names(num_players))
        self._seat_index = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    low=obs_spec.low, high=obs_spec.high, shape=(obs_spec.size,), dtype=np.float32
                ),
                "action_mask": spaces.Box(0, 1, shape=(num_actions,), dtype=np.int8),
            }
        )
        act_space = _FastDiscrete(num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.game = None  # the engine of the current episode, set by reset()
        self.np_random: np.random.Generator | None = None
        self._no_mask = np.zeros(num_actions, dtype=np.int8)
        self._mask_cache: dict[tuple[int, ...], np.ndarray] = {}
        # what the state API replays: the generator's state and the stacked deck when the deal began,
        # and every step's action since (``state_dict``)
        # (2 bytes an action, -1 for a finished agent's None: a session of many rounds keeps it small)
        self._start: tuple[dict[str, Any] | None, list[int] | None] | None = None
        self._history_type = "h" if num_actions < 2**15 else "i"
        self._history = array(self._history_type)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # --- AEC API -------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode.

        ``seed``: a non-negative int (or NumPy integer) reseeds the env's generator; ``None``
        continues its stream (fresh OS entropy on the first reset). A negative seed raises
        ``ValueError``, a bool, float or string ``TypeError`` (see ``check_seed``).
        ``options={"deck": [...]}`` stacks the deck; other keys are ignored with a warning.
        """
        if seed is not None:
            seed = check_seed(seed)
        # the deck goes to the game as given: its engine validates it (core.rng.validate_deck_prefix)
        # and names the problem of a mapping, a set, a string or an array of the wrong shape
        deck = known_reset_options(options, self.reset_options).get("deck")
        if isinstance(deck, Iterator):  # a one-shot iterator: read it once, for the game and the state
            deck = list(deck)
        if seed is not None or self.np_random is None:
            self.np_random = make_rng(seed)
        start = env_state.rng_state(self.np_random)
        self.game = self._new_game(self.np_random, deck)
        self._start = (start, None if deck is None else [int(c) for c in deck])
        self._history = array(self._history_type)
        self._begin_episode()
        if self.render_mode == "human":
            self.render()

    def _begin_episode(self) -> None:
        """The AEC bookkeeping of a new episode of ``self.game`` (reset and load_state_dict)."""
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._settle_step()

    def step(self, action: int) -> None:
        """Apply the action of ``agent_selection``: an int action id (a NumPy integer is fine).

        A refused action (not an integer: ``ActionTypeError``; not legal now:
        ``IllegalActionError``) raises before anything changes: rewards, cumulative rewards,
        the agent to act, terminations, observations and the game stay as they were.
        """
        agent = self.agent_selection
        try:
            done = self.terminations[agent] or self.truncations[agent]
        except KeyError:
            self._raise_if_over("step()")
            raise
        if done:
            self._was_dead_step(action)
            self._history.append(-1)
            return
        if type(action) is not int:
            action = self._as_action(action)
        # The engine checks legality before it changes anything, so the pending reward is only
        # cleared once the action has been accepted.
        self.game.apply_action(action)
        self._history.append(action)
        self._cumulative_rewards[agent] = 0.0
        self._settle_step()
        if self.render_mode == "human":
            self.render()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``AECEnv.last``; once every agent is done and removed, ``EpisodeOverError`` says so."""
        agent = self.agent_selection
        try:
            reward = self._cumulative_rewards[agent]
        except KeyError:
            self._raise_if_over("last()")
            raise
        return (
            self.observe(agent) if observe else None,
            reward,
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    # --- refusals --------------------------------------------------------------------
    def _raise_if_over(self, call: str) -> None:
        """Raise ``EpisodeOverError`` when every agent has been removed (else return)."""
        if not self.agents:
            raise EpisodeOverError(
                f"{call} called after the episode is over (every agent is done and has been "
                "removed from env.agents); call reset() to start a new episode"
            ) from None

    def legal_actions(self) -> list[int]:
        """The legal action ids of the agent to act (empty once the game is over)."""
        game = self.game
        return [] if game is None or game.terminal else list(game.legal_actions())

    def _action_error(
        self, action: Any, reason: str, cls: type[IllegalActionError] = IllegalActionError
    ) -> IllegalActionError:
        """An error of class ``cls`` refusing ``action`` of the agent to act, listing the legal ones."""
        seat = seat_of(self.agent_selection) if self.agent_selection in self._seat_index else None
        describe = getattr(self.game, "action_name", None)
        return cls(action, self.legal_actions(), seat=seat, describe=describe, reason=reason)

    def _as_action(self, action: Any) -> int:
        """``action`` as an int id (NumPy integers, 0-d integer arrays); raise on any other type."""
        as_int = action_id(action)
        if as_int is None:
            raise self._action_error(action, action_type_reason(action, self.num_actions), ActionTypeError)
        return as_int

    def _settle_step(self) -> None:
        """Copy the engine's rewards and turn into the AEC dicts."""
        game = self.game
        paid = game.pop_rewards().tolist()
        agents = self.possible_agents
        if any(paid):
            self.rewards = dict(zip(agents, paid, strict=True))
            self._accumulate_rewards()
        else:  # most steps pay nothing: skip the per-agent float conversions and additions
            self.rewards = dict.fromkeys(agents, 0.0)
        if game.terminal:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = agents[game.current_player]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat_index[agent]
        game = self.game
        if not game.terminal and game.current_player == seat:
            legal = tuple(game.legal_actions())
            mask = self._mask_cache.get(legal)
            if mask is None:  # few distinct legal sets exist: build each mask once
                mask = self._no_mask.copy()
                mask[list(legal)] = 1
                self._mask_cache[legal] = mask
            mask = mask.copy()
        else:
            mask = self._no_mask.copy()
        return {"observation": self._encode(seat), "action_mask": mask}

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The int8 legal-action mask of ``agent`` (default: the one to act)."""
        return self.observe(agent or self.agent_selection)["action_mask"]

    def _check_render_seat(self, seat: Any, name: str) -> int | None:
        """``seat`` as an int seat or None; anything else raises naming the legal seats."""
        if seat is None:
            return None
        is_int = isinstance(seat, (int, np.integer)) and not isinstance(seat, (bool, np.bool_))
        if is_int and 0 <= seat < self.num_players:
            return int(seat)
        raise ValueError(f"{name}={seat!r}: a seat 0..{self.num_players - 1} or None (the god view)")

    def render_frame(self, seat: int | None | Literal["render_seat"] = "render_seat") -> np.ndarray:
        """The table as an RGB uint8 array (H, W, 3), whatever ``render_mode`` is.

        ``seat``: the seat whose view is drawn (only the cards it may see face up), ``None`` for the god
        view (every card, the face-down ones framed); by default ``self.render_seat``. What
        ``render()`` returns with ``render_mode="rgb_array"``.
        """
        modes = self.metadata.get("render_modes", ())
        if "rgb_array" not in modes:
            raise NotImplementedError(
                f"{type(self).__name__} draws no frames (its render modes are {list(modes)})"
            )
        if self.game is None:
            raise RuntimeError("render_frame(): call reset() first (there is no table to draw yet)")
        chosen = self.render_seat if isinstance(seat, str) and seat == "render_seat" else seat
        return self._render_frame(self._check_render_seat(chosen, "seat"))

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'.")
            return None
        if self.render_mode == "rgb_array":
            return self.render_frame()
        text = self._render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # --- state API -----------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The whole state as JSON-able data: the rule options, the generator's state when the deal
        began, a stacked deck, the actions since, and (checked when loaded) every seat's view, the agent
        to act and the cumulative rewards. ``load_state_dict`` restores it exactly (see
        ``kabu_envs.core.env_state``)."""
        if self.game is None or self._start is None:
            raise RuntimeError("state_dict(): call reset() first (there is no game yet)")
        rng, deck = self._start
        if rng is None:
            raise RuntimeError(
                "state_dict(): this env draws from a stand-in for numpy's generator (e.g. OpenSpiel's "
                "chance outcomes): save the driver's state instead (an OpenSpiel state's serialize())"
            )
        out: dict[str, Any] = {
            "format": env_state.FORMAT,
            "version": env_state.VERSION,
            "env": self.metadata["name"],
            "rules": self.rule_options(),
            "rng": rng,
            "deck": deck,
            "actions": [None if a < 0 else a for a in self._history],
            "agent_selection": self.agent_selection if self.agents else None,
            "rewards": dict(self._cumulative_rewards),
            "views": env_state.views(self),
        }
        out["digest"] = env_state.digest(out)
        return out

    def rule_options(self) -> dict[str, Any]:
        """The rule options this env was built with, all of them (``make_config(**them)`` rebuilds its
        config); JSON-able."""
        config: Any = getattr(self, "config", None)
        as_dict = getattr(config, "as_dict", None)
        if as_dict is None:
            raise NotImplementedError(f"{type(self).__name__}.config has no as_dict(): no state API")
        out: dict[str, Any] = json.loads(json.dumps(as_dict(), default=list))
        return out

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore a ``state_dict`` (of an env with the same rules): the game, the generator, the
        seats' views, the agent to act and the rewards, exactly. Raises ``StateError`` naming the problem
        (another env or rule set, a malformed state, actions the rules refuse, a replay that does not
        reproduce the state's views) and then leaves this env as it was."""
        data = env_state.check_shape(state)
        if data["env"] != self.metadata["name"]:
            raise env_state.StateError(
                f"a state of {data['env']!r} cannot load into {self.metadata['name']!r}"
            )
        mine = self.rule_options()
        if data["rules"] != mine:
            diff = sorted(k for k in set(mine) | set(data["rules"]) if mine.get(k) != data["rules"].get(k))
            raise env_state.StateError(
                f"the state's rules differ from this env's in {diff}; build the env with the state's "
                "rules: registry.get(game).make_raw_env(**state['rules'])"
            )
        backup = self.__dict__.copy()
        mode, self.render_mode = self.render_mode, None  # no frames while replaying
        try:
            rng = env_state.load_rng(data["rng"])
            self.np_random = rng
            try:
                self.game = self._new_game(rng, data["deck"])
            except (ValueError, TypeError, IndexError) as exc:
                raise env_state.StateError(f"the state's deal does not start: {exc}") from None
            self._start = (env_state.rng_state(env_state.load_rng(data["rng"])), data["deck"])
            self._history = array(self._history_type)
            self._begin_episode()
            for i, action in enumerate(data["actions"]):
                try:
                    self.step(action)
                except (ValueError, TypeError, IndexError, KeyError, EpisodeOverError) as exc:
                    raise env_state.StateError(
                        f"action {i} of the state ({action!r}) does not replay: {exc}"
                    ) from None
            got = {
                "agent_selection": self.agent_selection if self.agents else None,
                "rewards": dict(self._cumulative_rewards),
                "views": env_state.views(self),
            }
            for key, value in got.items():
                if value != data[key]:
                    raise env_state.StateError(f"the replayed game's {key!r} differ from the state's")
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(backup)
            raise
        finally:
            self.render_mode = mode

    def clone(self: _Self) -> _Self:
        """An independent env at the same point (the game, the generator, the AEC bookkeeping): what
        a search plays forward from without touching this one."""
        twin = copy.copy(self)
        memo: dict[int, Any] = {id(v): v for k, v in self.__dict__.items() if k in _SHARED}
        if self.np_random is not None:  # numpy's deepcopy of a generator pickles it: 3x slower
            memo[id(self.np_random)] = env_state.copy_rng(self.np_random)
        for name, value in self.__dict__.items():
            if name not in _SHARED:  # the game's generator stays the env's one (the memo keeps identity)
                twin.__dict__[name] = copy.deepcopy(value, memo)
        return twin
