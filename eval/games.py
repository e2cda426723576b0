"""Duplicate matches of any registered game, in the format its role declares.

``matchup(game, agent, opponent, role, deals, seed, env_options)`` returns a ``MatchResult`` whose
advantages follow docs/baselines.md; the role's ``duplicate`` format (``kabu_envs.registry.Role``)
decides how:

* ``"seat"`` (Oicho-Kabu's bettor and dealer): ``role_duplicate`` with the game's reference agent
  (``GameSpec.reference``, "scripted") on every other seat; the role's seat rotates over its seat
  groups deal by deal (seat rotation).
* ``"team"`` (a Kakeya partnership, a Toy Card seat): ``partnership_duplicate``, the agent playing
  every group of the role in turn.

When the game has a vectorised batch engine (``kabu_envs.batch.engine_factory``) and every agent of the match
``can_act_batched``, the deals are played on it (``kabu_envs.batch.make``), many at once; the results
are those of the scalar path (same deals, same decisions). ``batched=False`` forces the scalar path,
``batched=True`` the batched one (on the reference loop ``LoopBatchEnv`` for a game without an engine
of its own: exact, but no faster than the scalar path).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kabu_envs import batch as kabu_batch
from kabu_envs import registry
from kabu_envs.agents.base import can_act_batched
from kabu_envs.eval.duplicate import (
    BatchFactory,
    MatchResult,
    Recorder,
    partnership_duplicate,
    role_duplicate,
)


def make_aec(game: str, render_mode: str | None = None, **env_options: Any) -> Any:
    """The raw AEC env of a game (raw: the harness follows the AEC protocol itself)."""
    return registry.get(game).make_raw_env(render_mode=render_mode, **env_options)


def default_role(game: str) -> str:
    return registry.get(game).default_role


def rotating_seat(role: registry.Role) -> Callable[[Any, int], int]:
    """Seat of ``role`` in a reset env: the first seat of group ``deal_index % len(groups)``."""

    def seat(env: Any, deal_index: int) -> int:
        groups = role.groups(env)
        return groups[deal_index % len(groups)][0]

    return seat


def rotating_batch_seat(role: registry.Role) -> Callable[[Any, int, int], int]:
    """``rotating_seat`` read from game ``b`` of a batch engine just reset (its ``seat_table``)."""

    def seat(batch_env: Any, b: int, deal_index: int) -> int:
        groups = registry.table_groups(batch_env.seat_table(role, [b]))[0]
        return groups[deal_index % len(groups)][0]

    return seat


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
    """Duplicate match of ``agent`` vs ``opponent`` (see the module docstring).

    ``batched``: None picks the batched path when the game has a vectorised batch engine and every
    agent of the match can act batched; True insists on it (raising, naming the agents that cannot);
    False plays one decision at a time. ``record`` (a ``duplicate.Recorder``) records every play;
    recording plays the scalar path.
    """
    if record is not None:
        if batched:
            raise ValueError(
                "recording the games plays them one decision at a time: batched=True cannot record"
            )
        batched = False
    env_options = dict(env_options or {})
    spec = registry.get(game)
    the_role = spec.role(role)
    env = spec.make_raw_env(**env_options)
    if the_role.duplicate == "seat" and reference is None:
        from kabu_envs.agents.registry import make_agent

        reference = make_agent(game, spec.reference, seed, **env_options)
    players = [agent, opponent] + ([reference] if the_role.duplicate == "seat" else [])
    scalar_only = [getattr(p, "name", type(p).__name__) for p in players if not can_act_batched(p)]
    if batched and scalar_only:
        raise ValueError(f"batched=True, but these agents cannot act batched: {scalar_only}")
    if batched is None:
        batched = not scalar_only and kabu_batch.engine_factory(game) is not None
    batch = batch_factory(game, env_options) if batched else None
    if the_role.duplicate == "seat":
        seats = rotating_seat(the_role)
        return role_duplicate(
            env, agent, opponent, reference, seats, deals, seed, batch, rotating_batch_seat(the_role), record
        )
    return partnership_duplicate(env, agent, opponent, the_role.groups, deals, seed, batch, record)


def batch_factory(game: str, env_options: dict[str, Any]) -> BatchFactory:
    """batch size -> the game's batch engine with these rule options (what the batched path plays on)."""

    def make(batch_size: int) -> Any:
        return kabu_batch.make(game, batch_size=batch_size, **env_options)

    return make
