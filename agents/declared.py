"""What a game declares for its policies (features, symmetries, stages): named records in one of its
own modules, found through its registry record (``GameSpec.hook``), so no tool asks which game it is."""

from __future__ import annotations

from typing import Any


def declared(game: str, hook: tuple[str, str]) -> dict[str, Any]:
    """The records ``game`` declares under ``hook`` (module, attribute): name -> record, none when it has
    no such module or attribute."""
    from kabu_envs import registry

    found = registry.get(game).hook(*hook)
    return dict(found or {})


def pick(known: dict[str, Any], what: str, game: str, name: str) -> Any:
    """The record ``name`` of ``known`` (a game's declared records); an unknown name raises naming the
    known ones (``what``: how the message calls them, e.g. "policy features")."""
    if name not in known:
        raise ValueError(f"unknown {what} {name!r} for {game}; known: {sorted(known) or 'none'}")
    return known[name]
