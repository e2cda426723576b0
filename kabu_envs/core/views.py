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
"name": "A♠"}`` (``kind`` picks the picture: ``western``, ``hanafuda``, ``kabufuda``,
``number``) or ``{"hidden": True}``.

Each line is written twice: as English text (the fields above: what the terminal prints) and as a
message (``kabu_envs.core.messages``) under ``say``: ``view["say"]`` holds the title, status and result
lines, a zone's ``say`` its label and its note's parts, a card's ``say`` its name where it has words (a
hanafuda month; A♠ or 7 is in no language). The web page writes
the messages in its language; ``written`` fills the text fields from them, so the two never differ.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from kabu_envs.core.messages import CORE, Msg, Table, render

Card = dict[str, Any]
View = dict[str, Any]

HIDDEN: Card = {"hidden": True}


def hidden_card() -> Card:
    """A face-down card: nothing about it."""
    return dict(HIDDEN)


def face_card(
    card_id: int,
    kind: str,
    rank: str,
    name: str,
    suit: str = "",
    red: bool = False,
    light: bool = False,
    said: Msg | None = None,
) -> Card:
    """A seen card: what the page needs to draw it (``kind``: ``western``, ``hanafuda``, ``kabufuda``,
    ``number``); ``said``: its name as a message (``kabu_envs.core.messages``) when the name has words
    (a hanafuda month); without one the name is in no language (A♠, 7) and shown as it is."""
    out = {"id": card_id, "kind": kind, "rank": rank, "suit": suit, "red": red, "light": light, "name": name}
    if said is not None:
        out["say"] = said
    return out


def zone(
    label: str | Msg,
    cards: list[Card],
    note: str | list[Msg] = "",
    active: bool = False,
    seat: int | None = None,
    backs: int = 0,
    stakes: list[list[int]] | None = None,
) -> dict[str, Any]:
    """One zone of a view; ``seat``, ``backs``, ``stakes``: where the page places it (module docstring).
    ``label`` and ``note`` as messages (a note: its parts) are kept under ``say`` and written as text
    by ``written``."""
    if backs < 0:
        raise ValueError(f"zone {label!r}: backs (face-down cards held) must be >= 0, got {backs}")
    say: dict[str, Any] = {}
    if isinstance(label, dict):
        say["label"], label = label, ""
    if isinstance(note, list):
        say["note"], note = note, ""
    return {
        "label": label,
        "say": say,
        "cards": cards,
        "note": note,
        "active": active,
        "seat": seat,
        "backs": int(backs),
        "stakes": [[int(p), int(a)] for p, a in stakes or []],
    }


def joined(parts: list[Msg]) -> Msg:
    """One message of several parts (written "a; b; c")."""
    return {"key": "core.parts", "args": {"items": parts}}


def written(view: View, table: Table, me: int) -> View:
    """``view`` with its text fields written in English (``log``) from its messages (``say``): the
    title, status and result lines, the zones' labels and notes, the hand's label. ``view["say"]``
    holds ``title``, ``status`` and ``result`` as messages; a zone's and the hand's ``say`` theirs."""
    tables: Mapping[str, tuple[str, str, str]] = {**CORE, **table}
    said = view["say"]
    view["title"] = render(said["title"], tables, me=me)
    view["status"] = [render(m, tables, me=me) for m in said["status"]]
    view["result"] = [render(m, tables, me=me) for m in said["result"]]
    for z in view["zones"]:
        if "label" in z["say"]:
            z["label"] = render(z["say"]["label"], tables, me=me)
        if "note" in z["say"]:
            z["note"] = render(joined(z["say"]["note"]), tables, me=me)
    if view.get("hand") and "say" in view["hand"]:
        view["hand"]["label"] = render(view["hand"]["say"], tables, me=me)
    return view


class Viewer(Protocol):
    """The play hooks of a game (its ``view.py:VIEWER``); ``raw_env`` is the game's raw AEC env. Its
    lines are messages (``kabu_envs.core.messages``) of its table ``messages``: ``seat_view``'s under
    ``say``, ``action_say``, ``move_say``; ``action_label`` and ``move_text`` are their English."""

    messages: Table

    def seat_view(self, raw_env: Any, seat: int) -> View:
        """What ``seat`` sees now (see the module docstring)."""
        ...

    def action_say(self, raw_env: Any, action: int) -> Msg:
        """The name of ``action`` for a button or a numbered choice, as a message."""
        ...

    def move_say(self, raw_env: Any, actor: int, action: int, viewer: int) -> Msg | None:
        """What ``viewer`` learns of ``actor`` taking ``action`` (called before it is applied), or None
        when the viewer does not see the move at all."""
        ...

    def action_label(self, raw_env: Any, action: int) -> str:
        """``action_say`` in English (``"Bet 5"``, ``"Play A♠"``)."""
        ...

    def move_text(self, raw_env: Any, actor: int, action: int, viewer: int) -> str | None:
        """``move_say`` in English, as ``viewer`` is told it."""
        ...

    def action_card(self, raw_env: Any, action: int) -> int | None:
        """The id of the hand card ``action`` plays (the web page makes that card clickable), else None."""
        ...


class SayingViewer:
    """``action_label`` and ``move_text`` written from ``action_say`` / ``move_say`` (a game's viewer
    derives from it and writes messages only)."""

    messages: Table = {}

    def tables(self) -> dict[str, tuple[str, str, str]]:
        return {**CORE, **self.messages}

    def action_say(self, raw_env: Any, action: int) -> Msg:
        raise NotImplementedError

    def move_say(self, raw_env: Any, actor: int, action: int, viewer: int) -> Msg | None:
        raise NotImplementedError

    def action_label(self, raw_env: Any, action: int) -> str:
        return render(self.action_say(raw_env, action), self.tables())

    def move_text(self, raw_env: Any, actor: int, action: int, viewer: int) -> str | None:
        said = self.move_say(raw_env, actor, action, viewer)
        return None if said is None else render(said, self.tables(), me=viewer)


class GenericViewer(SayingViewer):
    """The fallback for a game without a viewer: the raw observation and the actions' numbers."""

    def seat_view(self, raw_env: Any, seat: int) -> View:
        obs = raw_env.observe(raw_env.possible_agents[seat])["observation"]
        game = raw_env.game
        values = " ".join(f"{x:g}" for x in obs.tolist())
        view: View = {
            "say": {
                "title": {"key": "core.title", "args": {"name": str(raw_env.metadata.get("name", "game"))}},
                "status": [
                    {"key": "core.you_are", "args": {"p": seat}},
                    {"key": "core.observation", "args": {"values": values}},
                ],
                "result": [],
            },
            "zones": [],
            "hand": None,
            "round": int(bool(getattr(game, "terminal", False))),
        }
        return written(view, self.messages, seat)

    def action_say(self, raw_env: Any, action: int) -> Msg:
        """The engine's name of the action (its own words) when it has one, else its number."""
        describe = getattr(raw_env.game, "action_name", None)
        if callable(describe):
            return {"key": "core.action_named", "args": {"n": int(action), "name": str(describe(action))}}
        return {"key": "core.action", "args": {"n": int(action)}}

    def move_say(self, raw_env: Any, actor: int, action: int, viewer: int) -> Msg | None:
        if actor != viewer:
            return None
        return {"key": "core.move", "args": {"p": actor, "action": self.action_say(raw_env, action)}}

    def action_card(self, raw_env: Any, action: int) -> int | None:
        return None
