"""Oicho-Kabu action ids (docs/oicho_kabu.md#actions): fixed, documented, never remapped."""

from __future__ import annotations

from enum import IntEnum


class Action(IntEnum):
    STAND = 0
    DRAW = 1
    ESCAPE = 2
    KEEP = 3
    REDEAL = 4
    TAKE_TOP = 5
    TAKE_BOTTOM = 6
    TAKE_FOURTH = 7
    BET_BASE = 8  # BET(k) = 8 + k; k = 0 stakes nothing, k >= 1 stakes bet_sizes[k - 1]

    @staticmethod
    def BET(k: int) -> int:  # noqa: N802 - the documented name
        """Action id of staking ``bet_sizes[k-1]`` (``k = 0``: no stake)."""
        if k < 0:
            raise ValueError(f"BET(k) needs k >= 0, got {k}")
        return BET_BASE + k


# Plain ints of the ids, for the hot paths (an IntEnum compares and hashes more slowly) and the agents.
BET_BASE = int(Action.BET_BASE)
STAND, DRAW, ESCAPE = int(Action.STAND), int(Action.DRAW), int(Action.ESCAPE)
KEEP, REDEAL = int(Action.KEEP), int(Action.REDEAL)
# the dealer's card choice, in the order of the deck's TAKE_TOP / TAKE_BOTTOM / TAKE_FOURTH (0, 1, 2)
CHOICE_ACTIONS = (int(Action.TAKE_TOP), int(Action.TAKE_BOTTOM), int(Action.TAKE_FOURTH))


def num_actions(num_bet_sizes: int) -> int:
    """Size of the action space: the 8 fixed actions plus BET(0..len(bet_sizes))."""
    return BET_BASE + num_bet_sizes + 1


def action_name(action: int, bet_sizes: tuple[int, ...] | None = None) -> str:
    """Readable name of an action id, e.g. ``DRAW`` or ``BET(2)=5``."""
    if 0 <= action < BET_BASE:
        return Action(action).name
    k = action - BET_BASE
    if k < 0:
        return f"INVALID({action})"
    if bet_sizes is not None and k > len(bet_sizes):
        return f"INVALID({action})"
    stake = 0 if k == 0 else (bet_sizes[k - 1] if bet_sizes else "?")
    return f"BET({k})={stake}"
