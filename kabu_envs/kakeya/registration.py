"""Kakeya's record in the game registry (``kabu_envs.registry``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from kabu_envs.registry import DemoPlan, GameSpec, Role, Screenshot, register


def partnerships(raw_env: Any) -> list[list[int]]:
    """The partnerships' seats (docs/kakeya.md#seats-and-partnerships), from the engine's one definition."""
    from kabu_envs.kakeya.game import partnership_seats

    n = len(raw_env.possible_agents)
    return [partnership_seats(p, n) for p in range(n // 2)]


def batch_partnerships(batch_env: Any, b: int) -> list[list[int]]:
    """``partnerships`` for game ``b`` of a batch engine (they depend on the table size alone)."""
    from kabu_envs.kakeya.game import partnership_seats

    n = batch_env.num_players
    return [partnership_seats(p, n) for p in range(n // 2)]


def batch_partnership_table(batch_env: Any, rows: np.ndarray) -> np.ndarray:
    """``batch_partnerships`` of the games ``rows`` as a table (the same for every game)."""
    table = np.array(batch_partnerships(batch_env, 0), dtype=np.int64)
    return np.broadcast_to(table[None], (len(rows), *table.shape))


SPEC = register(
    GameSpec(
        id="kakeya",
        title="Kakeya",
        env="kabu_envs.kakeya_v1:env",
        raw_env="kabu_envs.kakeya_v1:raw_env",
        make_config="kabu_envs.kakeya.config:make_config",
        roles=(
            Role(
                "partnership",
                partnerships,
                "team",
                "every seat of one partnership",
                batch_seat_groups=batch_partnerships,
                batch_seat_table=batch_partnership_table,
            ),
        ),
        agents={
            "scripted": "kabu_envs.kakeya.agents.scripted:KakeyaScriptedAgent",
            "expert": "kabu_envs.kakeya.agents.expert:KakeyaExpertAgent",
        },
        reference="scripted",
        eval_opponents=("random", "scripted"),
        eval_deals=1000,
        # the expert searches every card (about 6 ms a decision, one decision at a time): its matchups
        # play 1000 deals, the batched ones 2000 (docs/baselines.md)
        demo=DemoPlan(
            roles=("partnership",),
            opponents=("random", "scripted", "expert"),
            reference_rows=(("scripted", "random"), ("expert", "random"), ("expert", "scripted")),
            deals=2000,
            sample_title="Kakeya deal",
            order=1,
            agent_deals={"expert": 1000},
        ),
        pettingzoo_id="kabu_envs/kakeya-v1",
        training_presets="kabu_envs.kakeya:presets",
        batch="kabu_envs.kakeya.batch:make_batch",
        screenshots=(
            Screenshot(
                "kakeya_god", 33, seed=4, caption="Kakeya, god view: the eighth trick, three cards played"
            ),
            Screenshot("kakeya_seat", 33, seed=4, seat=0, caption="the same moment as player_0 sees it"),
            Screenshot(
                "kakeya_6p_all_play",
                19,
                seed=3,
                rule_options={"num_players": 6, "six_player_mode": "all_play"},
                caption="Kakeya, six players, all play: three partnerships",
            ),
        ),
        gym_ids={"kabu_envs/Kakeya-v1": {"role": "partnership"}},
        viewer="kabu_envs.kakeya.view:VIEWER",
        doc="partnership trick-taking with trumps and Rensho (docs/kakeya.md)",
    )
)
