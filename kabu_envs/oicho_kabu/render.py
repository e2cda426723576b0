"""A readable text table of an Oicho-Kabu game (``render_mode="ansi"`` / ``"human"``), and which cards
a view shows (``visibility``, shared with the pictures of ``picture.py``).

The god view (``seat=None``) is a spectator's view for people, not an observation: face-down cards are
shown in brackets so a reader can follow the hand; after the showdown every card is plain. A seat's
view (``env(render_seat=i)``) prints the cards that seat cannot see as ``[?]``. Yaku names come from
``rules``.
"""

from __future__ import annotations

from kabu_envs.oicho_kabu import rules
from kabu_envs.oicho_kabu.deck import card_text
from kabu_envs.oicho_kabu.events import describe_log
from kabu_envs.oicho_kabu.game import DREW, ESCAPED, NUM_SPREADS, STOOD, UNDECIDED, Game, Phase

_STATUS = {UNDECIDED: "", STOOD: "stand", DREW: "drew", ESCAPED: "ESCAPED"}

# what a card looks like in a frame
FACE, BACK, MARKED = 0, 1, 2  # face up / card back / face up with the god view's face-down frame


def visibility(game: Game, seat: int | None) -> tuple[list[list[int]], list[int], list[int]]:
    """How each card is drawn for ``seat`` (None: god view): spreads, dealer cards, info cards.

    Mirrors what ``observation.Encoder`` lets the seat see (tests compare the two).
    """
    shown = game.showdown
    spreads = []
    for s, cards in enumerate(game.spreads):
        row = []
        for k in range(len(cards)):
            down = k == 1 and not (shown or game.turned_up(s))
            if not down:
                row.append(FACE)
            elif seat is None:
                row.append(MARKED)
            else:
                row.append(FACE if game.stakes[s][seat] else BACK)
        spreads.append(row)
    revealed = game.dealer_revealed
    face_up = game.cfg.dealer_second_card_face_up
    dealer = []
    for k in range(len(game.dealer_cards)):
        down = k < 2 and not (shown or (revealed and face_up))
        if not down:
            dealer.append(FACE)
        elif seat is None:
            dealer.append(MARKED)
        else:
            dealer.append(FACE if revealed and seat == game.dealer else BACK)
    info = []
    for owner, card in enumerate(game.info_cards):
        if card < 0:
            info.append(-1)
        elif seat is None:
            info.append(MARKED)
        else:
            info.append(FACE if owner == seat else BACK)
    return spreads, dealer, info


def _hand(game: Game, cards: list[int], how: list[int]) -> str:
    parts = []
    for c, h in zip(cards, how, strict=True):
        t = card_text(game.cfg.deck, c)
        parts.append("[?]" if h == BACK else f"[{t}]" if h == MARKED else t)
    return " ".join(parts) if parts else "-"


def _describe(game: Game, cards: list[int], role: str) -> str:
    if len(cards) < 2:
        return ""
    yaku = rules.best_yaku(game.cfg, tuple(cards), role)
    value = rules.hand_value(cards)
    return f"= {value}" + (f" ({yaku})" if yaku else "")


def render_text(game: Game, seat: int | None = None) -> str:
    """The table: dealer, spreads with cards, stakes, decisions and (after the showdown) results.

    ``seat=None``: every card (face-down ones in brackets); a seat: the cards it cannot see as ``[?]``.
    """
    cfg = game.cfg
    n = game.num_players
    lines = [
        f"Oicho-Kabu ({cfg.rules}, {n} players) round {min(game.round_index + 1, cfg.max_rounds)}/"
        f"{cfg.max_rounds}  dealer: player_{game.dealer}  phase: {game.phase.name}"
        + ("" if game.terminal else f"  to act: player_{game.current_player}")
        + ("" if seat is None else f"  view: player_{seat}"),
        f"domae {cfg.domae}, staked {game.round_total}",
    ]
    shown = game.showdown
    spread_how, dealer_how, info_how = visibility(game, seat)
    d_open = all(h == FACE for h in dealer_how[:2])
    d_desc = _describe(game, game.dealer_cards, "dealer") if d_open else ""
    lines.append(f"  dealer  : {_hand(game, game.dealer_cards, dealer_how):<14} {d_desc}".rstrip())
    for s in range(NUM_SPREADS):
        cards = game.spreads[s]
        hidden = spread_how[s]
        stakes = ", ".join(f"p{seat}:{st}" for seat, st in enumerate(game.stakes[s]) if st) or "no stakes"
        status = "turned" if game.turned_up(s) else _STATUS[game.spread_state[s]]  # unbacked, dealt a card
        mark = ">" if s == game.active_spread and not game.terminal else " "
        res = ""
        m = game.results[s]
        if shown and m is not None:
            res = "push" if m == 0 else (f"bettors win x{m}" if m > 0 else f"dealer wins x{-m}")
            if game.spread_state[s] == ESCAPED:
                res = "escaped (push)"
        desc = _describe(game, cards, "bettor") if shown else ""
        lines.append(
            f"{mark} spread {s}: {_hand(game, cards, hidden):<14} {desc:<18} {status:<7} "
            f"[{stakes}] {res}".rstrip()
        )
    if any(c >= 0 for c in game.selection_cards):
        drawn = "  ".join(
            f"p{seat}:{card_text(cfg.deck, c)}" for seat, c in enumerate(game.selection_cards) if c >= 0
        )
        order = ", ".join(f"p{seat}" for seat in game.betting_order)
        lines.append(f"  selection ({cfg.dealer_selection}): {drawn} -> p{game.dealer} deals; bets: {order}")
    if cfg.info_cards and any(c >= 0 for c in game.info_cards):
        info = ", ".join(
            f"p{owner}:[{'?' if info_how[owner] == BACK else card_text(cfg.deck, c)}]"
            for owner, c in enumerate(game.info_cards)
            if c >= 0
        )
        lines.append(f"  info cards: {info}")
    if game.voided and shown:
        lines.append("  the dealer's 10-10-10 voids the round: every stake returned")
    chips = "  ".join(f"p{seat}:{c}" for seat, c in enumerate(game.chips))
    lines.append(f"chips: {chips}")
    if shown and any(game.round_rewards):
        lines.append("round result: " + "  ".join(f"p{s}:{r:+d}" for s, r in enumerate(game.round_rewards)))
    if game.phase == Phase.OVER:
        lines.append("episode over")
    return "\n".join(lines)


def render_log(game: Game) -> str:
    """The public log of the current deal, one event per line (selection draws, bets, draws, results)."""
    return "\n".join(describe_log(game.log, game.cfg))
