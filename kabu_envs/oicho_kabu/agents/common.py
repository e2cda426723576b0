"""What the two hand-written Oicho-Kabu players share: reading the observation, the bettor's draw
rule, the threshold dealer, and the dispatch from the observed phase to a decision.

``OichoScriptedAgent`` (rules of thumb) and ``OichoExpertAgent`` (expected value) differ only in how
they bet, how the dealer draws and when the dealer calls minso; everything here is common so that
the two are compared on those decisions alone.

Both also act on a batch (``act_batch``, the batched-agent protocol of ``agents/batching.py``): the
observations are decoded once into arrays (``Decoded``; the card values of exact one-hot blocks, as the
env writes them, by one matrix product, any other input by the scalar code's argmax), and the two-card
decisions, which depend on nothing but the visible values and light flags, are read from tables the
scalar rules fill once per rule set (``decide_table``, ``threshold_table``: lru-cached on the frozen
``Config``). A row outside a table (a card the seat cannot see where the rule needs it) goes to the
scalar method, so it returns or raises exactly what ``act`` would.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from kabu_envs.agents.base import BaseAgent, Capabilities, legal_from_mask
from kabu_envs.agents.batching import check_batch, check_rngs, replace_illegal, require_legal
from kabu_envs.oicho_kabu.actions import BET_BASE, DRAW, ESCAPE, STAND, Action
from kabu_envs.oicho_kabu.batch import OichoKabuBatch
from kabu_envs.oicho_kabu.config import Config, make_config
from kabu_envs.oicho_kabu.decision import DecisionView
from kabu_envs.oicho_kabu.deck import COPIES, DECK_SIZE, LIGHT_CARDS, NUM_VALUES, VALUES, card_id
from kabu_envs.oicho_kabu.game import DREW, MAX_CARDS, NUM_SPREADS, UNDECIDED, Phase
from kabu_envs.oicho_kabu.observation import NUM_STATUS, obs_spec
from kabu_envs.oicho_kabu.rules import best_yaku, draw_options, hand_value
from kabu_envs.oicho_kabu.yaku import voided_by_third

TAKES = {"top": int(Action.TAKE_TOP), "bottom": int(Action.TAKE_BOTTOM), "fourth": int(Action.TAKE_FOURTH)}

# card id -> the value the observation's one-hot shows (the encoder's block index id >> 2, plus one);
# the last entry (read at a card slot's -1) -> 0, not dealt
SEEN_VALUE = np.append(np.arange(DECK_SIZE) // COPIES + 1, 0)
_LIGHT = np.append(np.isin(np.arange(DECK_SIZE), sorted(LIGHT_CARDS)), False)  # same indexing
# spread state -> its ``spread_status`` bits as the observation holds them (bit state - 1; none if UNDECIDED)
_STATUS_BITS = np.eye(NUM_STATUS + 1, dtype=np.float32)[:, 1:]

# parameters of the bettor's draw rule and the card choice, shared by both players
COMMON_PARAMS: dict[str, Any] = {"draw_threshold": 5, "pair_draw": False, "escape": True, "take": "top"}


def representative_ids(values: Sequence[int], lights: Sequence[bool]) -> tuple[int, ...]:
    """Card ids standing for visible values: only values matter, except a hanafuda light (copy 0)."""
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


def _two_card_table(rule: Callable[[tuple[int, ...]], int]) -> np.ndarray:
    """``rule(ids)`` for every two visible cards: ``[v0, v1, light0, light1]`` (values 1..10; the
    value-0 entries, an unseen card, are -1: callers send those rows to the scalar method)."""
    out = np.full((NUM_VALUES + 1, NUM_VALUES + 1, 2, 2), -1, dtype=np.int64)
    for v0 in range(1, NUM_VALUES + 1):
        for v1 in range(1, NUM_VALUES + 1):
            for l0 in (False, True):
                for l1 in (False, True):
                    out[v0, v1, int(l0), int(l1)] = rule(representative_ids([v0, v1], [l0, l1]))
    out.flags.writeable = False
    return out


# what ``bettor_decision`` reads of the strategy parameters (the cache key of its table)
BETTOR_KEYS = ("draw_threshold", "pair_draw", "escape")


@lru_cache(maxsize=64)
def decide_table(cfg: Config, params: tuple[tuple[str, Any], ...]) -> np.ndarray:
    """``bettor_decision`` for every two-card spread (see ``_two_card_table``)."""
    p = dict(params)
    return _two_card_table(lambda cards: bettor_decision(cfg, cards, p))


@lru_cache(maxsize=64)
def threshold_table(cfg: Config, threshold: int) -> np.ndarray:
    """``dealer_threshold_decision`` for every two-card dealer hand (see ``_two_card_table``)."""
    return _two_card_table(lambda cards: dealer_threshold_decision(cfg, cards, threshold))


@lru_cache(maxsize=64)
def dealer_mask_tables(cfg: Config) -> tuple[np.ndarray, np.ndarray]:
    """``[v0, v1]`` (values 1..10, no lights): may the dealer stand, may it draw on this two-card hand."""
    stand = np.zeros((NUM_VALUES + 1, NUM_VALUES + 1), dtype=bool)
    draw = np.zeros_like(stand)
    for v0 in range(1, NUM_VALUES + 1):
        for v1 in range(1, NUM_VALUES + 1):
            stand[v0, v1], draw[v0, v1], _ = draw_options(
                cfg, representative_ids([v0, v1], [False, False]), "dealer"
            )
    stand.flags.writeable = draw.flags.writeable = False
    return stand, draw


@dataclass(frozen=True)
class Decoded:
    """A batch of observations read once: the values the decisions look at, as arrays.

    Values are 1..10, 0 for a card not seen (or not dealt), as ``OichoAgentBase._value`` reads them.
    """

    obs: np.ndarray  # (B, obs) as given
    phase: np.ndarray  # (B,)
    active: np.ndarray  # (B,) the active spread
    values: np.ndarray  # (B, NUM_SPREADS, MAX_CARDS)
    lights: np.ndarray  # (B, NUM_SPREADS, MAX_CARDS) bool
    dealer_values: np.ndarray  # (B, MAX_CARDS)
    dealer_lights: np.ndarray  # (B, MAX_CARDS) bool
    status: np.ndarray  # (B, NUM_SPREADS, 3) spread_status bits, the observation's float type

    def take(self, rows: np.ndarray) -> Decoded:
        """The rows ``rows`` (increasing indices); all of them: this same record, not a copy."""
        if rows.size == self.phase.size:
            return self
        return Decoded(*(getattr(self, f)[rows] for f in self.__dataclass_fields__))


class OichoAgentBase(BaseAgent):
    """Decodes one seat's observation and routes each phase to a decision method.

    Subclasses set ``DEFAULTS`` (their strategy parameters, JSON-able) and implement ``_bet``,
    ``_dealer_draw`` and ``_minso``. Constructor keywords are strategy parameters plus the env's rule
    options (so the agent reads the same observation layout as the env it plays in).
    """

    DEFAULTS: ClassVar[dict[str, Any]] = COMMON_PARAMS
    # the batched decisions read nothing of ``Decoded.obs`` but ``total_stakes`` (and the scalar methods
    # only for a dealer that does not see its two cards): ``act_engine`` may build the ``Decoded`` from
    # the engine's state instead of an observation
    capabilities = Capabilities(engine=False)  # (a subclass whose decisions act_engine builds: True)

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
        self._bet_size_array = np.array(self.cfg.bet_sizes)
        self.fallbacks = 0  # times the strategy's choice was not in the mask (a bug if ever > 0)

    # --- observation decoding ------------------------------------------------------------------
    @staticmethod
    def _value(block: np.ndarray) -> int:
        """The card value of a value one-hot (0 = unseen / not dealt)."""
        return int(block.argmax()) + 1 if block.max() > 0.5 else 0

    def _ids(self, values: list[int], lights: list[bool]) -> tuple[int, ...]:
        """Representative card ids: only values matter, except a hanafuda light (copy 0)."""
        return representative_ids(values, lights)

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

    # --- what a planner asks of this policy (kabu_envs.oicho_kabu.agents.best_response) -----------------
    def draw_rule_table(self) -> np.ndarray:
        """``[first value, second value]`` (1..10) -> this player's STAND / DRAW / ESCAPE on such a
        two-card spread: the whole draw rule, which looks at the spread's two cards only."""
        return decide_table(self.cfg, tuple((k, self.p[k]) for k in BETTOR_KEYS))[:, :, 0, 0]

    def dealer_draw_model(
        self,
        dealer_values: np.ndarray,
        first: np.ndarray,
        third: np.ndarray,
        status: np.ndarray,
        total_stakes: np.ndarray,
        second: np.ndarray | None = None,
    ) -> np.ndarray:
        """The dealer's STAND / DRAW at its draw decision for many hypothetical tables given as arrays
        (no lights): ``dealer_values`` (n, 2), each spread's ``first`` and drawn ``third`` value (n, 4;
        0 = none), its ``status`` (n, 4; ``game.UNDECIDED .. ESCAPED``) and the chips on it
        (``total_stakes``, n, 4). With ``unbacked_spread_card`` every unbacked spread lies turned up:
        its ``second`` value (n, 4; read for unbacked spreads only) and its dealt card (in ``third``) are
        seen, and the dealer's choice counts them out of the unseen cards. Row i is ``act`` on the
        dealer's observation of that table (forced choices included): the arrays are those ``act_batch``
        decodes from such an observation, the stakes in the encoder's float32 (tested against real
        observations)."""
        dv = np.asarray(dealer_values, dtype=np.int64)
        stand_ok, draw_ok = dealer_mask_tables(self.cfg)
        can_stand, can_draw = stand_ok[dv[:, 0], dv[:, 1]], draw_ok[dv[:, 0], dv[:, 1]]
        out = np.where(can_stand, STAND, DRAW).astype(np.int64)
        rows = np.flatnonzero(can_stand & can_draw)
        if rows.size == 0:
            return out
        m = rows.size
        f, t, st = np.asarray(first)[rows], np.asarray(third)[rows], np.asarray(status)[rows]
        if ((f == 0) & (st != UNDECIDED)).any() or ((t == 0) & (st == DREW)).any():
            raise ValueError("a decided spread needs its first card, a spread that drew its third card")
        # the Decoded that ``_decode`` makes of such an observation, built directly (no one-hot round trip)
        values = np.zeros((m, NUM_SPREADS, MAX_CARDS), dtype=np.int64)
        values[:, :, 0], values[:, :, 2] = f, np.where(st == DREW, t, 0)
        if self.cfg.unbacked_spread_card:  # the unbacked spreads, turned up: both their cards seen
            turned = np.asarray(total_stakes)[rows] == 0
            sec = np.zeros_like(t) if second is None else np.asarray(second)[rows]
            if (turned & ((sec == 0) | (t == 0))).any():
                raise ValueError(
                    "unbacked_spread_card: an unbacked spread is turned up and dealt a card before the "
                    "dealer's draw; give its second value and its dealt card (third)"
                )
            values[:, :, 1] = np.where(turned, sec, 0)
            values[:, :, 2] = np.where(turned, t, values[:, :, 2])
        dealer = np.zeros((m, MAX_CARDS), dtype=np.int64)
        dealer[:, :2] = dv[rows]
        obs = np.zeros((m, self.spec.size), dtype=np.float32)
        obs[:, self.sl["total_stakes"]] = (np.asarray(total_stakes)[rows] * (1.0 / self.cfg.domae)).astype(
            np.float32
        )
        d = Decoded(
            obs=obs,
            phase=np.full(m, int(Phase.DEALER_DRAW)),
            active=np.zeros(m, dtype=np.int64),
            values=values,
            lights=np.zeros(values.shape, dtype=bool),
            dealer_values=dealer,
            dealer_lights=np.zeros(dealer.shape, dtype=bool),
            status=(st[:, :, None] == np.arange(1, 4)).astype(np.float32),  # bit state - 1
        )
        masks = np.zeros((m, BET_BASE + len(self.cfg.bet_sizes) + 1), dtype=bool)
        masks[:, STAND] = masks[:, DRAW] = True
        out[rows] = self._dealer_draw_batch(d, masks)
        return out

    # --- batched decisions (the protocol of agents/batching.py) ---------------------------------
    def act_batch(
        self,
        observations: np.ndarray,
        action_masks: np.ndarray,
        rngs: Sequence[np.random.Generator] | None = None,
    ) -> np.ndarray:
        """``act`` on every row of ``(B, obs)``, ``(B, A)``: ``(B,)`` int64, the same actions, the same
        ``fallbacks`` count and the same draws from ``rngs[i]`` (or ``self.rng``) as ``act`` row by row."""
        obs, masks = check_batch(observations, action_masks, self.spec.size)
        check_rngs(rngs, obs.shape[0])
        require_legal(masks)
        d = self._decode(obs)
        actions = np.full(obs.shape[0], TAKES[self.p["take"]], dtype=np.int64)
        steps: tuple[tuple[int, Callable[[Decoded, np.ndarray], np.ndarray]], ...] = (
            (Phase.BET, self._bet_batch),
            (Phase.DECIDE, self._decide_batch),
            (Phase.MINSO, self._minso_batch),
        )
        present = np.bincount(d.phase, minlength=len(Phase))  # (only the phases met cost numpy calls)
        for phase, decide in steps:
            if present[phase]:
                rows = np.flatnonzero(d.phase == phase)
                actions[rows] = decide(d.take(rows), masks[rows])
        if present[Phase.DEALER_DRAW]:
            dealer = d.phase == Phase.DEALER_DRAW
            choice = dealer & masks[:, STAND] & masks[:, DRAW]
            forced = np.flatnonzero(dealer & ~choice)
            actions[forced] = np.where(masks[forced, STAND], STAND, DRAW)
            rows = np.flatnonzero(choice)
            if rows.size:
                actions[rows] = self._dealer_draw_batch(d.take(rows), masks[rows])
        self.fallbacks += replace_illegal(actions, masks, rngs, self.rng)
        return actions

    # --- acting from the engine's state (``agents.base.Capabilities.engine``) ---------------------
    def acts_on_engine(self, engine: Any) -> bool:
        """The vectorised Oicho-Kabu engine of this agent's own rule set (the layout it decodes)."""
        return self.capabilities.engine and isinstance(engine, OichoKabuBatch) and engine.config == self.cfg

    def act_engine(
        self, engine: OichoKabuBatch, rows: np.ndarray, rngs: Sequence[np.random.Generator] | None = None
    ) -> np.ndarray:
        """``act_batch(engine.observation[rows], engine.legal_action_mask[rows], rngs)``, the same
        actions, draws and ``fallbacks``, with the ``Decoded`` read from the engine's typed decision view
        (``engine.decision_view()``): what the current player of each game sees, as the encoder shows it.
        Why: an opponent's turn in the training
        VecEnv then encodes no observation (the engine encodes them only when read). A dealer that does
        not see its two cards (the scalar method's rows) takes ``act_batch`` on the observation."""
        rows = np.asarray(rows, dtype=np.int64)
        view = engine.decision_view()
        masks = view.legal_action_mask[rows]
        check_rngs(rngs, rows.size)
        require_legal(masks)
        phase = view.phase[rows]
        present = np.bincount(phase, minlength=len(Phase))
        if present[Phase.DEALER_DRAW]:
            dealer = phase == Phase.DEALER_DRAW
            choice = np.flatnonzero(dealer & masks[:, STAND] & masks[:, DRAW])
            if choice.size and not self._dealer_sees(view, rows[choice]).all():
                return self.act_batch(engine.observation[rows], masks, rngs)
        actions = np.full(rows.size, TAKES[self.p["take"]], dtype=np.int64)
        for p in (Phase.BET, Phase.DECIDE, Phase.MINSO):
            if present[p] == rows.size:  # (one phase everywhere, the common case: no gathers)
                actions = self._engine_decision(view, rows, p, masks)
            elif present[p]:
                at = np.flatnonzero(phase == p)
                actions[at] = self._engine_decision(view, rows[at], p, masks[at])
        if present[Phase.DEALER_DRAW]:
            forced = np.flatnonzero(dealer & ~(masks[:, STAND] & masks[:, DRAW]))
            actions[forced] = np.where(masks[forced, STAND], STAND, DRAW)
            if choice.size:
                d = self._decode_engine(view, rows[choice], Phase.DEALER_DRAW)
                actions[choice] = self._dealer_draw_batch(d, masks[choice])
        self.fallbacks += replace_illegal(actions, masks, rngs, self.rng)
        return actions

    def _engine_decision(
        self, view: DecisionView, rows: np.ndarray, phase: int, masks: np.ndarray
    ) -> np.ndarray:
        """The batched decision of ``phase`` (BET, DECIDE or MINSO) in the games ``rows``, all in it.
        A subclass may read less of the decision view than the whole ``Decoded`` (the test holds it
        to ``act_batch``)."""
        decide: dict[int, Callable[[Decoded, np.ndarray], np.ndarray]] = {
            Phase.BET: self._bet_batch,
            Phase.DECIDE: self._decide_batch,
            Phase.MINSO: self._minso_batch,
        }
        return decide[phase](self._decode_engine(view, rows, phase), masks)

    @staticmethod
    def _dealer_sees(view: DecisionView, rows: np.ndarray) -> np.ndarray:
        """Whether the current player of each game sees the dealer's first two cards, both dealt."""
        see = view.sees_dealer_pair(rows, view.current_player[rows])
        return see & (view.dealer_cards[rows, :2] >= 0).all(axis=1)

    def _decode_engine(self, view: DecisionView, rows: np.ndarray, phase: int) -> Decoded:
        """What ``_decode`` reads from the observation of the games ``rows`` (all in ``phase``, each at
        its current player's turn), from the engine's decision view: the values the encoder's one-hots show (a
        second spread card only to a seat that backs the spread or once the unbacked spread is turned
        up, the dealer's first two only when
        ``see``), the lights, the status bits, and ``obs`` holding ``total_stakes`` alone (the dealer's
        draw reads it; (k, 0) otherwise)."""
        k = rows.size
        seat = view.current_player[rows]
        spreads = view.spreads[rows]  # (k, 4, 3) card ids, -1 none (the tables' last entry: 0 / False)
        seen2 = view.stakes[rows, seat] > 0  # (k, 4): the seat backs the spread, sees its second card
        if self.cfg.unbacked_spread_card:  # or the spread is unbacked and turned up (Game.turned_up)
            seen2 |= (view.spread_total[rows] == 0) & (spreads[:, :, 2] >= 0)
        values = SEEN_VALUE[spreads]
        values[:, :, 1] *= seen2
        dcards = view.dealer_cards[rows]
        see = view.sees_dealer_pair(rows, seat)
        dealer_values = SEEN_VALUE[dcards]
        dealer_values[:, :2] *= see[:, None]
        if "spread_lights" in self.sl:  # (a hanafuda deck)
            lights = _LIGHT[spreads]
            lights[:, :, 1] &= seen2
            dealer_lights = _LIGHT[dcards]
            dealer_lights[:, :2] &= see[:, None]
        else:
            lights = np.zeros(spreads.shape, dtype=bool)
            dealer_lights = np.zeros(dcards.shape, dtype=bool)
        if phase == Phase.DEALER_DRAW:
            obs = np.zeros((k, self.spec.size), dtype=np.float32)
            obs[:, self.sl["total_stakes"]] = view.spread_total[rows] * (1.0 / self.cfg.domae)
        else:
            obs = np.zeros((k, 0), dtype=np.float32)
        return Decoded(
            obs=obs,
            phase=np.full(k, phase, dtype=np.int64),
            active=np.maximum(view.active[rows], 0),
            values=values,
            lights=lights,
            dealer_values=dealer_values,
            dealer_lights=dealer_lights,
            status=_STATUS_BITS[view.spread_state[rows]],
        )

    def _decode(self, obs: np.ndarray) -> Decoded:
        """Every row's phase, spreads and dealer cards, read as the scalar helpers read one row."""
        b, sl = obs.shape[0], self.sl
        fast = self._onehot_values(obs)

        def values(piece: str, shape: tuple[int, ...]) -> np.ndarray:
            if fast is not None:
                return fast[piece].reshape(b, *shape)
            blocks = obs[:, sl[piece]].reshape(b, *shape, NUM_VALUES)
            return np.where(blocks.max(axis=-1) > 0.5, blocks.argmax(axis=-1) + 1, 0)

        def lights(piece: str, shape: tuple[int, ...]) -> np.ndarray:
            if piece not in sl:
                return np.zeros((b, *shape), dtype=bool)
            return obs[:, sl[piece]].reshape(b, *shape) > 0.5

        return Decoded(
            obs=obs,
            phase=obs[:, sl["phase"]].argmax(axis=1),
            active=obs[:, sl["active_spread"]].argmax(axis=1),
            values=values("spread_cards", (NUM_SPREADS, MAX_CARDS)),
            lights=lights("spread_lights", (NUM_SPREADS, MAX_CARDS)),
            dealer_values=values("dealer_cards", (MAX_CARDS,)),
            dealer_lights=lights("dealer_lights", (MAX_CARDS,)),
            status=obs[:, sl["spread_status"]].reshape(b, NUM_SPREADS, -1),
        )

    def _onehot_values(self, obs: np.ndarray) -> dict[str, np.ndarray] | None:
        """The card values of ``spread_cards`` and ``dealer_cards`` (piece -> (B, slots) int64) by one
        matrix product, when every entry of the columns they span is 0 or 1 and every block holds at most
        one 1 (an observation of the env always does); None otherwise, and ``_decode`` then takes the
        argmax route, which defines the value for any input. Why: an argmax over the 10-wide blocks was
        most of a batched decision (benchmarks/README.md)."""
        tab = getattr(self, "_onehot_tab", None)
        if tab is None:
            tab = self._onehot_tab = self._onehot_table()
        span, weights, pieces = tab
        x = obs[:, span]
        if not np.array_equal(x, x.astype(bool)):  # (every entry exactly 0 or 1; NaN is neither)
            return None
        prod = x @ weights  # (B, 2 * slots): each block's value (1..10, 0 if empty), then its count of 1s
        k = weights.shape[1] // 2
        if (prod[:, k:] > 1).any():
            return None
        vals = prod[:, :k].astype(np.int64)
        return {name: vals[:, a:z] for name, a, z in pieces}

    def _onehot_table(self) -> tuple[slice, np.ndarray, list[tuple[str, int, int]]]:
        """The columns spanning the value pieces, the (columns, 2 * slots) weights: block j's value
        weights 1..10 in column j and ones in column slots + j; and each piece's slot range."""
        names = ("spread_cards", "dealer_cards")
        start = min(self.sl[p].start for p in names)
        stop = max(self.sl[p].stop for p in names)
        slots = sum((self.sl[p].stop - self.sl[p].start) // NUM_VALUES for p in names)
        w = np.zeros((stop - start, 2 * slots), dtype=np.float32)
        pieces, j = [], 0
        for p in names:
            first = j
            for c in range(self.sl[p].start, self.sl[p].stop, NUM_VALUES):
                rows = np.arange(c, c + NUM_VALUES) - start
                w[rows, j] = np.arange(1, NUM_VALUES + 1)
                w[rows, slots + j] = 1.0
                j += 1
            pieces.append((p, first, j))
        return slice(start, stop), w, pieces

    def _scalar_rows(
        self, d: Decoded, masks: np.ndarray, out: np.ndarray, rows: np.ndarray, method: Callable[..., int]
    ) -> np.ndarray:
        """``out`` with the ``rows`` (bool) decided by the scalar ``method(obs, mask)``: the rare rows no
        table covers, which then return or raise exactly what ``act`` would."""
        for i in np.flatnonzero(rows).tolist():
            out[i] = method(d.obs[i], masks[i])
        return out

    def _stake_to_batch(
        self, masks: np.ndarray, targets: np.ndarray, at_least_one: bool = False
    ) -> np.ndarray:
        """``_stake_to`` on every row (``targets`` per row), the stakes tried in the same order."""
        # the loop's outcome at once: the last size allowed and <= target; else, with ``at_least_one``,
        # the first size allowed; else BET(0)
        sizes = self._bet_size_array
        m = sizes.size
        allowed = masks[:, BET_BASE + 1 : BET_BASE + 1 + m]
        fits = allowed & (sizes <= np.asarray(targets)[:, None])
        any_fit = fits.any(axis=1)
        best = np.where(any_fit, BET_BASE + m - fits[:, ::-1].argmax(axis=1), BET_BASE)
        if at_least_one:
            first = BET_BASE + 1 + allowed.argmax(axis=1)
            best = np.where(~any_fit & allowed.any(axis=1), first, best)
        return best.astype(np.int64, copy=False)

    def _decide_batch(self, d: Decoded, masks: np.ndarray) -> np.ndarray:
        """``_decide`` per row: the shared draw rule, from its table."""
        r = np.arange(d.phase.size)
        v = d.values[r, d.active, :2]
        lt = d.lights[r, d.active, :2].astype(np.int64)
        table = decide_table(self.cfg, tuple((k, self.p[k]) for k in BETTOR_KEYS))
        out = table[v[:, 0], v[:, 1], lt[:, 0], lt[:, 1]]
        return np.where((v == 0).any(axis=1), np.where(masks[:, DRAW], DRAW, STAND), out)

    def _bet_batch(self, d: Decoded, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _dealer_draw_batch(self, d: Decoded, masks: np.ndarray) -> np.ndarray:
        """``_dealer_draw`` per row (rows where both STAND and DRAW are legal)."""
        raise NotImplementedError

    def _minso_batch(self, d: Decoded, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _dealer_draw(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """STAND or DRAW when both are legal."""
        raise NotImplementedError

    def _minso(self, obs: np.ndarray) -> int:
        raise NotImplementedError
