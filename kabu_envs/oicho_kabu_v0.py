"""Oicho-Kabu version 0 is replaced by ``oicho_kabu_v1`` (the version history of the environment card,
``kabu_envs/oicho_kabu/env.py``).

v1 corrected three readings of the sources that changed play under ``kansai``, ``kabufuda_site`` and
``pin_basami`` (the ``standard`` rules play bit for bit as in v0); v0's readings are not kept, so
importing this module raises instead of silently giving different results.
"""

raise ImportError(
    "kabu_envs.oicho_kabu_v0 was replaced by kabu_envs.oicho_kabu_v1: the standard rules play exactly "
    "as in v0; kansai (free_draw is a permission), kabufuda_site (dealer selection before every deal) "
    "and pin_basami (1-1-1 is an arashi) changed. See the version history in kabu_envs/oicho_kabu/env.py."
)
