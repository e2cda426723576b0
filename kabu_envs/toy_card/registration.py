"""Toy Card's record in the game registry: everything the tools need, in one place."""

from __future__ import annotations

from kabu_envs.registry import (
    GameSpec,
    Role,
    batch_seat_groups_each_seat,
    batch_seat_table_each_seat,
    register,
    seat_groups_each_seat,
)

SPEC = register(
    GameSpec(
        id="toy_card",
        title="Toy Card",
        env="kabu_envs.toy_card.env:env",
        raw_env="kabu_envs.toy_card.env:raw_env",
        make_config="kabu_envs.toy_card.config:make_config",
        # Every seat is its own side: the duplicate evaluation lets the agent play each seat in turn.
        roles=(
            Role(
                "seat",
                seat_groups_each_seat,
                "team",
                "one seat",
                batch_seat_groups_each_seat,
                batch_seat_table_each_seat,
            ),
        ),
        agents={"scripted": "kabu_envs.toy_card.agents.scripted:ScriptedAgent"},
        eval_opponents=("random", "scripted"),
        eval_deals=200,
        pettingzoo_id="kabu_envs/toy_card-v0",
        gym_ids={"kabu_envs/ToyCard-v0": {"role": "seat"}},
        training_presets="kabu_envs.toy_card:presets",
        batch="kabu_envs.toy_card.batch:ToyCardBatch",
        viewer="kabu_envs.toy_card.view:VIEWER",
        doc="a one-card betting game for tests and as the template of a new game",
    )
)
