"""Oicho-Kabu's record in the game registry (``kabu_envs.registry``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from kabu_envs.registry import DemoPlan, GameSpec, Role, Screenshot, register


def bettor_seats(raw_env: Any) -> list[list[int]]:
    """One group per bettor seat of the deal the env was reset to (everyone but the dealer)."""
    game = raw_env.unwrapped.game
    return [[s] for s in range(game.num_players) if s != game.dealer]


def batch_bettor_seats(batch_env: Any, b: int) -> list[list[int]]:
    """``bettor_seats`` for game ``b`` of the batch engine."""
    dealer = int(batch_env.dealer[b])
    return [[s] for s in range(batch_env.num_players) if s != dealer]


def batch_bettor_table(batch_env: Any, rows: np.ndarray) -> np.ndarray:
    """``batch_bettor_seats`` of the games ``rows`` as a table: (k, n - 1, 1), the seats after skipping
    each game's dealer, in seat order."""
    g = np.arange(batch_env.num_players - 1, dtype=np.int64)[None, :]
    dealer = np.asarray(batch_env.dealer)[rows][:, None]
    return (g + (g >= dealer))[:, :, None]


def batch_dealer_table(batch_env: Any, rows: np.ndarray) -> np.ndarray:
    """``batch_dealer_seat`` of the games ``rows`` as a table: (k, 1, 1)."""
    return np.asarray(batch_env.dealer, dtype=np.int64)[rows][:, None, None]


def batch_dealer_seat(batch_env: Any, b: int) -> list[list[int]]:
    """``dealer_seat`` for game ``b`` of the batch engine."""
    return [[int(batch_env.dealer[b])]]


def dealer_seat(raw_env: Any) -> list[list[int]]:
    """The dealer's seat of the deal the env was reset to."""
    return [[int(raw_env.unwrapped.game.dealer)]]


SPEC = register(
    GameSpec(
        id="oicho_kabu",
        title="Oicho-Kabu",
        env="kabu_envs.oicho_kabu_v1:env",
        raw_env="kabu_envs.oicho_kabu_v1:raw_env",
        make_config="kabu_envs.oicho_kabu.config:make_config",
        roles=(
            Role(
                "bettor",
                bettor_seats,
                "seat",
                "one bettor seat; seats rotate over the bettors deal by deal",
                batch_seat_groups=batch_bettor_seats,
                batch_seat_table=batch_bettor_table,
            ),
            Role(
                "dealer",
                dealer_seat,
                "seat",
                "the dealer's seat",
                batch_seat_groups=batch_dealer_seat,
                batch_seat_table=batch_dealer_table,
            ),
        ),
        agents={
            "scripted": "kabu_envs.oicho_kabu.agents.scripted:OichoScriptedAgent",
            "expert": "kabu_envs.oicho_kabu.agents.expert:OichoExpertAgent",
        },
        reference="scripted",
        eval_opponents=("random", "scripted", "expert"),
        eval_deals=1000,
        # Oicho-Kabu deals are cheap but their advantages vary a lot (stakes up to 10 chips times yaku
        # multipliers), so the demo gives it more deals than Kakeya.
        demo=DemoPlan(
            roles=("bettor", "dealer"),
            opponents=("random", "scripted", "expert"),
            reference_rows=(("scripted", "random"), ("expert", "random"), ("expert", "scripted")),
            deals=20000,
            sample_title="Oicho-Kabu round",
            order=0,
            best_response_agents=("random", "scripted", "expert"),
            best_response_deals=1000,
            best_response_setting_deals=300,
        ),
        pettingzoo_id="kabu_envs/oicho_kabu-v1",
        training_presets="kabu_envs.oicho_kabu:presets",
        batch="kabu_envs.oicho_kabu.batch:make_batch",
        best_response="kabu_envs.oicho_kabu.agents.best_response:OichoBestResponse",
        # a scripted dealer, bettors scripted and random (random stakes leave spreads unbacked, so
        # player_3's view hides their second cards)
        screenshots=(
            Screenshot(
                "oicho_kabu_god",
                14,
                seed=7,
                agents=("scripted", "random"),
                caption="Oicho-Kabu, god view: player_1 decides spread 2 (blue frames: face down)",
            ),
            Screenshot(
                "oicho_kabu_seat",
                14,
                seed=7,
                seat=3,
                agents=("scripted", "random"),
                caption="the same moment as player_3 sees it (it backs spreads 0 and 1 only)",
            ),
            Screenshot(
                "oicho_kabu_hanafuda_showdown",
                100,
                seed=2,
                rule_options={"rules": "kansai", "deck": "hanafuda", "num_players": 5},
                caption="Oicho-Kabu, Kansai rules with hanafuda cards: the showdown",
            ),
        ),
        gym_ids={
            "kabu_envs/OichoKabuBettor-v1": {"role": "bettor"},
            "kabu_envs/OichoKabuDealer-v1": {"role": "dealer"},
        },
        viewer="kabu_envs.oicho_kabu.view:VIEWER",
        doc="dealer against bettors, four spreads, closest to 9 (docs/oicho_kabu.md)",
    )
)
