"""kabu-envs: reinforcement-learning environments for Japanese card games.

``from kabu_envs import oicho_kabu_v2, kakeya_v1`` gives the versioned PettingZoo
AEC environment modules (each with ``env()`` and ``raw_env()``).
"""

# The package version, in this one place: pyproject.toml reads it (``dynamic = ["version"]``).
__version__ = "0.2.0"


def __getattr__(name: str) -> object:
    """``kabu_envs.registry`` without an explicit import, loaded on first use (PEP 562): ``import
    kabu_envs`` itself stays free of numpy and of every game."""
    if name == "registry":
        import importlib

        return importlib.import_module("kabu_envs.registry")
    raise AttributeError(f"module 'kabu_envs' has no attribute {name!r}")
