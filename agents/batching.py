"""Plumbing shared by the hand-written agents' ``act_batch`` (the agent protocol, agents/base.py).

``act_batch(observations (B, obs), action_masks (B, A), rngs=None) -> (B,) int64``: row i is what
``act(observations[i], action_masks[i])`` returns when the agent's ``rng`` is ``rngs[i]``, and
``rngs[i]`` ends in the state that scalar call leaves it in (``rngs=None``: the agent's own ``rng``,
row after row, as a loop of ``act`` calls would draw). These helpers check the batch once, so that
bad input fails with what is wrong, and replay the one random step the scalar agents share: the
illegal-move fallback.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

EMPTY_MASK = "action_mask is all zeros: this seat is not to act"


def check_batch(
    observations: np.ndarray, action_masks: np.ndarray, obs_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(observations, masks as bool)``, or a ValueError naming what does not fit the agent."""
    obs = np.asarray(observations)
    masks = np.asarray(action_masks)
    if obs.ndim != 2 or obs.shape[1] != obs_size:
        raise ValueError(
            f"act_batch needs observations of shape (B, {obs_size}) for this rule set, got {obs.shape}"
        )
    if masks.ndim != 2 or masks.shape[0] != obs.shape[0]:
        raise ValueError(f"act_batch needs (B, A) action masks with B = {obs.shape[0]}, got {masks.shape}")
    return obs, masks.astype(bool, copy=False)


def check_rngs(rngs: Sequence[np.random.Generator] | None, batch_size: int) -> None:
    """One generator per row, or None (the agent's own generator)."""
    if rngs is not None and len(rngs) != batch_size:
        raise ValueError(f"act_batch needs one generator per row: {batch_size} rows, {len(rngs)} generators")


def act_row_by_row(
    agent: Any, observations: np.ndarray, masks: np.ndarray, rngs: Sequence[np.random.Generator] | None
) -> np.ndarray:
    """``(B,)`` int64: ``agent.act`` on each row with its ``rng`` swapped for ``rngs[k]`` (None: its own,
    row after row), restored afterwards: the protocol's definition of row k, for an agent that decides one
    row at a time (a search) or a user's object adapted by ``agents.base.as_agent`` (one without ``rng``
    acts as it is). The agent's ``act`` must be its own: ``BaseAgent.act`` is derived from ``act_batch``."""
    from kabu_envs.agents.base import BaseAgent

    if isinstance(agent, BaseAgent) and type(agent).act is BaseAgent.act:
        raise TypeError(
            f"{type(agent).__name__}: act_row_by_row needs the agent's own act (BaseAgent.act is derived "
            "from act_batch, which would call back here)"
        )
    own = getattr(agent, "rng", None)  # a user's object may have none (agents.base.ActAgent)
    out = np.empty(len(observations), dtype=np.int64)
    try:
        for k in range(len(observations)):
            if rngs is not None and own is not None:
                agent.rng = rngs[k]
            action = agent.act(observations[k], masks[k])
            if isinstance(action, bool) or not isinstance(action, (int, np.integer)):  # never truncated
                raise TypeError(f"{type(agent).__name__}.act returned {action!r}, not an integer action id")
            out[k] = action
    finally:
        if own is not None:
            agent.rng = own
    return out


def require_legal(masks: np.ndarray, rows: np.ndarray | None = None) -> None:
    """Raise as ``legal_from_mask`` does when a row (of ``rows``, default all) has no legal action."""
    empty = ~masks.any(axis=1)
    if rows is not None:
        empty &= rows
    if empty.any():
        bad = np.flatnonzero(empty)
        raise ValueError(f"{EMPTY_MASK} (batch rows {bad[:10].tolist()}{' ...' if bad.size > 10 else ''})")


def replace_illegal(
    actions: np.ndarray,
    masks: np.ndarray,
    rngs: Sequence[np.random.Generator] | None,
    own_rng: np.random.Generator,
) -> int:
    """Replace, in place, each action its row's mask forbids by a uniformly random legal one, drawn
    exactly as the scalar agents do (``legal[rng.integers(legal.size)]``), in row order; returns how
    many were replaced (the agents' ``fallbacks`` count). A loop, but over rows that should not exist."""
    bad = np.flatnonzero(~masks[np.arange(actions.size), actions])
    for i in bad.tolist():
        legal = np.flatnonzero(masks[i])
        rng = own_rng if rngs is None else rngs[i]
        actions[i] = legal[rng.integers(legal.size)]
    return int(bad.size)


def sequential_sum(terms: np.ndarray, include: np.ndarray | None, axis: int = -1) -> np.ndarray:
    """``0 + t_0 + t_1 + ...`` over the included terms along ``axis`` (``include`` None: every term),
    added one by one in order, in the terms' float type (float64 for integers).

    This is the exact float arithmetic of a Python ``for`` loop (or of CPython 3.11's ``sum``) over the
    same terms, element by element, so a vectorised decision that compares such sums reproduces the
    scalar one bit for bit (``np.sum`` adds pairwise, in another order).
    """
    if include is None:  # (no mask to broadcast: a few calls less on a hot path)
        terms = np.moveaxis(np.asarray(terms), axis, -1)
        dtype = terms.dtype if np.issubdtype(terms.dtype, np.floating) else np.float64
        acc = np.zeros(terms.shape[:-1], dtype=dtype)
        for k in range(terms.shape[-1]):
            acc = acc + terms[..., k]
        return acc
    terms, include = np.broadcast_arrays(terms, include)
    terms, include = np.moveaxis(terms, axis, -1), np.moveaxis(include, axis, -1)
    dtype = terms.dtype if np.issubdtype(terms.dtype, np.floating) else np.float64
    acc = np.zeros(terms.shape[:-1], dtype=dtype)
    for k in range(terms.shape[-1]):
        acc = np.where(include[..., k], acc + terms[..., k], acc)
    return acc
