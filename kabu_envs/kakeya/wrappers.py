"""PettingZoo's AssertOutOfBounds and OrderEnforcing wrappers, minus their per-step overhead.

The stock wrappers reach every AEC attribute (``agent_selection``, ``rewards``, ...)
through a chain of ``__getattr__`` calls, which costs more than a whole Kakeya step. These
subclasses keep the same checks and errors (they ARE the stock classes for
``isinstance``) and forward the hot attributes by properties instead. Nothing here is
Kakeya-specific: any ``CardGameAECEnv`` can use them.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper

_HOT = ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos", "_cumulative_rewards")


def _forward(name: str, check_reset: bool) -> property:
    def get(self):
        if check_reset and not self._has_reset:
            raise AttributeError(name)  # falls back to __getattr__, which raises the stock error
        return getattr(self.env, name)

    return property(get, doc=f"``{name}`` of the wrapped env (no __getattr__ chain)")


class FastAssertOutOfBounds(AssertOutOfBoundsWrapper):
    """Same assertion as ``AssertOutOfBoundsWrapper``, with direct attribute access."""

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        env = self.env
        agent = env.agent_selection
        assert (action is None and (env.terminations[agent] or env.truncations[agent])) or env.action_space(
            agent
        ).contains(action), "action is not in action space"
        env.step(action)


class FastOrderEnforcing(OrderEnforcingWrapper):
    """Same order checks as ``OrderEnforcingWrapper``, with direct attribute access."""

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self.agent_selection  # noqa: B018 - raises the stock AttributeError before reset
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)


for _name in _HOT:
    setattr(FastAssertOutOfBounds, _name, _forward(_name, check_reset=False))
    setattr(FastOrderEnforcing, _name, _forward(_name, check_reset=_name != "_cumulative_rewards"))


def wrap(raw: Any) -> FastOrderEnforcing:
    """``OrderEnforcing(AssertOutOfBounds(raw))``, the standard PettingZoo wrapping."""
    return FastOrderEnforcing(FastAssertOutOfBounds(raw))


__all__ = ["FastAssertOutOfBounds", "FastOrderEnforcing", "wrap"]
