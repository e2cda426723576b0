"""Text rendering of a Kakeya game: a god view (every hand) or one seat's view (its own hand only)."""

from __future__ import annotations

from kabu_envs.kakeya.cards import SUIT_NAMES, bits_to_cards, card_name
from kabu_envs.kakeya.game import Game, partnership_of
from kabu_envs.kakeya.scoring import egara_count
from kabu_envs.kakeya.tricks import Trick


def _cards(bits: int) -> str:
    return " ".join(card_name(c) for c in bits_to_cards(bits)) or "-"


def _trick(trick: Trick) -> str:
    return ", ".join(f"player_{s}:{card_name(c)}" for s, c in zip(trick.seats, trick.cards, strict=True))


def render_text(game: Game, seat: int | None = None) -> str:
    """A readable table: header, hands, the trick, captured egara and the score.

    ``seat=None`` is the god view (every hand); with a seat, only that seat's hand is shown and the
    others as card counts, so a person playing that seat sees no more than its observation holds.
    """
    n = game.num_players
    lines = [
        f"Kakeya deal {min(game.deal_no + 1, game.cfg.max_deals)}/{game.cfg.max_deals}  "
        f"phase={game.phase.name.lower()}  trump={SUIT_NAMES[game.trump]}  Rensho={card_name(game.rensho)}  "
        f"first dealer=player_{game.first_dealer}",
    ]
    for s in range(n):
        partnership = partnership_of(s, n)
        tags = [f"p{partnership}"]
        if partnership == game.dealer_partnership:
            tags.append("dealer")
        if not game.active[s]:
            tags.append("sits out")
        if s == game.current_player:
            tags.append("to act")
        hand = (
            _cards(game.hands[s])
            if seat is None or s == seat
            else f"{game.hands[s].bit_count()} cards (hidden)"
        )
        lines.append(f"  player_{s} [{', '.join(tags)}] stones={game.stones[s]:2d}: {hand}")
    if game.trick is not None and game.trick.cards:
        lines.append(f"  trick {game.tricks_played + 1}: {_trick(game.trick)}")
    if game.last_trick is not None:
        lines.append(f"  last trick: {_trick(game.last_trick)} -> player_{game.last_trick.winner}")
    for p in range(game.num_partnerships):
        captured = game.captured[p]
        stones = game.partnership_stones(p)
        egara = egara_count(captured)
        lines.append(
            f"  partnership {p}: egara={egara:2d} [{_cards(captured)}] stones={stones} "
            f"deals won={game.deals_won[p]}"
        )
    if game.deal_no > len(game.results):
        lines.append(f"  ({game.deal_no - len(game.results)} earlier deals not shown)")
    lines.extend(f"  {r.describe()}" for r in game.results)
    return "\n".join(lines)
