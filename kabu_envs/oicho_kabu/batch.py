"""Oicho-Kabu, vectorised: B episodes per numpy call (the batch contract of ``kabu_envs.batch``).

``make_batch(batch_size, autoreset=False, **rule_options)`` is the batch factory ``kabu_envs.batch``
finds. It returns ``OichoKabuBatch`` for the rule sets ``vectorised(cfg)`` accepts and
``LoopBatchEnv("oicho_kabu", ...)`` (B AEC envs, exact but at AEC speed) for the others.

Vectorised: every option and preset (``standard``, ``kansai``, ``kabufuda_site``; 2..8 players; every
deck; dealer selection once or before every deal; info cards, minso, triple-table redeals, the
dealer's card choice, ``dealer_first_card``, free draw, escape, every draw rule, the unbacked spreads'
card, every yaku option, local yaku and override; multi-round episodes with every ``dealer_change``
condition): ``vectorised`` accepts every rule set, so nothing falls back today; the fallback stays
the factory's path for any rule set a later option makes it decline.

State: one row per episode: the deck as a (B, 40) array of card ids with a top pointer (``Deck``'s
list), chips, the betting order, spreads (B, 4, 3), stakes (B, 4, n), the dealer's cards and the
counters as arrays. ``step`` applies the actions of all live games at once, phase by phase, and
follows ``Game``'s flow (``_start_round`` .. ``_end_round``) on row sets; each rule answer (draw
options, yaku, settlement) is a lookup in tables built from ``rules`` itself (``batch_tables``). The
mask is one row of a per-config mask table, the observation is rebuilt for the current players (the
encoder's piece offsets from ``obs_spec``), bit for bit the AEC env's.

Rare events run per game in Python on a ``Deck`` rebuilt from the row (the AEC code itself): dealer
selection draws, triple-table and minso reshuffles, a new round's deck in a multi-round episode of a
seeded game. Deals: a game reset with a seed (``reset(seeds=...)`` / ``reset(seed=...)`` /
``reset(decks=...)``) keeps its own ``np.random.Generator(np.random.PCG64(seed))`` and draws from it
exactly as ``Game`` does, so its deals match the AEC env's (made for all games of a reset at once:
``core.batch_seeds.make_generators``, then one in-place shuffle per row, no ``Deck``). An episode
started by ``autoreset`` deals from the batch's own seeded stream (``self._seed_rng``), all such decks
of one step in one call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kabu_envs.batch.base import BatchEnv, LazyObservationBatchEnv, LoopBatchEnv, check_batch_size
from kabu_envs.core.batch_seeds import make_generators
from kabu_envs.core.rng import make_rng, ordered_deck, validate_deck_prefix
from kabu_envs.oicho_kabu.actions import (
    BET_BASE,
    CHOICE_ACTIONS,
    DRAW,
    ESCAPE,
    KEEP,
    REDEAL,
    STAND,
    num_actions,
)
from kabu_envs.oicho_kabu.batch_tables import DRAW_BIT, ESCAPE_BIT, STAND_BIT, hand2, hand3, hand_tables
from kabu_envs.oicho_kabu.config import Config, make_config
from kabu_envs.oicho_kabu.deck import DECK_SIZE, LIGHT_CARDS, NUM_VALUES, TAKE_BOTTOM, TAKE_TOP, Deck
from kabu_envs.oicho_kabu.game import DREW, ESCAPED, MAX_CARDS, NUM_SPREADS, STOOD, Phase
from kabu_envs.oicho_kabu.observation import NUM_STATUS, obs_spec
from kabu_envs.oicho_kabu.session import seat_order, select_dealer, selection_cards

MINSO, BET, CHOICE, DECIDE, DEALER_DRAW, OVER = (int(p) for p in Phase)
# rows of the mask table: 0 nothing, 1 + draw-option code, MINSO, CHOICE, then BET with j sizes open
_M_NONE, _M_DRAW, _M_MINSO, _M_CHOICE, _M_BET = 0, 1, 9, 10, 11
_IS_LIGHT = np.array([c in LIGHT_CARDS for c in range(DECK_SIZE)])


def _check_deck(deck: Any) -> list[int]:
    return validate_deck_prefix(deck, DECK_SIZE)


def sees_dealer_pair(revealed: np.ndarray, dealer: np.ndarray, seat: np.ndarray, face_up: bool) -> np.ndarray:
    """Whether ``seat`` is shown the dealer's first two cards (``observation.Encoder``'s rule): once
    revealed, to the dealer, and to everyone when the second card is dealt face up. The encoder and the
    agents acting from the engine's state (``act_engine``) share it."""
    return revealed & (face_up | (seat == dealer))


def vectorised(cfg: Config) -> bool:
    """Whether ``OichoKabuBatch`` serves the rule set ``cfg`` (else ``make_batch`` falls back)."""
    return isinstance(cfg, Config)  # every rule option is vectorised (no byte views: any endianness)


def make_batch(batch_size: int, autoreset: bool = False, **rule_options: Any) -> BatchEnv:
    """The Oicho-Kabu batch engine for ``rule_options``: vectorised when supported, else the loop."""
    if vectorised(make_config(**rule_options)):
        return OichoKabuBatch(batch_size, autoreset=autoreset, **rule_options)
    return LoopBatchEnv("oicho_kabu", batch_size=batch_size, autoreset=autoreset, **rule_options)


class OichoKabuBatch(LazyObservationBatchEnv):
    """B Oicho-Kabu episodes as arrays (see the module docstring)."""

    def __init__(self, batch_size: int, autoreset: bool = False, **rule_options: Any) -> None:
        self.config = cfg = make_config(**rule_options)
        self.batch_size = B = check_batch_size(batch_size)
        self.autoreset = bool(autoreset)
        self.num_players = n = cfg.num_players
        self.num_actions = A = num_actions(len(cfg.bet_sizes))
        self._tab = tab = hand_tables(cfg)
        self._K = tab.num_classes
        self._cls = tab.card_class
        # [40 * first card + second card] -> the mask row of a two-card draw decision (bettor, dealer)
        pair = hand2(self._cls[:, None], self._cls[None, :], self._K).reshape(-1)
        self._draw_mask_bettor = _M_DRAW + tab.draw_bettor[pair]
        self._draw_mask_dealer = _M_DRAW + tab.draw_dealer[pair]
        self._sizes = np.array((0, *cfg.bet_sizes), dtype=np.int64)  # [k]: the stake of BET(k)
        m = len(cfg.bet_sizes)
        # the sizes that fit a room are those <= room: a binary search in this (increasing) array, so
        # nothing grows with domae or the largest size (both may be up to 2**31 - 1, as the AEC env's)
        self._size_list = np.array(cfg.bet_sizes, dtype=np.int64)
        self._size_of_act = np.zeros(A, dtype=np.int64)  # [action]: the stake of a BET action (else 0)
        self._size_of_act[BET_BASE : BET_BASE + m + 1] = self._sizes
        self._next_spread = (np.arange(NUM_SPREADS) + 1) % NUM_SPREADS  # [s]: the spread bet on after s
        self._minso_limit = cfg.minso_limit if cfg.minso else 0
        # --- mask table ---
        masks = np.zeros((_M_BET + m + 1, A), dtype=bool)
        for code in range(8):
            for bit, act in ((STAND_BIT, STAND), (DRAW_BIT, DRAW), (ESCAPE_BIT, ESCAPE)):
                masks[_M_DRAW + code, act] = bool(code & bit)
        masks[_M_MINSO, [KEEP, REDEAL]] = True
        masks[_M_CHOICE, list(CHOICE_ACTIONS)] = True  # TAKE_TOP / TAKE_BOTTOM / TAKE_FOURTH
        for j in range(m + 1):
            masks[_M_BET + j, BET_BASE : BET_BASE + j + 1] = True
        self._masks = masks
        # --- observation layout ---
        spec = obs_spec(cfg)
        self.obs_size = spec.size
        self._o = o = spec.offsets
        self._trash = o["to_act"]  # always 1 in the current player's observation: absent one-hots go here
        hand = MAX_CARDS * NUM_VALUES
        self._sc_base = np.array([o["spread_cards"] + hand * s for s in range(NUM_SPREADS)])
        self._hid2 = np.array([o["spread_hidden"] + MAX_CARDS * s + 1 for s in range(NUM_SPREADS)])
        self._status_base = o["spread_status"] + NUM_STATUS * np.arange(NUM_SPREADS) - 1
        self._inv_domae = 1.0 / cfg.domae
        self._inv_bettors = 1.0 / max(1, n - 1)
        self._inv_total = 1.0 / max(1, n * cfg.bankroll)
        self._inv_rounds = 1.0 / cfg.max_rounds
        self._inv_deals = 1.0 / cfg.dealer_max_deals
        self._rot = (np.arange(n)[:, None] + np.arange(n)[None, :]) % n  # [seat, j] = seat + j
        self._after = self._rot[:, 1:].copy()  # [dealer]: the seats after the dealer, in order
        self._sl = spec.slices
        self._build_number_tables()
        self._build_position_tables()
        # --- state ---
        i64 = np.int64
        self._rows = np.arange(B)
        self.deck = np.zeros((B, DECK_SIZE), dtype=i64)  # card ids; the deck is deck[b, top:dlen]
        self.top = np.zeros(B, dtype=i64)
        self.dlen = np.full(B, DECK_SIZE, dtype=i64)
        self.stacked = np.zeros(B, dtype=i64)  # end of the unused stacked prefix (Deck.stacked)
        self.chips = np.zeros((B, n), dtype=i64)
        self.round_index = np.zeros(B, dtype=i64)
        self.dealer = np.zeros(B, dtype=i64)
        self.deals_by_dealer = np.zeros(B, dtype=i64)
        self.dealer_start_chips = np.zeros(B, dtype=i64)
        self.selection = np.full((B, n), -1, dtype=i64)
        self.order = np.zeros((B, n), dtype=i64)  # betting order (first nb entries)
        self.nb = np.zeros(B, dtype=i64)
        self.bet_i = np.zeros(B, dtype=i64)
        self.info = np.full((B, n), -1, dtype=i64)
        self.spreads = np.full((B, NUM_SPREADS, MAX_CARDS), -1, dtype=i64)
        self.stakes = np.zeros((B, n, NUM_SPREADS), dtype=i64)  # [game, seat, spread]
        self.spread_total = np.zeros((B, NUM_SPREADS), dtype=i64)
        self.backers = np.zeros((B, NUM_SPREADS), dtype=i64)  # seats with a stake on each spread
        self.seat_total = np.zeros((B, n), dtype=i64)
        self.round_total = np.zeros(B, dtype=i64)
        self.decider = np.full((B, NUM_SPREADS), -1, dtype=i64)
        self.spread_state = np.zeros((B, NUM_SPREADS), dtype=i64)
        self.dealer_cards = np.full((B, MAX_CARDS), -1, dtype=i64)
        self.nd = np.zeros(B, dtype=i64)
        self.revealed = np.zeros(B, dtype=bool)
        self.minso_redeals = np.zeros(B, dtype=i64)
        self.active = np.full(B, -1, dtype=i64)
        self.choice_slot = np.full(B, -1, dtype=i64)
        self.phase = np.full(B, OVER, dtype=i64)
        self.mask_id = np.zeros(B, dtype=i64)
        self.current_player = np.full(B, -1, dtype=i64)
        self.legal_action_mask = np.zeros((B, A), dtype=bool)
        self._init_observation()  # encoded when read (LazyObservationBatchEnv)
        self.rewards = np.zeros((B, n), dtype=np.float64)
        self.terminated = np.ones(B, dtype=bool)
        self._seed_rng = make_rng()
        self._rngs: list[np.random.Generator | None] = [None] * B  # per-game deal streams (seeded games)
        self._seeded = np.zeros(B, dtype=bool)  # [b]: self._rngs[b] is not None (no Python loop over B)
        # observation scratch: the one-hot positions and the flat (game, seat) index
        self._code = np.zeros((27, B), dtype=i64)
        self._pos_scratch = np.zeros((27, B), dtype=i64)
        self._dec_eq = np.zeros((NUM_SPREADS, B), dtype=bool)
        self._flat_seat = np.zeros(B, dtype=i64)
        self._row_base = (self._rows * self.obs_size)[:, None]
        self._row_base_n = (self._rows * n)[:, None]
        self._nums = np.zeros((len(self._num_inv), B), dtype=np.float64)  # the numbers, (column, game)

    def _build_number_tables(self) -> None:
        """The numeric pieces (``own_stakes`` .. ``minso_left``, adjacent) are written as one block: each
        column's integer numerator (exact in float64) times its scale, in float64 as the encoder computes
        it, the clipped pieces clipped (the encoder's ``min(x, 1)``, and nothing written when <= 0), then
        one cast into the observation. The block is (column, game), so every call runs along the batch:
        a few calls instead of ~30 short strided ones (numpy's per-call cost is most of a step at
        B=1024). ``minso_left`` (a division, not a product) is written after."""
        n, o = self.num_players, self._o
        cols = (  # piece, width, scale, clipped to: None, "<= 1" or "[0, 1]"
            ("own_stakes", NUM_SPREADS, self._inv_domae, None),
            ("total_stakes", NUM_SPREADS, self._inv_domae, None),
            ("backers", NUM_SPREADS, self._inv_bettors, None),
            ("domae_left", 1, self._inv_domae, None),
            ("stake_room", 1, self._inv_domae, None),
            ("chips", n, self._inv_total, "[0, 1]"),
            ("own_chips", 1, self._inv_domae, "[0, 1]"),
            ("round", 1, self._inv_rounds, None),
            ("dealer_deals", 1, self._inv_deals, "<= 1"),
            ("minso_left", 1, 0.0, None),
        )
        start = at = o["own_stakes"]
        self._num_col: dict[str, int] = {}  # piece -> its first row in the block
        inv: list[float] = []
        self._num_clips: list[tuple[int, int, bool]] = []  # (first row, end, also >= 0)
        for name, width, scale, clip in cols:
            if o[name] != at:
                raise ValueError(
                    f"the numeric pieces must be adjacent from own_stakes on ({name} at {o[name]})"
                )
            row = self._num_col[name] = at - start
            at += width
            inv += [scale] * width
            if clip is not None:
                self._num_clips.append((row, row + width, clip == "[0, 1]"))
        self._num_at = slice(start, at)
        self._num_inv = np.array(inv)[:, None]
        # the clips as two whole-block calls: min(x, inf) and max(x, -inf) leave the other rows as they are
        self._num_hi = np.full_like(self._num_inv, np.inf)
        self._num_lo = np.full_like(self._num_inv, -np.inf)
        for row, end, lower in self._num_clips:
            self._num_hi[row:end] = 1.0
            if lower:
                self._num_lo[row:end] = 0.0

    def _build_position_tables(self) -> None:
        """Where each one-hot of the observation goes: ``observation.Encoder``'s rules as one flat table
        ``_pos``, read at ``_code`` + state (one gather for all one-hots of the batch). Absent one-hots go
        to ``to_act`` (always 1 in the current player's observation)."""
        n, o, trash = self.num_players, self._o, self._trash
        val = np.arange(DECK_SIZE) >> 2  # card id -> value index (deck.COPIES = 4 ids per value)
        c1 = DECK_SIZE + 1  # a card slot's code: card id + 1 (0: no card)
        s = np.arange(NUM_SPREADS)
        parts: list[np.ndarray] = []
        bases: list[np.ndarray] = []

        def add(table: np.ndarray, base: np.ndarray) -> None:
            """Append ``table`` (flat) to ``_pos``; its columns read it at ``base`` + state code."""
            bases.append(base + sum(len(p) for p in parts))
            parts.append(table.reshape(-1))

        # col 0: the dealer's position, code dealer * n + seat
        add(o["dealer_position"] + (np.arange(n)[:, None] - np.arange(n)[None, :]) % n, np.zeros(1, np.int64))
        # cols 1-3: phase, active spread, choice slot; code ((phase * 5 + active + 1) * 3 + slot + 1) * 3
        pac = np.full((len(Phase), NUM_SPREADS + 1, 3, 3), trash, dtype=np.int64)
        for ph in range(len(Phase)):
            pac[ph, :, :, 0] = o["phase"] + ph
            pac[ph, 1:, :, 1] = (o["active_spread"] + s)[:, None]
            if ph == CHOICE:
                pac[ph, :, 1:, 2] = o["choice_slot"] + np.arange(2)
        add(pac, np.arange(3) + 4 * 3)  # the code is read without the +1s of active and slot: (1 * 3 + 1) * 3
        # cols 4-7: card 0 of each spread, code card + 1
        t0 = np.full((NUM_SPREADS, c1), trash, dtype=np.int64)
        t0[:, 1:] = self._sc_base[:, None] + val
        add(t0, s * c1 + 1)
        # cols 8-11: card 1 (hidden unless this seat backs the spread), code seen * 41 + card + 1
        t1 = np.full((NUM_SPREADS, 2, c1), trash, dtype=np.int64)
        t1[:, 0, 1:] = self._hid2[:, None]
        t1[:, 1, 1:] = self._sc_base[:, None] + NUM_VALUES + val
        add(t1, s * 2 * c1 + 1)
        # cols 12-15: a drawn card 2, code card + 1
        t2 = np.full((NUM_SPREADS, c1), trash, dtype=np.int64)
        t2[:, 1:] = self._sc_base[:, None] + 2 * NUM_VALUES + val
        add(t2, s * c1 + 1)
        # cols 16-19: spread status, code state
        ts = np.full((NUM_SPREADS, NUM_STATUS + 1), trash, dtype=np.int64)
        ts[:, 1:] = self._status_base[:, None] + np.arange(1, NUM_STATUS + 1)
        add(ts, s * (NUM_STATUS + 1))
        # cols 20-23: is_decider, code (decider == seat)
        td = np.full((NUM_SPREADS, 2), trash, dtype=np.int64)
        td[:, 1] = o["is_decider"] + s
        add(td, s * 2)
        # cols 24-26: the dealer's cards, code see * 41 + card + 1 (a drawn third card is face up)
        tdc = np.full((MAX_CARDS, 2, c1), trash, dtype=np.int64)
        for k in range(MAX_CARDS):
            shown = o["dealer_cards"] + NUM_VALUES * k + val
            tdc[k, 1, 1:] = shown
            tdc[k, 0, 1:] = shown if k == 2 else o["dealer_hidden"] + k
        add(tdc, np.arange(MAX_CARDS) * 2 * c1 + 1)
        self._pos = np.concatenate(parts)
        self._base = bases  # per column group, the offsets of its columns in ``_pos``

    _STATE = (
        "deck",
        "top",
        "dlen",
        "stacked",
        "chips",
        "round_index",
        "dealer",
        "deals_by_dealer",
        "dealer_start_chips",
        "selection",
        "order",
        "nb",
        "bet_i",
        "info",
        "spreads",
        "stakes",
        "spread_total",
        "backers",
        "seat_total",
        "round_total",
        "decider",
        "spread_state",
        "dealer_cards",
        "nd",
        "revealed",
        "minso_redeals",
        "active",
        "choice_slot",
        "phase",
        "mask_id",
        "current_player",
        "legal_action_mask",
        "observation",
        "rewards",
        "terminated",
    )

    def state_nbytes(self) -> int:
        """Bytes of the batch's state arrays (game state, mask, observation, rewards)."""
        return sum(getattr(self, name).nbytes for name in self._STATE)

    # --- the deck ----------------------------------------------------------------------------------
    def _row_deck(self, b: int) -> Deck:
        """Game b's deck as a ``Deck`` (for the rare reshuffles and selection draws: the AEC code)."""
        d = Deck.__new__(Deck)
        d.cards = self.deck[b, : self.dlen[b]].tolist()
        d.top, d.stacked = int(self.top[b]), int(self.stacked[b])
        rng = self._rngs[b]
        d.rng = rng if rng is not None else self._seed_rng
        return d

    def _store_deck(self, b: int, d: Deck) -> None:
        k = len(d.cards)
        self.deck[b, :k] = d.cards
        self.dlen[b], self.top[b], self.stacked[b] = k, d.top, d.stacked

    def _draw(self, rows: np.ndarray) -> np.ndarray:
        top = self.top[rows]
        self.top[rows] = top + 1
        top += rows * DECK_SIZE  # (flat (game, position) indices: cheaper than a 2-d fancy index)
        return self.deck.reshape(-1)[top]

    def _take(self, rows: np.ndarray, where: np.ndarray) -> np.ndarray:
        """``Deck.take``: the top, the bottom or the 4th card (popped, the stacked prefix kept track of)."""
        cards = np.empty(len(rows), dtype=np.int64)
        top = where == TAKE_TOP
        if top.any():
            cards[top] = self._draw(rows[top])
        rest = ~top
        if rest.any():
            r = rows[rest]
            idx = np.where(where[rest] == TAKE_BOTTOM, self.dlen[r] - 1, self.top[r] + 3)
            cards[rest] = self.deck[r, idx]
            self.stacked[r] -= idx < self.stacked[r]
            j = np.arange(DECK_SIZE)
            src = np.minimum(j + (j >= idx[:, None]), DECK_SIZE - 1)
            self.deck[r] = np.take_along_axis(self.deck[r], src, axis=1)
            self.dlen[r] -= 1
        return cards

    def _fresh(self, rows: np.ndarray) -> None:
        """``Deck.fresh`` (a new round): per game where it has its own stream or a stacked prefix left."""
        if not len(rows):
            return
        own = self._seeded[rows]
        own |= self.stacked[rows] > self.top[rows]
        for b in rows[own].tolist():
            d = self._row_deck(b)
            d.fresh()
            self._store_deck(b, d)
        self._shuffled(rows[~own])

    def _shuffled(self, rows: np.ndarray) -> None:
        """Fresh decks from the batch's stream, in one call."""
        if len(rows):
            self.deck[rows] = self._seed_rng.random((len(rows), DECK_SIZE)).argsort(axis=1)
            self.top[rows] = 0
            self.dlen[rows] = DECK_SIZE
            self.stacked[rows] = 0

    # --- reset -------------------------------------------------------------------------------------
    def reset(
        self,
        seed: int | None = None,
        seeds: Sequence[int] | None = None,
        decks: Sequence[Sequence[int] | None] | None = None,
        rows: Any = None,
    ) -> None:
        # a bad seed or stacked deck raises here, before anything changes, as the AEC env's reset does
        target, game_seeds, prefixes = self._reset_targets(seed, seeds, decks, rows, _check_deck)
        self._deal_seeded(target, game_seeds, prefixes)
        self._seeded[target] = True
        self.rewards[target] = 0.0
        self.terminated[target] = False
        self._new_episode(target)
        self._refresh(target)

    def _deal_seeded(
        self, rows: np.ndarray, seeds: list[int | None], prefixes: list[list[int] | None]
    ) -> None:
        """``Deck(Generator(PCG64(seed)), prefix)`` for each game of ``rows``, without the ``Deck``: the
        same generator and the same draws from it (``permutation``, or ``ordered_deck`` under a stacked
        prefix), so the deal and the stream left for later reshuffles stay bit for bit the AEC env's.
        The generators' seeding is hashed for all games at once (``make_generators``), the decks go in
        at once: the autoreset hot path."""
        rngs = make_generators(seeds)
        # rng.permutation(40) is rng.shuffle(np.arange(40)): done in place on each row
        decks = np.tile(np.arange(DECK_SIZE, dtype=np.int64), (len(rows), 1))
        stacked = np.zeros(len(rows), dtype=np.int64)
        for rng, prefix, row, i in zip(rngs, prefixes, decks, range(len(rngs)), strict=True):
            if prefix:
                row[:] = ordered_deck(rng, DECK_SIZE, prefix)
                stacked[i] = len(prefix)
            else:
                rng.shuffle(row)
        self.deck[rows] = decks
        self.top[rows] = 0
        self.dlen[rows] = DECK_SIZE
        self.stacked[rows] = stacked
        rng_list = self._rngs
        for b, rng in zip(rows.tolist(), rngs, strict=True):
            rng_list[b] = rng

    def _new_episode(self, rows: np.ndarray) -> None:
        """``Game.__init__`` after the deck."""
        self.chips[rows] = self.config.bankroll
        self.round_index[rows] = 0
        self.dealer[rows] = 0
        self.deals_by_dealer[rows] = 0
        self.dealer_start_chips[rows] = self.config.bankroll
        self._start_round(rows)

    # --- the round's flow (Game._start_round .. Game._end_round, on row sets) ----------------------
    def _start_round(self, rows: np.ndarray) -> None:
        cfg, n = self.config, self.num_players
        self._fresh(rows[self.round_index[rows] > 0])
        self.selection[rows] = -1
        each_deal = cfg.dealer_selection_each_deal
        if cfg.dealer_selection != "fixed":
            sel = rows if each_deal else rows[self.round_index[rows] == 0]
            for b in sel.tolist():
                self._select(b)
        if each_deal:
            for b in rows.tolist():
                order = seat_order(cfg.dealer_selection, self.selection[b].tolist(), int(self.dealer[b]))
                self.order[b, : len(order)] = order
                self.nb[b] = len(order)
        else:
            cand = np.take(self._after, self.dealer[rows], axis=0)  # (k, n - 1): the seats after the dealer
            ok = self.chips.reshape(-1)[rows[:, None] * n + cand] > 0
            if ok.all():  # (every seat has chips: the common case, no sort)
                self.order[rows, : n - 1] = cand
                self.nb[rows] = n - 1
            else:
                pick = np.argsort(~ok, axis=1, kind="stable")
                self.order[rows, : n - 1] = np.take_along_axis(cand, pick, axis=1)
                self.nb[rows] = ok.sum(axis=1)
        self.info[rows] = -1
        self.spreads[rows] = -1
        self.stakes[rows] = 0
        self.spread_total[rows] = 0
        self.backers[rows] = 0
        self.seat_total[rows] = 0
        self.round_total[rows] = 0
        self.decider[rows] = -1
        self.spread_state[rows] = 0
        self.dealer_cards[rows] = -1
        self.nd[rows] = 0
        self.revealed[rows] = False
        self.minso_redeals[rows] = 0
        self.active[rows] = -1
        self.choice_slot[rows] = -1
        self.bet_i[rows] = 0
        if cfg.info_cards:
            nb = self.nb[rows]
            j = np.arange(n - 1)
            has = j[None, :] < nb[:, None]
            at = np.minimum(self.top[rows, None] + j, DECK_SIZE - 1)
            r2 = np.broadcast_to(rows[:, None], at.shape)
            seats = self.order[rows, : n - 1]
            self.info[r2[has], seats[has]] = self.deck[r2[has], at[has]]
            self.top[rows] += nb
        self._deal_table(rows)
        if self._minso_limit > 0:
            self._wait(rows, MINSO, self.dealer[rows], _M_MINSO)
        else:
            self._table_final(rows)

    def _select(self, b: int) -> None:
        """``Game._select`` for game b (per game: the draws repeat on ties)."""
        seats = [s for s in range(self.num_players) if self.chips[b, s] > 0]
        d = self._row_deck(b)
        dealer, draws = select_dealer(self.config.dealer_selection, d, seats)
        self._store_deck(b, d)
        self.selection[b] = selection_cards(draws, self.num_players)
        if dealer != self.dealer[b] or self.round_index[b] == 0:
            self.dealer[b] = dealer
            self.deals_by_dealer[b] = 0
            self.dealer_start_chips[b] = self.chips[b, dealer]

    def _deal_table(self, rows: np.ndarray) -> None:
        """Four table cards; with ``redeal_on_triple_table`` again after a reshuffle while 3 share a value."""
        while len(rows):
            at = (self.top[rows] + rows * DECK_SIZE)[:, None] + np.arange(NUM_SPREADS)
            table = self.deck.reshape(-1)[at]
            self.top[rows] += NUM_SPREADS
            self.spreads[rows, :, 0] = table
            if not self.config.redeal_on_triple_table:
                return
            v = table >> 2
            triple = ((v[:, :, None] == v[:, None, :]).sum(axis=2) >= 3).any(axis=1)
            rows = rows[triple]
            for b, t in zip(rows.tolist(), table[triple].tolist(), strict=True):
                d = self._row_deck(b)
                d.reshuffle(t)
                self._store_deck(b, d)

    def _table_final(self, rows: np.ndarray) -> None:
        if self.config.dealer_first_card == "before_bets":
            self._dealer_card(rows, 0)
        else:
            self._start_bets(rows)

    def _dealer_card(self, rows: np.ndarray, slot: int) -> None:
        if not len(rows):
            return
        if self.config.dealer_card_choice:
            self.choice_slot[rows] = slot
            self._wait(rows, CHOICE, self.dealer[rows], _M_CHOICE)
        else:
            self._give_dealer(rows, self._draw(rows))
            self._after_dealer_card(rows, slot)

    def _give_dealer(self, rows: np.ndarray, cards: np.ndarray) -> None:
        nd = self.nd[rows]
        self.nd[rows] = nd + 1
        nd += rows * MAX_CARDS
        self.dealer_cards.reshape(-1)[nd] = cards

    def _after_dealer_card(self, rows: np.ndarray, slot: int) -> None:
        if slot == 1:
            d = np.take(self.dealer_cards, rows, axis=0)
            pair = d[:, 0] * DECK_SIZE
            pair += d[:, 1]
            self._wait(rows, DEALER_DRAW, self.dealer[rows], self._draw_mask_dealer[pair])
        elif self.config.dealer_first_card == "before_bets":
            self._start_bets(rows)
        else:
            self._second_cards(rows)

    def _start_bets(self, rows: np.ndarray) -> None:
        self.bet_i[rows] = 0
        self.active[rows] = 0
        self._ask_bet(rows)

    def _ask_bet(self, rows: np.ndarray, in_bet: bool = False) -> None:
        """The next bettor's turn: its seat and the BET mask row of its room (``in_bet``: the games are
        in BET already, so the phase is left as it is)."""
        n = self.num_players
        at = rows * n
        seat = self.order.reshape(-1)[at + self.bet_i[rows]]
        at += seat  # flat (game, seat)
        room = self.chips.reshape(-1)[at] - self.seat_total.reshape(-1)[at]
        np.minimum(room, self.config.domae - self.round_total[rows], out=room)
        # BET with the sizes that fit (sizes <= room; none when room < 1)
        mask_id = self._size_list.searchsorted(room, side="right")
        mask_id += _M_BET
        if in_bet:
            self.current_player[rows] = seat
            self.mask_id[rows] = mask_id
        else:
            self._wait(rows, BET, seat, mask_id)

    def _end_bets(self, rows: np.ndarray) -> None:
        self.active[rows] = -1
        none = self.round_total[rows] == 0
        if none.any():
            r = rows[none]
            self._end_round(r, np.full(len(r), -1), np.zeros(len(r), dtype=bool))
            rows = rows[~none]
        if self.config.dealer_first_card == "after_bets":
            self._dealer_card(rows, 0)
        else:
            self._second_cards(rows)

    def _second_cards(self, rows: np.ndarray) -> None:
        if not len(rows):
            return
        at = (self.top[rows] + rows * DECK_SIZE)[:, None] + np.arange(NUM_SPREADS)
        self.spreads[rows, :, 1] = self.deck.reshape(-1)[at]
        self.top[rows] += NUM_SPREADS
        self.active[rows] = -1
        self._next_decision(rows)

    def _next_decision(self, rows: np.ndarray) -> None:
        cand = np.take(self.spread_total, rows, axis=0) > 0
        if self.config.decision_order == "asking":  # Game.decision_spreads: decider by decider
            cand &= np.take(self.spread_state, rows, axis=0) == 0
            dec = np.take(self.decider, rows, axis=0)[:, :, None]
            pos = (np.take(self.order, rows, axis=0)[:, None, :] == dec).argmax(axis=2)  # in betting order
            key = np.where(
                cand, pos * NUM_SPREADS + np.arange(NUM_SPREADS), NUM_SPREADS * (1 + self.num_players)
            )
        else:
            cand &= np.arange(NUM_SPREADS) > self.active[rows, None]
            key = np.where(cand, np.arange(NUM_SPREADS), NUM_SPREADS)
        has = cand.any(axis=1)
        if has.any():
            r = rows[has]
            s = key[has].argmin(axis=1)
            self.active[r] = s
            at = r * NUM_SPREADS + s  # flat (game, spread)
            pair = self.spreads.reshape(-1)[at * MAX_CARDS] * DECK_SIZE  # the spreads' first two cards
            pair += self.spreads.reshape(-1)[at * MAX_CARDS + 1]
            self._wait(r, DECIDE, self.decider.reshape(-1)[at], self._draw_mask_bettor[pair])
        if not has.all():
            r = rows[~has]
            self.active[r] = -1
            if self.config.unbacked_spread_card:
                self._deal_unbacked(r)
            self.revealed[r] = True
            self._dealer_card(r, 1)

    def _deal_unbacked(self, rows: np.ndarray) -> None:
        """``Game._deal_unbacked``: each unbacked spread, in spread order, dealt one card face up."""
        for s in range(NUM_SPREADS):
            r = rows[self.spread_total[rows, s] == 0]
            if len(r):
                self.spreads[r, s, 2] = self._draw(r)

    def _showdown(self, rows: np.ndarray) -> None:
        tab, K, cls = self._tab, self._K, self._cls
        d = cls[np.maximum(np.take(self.dealer_cards, rows, axis=0), 0)]
        dh = np.where(self.nd[rows] == 3, hand3(d[:, 0], d[:, 1], d[:, 2], K), hand2(d[:, 0], d[:, 1], K))
        sp = cls[np.maximum(np.take(self.spreads, rows, axis=0), 0)]  # (k, 4, 3)
        state = np.take(self.spread_state, rows, axis=0)
        bh = np.where(
            state == DREW, hand3(sp[:, :, 0], sp[:, :, 1], sp[:, :, 2], K), hand2(sp[:, :, 0], sp[:, :, 1], K)
        )
        backed = np.take(self.spread_total, rows, axis=0) > 0
        m = tab.settle[tab.dealer_sig[dh][:, None], tab.bettor_sig[bh]]
        m = np.where(backed & (state != ESCAPED), m, 0)
        won = (np.take(self.stakes, rows, axis=0) * m[:, None, :]).sum(axis=2)  # (k, n): each seat's winnings
        dealer = self.dealer[rows]
        k = np.arange(len(rows))
        won[k, dealer] -= won.sum(axis=1)  # (the dealer stakes nothing itself)
        self.chips[rows] = np.take(self.chips, rows, axis=0) + won
        self.rewards[rows] = np.take(self.rewards, rows, axis=0) + won
        n_backed = backed.sum(axis=1)
        lost_all = (n_backed > 0) & ((m > 0).sum(axis=1) == n_backed)
        self._end_round(rows, tab.hand_value[dh], lost_all)

    def _end_round(self, rows: np.ndarray, final_value: np.ndarray, lost_all: np.ndarray) -> None:
        """``Game._end_round``: the episode ends, or the deal passes on (``dealer_change``) and the next
        round starts. ``final_value`` -1: no final hand (nobody staked)."""
        cfg, n = self.config, self.num_players
        self.round_index[rows] += 1
        self.deals_by_dealer[rows] += 1
        chips = np.take(self.chips, rows, axis=0)
        over = (self.round_index[rows] >= cfg.max_rounds) | ((chips > 0).sum(axis=1) < 2)
        go = ~over
        if go.any():
            r, chips, fv, la = rows[go], chips[go], final_value[go], lost_all[go]
            if not cfg.dealer_selection_each_deal:
                d = self.dealer[r]
                k = np.arange(len(r))
                mine = chips[k, d]
                change = np.zeros(len(r), dtype=bool)
                for cond in cfg.dealer_change:
                    if cond == "deals":
                        change |= self.deals_by_dealer[r] >= cfg.dealer_max_deals
                    elif cond == "bust":
                        change |= mine <= 0
                    elif cond == "doubled":
                        change |= mine - self.dealer_start_chips[r] >= cfg.domae
                    elif cond == "low_hand":
                        change |= (fv >= 0) & (fv <= 5)
                    else:  # lost_all
                        change |= la
                if change.any():
                    c, k = r[change], k[change]
                    cand = (d[change, None] + np.arange(1, n)) % n  # session.next_dealer
                    ok = chips[k[:, None], cand] > 0
                    nxt = np.where(ok.any(axis=1), cand[np.arange(len(c)), ok.argmax(axis=1)], d[change])
                    self.dealer[c] = nxt
                    self.deals_by_dealer[c] = 0
                    self.dealer_start_chips[c] = chips[k, nxt]
            self._start_round(r)
        if over.any():
            fin = rows[over]
            self.terminated[fin] = True
            if self.autoreset:
                for b in fin[self._seeded[fin]].tolist():
                    self._rngs[b] = None
                self._seeded[fin] = False
                self._shuffled(fin)
                self._new_episode(fin)
            else:
                self.phase[fin] = OVER
                self.current_player[fin] = -1
                self.mask_id[fin] = _M_NONE

    def _wait(self, rows: np.ndarray, phase: int, seat: np.ndarray, mask_id: Any) -> None:
        self.phase[rows] = phase
        self.current_player[rows] = seat
        self.mask_id[rows] = mask_id

    # --- step --------------------------------------------------------------------------------------
    def step(self, actions: Any, active: Any = None) -> None:
        moving = None if active is None else self._check_active(active)
        acts = self._check_actions(actions, moving)
        self.rewards[:] = 0.0
        over = self.current_player < 0
        self.terminated[:] = over
        live = ~over if moving is None else ~over & moving
        moved = np.flatnonzero(live)  # (the games whose state this step changes)
        # the moving games grouped by phase, in one sort (each group in game order)
        key = self.phase[moved]
        counts = np.bincount(key, minlength=OVER).tolist()
        if len(moved) and len(moved) in counts:  # every moving game in one phase: no sort
            p = counts.index(len(moved))
            self._APPLY[p](self, moved, acts[moved])
        else:
            by_phase = moved[np.argsort(key, kind="stable")]
            start = 0
            for p, count in enumerate(counts):
                if count:
                    rows = by_phase[start : start + count]
                    self._APPLY[p](self, rows, acts[rows])
                start += count
        self._refresh(moved)

    def _apply_minso(self, rows: np.ndarray, acts: np.ndarray) -> None:
        keep = acts == KEEP
        self._table_final(rows[keep])
        rows = rows[~keep]
        if not len(rows):
            return
        self.minso_redeals[rows] += 1
        for b, t in zip(rows.tolist(), self.spreads[rows, :, 0].tolist(), strict=True):
            d = self._row_deck(b)
            d.reshuffle(t)
            self._store_deck(b, d)
        self._deal_table(rows)
        more = self.minso_redeals[rows] < self._minso_limit
        self._wait(rows[more], MINSO, self.dealer[rows[more]], _M_MINSO)
        self._table_final(rows[~more])

    def _apply_bet(self, rows: np.ndarray, acts: np.ndarray) -> None:
        n = self.num_players
        size = self._size_of_act[acts]
        s = self.active[rows]
        seat = self.current_player[rows]
        at = rows * n + seat  # flat (game, seat)
        at_s = rows * NUM_SPREADS + s  # flat (game, spread)
        at_st = at * NUM_SPREADS + s  # flat (game, seat, spread)
        stakes = self.stakes.reshape(-1)
        old = stakes[at_st]
        new = (size > 0) & (old == 0)  # a new backer of spread s
        if new.any():
            fs = at_s[new]
            self.backers.reshape(-1)[fs] += 1
            decider = self.decider.reshape(-1)  # (views: the state arrays are contiguous)
            first = decider[fs] < 0
            decider[fs[first]] = seat[new][first]
        old += size
        stakes[at_st] = old
        self.spread_total.reshape(-1)[at_s] += size
        self.seat_total.reshape(-1)[at] += size
        self.round_total[rows] += size
        last = s == NUM_SPREADS - 1
        self.active[rows] = self._next_spread[s]
        if last.any():
            r = rows[last]
            bet_i = self.bet_i[r] + 1
            self.bet_i[r] = bet_i
            done = bet_i == self.nb[r]
            if done.any():
                self._end_bets(r[done])
                rows = np.concatenate([rows[~last], r[~done]])
        self._ask_bet(rows, in_bet=True)

    def _apply_choice(self, rows: np.ndarray, acts: np.ndarray) -> None:
        # CHOICE_ACTIONS are in the order of the deck's TAKE_TOP, TAKE_BOTTOM, TAKE_FOURTH (0, 1, 2)
        self._give_dealer(rows, self._take(rows, acts - CHOICE_ACTIONS[0]))
        slot = self.choice_slot[rows]
        for s in (0, 1):
            self._after_dealer_card(rows[slot == s], s)

    def _apply_decide(self, rows: np.ndarray, acts: np.ndarray) -> None:
        s = self.active[rows]
        drew = acts == DRAW
        at = rows * NUM_SPREADS + s  # flat (game, spread)
        if drew.any():
            r = rows[drew]
            self.spreads.reshape(-1)[at[drew] * MAX_CARDS + 2] = self._draw(r)
        self.spread_state.reshape(-1)[at] = np.where(drew, DREW, np.where(acts == ESCAPE, ESCAPED, STOOD))
        self._next_decision(rows)

    def _apply_dealer_draw(self, rows: np.ndarray, acts: np.ndarray) -> None:
        drew = acts == DRAW
        if drew.any():
            r = rows[drew]
            self._give_dealer(r, self._draw(r))
        self._showdown(rows)

    _APPLY = {
        MINSO: _apply_minso,
        BET: _apply_bet,
        CHOICE: _apply_choice,
        DECIDE: _apply_decide,
        DEALER_DRAW: _apply_dealer_draw,
    }

    # --- mask and observation ----------------------------------------------------------------------
    def _refresh(self, rows: np.ndarray | None = None) -> None:
        """Rewrite the mask of the games ``rows`` (None: all), a gather from the mask table, and mark
        their observations stale: they are encoded when ``observation`` is next read (the training
        VecEnv's opponents act on the engine's state, so most steps never encode one)."""
        if rows is None:
            np.take(self._masks, self.mask_id, axis=0, out=self.legal_action_mask)
        elif len(rows):
            self.legal_action_mask[rows] = self._masks[self.mask_id[rows]]
        self._mark_stale(rows)

    def _encode_observation(self, rows: np.ndarray | None) -> None:
        """Encode the observations of the games ``rows`` (None: all; the masks are ``_refresh``'s). Past
        half the batch the whole-batch pass (no gathers, no scatter) is cheaper, and it rewrites unchanged
        games identically."""
        if rows is None or 2 * len(rows) > self.batch_size:
            scratch = (
                self._code,
                self._pos_scratch,
                self._dec_eq,
                self._flat_seat,
                self._row_base,
                self._nums,
            )
            self._encode(None, None, self._observation, scratch)
        elif len(rows):
            k = len(rows)
            obs = np.empty((k, self.obs_size), dtype=np.float32)
            scratch = (
                np.empty((self._code.shape[0], k), dtype=np.int64),
                np.empty((self._code.shape[0], k), dtype=np.int64),
                np.empty((NUM_SPREADS, k), dtype=bool),
                np.empty(k, dtype=np.int64),
                self._row_base[:k],  # (the first k rows' starts: the same offsets)
                np.empty((len(self._num_inv), k), dtype=np.float64),
            )
            self._encode(rows, None, obs, scratch)
            self._observation[rows] = obs

    def _encode(
        self,
        rows: np.ndarray | None,
        mask: np.ndarray | None,
        obs: np.ndarray,
        scratch: tuple[np.ndarray, ...],
    ) -> None:
        """The mask (a row of the mask table; ``mask`` None: not written) and the current player's
        observation (observation.Encoder) of the games ``rows`` (None: all) into ``mask`` and ``obs``,
        one row per game: the one-hot positions from the position tables, scattered at once, then the
        numbers. ``scratch``: the codes and their positions (column, game), a (4, games) bool, the flat
        (game, seat) index, each row's start in ``obs``, the numbers (column, game) in float64."""
        cfg, n, o = self.config, self.num_players, self._o

        def pick(a: np.ndarray) -> np.ndarray:
            if rows is None:
                return a
            return a[rows] if a.ndim == 1 else np.take(a, rows, axis=0)  # (take: rows several times faster)

        code, pos, dec_eq, at, row_base, nums = scratch
        B = len(obs)
        if mask is not None:
            np.take(self._masks, pick(self.mask_id), axis=0, out=mask)
        cur = pick(self.current_player)
        live = cur >= 0
        all_live = bool(live.all())
        seat = cur if all_live else np.where(live, cur, 0)
        trash = self._trash
        game_n = self._row_base_n[:, 0] if rows is None else rows * n  # flat index of (game, seat 0)
        np.add(game_n, seat, out=at)
        k = self._num_col["own_stakes"]
        my_stake = nums[k : k + NUM_SPREADS]  # (4, B): the numbers' block holds it (exact in float64)
        my_stake[:] = np.take(self.stakes.reshape(-1, NUM_SPREADS), at, axis=0).T
        seen2 = my_stake > 0
        if cfg.unbacked_spread_card:  # an unbacked spread dealt its card shows its second card to all
            seen2 |= (pick(self.spread_total).T == 0) & (pick(self.spreads)[:, :, 2].T >= 0)
        # the codes as (column, game): every op runs along the batch (long inner loops)
        base = self._base
        c41 = DECK_SIZE + 1
        dealer = pick(self.dealer)
        np.multiply(dealer, n, out=code[0])
        code[0] += seat
        pac = code[1]
        np.multiply(pick(self.phase), NUM_SPREADS + 1, out=pac)
        pac += pick(self.active)
        pac *= 3
        pac += pick(self.choice_slot)
        pac *= 3
        np.add(pac, base[1][:, None], out=code[1:4])
        spreads = pick(self.spreads)
        np.add(spreads[:, :, 0].T, base[2][:, None], out=code[4:8])
        np.multiply(seen2, c41, out=code[8:12])
        code[8:12] += spreads[:, :, 1].T
        code[8:12] += base[3][:, None]
        np.add(spreads[:, :, 2].T, base[4][:, None], out=code[12:16])
        np.add(pick(self.spread_state).T, base[5][:, None], out=code[16:20])
        np.equal(pick(self.decider).T, seat, out=dec_eq)
        np.add(dec_eq, base[6][:, None], out=code[20:24])
        see = sees_dealer_pair(pick(self.revealed), dealer, seat, cfg.dealer_second_card_face_up)
        dealer_cards = pick(self.dealer_cards)
        np.multiply(see, c41, out=code[24:27])
        code[24:27] += dealer_cards.T
        code[24:27] += base[7][:, None]
        # (column, game) positions: contiguous along the batch; the scatter's order does not matter
        idx = np.take(self._pos, code, out=pos, mode="clip")  # (codes index _pos by construction)
        idx += row_base.T
        extra = []
        if cfg.info_cards:
            info = self.info.reshape(-1)[at]
            extra.append(np.where(info >= 0, o["info_card"] + (info >> 2), trash)[:, None])
        if cfg.deck == "hanafuda":
            present = spreads >= 0
            light = _IS_LIGHT[np.maximum(spreads, 0)] & present
            light[:, :, 1] &= seen2.T
            pos = o["spread_lights"] + MAX_CARDS * np.arange(NUM_SPREADS)[:, None] + np.arange(MAX_CARDS)
            extra.append(np.where(light, pos, trash).reshape(B, -1))
            dl = _IS_LIGHT[np.maximum(dealer_cards, 0)] & (dealer_cards >= 0)
            dl[:, :2] &= see[:, None]
            extra.append(np.where(dl, o["dealer_lights"] + np.arange(MAX_CARDS), trash))
        rot = np.take(self._rot, seat, axis=0)  # (a copy)
        rot += game_n[:, None]  # (B, n): flat index of (game, relative seat j)
        if cfg.dealer_selection_each_deal:
            sel = self.selection.reshape(-1)[rot]
            pos = o["selection_cards"] + NUM_VALUES * np.arange(n)
            extra.append(np.where(sel >= 0, pos + (sel >> 2), trash))
        obs.fill(0.0)
        flat = obs.reshape(-1)
        flat[idx] = 1.0
        if extra:
            ones = np.concatenate(extra, axis=1)
            ones += row_base
            flat[ones] = 1.0
        # --- the numbers ---
        c = self._num_col
        k = c["total_stakes"]
        nums[k : k + NUM_SPREADS] = pick(self.spread_total).T
        k = c["backers"]
        nums[k : k + NUM_SPREADS] = pick(self.backers).T
        left = cfg.domae - pick(self.round_total)
        nums[c["domae_left"]] = left
        mine = self.chips.reshape(-1)[at]
        room = mine - self.seat_total.reshape(-1)[at]
        np.minimum(room, left, out=left)
        left *= room > 0  # (the encoder writes nothing unless room > 0)
        nums[c["stake_room"]] = left
        k = c["chips"]
        nums[k : k + n] = self.chips.reshape(-1)[rot].T
        nums[c["own_chips"]] = mine
        nums[c["round"]] = pick(self.round_index)
        nums[c["dealer_deals"]] = pick(self.deals_by_dealer)
        nums[c["minso_left"]] = 0.0
        nums *= self._num_inv
        np.minimum(nums, self._num_hi, out=nums)
        np.maximum(nums, self._num_lo, out=nums)
        obs[:, self._num_at] = nums.T
        limit = self._minso_limit
        if limit:
            obs[:, o["minso_left"]] = (limit - pick(self.minso_redeals)) / limit
        if not all_live:
            obs[~live] = 0.0
