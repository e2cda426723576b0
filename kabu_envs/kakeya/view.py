"""What a person playing one Kakeya seat is shown (``kabu_envs.core.views``; kabu-play, kabu-replay).

The seat's own hand; of the other hands only how many cards they hold. Everything played is public:
the trick in play, the last trick and who took it, the egara each partnership captured, the trump,
Rensho, stones and the deals' results (the same as the observation, docs/kakeya.md#observation).
"""

from __future__ import annotations

from typing import Any

from kabu_envs.core.messages import Msg, say
from kabu_envs.core.views import Card, SayingViewer, View, face_card, joined, written, zone
from kabu_envs.kakeya.actions import LEAD_PARTNER, LEAD_SELF, TRUMP_BASE
from kabu_envs.kakeya.cards import NUM_CARDS, RANK_NAMES, SUIT_NAMES, bits_to_cards, rank_of, suit_of
from kabu_envs.kakeya.game import Game, Phase, partnership_of

SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")

# key -> (log, en, ja): the lines of this viewer (``kabu_envs.core.messages``)
MESSAGES: dict[str, tuple[str, str, str]] = {
    "game.kakeya": ("Kakeya", "Kakeya", "カケヤ"),
    "kakeya.title": (
        "Kakeya ({n} players), deal {d}/{of}",
        "Kakeya ({n} players), deal {d} of {of}",
        "カケヤ ({n}人) 第{d}回 / 全{of}回",
    ),
    "kakeya.who": (
        "{p:seat}{partner? (partner)}",
        "{p:seat}{partner? (partner)}",
        "{p:seat}{partner? (相方)}",
    ),
    "kakeya.you_are": (
        "you are {p:seatno}, partnership {q}",
        "{p:v:you are:watching} {p:seatno}, team {q:idx}",
        "{p:v:あなたは:}{p:seatno}{p:v::の視点} ({q:idx}組)",
    ),
    "kakeya.trump": (
        "trump: {suit} {sym}",
        "trumps: {suit:@kakeya.suit} {sym}",
        "切り札: {sym}{suit:@kakeya.suit}",
    ),
    "kakeya.suit.clubs": ("clubs", "clubs", "クラブ"),
    "kakeya.suit.diamonds": ("diamonds", "diamonds", "ダイヤ"),
    "kakeya.suit.hearts": ("hearts", "hearts", "ハート"),
    "kakeya.suit.spades": ("spades", "spades", "スペード"),
    "kakeya.rensho": ("Rensho: {card}", "Rensho: {card}", "連勝: {card}"),
    "kakeya.first_dealer": ("first dealer: {who:msg}", "first dealer: {who:msg}", "最初の親: {who:msg}"),
    "kakeya.phase": ("phase: {phase}", "phase: {phase:@kakeya.phase}", "局面: {phase:@kakeya.phase}"),
    "kakeya.phase.TRUMP": ("TRUMP", "choosing trumps", "切り札決め"),
    "kakeya.phase.LEAD": ("LEAD", "choosing the leader", "先手決め"),
    "kakeya.phase.PLAY": ("PLAY", "playing", "札を出す"),
    "kakeya.phase.OVER": ("OVER", "game over", "終局"),
    "kakeya.to_act": ("to act: {who:msg}", "to act: {who:msg}", "手番: {who:msg}"),
    "kakeya.in_hand": (
        "{cards:pl:card:cards} in hand, {stones:pl:stone:stones}",
        "{cards:pl:card:cards} in hand, {stones:pl:stone:stones}",
        "手札{cards}枚、石{stones}個",
    ),
    "kakeya.team": ("partnership {q}", "team {q:idx}", "{q:idx}組"),
    "kakeya.sits_out": ("sits out", "sits out", "休み"),
    "kakeya.acts": ("to act", "to act", "手番"),
    "kakeya.zone.last": ("last trick", "last trick", "前の場"),
    "kakeya.taken_by": ("taken by {who:msg}", "taken by {who:msg}", "{who:msg}が取った"),
    "kakeya.played": (
        "played: {plays:list:sep.comma}",
        "played: {plays:list:sep.comma}",
        "出した札: {plays:list:sep.comma}",
    ),
    "kakeya.play_item": ("{who:msg} {card}", "{who:msg} {card}", "{who:msg} {card}"),
    "kakeya.zone.egara": ("partnership {q}: egara", "team {q:idx}: egara", "{q:idx}組の絵柄"),
    "kakeya.zone.egara_mine": (
        "partnership {q} (yours): egara",
        "team {q:idx} ({p:poss} team): egara",
        "{q:idx}組 ({p:poss}組) の絵柄",
    ),
    "kakeya.egara_note": (
        "{n} egara, {stones:pl:stone:stones}, {deals:pl:deal:deals} won",
        "{n} egara, {stones:pl:stone:stones}, {deals:pl:deal:deals} won",
        "絵柄{n}枚、石{stones}個、{deals}回勝ち",
    ),
    "kakeya.your_hand": ("{p:poss} hand", "{p:poss} hand", "{p:poss}手札"),
    "kakeya.deal_won": (
        "deal {d}: partnership {q} wins",
        "deal {d}: team {q:idx} wins",
        "第{d}回: {q:idx}組の勝ち",
    ),
    "kakeya.deal_nobody": ("deal {d}: nobody wins", "deal {d}: nobody wins", "第{d}回: 勝者なし"),
    "kakeya.tie": (
        "egara tied: the partnership without Rensho among its egara wins",
        "egara tied: the team without Rensho among its egara wins",
        "絵柄が同数: 連勝を取っていない組の勝ち",
    ),
    "kakeya.egara": (
        "egara: {items:list:sep.comma}",
        "egara: {items:list:sep.comma}",
        "絵柄: {items:list:sep.comma}",
    ),
    "kakeya.egara_item": ("partnership {q}: {n}", "team {q:idx} {n}", "{q:idx}組 {n}枚"),
    "kakeya.stones": (
        "stones: {items:list:sep.comma}",
        "stones: {items:list:sep.comma}",
        "石: {items:list:sep.comma}",
    ),
    "kakeya.stones_item": ("partnership {q}: {d:signed}", "team {q:idx} {d:signed}", "{q:idx}組 {d:signed}"),
    "kakeya.act.play": ("Play {card}", "Play {card}", "{card} を出す"),
    "kakeya.act.trump": (
        "Trump {suit} {sym}",
        "Trumps: {suit:@kakeya.suit} {sym}",
        "切り札を{sym}{suit:@kakeya.suit}にする",
    ),
    "kakeya.act.lead_self": ("Lead myself", "Lead myself", "自分が先手を取る"),
    "kakeya.act.lead_partner": ("Let my partner lead", "Let my partner lead", "相方に先手を譲る"),
    "kakeya.move.play": (
        "{who:msg} {p:v:play:plays} {card}",
        "{who:Msg} {p:v:play:plays} {card}",
        "{who:msg}: {card} を出した",
    ),
    "kakeya.move.lead_self": (
        "{who:msg}: leads",
        "{who:Msg} {p:v:lead:leads}",
        "{who:msg}: 自分が先手を取った",
    ),
    "kakeya.move.lead_partner": (
        "{who:msg}: lets the partner lead",
        "{who:Msg} {p:v:let:lets} the partner lead",
        "{who:msg}: 相方に先手を譲った",
    ),
    "kakeya.move.trump": (
        "{who:msg}: trump {suit} {sym}",
        "{who:Msg} {p:v:choose:chooses} {suit:@kakeya.suit} {sym} as trumps",
        "{who:msg}: 切り札を{sym}{suit:@kakeya.suit}に決めた",
    ),
}


def card(card_id: int) -> Card:
    """The picture of a seen card."""
    suit, rank = SUIT_SYMBOLS[suit_of(card_id)], RANK_NAMES[rank_of(card_id)]
    return face_card(card_id, "western", rank, rank + suit, suit, red=suit in "♦♥")


def card_text(card_id: int) -> str:
    return RANK_NAMES[rank_of(card_id)] + SUIT_SYMBOLS[suit_of(card_id)]


def _who(p: int, seat: int, n: int) -> Msg:
    """Seat ``p`` as ``seat`` names it: you, a partner, another seat."""
    partner = p != seat and partnership_of(p, n) == partnership_of(seat, n)
    return say("kakeya.who", p=int(p), partner=partner)


class KakeyaViewer(SayingViewer):
    """``kabu_envs.core.views.Viewer`` for Kakeya."""

    messages = MESSAGES

    def seat_view(self, raw_env: Any, seat: int) -> View:
        game: Game = raw_env.game
        cfg = game.cfg
        n = game.num_players
        zones = []
        trick = game.trick
        played = dict(zip(trick.seats, trick.cards, strict=True)) if trick is not None else {}
        for p in range(n):
            note = [
                say("kakeya.in_hand", cards=int(game.hand_counts[p]), stones=int(game.stones[p])),
                say("kakeya.team", q=partnership_of(p, n)),
            ]
            if not game.active[p]:
                note.append(say("kakeya.sits_out"))
            if p == game.current_player:
                note.append(say("kakeya.acts"))
            cards = [card(played[p])] if p in played else []
            active = p == game.current_player and not game.terminal
            backs = 0 if p == seat else int(game.hand_counts[p])  # (a public count: drawn as backs)
            zones.append(zone(_who(p, seat, n), cards, note, active, seat=p, backs=backs))
        last = game.last_trick
        if last is not None:
            plays = [
                say("kakeya.play_item", who=_who(p, seat, n), card=card_text(c))
                for p, c in zip(last.seats, last.cards, strict=True)
            ]  # (who played which card: the cards alone do not say)
            note = [say("kakeya.taken_by", who=_who(last.winner, seat, n)), say("kakeya.played", plays=plays)]
            zones.append(zone(say("kakeya.zone.last"), [card(c) for c in last.cards], note))
        for q in range(game.num_partnerships):
            mine = q == partnership_of(seat, n)
            captured = bits_to_cards(game.captured[q])
            label = say("kakeya.zone.egara_mine", q=q, p=seat) if mine else say("kakeya.zone.egara", q=q)
            egara = say(
                "kakeya.egara_note",
                n=len(captured),
                stones=int(game.partnership_stones(q)),
                deals=int(game.deals_won[q]),
            )
            zones.append(zone(label, [card(c) for c in captured], [egara]))
        hand = sorted(bits_to_cards(game.hands[seat]), key=lambda c: (suit_of(c), rank_of(c)))
        phase = [say("kakeya.phase", phase=game.phase.name)]
        if not game.terminal:
            phase.append(say("kakeya.to_act", who=_who(game.current_player, seat, n)))
        status = [
            say("kakeya.you_are", p=seat, q=partnership_of(seat, n)),
            joined(
                [
                    say("kakeya.trump", suit=SUIT_NAMES[game.trump], sym=SUIT_SYMBOLS[game.trump]),
                    say("kakeya.rensho", card=card_text(game.rensho)),
                    say("kakeya.first_dealer", who=_who(game.first_dealer, seat, n)),
                ]
            ),
            joined(phase),
        ]
        result: list[Msg] = []
        if game.results:
            r = game.results[-1]
            deal = r.deal + 1
            head = (
                say("kakeya.deal_won", d=deal, q=r.winner)
                if r.winner >= 0
                else say("kakeya.deal_nobody", d=deal)
            )
            counted = [say("kakeya.egara_item", q=int(q), n=int(e)) for q, e in r.egara.items()]
            stones = [say("kakeya.stones_item", q=int(q), d=int(d)) for q, d in r.stones_change.items()]
            result = [head, say("kakeya.egara", items=counted), say("kakeya.stones", items=stones)]
            counts = set(r.egara.values())
            if r.winner >= 0 and len(r.egara) == 2 and len(counts) == 1:  # the tie's rule decided it
                result.insert(1, say("kakeya.tie"))
        deals = cfg.max_deals
        view = {
            "say": {
                "title": say("kakeya.title", n=n, d=min(game.deal_no + 1, deals), of=deals),
                "status": status,
                "result": result,
            },
            "zones": zones,
            "hand": {"label": "", "say": say("kakeya.your_hand", p=seat), "cards": [card(c) for c in hand]},
            "round": game.deal_no,
        }
        return written(view, MESSAGES, seat)

    def action_say(self, raw_env: Any, action: int) -> Msg:
        if 0 <= action < NUM_CARDS:
            return say("kakeya.act.play", card=card_text(action))
        if TRUMP_BASE <= action < TRUMP_BASE + len(SUIT_NAMES):
            s = action - TRUMP_BASE
            return say("kakeya.act.trump", suit=SUIT_NAMES[s], sym=SUIT_SYMBOLS[s])
        if action == LEAD_SELF:
            return say("kakeya.act.lead_self")
        if action == LEAD_PARTNER:
            return say("kakeya.act.lead_partner")
        return say("core.action", n=int(action))

    def move_say(self, raw_env: Any, actor: int, action: int, viewer: int) -> Msg | None:
        game: Game = raw_env.game
        who = _who(actor, viewer, game.num_players)
        if game.phase == Phase.PLAY:
            return say("kakeya.move.play", who=who, p=actor, card=card_text(action))
        if game.phase == Phase.LEAD:
            return say(
                "kakeya.move.lead_self" if action == LEAD_SELF else "kakeya.move.lead_partner",
                who=who,
                p=actor,
            )
        s = action - TRUMP_BASE
        return say("kakeya.move.trump", who=who, p=actor, suit=SUIT_NAMES[s], sym=SUIT_SYMBOLS[s])

    def action_card(self, raw_env: Any, action: int) -> int | None:
        return action if 0 <= action < NUM_CARDS else None


VIEWER = KakeyaViewer()
