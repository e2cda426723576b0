"""What a person playing one Toy Card seat is shown (``kabu_envs.core.views``; kabu-play, kabu-replay).

Exactly what the observation holds: the seat's own card, plus its own choice once made. The other
seats' cards and choices stay hidden, even at the end (the observation never shows them).
"""

from __future__ import annotations

from typing import Any

from kabu_envs.core.views import Card, View, face_card, hidden_card, zone
from kabu_envs.toy_card.game import Action, Game


def card(value: int) -> Card:
    return face_card(value, "number", str(value), f"value {value}")


class ToyViewer:
    """``kabu_envs.core.views.Viewer`` for Toy Card."""

    def seat_view(self, raw_env: Any, seat: int) -> View:
        game: Game = raw_env.game
        acted = game.terminal or game.current_player > seat
        zones = [
            zone(
                "you" if p == seat else f"player_{p}",
                [card(game.values[p]) if p == seat else hidden_card()],
                (f"your choice: {Action(game.stakes[seat]).name}" if acted else "") if p == seat else "",
                p == game.current_player,
            )
            for p in range(game.num_players)
        ]
        to_act = (
            "over"
            if game.terminal
            else ("you" if game.current_player == seat else f"player_{game.current_player}")
        )
        return {
            "title": f"Toy Card ({game.num_players} players)",
            "status": [
                f"you are player_{seat}",
                f"to act: {to_act}",
                f"RAISE needs a card of at least {game.config.raise_threshold}",
            ],
            "zones": zones,
            "hand": None,
            "round": int(game.terminal),
            "result": [],
        }

    def action_label(self, raw_env: Any, action: int) -> str:
        return Action(action).name.capitalize()

    def move_text(self, raw_env: Any, actor: int, action: int, viewer: int) -> str | None:
        return f"you: {Action(action).name.lower()}" if actor == viewer else f"player_{actor} acts"

    def action_card(self, raw_env: Any, action: int) -> int | None:
        return None


VIEWER = ToyViewer()
