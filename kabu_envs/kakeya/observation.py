"""The Kakeya observation (docs/kakeya.md#observation): named pieces defined once
(``obs_spec``) and a fast encoder that writes them by name.

Every piece except ``hand_counts``, ``deal`` and ``stones`` is 0/1, so the encoder builds ONE
Python int whose bit i is entry i, unpacks it with numpy in a single call and then writes the few
real-valued entries in one slice: no per-piece numpy work on the hot path. Where each piece goes
comes from ``spec.offsets`` / ``spec.slices``, looked up once in ``Encoder.__init__``. The small
one-hot pieces come first so that most of the int is assembled from small (fast) ints. Seats are
relative (0 = me, 1 = the next seat in play order, ...), partnerships too (0 = mine, 1 = the next
partnership in seat order, ...). Only the encoder reads the engine for observations, and only what
the seat may see: its own hand and public information.
"""

from __future__ import annotations

from functools import cache
from itertools import pairwise

import numpy as np

from kabu_envs.core.obs_spec import ObsPiece, ObsSpec
from kabu_envs.kakeya.actions import NUM_ACTIONS
from kabu_envs.kakeya.cards import ACE_OF_CLUBS, NUM_CARDS, NUM_EGARA, NUM_SUITS
from kabu_envs.kakeya.config import Config
from kabu_envs.kakeya.game import Game, Phase, partnership_of, partnership_seats
from kabu_envs.kakeya.tricks import rensho_card

# The real-valued pieces, in layout order: written together, as one contiguous slice.
REAL_PIECES = ("hand_counts", "deal", "stones")
# ``hand_counts`` are scaled by the largest hand: 13 cards (4 players, or 6 with the dealers out).
_LARGEST_HAND = NUM_CARDS // 4


@cache
def obs_spec(cfg: Config) -> ObsSpec:
    """The observation layout for a rule set (sizes depend on the player count)."""
    n, num_partnerships = cfg.num_players, cfg.num_partnerships
    return ObsSpec(
        (
            ObsPiece("phase", len(Phase), f"one-hot Phase ({', '.join(ph.name for ph in Phase)})"),
            ObsPiece("trump", NUM_SUITS, "trump suit one-hot (clubs, diamonds, hearts, spades)"),
            ObsPiece("rensho", 2, "which ace is Rensho: (ace of clubs, ace of spades)"),
            ObsPiece("led_suit", NUM_SUITS, "suit led in the current trick (all 0 before the lead)"),
            ObsPiece("leader", n, "relative seat that led the current trick (all 0 outside trick play)"),
            ObsPiece("first_dealer", n, "relative seat of this deal's first dealer"),
            ObsPiece("partnership", num_partnerships, "my partnership, absolute one-hot (seat % (n // 2))"),
            ObsPiece("role", 3, "(my partnership deals, I sit out this deal, I play this deal)"),
            ObsPiece(
                "voids",
                n * NUM_SUITS,
                "block k: suits relative seat k has shown out of this deal ([Play](#play))",
            ),
            ObsPiece(
                "egara",
                num_partnerships * NUM_EGARA,
                "egara taken, block k = relative partnership k (0 = mine); J,Q,K,A by suit",
            ),
            ObsPiece("hand", NUM_CARDS, "my cards, by card id (suit*13+rank)"),
            ObsPiece("played", NUM_CARDS, "cards played this deal, current trick included"),
            ObsPiece("gone", NUM_CARDS, "cards no other seat can hold: played or in my hand"),
            ObsPiece("trick", n * NUM_CARDS, "current trick: block k = card played by relative seat k"),
            ObsPiece("hand_counts", n, f"cards left in each relative seat's hand / {_LARGEST_HAND}"),
            ObsPiece("deal", 1, "deals finished / max_deals"),
            ObsPiece(
                "stones", num_partnerships, "stones of each relative partnership / all stones at the table"
            ),
        )
    )


class Encoder:
    """Encodes ``Game`` observations for one rule set: piece offsets and constant bits precomputed."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.spec = spec = obs_spec(cfg)
        self.size = spec.size
        offsets, slices = spec.offsets, spec.slices
        n, num_partnerships = cfg.num_players, cfg.num_partnerships
        self._num_players, self._num_partnerships = n, num_partnerships
        self._partnership_of = [partnership_of(seat, n) for seat in range(n)]
        # where the 0/1 pieces go in the int (their offsets)
        self._led_suit_at = offsets["led_suit"]
        self._leader_at = offsets["leader"]
        self._voids_at = offsets["voids"]
        self._egara_at = offsets["egara"]
        self._hand_at = offsets["hand"]
        self._played_at = offsets["played"]
        self._gone_at = offsets["gone"]
        self._trick_at = offsets["trick"]
        self._phase_bits = tuple(1 << (offsets["phase"] + phase) for phase in Phase)
        # the per-seat blocks of voids, egara and the trick, to rotate so that block 0 is the observer
        self._void_mask = _all_ones(slices["voids"])
        self._egara_mask = _all_ones(slices["egara"])
        self._trick_mask = _all_ones(slices["trick"])
        # the real-valued pieces: one slice, written after the unpack
        real = [slices[name] for name in REAL_PIECES]
        if any(a.stop != b.start for a, b in pairwise(real)):
            raise ValueError(f"the real-valued pieces {REAL_PIECES} must be adjacent, in this order")
        self._real = slice(real[0].start, real[-1].stop)
        self._nbytes = (self.size + NUM_ACTIONS + 7) // 8  # the observation, then the action mask
        self._inv_deals = 1.0 / cfg.max_deals
        self._inv_stones = 1.0 / (cfg.stones_per_player * n)
        # trump and the Rensho it implies under this rule set
        self._trump_bits = [
            (1 << (offsets["trump"] + trump))
            | (1 << (offsets["rensho"] + (rensho_card(trump, cfg.rensho_rule) != ACE_OF_CLUBS)))
            for trump in range(NUM_SUITS)
        ]
        # partnership, role and first dealer: fixed by (seat, dealing partnership) within a deal
        self._seat_bits = []
        for seat in range(n):
            row = []
            mine = self._partnership_of[seat]
            for dealers in range(num_partnerships):
                first_dealer = partnership_seats(dealers, n)[0]  # the lower seat of the dealers
                we_deal = mine == dealers
                sits_out = cfg.dealers_sit_out and we_deal
                b = 1 << (offsets["partnership"] + mine)
                b |= 1 << (offsets["first_dealer"] + (first_dealer - seat) % n)
                if we_deal:
                    b |= 1 << offsets["role"]  # role 0: my partnership deals
                b |= 1 << (offsets["role"] + (1 if sits_out else 2))  # role 1: I sit out, 2: I play
                row.append(b)
            self._seat_bits.append(row)

    def encode(self, game: Game, seat: int) -> np.ndarray:
        """The observation vector of ``seat``."""
        return self.encode_with_mask(game, seat, 0)[0]

    def encode_with_mask(self, game: Game, seat: int, legal: int) -> tuple[np.ndarray, np.ndarray]:
        """The observation of ``seat`` and the int8 mask of the legal-action bits ``legal``,
        unpacked from one int in one numpy call (the mask sits after the observation)."""
        n = self._num_players
        mine = self._partnership_of[seat]
        bits = (
            self._seat_bits[seat][game.dealer_partnership]
            | self._trump_bits[game.trump]
            | self._phase_bits[game.phase]
        )
        trick = game.trick
        if trick is not None:
            bits |= 1 << (self._leader_at + (trick.leader - seat) % n)
            if trick.led_suit >= 0:
                bits |= 1 << (self._led_suit_at + trick.led_suit)
            trick_bits = trick.bits
            if trick_bits:  # one block of NUM_CARDS bits per seat
                down, up = NUM_CARDS * seat, NUM_CARDS * (n - seat)
                bits |= (((trick_bits >> down) | (trick_bits << up)) & self._trick_mask) << self._trick_at
        void_bits = game.void_bits
        if void_bits:  # one block of NUM_SUITS bits per seat
            down, up = NUM_SUITS * seat, NUM_SUITS * (n - seat)
            bits |= (((void_bits >> down) | (void_bits << up)) & self._void_mask) << self._voids_at
        egara_bits = game.egara_packed
        if egara_bits:  # one block of NUM_EGARA bits per partnership
            down, up = NUM_EGARA * mine, NUM_EGARA * (self._num_partnerships - mine)
            bits |= (((egara_bits >> down) | (egara_bits << up)) & self._egara_mask) << self._egara_at
        hand = game.hands[seat]
        played = game.played
        bits |= (hand << self._hand_at) | (played << self._played_at) | ((played | hand) << self._gone_at)
        size = self.size
        if legal:
            bits |= legal << size
        flat = np.unpackbits(
            np.frombuffer(bits.to_bytes(self._nbytes, "little"), dtype=np.uint8),
            count=size + NUM_ACTIONS,
            bitorder="little",
        )
        out = flat[:size].astype(np.float32)
        counts = game.hand_counts
        real = [c / _LARGEST_HAND for c in counts[seat:] + counts[:seat]]
        real.append(game.deal_no * self._inv_deals)
        totals = game.partnership_totals
        inv_stones = self._inv_stones
        real += [t * inv_stones for t in totals[mine:] + totals[:mine]]
        out[self._real] = real
        return out, flat[size:].view(np.int8)


def _all_ones(piece: slice) -> int:
    """An int with one set bit per entry of ``piece``."""
    return (1 << (piece.stop - piece.start)) - 1
