"""What a person playing one Kakeya seat is shown (``kabu_envs.core.views``; kabu-play, kabu-replay).

The seat's own hand; of the other hands only how many cards they hold. Everything played is public:
the trick in play, the last trick and who took it, the egara each partnership captured, the trump,
Rensho, stones and the deals' results (the same as the observation, docs/kakeya.md#observation).
"""

from __future__ import annotations

from typing import Any

from kabu_envs.core.views import Card, View, face_card, zone
from kabu_envs.kakeya.actions import LEAD_PARTNER, LEAD_SELF, TRUMP_BASE
from kabu_envs.kakeya.cards import NUM_CARDS, RANK_NAMES, SUIT_NAMES, bits_to_cards, rank_of, suit_of
from kabu_envs.kakeya.game import Game, Phase, partnership_of

SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")


def card(card_id: int) -> Card:
    """The picture of a seen card."""
    suit, rank = SUIT_SYMBOLS[suit_of(card_id)], RANK_NAMES[rank_of(card_id)]
    return face_card(card_id, "western", rank, rank + suit, suit, red=suit in "♦♥")


def card_text(card_id: int) -> str:
    return RANK_NAMES[rank_of(card_id)] + SUIT_SYMBOLS[suit_of(card_id)]


def _count(n: int, noun: str) -> str:
    """``1 card``, ``2 cards``."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _who(p: int, seat: int, n: int) -> str:
    if p == seat:
        return "you"
    if partnership_of(p, n) == partnership_of(seat, n):
        return f"player_{p} (partner)"
    return f"player_{p}"


class KakeyaViewer:
    """``kabu_envs.core.views.Viewer`` for Kakeya."""

    def seat_view(self, raw_env: Any, seat: int) -> View:
        game: Game = raw_env.game
        cfg = game.cfg
        n = game.num_players
        zones = []
        trick = game.trick
        played = dict(zip(trick.seats, trick.cards, strict=True)) if trick is not None else {}
        for p in range(n):
            tags = [f"partnership {partnership_of(p, n)}"]
            if not game.active[p]:
                tags.append("sits out")
            if p == game.current_player:
                tags.append("to act")
            note = f"{_count(game.hand_counts[p], 'card')} in hand, {_count(game.stones[p], 'stone')}; "
            note += ", ".join(tags)
            cards = [card(played[p])] if p in played else []
            active = p == game.current_player and not game.terminal
            backs = 0 if p == seat else int(game.hand_counts[p])  # (a public count: drawn as backs)
            zones.append(zone(_who(p, seat, n), cards, note, active, seat=p, backs=backs))
        last = game.last_trick
        if last is not None:
            played_by = ", ".join(
                f"{_who(p, seat, n)} {card_text(c)}" for p, c in zip(last.seats, last.cards, strict=True)
            )  # (who played which card: the cards alone do not say)
            note = f"taken by {_who(last.winner, seat, n)}; played: {played_by}"
            zones.append(zone("last trick", [card(c) for c in last.cards], note))
        for q in range(game.num_partnerships):
            mine = " (yours)" if q == partnership_of(seat, n) else ""
            captured = bits_to_cards(game.captured[q])
            zones.append(
                zone(
                    f"partnership {q}{mine}: egara",
                    [card(c) for c in captured],
                    f"{len(captured)} egara, {_count(game.partnership_stones(q), 'stone')}, "
                    f"{_count(game.deals_won[q], 'deal')} won",
                )
            )
        hand = sorted(bits_to_cards(game.hands[seat]), key=lambda c: (suit_of(c), rank_of(c)))
        to_act = "" if game.terminal else f"; to act: {_who(game.current_player, seat, n)}"
        status = [
            f"you are player_{seat}, partnership {partnership_of(seat, n)}",
            f"trump: {SUIT_NAMES[game.trump]} {SUIT_SYMBOLS[game.trump]}; Rensho: {card_text(game.rensho)}; "
            f"first dealer: {_who(game.first_dealer, seat, n)}",
            f"phase: {game.phase.name}{to_act}",
        ]
        result = []
        if game.results:
            r = game.results[-1]
            egara = ", ".join(f"partnership {q}: {e}" for q, e in r.egara.items())
            stones = ", ".join(f"partnership {q}: {d:+d}" for q, d in r.stones_change.items())
            result = [r.describe(brief=True), f"egara: {egara}", f"stones: {stones}"]
            counts = set(r.egara.values())
            if r.winner >= 0 and len(r.egara) == 2 and len(counts) == 1:  # the tie's rule decided it
                result.insert(1, "egara tied: the partnership without Rensho among its egara wins")
        deals = cfg.max_deals
        return {
            "title": f"Kakeya ({n} players), deal {min(game.deal_no + 1, deals)}/{deals}",
            "status": status,
            "zones": zones,
            "hand": {"label": "your hand", "cards": [card(c) for c in hand]},
            "round": game.deal_no,
            "result": result,
        }

    def action_label(self, raw_env: Any, action: int) -> str:
        if 0 <= action < NUM_CARDS:
            return f"Play {card_text(action)}"
        if TRUMP_BASE <= action < TRUMP_BASE + len(SUIT_NAMES):
            s = action - TRUMP_BASE
            return f"Trump {SUIT_NAMES[s]} {SUIT_SYMBOLS[s]}"
        if action == LEAD_SELF:
            return "Lead myself"
        if action == LEAD_PARTNER:
            return "Let my partner lead"
        return f"action {action}"

    def move_text(self, raw_env: Any, actor: int, action: int, viewer: int) -> str | None:
        game: Game = raw_env.game
        who = _who(actor, viewer, game.num_players)
        if game.phase == Phase.PLAY:
            return f"{who} {'play' if actor == viewer else 'plays'} {card_text(action)}"
        if game.phase == Phase.LEAD:
            return f"{who}: " + ("leads" if action == LEAD_SELF else "lets the partner lead")
        return f"{who}: {self.action_label(raw_env, action).lower()}"

    def action_card(self, raw_env: Any, action: int) -> int | None:
        return action if 0 <= action < NUM_CARDS else None


VIEWER = KakeyaViewer()
