"""The Kakeya kernel's layout: the columns of the state, the option indices, the observation pieces
and the numba decorator every kernel function uses (``kabu_envs/kakeya/kernel/``)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numba
import numpy as np

from kabu_envs.kakeya.cards import ACE_MASK, EGARA_MASK, SUIT_MASK
from kabu_envs.kakeya.game import Phase
from kabu_envs.kakeya.observation import _LARGEST_HAND
from kabu_envs.kakeya.scoring import STONES_TABLE


class State(NamedTuple):
    """The arrays of B matches (one row per match), read by name in the compiled functions (``st.hands``):
    numba passes a named tuple as its fields, so a name costs nothing over a position. ``make_state``
    (``kernel/__init__.py``) builds one."""

    g: np.ndarray  # (B, NG) int64: the per-match numbers by column (PHASE, TRUMP, ... below)
    current_player: np.ndarray  # (B,) int64, -1: the match is over
    stones: np.ndarray  # (B, n) int64
    counts: np.ndarray  # (B, n) int64: cards in hand
    voids: np.ndarray  # (B, n) int64: 4 bits per seat, the suits shown out of
    t_card: np.ndarray  # (B, n) int64: the card each seat played to the trick, -1 none
    hands: np.ndarray  # (B, n) uint64 card sets (bit ``card``)
    t_bits: np.ndarray  # (B, n) uint64: each seat's trick card as a set
    played: np.ndarray  # (B,) uint64: the cards played this deal
    captured: np.ndarray  # (B, P) uint64: each partnership's captured cards
    decks: np.ndarray  # (B, 52) int8: the next deal's order (fed, or a stacked prefix)
    rng: np.ndarray  # (B,) uint64: core.kernel generator states
    scratch: np.ndarray  # (B, 3, 8) int64: end_deal's per-partnership numbers, a row's own (rows run in
    # parallel: ``batch.step_parallel``; the kernel allocates nothing)


Arrays = State  # (the annotation of the kernel functions' state argument)
# The state as Python passes it to the entry points (``tuple(state)``): numba's dispatcher types a plain
# tuple of arrays at C speed but spells out a named tuple's field names on every call (~2.4 us a call,
# most of a one-game step), so an entry point takes the plain tuple and names it at once
# (``st = State(*arrays)``: free in compiled code); inside the kernel every function takes the ``State``.
Fields = tuple[np.ndarray, ...]
# the outputs (layout, mask, observation, packed, real and the compact encoder's bitset: ``outputs``)
Outputs = tuple[np.ndarray, ...]

# --- columns of g (per-match numbers) -------------------------------------------------------------
PHASE, TRUMP, RENSHO, DEAL_NO, DEALER_P, LEAD_P = 0, 1, 2, 3, 4, 5
T_LEADER, T_LED, T_LEN, T_NUM = 6, 7, 8, 9  # the trick in play: leader, led suit, seats in it, played
FEED, READY, PREFIX, EPISODE = 10, 11, 12, 13  # deals: fed by Python / fed deck waiting / prefix / match no.
# the absolute partnership of the row's partnership 0: the engine's rows are absolute (0); the search's
# rows are relative to the deciding seat, and the scoring's ties go to the lower absolute partnership
TIE_BASE = 14
NG = 15

# --- the rule options (``options``) ---------------------------------------------------------------
O_N, O_P, O_ALL_PLAY, O_SIT_OUT, O_MUST_FOLLOW, O_DEFAULT_TRUMP, O_CHOOSE_TRUMP = 0, 1, 2, 3, 4, 5, 6
O_RENSHO_SEED, O_MAX_DEALS, O_STONES, O_REWARD_EGARA, O_AUTORESET = 7, 8, 9, 10, 11
O_SHARED = 12  # all_play_payment="shared": the two losers share the table's amount
NUM_OPTIONS = 13

# --- the observation layout (``layout``: obs_spec offsets, in this order) -------------------------
PIECES = (
    "phase",
    "trump",
    "rensho",
    "led_suit",
    "leader",
    "first_dealer",
    "partnership",
    "role",
    "voids",
    "egara",
    "hand",
    "played",
    "gone",
    "trick",
    "hand_counts",
    "deal",
    "stones",
)
(L_PHASE, L_TRUMP, L_RENSHO, L_LED, L_LEADER, L_FIRST_DEALER, L_PARTNERSHIP, L_ROLE) = range(8)
(L_VOIDS, L_EGARA, L_HAND, L_PLAYED, L_GONE, L_TRICK, L_COUNTS, L_DEAL, L_STONES) = range(8, 17)

TRUMP_PHASE, LEAD_PHASE, PLAY_PHASE, OVER_PHASE = (int(p) for p in Phase)
HAND_SCALE = _LARGEST_HAND
SUIT_BITS = np.array(SUIT_MASK, dtype=np.uint64)
EGARA_BITS = np.uint64(EGARA_MASK)
ACE_BITS = np.uint64(ACE_MASK)
STONES_CELLS = np.array([[v or 0 for v in row] for row in STONES_TABLE], dtype=np.int64)  # impossible: 0
ONE, ZERO = np.uint64(1), np.uint64(0)
# each byte's 8 bits as float32 0/1 entries (8 KB: ``batch.put_bits`` copies them a byte at a time), and
# as 8 bool bytes in one uint64 word (2 KB: ``batch.encode_row`` writes the mask a word at a time)
_BYTE_BITS = (np.arange(256)[:, None] >> np.arange(8)) & 1
BYTE_FLOATS = _BYTE_BITS.astype(np.float32)
BYTE_BOOLS = _BYTE_BITS.astype(np.uint8).view(np.uint64).ravel()
RANKS, SUITS, ACE_RANK = 13, 4, 12

# Compiled without reference counting (numba's NRT): the kernel allocates nothing, and NRT's atomic
# increments on each array taken from the state tuple cost several times a card play itself.
_njit: Any = numba.njit  # (``_nrt`` is numba's own flag, absent from its type stubs)
kernel_jit = _njit(cache=True, _nrt=False)
# The functions run once per row and step are inlined by numba (``inline="always"``): a call passes the
# state tuple as every field of every array, and LLVM does not inline a callee that large by itself.
kernel_jit_inline = _njit(cache=True, _nrt=False, inline="always")
# The entry points that step rows on every core (``prange``; ``core.threads``): each row touches only its
# own rows of the arrays, so any thread count gives the same games bit for bit.
kernel_jit_parallel = _njit(cache=True, _nrt=False, parallel=True)
WORDS = 16  # the 0/1 entries as a bitset: up to 960 bits and a spare word (four players 438, six 571)
