"""Who deals: dealer selection at the start of an episode and dealer rotation between rounds
(docs/oicho_kabu.md#seats-roles-table-limit, docs/oicho_kabu.md#sessions-and-dealer-rotation).

Choices (docs/oicho_kabu.md#dealer-selection, docs/oicho_kabu.md#rounds-without-stakes,
docs/oicho_kabu.md#rotation-conditions, docs/oicho_kabu.md#selection-before-every-deal):

- Selection happens once per episode, before the first round, or before every deal with
  ``dealer_selection_each_deal`` (the kabufuda site; then every seat with chips draws, the others bet
  and decide in the order of their cards, ``seat_order``, and ``dealer_change`` is not consulted).
  Every seat, in seat order, draws one card from the top of the deck; the tied seats draw again (in
  seat order) until one seat is left. For ``closest_to_nine`` a card scores its value mod 10 (a 10
  counts 0, as in a hand); for ``lowest`` the lowest face value 1..10 deals. Ties in ``lowest`` are broken the
  same way (redraw among the tied). All selection cards then go back and the deck is reshuffled under
  the unused stacked prefix (see ``deck.py``), so a stacked deck lists each deal's selection draws
  first and that deal's cards after them.
- Between rounds the deal passes to the next seat (in seat order) that still has chips, when any
  condition in ``dealer_change`` holds. A round in which nobody staked anything counts for ``deals``
  only (there is no final hand for ``low_hand`` and no spread for ``lost_all``). ``lost_all`` needs at
  least one backed spread and a loss to every one of them (an escaped spread is not a loss).
"""

from __future__ import annotations

from collections.abc import Sequence

from kabu_envs.oicho_kabu.deck import VALUES, Deck


def _score(selection: str, card: int) -> int:
    value = VALUES[card]
    return value % 10 if selection == "closest_to_nine" else -value


def select_dealer(selection: str, deck: Deck, seats: Sequence[int]) -> tuple[int, list[tuple[int, int]]]:
    """The dealer chosen among ``seats`` and the public draws ``[(seat, card), ...]`` that chose it."""
    if selection == "fixed":
        return 0, []
    candidates = list(seats)
    draws: list[tuple[int, int]] = []
    returned: list[int] = []
    while True:
        if len(deck) < len(candidates):  # only with long tie chains: put the used cards back
            deck.reshuffle(returned)
            returned = []
        scored = []
        for seat in candidates:
            card = deck.draw()
            draws.append((seat, card))
            returned.append(card)
            scored.append((_score(selection, card), seat))
        best = max(s for s, _ in scored)
        candidates = [seat for s, seat in scored if s == best]
        if len(candidates) == 1:
            deck.reshuffle(returned)
            return candidates[0], draws


def selection_cards(draws: Sequence[tuple[int, int]], num_players: int) -> list[int]:
    """Each seat's selection card, the first it drew (``-1``: it drew none); a redraw only breaks a tie
    for the deal."""
    cards = [-1] * num_players
    for seat, card in draws:
        if cards[seat] < 0:
            cards[seat] = card
    return cards


def seat_order(selection: str, cards: Sequence[int], dealer: int) -> list[int]:
    """The betting and deciding order of a deal chosen each deal (the kabufuda site: the others sit from the
    dealer's right by their cards): every other seat that drew, the best card first (``lowest``: the lowest;
    ``closest_to_nine``: the closest to 9), equal cards in seat order from the dealer on."""
    n = len(cards)
    others = [(dealer + i) % n for i in range(1, n) if cards[(dealer + i) % n] >= 0]
    return sorted(others, key=lambda seat: -_score(selection, cards[seat]))  # stable: seat order on ties


def dealer_must_change(
    conditions: Sequence[str],
    *,
    deals: int,
    max_deals: int,
    chips: int,
    start_chips: int,
    domae: int,
    final_value: int | None,
    lost_all: bool,
) -> bool:
    """True when any enabled ``dealer_change`` condition holds after a round."""
    for cond in conditions:
        if (
            (cond == "deals" and deals >= max_deals)
            or (cond == "bust" and chips <= 0)
            or (cond == "doubled" and chips - start_chips >= domae)
            or (cond == "low_hand" and final_value is not None and final_value <= 5)
            or (cond == "lost_all" and lost_all)
        ):
            return True
    return False


def next_dealer(dealer: int, chips: Sequence[int]) -> int:
    """The next seat after ``dealer`` that still has chips (the dealer itself if nobody else has)."""
    n = len(chips)
    for step in range(1, n):
        seat = (dealer + step) % n
        if chips[seat] > 0:
            return seat
    return dealer
