"""What a person playing one Oicho-Kabu seat is shown (``kabu_envs.core.views``; kabu-play, kabu-replay).

Which cards the seat sees is ``render.visibility`` (the one rule of the text and picture renders),
the same visibility as the observation encoder (``observation.py``, docs/oicho_kabu.md#a-round):
a spread's face-down second card only to the seats with a stake on it, the dealer's first two cards to
nobody before step 10 (then to everyone with ``dealer_second_card_face_up``, else to the dealer), an
info card to its owner only; everything but the info cards at the showdown. Bets, decisions and
selection cards are public.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from kabu_envs.core.views import Card, View, face_card, hidden_card, zone
from kabu_envs.oicho_kabu import rules
from kabu_envs.oicho_kabu.actions import BET_BASE, CHOICE_ACTIONS, DRAW, ESCAPE, KEEP, REDEAL, STAND
from kabu_envs.oicho_kabu.deck import COPIES, LIGHT_CARDS, VALUES
from kabu_envs.oicho_kabu.game import DREW, ESCAPED, NUM_SPREADS, STOOD, Game, Phase
from kabu_envs.oicho_kabu.render import BACK, FACE, visibility

MONTHS = ("pine", "plum", "cherry", "wisteria", "iris", "peony", "clover", "pampas", "chrysanthemum", "maple")
SUITS = ("♣", "♦", "♥", "♠")  # western deck: the copy index of a card id
_STATUS = {STOOD: "stood", DREW: "drew", ESCAPED: "escaped"}
_FIXED = {
    STAND: "Stand",
    DRAW: "Draw",
    ESCAPE: "Escape",
    KEEP: "Keep the table",
    REDEAL: "Redeal (minso)",
    CHOICE_ACTIONS[0]: "Take the top card",
    CHOICE_ACTIONS[1]: "Take the bottom card",
    CHOICE_ACTIONS[2]: "Take the fourth card",
}


def card(deck: str, card_id: int) -> Card:
    """The picture of a seen card of ``deck`` (``kabufuda``, ``hanafuda`` or ``western``)."""
    value = VALUES[card_id]
    if deck == "western":
        suit = SUITS[card_id % COPIES]
        rank = "A" if value == 1 else str(value)
        return face_card(card_id, "western", rank, f"{rank}{suit}", suit, red=suit in "♦♥")
    if deck == "hanafuda":
        light = card_id in LIGHT_CARDS
        name = f"month {value} ({MONTHS[value - 1]})" + (", light" if light else "")
        return face_card(card_id, "hanafuda", str(value), name, MONTHS[value - 1], red=light, light=light)
    return face_card(card_id, "kabufuda", str(value), str(value), red=value == 1)


def _hand_text(game: Game, cards: list[int], role: str) -> str:
    if len(cards) < 2:
        return ""
    yaku = rules.best_yaku(game.cfg, tuple(cards), role)
    return f"= {rules.hand_value(cards)}" + (f" ({yaku})" if yaku else "")


def _result_text(m: int | None, state: int) -> str:
    if m is None:
        return ""
    if state == ESCAPED:
        return "escaped (push)"
    return "push" if m == 0 else (f"bettors win x{m}" if m > 0 else f"dealer wins x{-m}")


class OichoViewer:
    """``kabu_envs.core.views.Viewer`` for Oicho-Kabu."""

    def seat_view(self, raw_env: Any, seat: int) -> View:
        game: Game = raw_env.game
        cfg = game.cfg
        deck = cfg.deck
        shown = game.showdown
        zones = []
        spread_vis, dealer_vis, info_vis = visibility(game, seat)  # the one visibility rule (render.py)
        d_cards = [
            card(deck, c) if v == FACE else hidden_card()
            for c, v in zip(game.dealer_cards, dealer_vis, strict=True)
        ]
        d_seen = BACK not in dealer_vis
        d_note = _hand_text(game, game.dealer_cards, "dealer") if d_seen else ""
        who = "you" if seat == game.dealer else f"player_{game.dealer}"
        zones.append(zone(f"dealer ({who})", d_cards, d_note, seat=game.dealer))
        for s in range(NUM_SPREADS):
            cards = game.spreads[s]
            sees = BACK not in spread_vis[s]
            pics = [
                card(deck, c) if v == FACE else hidden_card()
                for c, v in zip(cards, spread_vis[s], strict=True)
            ]
            stakes = ", ".join(
                f"{'you' if p == seat else f'p{p}'}: {st}" for p, st in enumerate(game.stakes[s]) if st
            )
            parts = [stakes or "no stakes"]
            if game.spread_state[s] in _STATUS:
                parts.append(_STATUS[game.spread_state[s]])
            elif game.turned_up(s):  # unbacked: turned up and dealt its card (unbacked_spread_card)
                parts.append("turned up")
            if sees and len(cards) >= 2:
                parts.append(_hand_text(game, cards, "bettor"))
            if shown:
                parts.append(_result_text(game.results[s], game.spread_state[s]))
            active = s == game.active_spread and not game.terminal
            chips = [[p, int(st)] for p, st in enumerate(game.stakes[s]) if st]
            zones.append(zone(f"spread {s}", pics, "; ".join(p for p in parts if p), active, stakes=chips))
        if info_vis[seat] == FACE:
            zones.append(zone("your info card (dead)", [card(deck, game.info_cards[seat])], seat=seat))
        if any(c >= 0 for c in game.selection_cards):
            sel = [card(deck, c) for c in game.selection_cards if c >= 0]
            owners = ", ".join(f"p{p}" for p, c in enumerate(game.selection_cards) if c >= 0)
            zones.append(zone("selection cards", sel, f"{owners}; betting order: {game.betting_order}"))
        to_act = (
            ""
            if game.terminal
            else f"; to act: {'you' if game.current_player == seat else f'player_{game.current_player}'}"
        )
        status = [
            f"you are player_{seat}" + (" (dealer)" if seat == game.dealer else " (bettor)"),
            f"phase: {'SHOWDOWN' if game.is_round_end else game.phase.name}{to_act}",
            f"domae {cfg.domae}, staked this round {game.round_total}",
            "chips: " + ", ".join(f"{'you' if p == seat else f'p{p}'} {c}" for p, c in enumerate(game.chips)),
        ]
        result = []
        if shown or game.is_round_end:  # (a round nobody staked on ends without a showdown)
            if game.voided:
                result.append("the dealer's 10-10-10 voids the round: every stake returned")
            for s in range(NUM_SPREADS):
                text = _result_text(game.results[s], game.spread_state[s])
                if text:
                    result.append(f"spread {s}: {text}")
            if game.round_total == 0:
                result.append("nobody staked: no payment")
            result.append(
                "round result: "
                + ", ".join(
                    f"{'you' if p == seat else f'p{p}'} {r:+d}" for p, r in enumerate(game.round_rewards)
                )
            )
        rounds = cfg.max_rounds
        number = game.round_index if game.is_round_end else min(game.round_index + 1, rounds)
        return {
            "title": f"Oicho-Kabu ({cfg.rules}), round {number}/{rounds}",
            "status": status,
            "zones": zones,
            "hand": None,
            "round": game.round_index,
            "result": result,
        }

    def round_end_env(self, raw_env: Any) -> Any | None:
        """A stand-in env (``.game`` only) at the showdown of the round that just ended, when a game
        goes on: the step that ends a round also deals the next, and a person must see the showdown
        (the dealer's hand, each spread's total and result) first. None when no round just ended."""
        game: Game = raw_env.game
        end = game.round_end
        if end is None or end.round_index != game.round_index or game.terminal:
            return None
        return SimpleNamespace(game=end)

    def action_label(self, raw_env: Any, action: int) -> str:
        if action >= BET_BASE:
            k = action - BET_BASE
            game: Game = raw_env.game
            return "No bet" if k == 0 else f"Bet {game.bet_sizes[k - 1]}"
        return _FIXED.get(action, f"action {action}")

    def move_text(self, raw_env: Any, actor: int, action: int, viewer: int) -> str | None:
        game: Game = raw_env.game
        who = "you" if actor == viewer else f"player_{actor}"
        if game.phase == Phase.BET:
            return f"{who}: {self.action_label(raw_env, action).lower()} on spread {game.active_spread}"
        if game.phase == Phase.DECIDE:
            return f"{who}: {self.action_label(raw_env, action).lower()} (spread {game.active_spread})"
        return f"{who} (dealer): {self.action_label(raw_env, action).lower()}"

    def action_card(self, raw_env: Any, action: int) -> int | None:
        return None


VIEWER = OichoViewer()
