"""Deals of the unseen Kakeya cards consistent with what one seat has seen, drawn uniformly.

A seat knows its own hand, the cards played, how many cards each other seat holds and the suits each
has shown out of (docs/kakeya.md#play: a seat that did not follow holds no card of the led suit, except,
with ``rensho_follow="free"``, perhaps Rensho itself). Every consistent deal is equally likely a priori
(the pack was shuffled uniformly and the seats' past plays are not weighted), so the sampler draws
uniformly from the consistent deals, exactly:

* cards with the same set of seats allowed to hold them form a group (at most the four suits plus
  Rensho); the cards of a group are exchangeable; the seats that have shown out of no suit that still
  has unseen cards count as one seat (any split of its cards among them is equally possible);
* ``ways(g, quotas)`` counts the deals of groups ``g..`` into the seats' remaining quotas (a
  multinomial per allocation of a group's cards to its allowed seats, memoised);
* a sample picks each group's allocation with probability proportional to its count, then deals the
  group's cards to the seats in a uniformly random order.

The counts are exact Python ints; the allocation is drawn with one float uniform per group. Most
positions have few voids, so ``sample`` first tries a few plain shuffles of the unseen cards and keeps
the first that fits (rejection sampling: uniform over the consistent deals too); the counting tables
are built only when those tries fail. Either way a sample is uniform over the consistent deals.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from math import factorial

import numpy as np

from kabu_envs.kakeya.cards import NUM_SUITS, SUIT_MASK, bits_to_cards

_FACT = tuple(factorial(k) for k in range(53))


class DealSampler:
    """Uniform consistent deals of ``unseen`` (a 52-bit set) to ``seats`` holding ``counts`` cards.

    ``voids[s]`` is seat s's 4-bit mask of suits shown out of. Raises ValueError when the counts do
    not add up, and ``sample`` raises when the voids leave no deal that fits.
    """

    def __init__(
        self,
        unseen: int,
        seats: Sequence[int],
        counts: Sequence[int],
        voids: Sequence[int],
        rensho: int,
        rensho_free: bool,
    ) -> None:
        self.seats = tuple(seats)
        self.quotas = tuple(int(c) for c in counts)
        if sum(self.quotas) != unseen.bit_count():
            raise ValueError(
                f"the other seats hold {sum(self.quotas)} cards but {unseen.bit_count()} cards are unseen"
            )
        self.cards = bits_to_cards(unseen)
        # the cards each seat may not hold: the suits it has shown out of (Rensho aside, when free)
        self.forbidden = []
        for seat in self.seats:
            mask = 0
            for suit in range(NUM_SUITS):
                if (voids[seat] >> suit) & 1:
                    mask |= SUIT_MASK[suit]
            if rensho_free:
                mask &= ~(1 << rensho)
            self.forbidden.append(mask & unseen)
        # The seats that may hold any unseen card are one pseudo-seat (the last) for the counting: every
        # split of its cards among them is equally possible, so each counted deal stands for the same
        # number of deals and a uniform count stays uniform (``_sample_counted`` splits it uniformly).
        self._constrained = [i for i, f in enumerate(self.forbidden) if f and self.quotas[i]]
        self._free = [i for i, f in enumerate(self.forbidden) if not f and self.quotas[i]]
        lump = sum(self.quotas[i] for i in self._free)
        self._pseudo_quotas = tuple(self.quotas[i] for i in self._constrained) + (
            (lump,) if self._free else ()
        )
        self._free_splits = _FACT[lump]
        for i in self._free:
            self._free_splits //= _FACT[self.quotas[i]]
        groups: dict[tuple[int, ...], list[int]] = {}
        for card in self.cards:
            allowed = [k for k, i in enumerate(self._constrained) if not (self.forbidden[i] >> card) & 1]
            if self._free:
                allowed.append(len(self._constrained))
            groups.setdefault(tuple(allowed), []).append(card)
        # larger allowed sets last: the last group's allocation is forced, the others branch
        self.groups = sorted(groups.items(), key=lambda g: (len(g[0]), g[0]))
        self._ways: dict[tuple[int, tuple[int, ...]], int] = {}
        self._choices: dict[tuple[int, tuple[int, ...]], tuple[list[tuple[int, ...]], list[float]]] = {}
        # None: the tables are not built yet (-1: and need not be, as every deal fits)
        self._total: int | None = None if self._constrained else -1

    @property
    def total(self) -> int:
        """The number of consistent deals (the counting tables are built on first use)."""
        if self._total is None or self._total < 0:
            self._total = self.ways(0, self._pseudo_quotas) * self._free_splits
        return self._total

    def _allocations(self, g: int, quotas: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        """Every split of group g's cards over its allowed seats within ``quotas`` (full-length tuples)."""
        allowed, cards = self.groups[g]
        size = len(cards)
        # room[i]: what the allowed seats after the i-th can still take (prunes splits that cannot fit)
        room = [0] * (len(allowed) + 1)
        for i in range(len(allowed) - 1, -1, -1):
            room[i] = room[i + 1] + quotas[allowed[i]]

        def rec(i: int, left: int, acc: list[int]) -> Iterator[tuple[int, ...]]:
            seat = allowed[i]
            if i == len(allowed) - 1:
                if left <= quotas[seat]:
                    acc[seat] = left
                    yield tuple(acc)
                    acc[seat] = 0
                return
            for x in range(max(0, left - room[i + 1]), min(left, quotas[seat]) + 1):
                acc[seat] = x
                yield from rec(i + 1, left - x, acc)
            acc[seat] = 0

        if not allowed:
            if size == 0:
                yield (0,) * len(quotas)
            return
        if size > room[0]:
            return
        yield from rec(0, size, [0] * len(quotas))

    def ways(self, g: int, quotas: tuple[int, ...]) -> int:
        """Deals of groups g.. that fill ``quotas`` exactly."""
        if g == len(self.groups):
            return 0 if any(quotas) else 1
        key = (g, quotas)
        cached = self._ways.get(key)
        if cached is None:
            cached = self._ways[key] = sum(self._weighted(g, quotas)[1])
        return cached

    def _weighted(self, g: int, quotas: tuple[int, ...]) -> tuple[list[tuple[int, ...]], list[int]]:
        """Group g's allocations that leave a completable rest, each with its number of deals."""
        size = len(self.groups[g][1])
        allocs, weights = [], []
        for x in self._allocations(g, quotas):
            rest = self.ways(g + 1, tuple(q - k for q, k in zip(quotas, x, strict=True)))
            if rest:
                multinomial = _FACT[size]
                for k in x:
                    multinomial //= _FACT[k]
                allocs.append(x)
                weights.append(multinomial * rest)
        return allocs, weights

    def _choice(self, g: int, quotas: tuple[int, ...]) -> tuple[list[tuple[int, ...]], list[float]]:
        key = (g, quotas)
        cached = self._choices.get(key)
        if cached is not None:
            return cached
        allocs, weights = self._weighted(g, quotas)
        total = sum(weights)
        cum, acc = [], 0
        for w in weights:
            acc += w
            cum.append(acc / total)
        self._choices[key] = (allocs, cum)
        return allocs, cum

    def sample(self, rng: np.random.Generator, tries: int = 32) -> dict[int, int]:
        """One consistent deal: seat -> its cards (52-bit set). ``tries`` plain shuffles first."""
        cards = self.cards
        for _ in range(tries if self._total is None or self._total < 0 else 0):
            order = rng.permutation(len(cards)).tolist()
            hands, at, ok = [], 0, True
            for quota, forbidden in zip(self.quotas, self.forbidden, strict=True):
                hand = 0
                for j in order[at : at + quota]:
                    hand |= 1 << cards[j]
                if hand & forbidden:
                    ok = False
                    break
                hands.append(hand)
                at += quota
            if ok:
                return dict(zip(self.seats, hands, strict=True))
        if self.total == 0:
            raise ValueError("no deal of the unseen cards fits the hand counts and the voids")
        return self._sample_counted(rng)

    def _sample_counted(self, rng: np.random.Generator) -> dict[int, int]:
        """A sample through the counting tables (see the module docstring)."""
        quotas = self._pseudo_quotas
        pseudo = [0] * len(quotas)
        for g, (_, cards) in enumerate(self.groups):
            allocs, cum = self._choice(g, quotas)
            if len(allocs) == 1:
                x = allocs[0]
            else:
                u = rng.random()
                i = 0
                while i < len(cum) - 1 and cum[i] <= u:
                    i += 1
                x = allocs[i]
            order = rng.permutation(len(cards)).tolist() if len(cards) > 1 else [0]
            at = 0
            for i, k in enumerate(x):
                for j in order[at : at + k]:
                    pseudo[i] |= 1 << cards[j]
                at += k
            quotas = tuple(q - k for q, k in zip(quotas, x, strict=True))
        hands = [0] * len(self.seats)
        for k, i in enumerate(self._constrained):
            hands[i] = pseudo[k]
        if self._free:  # the pseudo-seat's cards, split uniformly among the seats it stands for
            lump = bits_to_cards(pseudo[-1])
            order = rng.permutation(len(lump)).tolist()
            at = 0
            for i in self._free:
                for j in order[at : at + self.quotas[i]]:
                    hands[i] |= 1 << lump[j]
                at += self.quotas[i]
        return dict(zip(self.seats, hands, strict=True))
