"""What a person playing one Toy Card seat is shown (``kabu_envs.core.views``; kabu-play, kabu-replay).

Exactly what the observation holds: the seat's own card, plus its own choice once made. The other
seats' cards and choices stay hidden, even at the end (the observation never shows them).
"""

from __future__ import annotations

from typing import Any

from kabu_envs.core.messages import Msg, say
from kabu_envs.core.views import Card, SayingViewer, View, face_card, hidden_card, written, zone
from kabu_envs.toy_card.game import Action, Game

# key -> (log, en, ja): the lines of this viewer (``kabu_envs.core.messages``)
MESSAGES: dict[str, tuple[str, str, str]] = {
    "game.toy_card": ("Toy Card", "Toy Card", "練習用カード"),
    "toy.title": ("Toy Card ({n} players)", "Toy Card ({n} players)", "練習用カード ({n}人)"),
    "toy.card": ("value {v}", "value {v}", "数 {v}"),
    "toy.choice": ("{p:poss} choice: {a}", "{p:poss} choice: {a:@toy.name}", "{p:poss}選択: {a:@toy.name}"),
    "toy.name.PASS": ("PASS", "pass", "パス"),
    "toy.name.PLAY": ("PLAY", "play", "勝負"),
    "toy.name.RAISE": ("RAISE", "raise", "レイズ"),
    "toy.act.PASS": ("Pass", "Pass", "パスする"),
    "toy.act.PLAY": ("Play", "Play", "勝負する"),
    "toy.act.RAISE": ("Raise", "Raise", "レイズする"),
    "toy.raise_needs": (
        "RAISE needs a card of at least {t}",
        "raising needs a card of at least {t}",
        "レイズできるのは{t}以上の札のとき",
    ),
    "toy.move.own": ("you: {low}", "{p:Seat}: {a:@toy.name}", "{p:seat}: {a:@toy.name}"),
    "toy.move.other": ("{p:seat} acts", "{p:Seat} {p:v:act:acts}", "{p:seat}が手を決めた"),
}


def card(value: int) -> Card:
    return face_card(value, "number", str(value), f"value {value}", said=say("toy.card", v=int(value)))


class ToyViewer(SayingViewer):
    """``kabu_envs.core.views.Viewer`` for Toy Card."""

    messages = MESSAGES

    def seat_view(self, raw_env: Any, seat: int) -> View:
        game: Game = raw_env.game
        acted = game.terminal or game.current_player > seat
        choice = [say("toy.choice", p=seat, a=Action(game.stakes[seat]).name)] if acted else []
        zones = [
            zone(
                say("core.who", p=p),
                [card(game.values[p]) if p == seat else hidden_card()],
                choice if p == seat else [],
                p == game.current_player,
            )
            for p in range(game.num_players)
        ]
        to_act = say("core.over") if game.terminal else say("core.to_act", p=game.current_player)
        view = {
            "say": {
                "title": say("toy.title", n=game.num_players),
                "status": [
                    say("core.you_are", p=seat),
                    to_act,
                    say("toy.raise_needs", t=int(game.config.raise_threshold)),
                ],
                "result": [],
            },
            "zones": zones,
            "hand": None,
            "round": int(game.terminal),
        }
        return written(view, MESSAGES, seat)

    def action_say(self, raw_env: Any, action: int) -> Msg:
        return say(f"toy.act.{Action(action).name}")

    def move_say(self, raw_env: Any, actor: int, action: int, viewer: int) -> Msg | None:
        if actor == viewer:
            return say("toy.move.own", p=actor, a=Action(action).name, low=Action(action).name.lower())
        return say("toy.move.other", p=actor)

    def action_card(self, raw_env: Any, action: int) -> int | None:
        return None


VIEWER = ToyViewer()
