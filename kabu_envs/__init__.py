"""kabu-envs: reinforcement-learning environments for Japanese card games.

``from kabu_envs import oicho_kabu_v2, kakeya_v2`` gives the versioned PettingZoo
AEC environment modules (each with ``env()`` and ``raw_env()``).
"""

# The package version, in this one place: pyproject.toml reads it (``dynamic = ["version"]``).
__version__ = "0.3.0"


def _register_pettingzoo() -> None:
    from kabu_envs.registry import register_pettingzoo

    register_pettingzoo()


def _install_pettingzoo_hook() -> None:
    """PettingZoo learns our ids when its registry is imported (``pettingzoo.make("aec",
    "kabu_envs/Kakeya-v1")`` works after ``import kabu_envs``, whichever comes first), while ``import
    kabu_envs`` itself imports neither pettingzoo nor gymnasium (``kabu_envs.core.after_import``)."""
    from kabu_envs.core.after_import import after_import

    after_import("pettingzoo.env_registry.registration", _register_pettingzoo)


_install_pettingzoo_hook()


def __getattr__(name: str) -> object:
    """``kabu_envs.registry`` without an explicit import, loaded on first use (PEP 562): ``import
    kabu_envs`` itself stays free of numpy and of every game."""
    if name == "registry":
        import importlib

        return importlib.import_module("kabu_envs.registry")
    raise AttributeError(f"module 'kabu_envs' has no attribute {name!r}")
