"""The Oicho-Kabu kernel's data: the rules array, the state records and the observation layout.

Plain numpy (no numba): ``make_rules(cfg)`` and ``make_state(B, cfg)`` build what the compiled functions
(``flow``, ``observe``) read and write; ``compact_layout`` describes the compact observation (decoded by
``batch.feed.decode_compact``, every kernel engine's decoder).

Why records and one int64 array: a compiled function called with a tuple of arrays pays a reference
count per array and call, which with the 37 state arrays cost more than the work of a game's step; so
the state is one numpy record per game (``State``: a record array; ``state["chips"]`` is the (B, n)
array of every game's chips: ``state.chips``) and each function gets the game's record (a
pointer); the rules are one int64 array (``Rules``: the options ``O_*``, the observation offsets at
``OFF``, the card classes at ``CLASS``, the bet sizes at ``SIZES``, the rule tables where the header's
``O_*`` entries say). Figures: benchmarks/README.md.
"""

from __future__ import annotations

from typing import Any, TypeAlias

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

# --- the rules array: its header Rules[O_*] ---------------------------------------------------------------
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
    O_SIZES_N,  # len(bet_sizes)
    O_HAND_VALUE,  # where each table starts in the array: hand -> value mod 10
    O_DRAW_BETTOR,  # two-card hand -> draw-option code (batch_tables: STAND_BIT | DRAW_BIT | ESCAPE_BIT)
    O_DRAW_DEALER,
    O_DEALER_SIG,  # hand -> settlement signature (batch_tables.hand_tables)
    O_BETTOR_SIG,
    O_SETTLE,  # (dealer signature, bettor signature) -> signed multiplier per stake, row-major
    O_BETTOR_SIGS,  # the settle table's row length
    NUM_OPTIONS,
) = range(29)
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


NUM_PIECES = len(PIECES)
OFF = NUM_OPTIONS  # Rules[OFF + F_*]: the observation's piece offsets (-1: absent)
CLASS = OFF + NUM_PIECES  # Rules[CLASS + card]: the card's hand class (batch_tables.card_class)
SIZES = CLASS + DECK_SIZE  # Rules[SIZES + k - 1]: the stake of BET(k)

Rules: TypeAlias = np.ndarray  # (the rules array: int64, see the module docstring)
State: TypeAlias = np.recarray  # (B,) records, one per game (``state_dtype``)
Game: TypeAlias = Any  # one game's record, state[b] (a numpy record; its stubs know no fields)


def make_rules(cfg: Config) -> Rules:
    """The kernel's view of ``cfg``: every rule option (see ``Rules``)."""
    tab = hand_tables(cfg)
    spec = obs_spec(cfg)
    head = np.zeros(NUM_OPTIONS, dtype=np.int64)
    head[O_N] = cfg.num_players
    head[O_DOMAE] = cfg.domae
    head[O_BANKROLL] = cfg.bankroll
    head[O_SELECTION] = SELECTIONS.index(cfg.dealer_selection)
    head[O_EACH_DEAL] = cfg.dealer_selection_each_deal
    head[O_TRIPLE] = cfg.redeal_on_triple_table
    head[O_INFO] = cfg.info_cards
    head[O_MINSO] = cfg.minso_limit if cfg.minso else 0
    head[O_BEFORE_BETS] = cfg.dealer_first_card == "before_bets"
    head[O_CHOICE] = cfg.dealer_card_choice
    head[O_FACE_UP] = cfg.dealer_second_card_face_up
    head[O_ASKING] = cfg.decision_order == "asking"
    head[O_MAX_ROUNDS] = cfg.max_rounds
    head[O_CHANGE] = sum(1 << CHANGES.index(c) for c in cfg.dealer_change)
    head[O_MAX_DEALS] = cfg.dealer_max_deals
    head[O_UNBACKED] = cfg.unbacked_spread_card  # (the encyclopedia's face-up card of an unbacked spread)
    head[O_K] = tab.num_classes
    head[O_LIGHTS] = cfg.deck == "hanafuda"
    head[O_ACTIONS] = _actions.num_actions(len(cfg.bet_sizes))
    head[O_OBS] = spec.size
    head[O_SIZES_N] = len(cfg.bet_sizes)
    head[O_BETTOR_SIGS] = tab.settle.shape[1]
    offsets = spec.offsets
    parts = [
        head,
        np.array([offsets.get(name, -1) for name in PIECES], dtype=np.int64),
        tab.card_class.astype(np.int64),
        np.array(cfg.bet_sizes, dtype=np.int64),
    ]
    at = sum(len(p) for p in parts)
    for slot, table in (
        (O_HAND_VALUE, tab.hand_value),
        (O_DRAW_BETTOR, tab.draw_bettor),
        (O_DRAW_DEALER, tab.draw_dealer),
        (O_DEALER_SIG, tab.dealer_sig),
        (O_BETTOR_SIG, tab.bettor_sig),
        (O_SETTLE, tab.settle.reshape(-1)),
    ):
        head[slot] = at
        parts.append(table.astype(np.int64))
        at += len(table)
    return np.concatenate(parts)


LINE = 64  # bytes in a cache line: a record starts one and fills whole ones
MAX_PLAYERS = 8  # the largest num_players: every record has room for that many seats
MIN_ACTIONS = 32  # room in a record's mask for rule sets with up to 23 bet sizes


def state_dtype(num_actions: int) -> np.dtype[np.void]:
    """One game's record: the fields are the game's state, read by name (``state["chips"]``). Every rule set
    with up to 23 bet sizes has the same record (seats and mask padded: ``MAX_PLAYERS``,
    ``MIN_ACTIONS``), so each compiled function has one version in numba's cache, whatever the rules:
    processes that compile it at once (test workers, training workers) then write the same code."""
    n, i8 = MAX_PLAYERS, np.int64
    fields: list[tuple[str, object, tuple[int, ...]]] = [
        ("current_player", i8, ()),  # -1: the game is over
        ("phase", i8, ()),
        ("resume", i8, ()),  # where the game continues after a pending shuffle (flow.R_*), 0: none
        ("active", i8, ()),  # Game.active_spread
        ("choice_slot", i8, ()),
        ("dealer", i8, ()),
        ("nd", i8, ()),  # the dealer's cards dealt
        ("round_total", i8, ()),
        ("round_index", i8, ()),
        ("deals_by_dealer", i8, ()),
        ("minso_redeals", i8, ()),
        ("bet_i", i8, ()),
        ("nb", i8, ()),
        ("legal_action_mask", np.uint8, (max(MIN_ACTIONS, num_actions),)),  # 0/1 (no bool arrays in records)
        ("rewards", np.float64, (n,)),  # chips won this step
        ("terminated", np.bool_, ()),
        ("revealed", np.bool_, ()),  # Game.dealer_revealed
        ("feed", np.bool_, ()),  # its shuffles are drawn by Python (the deck feed), not by ``rng``
        ("spreads", i8, (NUM_SPREADS, MAX_CARDS)),  # card ids, -1 none
        ("spread_total", i8, (NUM_SPREADS,)),
        ("backers", i8, (NUM_SPREADS,)),  # seats with a stake on the spread
        ("decider", i8, (NUM_SPREADS,)),  # first backer, -1 none
        ("spread_state", i8, (NUM_SPREADS,)),  # UNDECIDED / STOOD / DREW / ESCAPED
        ("dealer_cards", i8, (MAX_CARDS,)),
        ("stakes", i8, (n, NUM_SPREADS)),  # [seat, spread]
        ("chips", i8, (n,)),
        ("seat_total", i8, (n,)),
        ("info", i8, (n,)),  # info cards, -1 none
        ("selection", i8, (n,)),  # each seat's selection card of this deal, -1 none
        ("order", i8, (n,)),  # the betting order, first nb entries
        ("dealer_start_chips", i8, ()),
        ("top", i8, ()),
        ("dlen", i8, ()),
        ("stacked", i8, ()),  # end of the unused stacked prefix (Deck.stacked)
        ("ncand", i8, ()),
        ("cand", i8, (n,)),  # dealer selection: the seats still drawing, first ncand entries
        ("deck", i8, (DECK_SIZE,)),  # card ids; the undealt cards are deck[top:dlen]
        ("rng", np.uint64, ()),  # the game's generator state (core.kernel)
        ("seed", np.uint64, ()),  # the seed, row key and episode that generator came from
        ("row_key", np.uint64, ()),
        ("episode", np.uint64, ()),
        # dealer selection's drawn cards and scores (ids < 40, scores -10..9: int8, in the line padding)
        ("scratch", np.int8, (DECK_SIZE + n,)),
    ]
    packed = np.dtype([(name, t, shape) for name, t, shape in fields], align=True)
    places: Any = packed.fields
    padded: Any = {  # (the same fields, whole cache lines)
        "names": list(places),
        "formats": [place[0] for place in places.values()],
        "offsets": [place[1] for place in places.values()],
        "itemsize": -(-packed.itemsize // LINE) * LINE,
    }
    return np.dtype(padded)


SEATED = ("chips", "selection", "order", "info", "stakes", "seat_total", "rewards")  # padded to 8 seats


def make_state(batch_size: int, cfg: Config) -> State:
    """The records of ``batch_size`` games of ``cfg``, every game over (``flow.reset_rows`` deals)."""
    dtype = state_dtype(_actions.num_actions(len(cfg.bet_sizes)))
    raw = np.zeros(batch_size * dtype.itemsize + LINE, dtype=np.uint8)
    skip = -raw.ctypes.data % LINE  # every record starts a cache line
    records = raw[skip : skip + batch_size * dtype.itemsize].view(dtype)
    st: State = records.view(np.recarray)
    for name in ("selection", "info", "spreads", "decider", "dealer_cards", "active", "choice_slot"):
        st[name] = -1
    st["current_player"] = -1
    st["dlen"] = DECK_SIZE
    st["phase"] = OVER
    st["terminated"] = True
    return st


def compact_layout(ru: Rules) -> tuple[int, int, int, int]:
    """(first numeric column, end of the numbers, bytes of packed bits, bytes a compact row takes).

    A compact row is the observation's 0/1 columns (all but the numbers, in order) as bits, least
    significant first (``np.packbits(..., bitorder="little")``), padded to 4 bytes, then the numbers as
    float32: about an eighth of the float32 row."""
    lo, hi = int(ru[OFF + F_OWN]), int(ru[OFF + F_MINSO]) + 1
    bits = int(ru[O_OBS]) - (hi - lo)
    nbytes = -(-((bits + 7) // 8) // 4) * 4
    return lo, hi, nbytes, nbytes + 4 * (hi - lo)
