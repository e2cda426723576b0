"""The Kakeya observation: named pieces defined once (``obs_spec``) and a fast encoder.

Every piece except the last three (``hand_counts``, ``deal``, ``stones``) is 0/1, so the
encoder builds ONE Python int whose bit i is entry i, unpacks it with numpy in a single
call and then writes the few real-valued entries: no per-piece numpy work on the hot
path. The small one-hot pieces come first so that most of the int is assembled from
small (fast) ints. Seats are relative (0 = me, 1 = the next seat in play order, ...),
partnerships too (0 = mine, 1 = the next partnership in seat order, ...). Only the
encoder reads the engine for observations, and only what the seat may see: its own
hand and public information.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from kabu_envs.core.obs_spec import ObsPiece, ObsSpec
from kabu_envs.kakeya.actions import NUM_ACTIONS
from kabu_envs.kakeya.cards import ACE_OF_CLUBS
from kabu_envs.kakeya.config import Config
from kabu_envs.kakeya.game import Game, Phase
from kabu_envs.kakeya.tricks import rensho_card


@cache
def obs_spec(cfg: Config) -> ObsSpec:
    """The observation layout for a rule set (sizes depend on the player count)."""
    n, p = cfg.num_players, cfg.num_partnerships
    return ObsSpec(
        (
            ObsPiece("phase", len(Phase), f"one-hot Phase ({', '.join(p.name for p in Phase)})"),
            ObsPiece("trump", 4, "trump suit one-hot (clubs, diamonds, hearts, spades)"),
            ObsPiece("rensho", 2, "which ace is Rensho: (ace of clubs, ace of spades)"),
            ObsPiece("led_suit", 4, "suit led in the current trick (all 0 before the lead)"),
            ObsPiece("leader", n, "relative seat that led the current trick (all 0 outside trick play)"),
            ObsPiece("first_dealer", n, "relative seat of this deal's first dealer"),
            ObsPiece("partnership", p, "my partnership, absolute one-hot (seat % (n // 2))"),
            ObsPiece("role", 3, "(my partnership deals, I sit out this deal, I play this deal)"),
            ObsPiece("voids", n * 4, "block k: suits relative seat k has shown out of this deal"),
            ObsPiece(
                "egara", p * 16, "egara taken, block k = relative partnership k (0 = mine); J,Q,K,A by suit"
            ),
            ObsPiece("hand", 52, "my cards, by card id (suit*13+rank)"),
            ObsPiece("played", 52, "cards played this deal, current trick included"),
            ObsPiece("gone", 52, "cards no other seat can hold: played or in my hand"),
            ObsPiece("trick", n * 52, "current trick: block k = card played by relative seat k"),
            ObsPiece("hand_counts", n, "cards left in each relative seat's hand / 13"),
            ObsPiece("deal", 1, "deals finished / max_deals"),
            ObsPiece("stones", p, "stones of each relative partnership / all stones at the table"),
        )
    )


class Encoder:
    """Encodes ``Game`` observations for one rule set (offsets and constant bits precomputed)."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.spec = spec = obs_spec(cfg)
        self.size = spec.size
        o = spec.offsets
        n, np_ = cfg.num_players, cfg.num_partnerships
        self._n, self._np = n, np_
        self._real = o["hand_counts"]  # start of the real-valued tail
        self._nbytes = (self.size + NUM_ACTIONS + 7) // 8
        self._inv_deals = 1.0 / cfg.max_deals
        self._inv_stones = 1.0 / (cfg.stones_per_player * n)
        self._o_led = o["led_suit"]
        self._o_leader = o["leader"]
        self._o_voids = o["voids"]
        self._o_egara = o["egara"]
        self._o_hand = o["hand"]
        self._o_played = o["played"]
        self._o_gone = o["gone"]
        self._o_trick = o["trick"]
        self._void_mask = (1 << (4 * n)) - 1
        self._egara_mask = (1 << (16 * np_)) - 1
        self._trick_mask = (1 << (52 * n)) - 1
        # trump and the Rensho it implies under this rule set
        self._trump_bits = [
            (1 << (o["trump"] + t)) | (1 << (o["rensho"] + (rensho_card(t, cfg.rensho_rule) != ACE_OF_CLUBS)))
            for t in range(4)
        ]
        # partnership, role and first dealer: fixed by (seat, dealing partnership) within a deal
        self._seat_bits = []
        for seat in range(n):
            row = []
            my_p = seat % np_
            for dp in range(np_):
                b = 1 << (o["partnership"] + my_p)
                b |= 1 << (o["first_dealer"] + (dp - seat) % n)  # the first dealer is seat dp
                sits_out = cfg.dealers_sit_out and my_p == dp
                b |= (1 << o["role"] if my_p == dp else 0) | 1 << (o["role"] + (1 if sits_out else 2))
                row.append(b)
            self._seat_bits.append(row)
        assert o["phase"] == 0, "phase must come first"

    def encode(self, game: Game, seat: int) -> np.ndarray:
        """The observation vector of ``seat``."""
        return self.encode_with_mask(game, seat, 0)[0]

    def encode_with_mask(self, game: Game, seat: int, legal: int) -> tuple[np.ndarray, np.ndarray]:
        """The observation of ``seat`` and the int8 mask of the legal-action bits ``legal``,
        unpacked from one int in one numpy call (the mask sits after the observation)."""
        n = self._n
        np_ = self._np
        phase = game.phase
        bits = self._seat_bits[seat][game.dealer_partnership] | self._trump_bits[game.trump] | (1 << phase)
        trick = game.trick
        if trick is not None:
            bits |= 1 << (self._o_leader + (trick.leader - seat) % n)
            if trick.led_suit >= 0:
                bits |= 1 << (self._o_led + trick.led_suit)
            if trick.bits:  # rotate the per-seat blocks so that block 0 is this seat
                tb = trick.bits
                bits |= (
                    ((tb >> (52 * seat)) | (tb << (52 * (n - seat)))) & self._trick_mask
                ) << self._o_trick
        vb = game.void_bits
        if vb:
            bits |= (((vb >> (4 * seat)) | (vb << (4 * (n - seat)))) & self._void_mask) << self._o_voids
        eg = game.egara_packed
        if eg:
            my_p = seat % np_
            bits |= (((eg >> (16 * my_p)) | (eg << (16 * (np_ - my_p)))) & self._egara_mask) << self._o_egara
        hand = game.hands[seat]
        played = game.played
        bits |= (hand << self._o_hand) | (played << self._o_played) | ((played | hand) << self._o_gone)
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
        real = counts[seat:] + counts[:seat]
        real = [c / 13.0 for c in real]
        real.append(game.deal_no * self._inv_deals)
        totals = game.partnership_totals
        my_p = seat % np_
        inv = self._inv_stones
        real += [t * inv for t in totals[my_p:] + totals[:my_p]]
        out[self._real :] = real
        return out, flat[size:].view(np.int8)
