"""Every registered game as an OpenSpiel game (the optional extra ``openspiel``: ``open_spiel``).

``register()`` registers ``python_kabu_<game id>`` with pyspiel for every game of the registry
(``toy_card``, ``oicho_kabu``, ``kakeya``, and any plug-in game); then ``pyspiel.load_game(
"python_kabu_oicho_kabu", {"num_players": 2})`` works like any OpenSpiel game, and OpenSpiel's
algorithms (CFR, MCCFR, exploitability, IS-MCTS, ...) run on it. See docs/openspiel.md.

Importing this package imports pyspiel; nothing else in ``kabu_envs`` imports it.
"""

from __future__ import annotations

from kabu_envs.openspiel.game import KabuGame, KabuState, game_name


def register() -> list[str]:
    """Register every registry game with pyspiel (idempotent); returns their OpenSpiel names."""
    import pyspiel

    from kabu_envs import registry
    from kabu_envs.openspiel.game import game_class, game_type

    known = set(pyspiel.registered_names())
    names = []
    for spec in registry.games():
        name = game_name(spec.id)
        if name not in known:
            cls = game_class(spec.id)
            pyspiel.register_game(game_type(spec.id), cls)
        names.append(name)
    return names


__all__ = ["KabuGame", "KabuState", "game_name", "register"]
