"""Oicho-Kabu's record in the game registry (``kabu_envs.registry``): what the game is.

What the tools do with it lives with the game's data for them: ``plans.py`` (the evaluations, the demo,
the best response, the docs' pictures), ``batch.py`` (``make_batch``), ``view.py`` (``VIEWER``) and
``presets/``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kabu_envs.registry import GameSpec, Role, register


def _dealers(engine: Any, rows: np.ndarray) -> np.ndarray:
    """The dealer's seat in the games ``rows``: the scalar ``Game``'s ``dealer`` (one game), or the batch
    engine's per game, from its decision view (``OichoKabuBatch.decision_view()``)."""
    view = getattr(engine, "decision_view", None)
    dealer = view().dealer if view is not None else engine.dealer
    return np.atleast_1d(np.asarray(dealer, dtype=np.int64))[rows]


def bettor_seats(engine: Any, rows: np.ndarray) -> np.ndarray:
    """One group per bettor seat (everyone but the dealer), in seat order: ``(len(rows), n - 1, 1)``.
    ``engine``: the scalar ``Game`` or the batch engine."""
    g = np.arange(engine.num_players - 1, dtype=np.int64)[None, :]
    dealer = _dealers(engine, rows)[:, None]
    return (g + (g >= dealer))[:, :, None]


def dealer_seat(engine: Any, rows: np.ndarray) -> np.ndarray:
    """The dealer's seat: ``(len(rows), 1, 1)``."""
    return _dealers(engine, rows)[:, None, None]


SPEC = register(
    GameSpec(
        id="oicho_kabu",
        title="Oicho-Kabu",
        package="kabu_envs.oicho_kabu",
        players=tuple(range(2, 9)),
        env="kabu_envs.oicho_kabu_v2:env",
        raw_env="kabu_envs.oicho_kabu_v2:raw_env",
        make_config="kabu_envs.oicho_kabu.config:make_config",
        roles=(
            Role(
                "bettor", bettor_seats, "seat", "one bettor seat; seats rotate over the bettors deal by deal"
            ),
            Role("dealer", dealer_seat, "seat", "the dealer's seat"),
        ),
        agents={
            "scripted": "kabu_envs.oicho_kabu.agents.scripted:OichoScriptedAgent",
            "expert": "kabu_envs.oicho_kabu.agents.expert:OichoExpertAgent",
        },
        reference="scripted",
        pettingzoo_id="kabu_envs/OichoKabu-v2",
        gym_ids={
            "kabu_envs/OichoKabuBettor-v2": {"role": "bettor"},
            "kabu_envs/OichoKabuDealer-v2": {"role": "dealer"},
        },
        doc="dealer against bettors, four spreads, closest to 9 (docs/oicho_kabu.md)",
        rewards="chips won or lost in a round, paid to every seat when the round ends; they sum to zero",
        episode="max_rounds rounds (default 1), or fewer once fewer than two seats have chips left",
        versions={
            "oicho_kabu_v0": "first release",
            "oicho_kabu_v1": (
                "kansai and kabufuda_site follow their sources (free_draw for bettors only, the best-paying"
                " yaku of a hand, dealer selection before every deal); standard plays as v0"
            ),
            "oicho_kabu_v2": (
                "the presets follow their sources more closely: the dealer selection and dealer change"
                " (standard, kansai), the dealer's shippin (standard), the unbacked spreads' card"
                ' (standard, kansai), the kabufuda site\'s bets and draws, yaku_choice="showdown"'
            ),
        },
    )
)
