"""The expert Oicho-Kabu player: every money decision solved by expected value.

This is the reference ceiling of the suite's baselines (``make_agent("oicho_kabu", "expert")``). It
shares the observation reading and the bettor's draw rule with the rule-of-thumb
``OichoScriptedAgent`` (``agents/oicho_common.py``) and differs where expectation matters:

- **Bets.** A spread's only public fact at betting time is its first card. The agent estimates the
  bettor's edge of each first-card value once per rule set (a seeded Monte Carlo of one spread against a
  threshold dealer, both drawing as this agent would) and backs a spread when its edge is above
  ``min_edge``, staking about ``bet_fraction`` of the domae (more, ``strong_factor`` times, when the edge
  exceeds ``strong_edge``), capped by the stake room the mask allows.
- **Dealer draw.** Expected value of STAND vs DRAW against every backed spread, weighted by its stakes:
  the spread's face-down second card is enumerated over the unseen cards and weighted by how well it
  explains what the decider did (stood, drew: modelled as a player using the shared draw rule); the
  dealer's third card is enumerated over the unseen cards. So a third card on a spread changes the
  dealer's choice.
- **Minso.** REDEAL a table whose first cards are better for the bettors than an average table by more
  than ``minso_margin`` (sum of the edges).
- **Dealer card choice.** TAKE_TOP/BOTTOM/FOURTH are equivalent in expectation (the order of a shuffled
  deck is unknown), so the agent takes ``take`` ("top", "bottom" or "fourth").
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from agents.base import loadable
from agents.oicho_common import COMMON_PARAMS, OichoAgentBase, bettor_decision, dealer_threshold_decision
from kabu_envs.oicho_kabu.actions import BET_BASE, DRAW, ESCAPE, KEEP, REDEAL, STAND
from kabu_envs.oicho_kabu.config import Config
from kabu_envs.oicho_kabu.deck import COPIES, DECK_SIZE, NUM_VALUES, card_id
from kabu_envs.oicho_kabu.game import NUM_SPREADS
from kabu_envs.oicho_kabu.observation import DREW_BIT, ESCAPED_BIT
from kabu_envs.oicho_kabu.rules import draw_options, settle

DEFAULT_PARAMS: dict[str, Any] = {
    **COMMON_PARAMS,
    "min_edge": 0.02,
    "bet_fraction": 0.2,
    "strong_edge": 0.15,
    "strong_factor": 2.0,
    "minso_margin": 0.0,
    "dealer_model_threshold": 5,
    "model_trust": 0.8,
    "edge_samples": 1500,
}


@lru_cache(maxsize=32)
def first_card_edges(cfg: Config, params: tuple[tuple[str, Any], ...]) -> tuple[float, ...]:
    """Bettor's expected result per unit stake for first-card value 1..10 (index 0..9), seeded Monte Carlo."""
    p = dict(params)
    n = int(p["edge_samples"])
    out = []
    for v in range(1, NUM_VALUES + 1):
        rng = np.random.Generator(np.random.PCG64(1000 + v))
        firsts = card_id(v) + rng.integers(0, COPIES, size=n)
        keys = rng.random((n, DECK_SIZE))
        keys[np.arange(n), firsts] = 2.0  # the first card is not in the rest of the deck
        rest = np.argsort(keys, axis=1)[:, :5].tolist()
        total = 0
        for f, (b2, b3, d1, d2, d3) in zip(firsts.tolist(), rest, strict=True):
            bettor: tuple[int, ...] = (f, b2)
            act = bettor_decision(cfg, bettor, p)
            if act == ESCAPE:
                continue
            if act == DRAW:
                bettor = (f, b2, b3)
            dealer: tuple[int, ...] = (d1, d2)
            if dealer_threshold_decision(cfg, dealer, p["dealer_model_threshold"]) == DRAW:
                dealer = (d1, d2, d3)
            total += settle(cfg, dealer, bettor)
        out.append(total / n)
    return tuple(out)


@loadable
class OichoExpertAgent(OichoAgentBase):
    """Plays any Oicho-Kabu seat by expected value; keywords = strategy parameters + rule options."""

    name = "oicho_expert"
    DEFAULTS: ClassVar[dict[str, Any]] = DEFAULT_PARAMS

    def __init__(self, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(seed, **kwargs)
        self._edges = first_card_edges(self.cfg, tuple(sorted(self.p.items())))
        self._mean_edge = float(np.mean(self._edges))

    @property
    def edges(self) -> tuple[float, ...]:
        """Estimated bettor edge per first-card value 1..10."""
        return self._edges

    def _bet(self, obs: np.ndarray, mask: np.ndarray) -> int:
        s = self._active_spread(obs)
        v = self._spread(obs, s)[0]
        edge = self._edges[v - 1] if v else self._mean_edge
        if edge <= self.p["min_edge"]:
            return BET_BASE
        target = self.p["bet_fraction"] * self.cfg.domae
        if edge > self.p["strong_edge"]:
            target *= self.p["strong_factor"]
        return self._stake_to(mask, target, at_least_one=True)

    def _minso(self, obs: np.ndarray) -> int:
        firsts = [self._spread(obs, s)[0] for s in range(NUM_SPREADS)]
        score = sum(self._edges[v - 1] for v in firsts if v)
        return REDEAL if score > NUM_SPREADS * self._mean_edge + self.p["minso_margin"] else KEEP

    def _dealer_draw(self, obs: np.ndarray, mask: np.ndarray) -> int:
        cfg, p = self.cfg, self.p
        dv, dlights = self._dealer_hand(obs)
        dealer = self._ids(dv, dlights)
        unseen = [COPIES] * (NUM_VALUES + 1)  # by value 1..10; index 0 takes an unseen dealer card
        for v in dv:
            unseen[v] -= 1
        spreads = []
        total_stakes = obs[self.sl["total_stakes"]]
        for s in range(NUM_SPREADS):
            vals = self._spread(obs, s)
            for v in vals:
                if v:
                    unseen[v] -= 1
            stake = float(total_stakes[s])
            status = self._status(obs, s)
            if stake > 0 and status[ESCAPED_BIT] < 0.5:
                spreads.append((vals, stake, status[DREW_BIT] > 0.5))
        weights = [max(u, 0) for u in unseen]
        total_w = sum(weights[1:]) or 1
        # hidden second card of each backed spread: candidates weighted by unseen count x plausibility
        cands = []
        for vals, stake, drew in spreads:
            hands, ws = [], []
            for x in range(1, NUM_VALUES + 1):
                if not weights[x]:
                    continue
                two = self._ids([vals[0], x], [False, False])
                stand_ok, draw_ok, _ = draw_options(cfg, two, "bettor")
                if (drew and not draw_ok) or (not drew and not stand_ok):
                    continue
                model = bettor_decision(cfg, two, p)
                fit = p["model_trust"] if (model == DRAW) == drew else 1.0 - p["model_trust"]
                hands.append(self._ids([vals[0], x, vals[2]], [False] * 3) if drew else two)
                ws.append(weights[x] * fit)
            if hands:
                z = sum(ws)
                cands.append((stake, hands, [w / z for w in ws]))

        def value_of(dealer_hand: tuple[int, ...]) -> float:
            return -sum(
                stake * sum(w * settle(cfg, dealer_hand, h) for h, w in zip(hands, ws, strict=True))
                for stake, hands, ws in cands
            )

        ev_stand = value_of(dealer)
        ev_draw = 0.0
        for y in range(1, NUM_VALUES + 1):
            if weights[y]:
                ev_draw += weights[y] / total_w * value_of(self._ids([*dv, y], [*dlights, False]))
        return DRAW if ev_draw > ev_stand else STAND
