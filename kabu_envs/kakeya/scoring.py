"""Deal scoring (docs/kakeya.md#scoring-a-deal, docs/kakeya.md#matches-and-stones,
docs/kakeya.md#rewards): egara counts, the 8-8 rule, the stones table, stone payments and the per-deal
rewards."""

from __future__ import annotations

from kabu_envs.kakeya.cards import ACE, ACE_MASK, EGARA_MASK, NUM_EGARA, make_card

# Stones table: rows = (no ace, 1-2 aces but neither Rensho nor the trump ace, otherwise),
# columns = winners' egara 8-11, 12-15, 16. None = impossible (16 egara hold all 4 aces).
STONES_TABLE: tuple[tuple[int | None, ...], ...] = (
    (4, 4, None),
    (2, 2, None),
    (1, 2, 4),
)
ROW_NAMES = (
    "winners took no ace",
    "winners took 1-2 aces, neither Rensho nor the trump ace",
    "otherwise",
)
COLUMN_NAMES = ("8-11", "12-15", "16")


def egara_count(bits: int) -> int:
    return (bits & EGARA_MASK).bit_count()


def stones_row(captured: int, trump: int, rensho: int) -> int:
    """Row of the stones table for the winners' captured cards (bits)."""
    aces = captured & ACE_MASK
    n_aces = aces.bit_count()
    if n_aces == 0:
        return 0
    special = (1 << rensho) | (1 << make_card(trump, ACE))
    if n_aces <= 2 and not aces & special:
        return 1
    return 2


def stones_column(egara: int) -> int:
    if 8 <= egara <= 11:
        return 0
    if 12 <= egara <= 15:
        return 1
    if egara == NUM_EGARA:
        return 2
    raise ValueError(f"winners cannot have {egara} egara (the table starts at 8)")


def stones_won(captured: int, trump: int, rensho: int) -> int:
    """The table's stones for the winners' captured cards: what the winners receive (``shares`` says
    what each losing partnership pays of it)."""
    row = stones_row(captured, trump, rensho)
    col = stones_column(egara_count(captured))
    value = STONES_TABLE[row][col]
    if value is None:  # cannot happen: 16 egara include every ace
        raise ValueError(f"impossible stones-table cell row={ROW_NAMES[row]!r} column={COLUMN_NAMES[col]}")
    return value


def deal_winner(captured: list[int], playing: list[int], rensho: int, all_play: bool) -> int:
    """The winning partnership, or -1 when nobody wins (all_play without 9 egara).

    ``captured[p]`` is partnership p's captured cards (bits); ``playing`` lists the
    partnerships in this deal. Two sides: more egara wins, at 8-8 the side WITHOUT
    Rensho wins. all_play: 9 or more egara wins, else nobody.
    """
    counts = {p: egara_count(captured[p]) for p in playing}
    if all_play:
        for p in playing:
            if counts[p] >= 9:
                return p
        return -1
    a, b = playing
    if counts[a] != counts[b]:
        return a if counts[a] > counts[b] else b
    return b if (captured[a] >> rensho) & 1 else a


def shares(amount: int, losers: list[int], egara: dict[int, int], shared: bool) -> dict[int, int]:
    """What each losing partnership owes the winners. Two sides, or ``shared=False`` (v1's all_play):
    each loser owes ``amount``. ``shared`` with two losers (all_play): the winners receive the table's
    ``amount`` once (the Kakeya text: the winners "get 4 stones"), half from each loser; the odd stone
    comes from the loser with fewer egara (tie: the lower partnership), the one that deals next."""
    if not shared or len(losers) < 2:
        return dict.fromkeys(losers, amount)
    first = min(losers, key=lambda p: (egara[p], p))
    return {p: (amount + 1) // 2 if p == first else amount // 2 for p in losers}


def pay(stones: list[int], payer: list[int], payee: list[int], amount: int) -> int:
    """Move up to ``amount`` stones from partnership ``payer`` (its seats) to ``payee``.

    A partnership pays at most what it holds. Stones leave one at a time from the payer
    seat holding the most (ties: lower seat) and arrive one at a time at the payee seat
    holding the fewest (ties: lower seat), which keeps partners' piles level. Returns the
    number of stones moved.
    """
    moved = min(amount, sum(stones[s] for s in payer))
    for _ in range(moved):
        src = max(payer, key=lambda s: (stones[s], -s))
        dst = min(payee, key=lambda s: (stones[s], s))
        stones[src] -= 1
        stones[dst] += 1
    return moved


def egara_rewards(counts: dict[int, int]) -> dict[int, float]:
    """reward="egara": (own egara - mean egara of the opposing playing partnerships) / 16.

    Two sides: (mine - theirs) / 16 in [-1, 1]. all_play (three sides): in [-0.5, 1].
    The rewards of the playing partnerships sum to zero.
    """
    out = {}
    for p, e in counts.items():
        others = [v for q, v in counts.items() if q != p]
        out[p] = (e - sum(others) / len(others)) / NUM_EGARA
    return out
