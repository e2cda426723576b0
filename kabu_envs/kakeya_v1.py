"""Kakeya, version 1 (deprecated): v2's env with v1's defaults, kept for one release.

v2 changed two defaults to follow the Kakeya text (docs/kakeya.md#version-history):
``rensho_rule="seed"`` (the ace of clubs is Rensho when clubs are trumps) and, with six players,
``six_player_mode="all_play"``. This module keeps v1's results reproducible: its ``env`` and ``raw_env``
default to ``rensho_rule="traditional"`` and, with ``num_players=6``, ``six_player_mode="dealers_sit_out"``
and ``all_play_payment="each_loser"`` (both options are errors with four players, so they are added only
with six). Use ``kakeya_v2`` for new work.
"""

import warnings
from typing import Any

import numpy as np

from kabu_envs import kakeya_v2
from kabu_envs.kakeya.actions import Action
from kabu_envs.kakeya.config import make_config

warnings.warn(
    "kabu_envs.kakeya_v1 is deprecated: use kabu_envs.kakeya_v2 (Rensho follows the Kakeya text under "
    "clubs, and six players all play by default); kakeya_v1 plays v2 with rensho_rule='traditional' "
    "and, with six players, six_player_mode='dealers_sit_out'",
    DeprecationWarning,
    stacklevel=2,
)


def v1_options(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with v1's defaults filled in where not given (one definition, also for v0)."""
    out = {"rensho_rule": "traditional", **options}
    # only a plain 6 (an array or a string is v2's to refuse, naming the option: no `== 6` on it here)
    n = out.get("num_players")
    if isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n == 6:
        out.setdefault("six_player_mode", "dealers_sit_out")
        out.setdefault("all_play_payment", "each_loser")  # v1's all_play: each loser pays the table's amount
    return out


def raw_env(render_mode: str | None = None, **options: Any) -> Any:
    """v2's raw env with v1's defaults unless given."""
    return kakeya_v2.raw_env(render_mode=render_mode, **v1_options(options))


def env(render_mode: str | None = None, **options: Any) -> Any:
    """v2's wrapped env with v1's defaults unless given."""
    return kakeya_v2.env(render_mode=render_mode, **v1_options(options))


__all__ = ["env", "raw_env", "Action", "make_config"]
