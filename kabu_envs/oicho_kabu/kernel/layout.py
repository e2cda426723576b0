"""The Oicho-Kabu kernel's data: the options array, the state arrays and the observation layout.

Plain numpy (no numba): ``make_rules(cfg)`` and ``make_state(B, cfg)`` build what the compiled functions
(``flow``, ``encode``) read and write; ``compact_layout`` / ``decode_compact`` describe the compact
observation.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kabu_envs.oicho_kabu import actions as _actions
from kabu_envs.oicho_kabu.actions import CHOICE_ACTIONS
from kabu_envs.oicho_kabu.batch_tables import hand_tables
from kabu_envs.oicho_kabu.config import Config
from kabu_envs.oicho_kabu.deck import DECK_SIZE, LIGHT_CARDS, NUM_VALUES
from kabu_envs.oicho_kabu.game import MAX_CARDS, NUM_SPREADS, Phase
from kabu_envs.oicho_kabu.observation import obs_spec

MINSO, BET, CHOICE, DECIDE, DEALER_DRAW, OVER = (int(p) for p in Phase)
TAKE_FIRST = CHOICE_ACTIONS[0]  # the action id of TAKE_TOP; TAKE_BOTTOM and TAKE_FOURTH follow

# --- the options array: Rules.opt[O_*] ---------------------------------------------------------------
(
    O_N,  # num_players
    O_DOMAE,
    O_BANKROLL,
    O_SELECTION,  # dealer_selection: 0 fixed, 1 closest_to_nine, 2 lowest
    O_EACH_DEAL,  # dealer_selection_each_deal
    O_TRIPLE,  # redeal_on_triple_table
    O_INFO,  # info_cards
    O_MINSO,  # minso_limit when minso is on, else 0
    O_BEFORE_BETS,  # dealer_first_card == "before_bets"
    O_CHOICE,  # dealer_card_choice
    O_FACE_UP,  # dealer_second_card_face_up
    O_ASKING,  # decision_order == "asking"
    O_MAX_ROUNDS,
    O_CHANGE,  # dealer_change as bits: CH_DEALS | CH_BUST | CH_DOUBLED | CH_LOW_HAND | CH_LOST_ALL
    O_MAX_DEALS,  # dealer_max_deals
    O_UNBACKED,  # unbacked_spread_card (the encyclopedia's face-up card of an unbacked spread)
    O_K,  # hand classes (batch_tables: 10, or 13 with the hanafuda lights)
    O_LIGHTS,  # deck == "hanafuda": the observation's light pieces
    O_ACTIONS,  # num_actions
    O_OBS,  # obs_size
    NUM_OPTIONS,
) = range(21)
SELECTIONS = ("fixed", "closest_to_nine", "lowest")
CHANGES = ("deals", "bust", "doubled", "low_hand", "lost_all")
CH_DEALS, CH_BUST, CH_DOUBLED, CH_LOW_HAND, CH_LOST_ALL = (1 << i for i in range(len(CHANGES)))

# --- the observation offsets: Rules.off[F_*] (obs_spec's pieces; -1 when absent) --------------------
PIECES = (
    "dealer_position",
    "phase",
    "to_act",
    "active_spread",
    "choice_slot",
    "spread_cards",
    "spread_hidden",
    "dealer_cards",
    "dealer_hidden",
    "info_card",
    "spread_status",
    "is_decider",
    "own_stakes",
    "total_stakes",
    "backers",
    "domae_left",
    "stake_room",
    "chips",
    "own_chips",
    "round",
    "dealer_deals",
    "minso_left",
    "spread_lights",
    "dealer_lights",
    "selection_cards",
)
(
    F_DEALER,
    F_PHASE,
    F_TO_ACT,
    F_ACTIVE,
    F_SLOT,
    F_SCARDS,
    F_SHIDDEN,
    F_DCARDS,
    F_DHIDDEN,
    F_INFO,
    F_STATUS,
    F_DECIDER,
    F_OWN,
    F_TOTAL,
    F_BACKERS,
    F_LEFT,
    F_ROOM,
    F_CHIPS,
    F_OWN_CHIPS,
    F_ROUND,
    F_DEALS,
    F_MINSO,
    F_SLIGHTS,
    F_DLIGHTS,
    F_SELECT,
) = range(len(PIECES))
HAND = MAX_CARDS * NUM_VALUES  # a spread's card one-hots
LIGHT_MASK = sum(1 << c for c in LIGHT_CARDS)  # bit c: card id c is a hanafuda light


class Rules(NamedTuple):
    """One rule set as the kernel reads it (``make_rules``)."""

    opt: np.ndarray  # (NUM_OPTIONS,) int64, indexed by O_*
    sizes: np.ndarray  # (m,) int64: the stake of BET(k) is sizes[k - 1]
    card_class: np.ndarray  # (40,) card id -> hand class
    hand_value: np.ndarray  # (K**2 + K**3,) hand -> value mod 10
    draw_bettor: np.ndarray  # (K**2,) two-card hand -> STAND_BIT | DRAW_BIT | ESCAPE_BIT
    draw_dealer: np.ndarray  # (K**2,) the same for the dealer
    dealer_sig: np.ndarray  # (K**2 + K**3,) hand -> settlement signature
    bettor_sig: np.ndarray
    settle: np.ndarray  # (dealer signatures, bettor signatures) -> signed multiplier per stake
    off: np.ndarray  # (len(PIECES),) int64 observation offsets, indexed by F_*


class State(NamedTuple):
    """B games as arrays (``make_state``); the names are the numpy engine's (agents read them)."""

    deck: np.ndarray  # (B, 40) card ids; the undealt cards are deck[b, top:dlen]
    top: np.ndarray
    dlen: np.ndarray
    stacked: np.ndarray  # end of the unused stacked prefix (Deck.stacked)
    chips: np.ndarray  # (B, n)
    round_index: np.ndarray
    dealer: np.ndarray
    deals_by_dealer: np.ndarray
    dealer_start_chips: np.ndarray
    selection: np.ndarray  # (B, n) each seat's selection card of this deal, -1 none
    order: np.ndarray  # (B, n) the betting order, first nb entries
    nb: np.ndarray
    bet_i: np.ndarray
    info: np.ndarray  # (B, n) info cards, -1 none
    spreads: np.ndarray  # (B, 4, 3) card ids, -1 none
    stakes: np.ndarray  # (B, n, 4) [game, seat, spread]
    spread_total: np.ndarray  # (B, 4)
    backers: np.ndarray  # (B, 4) seats with a stake on the spread
    seat_total: np.ndarray  # (B, n)
    round_total: np.ndarray
    decider: np.ndarray  # (B, 4) first backer, -1 none
    spread_state: np.ndarray  # (B, 4) UNDECIDED / STOOD / DREW / ESCAPED
    dealer_cards: np.ndarray  # (B, 3)
    nd: np.ndarray  # dealer's cards dealt
    revealed: np.ndarray  # (B,) bool: Game.dealer_revealed
    minso_redeals: np.ndarray
    active: np.ndarray  # Game.active_spread
    choice_slot: np.ndarray
    phase: np.ndarray
    current_player: np.ndarray  # -1: the game is over
    legal_action_mask: np.ndarray  # (B, A) bool
    rewards: np.ndarray  # (B, n) float64: chips won this step
    terminated: np.ndarray  # (B,) bool
    rng: np.ndarray  # (B,) uint64: each row's generator state (core.kernel)
    seed: np.ndarray  # (B,) uint64: the seed, row key and episode the row's generator came from
    row_key: np.ndarray
    episode: np.ndarray


def make_rules(cfg: Config) -> Rules:
    """The kernel's view of ``cfg``: every option the numpy engine vectorises (see ``Rules``)."""
    tab = hand_tables(cfg)
    spec = obs_spec(cfg)
    changes = sum(1 << CHANGES.index(c) for c in cfg.dealer_change)
    opt = np.zeros(NUM_OPTIONS, dtype=np.int64)
    opt[O_N] = cfg.num_players
    opt[O_DOMAE] = cfg.domae
    opt[O_BANKROLL] = cfg.bankroll
    opt[O_SELECTION] = SELECTIONS.index(cfg.dealer_selection)
    opt[O_EACH_DEAL] = cfg.dealer_selection_each_deal
    opt[O_TRIPLE] = cfg.redeal_on_triple_table
    opt[O_INFO] = cfg.info_cards
    opt[O_MINSO] = cfg.minso_limit if cfg.minso else 0
    opt[O_BEFORE_BETS] = cfg.dealer_first_card == "before_bets"
    opt[O_CHOICE] = cfg.dealer_card_choice
    opt[O_FACE_UP] = cfg.dealer_second_card_face_up
    opt[O_ASKING] = cfg.decision_order == "asking"
    opt[O_MAX_ROUNDS] = cfg.max_rounds
    opt[O_CHANGE] = changes
    opt[O_MAX_DEALS] = cfg.dealer_max_deals
    opt[O_UNBACKED] = bool(getattr(cfg, "unbacked_spread_card", False))  # (issue #24's open departure)
    opt[O_K] = tab.num_classes
    opt[O_LIGHTS] = cfg.deck == "hanafuda"
    opt[O_ACTIONS] = _actions.num_actions(len(cfg.bet_sizes))
    opt[O_OBS] = spec.size
    offsets = spec.offsets
    off = np.array([offsets.get(name, -1) for name in PIECES], dtype=np.int64)
    return Rules(
        opt=opt,
        sizes=np.array(cfg.bet_sizes, dtype=np.int64),
        card_class=tab.card_class.astype(np.int64),
        hand_value=tab.hand_value.astype(np.int64),
        draw_bettor=tab.draw_bettor.astype(np.int64),
        draw_dealer=tab.draw_dealer.astype(np.int64),
        dealer_sig=tab.dealer_sig.astype(np.int64),
        bettor_sig=tab.bettor_sig.astype(np.int64),
        settle=np.ascontiguousarray(tab.settle, dtype=np.int64),
        off=off,
    )


def make_state(batch_size: int, cfg: Config) -> State:
    """Zeroed state for ``batch_size`` games of ``cfg``, every game over (``reset_rows`` deals)."""
    B, n = batch_size, cfg.num_players
    A = _actions.num_actions(len(cfg.bet_sizes))
    i64 = np.int64

    def full(shape: tuple[int, ...], value: int) -> np.ndarray:
        return np.full(shape, value, dtype=i64)

    return State(
        deck=full((B, DECK_SIZE), 0),
        top=full((B,), 0),
        dlen=full((B,), DECK_SIZE),
        stacked=full((B,), 0),
        chips=full((B, n), 0),
        round_index=full((B,), 0),
        dealer=full((B,), 0),
        deals_by_dealer=full((B,), 0),
        dealer_start_chips=full((B,), 0),
        selection=full((B, n), -1),
        order=full((B, n), 0),
        nb=full((B,), 0),
        bet_i=full((B,), 0),
        info=full((B, n), -1),
        spreads=full((B, NUM_SPREADS, MAX_CARDS), -1),
        stakes=full((B, n, NUM_SPREADS), 0),
        spread_total=full((B, NUM_SPREADS), 0),
        backers=full((B, NUM_SPREADS), 0),
        seat_total=full((B, n), 0),
        round_total=full((B,), 0),
        decider=full((B, NUM_SPREADS), -1),
        spread_state=full((B, NUM_SPREADS), 0),
        dealer_cards=full((B, MAX_CARDS), -1),
        nd=full((B,), 0),
        revealed=np.zeros(B, dtype=bool),
        minso_redeals=full((B,), 0),
        active=full((B,), -1),
        choice_slot=full((B,), -1),
        phase=full((B,), OVER),
        current_player=full((B,), -1),
        legal_action_mask=np.zeros((B, A), dtype=bool),
        rewards=np.zeros((B, n), dtype=np.float64),
        terminated=np.ones(B, dtype=bool),
        rng=np.zeros(B, dtype=np.uint64),
        seed=np.zeros(B, dtype=np.uint64),
        row_key=np.zeros(B, dtype=np.uint64),
        episode=np.zeros(B, dtype=np.uint64),
    )


def compact_layout(ru: Rules) -> tuple[int, int, int, int]:
    """(first numeric column, end of the numbers, bytes of packed bits, bytes a compact row takes).

    A compact row is the observation's 0/1 columns (all but the numbers, in order) as bits, least
    significant first (``np.packbits(..., bitorder="little")``), padded to 4 bytes, then the numbers as
    float32: about an eighth of the float32 row."""
    lo, hi = int(ru.off[F_OWN]), int(ru.off[F_MINSO]) + 1
    bits = int(ru.opt[O_OBS]) - (hi - lo)
    nbytes = -(-((bits + 7) // 8) // 4) * 4
    return lo, hi, nbytes, nbytes + 4 * (hi - lo)


def decode_compact(compact: np.ndarray, ru: Rules) -> np.ndarray:
    """The float32 observations (k, obs_size) of compact rows (k, C) uint8 (``encode_compact``)."""
    lo, hi, nbytes, width = compact_layout(ru)
    size = int(ru.opt[O_OBS])
    if compact.ndim != 2 or compact.shape[1] != width or compact.dtype != np.uint8:
        raise ValueError(
            f"compact observations must be (k, {width}) uint8, got {compact.dtype} {compact.shape}"
        )
    out = np.empty((len(compact), size), dtype=np.float32)
    flags = np.unpackbits(compact[:, :nbytes], axis=1, count=size - (hi - lo), bitorder="little")
    out[:, :lo] = flags[:, :lo]
    out[:, hi:] = flags[:, lo:]
    out[:, lo:hi] = np.ascontiguousarray(compact[:, nbytes:]).view(np.float32)
    return out
