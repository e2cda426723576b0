"""Game-specific duplicate formats: which seats a matchup uses in each game.

``matchup(game, agent, opponent, role, deals, seed, env_options)`` returns a
``MatchResult`` whose advantages follow docs/baselines.md:

* ``oicho_kabu`` role "bettor"/"dealer": ``role_duplicate`` with the scripted agent as
  the reference on every other seat; the bettor seat rotates over the bettor seats
  deal by deal (seat rotation), the dealer seat is whoever deals.
* ``kakeya`` role "partnership": ``partnership_duplicate`` over all partnerships.
* ``toy``: partnership format with one seat per "team".
"""

from __future__ import annotations

from typing import Any

from eval.duplicate import MatchResult, partnership_duplicate, role_duplicate


def make_aec(game: str, render_mode: str | None = None, **env_options: Any) -> Any:
    """The raw AEC env of a game (raw: the harness follows the AEC protocol itself)."""
    if game == "oicho_kabu":
        from kabu_envs import oicho_kabu_v0

        return oicho_kabu_v0.raw_env(render_mode=render_mode, **env_options)
    if game == "kakeya":
        from kabu_envs import kakeya_v0

        return kakeya_v0.raw_env(render_mode=render_mode, **env_options)
    if game == "toy":
        from kabu_envs.wrappers.toy_env import ToyCardEnv

        return ToyCardEnv(render_mode=render_mode, **env_options)
    raise ValueError(f"unknown game {game!r}; use oicho_kabu, kakeya or toy")


def default_role(game: str) -> str:
    return {"oicho_kabu": "bettor", "kakeya": "partnership", "toy": "seat"}[game]


def oicho_role_seat(role: str):
    """Seat of ``role`` in a reset Oicho-Kabu env; bettors rotate with the deal index."""
    from kabu_envs.wrappers.games import oicho_role_seats

    def seat(env: Any, deal_index: int) -> int:
        seats = oicho_role_seats(env, role)
        return seats[deal_index % len(seats)]

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
    role = role or default_role(game)
    env = make_aec(game, **env_options)
    if game == "oicho_kabu":
        if reference is None:
            from agents.registry import make_agent

            reference = make_agent(game, "scripted", seed, **env_options)
        return role_duplicate(env, agent, opponent, reference, oicho_role_seat(role), deals, seed)
    if game == "kakeya":
        if role != "partnership":
            raise ValueError(f"Kakeya has only the role 'partnership', got {role!r}")
        from kabu_envs.wrappers.games import kakeya_teams

        teams = kakeya_teams(len(env.possible_agents))
        return partnership_duplicate(env, agent, opponent, teams, deals, seed)
    teams = [[s] for s in range(len(env.possible_agents))]
    return partnership_duplicate(env, agent, opponent, teams, deals, seed)
