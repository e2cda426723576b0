"""Oicho-Kabu's compiled rules kernel (numba, issue #26): B games as arrays, stepped by per-row loops.

The kernel is the scalar engine (``game.py``, ``session.py``, ``deck.py``, ``observation.Encoder``)
written again as plain loops over rows, so that numba compiles one step of B games into one call. Each
function's docstring names the scalar function it mirrors; ``tests/kernel/test_oicho_kernel.py`` holds
the two equal (masks, observations, rewards, terminations) on stacked decks and random legal actions
for every option set the numpy engine covers.

- ``State`` (``make_state``): one row per game, a struct of arrays named as the numpy engine's
  attributes (``chips``, ``spreads``, ``stakes[game, seat, spread]``, ...), plus each row's generator
  (``rng``: SplitMix64, ``core.kernel``) and the (seed, row key, episode) it was seeded from.
- ``Rules`` (``make_rules(cfg)``): the options as one int64 array (``O_*`` indices), the bet sizes, the
  rule answers per hand class (``batch_tables.hand_tables``: built by calling ``rules`` itself, so the
  kernel cannot drift from the yaku and settlement rules) and the observation offsets (``obs_spec``).
- ``reset_rows`` deals new episodes (a stacked prefix first, the rest shuffled by the row's generator),
  ``step`` applies one action per moving game and writes the masks, rewards and ``terminated``
  (with ``autoreset`` a finished game starts its next episode at once), ``encode`` writes a seat's
  float32 observation bit for bit as ``Encoder.encode``, ``encode_compact`` the same as bits plus the
  numbers (``decode_compact`` turns it back into the float32 observation).

Randomness is the rows' own: the scalar engine equals the kernel draw for draw when its ``Deck`` is
given a generator that shuffles as ``core.kernel.shuffle`` does (``KernelRng``, the tests' bridge).
Nothing here runs on ``import kabu_envs``: the batch engine imports this module on first use.
"""

from __future__ import annotations

import sys
from typing import NamedTuple

import numba
import numpy as np

from kabu_envs.core import kernel as core
from kabu_envs.oicho_kabu import actions as _actions
from kabu_envs.oicho_kabu import deck as _deck
from kabu_envs.oicho_kabu import game as _game
from kabu_envs.oicho_kabu import observation as _observation
from kabu_envs.oicho_kabu.actions import BET_BASE, CHOICE_ACTIONS, DRAW, ESCAPE, KEEP, REDEAL, STAND
from kabu_envs.oicho_kabu.batch_tables import hand_tables
from kabu_envs.oicho_kabu.config import Config
from kabu_envs.oicho_kabu.deck import DECK_SIZE, LIGHT_CARDS, NUM_VALUES, TAKE_BOTTOM, TAKE_TOP
from kabu_envs.oicho_kabu.game import DREW, ESCAPED, MAX_CARDS, NUM_SPREADS, STOOD, Phase
from kabu_envs.oicho_kabu.observation import NUM_STATUS, obs_spec

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
NUMBERS = ("own_stakes", "minso_left")  # the numeric pieces: adjacent, from the first to the last
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


# --- the deck (deck.Deck) -------------------------------------------------------------------------------
@numba.njit(cache=True)
def _draw(st: State, b: int) -> int:  # pragma: no cover - compiled (the lockstep tests run it)
    """``Deck.draw``: the top card."""
    card = st.deck[b, st.top[b]]
    st.top[b] += 1
    return card


@numba.njit(cache=True)
def _take(st: State, b: int, where: int) -> int:  # pragma: no cover
    """``Deck.take``: the top, the bottom or the 4th card from the top (popped; the stacked prefix
    shrinks when the card came from inside it)."""
    if where == TAKE_TOP:
        return _draw(st, b)
    end = st.dlen[b]
    idx = end - 1 if where == TAKE_BOTTOM else st.top[b] + 3
    card = st.deck[b, idx]
    if idx < st.stacked[b]:
        st.stacked[b] -= 1
    for i in range(idx, end - 1):
        st.deck[b, i] = st.deck[b, i + 1]
    st.dlen[b] = end - 1
    return card


@numba.njit(cache=True)
def _reshuffle(st: State, b: int, returned: np.ndarray, k: int) -> None:  # pragma: no cover
    """``Deck.reshuffle``: ``returned[:k]`` back, everything below the unused stacked prefix shuffled."""
    top = st.top[b]
    keep_end = max(top, st.stacked[b])
    rest = np.empty(DECK_SIZE, dtype=np.int64)
    m = 0
    for i in range(keep_end, st.dlen[b]):
        rest[m] = st.deck[b, i]
        m += 1
    for i in range(k):
        rest[m] = returned[i]
        m += 1
    core.shuffle(st.rng, b, rest, m)
    keep = keep_end - top
    for i in range(keep):
        st.deck[b, i] = st.deck[b, top + i]
    for i in range(m):
        st.deck[b, keep + i] = rest[i]
    st.top[b] = 0
    st.stacked[b] = keep
    st.dlen[b] = keep + m


@numba.njit(cache=True)
def _order_rest(st: State, b: int, keep: int) -> None:  # pragma: no cover
    """``ordered_deck`` / ``Deck.fresh`` below a kept prefix ``deck[b, :keep]``: the other ids in
    increasing order, shuffled (without a prefix: ``permutation(40)``, the same shuffle of 0..39)."""
    used = np.zeros(DECK_SIZE, dtype=np.bool_)
    for i in range(keep):
        used[st.deck[b, i]] = True
    rest = np.empty(DECK_SIZE, dtype=np.int64)
    m = 0
    for c in range(DECK_SIZE):
        if not used[c]:
            rest[m] = c
            m += 1
    core.shuffle(st.rng, b, rest, m)
    for i in range(m):
        st.deck[b, keep + i] = rest[i]
    st.top[b] = 0
    st.stacked[b] = keep
    st.dlen[b] = DECK_SIZE


@numba.njit(cache=True)
def _fresh(st: State, b: int) -> None:  # pragma: no cover
    """``Deck.fresh`` (a new round): all 40 cards, the unused stacked prefix on top, the rest shuffled."""
    top = st.top[b]
    keep = max(top, st.stacked[b]) - top
    for i in range(keep):
        st.deck[b, i] = st.deck[b, top + i]
    _order_rest(st, b, keep)


# --- masks and waits (Game._wait, Game._draw_legal, Game._ask_bet) --------------------------------------
@numba.njit(cache=True)
def _wait(st: State, b: int, phase: int, seat: int) -> None:  # pragma: no cover
    """``Game._wait`` without the mask: the phase and the seat to act; the mask row is cleared."""
    st.phase[b] = phase
    st.current_player[b] = seat
    st.legal_action_mask[b, :] = False


@numba.njit(cache=True)
def _wait_draw(st: State, ru: Rules, b: int, phase: int, seat: int, code: int) -> None:  # pragma: no cover
    """A STAND / DRAW / ESCAPE decision: the mask from a draw-option code (``Game._draw_legal``)."""
    _wait(st, b, phase, seat)
    st.legal_action_mask[b, STAND] = code & 1 != 0
    st.legal_action_mask[b, DRAW] = code & 2 != 0
    st.legal_action_mask[b, ESCAPE] = code & 4 != 0


@numba.njit(cache=True)
def _hand2(ru: Rules, c0: int, c1: int) -> int:  # pragma: no cover
    """``batch_tables.hand2`` of two card ids."""
    return ru.card_class[c0] * ru.opt[O_K] + ru.card_class[c1]


@numba.njit(cache=True)
def _hand(ru: Rules, c0: int, c1: int, c2: int) -> int:  # pragma: no cover
    """The hand index of two cards (``c2`` < 0) or three (``batch_tables.hand2`` / ``hand3``)."""
    k = ru.opt[O_K]
    h = ru.card_class[c0] * k + ru.card_class[c1]
    if c2 < 0:
        return h
    return k * k + h * k + ru.card_class[c2]


@numba.njit(cache=True)
def _ask_bet(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._ask_bet``: the next bettor, BET(0) and every size that fits its room."""
    seat = st.order[b, st.bet_i[b]]
    room = min(ru.opt[O_DOMAE] - st.round_total[b], st.chips[b, seat] - st.seat_total[b, seat])
    _wait(st, b, BET, seat)
    st.legal_action_mask[b, BET_BASE] = True
    for k in range(len(ru.sizes)):
        if ru.sizes[k] <= room:
            st.legal_action_mask[b, BET_BASE + 1 + k] = True


# --- a round's flow (Game._start_round .. Game._end_round) -----------------------------------------------
@numba.njit(cache=True)
def _score(selection: int, card: int) -> int:  # pragma: no cover
    """``session._score``: closest_to_nine scores the value mod 10, lowest the negated value."""
    value = (card >> 2) + 1
    return value % 10 if selection == 1 else -value


@numba.njit(cache=True)
def _select(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._select`` with ``session.select_dealer``: every seat with chips draws, the tied seats again,
    until one is left; the cards go back under the unused stacked prefix."""
    n = ru.opt[O_N]
    rule = ru.opt[O_SELECTION]
    cand = np.empty(n, dtype=np.int64)
    score = np.empty(n, dtype=np.int64)
    nc = 0
    for seat in range(n):
        if st.chips[b, seat] > 0:
            cand[nc] = seat
            nc += 1
    returned = np.empty(DECK_SIZE, dtype=np.int64)
    k = 0
    while True:
        if st.dlen[b] - st.top[b] < nc:  # only with long tie chains: the used cards go back
            _reshuffle(st, b, returned, k)
            k = 0
        best = -100
        for i in range(nc):
            seat = cand[i]
            card = _draw(st, b)
            if st.selection[b, seat] < 0:
                st.selection[b, seat] = card
            returned[k] = card
            k += 1
            score[i] = _score(rule, card)
            best = max(best, score[i])
        m = 0
        for i in range(nc):
            if score[i] == best:
                cand[m] = cand[i]
                m += 1
        nc = m
        if nc == 1:
            _reshuffle(st, b, returned, k)
            break
    dealer = cand[0]
    if dealer != st.dealer[b] or st.round_index[b] == 0:
        st.dealer[b] = dealer
        st.deals_by_dealer[b] = 0
        st.dealer_start_chips[b] = st.chips[b, dealer]


@numba.njit(cache=True)
def _seat_order(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """The betting order: ``session.seat_order`` with selection before every deal (the best card first,
    ties in seat order from the dealer on), else the seats after the dealer that have chips."""
    n = ru.opt[O_N]
    dealer = st.dealer[b]
    each = ru.opt[O_EACH_DEAL] != 0
    m = 0
    for i in range(1, n):
        seat = (dealer + i) % n
        if (st.selection[b, seat] >= 0) if each else (st.chips[b, seat] > 0):
            st.order[b, m] = seat
            m += 1
    if each:  # a stable insertion sort on the score, best first
        rule = ru.opt[O_SELECTION]
        for i in range(1, m):
            seat = st.order[b, i]
            key = _score(rule, st.selection[b, seat])
            j = i
            while j > 0 and _score(rule, st.selection[b, st.order[b, j - 1]]) < key:
                st.order[b, j] = st.order[b, j - 1]
                j -= 1
            st.order[b, j] = seat
    st.nb[b] = m


@numba.njit(cache=True)
def _new_episode(st: State, ru: Rules, b: int, prefix: np.ndarray, k: int) -> None:  # pragma: no cover
    """``Game.__init__``: the deck (``prefix[:k]`` on top, the rest shuffled), full chips, the first round."""
    for i in range(k):
        st.deck[b, i] = prefix[i]
    _order_rest(st, b, k)
    st.chips[b, :] = ru.opt[O_BANKROLL]
    st.round_index[b] = 0
    st.dealer[b] = 0
    st.deals_by_dealer[b] = 0
    st.dealer_start_chips[b] = ru.opt[O_BANKROLL]
    st.rewards[b, :] = 0.0
    st.terminated[b] = False
    _start_round(st, ru, b)


@numba.njit(cache=True)
def _start_round(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._start_round``: a fresh deck after the first round, selection draws, the betting order,
    the info cards, the table, then the minso question or the table's final form."""
    if st.round_index[b] > 0:
        _fresh(st, b)
    st.selection[b, :] = -1
    if ru.opt[O_SELECTION] != 0 and (ru.opt[O_EACH_DEAL] != 0 or st.round_index[b] == 0):
        _select(st, ru, b)
    _seat_order(st, ru, b)
    st.info[b, :] = -1
    st.spreads[b, :, :] = -1
    st.stakes[b, :, :] = 0
    st.spread_total[b, :] = 0
    st.backers[b, :] = 0
    st.seat_total[b, :] = 0
    st.round_total[b] = 0
    st.decider[b, :] = -1
    st.spread_state[b, :] = 0
    st.dealer_cards[b, :] = -1
    st.nd[b] = 0
    st.revealed[b] = False
    st.minso_redeals[b] = 0
    st.active[b] = -1
    st.choice_slot[b] = -1
    st.bet_i[b] = 0
    if ru.opt[O_INFO] != 0:
        for i in range(st.nb[b]):
            st.info[b, st.order[b, i]] = _draw(st, b)
    _deal_table(st, ru, b)
    if ru.opt[O_MINSO] > 0:
        _wait(st, b, MINSO, st.dealer[b])
        st.legal_action_mask[b, KEEP] = True
        st.legal_action_mask[b, REDEAL] = True
    else:
        _table_final(st, ru, b)


@numba.njit(cache=True)
def _deal_table(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._deal_table``: four table cards, again after a reshuffle while three share a value
    (``redeal_on_triple_table``; ``game._has_triple``)."""
    table = np.empty(NUM_SPREADS, dtype=np.int64)
    while True:
        for s in range(NUM_SPREADS):
            table[s] = _draw(st, b)
        triple = False
        if ru.opt[O_TRIPLE] != 0:
            for i in range(2):
                count = 0
                for j in range(NUM_SPREADS):
                    count += (table[j] >> 2) == (table[i] >> 2)
                triple = triple or count >= 3
        if not triple:
            break
        _reshuffle(st, b, table, NUM_SPREADS)
    for s in range(NUM_SPREADS):
        st.spreads[b, s, 0] = table[s]


@numba.njit(cache=True)
def _table_final(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._table_final``."""
    if ru.opt[O_BEFORE_BETS] != 0:
        _dealer_first(st, ru, b)
    else:
        _start_bets(st, ru, b)


@numba.njit(cache=True)
def _dealer_first(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._dealer_card(0)``: the dealer's first card, or the question which one (card choice).
    (Slot 0 and slot 1 are two functions, so that no kernel function calls itself through others.)"""
    if ru.opt[O_CHOICE] != 0:
        st.choice_slot[b] = 0
        _wait(st, b, CHOICE, st.dealer[b])
        for i in range(3):
            st.legal_action_mask[b, TAKE_FIRST + i] = True
    else:
        st.dealer_cards[b, st.nd[b]] = _draw(st, b)
        st.nd[b] += 1
        _after_first(st, ru, b)


@numba.njit(cache=True)
def _dealer_second(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._dealer_card(1)``: the dealer's second card (or the question), then its draw decision."""
    if ru.opt[O_CHOICE] != 0:
        st.choice_slot[b] = 1
        _wait(st, b, CHOICE, st.dealer[b])
        for i in range(3):
            st.legal_action_mask[b, TAKE_FIRST + i] = True
    else:
        st.dealer_cards[b, st.nd[b]] = _draw(st, b)
        st.nd[b] += 1
        _ask_dealer(st, ru, b)


@numba.njit(cache=True)
def _ask_dealer(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._after_dealer_card(1)``: the dealer's STAND / DRAW question."""
    code = ru.draw_dealer[_hand2(ru, st.dealer_cards[b, 0], st.dealer_cards[b, 1])]
    _wait_draw(st, ru, b, DEALER_DRAW, st.dealer[b], code)


@numba.njit(cache=True)
def _after_first(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._after_dealer_card(0)``: the bets, or (first card after the bets) the second cards."""
    if ru.opt[O_BEFORE_BETS] != 0:
        _start_bets(st, ru, b)
    else:
        _second_cards(st, ru, b)


@numba.njit(cache=True)
def _start_bets(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._start_bets``."""
    st.bet_i[b] = 0
    st.active[b] = 0
    _ask_bet(st, ru, b)


@numba.njit(cache=True)
def _end_bets(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._end_bets``: nobody staked (the round ends unpaid), or the dealer's card / second cards."""
    st.active[b] = -1
    if st.round_total[b] == 0:
        _end_round(st, ru, b, -1, False)
    elif ru.opt[O_BEFORE_BETS] == 0:
        _dealer_first(st, ru, b)
    else:
        _second_cards(st, ru, b)


@numba.njit(cache=True)
def _second_cards(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._second_cards``: every spread its second card, then the decisions."""
    for s in range(NUM_SPREADS):
        st.spreads[b, s, 1] = _draw(st, b)
    st.active[b] = -1
    _next_decision(st, ru, b)


@numba.njit(cache=True)
def _next_decision(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._next_decision`` / ``decision_spreads``: the next undecided backed spread in spread order
    or in asking order (decider by decider in betting order); when none is left the unbacked spreads'
    card (``unbacked_spread_card``), the dealer's cards turn up and the dealer's second card comes."""
    n = ru.opt[O_N]
    best, best_key = -1, 1 << 40
    for s in range(NUM_SPREADS):
        if st.spread_total[b, s] == 0 or st.spread_state[b, s] != 0:
            continue
        key = s
        if ru.opt[O_ASKING] != 0:
            pos = n
            for i in range(st.nb[b]):
                if st.order[b, i] == st.decider[b, s]:
                    pos = i
                    break
            key = pos * NUM_SPREADS + s
        if key < best_key:
            best, best_key = s, key
    if best >= 0:
        st.active[b] = best
        code = ru.draw_bettor[_hand2(ru, st.spreads[b, best, 0], st.spreads[b, best, 1])]
        _wait_draw(st, ru, b, DECIDE, st.decider[b, best], code)
        return
    st.active[b] = -1
    if ru.opt[O_UNBACKED] != 0:  # Game._deal_unbacked: spread by spread, face up
        for s in range(NUM_SPREADS):
            if st.spread_total[b, s] == 0:
                st.spreads[b, s, 2] = _draw(st, b)
    st.revealed[b] = True
    _dealer_second(st, ru, b)


@numba.njit(cache=True)
def _showdown(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """``Game._showdown``: each backed spread settled against the dealer (``rules.settle`` as the
    signature table), stakes paid, the round ended with the dealer's final value."""
    n = ru.opt[O_N]
    dealer = st.dealer[b]
    dh = _hand(ru, st.dealer_cards[b, 0], st.dealer_cards[b, 1], st.dealer_cards[b, 2])
    dsig = ru.dealer_sig[dh]
    backed = lost = 0
    for s in range(NUM_SPREADS):
        if st.spread_total[b, s] == 0:
            continue
        backed += 1
        state = st.spread_state[b, s]
        if state == ESCAPED:
            continue
        third = st.spreads[b, s, 2] if state == DREW else -1
        bh = _hand(ru, st.spreads[b, s, 0], st.spreads[b, s, 1], third)
        m = ru.settle[dsig, ru.bettor_sig[bh]]
        if m > 0:
            lost += 1
        if m != 0:
            for seat in range(n):
                won = st.stakes[b, seat, s] * m
                st.chips[b, seat] += won
                st.chips[b, dealer] -= won
                st.rewards[b, seat] += won
                st.rewards[b, dealer] -= won
    _end_round(st, ru, b, ru.hand_value[dh], backed > 0 and lost == backed)


@numba.njit(cache=True)
def _end_round(st: State, ru: Rules, b: int, final_value: int, lost_all: bool) -> None:  # pragma: no cover
    """``Game._end_round``: the episode ends (``max_rounds``, fewer than two seats with chips), or the
    deal passes on (``session.dealer_must_change`` / ``next_dealer``) and the next round starts.
    ``final_value`` -1: no final hand (nobody staked)."""
    n = ru.opt[O_N]
    st.round_index[b] += 1
    st.deals_by_dealer[b] += 1
    alive = 0
    for seat in range(n):
        alive += st.chips[b, seat] > 0
    if st.round_index[b] >= ru.opt[O_MAX_ROUNDS] or alive < 2:
        st.terminated[b] = True
        _wait(st, b, OVER, -1)
        return
    d = st.dealer[b]
    if ru.opt[O_EACH_DEAL] == 0:
        ch = ru.opt[O_CHANGE]
        mine = st.chips[b, d]
        change = (
            (ch & CH_DEALS != 0 and st.deals_by_dealer[b] >= ru.opt[O_MAX_DEALS])
            or (ch & CH_BUST != 0 and mine <= 0)
            or (ch & CH_DOUBLED != 0 and mine - st.dealer_start_chips[b] >= ru.opt[O_DOMAE])
            or (ch & CH_LOW_HAND != 0 and 0 <= final_value <= 5)
            or (ch & CH_LOST_ALL != 0 and lost_all)
        )
        if change:
            nxt = d
            for i in range(1, n):
                if st.chips[b, (d + i) % n] > 0:
                    nxt = (d + i) % n
                    break
            st.dealer[b] = nxt
            st.deals_by_dealer[b] = 0
            st.dealer_start_chips[b] = st.chips[b, nxt]
    _start_round(st, ru, b)


# --- the actions (Game._apply_*) -------------------------------------------------------------------------
@numba.njit(cache=True)
def _apply(st: State, ru: Rules, b: int, action: int) -> None:  # pragma: no cover
    """``Game.apply_action`` for a legal ``action`` of game ``b``."""
    phase = st.phase[b]
    if phase == MINSO:  # Game._apply_minso
        if action == KEEP:
            _table_final(st, ru, b)
            return
        st.minso_redeals[b] += 1
        table = np.empty(NUM_SPREADS, dtype=np.int64)
        for s in range(NUM_SPREADS):
            table[s] = st.spreads[b, s, 0]
        _reshuffle(st, b, table, NUM_SPREADS)
        _deal_table(st, ru, b)
        if st.minso_redeals[b] < ru.opt[O_MINSO]:
            _wait(st, b, MINSO, st.dealer[b])
            st.legal_action_mask[b, KEEP] = True
            st.legal_action_mask[b, REDEAL] = True
        else:
            _table_final(st, ru, b)
    elif phase == BET:  # Game._apply_bet
        k = action - BET_BASE
        s = st.active[b]
        if k > 0:
            seat = st.current_player[b]
            size = ru.sizes[k - 1]
            if st.stakes[b, seat, s] == 0:
                st.backers[b, s] += 1
                if st.decider[b, s] < 0:
                    st.decider[b, s] = seat
            st.stakes[b, seat, s] += size
            st.spread_total[b, s] += size
            st.seat_total[b, seat] += size
            st.round_total[b] += size
        if s + 1 < NUM_SPREADS:
            st.active[b] = s + 1
        else:
            st.bet_i[b] += 1
            if st.bet_i[b] == st.nb[b]:
                _end_bets(st, ru, b)
                return
            st.active[b] = 0
        _ask_bet(st, ru, b)
    elif phase == CHOICE:  # Game._apply_choice
        st.dealer_cards[b, st.nd[b]] = _take(st, b, action - TAKE_FIRST)
        st.nd[b] += 1
        if st.choice_slot[b] == 1:
            _ask_dealer(st, ru, b)
        else:
            _after_first(st, ru, b)
    elif phase == DECIDE:  # Game._apply_decide
        s = st.active[b]
        if action == DRAW:
            st.spreads[b, s, 2] = _draw(st, b)
            st.spread_state[b, s] = DREW
        elif action == ESCAPE:
            st.spread_state[b, s] = ESCAPED
        else:
            st.spread_state[b, s] = STOOD
        _next_decision(st, ru, b)
    else:  # DEALER_DRAW: Game._apply_dealer_draw
        if action == DRAW:
            st.dealer_cards[b, st.nd[b]] = _draw(st, b)
            st.nd[b] += 1
        _showdown(st, ru, b)


@numba.njit(cache=True)
def _restart(st: State, ru: Rules, b: int) -> None:  # pragma: no cover
    """The row's next episode from its own generator: seeded from (seed, row key, episode + 1)."""
    st.episode[b] += np.uint64(1)
    st.rng[b] = core.seed_state(st.seed[b], st.row_key[b], st.episode[b])
    _new_episode(st, ru, b, np.empty(0, dtype=np.int64), 0)
    st.terminated[b] = True  # (reported this step: the episode that just ended)


@numba.njit(cache=True)
def reset_rows(
    st: State,
    ru: Rules,
    rows: np.ndarray,
    seeds: np.ndarray,
    row_keys: np.ndarray,
    decks: np.ndarray,
    lengths: np.ndarray,
) -> None:  # pragma: no cover
    """New episodes in games ``rows[i]``: generator ``seed_state(seeds[i], row_keys[i], 0)``, the stacked
    prefix ``decks[i, :lengths[i]]`` on top of the deck (``lengths[i]`` 0: a shuffled deck)."""
    for i in range(len(rows)):
        b = rows[i]
        st.seed[b] = seeds[i]
        st.row_key[b] = row_keys[i]
        st.episode[b] = np.uint64(0)
        st.rng[b] = core.seed_state(seeds[i], row_keys[i], np.uint64(0))
        _new_episode(st, ru, b, decks[i], lengths[i])


@numba.njit(cache=True)
def step(
    st: State, ru: Rules, actions: np.ndarray, moving: np.ndarray, autoreset: bool
) -> None:  # pragma: no cover
    """One action per live game with ``moving[b]`` (legal: the caller checks against the mask): the
    rewards of this step, ``terminated`` (a game over or not moving reports "over"), the new masks.
    With ``autoreset`` a game that ends starts its next episode at once (``_restart``)."""
    for b in range(len(actions)):
        st.rewards[b, :] = 0.0
        over = st.current_player[b] < 0
        st.terminated[b] = over
        if over or not moving[b]:
            continue
        _apply(st, ru, b, actions[b])
        if autoreset and st.current_player[b] < 0:
            _restart(st, ru, b)


# --- the observation (observation.Encoder) ---------------------------------------------------------------
@numba.njit(cache=True)
def _encode_row(st: State, ru: Rules, b: int, seat: int, a: np.ndarray) -> None:  # pragma: no cover
    """``Encoder.encode(game, seat)`` into ``a`` (float32, zeroed by the caller); ``seat`` < 0: zeros.
    The showdown (``Game.showdown``) is the end of the episode: every card is shown."""
    if seat < 0:
        return
    o = ru.off
    n = ru.opt[O_N]
    domae = ru.opt[O_DOMAE]
    inv_d = 1.0 / domae
    phase = st.phase[b]
    showdown = phase == OVER
    dealer = st.dealer[b]
    a[o[F_DEALER] + (dealer - seat) % n] = 1.0
    lights = ru.opt[O_LIGHTS] != 0
    for s in range(NUM_SPREADS):  # Encoder._static: the spreads' cards
        base = o[F_SCARDS] + HAND * s
        c0, c1, c2 = st.spreads[b, s, 0], st.spreads[b, s, 1], st.spreads[b, s, 2]
        if c0 < 0:
            continue
        a[base + (c0 >> 2)] = 1.0
        # the second card: to its backers, to all at the showdown or once an unbacked spread is turned up
        seen = showdown or st.stakes[b, seat, s] != 0 or (c2 >= 0 and st.spread_total[b, s] == 0)
        if c1 >= 0:
            if seen:
                a[base + NUM_VALUES + (c1 >> 2)] = 1.0
            else:
                a[o[F_SHIDDEN] + MAX_CARDS * s + 1] = 1.0
            if c2 >= 0:
                a[base + 2 * NUM_VALUES + (c2 >> 2)] = 1.0
        if lights:  # Encoder._add_lights
            for k in range(MAX_CARDS):
                c = st.spreads[b, s, k]
                if c >= 0 and (LIGHT_MASK >> c) & 1 and (k != 1 or seen):
                    a[o[F_SLIGHTS] + MAX_CARDS * s + k] = 1.0
        state = st.spread_state[b, s]
        if state:
            a[o[F_STATUS] + NUM_STATUS * s + state - 1] = 1.0
    nd = st.nd[b]
    if nd:
        see = showdown or (st.revealed[b] and (ru.opt[O_FACE_UP] != 0 or seat == dealer))
        if see:
            for k in range(nd):
                a[o[F_DCARDS] + NUM_VALUES * k + (st.dealer_cards[b, k] >> 2)] = 1.0
        else:
            a[o[F_DHIDDEN]] = 1.0
            if nd > 1:
                a[o[F_DHIDDEN] + 1] = 1.0
            if nd > 2:  # a drawn third card is face up
                a[o[F_DCARDS] + 2 * NUM_VALUES + (st.dealer_cards[b, 2] >> 2)] = 1.0
        if lights:
            for k in range(nd):
                c = st.dealer_cards[b, k]
                if (LIGHT_MASK >> c) & 1 and (see or k == 2):
                    a[o[F_DLIGHTS] + k] = 1.0
    info = st.info[b, seat]
    if info >= 0:
        a[o[F_INFO] + (info >> 2)] = 1.0
    if o[F_SELECT] >= 0:  # public: every selection card, from this seat on
        for j in range(n):
            c = st.selection[b, (seat + j) % n]
            if c >= 0:
                a[o[F_SELECT] + NUM_VALUES * j + (c >> 2)] = 1.0
    inv_t = 1.0 / max(1, n * ru.opt[O_BANKROLL])
    for j in range(n):
        c = st.chips[b, (seat + j) % n]
        if c > 0:
            a[o[F_CHIPS] + j] = min(c * inv_t, 1.0)
    mine = st.chips[b, seat]
    if mine > 0:
        a[o[F_OWN_CHIPS]] = min(mine * inv_d, 1.0)
    a[o[F_ROUND]] = st.round_index[b] * (1.0 / ru.opt[O_MAX_ROUNDS])
    a[o[F_DEALS]] = min(st.deals_by_dealer[b] * (1.0 / ru.opt[O_MAX_DEALS]), 1.0)
    limit = ru.opt[O_MINSO]
    if limit:
        a[o[F_MINSO]] = (limit - st.minso_redeals[b]) / limit
    # Encoder.encode: what moves every step
    a[o[F_PHASE] + phase] = 1.0
    if st.current_player[b] == seat:
        a[o[F_TO_ACT]] = 1.0
    if st.active[b] >= 0:
        a[o[F_ACTIVE] + st.active[b]] = 1.0
    if phase == CHOICE:
        a[o[F_SLOT] + st.choice_slot[b]] = 1.0
    total = st.round_total[b]
    if total:
        inv_b = 1.0 / max(1, n - 1)
        for s in range(NUM_SPREADS):
            own = st.stakes[b, seat, s]
            if own:
                a[o[F_OWN] + s] = own * inv_d
            tot = st.spread_total[b, s]
            if tot:
                a[o[F_TOTAL] + s] = tot * inv_d
                a[o[F_BACKERS] + s] = st.backers[b, s] * inv_b
                if st.decider[b, s] == seat:
                    a[o[F_DECIDER] + s] = 1.0
    left = domae - total
    room = mine - st.seat_total[b, seat]
    a[o[F_LEFT]] = left * inv_d
    if room > 0:
        a[o[F_ROOM]] = min(room, left) * inv_d


@numba.njit(cache=True)
def encode(
    st: State, ru: Rules, rows: np.ndarray, seats: np.ndarray, out: np.ndarray
) -> None:  # pragma: no cover
    """The observation of seat ``seats[i]`` of game ``rows[i]`` into ``out[i]`` (float32, bit for bit
    ``Encoder.encode``; a seat < 0 gives zeros, as a finished game's current player)."""
    for i in range(len(rows)):
        out[i, :] = 0.0
        _encode_row(st, ru, rows[i], seats[i], out[i])


def compact_layout(ru: Rules) -> tuple[int, int, int, int]:
    """(first numeric column, end of the numbers, bytes of packed bits, bytes a compact row takes).

    A compact row is the observation's 0/1 columns (all but the numbers, in order) as bits, least
    significant first (``np.packbits(..., bitorder="little")``), padded to 4 bytes, then the numbers as
    float32: about an eighth of the float32 row."""
    lo, hi = int(ru.off[F_OWN]), int(ru.off[F_MINSO]) + 1
    bits = int(ru.opt[O_OBS]) - (hi - lo)
    nbytes = -(-((bits + 7) // 8) // 4) * 4
    return lo, hi, nbytes, nbytes + 4 * (hi - lo)


@numba.njit(cache=True)
def encode_compact(
    st: State,
    ru: Rules,
    rows: np.ndarray,
    seats: np.ndarray,
    bits: np.ndarray,
    numbers: np.ndarray,
    lo: int,
    hi: int,
) -> None:  # pragma: no cover
    """``encode`` as bits and numbers: ``bits`` (k, C) uint8 and ``numbers`` its float32 view, the
    numbers at float32 column ``nbytes // 4`` on (``compact_layout``)."""
    size = ru.opt[O_OBS]
    a = np.empty(size, dtype=np.float32)
    first = bits.shape[1] // 4 - (hi - lo)
    for i in range(len(rows)):
        a[:] = 0.0
        _encode_row(st, ru, rows[i], seats[i], a)
        bits[i, :] = 0
        j = 0
        for col in range(size):
            if col == lo:
                for x in range(hi - lo):
                    numbers[i, first + x] = a[lo + x]
            if lo <= col < hi:
                continue
            if a[col] != 0.0:
                bits[i, j >> 3] |= np.uint8(1 << (j & 7))
            j += 1


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


DISPATCHERS = (
    _draw,
    _take,
    _reshuffle,
    _order_rest,
    _fresh,
    _wait,
    _wait_draw,
    _hand2,
    _hand,
    _ask_bet,
    _score,
    _select,
    _seat_order,
    _new_episode,
    _start_round,
    _deal_table,
    _table_final,
    _dealer_first,
    _dealer_second,
    _ask_dealer,
    _after_first,
    _start_bets,
    _end_bets,
    _second_cards,
    _next_decision,
    _showdown,
    _end_round,
    _apply,
    _restart,
    reset_rows,
    step,
    _encode_row,
    encode,
    encode_compact,
)


def stamp() -> str:
    """The cache stamp: this module, the scalar modules whose constants it reads, and the layout names."""
    modules = [sys.modules[__name__], _actions, _deck, _game, _observation, core]
    return core.fingerprint(modules, (PIECES, NUMBERS, SELECTIONS, CHANGES, NUM_OPTIONS))


def prepare() -> bool:
    """Ready the cache before the first call (``core.kernel.prepare``; says so when it compiles)."""
    return core.prepare("Oicho-Kabu", list(DISPATCHERS), stamp())
