"""Single-agent views of every registered game (the Gymnasium ids' entry point).

``make_view(game, role=None, opponents="scripted", **rule_options)``: the learner takes one seat group
of ``role`` (see ``kabu_envs.registry.Role``), drawn per episode among the groups holding that role
after the deal is reset (e.g. an Oicho-Kabu bettor learner gets one of the non-dealer seats). A group
of several seats (a Kakeya partnership) is played by the learner as a whole with ``partner="self"``
(default: shared-parameter team self-play, each seat seeing only its own observation); with
``partner="pool"`` the learner plays one seat of the group and its partners come from the pool.
``seats=(...)`` instead fixes the learner's candidate seats (one per episode, or all of them with
``together=True``), whatever the role.

``render_mode="rgb_array"`` frames show the table as the learner's acting seat sees it
(``render_seat="learner"``; ``None`` = every card, or a seat number).

``opponents`` may be agent names (``"random"``, ``"scripted"``, ``"ppo_..."``), agents, or an
``OpponentPool``; names are built with the env's rule options.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kabu_envs import registry
from kabu_envs.wrappers.single_agent import LearnerSeats, SingleAgentView, deprecated_penalty

PARTNER_MODES = ("self", "pool")


def role_learner(role: registry.Role, partner: str = "self") -> LearnerSeats:
    """Per episode: one seat group of ``role``; all of it (``"self"``) or one seat of it (``"pool"``)."""
    if partner not in PARTNER_MODES:
        raise ValueError(f"partner must be one of {PARTNER_MODES}, got {partner!r}")

    def choose(aec: Any, rng: np.random.Generator) -> tuple[int, ...]:
        groups = role.groups(aec)
        group = groups[int(rng.integers(len(groups)))]
        if partner == "self" or len(group) == 1:
            return tuple(group)
        return (group[int(rng.integers(len(group)))],)

    return choose


def fixed_learner(seats: Sequence[int], together: bool) -> LearnerSeats | tuple[int, ...]:
    """The learner plays one of ``seats`` per episode, or all of them when ``together``."""
    chosen = tuple(int(s) for s in seats)
    if not chosen:
        raise ValueError("seats=() gives the learner no seat")
    return (lambda aec, rng: chosen) if together else chosen


def resolve_opponents(game: str, opponents: Any, seed: int | None, rule_options: dict[str, Any]) -> Any:
    """Turn names into agents (each name once), leave agents and pools alone."""
    from kabu_envs.agents.registry import make_agent

    if isinstance(opponents, str):
        opponents = [opponents]
    if not isinstance(opponents, (list, tuple)):  # an agent or a pool (OpponentPool.of adapts agents)
        return opponents
    out = []
    for i, o in enumerate(opponents):
        if isinstance(o, str):
            o = make_agent(game, o, None if seed is None else seed + i, fast=True, **rule_options)
        out.append(o)
    return out


def make_view(
    game: str,
    role: str | None = None,
    opponents: Any = "scripted",
    partner: str = "self",
    seats: Sequence[int] | None = None,
    together: bool = False,
    illegal_action: str = "penalty",
    render_mode: str | None = None,
    seed: int | None = None,
    render_seat: int | str | None = "learner",
    illegal_reward: float | None = None,
    illegal_penalty: float | None = None,
    **rule_options: Any,
) -> SingleAgentView:
    """``game`` from the learner's seats; every other seat is played by ``opponents``. An illegal action
    ends the episode with ``illegal_reward`` (-1.0) and a warning, or raises with
    ``illegal_action="raise"`` (kabu_envs/wrappers/single_agent.py); ``illegal_penalty`` is the deprecated
    name of ``illegal_reward``."""
    spec = registry.get(game)
    if seats is not None:
        learner: Any = fixed_learner(seats, together)
    else:
        learner = role_learner(spec.role(role), partner)
    return SingleAgentView(
        lambda rm: spec.make_raw_env(render_mode=rm, **rule_options),
        learner,
        resolve_opponents(game, opponents, seed, rule_options),
        illegal_action=illegal_action,
        illegal_reward=deprecated_penalty(illegal_penalty, illegal_reward),
        render_mode=render_mode,
        render_seat=render_seat,
    )
