"""Errors that name the problem, so a user never has to guess what went wrong."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np


class RuleConfigError(ValueError):
    """An unknown or invalid rule option (a ValueError, as the spec requires)."""


def action_id(action: Any) -> int | None:
    """``action`` as an int action id, or None when it is not an integer.

    Accepted: ints (also ``IntEnum`` members), NumPy integers (what agents return) and 0-d integer
    arrays (what ``model.predict`` returns for one observation): what ``Discrete.contains`` accepts.
    Refused (None): bools, floats (never rounded or truncated: ``52.9`` is not action 52), strings,
    ``None``, arrays of another shape or dtype, anything else.
    """
    if type(action) is int:
        return action
    if isinstance(action, np.integer):  # np.bool_ is not an np.integer
        return int(action)
    if isinstance(action, bool):
        return None
    if isinstance(action, int):  # an int subclass (IntEnum, ...)
        return operator.index(action)
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        return int(action)
    return None


def action_type_reason(action: Any, num_actions: int) -> str:
    """Why ``action`` (refused by ``action_id``) is not an action id, for an error message."""
    text = f"an integer action id 0..{num_actions - 1} is expected (a Python int or NumPy integer)"
    if action is None:
        return text + "; None is only for an agent that is done"
    if isinstance(action, (bool, np.bool_)):
        return text + "; a bool is not an action id"
    if isinstance(action, (float, np.floating)):
        return text + "; floats are refused, never rounded"
    if isinstance(action, np.ndarray):
        return text + f"; an array must be 0-d with an integer dtype, not shape {action.shape} {action.dtype}"
    return text


def _shown(action: Any) -> str:
    """How a refused action value is named in a message: its value and, unless an int, its type."""
    if type(action) is int:
        return str(action)
    return f"{action!r} ({type(action).__name__})"


class IllegalActionError(ValueError):
    """An action that is not legal now; the message lists the legal ones.

    Raised instead of silently remapping the action (RLCard's weak spot), so a bug
    in an agent surfaces at once. ``action`` is the int action id, or the value as
    given when it is not an integer (see ``ActionTypeError``). ``reason``, when given,
    says what was wrong with the value.
    """

    def __init__(
        self,
        action: Any,
        legal: Iterable[int],
        *,
        phase: str = "",
        seat: int | None = None,
        describe: Callable[[int], str] | None = None,
        reason: str = "",
    ) -> None:
        as_int = action_id(action)
        self.action = action if as_int is None else as_int
        self.legal = [int(a) for a in legal]
        name = describe or str
        where = []
        if seat is not None:
            where.append(f"player_{seat}")
        if phase:
            where.append(f"phase {phase}")
        ctx = f" ({', '.join(where)})" if where else ""
        if as_int is None:
            bad = _shown(action)
        else:
            try:
                bad = f"{as_int} ({name(as_int)})"
            except Exception:  # an out-of-range id has no name
                bad = f"{as_int} ({as_int})"
        legal_txt = ", ".join(f"{a}={name(a)}" if name is not str else str(a) for a in self.legal)
        why = f": {reason}" if reason else ""
        super().__init__(f"illegal action {bad}{ctx}{why}; legal actions: [{legal_txt}]")


class ActionTypeError(IllegalActionError, TypeError):
    """An action that is not an integer action id (a float, a bool, None for a live agent, ...).

    Both an ``IllegalActionError`` (what the library raises for every refused action) and a
    ``TypeError`` (what Python raises for a value of the wrong type).
    """


class ActionSpaceError(IllegalActionError, AssertionError):
    """An action outside the action space, refused by the wrapped env's ``AssertOutOfBoundsWrapper``.

    Also an ``AssertionError``: PettingZoo's wrapper raises that, so code written against the stock
    wrapper keeps catching it (and unlike an ``assert``, it is raised under ``python -O`` too).
    """


class EpisodeOverError(RuntimeError):
    """``last()`` or ``step()`` after every agent of the episode is done and removed."""


def check_seed(seed: Any, where: str = "reset()") -> int | None:
    """``seed`` as an int or None; raise on anything else.

    Allowed: ``None`` (fresh OS entropy) or a non-negative integer (Python int or NumPy integer).
    A negative int raises ``ValueError``; a bool, float, string or other type raises ``TypeError``
    (``1.5`` and ``"3"`` are never converted, ``True`` is not a seed).
    """
    if seed is None or (type(seed) is int and seed >= 0):
        return seed
    allowed = "a non-negative int (or NumPy integer), or None for fresh OS entropy"
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(
            f"{where}: seed={seed!r} ({type(seed).__name__}) is not allowed; the seed must be {allowed}"
        )
    if seed < 0:
        raise ValueError(f"{where}: seed={seed!r} is negative; the seed must be {allowed}")
    return int(seed)
