"""Kakeya, vectorised: B matches per numpy call (the batch contract of ``kabu_envs.batch``).

``make_batch(batch_size, autoreset=False, **rule_options)`` is the batch factory ``kabu_envs.batch``
finds. It returns ``KakeyaBatch`` for the option sets vectorised here and ``LoopBatchEnv("kakeya", ...)``
(B AEC envs, exact but at AEC speed) for the others.

Vectorised: every option set (``num_players`` 4 and 6 in both ``six_player_mode``, ``default_trump``,
``dealers_choose_trump``, ``rensho_rule``, ``rensho_follow``, ``stones_per_player``, ``reward``
"stones" and "egara", any ``max_deals``): ``vectorised(config)`` says which rule sets ``make_batch``
sends to the engine, and declines only on a big-endian machine (the bit unpacking assumes little-endian
words); whatever it declines falls back to the loop.

State: hands and captured cards as uint64 52-bit card sets ((B, n), (B, P)), the trick as card ids, the
phase, trump, Rensho, turn, dealers, stones and counters as (B,) / (B, n) int arrays. Per step the
actions of all live games are applied at once by phase (TRUMP, LEAD, PLAY), completed tricks and deals
are resolved with array ops, and the mask and the current player's observation are rewritten from the
arrays (bit for bit the AEC env's: the encoder's piece offsets from ``obs_spec``).

Deals: a game reset with a seed (``reset(seeds=...)`` / ``reset(seed=...)`` / ``reset(decks=...)``)
keeps its own ``np.random.Generator(np.random.PCG64(seed))`` and draws every deal of its match from it
exactly as ``Game`` does (``core.rng.ordered_deck``; the stacked deck is the first deal's order), so
all deals match the AEC env's. A match started by ``autoreset`` deals from the batch's own seeded
stream (``self._seed_rng``), all such deals of one step in one shuffle call.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from kabu_envs.batch.base import BatchEnv, LoopBatchEnv, check_batch_size
from kabu_envs.core.batch_seeds import make_generators
from kabu_envs.core.rng import make_rng, ordered_deck, validate_deck_prefix
from kabu_envs.kakeya.actions import LEAD_PARTNER, LEAD_SELF, NUM_ACTIONS, TRUMP_BASE
from kabu_envs.kakeya.cards import (
    ACE,
    ACE_MASK,
    ACE_OF_CLUBS,
    EGARA_MASK,
    NUM_CARDS,
    NUM_EGARA,
    NUM_RANKS,
    NUM_SUITS,
    SUIT_MASK,
    make_card,
)
from kabu_envs.kakeya.config import Config, make_config
from kabu_envs.kakeya.game import Phase, partnership_of
from kabu_envs.kakeya.observation import _LARGEST_HAND, obs_spec
from kabu_envs.kakeya.scoring import STONES_TABLE
from kabu_envs.kakeya.tricks import rensho_card

TRUMP, LEAD, PLAY, OVER = (int(p) for p in Phase)
_U64 = np.uint64
_CARD_BIT = np.array([1 << c for c in range(NUM_CARDS)], dtype=_U64)
_SUIT_BIT = np.array([1 << s for s in range(NUM_SUITS)], dtype=np.uint8)
_SUIT_MASK = np.array((*SUIT_MASK, 0), dtype=_U64)  # [-1]: no suit led, nothing to follow
_EGARA = _U64(EGARA_MASK)
_ACES = _U64(ACE_MASK)
_RANK = np.arange(NUM_CARDS) % NUM_RANKS
_SUIT = np.arange(NUM_CARDS) // NUM_RANKS
# stones table with the impossible cells as 0 (never read)
_STONES = np.array([[v or 0 for v in row] for row in STONES_TABLE], dtype=np.int64)
_TRUMP_KEY = 100  # as tricks.trick_winner: any trump outranks the led suit
# [phase] -> the mask bits of the actions legal in it besides cards: every TRUMP(suit), both LEAD choices
_PHASE_BITS = np.zeros(len(Phase), dtype=_U64)
_PHASE_BITS[TRUMP] = sum(1 << (TRUMP_BASE + s) for s in range(NUM_SUITS))
_PHASE_BITS[LEAD] = (1 << LEAD_SELF) | (1 << LEAD_PARTNER)
if NUM_ACTIONS > 64:
    raise ValueError("the mask is unpacked from one 64-bit word per game")


def _check_deck(deck: Any) -> list[int]:
    return validate_deck_prefix(deck, NUM_CARDS)


def vectorised(cfg: Config) -> bool:
    """Whether ``KakeyaBatch`` serves the rule set ``cfg`` (else ``make_batch`` falls back)."""
    return sys.byteorder == "little"  # every rule option is vectorised; the bit unpacking needs LE


def make_batch(batch_size: int, autoreset: bool = False, **rule_options: Any) -> BatchEnv:
    """The Kakeya batch engine for ``rule_options``: vectorised when supported, else the reference loop."""
    cfg = make_config(**rule_options)
    if vectorised(cfg):
        return KakeyaBatch(batch_size, autoreset=autoreset, **rule_options)
    return LoopBatchEnv("kakeya", batch_size=batch_size, autoreset=autoreset, **rule_options)


def _egara16(bits: np.ndarray) -> np.ndarray:
    """``cards.egara16`` on uint64 arrays."""
    return (
        ((bits >> _U64(9)) & _U64(0xF))
        | ((bits >> _U64(18)) & _U64(0xF0))
        | ((bits >> _U64(27)) & _U64(0xF00))
        | ((bits >> _U64(36)) & _U64(0xF000))
    )


class _Scratch:
    """Preallocated buffers of one observation rebuild over ``B`` games (no allocation per step)."""

    def __init__(self, B: int, n: int, P: int, prefix: int) -> None:
        self.prefix = np.empty((B, prefix), dtype=np.float32)
        self.rot = np.empty((B, n), dtype=np.int64)
        self.rotp = np.empty((B, P), dtype=np.int64)
        self.v = np.empty((B, n), dtype=np.uint8)
        self.eg = np.empty((B, P), dtype=np.uint16)
        self.ve = np.empty((B, n // 2 + 2 * P), dtype=np.uint8)
        self.t_bits = np.empty((B, n), dtype=_U64)
        self.counts = np.empty((B, n), dtype=np.int64)
        self.counts_f = np.empty((B, n), dtype=np.float32)
        self.totals = np.empty((B, P), dtype=np.int64)


class KakeyaBatch(BatchEnv):
    """B Kakeya matches as arrays (see the module docstring)."""

    def __init__(self, batch_size: int, autoreset: bool = False, **rule_options: Any) -> None:
        self.config = cfg = make_config(**rule_options)
        self.batch_size = B = check_batch_size(batch_size)
        self.autoreset = bool(autoreset)
        self.num_players = n = cfg.num_players
        self.num_partnerships = P = cfg.num_partnerships
        self.num_actions = NUM_ACTIONS
        self._must_follow = cfg.rensho_follow == "must_follow"
        spec = obs_spec(cfg)
        self.obs_size = spec.size
        self._off = off = spec.offsets
        self._sl = spec.slices
        self._inv_deals = 1.0 / cfg.max_deals
        self._inv_stones = 1.0 / (cfg.stones_per_player * n)
        # --- per-deal constants, by dealing partnership dp (its lower seat dp is the first dealer) ---
        sit_out = cfg.dealers_sit_out
        recv = []
        for dp in range(P):
            after = [(dp + k) % n for k in range(1, n + 1)]
            recv.append([s for s in after if not (sit_out and partnership_of(s, n) == dp)])
        self._recv = np.array(recv, dtype=np.int64)  # (P, receivers): deal order
        self._playing = np.array([[not (sit_out and p == dp) for p in range(P)] for dp in range(P)])
        chooser = np.full((P, P + 1), -1, dtype=np.int64)  # [dp, lead_p + 1] -> lead chooser
        for dp in range(P):
            for lp in range(-1, P):
                leading = lp if lp >= 0 else partnership_of(recv[dp][0], n)
                found = [s for s in recv[dp] if partnership_of(s, n) == leading]
                chooser[dp, lp + 1] = found[0] if found else -1
        self._chooser = chooser
        # trick-winner keys (tricks.trick_winner) by [trump, led suit, 1 + card], flat; card -1: no card
        key_tab = np.full((NUM_SUITS, NUM_SUITS, NUM_CARDS + 1), -2, dtype=np.int64)
        for trump in range(NUM_SUITS):
            for led in range(NUM_SUITS):
                for card in range(NUM_CARDS):
                    suit, rank = divmod(card, NUM_RANKS)
                    if card == rensho_card(trump, cfg.rensho_rule):
                        key = 1000
                    elif suit == trump:
                        key = _TRUMP_KEY + rank
                    else:
                        key = rank if suit == led else -1
                    key_tab[trump, led, 1 + card] = key
        self._key_tab = key_tab.reshape(-1)
        # --- observation: the one-hot prefix (phase .. role) from tables ---
        self._prefix = prefix = off["voids"]
        seat_tab = np.zeros((n, P, prefix), dtype=np.float32)
        for seat in range(n):
            mine = partnership_of(seat, n)
            for dp in range(P):
                seat_tab[seat, dp, off["partnership"] + mine] = 1
                seat_tab[seat, dp, off["first_dealer"] + (dp - seat) % n] = 1
                if mine == dp:
                    seat_tab[seat, dp, off["role"]] = 1
                seat_tab[seat, dp, off["role"] + (1 if sit_out and mine == dp else 2)] = 1
        pt_tab = np.zeros((len(Phase), NUM_SUITS, prefix), dtype=np.float32)
        for ph in range(len(Phase)):
            for t in range(NUM_SUITS):
                pt_tab[ph, t, off["phase"] + ph] = 1
                pt_tab[ph, t, off["trump"] + t] = 1
                pt_tab[ph, t, off["rensho"] + (rensho_card(t, cfg.rensho_rule) != ACE_OF_CLUBS)] = 1
        leader_tab = np.zeros((n + 1, prefix), dtype=np.float32)  # [1 + relative leader] (0: no trick)
        leader_tab[1 + np.arange(n), off["leader"] + np.arange(n)] = 1
        led_tab = np.zeros((NUM_SUITS + 1, prefix), dtype=np.float32)  # [1 + led suit] (0: none)
        led_tab[1 + np.arange(NUM_SUITS), off["led_suit"] + np.arange(NUM_SUITS)] = 1
        # [seat, dealers, phase, trump, 1 + relative leader, 1 + led suit] -> the whole prefix
        self._prefix_tab = (
            seat_tab[:, :, None, None, None, None]
            + pt_tab[None, None, :, :, None, None]
            + leader_tab[None, None, None, None, :, None]
            + led_tab[None, None, None, None, None, :]
        ).reshape(-1, prefix)
        self._rensho_of = np.array(
            [rensho_card(t, cfg.rensho_rule) for t in range(NUM_SUITS)], dtype=np.int64
        )
        self._rot = (np.arange(n)[:, None] + np.arange(n)[None, :]) % n  # [seat, k] = seat + k
        self._rotp = (np.arange(P)[:, None] + np.arange(P)[None, :]) % P
        # --- state ---
        self._rows = np.arange(B)
        self._flat_rows = self._rows * n
        self._flat_rows_p = self._rows * P
        # hand, played, gone and the trick's n blocks: adjacent 52-card pieces, unpacked together
        self._cards = np.zeros((B, 3 + n), dtype=_U64)
        if [off[k] for k in ("played", "gone", "trick")] != [off["hand"] + NUM_CARDS * i for i in (1, 2, 3)]:
            raise ValueError("the pieces hand, played, gone and trick must be adjacent, in this order")
        i64 = np.int64
        self.phase = np.full(B, OVER, dtype=i64)
        self.current_player = np.full(B, -1, dtype=i64)
        self.trump = np.zeros(B, dtype=i64)
        self.rensho = np.zeros(B, dtype=i64)
        self.deal_no = np.zeros(B, dtype=i64)
        self.dealer_p = np.zeros(B, dtype=i64)
        self.lead_p = np.full(B, -1, dtype=i64)
        self.stones = np.zeros((B, n), dtype=i64)
        self.hands = np.zeros((B, n), dtype=_U64)
        self.counts = np.zeros((B, n), dtype=i64)
        self.played = np.zeros(B, dtype=_U64)
        self.captured = np.zeros((B, P), dtype=_U64)
        self.egara = np.zeros((B, P), dtype=np.uint16)  # egara16 of captured: the observation's bits
        self.totals = np.zeros((B, P), dtype=i64)  # stones of each partnership
        self.voids = np.zeros((B, n), dtype=np.uint8)  # 4 bits per seat: suits shown out of
        self.t_leader = np.zeros(B, dtype=i64)
        self.t_led = np.full(B, -1, dtype=i64)
        self.t_card = np.full((B, n), -1, dtype=i64)
        self.t_bits = np.zeros((B, n), dtype=_U64)  # the card each seat played, as a bit
        self.t_len = np.zeros(B, dtype=i64)  # seats that play the trick
        self.t_num = np.zeros(B, dtype=i64)  # cards played to it so far
        self.legal_action_mask = np.zeros((B, NUM_ACTIONS), dtype=bool)
        self.observation = np.zeros((B, self.obs_size), dtype=np.float32)
        cards_at = slice(off["hand"], off["hand"] + (3 + n) * NUM_CARDS)
        self._cards_view = self.observation[:, cards_at].reshape(B, 3 + n, NUM_CARDS)  # a view
        if off["egara"] != off["voids"] + n * NUM_SUITS or n % 2:
            raise ValueError("the pieces voids and egara must be adjacent, for an even number of seats")
        self._bits_at = slice(off["voids"], off["egara"] + 16 * P)  # voids and egara, unpacked together
        # hand counts as a float32 table: the same float64 division rounded once, so a gather gives the
        # AEC encoder's values bit for bit
        self._count_tab = (np.arange(NUM_CARDS + 1) / _LARGEST_HAND).astype(np.float32)
        self._scratch = _Scratch(B, n, P, self._prefix)
        self.rewards = np.zeros((B, n), dtype=np.float64)
        self.terminated = np.ones(B, dtype=bool)
        self._seed_rng = make_rng()
        self._rngs: list[np.random.Generator | None] = [None] * B  # per-game deal streams (seeded games)
        self._decks: list[list[int] | None] = [None] * B  # stacked first deals
        self._seeded = np.zeros(B, dtype=bool)  # [b]: self._rngs[b] is not None (no Python loop over B)

    # --- state arrays ----------------------------------------------------------------------------
    _STATE = (
        "phase",
        "current_player",
        "trump",
        "rensho",
        "deal_no",
        "dealer_p",
        "lead_p",
        "stones",
        "hands",
        "counts",
        "played",
        "captured",
        "egara",
        "totals",
        "voids",
        "t_leader",
        "t_led",
        "t_card",
        "t_bits",
        "t_len",
        "t_num",
        "legal_action_mask",
        "observation",
        "rewards",
        "terminated",
    )

    def state_nbytes(self) -> int:
        """Bytes of the batch's state arrays (game state, mask, observation, rewards)."""
        return sum(getattr(self, name).nbytes for name in self._STATE)

    # --- reset -----------------------------------------------------------------------------------
    def reset(
        self,
        seed: int | None = None,
        seeds: Sequence[int] | None = None,
        decks: Sequence[Sequence[int] | None] | None = None,
        rows: Any = None,
    ) -> None:
        # a bad seed or stacked deck raises here, before anything changes, as the AEC env's reset does
        target, game_seeds, checked = self._reset_targets(seed, seeds, decks, rows, _check_deck)
        # the same generators as PCG64(seed), their seeding hashed for all games at once
        for i, (b, rng) in enumerate(zip(target.tolist(), make_generators(game_seeds), strict=True)):
            self._rngs[b] = rng
            self._decks[b] = checked[i]
        self._seeded[target] = True
        self.rewards[target] = 0.0
        self.terminated[target] = False
        self._new_match(target)
        self._refresh(target)

    def _new_match(self, rows: np.ndarray) -> None:
        cfg = self.config
        self.stones[rows] = cfg.stones_per_player
        self.totals[rows] = 2 * cfg.stones_per_player
        self.trump[rows] = cfg.default_trump_suit
        self.deal_no[rows] = 0
        self.dealer_p[rows] = self.num_partnerships - 1
        self.lead_p[rows] = -1
        self._start_deal(rows)

    def _start_deal(self, rows: np.ndarray) -> None:
        self.hands[rows] = 0
        self.counts[rows] = 0
        self.played[rows] = 0
        self.captured[rows] = 0
        self.egara[rows] = 0
        self.voids[rows] = 0
        self._clear_trick(rows)
        self.rensho[rows] = self._rensho_of[self.trump[rows]]
        if self.config.dealers_choose_trump:
            self.phase[rows] = TRUMP
            self.current_player[rows] = self.dealer_p[rows]  # the dealers' lower seat
        else:
            self._deal(rows)

    def _sel(self, rows: np.ndarray) -> np.ndarray | slice:
        """``rows`` (sorted, distinct) as a slice when they are every game: the games of a whole-batch
        step move in lockstep, and a slice reads views and writes in place where an index array copies."""
        return slice(None) if len(rows) == self.batch_size else rows

    def _clear_trick(self, rows: np.ndarray) -> None:
        at = self._sel(rows)  # (constants: the order of rows does not matter)
        self.t_led[at] = -1
        self.t_card[at] = -1
        self.t_bits[at] = 0
        self.t_num[at] = 0

    def _deal(self, rows: np.ndarray) -> None:
        """Deal one card at a time from the seat after the first dealer (Game._deal)."""
        if not len(rows):
            return
        self.rensho[rows] = self._rensho_of[self.trump[rows]]
        orders = np.empty((len(rows), NUM_CARDS), dtype=np.int64)
        seeded = self._seeded[rows]
        for i in np.flatnonzero(seeded).tolist():
            b = int(rows[i])
            rng = self._rngs[b]
            if rng is None:  # (self._seeded mirrors self._rngs)
                raise RuntimeError(f"game {b} is marked seeded but has no deal stream")
            deck = self._decks[b]
            prefix = deck if deck is not None and self.deal_no[b] == 0 else ()
            orders[i] = ordered_deck(rng, NUM_CARDS, prefix)
        batch_rows = np.flatnonzero(~seeded)
        if len(batch_rows):
            k = len(batch_rows)
            orders[batch_rows] = self._seed_rng.permuted(np.tile(np.arange(NUM_CARDS), (k, 1)), axis=1)
        dp = self.dealer_p[rows]
        recv = self._recv[dp]  # (k, r): the receivers in deal order; the i-th card goes to recv[i % r]
        r = recv.shape[1]
        k = len(rows)
        bits = np.zeros((k, -(-NUM_CARDS // r) * r), dtype=_U64)
        bits[:, :NUM_CARDS] = _CARD_BIT[orders]
        got = bits.reshape(k, -1, r).sum(axis=1, dtype=_U64)  # (k, r): the hand of each receiver
        hands = np.zeros((k, self.num_players), dtype=_U64)
        hands[np.arange(k)[:, None], recv] = got
        self.hands[rows] = hands
        self.counts[rows] = np.bitwise_count(hands).astype(np.int64)
        self.phase[rows] = LEAD
        self.current_player[rows] = self._chooser[dp, self.lead_p[rows] + 1]

    # --- step ------------------------------------------------------------------------------------
    def step(self, actions: Any, active: Any = None) -> None:
        moving = None if active is None else self._check_active(active)
        acts = self._check_actions(actions, moving)
        self.rewards[:] = 0.0
        over = self.current_player < 0
        self.terminated[:] = over
        live = ~over if moving is None else ~over & moving
        moved = np.flatnonzero(live)  # (the games whose state this step changes)
        phase = self.phase[moved]
        t_rows = moved[phase == TRUMP]
        l_rows = moved[phase == LEAD]
        p_rows = moved[phase == PLAY]
        if len(t_rows):
            self.trump[t_rows] = acts[t_rows] - TRUMP_BASE
            self._deal(t_rows)
        if len(l_rows):
            chooser = self.current_player[l_rows]
            partner = (chooser + self.num_partnerships) % self.num_players
            leader = np.where(acts[l_rows] == LEAD_SELF, chooser, partner)
            self.phase[l_rows] = PLAY
            self._start_trick(l_rows, leader)
        if len(p_rows):
            self._play(p_rows, acts[p_rows])
        self._refresh(moved)

    def _start_trick(self, rows: np.ndarray, leader: np.ndarray) -> None:
        self._clear_trick(rows)
        at = self._sel(rows)
        self.t_leader[at] = leader
        self.t_len[at] = (self.counts[at] > 0).sum(axis=1)
        self.current_player[at] = leader

    def _play(self, rows: np.ndarray, cards: np.ndarray) -> None:
        n = self.num_players
        sel = self._sel(rows)  # (seat, led and t_len may be views: copied before the state they see changes)
        seat = self.current_player[sel]
        at = rows * n + seat  # flat (game, seat) index
        bit = _CARD_BIT[cards]
        self.hands.reshape(-1)[at] ^= bit
        self.counts.reshape(-1)[at] -= 1
        self.played[sel] |= bit
        led = self.t_led[sel]
        suit = _SUIT[cards]
        # a seat that does not follow, with a card other than Rensho, shows out of the led suit
        # (docs/kakeya.md#play)
        shows_out = (led >= 0) & (suit != led) & (cards != self.rensho[sel])
        if shows_out.any():
            self.voids.reshape(-1)[at[shows_out]] |= _SUIT_BIT[led[shows_out]]
        self.t_led[sel] = np.where(led < 0, suit, led)
        self.t_card.reshape(-1)[at] = cards
        self.t_bits.reshape(-1)[at] = bit
        num = self.t_num[sel] + 1
        self.t_num[sel] = num
        t_len = self.t_len[sel]
        done = num == t_len
        if done.any():
            go = ~done
            rows_go, seat, t_len = rows[go], seat[go], t_len[go]
            self._finish_trick(rows[done])
        else:
            rows_go = rows
        if len(rows_go):  # the next seat of the trick: the first after this one with cards, not yet played
            nxt = seat + 1
            nxt[nxt == n] = 0
            short = t_len < n  # some seat has no card: skip such seats (and those that played)
            if short.any():
                g, s = rows_go[short], seat[short]
                nx = nxt[short]
                ok = (self.counts[g, nx] > 0) & (self.t_card[g, nx] < 0)
                for k in range(2, n):
                    if ok.all():
                        break
                    cand = (s + k) % n
                    fix = ~ok & (self.counts[g, cand] > 0) & (self.t_card[g, cand] < 0)
                    nx = np.where(fix, cand, nx)
                    ok |= fix
                nxt[short] = nx
            self.current_player[rows_go] = nxt

    def _finish_trick(self, rows: np.ndarray) -> None:
        n, P = self.num_players, self.num_partnerships
        # each card's key from the table [trump, led suit, 1 + card]; trick_winner takes the first best
        # card in play order, and keys are distinct among the cards that count
        sel = self._sel(rows)
        base = (self.trump[sel] * NUM_SUITS + self.t_led[sel]) * (NUM_CARDS + 1) + 1
        key = self._key_tab[base[:, None] + self.t_card[sel]]
        winner = key.argmax(axis=1)
        won = np.bitwise_or.reduce(self.t_bits[sel], axis=1) & _EGARA
        wp = winner % P
        self.captured[rows, wp] |= won
        self.egara[rows, wp] |= _egara16(won).astype(np.uint16)
        counts = self.counts[sel]
        over = ~counts.any(axis=1)
        go = ~over
        if go.any():
            g = rows[go]
            leader = winner[go]
            cg = counts[go]
            for _ in range(n):  # all_play: a winner with no card passes the lead on
                empty = cg[np.arange(len(g)), leader] == 0
                if not empty.any():
                    break
                leader = np.where(empty, (leader + 1) % n, leader)
            self._start_trick(g, leader)
        if over.any():
            self._end_deal(rows[over])

    # --- scoring ---------------------------------------------------------------------------------
    def _end_deal(self, rows: np.ndarray) -> None:
        cfg = self.config
        n, P = self.num_players, self.num_partnerships
        k = len(rows)
        ar = np.arange(k)
        self._clear_trick(rows)
        captured = self.captured[rows]  # (k, P)
        egara = np.bitwise_count(captured & _EGARA).astype(np.int64)
        dp = self.dealer_p[rows]
        playing = self._playing[dp]  # (k, P)
        rensho = self.rensho[rows]
        if cfg.all_play:
            big = egara >= 9
            winner = np.where(big.any(axis=1), big.argmax(axis=1), -1)
        else:
            # the two playing partnerships a < b
            order = np.argsort(~playing, axis=1, kind="stable")
            a, b = order[:, 0], order[:, 1]
            ea, eb = egara[ar, a], egara[ar, b]
            a_has = ((captured[ar, a] >> rensho.astype(_U64)) & _U64(1)).astype(bool)
            winner = np.where(ea > eb, a, np.where(eb > ea, b, np.where(a_has, b, a)))
        has_w = winner >= 0
        w = np.where(has_w, winner, 0)
        change = np.zeros((k, P), dtype=np.int64)
        if has_w.any():
            wcap = captured[ar, w]
            aces = wcap & _ACES
            n_aces = np.bitwise_count(aces).astype(np.int64)
            special = _CARD_BIT[rensho] | _CARD_BIT[make_card(self.trump[rows], ACE)]
            row = np.where(n_aces == 0, 0, np.where((n_aces <= 2) & ((aces & special) == 0), 1, 2))
            we = egara[ar, w]
            col = np.where(we >= NUM_EGARA, 2, np.where(we >= 12, 1, 0))
            amount = _STONES[row, col]
            stones = self.stones[rows]
            for p in range(P):
                pays = has_w & playing[:, p] & (w != p)
                if not pays.any():
                    continue
                s1, s2 = p, p + P
                moved = np.minimum(amount, stones[:, s1] + stones[:, s2])
                moved = np.where(pays, moved, 0)
                d1, d2 = w, w + P
                for it in range(int(moved.max())):
                    m = moved > it
                    src = np.where(stones[:, s1] >= stones[:, s2], s1, s2)
                    dst = np.where(stones[ar, d1] <= stones[ar, d2], d1, d2)
                    stones[ar[m], src[m]] -= 1
                    stones[ar[m], dst[m]] += 1
                change[:, p] -= moved
                change[ar, w] += moved
            self.stones[rows] = stones
            self.totals[rows] = stones[:, :P] + stones[:, P:]
        if cfg.reward == "stones":
            reward = change.astype(np.float64)
        else:
            nplay = playing.sum(axis=1)
            tot = np.where(playing, egara, 0).sum(axis=1)
            others = (tot[:, None] - egara) / (nplay[:, None] - 1)
            reward = np.where(playing, (egara - others) / NUM_EGARA, 0.0)
        reward = np.where(playing, reward, 0.0)
        self.rewards[rows] += reward[:, np.arange(n) % P]
        self.deal_no[rows] += 1
        if has_w.any():
            # next dealers: the loser with fewer egara (tie: lower partnership)
            ekey = np.where(playing, egara * P + np.arange(P), 1 << 40)
            ekey[ar, w] = 1 << 40
            self.dealer_p[rows] = np.where(has_w, ekey.argmin(axis=1), dp)
        self.lead_p[rows] = winner
        st = self.stones[rows]
        totals = st[:, :P] + st[:, P:]
        ended = (self.deal_no[rows] >= cfg.max_deals) | (totals == 0).any(axis=1)
        more = rows[~ended]
        if len(more):
            self._start_deal(more)
        fin = rows[ended]
        if len(fin):
            self.terminated[fin] = True
            if self.autoreset:
                for b in fin[self._seeded[fin]].tolist():
                    self._rngs[b] = None
                    self._decks[b] = None
                self._seeded[fin] = False
                self._new_match(fin)
            else:
                self.phase[fin] = OVER
                self.current_player[fin] = -1

    # --- mask and observation --------------------------------------------------------------------
    def _refresh(self, rows: np.ndarray | None = None) -> None:
        """Rewrite the mask and observation of the games ``rows`` (None: all). A step passes the games
        it moved, so a partial step's (``active=``) refresh work follows them; past half the batch the
        whole-batch pass (no gathers, no scatter) is cheaper, and it rewrites unchanged games identically."""
        if rows is None or 2 * len(rows) > self.batch_size:
            self._encode(None, self.legal_action_mask, self.observation, self._cards, self._cards_view)
        elif len(rows):
            k, n = len(rows), self.num_players
            mask = np.empty((k, NUM_ACTIONS), dtype=bool)
            obs = np.empty((k, self.obs_size), dtype=np.float32)
            cards_at = slice(self._off["hand"], self._off["hand"] + (3 + n) * NUM_CARDS)
            view = obs[:, cards_at].reshape(k, 3 + n, NUM_CARDS)
            self._encode(rows, mask, obs, np.empty((k, 3 + n), dtype=_U64), view)
            self.legal_action_mask[rows] = mask
            self.observation[rows] = obs

    def _encode(
        self,
        rows: np.ndarray | None,
        mask: np.ndarray,
        obs: np.ndarray,
        cards: np.ndarray,
        cards_view: np.ndarray,
    ) -> None:
        """The mask and the current player's observation of the games ``rows`` (None: all) into ``mask``
        and ``obs`` (one row per game); ``cards`` is scratch, ``cards_view`` the card pieces of ``obs``."""
        n, P = self.num_players, self.num_partnerships

        def pick(a: np.ndarray) -> np.ndarray:
            return a if rows is None else a[rows]

        B = len(obs)
        flat_n = self._flat_rows if rows is None else rows * n
        flat_p = self._flat_rows_p if rows is None else rows * P
        cur = pick(self.current_player)
        live = cur >= 0
        all_live = bool(live.all())
        seat = cur if all_live else np.where(live, cur, 0)
        phase = pick(self.phase)
        flat = flat_n + seat
        hand = self.hands.reshape(-1)[flat]
        # --- mask ---
        is_play = phase == PLAY if all_live else live & (phase == PLAY)
        led = pick(self.t_led)
        follow = hand & _SUIT_MASK[led]  # (_SUIT_MASK[-1] = 0: no suit led)
        rbit = hand & _CARD_BIT[pick(self.rensho)]
        if not self._must_follow:
            follow &= ~rbit
        legal = np.where(follow != 0, follow | rbit, hand)
        legal *= is_play
        # the trump and lead actions as bits 52.. of the same word: one unpack and one copy for the mask
        extra = _PHASE_BITS[phase]
        if not all_live:
            extra *= live
        legal |= extra
        bits = np.unpackbits(legal.view(np.uint8).reshape(B, 8), axis=1, bitorder="little")
        mask[:] = bits[:, :NUM_ACTIONS].view(bool)
        # --- observation ---
        # gathers go through np.take into contiguous scratch (mode="clip" skips the bounds buffer: the
        # indices are in range by construction), then one copy into the observation's columns
        sc = self._scratch if self.batch_size == B else _Scratch(B, n, P, self._prefix)
        off, sl = self._off, self._sl
        mine = seat % P
        leader = (pick(self.t_leader) - seat) % n + 1
        leader *= is_play
        tab_row = ((seat * P + pick(self.dealer_p)) * len(Phase) + phase) * NUM_SUITS + pick(self.trump)
        tab_row = (tab_row * (n + 1) + leader) * (NUM_SUITS + 1) + led + 1  # (led = -1 outside a trick)
        np.take(self._prefix_tab, tab_row, axis=0, out=sc.prefix, mode="clip")
        obs[:, : self._prefix] = sc.prefix
        rot = np.take(self._rot, seat, axis=0, out=sc.rot, mode="clip")
        rot += flat_n[:, None]  # (B, n): flat index of (game, relative seat k)
        v = np.take(self.voids.reshape(-1), rot, out=sc.v, mode="clip")  # 4 suit bits each
        ve = sc.ve  # voids two seats per byte, then the egara bits: the adjacent pieces' bytes
        half = n // 2
        np.left_shift(v[:, 1::2], 4, out=ve[:, :half])
        ve[:, :half] |= v[:, 0::2]
        rotp = np.take(self._rotp, mine, axis=0, out=sc.rotp, mode="clip")
        rotp += flat_p[:, None]  # (B, P): flat index of (game, relative partnership k)
        np.take(self.egara.reshape(-1), rotp, out=sc.eg, mode="clip")
        ve[:, half:] = sc.eg.view(np.uint8)
        obs[:, self._bits_at] = np.unpackbits(ve, axis=1, bitorder="little")
        played = pick(self.played)
        cards[:, 0] = hand
        cards[:, 1] = played
        np.bitwise_or(hand, played, out=cards[:, 2])
        cards[:, 3:] = np.take(self.t_bits.reshape(-1), rot, out=sc.t_bits, mode="clip")
        bits = np.unpackbits(cards.view(np.uint8), axis=1, bitorder="little").reshape(B, 3 + n, 64)
        np.copyto(cards_view, bits[:, :, :NUM_CARDS], casting="unsafe")
        np.take(self.counts.reshape(-1), rot, out=sc.counts, mode="clip")
        obs[:, sl["hand_counts"]] = np.take(self._count_tab, sc.counts, out=sc.counts_f, mode="clip")
        obs[:, off["deal"]] = pick(self.deal_no) * self._inv_deals
        obs[:, sl["stones"]] = (
            np.take(self.totals.reshape(-1), rotp, out=sc.totals, mode="clip") * self._inv_stones
        )
        if not all_live:
            obs[~live] = 0.0
