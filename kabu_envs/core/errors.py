"""Errors that name the problem, so a user never has to guess what went wrong."""

from __future__ import annotations

from collections.abc import Callable, Iterable


class RuleConfigError(ValueError):
    """An unknown or invalid rule option (a ValueError, as the spec requires)."""


class IllegalActionError(ValueError):
    """An action that is not legal now; the message lists the legal ones.

    Raised instead of silently remapping the action (RLCard's weak spot), so a bug
    in an agent surfaces at once.
    """

    def __init__(
        self,
        action: int,
        legal: Iterable[int],
        *,
        phase: str = "",
        seat: int | None = None,
        describe: Callable[[int], str] | None = None,
    ) -> None:
        self.action = int(action)
        self.legal = [int(a) for a in legal]
        name = describe or str
        where = []
        if seat is not None:
            where.append(f"player_{seat}")
        if phase:
            where.append(f"phase {phase}")
        ctx = f" ({', '.join(where)})" if where else ""
        try:
            bad = name(self.action)
        except Exception:  # an out-of-range id has no name
            bad = str(self.action)
        legal_txt = ", ".join(f"{a}={name(a)}" if name is not str else str(a) for a in self.legal)
        super().__init__(f"illegal action {self.action} ({bad}){ctx}; legal actions: [{legal_txt}]")
