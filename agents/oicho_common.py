"""What the two hand-written Oicho-Kabu players share: reading the observation, the bettor's draw
rule, the threshold dealer, and the dispatch from the observed phase to a decision.

``OichoScriptedAgent`` (rules of thumb) and ``OichoExpertAgent`` (expected value) differ only in how
they bet, how the dealer draws and when the dealer calls minso; everything here is common so that
the two are compared on those decisions alone.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from agents.base import BaseAgent, legal_from_mask
from kabu_envs.oicho_kabu.actions import BET_BASE, Action
from kabu_envs.oicho_kabu.config import Config, make_config
from kabu_envs.oicho_kabu.observation import obs_spec
from kabu_envs.oicho_kabu.rules import best_yaku, draw_options, hand_value
from kabu_envs.oicho_kabu.yaku import voided_by_third

STAND, DRAW, ESCAPE = int(Action.STAND), int(Action.DRAW), int(Action.ESCAPE)
KEEP, REDEAL = int(Action.KEEP), int(Action.REDEAL)
TAKES = {"top": int(Action.TAKE_TOP), "bottom": int(Action.TAKE_BOTTOM), "fourth": int(Action.TAKE_FOURTH)}
# observation phase ids (kabu_envs.oicho_kabu.game.Phase)
MINSO, BET, DEALER_CHOICE, DECIDE, DEALER_DRAW = range(5)
STOOD, DREW, ESCAPED = 0, 1, 2  # index inside a spread_status one-hot

# parameters of the bettor's draw rule and the card choice, shared by both players
COMMON_PARAMS: dict[str, Any] = {"draw_threshold": 5, "pair_draw": False, "escape": True, "take": "top"}


def bettor_decision(cfg: Config, cards: tuple[int, ...], p: dict[str, Any]) -> int:
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


def dealer_threshold_decision(cfg: Config, cards: tuple[int, ...], threshold: int) -> int:
    """A dealer that draws on a value <= ``threshold`` and keeps a two-card yaku a third card voids."""
    stand, draw, _ = draw_options(cfg, cards, "dealer")
    if not draw:
        return STAND
    if not stand:
        return DRAW
    y = best_yaku(cfg, cards, "dealer")
    if y is not None and cfg.yaku[y].rank > 0 and voided_by_third(cfg, y):
        return STAND
    return DRAW if hand_value(cards) <= threshold else STAND


class OichoAgentBase(BaseAgent):
    """Decodes one seat's observation and routes each phase to a decision method.

    Subclasses set ``DEFAULTS`` (their strategy parameters, JSON-able) and implement ``_bet``,
    ``_dealer_draw`` and ``_minso``. Constructor keywords are strategy parameters plus the env's rule
    options (so the agent reads the same observation layout as the env it plays in).
    """

    DEFAULTS: ClassVar[dict[str, Any]] = COMMON_PARAMS

    def __init__(self, seed: int | None = None, **kwargs: Any) -> None:
        strategy = {k: kwargs.pop(k) for k in list(kwargs) if k in self.DEFAULTS}
        self.rule_options = dict(kwargs)
        self.cfg = make_config(**kwargs)  # unknown names raise, naming them
        if strategy.get("take", "top") not in TAKES:
            raise ValueError(f"take={strategy['take']!r}; allowed: {', '.join(TAKES)}")
        self.p = {**self.DEFAULTS, **strategy}
        super().__init__(seed, **strategy, **self.rule_options)
        self.spec = obs_spec(self.cfg)
        self.o = self.spec.offsets
        self.fallbacks = 0  # times the strategy's choice was not in the mask (a bug if ever > 0)

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

    def _active_spread(self, obs: np.ndarray) -> int:
        return int(obs[self.o["active_spread"] : self.o["active_spread"] + 4].argmax())

    def _dealer_hand(self, obs: np.ndarray) -> tuple[list[int], list[bool]]:
        """The dealer's two visible card values and light flags."""
        o = self.o
        values = [self._value(obs, o["dealer_cards"] + k * 10) for k in range(2)]
        return values, [self._light(obs, "dealer_lights", k) for k in range(2)]

    def _stake_to(self, mask: np.ndarray, target: float, at_least_one: bool = False) -> int:
        """The largest allowed stake not above ``target``; when none is, BET(0) — or, with
        ``at_least_one``, the smallest allowed stake (BET(0) only when no stake is allowed)."""
        best = BET_BASE
        for k, size in enumerate(self.cfg.bet_sizes, 1):
            if mask[BET_BASE + k] and (size <= target or (at_least_one and best == BET_BASE)):
                best = BET_BASE + k
        return best

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
            if action_mask[STAND] and action_mask[DRAW]:
                a = self._dealer_draw(obs, action_mask)
            else:  # forced
                a = STAND if action_mask[STAND] else DRAW
        elif phase == MINSO:
            a = self._minso(obs)
        else:
            a = TAKES[self.p["take"]]
        if not action_mask[a]:  # never play an illegal move: count it (tests demand 0) and pick a legal one
            self.fallbacks += 1
            a = int(legal[self.rng.integers(legal.size)])
        return int(a)

    def _decide(self, obs: np.ndarray, mask: np.ndarray) -> int:
        s = self._active_spread(obs)
        values = self._spread(obs, s)[:2]
        if 0 in values:
            return DRAW if mask[DRAW] else STAND
        cards = self._ids(values, [self._light(obs, "spread_lights", s * 3 + k) for k in range(2)])
        return bettor_decision(self.cfg, cards, self.p)

    def _bet(self, obs: np.ndarray, mask: np.ndarray) -> int:
        raise NotImplementedError

    def _dealer_draw(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """STAND or DRAW when both are legal."""
        raise NotImplementedError

    def _minso(self, obs: np.ndarray) -> int:
        raise NotImplementedError
