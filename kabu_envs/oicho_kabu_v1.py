"""Oicho-Kabu, version 1 (deprecated): v2's env with v1's defaults (``options.v1_options``).

v2 changed defaults to follow the sources: the encyclopedia's dealer selection, its four
dealer-change conditions and its unbacked spread dealt a card (``standard``, ``kansai``), and in
``kabufuda_site`` no third card on 7 or more, 0-0 by the tie rule,
decisions in asking order and stakes that reach the whole domae (docs/oicho_kabu.md#version-history).
This module keeps v1's results reproducible for one release: its ``env`` and ``raw_env`` put v1's values
under the caller's options. Use ``kabu_envs.oicho_kabu_v2`` for new work.
"""

import warnings
from typing import Any

from kabu_envs import oicho_kabu_v2
from kabu_envs.oicho_kabu.actions import Action
from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.options import v1_options

warnings.warn(
    "kabu_envs.oicho_kabu_v1 is deprecated: use kabu_envs.oicho_kabu_v2 (the dealer is chosen by the "
    "encyclopedia's draw, and kabufuda_site follows the kabufuda site); oicho_kabu_v1 plays v2 with v1's "
    "defaults",
    DeprecationWarning,
    stacklevel=2,
)


def raw_env(render_mode: str | None = None, **options: Any) -> Any:
    """v2's raw env with v1's defaults under ``options``."""
    return oicho_kabu_v2.raw_env(render_mode=render_mode, **v1_options(options))


def env(render_mode: str | None = None, **options: Any) -> Any:
    """v2's wrapped env with v1's defaults under ``options``."""
    return oicho_kabu_v2.env(render_mode=render_mode, **v1_options(options))


__all__ = ["env", "raw_env", "Action", "make_config"]
