"""Kakeya, version 0 (deprecated): v1's env with v0's following rule, ``rensho_follow="must_follow"``.

v1 changed the default of ``rensho_follow`` to ``"free"`` (the Kakeya text: Rensho is never forced out to
follow suit; docs/kakeya.md#version-history). This module keeps v0's results reproducible: its ``env`` and
``raw_env`` default to ``rensho_follow="must_follow"``. Use ``kakeya_v1`` for new work.
"""

import warnings
from typing import Any

from kabu_envs import kakeya_v1
from kabu_envs.kakeya.actions import Action
from kabu_envs.kakeya.config import make_config

warnings.warn(
    "kabu_envs.kakeya_v0 is deprecated: use kabu_envs.kakeya_v1 (Rensho is no longer forced out to "
    "follow suit by default); kakeya_v0 plays v1 with rensho_follow='must_follow'",
    DeprecationWarning,
    stacklevel=2,
)


def raw_env(render_mode: str | None = None, **options: Any) -> Any:
    """v1's raw env with ``rensho_follow="must_follow"`` unless given."""
    return kakeya_v1.raw_env(render_mode=render_mode, **{"rensho_follow": "must_follow", **options})


def env(render_mode: str | None = None, **options: Any) -> Any:
    """v1's wrapped env with ``rensho_follow="must_follow"`` unless given."""
    return kakeya_v1.env(render_mode=render_mode, **{"rensho_follow": "must_follow", **options})


__all__ = ["env", "raw_env", "Action", "make_config"]
