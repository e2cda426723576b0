"""kabu-envs: reinforcement-learning environments for Japanese card games.

``from kabu_envs import oicho_kabu_v1, kakeya_v1`` gives the versioned PettingZoo
AEC environment modules (each with ``env()`` and ``raw_env()``).
"""

# The package version, in this one place: pyproject.toml reads it (``dynamic = ["version"]``).
__version__ = "0.2.0"
