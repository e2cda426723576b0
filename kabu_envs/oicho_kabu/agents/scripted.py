"""The scripted Oicho-Kabu player: the rules of thumb of a sound table player, no calculation.

The issue's description of the scripted baseline, as parameters (JSON-able, saved with ``save``):

- **Bets** (which spreads and how much, given the first card and the domae). The bettor's fair share of
  the table limit is ``domae / number of bettors``. A spread whose first card can start one of the rule
  set's two-card bettor yaku (standard rules: 1 and 4, shippin) gets ``strong_share`` of that share;
  every other spread gets ``weak_share`` of it (a small stake keeps the player in every spread, as
  people play); each is rounded down to an allowed stake, within the mask's stake room.
- **Bettor draws** (shared with the expert, ``common.py``): stand on a two-card yaku a
  third card would void; ESCAPE a 4-6 when allowed (``escape``); else draw on a value
  <= ``draw_threshold``; a pair of value 8 draws for arashi only when ``pair_draw``.
- **Dealer draw** (a threshold, using what the spreads' draws reveal): draw on a value
  <= ``dealer_threshold``, one higher (``reveal_shift``) when more chips ride on spreads that stood
  than on spreads that drew (a standing spread usually holds 6 or more); keep a two-card yaku that a
  third card would void.
- **Minso**: REDEAL when at least ``minso_starters`` table cards are bettor-yaku starters.
- **Dealer card choice**: always ``take`` (the three are equivalent in expectation).

``act_batch`` makes every one of these decisions for a whole batch in numpy: the bets and minso from
per-value arrays, the dealer's draw from ``threshold_table`` (both thresholds), the stood/drew stakes
summed in the observation's float type in spread order, as ``_dealer_draw`` sums them.

``act_engine`` (``OichoAgentBase``) makes the same decisions from a batch engine's typed decision view
(``engine.decision_view()``; the training VecEnv's opponents: no observation is encoded for their turns);
a bet reads only the active spread's first card there.

``OichoExpertAgent`` (``expert.py``) solves the bets, the dealer's draw and minso by
expected value instead; the gap between the two is reported by ``make demo``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from kabu_envs.agents.base import Capabilities, loadable
from kabu_envs.agents.batching import sequential_sum
from kabu_envs.oicho_kabu.actions import KEEP, REDEAL
from kabu_envs.oicho_kabu.agents.common import (
    COMMON_PARAMS,
    SEEN_VALUE,
    Decoded,
    OichoAgentBase,
    dealer_threshold_decision,
    threshold_table,
)
from kabu_envs.oicho_kabu.config import Config
from kabu_envs.oicho_kabu.decision import DecisionView
from kabu_envs.oicho_kabu.deck import NUM_VALUES, card_id
from kabu_envs.oicho_kabu.game import NUM_SPREADS, Phase
from kabu_envs.oicho_kabu.observation import DREW_BIT, STOOD_BIT
from kabu_envs.oicho_kabu.rules import best_yaku

DEFAULT_PARAMS: dict[str, Any] = {
    **COMMON_PARAMS,
    "strong_share": 0.6,
    "weak_share": 0.12,
    "dealer_threshold": 5,
    "reveal_shift": 1,
    "minso_starters": 2,
}


@lru_cache(maxsize=64)
def yaku_starters(cfg: Config) -> frozenset[int]:
    """First-card values that some second card turns into a bettor yaku of positive rank."""

    out = set()
    for v in range(1, NUM_VALUES + 1):
        for x in range(1, NUM_VALUES + 1):
            y = best_yaku(cfg, (card_id(v, 1), card_id(x, 2 if x == v else 1)), "bettor")
            if y is not None and cfg.yaku[y].rank > 0:
                out.add(v)
    return frozenset(out)


@loadable
class OichoScriptedAgent(OichoAgentBase):
    """Plays any Oicho-Kabu seat by rules of thumb; keywords = strategy parameters + rule options."""

    # saved agent files (BaseAgent.save) written before the class moved into the game's package
    former_names = ("kabu_envs.agents.oicho_scripted.OichoScriptedAgent",)

    name = "oicho_scripted"
    DEFAULTS: ClassVar[dict[str, Any]] = DEFAULT_PARAMS
    capabilities = Capabilities(engine=True)  # (its batched decisions read only what ``act_engine`` builds)

    def __init__(self, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(seed, **kwargs)
        for k in ("strong_share", "weak_share"):
            if not 0.0 <= float(self.p[k]) <= 1.0:
                raise ValueError(f"{k}={self.p[k]!r}: a share of the domae must lie in [0, 1]")
        self.starters = yaku_starters(self.cfg)
        self._fair_share = self.cfg.domae / max(1, self.cfg.num_players - 1)
        # per first-card value 0..10 (0 = unseen): a yaku starter, and the stake a spread gets
        self._is_starter = np.array([v in self.starters for v in range(NUM_VALUES + 1)])
        self._bet_targets = np.array(
            [
                (self.p["strong_share"] if v in self.starters else self.p["weak_share"]) * self._fair_share
                for v in range(NUM_VALUES + 1)
            ]
        )

    def passive_reason(self) -> str | None:
        """Why this agent never bets under its rules (its largest stake target is below the smallest
        bet size), else None. A dealer learner seated among such bettors never gets a turn; the
        single-agent view asks its opponents this so that it can say so at once."""
        largest = float(self._bet_targets.max())
        smallest = min(self.cfg.bet_sizes)
        if largest >= smallest:
            return None
        share = max(self.p["strong_share"], self.p["weak_share"])
        return (
            f"the scripted Oicho-Kabu bettor stakes at most {share:g} x domae {self.cfg.domae} / "
            f"{self.cfg.num_players - 1} bettors = {largest:.3g} chips, less than the smallest bet size "
            f"{smallest}, so it never bets (raise domae, lower bet_sizes, or use other opponents)"
        )

    def _bet(self, obs: np.ndarray, mask: np.ndarray) -> int:
        first = self._spread(obs, self._active_spread(obs))[0]
        share = self.p["strong_share"] if first in self.starters else self.p["weak_share"]
        return self._stake_to(mask, share * self._fair_share)

    def _dealer_draw(self, obs: np.ndarray, mask: np.ndarray) -> int:
        stood = drew = 0.0
        total_stakes = obs[self.sl["total_stakes"]]
        for s in range(NUM_SPREADS):
            stake = float(total_stakes[s])
            status = self._status(obs, s)
            stood += stake * status[STOOD_BIT]
            drew += stake * status[DREW_BIT]
        threshold = self.p["dealer_threshold"] + (self.p["reveal_shift"] if stood > drew else 0)
        values, lights = self._dealer_hand(obs)
        return dealer_threshold_decision(self.cfg, self._ids(values, lights), threshold)

    def _minso(self, obs: np.ndarray) -> int:
        firsts = [self._spread(obs, s)[0] for s in range(NUM_SPREADS)]
        hits = sum(1 for v in firsts if v in self.starters)
        return REDEAL if hits >= self.p["minso_starters"] else KEEP

    def _engine_decision(
        self, view: DecisionView, rows: np.ndarray, phase: int, masks: np.ndarray
    ) -> np.ndarray:
        """A bet reads only the active spread's first card (face up to every seat): ``_bet_batch`` on
        it, without decoding the rest of the table (most opponent turns in training are bets)."""
        if phase != Phase.BET:
            return super()._engine_decision(view, rows, phase, masks)
        first = SEEN_VALUE[view.spreads[rows, np.maximum(view.active[rows], 0), 0]]
        return self._stake_to_batch(masks, self._bet_targets[first])

    # --- batched (``act_batch``) ------------------------------------------------------------------
    def _bet_batch(self, d: Decoded, masks: np.ndarray) -> np.ndarray:
        first = d.values[np.arange(d.phase.size), d.active, 0]
        return self._stake_to_batch(masks, self._bet_targets[first])

    def _dealer_draw_batch(self, d: Decoded, masks: np.ndarray) -> np.ndarray:
        stakes = d.obs[:, self.sl["total_stakes"]]
        stood = sequential_sum(stakes * d.status[:, :, STOOD_BIT], None)
        drew = sequential_sum(stakes * d.status[:, :, DREW_BIT], None)
        base, shift = self.p["dealer_threshold"], self.p["reveal_shift"]
        v, lt = d.dealer_values[:, :2], d.dealer_lights[:, :2].astype(np.int64)
        plain = threshold_table(self.cfg, base)[v[:, 0], v[:, 1], lt[:, 0], lt[:, 1]]
        shifted = threshold_table(self.cfg, base + shift)[v[:, 0], v[:, 1], lt[:, 0], lt[:, 1]]
        out = np.where(stood > drew, shifted, plain)
        return self._scalar_rows(d, masks, out, (v == 0).any(axis=1), self._dealer_draw)

    def _minso_batch(self, d: Decoded, masks: np.ndarray) -> np.ndarray:
        hits = self._is_starter[d.values[:, :, 0]].sum(axis=1)
        return np.where(hits >= self.p["minso_starters"], REDEAL, KEEP)
