"""A scripted Oicho-Kabu player for any seat and every decision, reading only its own observation.

Strategy (all numbers are parameters, JSON-able, saved with ``save``):

- **Bets.** A spread's only public fact at betting time is its first card. The agent estimates the
  bettor's edge of each first-card value once per rule set (a seeded Monte Carlo of one spread against a
  threshold dealer, both drawing as this agent would) and backs a spread when its edge is above
  ``min_edge``, staking about ``bet_fraction`` of the domae (more, ``strong_factor`` times, when the edge
  exceeds ``strong_edge``), capped by the stake room the mask allows.
- **Bettor draws.** Stand on a two-card yaku a third card would void; ESCAPE a 4-6 when allowed
  (``escape``); else draw on a value <= ``draw_threshold``; a pair of value 8 draws for arashi only when
  ``pair_draw``.
- **Dealer draw.** Expected value of STAND vs DRAW against every backed spread, weighted by its stakes:
  the spread's face-down second card is enumerated over the unseen cards and weighted by how well it
  explains what the decider did (stood, drew: modelled as a player using this same rule); the dealer's
  third card is enumerated over the unseen cards. So a third card on a spread changes the dealer's choice.
- **Minso.** REDEAL a table whose first cards are better for the bettors than an average table by more
  than ``minso_margin`` (sum of the edges).
- **Dealer card choice.** TAKE_TOP/BOTTOM/FOURTH are equivalent in expectation (the order of a shuffled
  deck is unknown), so the agent takes ``take`` ("top", "bottom" or "fourth").
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from agents.base import BaseAgent, legal_from_mask
from kabu_envs.oicho_kabu.actions import BET_BASE, Action
from kabu_envs.oicho_kabu.config import OichoConfig, make_config
from kabu_envs.oicho_kabu.observation import obs_spec
from kabu_envs.oicho_kabu.rules import best_yaku, draw_options, hand_value, settle
from kabu_envs.oicho_kabu.yaku import voided_by_third

STAND, DRAW, ESCAPE = int(Action.STAND), int(Action.DRAW), int(Action.ESCAPE)
KEEP, REDEAL = int(Action.KEEP), int(Action.REDEAL)
TAKES = {"top": int(Action.TAKE_TOP), "bottom": int(Action.TAKE_BOTTOM), "fourth": int(Action.TAKE_FOURTH)}
# observation phase ids (kabu_envs.oicho_kabu.game.Phase)
MINSO, BET, DEALER_CHOICE, DECIDE, DEALER_DRAW = range(5)
STOOD, DREW, ESCAPED = 0, 1, 2  # index inside a spread_status one-hot

DEFAULT_PARAMS: dict[str, Any] = {
    "draw_threshold": 5,
    "pair_draw": False,
    "escape": True,
    "min_edge": 0.02,
    "bet_fraction": 0.2,
    "strong_edge": 0.15,
    "strong_factor": 2.0,
    "minso_margin": 0.0,
    "dealer_model_threshold": 5,
    "model_trust": 0.8,
    "take": "top",
    "edge_samples": 1500,
}


def bettor_decision(cfg: OichoConfig, cards: tuple[int, ...], p: dict[str, Any]) -> int:
    """STAND / DRAW / ESCAPE for a bettor's two-card spread (always a legal choice)."""
    stand, draw, escape = draw_options(cfg, cards, "bettor")
    if not draw and not escape:
        return STAND
    y = best_yaku(cfg, cards, "bettor")
    if stand and y is not None and cfg.yaku[y].rank > 0 and voided_by_third(cfg, y):
        return STAND
    if escape and p["escape"]:
        return ESCAPE
    if not stand or not draw:
        return DRAW if draw else STAND
    a, b = cards[0] // 4, cards[1] // 4
    if a == b and hand_value(cards) == 8:
        return DRAW if p["pair_draw"] else STAND
    return DRAW if hand_value(cards) <= p["draw_threshold"] else STAND


def _dealer_threshold_decision(cfg: OichoConfig, cards: tuple[int, ...], threshold: int) -> int:
    """The simple dealer used as a model inside the edge estimate."""
    stand, draw, _ = draw_options(cfg, cards, "dealer")
    if not draw:
        return STAND
    if not stand:
        return DRAW
    y = best_yaku(cfg, cards, "dealer")
    if y is not None and cfg.yaku[y].rank > 0 and voided_by_third(cfg, y):
        return STAND
    return DRAW if hand_value(cards) <= threshold else STAND


@lru_cache(maxsize=32)
def first_card_edges(cfg: OichoConfig, params: tuple[tuple[str, Any], ...]) -> tuple[float, ...]:
    """Bettor's expected result per unit stake for first-card value 1..10 (index 0..9), seeded Monte Carlo."""
    p = dict(params)
    n = int(p["edge_samples"])
    out = []
    for v in range(1, 11):
        rng = np.random.Generator(np.random.PCG64(1000 + v))
        firsts = (v - 1) * 4 + rng.integers(0, 4, size=n)
        keys = rng.random((n, 40))
        keys[np.arange(n), firsts] = 2.0  # the first card is not in the rest of the deck
        rest = np.argsort(keys, axis=1)[:, :5].tolist()
        total = 0
        for f, (b2, b3, d1, d2, d3) in zip(firsts.tolist(), rest, strict=True):
            bettor = (f, b2)
            act = bettor_decision(cfg, bettor, p)
            if act == ESCAPE:
                continue
            if act == DRAW:
                bettor = (f, b2, b3)
            dealer = (d1, d2)
            if _dealer_threshold_decision(cfg, dealer, p["dealer_model_threshold"]) == DRAW:
                dealer = (d1, d2, d3)
            total += settle(cfg, dealer, bettor)
        out.append(total / n)
    return tuple(out)


class OichoScriptedAgent(BaseAgent):
    """Plays any Oicho-Kabu seat; constructor keywords = strategy parameters + the env's rule options."""

    name = "oicho_scripted"

    def __init__(self, seed: int | None = None, **kwargs: Any) -> None:
        strategy = {k: kwargs.pop(k) for k in list(kwargs) if k in DEFAULT_PARAMS}
        self.rule_options = dict(kwargs)
        self.cfg = cfg = make_config(**kwargs)  # unknown names raise, naming them
        if strategy.get("take", "top") not in TAKES:
            raise ValueError(f"take={strategy['take']!r}; allowed: {', '.join(TAKES)}")
        self.p = {**DEFAULT_PARAMS, **strategy}
        super().__init__(seed, **strategy, **self.rule_options)
        self.spec = obs_spec(cfg)
        self.o = self.spec.offsets
        self._edges = first_card_edges(cfg, tuple(sorted(self.p.items())))
        self._mean_edge = float(np.mean(self._edges))
        self.fallbacks = 0  # times the strategy's choice was not in the mask (a bug if ever > 0)

    @property
    def edges(self) -> tuple[float, ...]:
        """Estimated bettor edge per first-card value 1..10."""
        return self._edges

    # --- observation decoding ------------------------------------------------------------------
    def _value(self, obs: np.ndarray, at: int) -> int:
        block = obs[at : at + 10]
        return int(block.argmax()) + 1 if block.max() > 0.5 else 0

    def _ids(self, values: list[int], lights: list[bool]) -> tuple[int, ...]:
        """Representative card ids: only values matter, except a hanafuda light (copy 0)."""
        used: dict[int, int] = {}
        out = []
        for v, light in zip(values, lights, strict=True):
            if light:
                out.append((v - 1) * 4)
            else:
                k = used.get(v, 1)
                used[v] = k + 1
                out.append((v - 1) * 4 + min(k, 3))
        return tuple(out)

    def _spread(self, obs: np.ndarray, s: int) -> list[int]:
        """Visible values of spread s by position (0 = unseen / not dealt)."""
        base = self.o["spread_cards"] + s * 30
        return [self._value(obs, base + k * 10) for k in range(3)]

    def _light(self, obs: np.ndarray, piece: str, i: int) -> bool:
        return piece in self.o and obs[self.o[piece] + i] > 0.5

    # --- decisions --------------------------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = legal_from_mask(action_mask)
        obs = np.asarray(observation)
        phase = int(obs[self.o["phase"] : self.o["phase"] + 6].argmax())
        if phase == BET:
            a = self._bet(obs, action_mask)
        elif phase == DECIDE:
            a = self._decide(obs, action_mask)
        elif phase == DEALER_DRAW:
            a = self._dealer_draw(obs, action_mask)
        elif phase == MINSO:
            a = self._minso(obs)
        else:
            a = TAKES[self.p["take"]]
        if not action_mask[a]:  # never play an illegal move: count it (tests demand 0) and pick a legal one
            self.fallbacks += 1
            a = int(legal[self.rng.integers(legal.size)])
        return int(a)

    def _bet(self, obs: np.ndarray, mask: np.ndarray) -> int:
        s = int(obs[self.o["active_spread"] : self.o["active_spread"] + 4].argmax())
        v = self._spread(obs, s)[0]
        edge = self._edges[v - 1] if v else self._mean_edge
        if edge <= self.p["min_edge"]:
            return BET_BASE
        target = self.p["bet_fraction"] * self.cfg.domae
        if edge > self.p["strong_edge"]:
            target *= self.p["strong_factor"]
        best = BET_BASE
        for k, size in enumerate(self.cfg.bet_sizes, 1):
            if mask[BET_BASE + k] and (size <= target or best == BET_BASE):
                best = BET_BASE + k
        return best

    def _decide(self, obs: np.ndarray, mask: np.ndarray) -> int:
        s = int(obs[self.o["active_spread"] : self.o["active_spread"] + 4].argmax())
        values = self._spread(obs, s)[:2]
        if 0 in values:
            return DRAW if mask[DRAW] else STAND
        cards = self._ids(values, [self._light(obs, "spread_lights", s * 3 + k) for k in range(2)])
        return bettor_decision(self.cfg, cards, self.p)

    def _minso(self, obs: np.ndarray) -> int:
        firsts = [self._spread(obs, s)[0] for s in range(4)]
        score = sum(self._edges[v - 1] for v in firsts if v)
        return REDEAL if score > 4 * self._mean_edge + self.p["minso_margin"] else KEEP

    def _dealer_draw(self, obs: np.ndarray, mask: np.ndarray) -> int:
        if not (mask[STAND] and mask[DRAW]):
            return STAND if mask[STAND] else DRAW
        cfg, o, p = self.cfg, self.o, self.p
        dv = [self._value(obs, o["dealer_cards"] + k * 10) for k in range(2)]
        dlights = [self._light(obs, "dealer_lights", k) for k in range(2)]
        dealer = self._ids(dv, dlights)
        unseen = [4] * 11
        for v in dv:
            unseen[v] -= 1
        spreads = []
        for s in range(4):
            vals = self._spread(obs, s)
            for v in vals:
                if v:
                    unseen[v] -= 1
            stake = float(obs[o["total_stakes"] + s])
            status = obs[o["spread_status"] + s * 3 : o["spread_status"] + s * 3 + 3]
            if stake > 0 and status[ESCAPED] < 0.5:
                spreads.append((vals, stake, status[DREW] > 0.5))
        weights = [max(u, 0) for u in unseen]
        total_w = sum(weights[1:]) or 1
        # hidden second card of each backed spread: candidates weighted by unseen count x plausibility
        cands = []
        for vals, stake, drew in spreads:
            hands, ws = [], []
            for x in range(1, 11):
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
        for y in range(1, 11):
            if weights[y]:
                ev_draw += weights[y] / total_w * value_of(self._ids([*dv, y], [*dlights, False]))
        return DRAW if ev_draw > ev_stand else STAND
