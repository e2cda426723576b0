"""Kakeya's record in the game registry (``kabu_envs.registry``): what the game is.

What the tools do with it lives with the game's data for them: ``plans.py`` (the evaluations, the demo,
the docs' pictures), ``batch.py`` (``make_batch``), ``view.py`` (``VIEWER``) and ``presets/``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kabu_envs.registry import GameSpec, Role, register


def partnerships(engine: Any, rows: np.ndarray) -> np.ndarray:
    """The partnerships' seats (docs/kakeya.md#seats-and-partnerships), from the engine's one
    definition: the same for every game of a table size, ``(len(rows), n // 2, 2)``."""
    from kabu_envs.kakeya.game import partnership_seats

    n = engine.num_players
    table = np.array([partnership_seats(p, n) for p in range(n // 2)], dtype=np.int64)
    return np.broadcast_to(table[None], (len(rows), *table.shape))


SPEC = register(
    GameSpec(
        id="kakeya",
        title="Kakeya",
        package="kabu_envs.kakeya",
        players=(4, 6),
        env="kabu_envs.kakeya_v2:env",
        raw_env="kabu_envs.kakeya_v2:raw_env",
        make_config="kabu_envs.kakeya.config:make_config",
        roles=(Role("partnership", partnerships, "team", "every seat of one partnership"),),
        agents={
            "scripted": "kabu_envs.kakeya.agents.scripted:KakeyaScriptedAgent",
            "expert": "kabu_envs.kakeya.agents.net_expert:KakeyaNetExpertAgent",
            "expert_0_2": "kabu_envs.kakeya.agents.expert:KakeyaExpert02Agent",
            "expert_0_3": "kabu_envs.kakeya.agents.kernel_expert:KakeyaExpert03Agent",
        },
        reference="scripted",
        pettingzoo_id="kabu_envs/Kakeya-v2",
        gym_ids={"kabu_envs/Kakeya-v2": {"role": "partnership"}},
        doc="partnership trick-taking with trumps and Rensho (docs/kakeya.md)",
        rewards=(
            'at the end of each deal, every seat of a partnership gets its stone change (reward="stones",'
            ' the default) or the normalised egara difference (reward="egara"); seats sitting out get 0'
        ),
        episode=(
            "a match of up to max_deals deals (default 1); it ends early once a partnership has no"
            " stones left"
        ),
        versions={
            "kakeya_v0": (
                "first release (Rensho had to follow suit as its holder's only card of the led suit)"
            ),
            "kakeya_v1": 'rensho_follow="free" by default: Rensho is never forced out to follow suit',
            "kakeya_v2": (
                'the Kakeya text\'s defaults: rensho_rule="seed" (the ace of clubs is Rensho under clubs'
                ' trumps) and, with six players, six_player_mode="all_play"'
            ),
        },
    )
)
