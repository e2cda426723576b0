"""What a person playing one seat is shown: the seat view, a JSON-ready dict (pure Python).

``kabu-play`` (terminal and web) and ``kabu-replay`` draw every game from the same few fields, so a
game supplies one ``Viewer`` (``VIEWER`` in its package's ``view.py``) and the tools stay generic. The
view is built from the game state like an observation, and follows the same rule: **it holds only what
the seat may see** (a test swaps the unseen cards and compares the JSON). A hidden card is
``{"hidden": True}``: no id, no value.

A view::

    {
      "title": "Oicho-Kabu, round 1/1",           # one line
      "status": ["dealer: player_2", ...],         # short public lines (phase, whose turn, chips)
      "zones": [{"label": "spread 0", "cards": [card, ...], "note": "p1: 5", "active": False,
                 "seat": None, "backs": 0, "stakes": [[1, 5]]}, ...],
      "hand": {"label": "your hand", "cards": [card, ...]} or None,   # the seat's own cards
      "round": 0,                                  # rounds (deals) finished: a change = a round ended
      "result": ["spread 0: bettors win x1", ...], # the last finished round, as far as the seat saw it
    }

A zone's optional placing fields let the web page lay out a table without knowing the game: ``seat``
is the seat the zone sits in front of (None: the middle of the table), ``backs`` how many face-down
cards that seat holds (drawn as card backs with the count; a public count, never the cards), and
``stakes`` the chips on it as ``[seat, amount]`` pairs.

A card is ``{"id": 51, "rank": "A", "suit": "♠", "red": False, "kind": "western", "light": False,
"name": "ace of spades"}`` (``kind`` picks the picture: ``western``, ``hanafuda``, ``kabufuda``,
``number``) or ``{"hidden": True}``.
"""

from __future__ import annotations

from typing import Any, Protocol

Card = dict[str, Any]
View = dict[str, Any]

HIDDEN: Card = {"hidden": True}


def hidden_card() -> Card:
    """A face-down card: nothing about it."""
    return dict(HIDDEN)


def face_card(
    card_id: int, kind: str, rank: str, name: str, suit: str = "", red: bool = False, light: bool = False
) -> Card:
    """A seen card: what the page needs to draw it (``kind``: ``western``, ``hanafuda``, ``kabufuda``,
    ``number``)."""
    return {"id": card_id, "kind": kind, "rank": rank, "suit": suit, "red": red, "light": light, "name": name}


def zone(
    label: str,
    cards: list[Card],
    note: str = "",
    active: bool = False,
    seat: int | None = None,
    backs: int = 0,
    stakes: list[list[int]] | None = None,
) -> dict[str, Any]:
    """One zone of a view; ``seat``, ``backs``, ``stakes``: where the page places it (module docstring)."""
    if backs < 0:
        raise ValueError(f"zone {label!r}: backs (face-down cards held) must be >= 0, got {backs}")
    return {
        "label": label,
        "cards": cards,
        "note": note,
        "active": active,
        "seat": seat,
        "backs": int(backs),
        "stakes": [[int(p), int(a)] for p, a in stakes or []],
    }


class Viewer(Protocol):
    """The play hooks of a game (its ``view.py:VIEWER``); ``raw_env`` is the game's raw AEC env."""

    def seat_view(self, raw_env: Any, seat: int) -> View:
        """What ``seat`` sees now (see the module docstring)."""
        ...

    def action_label(self, raw_env: Any, action: int) -> str:
        """A short name of ``action`` for a button or a numbered choice (``"Bet 5"``, ``"Play A♠"``)."""
        ...

    def move_text(self, raw_env: Any, actor: int, action: int, viewer: int) -> str | None:
        """What ``viewer`` learns of ``actor`` taking ``action`` (called before it is applied), or None
        when the viewer does not see the move at all."""
        ...

    def action_card(self, raw_env: Any, action: int) -> int | None:
        """The id of the hand card ``action`` plays (the web page makes that card clickable), else None."""
        ...


class GenericViewer:
    """The fallback for a game without a viewer: the raw observation and the engine's action names."""

    def seat_view(self, raw_env: Any, seat: int) -> View:
        obs = raw_env.observe(raw_env.possible_agents[seat])["observation"]
        game = raw_env.game
        return {
            "title": str(raw_env.metadata.get("name", "game")),
            "status": [f"you are player_{seat}", "observation: " + " ".join(f"{x:g}" for x in obs.tolist())],
            "zones": [],
            "hand": None,
            "round": int(bool(getattr(game, "terminal", False))),
            "result": [],
        }

    def action_label(self, raw_env: Any, action: int) -> str:
        describe = getattr(raw_env.game, "action_name", None)
        return str(describe(action)) if callable(describe) else f"action {action}"

    def move_text(self, raw_env: Any, actor: int, action: int, viewer: int) -> str | None:
        return f"player_{actor}: {self.action_label(raw_env, action)}" if actor == viewer else None

    def action_card(self, raw_env: Any, action: int) -> int | None:
        return None
