"""PettingZoo's standard wrappers, with the per-step attribute reads made direct.

``env()`` must return ``raw_env`` wrapped in ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``.
Those resolve every attribute they do not hold (``agent_selection``, ``terminations``, ...) through a
chain of Python ``__getattr__`` calls, one per wrapper level, and the AEC loop (``agent_iter``,
``last``, ``step``) reads such attributes about fifteen times a step: in a profile of random play
that cost more than the whole game. The subclasses here forward exactly those names straight to the
raw env; everything else (checks, warnings, errors, ``isinstance``, ``str``) is the parent's.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper, TerminateIllegalWrapper

# The AEC attributes the loop reads on every step; all live on the raw env.
_FORWARDED = ("agents", "agent_selection", "terminations", "truncations", "infos", "rewards")
# Names OrderEnforcingWrapper refuses before reset() (its own list).
_BEFORE_RESET = frozenset({"rewards", "terminations", "truncations", "infos", "agent_selection", "agents"})


def _forward(name: str, check_reset: bool) -> property:
    def get(self):
        if check_reset and not self._has_reset and name in _BEFORE_RESET:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    def set_(self, value):  # writes go to the raw env, where every reader looks
        setattr(self._raw, name, value)

    return property(get, set_, doc=f"``{name}`` of the raw env (read directly).")


class FastAssertOutOfBoundsWrapper(AssertOutOfBoundsWrapper):
    """``AssertOutOfBoundsWrapper`` with direct reads of the raw env's AEC attributes."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped

    def step(self, action: Any) -> None:
        raw = self._raw
        agent = raw.agent_selection
        assert (action is None and (raw.terminations[agent] or raw.truncations[agent])) or raw.action_space(
            agent
        ).contains(action), "action is not in action space"
        self.env.step(action)

    def __str__(self) -> str:
        return str(self.env)


class FastOrderEnforcingWrapper(OrderEnforcingWrapper):
    """``OrderEnforcingWrapper`` with direct reads of the raw env's AEC attributes."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped

    @property
    def _cumulative_rewards(self) -> dict:
        return self._raw._cumulative_rewards

    def __str__(self) -> str:
        return str(self.env)


for _name in _FORWARDED:
    setattr(FastAssertOutOfBoundsWrapper, _name, _forward(_name, check_reset=False))
    setattr(FastOrderEnforcingWrapper, _name, _forward(_name, check_reset=True))


def wrap(raw: AECEnv, illegal_reward: float | None = None) -> AECEnv:
    """``raw`` + [``TerminateIllegalWrapper``] + ``AssertOutOfBoundsWrapper`` + ``OrderEnforcingWrapper``."""
    env: AECEnv = raw
    if illegal_reward is not None:
        env = TerminateIllegalWrapper(env, illegal_reward=illegal_reward)
    return FastOrderEnforcingWrapper(FastAssertOutOfBoundsWrapper(env))
