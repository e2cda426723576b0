"""Kakeya, version 0 (deprecated): v1's env with v0's following rule, ``rensho_follow="must_follow"``.

v1 changed the default of ``rensho_follow`` to ``"free"`` (the Kakeya text: Rensho is never forced out to
follow suit; docs/kakeya.md#version-history), and v2 changed two more defaults (``kakeya_v1`` keeps
them). This module keeps v0's results reproducible: its ``env`` and ``raw_env`` play v1's defaults
(``kakeya_v1.v1_options``) with ``rensho_follow="must_follow"``. Use ``kakeya_v2`` for new work.
"""

import warnings
from typing import Any

from kabu_envs import kakeya_v2
from kabu_envs.kakeya.actions import Action
from kabu_envs.kakeya.config import make_config

with warnings.catch_warnings():  # v0's own warning below says what to use; v1's would repeat it
    warnings.simplefilter("ignore", DeprecationWarning)
    from kabu_envs.kakeya_v1 import v1_options

warnings.warn(
    "kabu_envs.kakeya_v0 is deprecated: use kabu_envs.kakeya_v2 (Rensho is no longer forced out to "
    "follow suit by default, and v2 follows the Kakeya text on Rensho and six players); kakeya_v0 plays "
    "kakeya_v1 with rensho_follow='must_follow'",
    DeprecationWarning,
    stacklevel=2,
)


def _v0_options(options: dict[str, Any]) -> dict[str, Any]:
    return v1_options({"rensho_follow": "must_follow", **options})


def raw_env(render_mode: str | None = None, **options: Any) -> Any:
    """v1's raw env with ``rensho_follow="must_follow"`` unless given."""
    return kakeya_v2.raw_env(render_mode=render_mode, **_v0_options(options))


def env(render_mode: str | None = None, **options: Any) -> Any:
    """v1's wrapped env with ``rensho_follow="must_follow"`` unless given."""
    return kakeya_v2.env(render_mode=render_mode, **_v0_options(options))


__all__ = ["env", "raw_env", "Action", "make_config"]
