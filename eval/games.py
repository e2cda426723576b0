"""Duplicate matches of any registered game, in the format its role declares.

``matchup(game, agent, opponent, role, deals, seed, env_options)`` returns a ``MatchResult`` whose
advantages follow docs/evaluation.md#the-duplicate-format. It builds the match's ``DuplicatePlan``
first (``duplicate_plan``:
the deal seeds, the role's seat groups in each deal read from the game's batch engine's ``seat_table``
after one reset of all the deals, and who sits where in each play), then plays it (``play_match``); the
role's ``duplicate`` format (``kabu_envs.registry.Role``) decides the plays:

* ``"seat"`` (Oicho-Kabu's bettor and dealer): the game's reference agent (``GameSpec.reference``,
  "scripted") on every other seat; the role's seat rotates over its seat groups deal by deal.
* ``"team"`` (a Kakeya partnership, a Toy Card seat): the agent plays every group of the role in turn.

When the game has a vectorised batch engine (``kabu_envs.batch.engine_factory``) and every agent of the
match declares ``capabilities.batch``, the plays run on it (``kabu_envs.batch.make``), many at once; the
results are those of the scalar path (same deals, same decisions). ``batched=False`` forces the scalar
path, ``batched=True`` the batched one (on the reference loop ``LoopBatchEnv`` for a game without an
engine of its own: exact, but no faster than the scalar path).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from kabu_envs import batch as kabu_batch
from kabu_envs import registry
from kabu_envs.agents.base import BaseAgent, as_agent
from kabu_envs.eval.duplicate import (
    CHUNK,
    BatchFactory,
    DuplicatePlan,
    MatchResult,
    Recorder,
    match_deal_seeds,
    plan_from_groups,
    play_plan,
    score,
)


def make_aec(game: str, render_mode: str | None = None, **env_options: Any) -> Any:
    """The raw AEC env of a game (raw: the harness follows the AEC protocol itself)."""
    return registry.get(game).make_raw_env(render_mode=render_mode, **env_options)


def default_role(game: str) -> str:
    return registry.get(game).default_role


def rotating_seat(role: registry.Role) -> Callable[[Any, int], int]:
    """Seat of ``role`` in a reset env: the first seat of group ``deal_index % len(groups)`` (what a
    ``"seat"`` plan seats, read from an AEC env)."""

    def seat(env: Any, deal_index: int) -> int:
        groups = role.groups(env)
        return groups[deal_index % len(groups)][0]

    return seat


def deal_groups(
    game: str, role: str | None, deal_seeds: Sequence[int], env_options: Mapping[str, Any] | None = None
) -> tuple[list[list[list[int]]], int]:
    """(the role's seat groups in each deal, the number of seats), read from the game's batch engine
    reset to the deals (``seat_table``; one reset per ``CHUNK`` deals, no AEC env reset per deal)."""
    the_role = registry.get(game).role(role)
    groups: list[list[list[int]]] = []
    players = 0
    for lo in range(0, len(deal_seeds), CHUNK):
        seeds = [int(s) for s in deal_seeds[lo : lo + CHUNK]]
        engine = kabu_batch.make(game, batch_size=len(seeds), **dict(env_options or {}))
        engine.reset(seeds=seeds)
        groups += registry.table_groups(engine.seat_table(the_role, np.arange(len(seeds))))
        players = int(engine.num_players)
    return groups, players


def duplicate_plan(
    game: str,
    role: str | None = None,
    deals: int = 1000,
    seed: int = 0,
    env_options: Mapping[str, Any] | None = None,
    sides: Mapping[str, str] | None = None,
) -> DuplicatePlan:
    """The plan of a match of ``deals`` deals with match seed ``seed`` (module docstring); ``sides``
    labels who plays which side (the reference defaults to the game's)."""
    spec = registry.get(game)
    the_role = spec.role(role)
    seeds = match_deal_seeds(seed, deals)
    groups, players = deal_groups(game, the_role.name, seeds, env_options)
    labels = dict(sides or {})
    if the_role.duplicate == "seat":
        labels.setdefault("reference", spec.reference)
    return plan_from_groups(
        game, the_role.name, the_role.duplicate, seed, seeds, groups, players, tuple(labels.items())
    )


def adapt_players(players: Mapping[str, Any]) -> dict[str, BaseAgent]:
    """Each side's agent through ``as_agent``, one adapter per object (a side played by the same
    object as another stays the same agent, as the duplicate evaluation's re-seeding expects)."""
    seen: dict[int, BaseAgent] = {}
    return {side: seen.setdefault(id(a), as_agent(a)) for side, a in players.items()}


def play_match(
    plan: DuplicatePlan,
    players: Mapping[str, Any],
    env_options: Mapping[str, Any] | None = None,
    batched: bool | None = None,
    record: Recorder | None = None,
) -> MatchResult:
    """Play ``plan`` with ``players`` (side -> agent) on the batched or the scalar path and score it.

    ``batched``: None picks the batched path when the game has a vectorised batch engine and every
    agent of the match declares ``capabilities.batch``; True insists on it (raising, naming the agents
    that cannot); False plays one decision at a time. ``record`` (a ``duplicate.Recorder``) records
    every play; recording plays the scalar path.
    """
    return score(plan, plan_totals(plan, players, env_options, batched, record))


def plan_totals(
    plan: DuplicatePlan,
    players: Mapping[str, Any],
    env_options: Mapping[str, Any] | None = None,
    batched: bool | None = None,
    record: Recorder | None = None,
) -> np.ndarray:
    """Every play's total rewards ``(plays, seats)`` of ``plan`` (``play_match`` before the scoring; a
    worker process plays a slice of a plan with it, ``kabu_envs.eval.parallel``)."""
    if record is not None:
        if batched:
            raise ValueError(
                "recording the games plays them one decision at a time: batched=True cannot record"
            )
        batched = False
    opts = dict(env_options or {})
    agents = adapt_players(players)
    used = [agents[s] for s in plan.needed_sides() if s in agents]
    scalar_only = [a.name for a in used if not a.capabilities.batch]
    if batched and scalar_only:
        raise ValueError(f"batched=True, but these agents cannot act batched: {scalar_only}")
    if batched is None:
        batched = not scalar_only and kabu_batch.engine_factory(plan.game) is not None
    if batched:
        return play_plan(plan, agents, batch=batch_factory(plan.game, opts))
    return play_plan(plan, agents, env=make_aec(plan.game, **opts), record=record)


def matchup(
    game: str,
    agent: Any,
    opponent: Any,
    role: str | None = None,
    deals: int = 1000,
    seed: int = 0,
    env_options: dict[str, Any] | None = None,
    reference: Any = None,
    batched: bool | None = None,
    record: Recorder | None = None,
) -> MatchResult:
    """Duplicate match of ``agent`` vs ``opponent`` (see the module docstring): its plan
    (``duplicate_plan``), played by ``play_match`` (``batched`` and ``record`` as there). ``reference``
    plays the other seats of a ``"seat"`` role (default: the game's reference agent, built here)."""
    env_options = dict(env_options or {})
    spec = registry.get(game)
    players = adapt_players({"agent": agent, "opponent": opponent})
    sides = {side: a.name for side, a in players.items()}
    plan = duplicate_plan(game, role, deals, seed, env_options, sides)
    if "reference" in plan.needed_sides():
        if reference is None:
            from kabu_envs.agents.registry import make_agent

            reference = make_agent(game, spec.reference, seed, **env_options)
        players = adapt_players({**players, "reference": reference})
    return play_match(plan, players, env_options, batched, record)


def batch_factory(game: str, env_options: dict[str, Any]) -> BatchFactory:
    """batch size -> the game's batch engine with these rule options (what the batched path plays on)."""

    def make(batch_size: int) -> Any:
        return kabu_batch.make(game, batch_size=batch_size, **env_options)

    return make
