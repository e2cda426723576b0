"""Toy Card's record in the game registry: what the game is.

What the tools do with it lives with the game's data for them: ``plans.py`` (its quick evaluation),
``batch.py`` (``make_batch``), ``view.py`` (``VIEWER``) and ``presets/``.
"""

from __future__ import annotations

from kabu_envs.registry import GameSpec, Role, register, seats_each_seat

SPEC = register(
    GameSpec(
        id="toy_card",
        title="Toy Card",
        package="kabu_envs.toy_card",
        players=tuple(range(2, 9)),
        env="kabu_envs.toy_card.env:env",
        raw_env="kabu_envs.toy_card.env:raw_env",
        make_config="kabu_envs.toy_card.config:make_config",
        # Every seat is its own side: the duplicate evaluation lets the agent play each seat in turn.
        roles=(Role("seat", seats_each_seat, "team", "one seat"),),
        agents={"scripted": "kabu_envs.toy_card.agents.scripted:ScriptedAgent"},
        pettingzoo_id="kabu_envs/toy_card-v0",
        gym_ids={"kabu_envs/ToyCard-v1": {"role": "seat"}},
        doc="a one-card betting game for tests and as the template of a new game",
    )
)
