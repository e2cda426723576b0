"""Single-agent views of the two games (the Gymnasium ids' entry points).

* Oicho-Kabu: the learner plays one seat of the requested ``role`` ("bettor" or
  "dealer"), chosen per episode among the seats holding that role after the deal is
  reset (with the default ``dealer_selection="fixed"`` player_0 deals, so a bettor
  learner gets one of player_1..player_{n-1}).
* Kakeya: the learner plays one partnership, drawn per episode. ``partner="self"``
  (default): the learner acts for every seat of its partnership, each seat seeing only
  its own observation (shared-parameter team self-play, the natural reading of "the
  agent plays one partnership" used by the duplicate evaluation). ``partner="pool"``:
  the learner plays one seat and its partner is drawn from the opponent pool.

``opponents`` may be agent names ("random", "scripted", "ppo_..."), agents, or an
``OpponentPool``; names are built with the env's rule options.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kabu_envs.wrappers.single_agent import LearnerSeats, OpponentPool, SingleAgentView

ROLES = ("bettor", "dealer")


def oicho_role_seats(aec: Any, role: str) -> list[int]:
    """Seats holding ``role`` in the current (reset) Oicho-Kabu deal."""
    game = aec.unwrapped.game
    if role == "dealer":
        return [int(game.dealer)]
    if role == "bettor":
        return [s for s in range(game.num_players) if s != game.dealer]
    raise ValueError(f"unknown Oicho-Kabu role {role!r}; use one of {ROLES}")


def oicho_learner(role: str) -> LearnerSeats:
    if role not in ROLES:
        raise ValueError(f"unknown Oicho-Kabu role {role!r}; use one of {ROLES}")

    def choose(aec: Any, rng: np.random.Generator) -> tuple[int]:
        seats = oicho_role_seats(aec, role)
        return (seats[int(rng.integers(len(seats)))],)

    return choose


def kakeya_teams(num_players: int) -> list[list[int]]:
    """Partnerships: seat i is in partnership i % (n // 2)."""
    k = num_players // 2
    return [[s for s in range(num_players) if s % k == p] for p in range(k)]


def kakeya_learner(partner: str = "self") -> LearnerSeats:
    if partner not in ("self", "pool"):
        raise ValueError(f"partner must be 'self' or 'pool', got {partner!r}")

    def choose(aec: Any, rng: np.random.Generator) -> tuple[int, ...]:
        teams = kakeya_teams(len(aec.possible_agents))
        team = teams[int(rng.integers(len(teams)))]
        if partner == "self":
            return tuple(team)
        return (team[int(rng.integers(len(team)))],)

    return choose


def resolve_opponents(game: str, opponents: Any, seed: int | None, rule_options: dict[str, Any]) -> Any:
    """Turn names into agents (each name once), leave agents and pools alone."""
    from agents.registry import make_agent

    if isinstance(opponents, str):
        opponents = [opponents]
    if isinstance(opponents, OpponentPool) or hasattr(opponents, "act"):
        return opponents
    out = []
    for i, o in enumerate(opponents):
        if isinstance(o, str):
            o = make_agent(game, o, None if seed is None else seed + i, fast=True, **rule_options)
        out.append(o)
    return out


def oicho_view(
    role: str = "bettor",
    opponents: Any = "scripted",
    illegal_action: str = "raise",
    render_mode: str | None = None,
    seed: int | None = None,
    **rule_options: Any,
) -> SingleAgentView:
    """Oicho-Kabu from one seat of ``role``; the other seats are played by ``opponents``."""
    from kabu_envs import oicho_kabu_v0

    return SingleAgentView(
        lambda rm: oicho_kabu_v0.raw_env(render_mode=rm, **rule_options),
        oicho_learner(role),
        resolve_opponents("oicho_kabu", opponents, seed, rule_options),
        illegal_action=illegal_action,
        render_mode=render_mode,
    )


def kakeya_view(
    partner: str = "self",
    opponents: Any = "scripted",
    illegal_action: str = "raise",
    render_mode: str | None = None,
    seed: int | None = None,
    **rule_options: Any,
) -> SingleAgentView:
    """Kakeya from one partnership; the other seats are played by ``opponents``."""
    from kabu_envs import kakeya_v0

    return SingleAgentView(
        lambda rm: kakeya_v0.raw_env(render_mode=rm, **rule_options),
        kakeya_learner(partner),
        resolve_opponents("kakeya", opponents, seed, rule_options),
        illegal_action=illegal_action,
        render_mode=render_mode,
    )


def oicho_bettor_view(**kwargs: Any) -> SingleAgentView:
    return oicho_view(role="bettor", **kwargs)


def oicho_dealer_view(**kwargs: Any) -> SingleAgentView:
    return oicho_view(role="dealer", **kwargs)


def toy_view(
    num_players: int = 2,
    learner_seats: Sequence[int] = (0,),
    together: bool = False,
    opponents: Any = "random",
    illegal_action: str = "raise",
    render_mode: str | None = None,
    seed: int | None = None,
) -> SingleAgentView:
    """The toy game as a single-agent view, for tests.

    The learner plays one of ``learner_seats`` per episode, or all of them when ``together``.
    """
    from kabu_envs.wrappers.toy_env import ToyCardEnv

    seats = tuple(int(s) for s in learner_seats)
    return SingleAgentView(
        lambda rm: ToyCardEnv(num_players, render_mode=rm),
        (lambda env, rng: seats) if together else seats,
        resolve_opponents("toy", opponents, seed, {}),
        illegal_action=illegal_action,
        render_mode=render_mode,
    )
