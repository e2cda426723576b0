"""Who deals: dealer selection at the start of an episode and dealer rotation between rounds
(docs/oicho_kabu.md §2 Seats, §6 Sessions).

Choices (docs/oicho_kabu.md §8, items 17, 20 and 21):

- Selection happens once per episode, before the first round. Every seat, in seat order, draws one card
  from the top of the deck; the tied seats draw again (in seat order) until one seat is left. For
  ``closest_to_nine`` a card scores its value mod 10 (a 10 counts 0, as in a hand); for ``lowest`` the
  lowest face value 1..10 deals. Ties in ``lowest`` are broken the same way (redraw among the tied).
  All selection cards then go back and the deck is reshuffled under the unused stacked prefix (see
  ``deck.py``), so a stacked deck lists the selection draws first and the round's cards after them.
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


def select_dealer(selection: str, deck: Deck, num_players: int) -> tuple[int, list[tuple[int, int]]]:
    """The first dealer and the public draws ``[(seat, card), ...]`` that chose it."""
    if selection == "fixed":
        return 0, []
    candidates = list(range(num_players))
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
