"""Duplicate matches of any registered game, in the format its role declares.

``matchup(game, agent, opponent, role, deals, seed, env_options)`` returns a ``MatchResult`` whose
advantages follow docs/baselines.md; the role's ``duplicate`` format (``kabu_envs.registry.Role``)
decides how:

* ``"seat"`` (Oicho-Kabu's bettor and dealer): ``role_duplicate`` with the game's reference agent
  (``GameSpec.reference``, "scripted") on every other seat; the role's seat rotates over its seat
  groups deal by deal (seat rotation).
* ``"team"`` (a Kakeya partnership, a Toy Card seat): ``partnership_duplicate``, the agent playing
  every group of the role in turn.
"""

from __future__ import annotations

from typing import Any

from eval.duplicate import MatchResult, partnership_duplicate, role_duplicate
from kabu_envs import registry


def make_aec(game: str, render_mode: str | None = None, **env_options: Any) -> Any:
    """The raw AEC env of a game (raw: the harness follows the AEC protocol itself)."""
    return registry.get(game).make_raw_env(render_mode=render_mode, **env_options)


def default_role(game: str) -> str:
    return registry.get(game).default_role


def rotating_seat(role: registry.Role):
    """Seat of ``role`` in a reset env: the first seat of group ``deal_index % len(groups)``."""

    def seat(env: Any, deal_index: int) -> int:
        groups = role.groups(env)
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
) -> MatchResult:
    """Duplicate match of ``agent`` vs ``opponent`` (see the module docstring)."""
    env_options = dict(env_options or {})
    spec = registry.get(game)
    the_role = spec.role(role)
    env = spec.make_raw_env(**env_options)
    if the_role.duplicate == "seat":
        if reference is None:
            from agents.registry import make_agent

            reference = make_agent(game, spec.reference, seed, **env_options)
        return role_duplicate(env, agent, opponent, reference, rotating_seat(the_role), deals, seed)
    return partnership_duplicate(env, agent, opponent, the_role.groups, deals, seed)
