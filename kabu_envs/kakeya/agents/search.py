"""Perfect-information Kakeya for the expert: positions with every hand known, played out or solved on
the compiled kernel (``kabu_envs/kakeya/kernel/search.py``: the rules are the kernel's, no copy here).

Seats and partnerships are relative to the deciding seat (0 = me, partnership 0 = mine; seat k is in
partnership ``k % (n // 2)``). Hands, captured egara and trick cards are 52-bit ints
(``kabu_envs.kakeya.cards``).

* ``Position``: a deal in progress: hands, captured egara, played cards, voids, the current trick.
* ``Deal``: the deal's fixed facts: trump, Rensho, which partnership dealt, the stones before it.
* ``Search``: loads positions into the kernel's state rows and calls the kernel: ``policy`` (the
  scripted player's rules of thumb from the seat's own view: the play-out policy), ``playout`` (a
  position played to the end with it), ``solve`` (the exact double-dummy value of each candidate card),
  ``card_totals`` (one call for a card decision: every sampled deal x every candidate) and
  ``playout_many``.

The value of a finished deal is the reward the env pays my seat, computed by the kernel's ``end_deal``:
the exact stones (docs/kakeya.md#scoring-a-deal and docs/kakeya.md#matches-and-stones: more egara
wins, the 8-8 rule, the stones table, a partnership pays at most what it has) or, with
``reward="egara"``, the egara difference / 16 (docs/kakeya.md#rewards).

numba is imported (and the kernel compiled, once, cached) when the first ``Search`` is made, not when
this module is imported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType

import numpy as np

from kabu_envs.kakeya.cards import NUM_CARDS, NUM_RANKS
from kabu_envs.kakeya.config import Config


@dataclass
class Position:
    """A deal in progress, every hand known (relative seats; see the module docstring).

    ``order`` is the current trick's seats in play order and ``pos`` the index of the seat to play;
    ``trick`` holds the cards already played to it, in that order.
    """

    hands: list[int]
    captured: list[int]  # per relative partnership: egara taken
    played: int
    voids: list[int]  # per seat: 4-bit mask of the suits it has shown out of (the policy's lead reads it)
    order: list[int]
    trick: list[int] = field(default_factory=list)

    @property
    def pos(self) -> int:
        return len(self.trick)


@dataclass(frozen=True)
class Deal:
    """A deal's fixed facts in relative partnerships: the dealers' partnership (it sits out with
    ``dealers_sit_out``), each partnership's stones before the deal (it pays at most those) and the
    absolute partnership of relative partnership 0 (``tie_base``: the scoring breaks ties between
    partnerships in absolute order; 0 scores as if the relative order were the absolute one)."""

    trump: int
    rensho: int
    dealers: int
    stones: tuple[int, ...]
    tie_base: int = 0


def trick_order(leader: int, hands: list[int]) -> list[int]:
    """Seats that play a trick led by ``leader``: every seat holding a card, in seat order."""
    n = len(hands)
    return [s for s in ((leader + k) % n for k in range(n)) if hands[s]]


class Search:
    """The kernel's search for one rule set (``cfg``): state rows, the options (one deal per row) and a
    transposition table of ``2 ** table_bits`` entries, reused across decisions."""

    TEMPLATE = 0  # the position as the deciding seat sees it; rows 1.. work (the solver: one per ply)

    def __init__(self, cfg: Config, rensho_min_egara: int = 2, table_bits: int = 16) -> None:
        from kabu_envs.kakeya import kernel  # numba: only when a search is made

        self._k: ModuleType = kernel
        kernel.prepare((kernel.rules, kernel.search))
        self.cfg = cfg
        self.n, self.m = cfg.num_players, cfg.num_partnerships
        self.rmin = int(rensho_min_egara)
        self.opts = kernel.options(cfg)
        self.opts[kernel.spec.O_MAX_DEALS] = 1  # a row's deal ends its match: end_deal pays and stops
        self._rows = 0
        self._grow(NUM_CARDS + 8)
        size = 1 << table_bits
        self.keys = np.zeros((size, kernel.search.KEY_WORDS), dtype=np.uint64)
        self.bounds = np.zeros((size, 2), dtype=np.float64)
        self.stamps = np.zeros(size, dtype=np.int64)
        self._stamp = 0

    def _grow(self, rows: int) -> None:
        if rows <= self._rows:
            return
        self.state = self._k.make_state(rows, self.cfg)  # (named: rows are loaded by name)
        self.st = tuple(self.state)  # (what the kernel's entry points take: kernel.spec.Fields)
        self.rewards = np.zeros((rows, self.n), dtype=np.float64)
        self.over = np.zeros(rows, dtype=np.bool_)
        self._rows = rows

    # --- rows ------------------------------------------------------------------------------------
    def load(self, b: int, pos: Position, deal: Deal, counts: Sequence[int] | None = None) -> None:
        """Row ``b`` := ``pos`` of ``deal``; ``counts`` are the hand sizes when ``pos.hands`` leaves
        out the hands the seat cannot see (default: the hands' sizes)."""
        spec = self._k.spec
        st, m = self.state, self.m
        g = st.g[b]
        g[:] = 0
        g[spec.PHASE] = spec.PLAY_PHASE
        g[spec.TRUMP], g[spec.RENSHO] = deal.trump, deal.rensho
        g[spec.DEALER_P], g[spec.LEAD_P] = deal.dealers, -1
        g[spec.TIE_BASE] = deal.tie_base
        g[spec.T_LEADER], g[spec.T_LEN], g[spec.T_NUM] = pos.order[0], len(pos.order), len(pos.trick)
        g[spec.T_LED] = pos.trick[0] // NUM_RANKS if pos.trick else -1
        st.current_player[b] = pos.order[len(pos.trick)]
        st.stones[b] = 0
        st.stones[b, :m] = deal.stones
        st.counts[b] = [h.bit_count() for h in pos.hands] if counts is None else counts
        st.voids[b] = pos.voids
        st.t_card[b] = -1
        st.t_bits[b] = 0
        for s, c in zip(pos.order, pos.trick, strict=False):
            st.t_card[b, s] = c
            st.t_bits[b, s] = 1 << c
        st.hands[b] = pos.hands
        st.played[b] = pos.played
        st.captured[b] = pos.captured
        self.rewards[b] = 0.0
        self.over[b] = False

    # --- the kernel's calls ----------------------------------------------------------------------------
    def policy(self, pos: Position, deal: Deal, counts: Sequence[int] | None = None) -> int:
        """The card the seat to play chooses by the scripted rules of thumb, from its own view."""
        self.load(self.TEMPLATE, pos, deal, counts)
        return int(self._k.search.policy_row(self.TEMPLATE, self.rmin, self.st, self.opts))

    def playout(self, pos: Position, deal: Deal) -> float:
        """``pos`` played to the end with the policy: my partnership's value."""
        return float(self.playout_many([(pos, deal)])[0])

    def playout_many(self, rows: Sequence[tuple[Position, Deal]]) -> np.ndarray:
        """Each (position, deal) played to the end with the policy, in one kernel call."""
        self._grow(len(rows))
        for b, (pos, deal) in enumerate(rows):
            self.load(b, pos, deal)
        out = np.zeros(len(rows), dtype=np.float64)
        index = np.arange(len(rows), dtype=np.int64)
        self._k.search.playout_rows(index, self.rmin, self.st, self.opts, self.rewards, self.over, out)
        return out

    def card_totals(
        self,
        seen: Position,
        counts: Sequence[int],
        deal: Deal,
        others: np.ndarray,
        cards: Sequence[int],
        exact: bool,
        totals: np.ndarray,
    ) -> np.ndarray:
        """Add to ``totals[i]`` the value of candidate ``cards[i]`` on each sampled deal (``others[k]``:
        the hands by relative seat; seat 0's is ``seen``'s), in sample order; returns the
        (samples, cards) values. ``exact``: the solver, else play-outs."""
        self.load(self.TEMPLATE, seen, deal, counts)
        out = np.zeros((len(others), len(cards)), dtype=np.float64)
        self._stamp += 1
        self._k.search.evaluate_cards(
            self.TEMPLATE,
            others,
            np.asarray(cards, dtype=np.int64),
            exact,
            self.rmin,
            self.st,
            self.opts,
            self.rewards,
            self.over,
            self.keys,
            self.bounds,
            self.stamps,
            self._stamp,
            out,
            totals,
        )
        return out

    def solve(self, pos: Position, deal: Deal, cards: Sequence[int]) -> list[float]:
        """The exact value of playing each candidate card (legal for the seat to play) in ``pos`` when
        every seat then plays perfectly on the known hands."""
        others = np.array([pos.hands], dtype=np.uint64)
        totals = np.zeros(len(cards), dtype=np.float64)
        counts = [h.bit_count() for h in pos.hands]
        return [float(v) for v in self.card_totals(pos, counts, deal, others, cards, True, totals)[0]]

    def hands_array(self, samples: Sequence[dict[int, int]]) -> np.ndarray:
        """Sampled deals (seat -> hand, the sampler's form) as the kernel's (samples, n) array."""
        out = np.zeros((len(samples), self.n), dtype=np.uint64)
        for k, hands in enumerate(samples):
            for s, h in hands.items():
                out[k, s] = h
        return out
