"""What one Kakeya seat knows, decoded from its observation vector (docs/kakeya.md#observation).

The search agent (``agents/expert.py``) decides from the observation only, as every agent does;
this module turns the flat vector back into the facts the seat may use, as card bit sets (52-bit ints,
``kabu_envs.kakeya.cards``) in RELATIVE seats (0 = me, 1 = the next seat in play order, ...) and
relative partnerships (0 = mine; relative seat k is in relative partnership ``k % (n // 2)``).

What the observation does not hold: who played which card in the finished tricks of the deal (only
the set of played cards, the egara each partnership took and the suits each seat has shown out of).
For sampling the unseen cards that is enough: a seat's past plays constrain its current hand only
through the voids it revealed, which the observation keeps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kabu_envs.kakeya.cards import NUM_CARDS, NUM_EGARA, NUM_RANKS, NUM_SUITS, make_card
from kabu_envs.kakeya.config import Config
from kabu_envs.kakeya.game import Phase
from kabu_envs.kakeya.observation import REAL_PIECES, obs_spec
from kabu_envs.kakeya.tricks import rensho_card

ALL_CARDS = (1 << NUM_CARDS) - 1
# the 16 egara bits of the observation (J,Q,K,A by suit) -> their card ids
_EGARA_IDS = tuple(make_card(s, r) for s in range(NUM_SUITS) for r in range(NUM_RANKS - 4, NUM_RANKS))
# hand_counts are scaled by the largest hand (13 cards)
_LARGEST_HAND = NUM_CARDS // 4


def egara_to_cards(bits16: int) -> int:
    """52-bit card set of the observation's 16 egara bits (J,Q,K,A of clubs..spades)."""
    out = 0
    for i, card in enumerate(_EGARA_IDS):
        if (bits16 >> i) & 1:
            out |= 1 << card
    return out


@dataclass(frozen=True)
class SeatView:
    """One seat's knowledge at a decision, relative seats and partnerships (see the module docstring)."""

    phase: Phase
    trump: int
    rensho: int
    led_suit: int  # -1 before the lead or outside trick play
    leader: int  # relative seat that led the current trick (0 outside trick play)
    first_dealer: int  # relative seat of this deal's first dealer
    voids: tuple[int, ...]  # per relative seat: 4-bit mask of the suits it has shown out of
    captured: tuple[int, ...]  # per relative partnership: egara taken this deal (52-bit set)
    hand: int  # my cards
    played: int  # cards played this deal, the current trick included
    trick: tuple[int, ...]  # per relative seat: its card in the current trick, -1 if none
    hand_counts: tuple[int, ...]  # per relative seat: cards in hand
    stones: tuple[int, ...]  # per relative partnership: stones before this deal
    partnership: int = 0  # my partnership, absolute (the scoring's ties go to the lower absolute one)

    @property
    def unseen(self) -> int:
        """Cards some other seat holds: neither played nor mine."""
        return ALL_CARDS & ~(self.played | self.hand)


class ViewDecoder:
    """Decodes observations of one rule set (piece offsets looked up once)."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        spec = obs_spec(cfg)
        self.size = spec.size
        self._off = dict(spec.offsets)
        self._binary_end = spec.slices[REAL_PIECES[0]].start  # every piece before it is 0/1
        self._counts = spec.slices["hand_counts"]
        self._stones = spec.slices["stones"]
        self._n = cfg.num_players
        self._m = cfg.num_partnerships
        self._total_stones = cfg.stones_per_player * cfg.num_players
        self._rensho = [rensho_card(t, cfg.rensho_rule) for t in range(NUM_SUITS)]

    def decode(self, obs: np.ndarray) -> SeatView:
        if obs.shape != (self.size,):
            raise ValueError(
                f"a Kakeya observation of this rule set has shape ({self.size},), got {obs.shape}"
            )
        packed = np.packbits(np.asarray(obs[: self._binary_end]) > 0.5, bitorder="little")
        bits = int.from_bytes(packed.tobytes(), "little")
        off, n, m = self._off, self._n, self._m

        def piece(name: str, size: int) -> int:
            return (bits >> off[name]) & ((1 << size) - 1)

        def one_hot(name: str, size: int, empty: int = -1) -> int:
            v = piece(name, size)
            return v.bit_length() - 1 if v else empty

        trump = one_hot("trump", NUM_SUITS)
        voids_all = piece("voids", n * NUM_SUITS)
        egara_all = piece("egara", m * NUM_EGARA)
        trick_all = piece("trick", n * NUM_CARDS)
        trick = []
        for k in range(n):
            block = (trick_all >> (NUM_CARDS * k)) & ALL_CARDS
            trick.append(block.bit_length() - 1 if block else -1)
        counts = np.rint(np.asarray(obs[self._counts], dtype=np.float64) * _LARGEST_HAND).astype(int)
        stones = np.rint(np.asarray(obs[self._stones], dtype=np.float64) * self._total_stones).astype(int)
        return SeatView(
            phase=Phase(one_hot("phase", len(Phase))),
            trump=trump,
            rensho=self._rensho[trump],
            led_suit=one_hot("led_suit", NUM_SUITS),
            leader=one_hot("leader", n, 0),
            first_dealer=one_hot("first_dealer", n),
            voids=tuple((voids_all >> (NUM_SUITS * k)) & 0xF for k in range(n)),
            captured=tuple(egara_to_cards((egara_all >> (NUM_EGARA * p)) & 0xFFFF) for p in range(m)),
            hand=piece("hand", NUM_CARDS),
            played=piece("played", NUM_CARDS),
            trick=tuple(trick),
            hand_counts=tuple(int(c) for c in counts),
            stones=tuple(int(s) for s in stones),
            partnership=one_hot("partnership", m),
        )
