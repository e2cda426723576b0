"""Seat <-> agent-name mapping (agents are ``player_0 .. player_{n-1}``)."""

from __future__ import annotations

from functools import cache


def agent_name(seat: int) -> str:
    return f"player_{seat}"


@cache
def agent_names(n: int) -> tuple[str, ...]:
    return tuple(agent_name(i) for i in range(n))


def seat_of(agent: str) -> int:
    """Seat index of an agent name; raises ValueError on anything else."""
    if not agent.startswith("player_") or not agent[7:].isdigit():
        raise ValueError(f"not an agent name: {agent!r}")
    return int(agent[7:])
