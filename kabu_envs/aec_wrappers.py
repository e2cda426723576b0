"""PettingZoo's standard wrappers, with the per-step attribute reads made direct.

``env()`` must return ``raw_env`` wrapped in ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``.
Those resolve every attribute they do not hold (``agent_selection``, ``terminations``, ...) through a
chain of Python ``__getattr__`` calls, one per wrapper level, and the AEC loop (``agent_iter``,
``last``, ``step``) reads such attributes about fifteen times a step: in a profile of random play
that cost more than the whole game. The subclasses here forward exactly those names straight to the
raw env; everything else (checks, warnings, ``isinstance``, ``str``) is the parent's, with two
clearer errors: an action outside the action space raises ``ActionSpaceError`` (still an
``AssertionError``) naming the value, the range and the legal actions, and ``last()`` once the episode
is over raises ``EpisodeOverError`` instead of a bare ``KeyError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper, TerminateIllegalWrapper

from kabu_envs.core.errors import ActionSpaceError, EpisodeOverError

# The AEC attributes the loop reads on every step; all live on the raw env.
_FORWARDED = ("agents", "agent_selection", "terminations", "truncations", "infos", "rewards")
# Names OrderEnforcingWrapper refuses before reset() (its own list).
_BEFORE_RESET = frozenset({"rewards", "terminations", "truncations", "infos", "agent_selection", "agents"})


def _forward(name: str, check_reset: bool) -> property:
    def get(self: Any) -> Any:
        if check_reset and not self._has_reset and name in _BEFORE_RESET:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    def set_(self: Any, value: Any) -> None:  # writes go to the raw env, where every reader looks
        setattr(self._raw, name, value)

    return property(get, set_, doc=f"``{name}`` of the raw env (read directly).")


def _space_error(raw: AECEnv, agent: Any, action: Any) -> ActionSpaceError:
    """The error refusing ``action``: its value, the action-space range and the legal actions."""
    space = raw.action_space(agent)
    n = getattr(space, "n", None)
    start = int(getattr(space, "start", 0))
    expected = f"an integer action id {start}..{start + int(n) - 1}" if n is not None else "an action"
    none = " (None is only for an agent that is done)" if action is None else ""
    reason = f"not in action space {space}: {expected} is expected{none}"
    make = getattr(raw, "_action_error", None)
    if make is not None:
        return make(action, reason, ActionSpaceError)
    legal = []
    obs = raw.observe(agent)
    if isinstance(obs, dict) and "action_mask" in obs:
        legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
    return ActionSpaceError(action, legal, reason=reason)


def _episode_over(raw: AECEnv, call: str) -> None:
    """Raise ``EpisodeOverError`` when every agent of ``raw`` is done and removed (else return)."""
    if not raw.agents:
        raise EpisodeOverError(
            f"{call} called after the episode is over (every agent is done and has been removed "
            "from env.agents); call reset() to start a new episode"
        ) from None


def _last(wrapper: AECEnv, raw: AECEnv, observe: bool) -> tuple[Any, float, bool, bool, dict[str, Any]]:
    """``AECEnv.last`` with the attributes read on ``raw`` and the observation through ``wrapper``."""
    agent = raw.agent_selection
    try:
        reward = raw._cumulative_rewards[agent]
    except KeyError:
        _episode_over(raw, "last()")
        raise
    return (
        wrapper.observe(agent) if observe else None,
        reward,
        raw.terminations[agent],
        raw.truncations[agent],
        raw.infos[agent],
    )


class FastAssertOutOfBoundsWrapper(AssertOutOfBoundsWrapper):
    """``AssertOutOfBoundsWrapper`` with direct reads of the raw env's AEC attributes.

    An action outside the action space raises ``ActionSpaceError`` (an ``AssertionError``, like the
    stock wrapper's, and an ``IllegalActionError``) naming the value, the range and the legal actions.
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped

    def step(self, action: Any) -> None:
        raw = self._raw
        agent = raw.agent_selection
        if action is None or not raw.action_space(agent).contains(action):
            try:
                done = raw.terminations[agent] or raw.truncations[agent]
            except KeyError:
                _episode_over(raw, "step()")
                raise
            if not (action is None and done):
                raise _space_error(raw, agent, action)
        self.env.step(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return _last(self, self._raw, observe)

    def __str__(self) -> str:
        return str(self.env)


class FastOrderEnforcingWrapper(OrderEnforcingWrapper):
    """``OrderEnforcingWrapper`` with direct reads of the raw env's AEC attributes."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self._raw._cumulative_rewards

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``AECEnv.last``; after the episode is over, ``EpisodeOverError`` (not a bare ``KeyError``)."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return _last(self, self._raw, observe)

    def __str__(self) -> str:
        return str(self.env)


for _name in _FORWARDED:
    setattr(FastAssertOutOfBoundsWrapper, _name, _forward(_name, check_reset=False))
    setattr(FastOrderEnforcingWrapper, _name, _forward(_name, check_reset=True))


ILLEGAL_ACTIONS = ("raise", "penalty")
DEFAULT_ILLEGAL_REWARD = -1.0


def illegal_mode(illegal_action: str | None, illegal_reward: float | None) -> tuple[str, float]:
    """``(mode, reward)`` of the illegal-action options every env and view takes (one vocabulary):
    ``illegal_action`` "raise" (an ``IllegalActionError`` naming the legal actions) or "penalty" (the
    episode ends, the offender gets ``illegal_reward``, default -1.0). ``illegal_action`` None: the
    AEC envs' own default, "penalty" when ``illegal_reward`` is given, else "raise"."""
    if illegal_action is None:
        illegal_action = "raise" if illegal_reward is None else "penalty"
    if illegal_action not in ILLEGAL_ACTIONS:
        raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTIONS}, got {illegal_action!r}")
    if illegal_action == "raise" and illegal_reward is not None:
        raise ValueError(
            f"illegal_reward={illegal_reward!r} is the reward of illegal_action='penalty'; "
            "with illegal_action='raise' an illegal action raises"
        )
    return illegal_action, DEFAULT_ILLEGAL_REWARD if illegal_reward is None else float(illegal_reward)


def wrap(raw: AECEnv, illegal_reward: float | None = None, illegal_action: str | None = None) -> AECEnv:
    """``raw`` + [``TerminateIllegalWrapper``] + ``AssertOutOfBoundsWrapper`` + ``OrderEnforcingWrapper``
    (the terminating wrapper with ``illegal_action="penalty"``, see ``illegal_mode``)."""
    env: AECEnv = raw
    mode, reward = illegal_mode(illegal_action, illegal_reward)
    if mode == "penalty":
        env = TerminateIllegalWrapper(env, illegal_reward=reward)
    return FastOrderEnforcingWrapper(FastAssertOutOfBoundsWrapper(env))
