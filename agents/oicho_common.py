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
from kabu_envs.oicho_kabu.actions import BET_BASE, DRAW, ESCAPE, STAND, Action
from kabu_envs.oicho_kabu.config import Config, make_config
from kabu_envs.oicho_kabu.deck import COPIES, NUM_VALUES, VALUES, card_id
from kabu_envs.oicho_kabu.game import MAX_CARDS, NUM_SPREADS, Phase
from kabu_envs.oicho_kabu.observation import obs_spec
from kabu_envs.oicho_kabu.rules import best_yaku, draw_options, hand_value
from kabu_envs.oicho_kabu.yaku import voided_by_third

TAKES = {"top": int(Action.TAKE_TOP), "bottom": int(Action.TAKE_BOTTOM), "fourth": int(Action.TAKE_FOURTH)}

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
    if VALUES[cards[0]] == VALUES[cards[1]] and hand_value(cards) == 8:
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
        self.sl = self.spec.slices
        self.fallbacks = 0  # times the strategy's choice was not in the mask (a bug if ever > 0)

    # --- observation decoding ------------------------------------------------------------------
    @staticmethod
    def _value(block: np.ndarray) -> int:
        """The card value of a value one-hot (0 = unseen / not dealt)."""
        return int(block.argmax()) + 1 if block.max() > 0.5 else 0

    def _ids(self, values: list[int], lights: list[bool]) -> tuple[int, ...]:
        """Representative card ids: only values matter, except a hanafuda light (copy 0)."""
        used: dict[int, int] = {}
        out = []
        for v, light in zip(values, lights, strict=True):
            if light:
                out.append(card_id(v))
            else:
                k = used.get(v, 1)
                used[v] = k + 1
                out.append(card_id(v, min(k, COPIES - 1)))
        return tuple(out)

    def _spread(self, obs: np.ndarray, s: int) -> list[int]:
        """Visible values of spread s by position (0 = unseen / not dealt)."""
        cards = obs[self.sl["spread_cards"]].reshape(NUM_SPREADS, MAX_CARDS, NUM_VALUES)[s]
        return [self._value(block) for block in cards]

    def _light(self, obs: np.ndarray, piece: str, i: int) -> bool:
        return piece in self.sl and obs[self.sl[piece]][i] > 0.5

    def _active_spread(self, obs: np.ndarray) -> int:
        return int(obs[self.sl["active_spread"]].argmax())

    def _status(self, obs: np.ndarray, s: int) -> np.ndarray:
        """Spread s's ``spread_status`` bits (index with STOOD_BIT, DREW_BIT, ESCAPED_BIT)."""
        return obs[self.sl["spread_status"]].reshape(NUM_SPREADS, -1)[s]

    def _dealer_hand(self, obs: np.ndarray) -> tuple[list[int], list[bool]]:
        """The dealer's two visible card values and light flags."""
        cards = obs[self.sl["dealer_cards"]].reshape(MAX_CARDS, NUM_VALUES)
        values = [self._value(cards[k]) for k in range(2)]
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
        phase = int(obs[self.sl["phase"]].argmax())
        if phase == Phase.BET:
            a = self._bet(obs, action_mask)
        elif phase == Phase.DECIDE:
            a = self._decide(obs, action_mask)
        elif phase == Phase.DEALER_DRAW:
            if action_mask[STAND] and action_mask[DRAW]:
                a = self._dealer_draw(obs, action_mask)
            else:  # forced
                a = STAND if action_mask[STAND] else DRAW
        elif phase == Phase.MINSO:
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
        cards = self._ids(values, [self._light(obs, "spread_lights", s * MAX_CARDS + k) for k in range(2)])
        return bettor_decision(self.cfg, cards, self.p)

    def _bet(self, obs: np.ndarray, mask: np.ndarray) -> int:
        raise NotImplementedError

    def _dealer_draw(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """STAND or DRAW when both are legal."""
        raise NotImplementedError

    def _minso(self, obs: np.ndarray) -> int:
        raise NotImplementedError
