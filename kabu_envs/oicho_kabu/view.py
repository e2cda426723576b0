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

from kabu_envs.core.messages import Msg, say
from kabu_envs.core.views import Card, SayingViewer, View, face_card, hidden_card, joined, written, zone
from kabu_envs.oicho_kabu import rules
from kabu_envs.oicho_kabu.actions import BET_BASE, CHOICE_ACTIONS, DRAW, ESCAPE, KEEP, REDEAL, STAND
from kabu_envs.oicho_kabu.deck import COPIES, LIGHT_CARDS, VALUES
from kabu_envs.oicho_kabu.game import DREW, ESCAPED, NUM_SPREADS, STOOD, Game, Phase
from kabu_envs.oicho_kabu.render import BACK, FACE, visibility

MONTHS = ("pine", "plum", "cherry", "wisteria", "iris", "peony", "clover", "pampas", "chrysanthemum", "maple")
SUITS = ("♣", "♦", "♥", "♠")  # western deck: the copy index of a card id
_STATUS = {STOOD: "stood", DREW: "drew", ESCAPED: "escaped"}
# the actions of fixed names: their message keys (``oicho.act.<name>``, ``oicho.move.<name>``)
_FIXED = {
    STAND: "stand",
    DRAW: "draw",
    ESCAPE: "escape",
    KEEP: "keep",
    REDEAL: "redeal",
    CHOICE_ACTIONS[0]: "top",
    CHOICE_ACTIONS[1]: "bottom",
    CHOICE_ACTIONS[2]: "fourth",
}

# key -> (log, en, ja): the lines of this viewer (``kabu_envs.core.messages``)
MESSAGES: dict[str, tuple[str, str, str]] = {
    "game.oicho_kabu": ("Oicho-Kabu", "Oicho-Kabu", "おいちょかぶ"),
    "oicho.title": (
        "Oicho-Kabu ({rules}), round {n}/{of}",
        "Oicho-Kabu ({rules:@oicho.rules}), round {n} of {of}",
        "おいちょかぶ ({rules:@oicho.rules}) 第{n}勝負 / 全{of}勝負",
    ),
    "oicho.rules.standard": ("standard", "standard rules", "標準ルール"),
    "oicho.rules.kansai": ("kansai", "Kansai rules", "関西ルール"),
    "oicho.rules.kabufuda_site": ("kabufuda_site", "kabufuda-site rules", "株札サイトのルール"),
    "oicho.you_dealer": (
        "you are {p:seatno} (dealer)",
        "{p:v:you are:watching} {p:seatno} (dealer)",
        "{p:v:あなたは:}{p:seatno}{p:v::の視点} (親)",
    ),
    "oicho.you_bettor": (
        "you are {p:seatno} (bettor)",
        "{p:v:you are:watching} {p:seatno} (bettor)",
        "{p:v:あなたは:}{p:seatno}{p:v::の視点} (子)",
    ),
    "oicho.phase": ("phase: {phase}", "phase: {phase:@oicho.phase}", "局面: {phase:@oicho.phase}"),
    "oicho.phase.MINSO": ("MINSO", "minso (keep or redeal)", "見そ (配り直すか)"),
    "oicho.phase.BET": ("BET", "betting", "張り"),
    "oicho.phase.DEALER_CHOICE": ("DEALER_CHOICE", "dealer picks a card", "親の札選び"),
    "oicho.phase.DECIDE": ("DECIDE", "bettors draw or stand", "子の勝負 (引くか止めるか)"),
    "oicho.phase.DEALER_DRAW": ("DEALER_DRAW", "dealer draws or stands", "親の勝負"),
    "oicho.phase.SHOWDOWN": ("SHOWDOWN", "showdown", "勝負"),
    "oicho.phase.OVER": ("OVER", "game over", "終局"),
    "oicho.domae": (
        "domae {domae}, staked this round {staked}",
        "domae {domae}, staked this round {staked}",
        "胴前 {domae}点、この勝負の張り {staked}点",
    ),
    "oicho.chips": (
        "chips: {items:list:sep.comma}",
        "chips: {items:list:sep.comma}",
        "持ち点: {items:list:sep.comma}",
    ),
    "oicho.chip": ("{p:pseat} {n}", "{p:seat} {n}", "{p:seat} {n}点"),
    "oicho.zone.dealer": ("dealer ({p:seat})", "dealer ({p:seat})", "親 ({p:seat})"),
    "oicho.zone.spread": ("spread {s:idx}", "spread {s:idx}", "{s:idx}番の札"),
    "oicho.zone.info": ("{p:poss} info card (dead)", "{p:poss} info card (dead)", "{p:poss}見せ札 (死に札)"),
    "oicho.zone.selection": ("selection cards", "dealer selection cards", "親決めの札"),
    "oicho.stakes": (
        "{items:list:sep.comma}",
        "stakes: {items:list:sep.comma}",
        "張り: {items:list:sep.comma}",
    ),
    "oicho.stake": ("{p:pseat}: {n}", "{p:seat} {n}", "{p:seat} {n}点"),
    "oicho.no_stakes": ("no stakes", "no stakes", "張りなし"),
    "oicho.state.stood": ("stood", "stood", "止めた"),
    "oicho.state.drew": ("drew", "drew", "引いた"),
    "oicho.state.escaped": ("escaped", "escaped", "降りた"),
    "oicho.state.turned_up": ("turned up", "turned up", "表向き"),
    "oicho.hand": ("= {v}", "{v:@oicho.value} ({v})", "{v:@oicho.value} ({v})"),
    "oicho.hand_yaku": (
        "= {v} ({yaku})",
        "{yaku:@oicho.yaku}, {v:@oicho.value} ({v})",
        "{yaku:@oicho.yaku}・{v:@oicho.value} ({v})",
    ),
    "oicho.push": ("push", "push", "引き分け"),
    "oicho.escaped_push": ("escaped (push)", "escaped (push)", "降りた (引き分け)"),
    "oicho.bettors_win": ("bettors win x{m}", "bettors win ×{m}", "子の勝ち ({m}倍)"),
    "oicho.dealer_wins": ("dealer wins x{m}", "dealer wins ×{m}", "親の勝ち ({m}倍)"),
    "oicho.owners": ("{ps:list:sep.comma}", "drawn by {ps:list:sep.comma}", "引いた席: {ps:list:sep.comma}"),
    "oicho.order": (
        "betting order: {order}",
        "betting order: {ps:list:sep.arrow}",
        "張る順: {ps:list:sep.arrow}",
    ),
    "oicho.void": (
        "the dealer's 10-10-10 voids the round: every stake returned",
        "the dealer's 10-10-10 voids the round: every stake returned",
        "親の十・十・十で勝負なし: 張りはすべて戻る",
    ),
    "oicho.spread_result": ("spread {s:idx}: {r:msg}", "spread {s:idx}: {r:msg}", "{s:idx}番の札: {r:msg}"),
    "oicho.nobody_staked": (
        "nobody staked: no payment",
        "nobody staked: no payment",
        "誰も張らなかったので支払いなし",
    ),
    "oicho.round_result": (
        "round result: {items:list:sep.comma}",
        "round result: {items:list:sep.comma}",
        "この勝負の収支: {items:list:sep.comma}",
    ),
    "oicho.paid": ("{p:pseat} {r:signed}", "{p:seat} {r:signed}", "{p:seat} {r:signed}"),
    "oicho.card.hanafuda": (
        "month {m} ({month}){light?, light}",
        "month {m} ({month}){light?, bright}",
        "{m}月 {m:@oicho.month}{light? (光)}",
    ),
    "oicho.act.no_bet": ("No bet", "No bet on spread {s:idx}", "{s:idx}番の札には張らない"),
    "oicho.act.bet": ("Bet {n}", "Bet {n} on spread {s:idx}", "{s:idx}番の札に{n}点張る"),
    "oicho.act.stand": ("Stand", "Stand", "これで勝負 (止める)"),
    "oicho.act.draw": ("Draw", "Draw a card", "もう一枚引く"),
    "oicho.act.escape": ("Escape", "Escape", "降りる"),
    "oicho.act.keep": ("Keep the table", "Keep the table", "この札で続ける"),
    "oicho.act.redeal": ("Redeal (minso)", "Redeal (minso)", "配り直す (見そ)"),
    "oicho.act.top": ("Take the top card", "Take the top card", "上の札を取る"),
    "oicho.act.bottom": ("Take the bottom card", "Take the bottom card", "下の札を取る"),
    "oicho.act.fourth": ("Take the fourth card", "Take the fourth card", "四枚目を取る"),
    "oicho.move.no_bet": (
        "{p:seat}: no bet on spread {s:idx}",
        "{p:Seat} {p:v:do:does} not bet on spread {s:idx}",
        "{p:seat}は{s:idx}番の札に張らなかった",
    ),
    "oicho.move.bet": (
        "{p:seat}: bet {n} on spread {s:idx}",
        "{p:Seat} {p:v:bet:bets} {n} on spread {s:idx}",
        "{p:seat}が{s:idx}番の札に{n}点張った",
    ),
    "oicho.move.stand": (
        "{p:seat}: stand (spread {s:idx})",
        "{p:Seat} {p:v:stand:stands} on spread {s:idx}",
        "{p:seat}: {s:idx}番の札はこれで勝負",
    ),
    "oicho.move.draw": (
        "{p:seat}: draw (spread {s:idx})",
        "{p:Seat} {p:v:draw:draws} for spread {s:idx}",
        "{p:seat}: {s:idx}番の札にもう一枚引いた",
    ),
    "oicho.move.escape": (
        "{p:seat}: escape (spread {s:idx})",
        "{p:Seat} {p:v:escape:escapes} from spread {s:idx}",
        "{p:seat}: {s:idx}番の札から降りた",
    ),
    "oicho.dealer_move.stand": (
        "{p:seat} (dealer): stand",
        "{p:Seat} (dealer) {p:v:stand:stands}",
        "親 ({p:seat}): これで勝負",
    ),
    "oicho.dealer_move.draw": (
        "{p:seat} (dealer): draw",
        "{p:Seat} (dealer) {p:v:draw:draws}",
        "親 ({p:seat}): もう一枚引いた",
    ),
    "oicho.dealer_move.keep": (
        "{p:seat} (dealer): keep the table",
        "{p:Seat} (dealer) {p:v:keep:keeps} the table",
        "親 ({p:seat}): この札で続けた",
    ),
    "oicho.dealer_move.redeal": (
        "{p:seat} (dealer): redeal (minso)",
        "{p:Seat} (dealer) {p:v:redeal:redeals} (minso)",
        "親 ({p:seat}): 配り直した (見そ)",
    ),
    "oicho.dealer_move.top": (
        "{p:seat} (dealer): take the top card",
        "{p:Seat} (dealer) {p:v:take:takes} the top card",
        "親 ({p:seat}): 上の札を取った",
    ),
    "oicho.dealer_move.bottom": (
        "{p:seat} (dealer): take the bottom card",
        "{p:Seat} (dealer) {p:v:take:takes} the bottom card",
        "親 ({p:seat}): 下の札を取った",
    ),
    "oicho.dealer_move.fourth": (
        "{p:seat} (dealer): take the fourth card",
        "{p:Seat} (dealer) {p:v:take:takes} the fourth card",
        "親 ({p:seat}): 四枚目を取った",
    ),
}
_VALUE_NAMES = (
    ("buta", "ブタ"),
    ("pin", "ピン"),
    ("nizou", "ニゾウ"),
    ("santa", "サンタ"),
    ("yotsuya", "ヨツヤ"),
    ("goke", "ゴケ"),
    ("roppou", "ロッポウ"),
    ("naki", "ナキ"),
    ("oicho", "おいちょ"),
    ("kabu", "カブ"),
)
for _v, (_en, _ja) in enumerate(_VALUE_NAMES):
    MESSAGES[f"oicho.value.{_v}"] = (str(_v), _en, _ja)
_YAKU_NAMES = {
    "sanpachi_hikari": ("sanpachi hikari", "三八光"),
    "pin_basami": ("pin-basami", "ピンばさみ"),
    "arashi_kabu": ("arashi kabu", "アラシカブ"),
    "arashi": ("arashi", "アラシ"),
    "kuppin": ("kuppin", "クッピン"),
    "shippin": ("shippin", "シッピン"),
    "doshippin": ("doshippin", "ドシッピン"),
    "niichi": ("niichi", "ニイチ"),
    "shidou": ("shidou", "シドウ"),
    "shiro": ("shiro", "シロク"),
    "toichi": ("toichi", "トイチ"),
    "fujin": ("fujin", "風神"),
    "raijin": ("raijin", "雷神"),
    "ichi_ni_san": ("ichi-ni-san", "一二三"),
    "shichi_go_san": ("shichi-go-san", "七五三"),
    "nobori": ("nobori", "のぼり"),
    "kudari": ("kudari", "くだり"),
    "zoro": ("zoro", "ゾロ目"),
    "zoro_tsubushi": ("zoro-tsubushi", "ゾロつぶし"),
    "wake_satsu": ("wake-satsu", "わけ札"),
}
for _y, (_en, _ja) in _YAKU_NAMES.items():
    MESSAGES[f"oicho.yaku.{_y}"] = (_y, _en, _ja)
_MONTHS_JA = ("松", "梅", "桜", "藤", "菖蒲", "牡丹", "萩", "芒", "菊", "紅葉")
for _m, _ja in enumerate(_MONTHS_JA, start=1):
    MESSAGES[f"oicho.month.{_m}"] = (MONTHS[_m - 1], MONTHS[_m - 1], _ja)


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
        said = say("oicho.card.hanafuda", m=value, month=MONTHS[value - 1], light=light)
        return face_card(
            card_id, "hanafuda", str(value), name, MONTHS[value - 1], red=light, light=light, said=said
        )
    return face_card(card_id, "kabufuda", str(value), str(value), red=value == 1)


def _hand_say(game: Game, cards: list[int], role: str) -> Msg | None:
    if len(cards) < 2:
        return None
    yaku = rules.best_yaku(game.cfg, tuple(cards), role)
    value = rules.hand_value(cards)
    return say("oicho.hand_yaku", v=value, yaku=yaku) if yaku else say("oicho.hand", v=value)


def _result_say(m: int | None, state: int) -> Msg | None:
    if m is None:
        return None
    if state == ESCAPED:
        return say("oicho.escaped_push")
    return (
        say("oicho.push")
        if m == 0
        else (say("oicho.bettors_win", m=m) if m > 0 else say("oicho.dealer_wins", m=-m))
    )


class OichoViewer(SayingViewer):
    """``kabu_envs.core.views.Viewer`` for Oicho-Kabu."""

    messages = MESSAGES

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
        d_hand = _hand_say(game, game.dealer_cards, "dealer") if d_seen else None
        d_note = [d_hand] if d_hand else []
        zones.append(zone(say("oicho.zone.dealer", p=game.dealer), d_cards, d_note, seat=game.dealer))
        for s in range(NUM_SPREADS):
            cards = game.spreads[s]
            sees = BACK not in spread_vis[s]
            pics = [
                card(deck, c) if v == FACE else hidden_card()
                for c, v in zip(cards, spread_vis[s], strict=True)
            ]
            stakes = [say("oicho.stake", p=p, n=int(st)) for p, st in enumerate(game.stakes[s]) if st]
            parts = [say("oicho.stakes", items=stakes) if stakes else say("oicho.no_stakes")]
            if game.spread_state[s] in _STATUS:
                parts.append(say(f"oicho.state.{_STATUS[game.spread_state[s]]}"))
            elif game.turned_up(s):  # unbacked: turned up and dealt its card (unbacked_spread_card)
                parts.append(say("oicho.state.turned_up"))
            hand = _hand_say(game, cards, "bettor") if sees and len(cards) >= 2 else None
            if hand:
                parts.append(hand)
            outcome = _result_say(game.results[s], game.spread_state[s]) if shown else None
            if outcome:
                parts.append(outcome)
            active = s == game.active_spread and not game.terminal
            chips = [[p, int(st)] for p, st in enumerate(game.stakes[s]) if st]
            zones.append(zone(say("oicho.zone.spread", s=s), pics, parts, active, stakes=chips))
        if info_vis[seat] == FACE:
            zones.append(zone(say("oicho.zone.info", p=seat), [card(deck, game.info_cards[seat])], seat=seat))
        if any(c >= 0 for c in game.selection_cards):
            sel = [card(deck, c) for c in game.selection_cards if c >= 0]
            owners = [say("core.pwho", p=p) for p, c in enumerate(game.selection_cards) if c >= 0]
            order = [say("core.who", p=int(p)) for p in game.betting_order]
            note = [
                say("oicho.owners", ps=owners),
                say("oicho.order", order=str(game.betting_order), ps=order),
            ]
            zones.append(zone(say("oicho.zone.selection"), sel, note))
        phase = [say("oicho.phase", phase="SHOWDOWN" if game.is_round_end else game.phase.name)]
        if not game.terminal:
            phase.append(say("core.to_act", p=game.current_player))
        status = [
            say("oicho.you_dealer" if seat == game.dealer else "oicho.you_bettor", p=seat),
            joined(phase),
            say("oicho.domae", domae=cfg.domae, staked=int(game.round_total)),
            say("oicho.chips", items=[say("oicho.chip", p=p, n=int(c)) for p, c in enumerate(game.chips)]),
        ]
        result: list[Msg] = []
        if shown or game.is_round_end:  # (a round nobody staked on ends without a showdown)
            if game.voided:
                result.append(say("oicho.void"))
            for s in range(NUM_SPREADS):
                r = _result_say(game.results[s], game.spread_state[s])
                if r:
                    result.append(say("oicho.spread_result", s=s, r=r))
            if game.round_total == 0:
                result.append(say("oicho.nobody_staked"))
            paid = [say("oicho.paid", p=p, r=int(r)) for p, r in enumerate(game.round_rewards)]
            result.append(say("oicho.round_result", items=paid))
        rounds = cfg.max_rounds
        number = game.round_index if game.is_round_end else min(game.round_index + 1, rounds)
        view = {
            "say": {
                "title": say("oicho.title", rules=cfg.rules, n=int(number), of=int(rounds)),
                "status": status,
                "result": result,
            },
            "zones": zones,
            "hand": None,
            "round": game.round_index,
        }
        return written(view, MESSAGES, seat)

    def round_end_env(self, raw_env: Any) -> Any | None:
        """A stand-in env (``.game`` only) at the showdown of the round that just ended, when a game
        goes on: the step that ends a round also deals the next, and a person must see the showdown
        (the dealer's hand, each spread's total and result) first. None when no round just ended."""
        game: Game = raw_env.game
        end = game.round_end
        if end is None or end.round_index != game.round_index or game.terminal:
            return None
        return SimpleNamespace(game=end)

    def action_say(self, raw_env: Any, action: int) -> Msg:
        game: Game = raw_env.game
        if action >= BET_BASE:
            k = action - BET_BASE
            s = int(game.active_spread)
            return (
                say("oicho.act.no_bet", s=s)
                if k == 0
                else say("oicho.act.bet", n=int(game.bet_sizes[k - 1]), s=s)
            )
        name = _FIXED.get(action)
        return say(f"oicho.act.{name}") if name else say("core.action", n=int(action))

    def move_say(self, raw_env: Any, actor: int, action: int, viewer: int) -> Msg | None:
        game: Game = raw_env.game
        s = int(game.active_spread)
        if game.phase == Phase.BET:
            k = action - BET_BASE
            if k == 0:
                return say("oicho.move.no_bet", p=actor, s=s)
            return say("oicho.move.bet", p=actor, n=int(game.bet_sizes[k - 1]), s=s)
        if game.phase == Phase.DECIDE:
            return say(f"oicho.move.{_FIXED[action]}", p=actor, s=s)
        return say(f"oicho.dealer_move.{_FIXED[action]}", p=actor)

    def action_card(self, raw_env: Any, action: int) -> int | None:
        return None


VIEWER = OichoViewer()
