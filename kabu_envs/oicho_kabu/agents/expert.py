"""The expert Oicho-Kabu player: every money decision solved by expected value.

This is the reference ceiling of the suite's baselines (``make_agent("oicho_kabu", "expert")``). It
shares the observation reading and the bettor's draw rule with the rule-of-thumb
``OichoScriptedAgent`` (``kabu_envs/oicho_kabu/agents/common.py``) and differs where expectation matters:

- **Bets.** A spread's only public fact at betting time is its first card. By default
  (``edges="sampled"``) the agent estimates the bettor's edge of each first-card value once per rule
  set (a seeded Monte Carlo of one spread against a threshold dealer, both drawing as this agent
  would) and backs a spread when its edge is above ``min_edge``, staking about ``bet_fraction`` of the
  domae (more, ``strong_factor`` times, when the edge exceeds ``strong_edge``), capped by the stake
  room the mask allows. With ``edges="exact"`` (the default, ``"auto"``, where each bettor holds a
  private info card: the kabufuda site) the edge is exact for the cards the seat has seen — the
  table's first cards and its own info card out of the pool — against the threshold dealer drawing
  one higher when the spread stood (the reference dealer's reaction, ``dealer_model_shift``;
  ``pool_edges.py``); it stakes ``bet_fraction`` of the domae above ``exact_min_edge`` and
  ``exact_strong_fraction`` above ``exact_strong_edge``. Why: there the per-value edges are a few
  hundredths of a chip either side of 0, and which side depends on the cards gone.
- **Dealer draw.** Expected value of STAND vs DRAW against every backed spread, weighted by its stakes:
  the spread's face-down second card is enumerated over the unseen cards and weighted by how well it
  explains what the decider did (stood, drew: modelled as a player using the shared draw rule); the
  dealer's third card is enumerated over the unseen cards. So a third card on a spread changes the
  dealer's choice.
- **Minso.** REDEAL a table whose first cards are better for the bettors than an average table by more
  than ``minso_margin`` (sum of the edges).
- **Dealer card choice.** TAKE_TOP/BOTTOM/FOURTH are equivalent in expectation (the order of a shuffled
  deck is unknown), so the agent takes ``take`` ("top", "bottom" or "fourth").

``act_batch`` vectorises every decision, the dealer's draw included: per row, the unseen counts, each
backed spread's candidate hands and weights, and the settlement of each candidate against the dealer's
two-card hand and its ten three-card hands form ``(rows, 11, spreads, 10)`` arrays; the settlements
come from ``SettleTable`` (``rules.settle`` of each (dealer hand, bettor hand) pair, computed once per
rule set when first needed). The expected values are then summed term by term in the scalar method's
order, so the two agree bit for bit (no row grouping is needed). Rows the tables cannot hold (an unseen
card where the rule needs one, all candidate weights zero) go to the scalar method.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from kabu_envs.agents.base import loadable
from kabu_envs.agents.batching import sequential_sum
from kabu_envs.core.rng import make_rng
from kabu_envs.oicho_kabu.actions import BET_BASE, DRAW, ESCAPE, KEEP, REDEAL, STAND
from kabu_envs.oicho_kabu.agents.common import (
    BETTOR_KEYS,
    COMMON_PARAMS,
    Decoded,
    OichoAgentBase,
    bettor_decision,
    dealer_threshold_decision,
    representative_ids,
)
from kabu_envs.oicho_kabu.agents.pool_edges import pool_edges
from kabu_envs.oicho_kabu.config import Config
from kabu_envs.oicho_kabu.deck import COPIES, DECK_SIZE, NUM_VALUES, VALUES, card_id
from kabu_envs.oicho_kabu.game import NUM_SPREADS
from kabu_envs.oicho_kabu.observation import DREW_BIT, ESCAPED_BIT
from kabu_envs.oicho_kabu.rules import (
    draw_options,
    hand_value,
    settle,
    showdown_yaku,
    voids_round,
)

DEFAULT_PARAMS: dict[str, Any] = {
    **COMMON_PARAMS,
    "min_edge": 0.02,
    "bet_fraction": 0.2,
    "strong_edge": 0.15,
    "strong_factor": 2.0,
    "minso_margin": 0.0,
    "dealer_model_threshold": 5,
    "model_trust": 0.95,  # 0.8 until the gap to a best response measured the difference
    "edge_samples": 1500,
    # "exact": each bet's edge exact for the cards the seat has seen (``pool_edges``); "sampled": the
    # per-value Monte Carlo above; "auto": exact where a bettor holds a private card (``info_cards``)
    "edges": "auto",
    "dealer_model_shift": 1,  # the exact edges' dealer draws one higher when the spread stood
    "exact_min_edge": 0.0,  # exact edges: stake bet_fraction x domae above this edge ...
    "exact_strong_edge": 0.01,  # ... and exact_strong_fraction x domae above this one
    "exact_strong_fraction": 0.5,
}
EDGE_MODES = ("auto", "sampled", "exact")


@lru_cache(maxsize=32)
def first_card_edges(cfg: Config, params: tuple[tuple[str, Any], ...]) -> tuple[float, ...]:
    """Bettor's expected result per unit stake for first-card value 1..10 (index 0..9), seeded Monte Carlo."""
    p = dict(params)
    n = int(p["edge_samples"])
    out = []
    for v in range(1, NUM_VALUES + 1):
        rng = make_rng(1000 + v)
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


@lru_cache(maxsize=64)
def candidate_tables(cfg: Config, params: tuple[tuple[str, Any], ...]) -> tuple[np.ndarray, ...]:
    """``[first value, hidden value]`` (1..10): may a bettor stand, may it draw, does the shared draw
    rule draw: the three facts ``_dealer_draw`` weighs a hidden second card by."""
    p = dict(params)
    stand_ok, draw_ok, model_draw = (np.zeros((NUM_VALUES + 1,) * 2, dtype=bool) for _ in range(3))
    for v in range(1, NUM_VALUES + 1):
        for x in range(1, NUM_VALUES + 1):
            two = representative_ids([v, x], [False, False])
            stand_ok[v, x], draw_ok[v, x], _ = draw_options(cfg, two, "bettor")
            model_draw[v, x] = bettor_decision(cfg, two, p) == DRAW
    return stand_ok, draw_ok, model_draw


class SettleTable:
    """``settle(cfg, dealer, bettor)`` for the hands the expert's dealer draw weighs, by hand code,
    filled on demand (the full table is ~1.2M pairs, ~4.8M with hanafuda lights: seconds to fill, and
    a game meets a small part of it).

    Dealer hands: two visible cards (value, light) and the same plus a drawn third card (never a light,
    as ``_dealer_draw`` builds it); bettor hands: first card and hidden card, plus the drawn third card
    when the spread drew. Each code stands for the very card ids ``_dealer_draw`` builds
    (``representative_ids``), so a looked-up value is the scalar one.
    """

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.lights = 2 if cfg.deck == "hanafuda" else 1
        self.keys = NUM_VALUES * self.lights  # (value, light) of one dealer card
        self.two = self.keys**2  # two-card dealer codes come first
        self.num_dealer = self.two * (NUM_VALUES + 1)
        self.num_bettor = NUM_VALUES**2 * (NUM_VALUES + 1)
        self.values = np.zeros((self.num_dealer, self.num_bettor))
        self.known = np.zeros((self.num_dealer, self.num_bettor), dtype=bool)

    def dealer_codes(self, values: np.ndarray, lights: np.ndarray) -> np.ndarray:
        """``(n, 11)``: the two-card hand (``values``, ``lights``: ``(n, 2)``), then it + a card 1..10."""
        keys = (values - 1) * self.lights + lights.astype(np.int64) * (self.lights - 1)
        two = keys[:, 0] * self.keys + keys[:, 1]
        three = self.two + two[:, None] * NUM_VALUES + np.arange(NUM_VALUES)
        return np.concatenate([two[:, None], three], axis=1)

    @staticmethod
    def bettor_codes(first: np.ndarray, third: np.ndarray, drew: np.ndarray) -> np.ndarray:
        """``(..., 10)``: a spread's first card and each hidden value 1..10 (+ its third card if it drew)."""
        two = (first[..., None] - 1) * NUM_VALUES + np.arange(NUM_VALUES)
        three = NUM_VALUES**2 + two * NUM_VALUES + (third[..., None] - 1)
        return np.where(drew[..., None], three, two)

    def _dealer_ids(self, code: int) -> tuple[int, ...]:
        two, y = (code, 0) if code < self.two else divmod(code - self.two, NUM_VALUES)
        k0, k1 = divmod(two, self.keys)
        values = [k0 // self.lights + 1, k1 // self.lights + 1]
        lights = [bool(k0 % self.lights), bool(k1 % self.lights)]
        if code >= self.two:
            values, lights = [*values, y + 1], [*lights, False]
        return representative_ids(values, lights)

    @staticmethod
    def _bettor_ids(code: int) -> tuple[int, ...]:
        if code < NUM_VALUES**2:
            v, x = divmod(code, NUM_VALUES)
            return representative_ids([v + 1, x + 1], [False, False])
        two, third = divmod(code - NUM_VALUES**2, NUM_VALUES)
        v, x = divmod(two, NUM_VALUES)
        return representative_ids([v + 1, x + 1, third + 1], [False] * 3)

    def fill(self) -> None:
        """Compute every pair now, from the hands' classes: ``settle`` reads a hand only through its
        void / three-tens flag, its best yaku, its value, its first card's value and (for a yaku
        paying the middle card) its middle card's value, so each (dealer class, bettor class) pair is
        settled once (~10^4 calls instead of ~10^6; tested against ``settle`` pair by pair)."""
        if self.known.all():
            return
        d_keys = [self._class(self._dealer_ids(c), "dealer") for c in range(self.num_dealer)]
        b_keys = [self._class(self._bettor_ids(c), "bettor") for c in range(self.num_bettor)]
        d_uniq: dict[tuple[Any, ...], int] = {}
        b_uniq: dict[tuple[Any, ...], int] = {}
        d_rep: list[int] = []
        b_rep: list[int] = []
        d_idx = np.array([d_uniq.setdefault(k, len(d_uniq)) for k in d_keys])
        b_idx = np.array([b_uniq.setdefault(k, len(b_uniq)) for k in b_keys])
        for code, i in enumerate(d_idx.tolist()):
            if i == len(d_rep):
                d_rep.append(code)
        for code, i in enumerate(b_idx.tolist()):
            if i == len(b_rep):
                b_rep.append(code)
        small = np.array(
            [[settle(self.cfg, self._dealer_ids(d), self._bettor_ids(b)) for b in b_rep] for d in d_rep],
            dtype=np.float64,
        )
        self.values = small[d_idx[:, None], b_idx[None, :]]
        self.known[:] = True

    def _class(self, ids: tuple[int, ...], role: str) -> tuple[Any, ...]:
        cfg = self.cfg
        if role == "dealer":
            flag = voids_round(cfg, ids)
        else:
            flag = cfg.bettor_three_tens == "push" and len(ids) == 3 and all(VALUES[c] == 10 for c in ids)
        names = showdown_yaku(cfg, ids, role)  # the yaku settle may score it as
        if names == (None,):
            return (flag, None, hand_value(ids), 0, 0)
        mid = tuple(VALUES[ids[1]] if cfg.yaku[y].multiplier == 0 else 0 for y in names if y is not None)
        return (flag, names, hand_value(ids), VALUES[ids[0]], mid)

    def lookup(self, dealer: np.ndarray, bettor: np.ndarray) -> np.ndarray:
        """``settle`` of each (dealer code, bettor code) pair, computing the pairs not seen before."""
        missing = ~self.known[dealer, bettor]
        if missing.any():
            for pair in np.unique(dealer[missing] * self.num_bettor + bettor[missing]).tolist():
                d, b = divmod(pair, self.num_bettor)
                self.values[d, b] = settle(self.cfg, self._dealer_ids(d), self._bettor_ids(b))
                self.known[d, b] = True
        return self.values[dealer, bettor]


@lru_cache(maxsize=8)
def settle_table(cfg: Config) -> SettleTable:
    return SettleTable(cfg)


@loadable
class OichoExpertAgent(OichoAgentBase):
    """Plays any Oicho-Kabu seat by expected value; keywords = strategy parameters + rule options."""

    # saved agent files (BaseAgent.save) written before the class moved into the game's package
    former_names = ("kabu_envs.agents.oicho_expert.OichoExpertAgent",)

    name = "oicho_expert"
    DEFAULTS: ClassVar[dict[str, Any]] = DEFAULT_PARAMS

    def __init__(self, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(seed, **kwargs)
        if self.p["edges"] not in EDGE_MODES:
            raise ValueError(f"edges={self.p['edges']!r}; allowed: {', '.join(EDGE_MODES)}")
        self._exact = self.p["edges"] == "exact" or (self.p["edges"] == "auto" and self.cfg.info_cards)
        self._edges = first_card_edges(self.cfg, tuple(sorted(self.p.items())))
        self._mean_edge = float(np.mean(self._edges))
        # per first-card value 0..10 (0 = unseen: the mean edge), what ``_bet`` decides
        edge = [self._edges[v - 1] if v else self._mean_edge for v in range(NUM_VALUES + 1)]
        self._no_bet = np.array([e <= self.p["min_edge"] for e in edge])
        self._bet_targets = np.array([self._bet_target(e) for e in edge])
        self._edge_array = np.array((0.0, *self._edges))  # index = value

    def _bet(self, obs: np.ndarray, mask: np.ndarray) -> int:
        s = self._active_spread(obs)
        v = self._spread(obs, s)[0]
        if self._exact and v:
            return int(self._exact_bets(obs[None], np.array([v]), mask[None])[0])
        edge = self._edges[v - 1] if v else self._mean_edge
        if edge <= self.p["min_edge"]:
            return BET_BASE
        return self._stake_to(mask, self._bet_target(edge), at_least_one=True)

    def _pools(self, obs: np.ndarray) -> np.ndarray:
        """``(n, 10)``: per row, the cards of value 1..10 this seat has not seen (the table's cards,
        the dealer's, its own info card)."""
        seen = [
            obs[:, self.sl[p]].reshape(obs.shape[0], -1, NUM_VALUES) > 0.5
            for p in ("spread_cards", "dealer_cards")
        ]
        counts = seen[0].sum(axis=1) + seen[1].sum(axis=1)
        if "info_card" in self.sl:
            counts = counts + (obs[:, self.sl["info_card"]] > 0.5)
        return np.maximum(COPIES - counts, 0)

    def _exact_bets(self, obs: np.ndarray, first: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The stakes of ``edges="exact"``: each row's edge for its spread's first value ``first``
        (1..10) over the cards its seat has not seen (``pool_edges``), staked as the parameters say."""
        p = self.p
        key = tuple((k, p[k]) for k in BETTOR_KEYS)
        thr, shift = int(p["dealer_model_threshold"]), int(p["dealer_model_shift"])
        pools = self._pools(obs)
        edge = np.array(
            [
                pool_edges(self.cfg, key, thr, shift, tuple(pool))[v - 1]
                for pool, v in zip(pools.tolist(), first.tolist(), strict=True)
            ]
        )
        strong = edge > p["exact_strong_edge"]
        target = self.cfg.domae * np.where(strong, p["exact_strong_fraction"], p["bet_fraction"])
        stakes = self._stake_to_batch(masks, target, at_least_one=True)
        return np.where(edge > p["exact_min_edge"], stakes, BET_BASE)

    def _bet_target(self, edge: float) -> float:
        target = self.p["bet_fraction"] * self.cfg.domae
        if edge > self.p["strong_edge"]:
            target *= self.p["strong_factor"]
        return target

    def _minso(self, obs: np.ndarray) -> int:
        score = 0.0  # added in order, as ``_minso_batch`` does
        for s in range(NUM_SPREADS):
            v = self._spread(obs, s)[0]
            if v:
                score += self._edges[v - 1]
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
                z = 0.0
                for w in ws:
                    z += w
                cands.append((stake, hands, [w / z for w in ws]))

        # Every sum below adds its terms one by one, in order (no ``sum``, whose float algorithm
        # changed in Python 3.12): ``act_batch`` does the same additions on arrays, so its decisions
        # are these bit for bit.
        def value_of(dealer_hand: tuple[int, ...]) -> float:
            total = 0.0
            for stake, hands, ws in cands:
                inner = 0.0
                for h, w in zip(hands, ws, strict=True):
                    inner += w * settle(cfg, dealer_hand, h)
                total += stake * inner
            return -total

        ev_stand = value_of(dealer)
        ev_draw = 0.0
        for y in range(1, NUM_VALUES + 1):
            if weights[y]:
                ev_draw += weights[y] / total_w * value_of(self._ids([*dv, y], [*dlights, False]))
        return DRAW if ev_draw > ev_stand else STAND

    # --- batched (``act_batch``) ------------------------------------------------------------------
    def _bet_batch(self, d: Decoded, masks: np.ndarray) -> np.ndarray:
        first = d.values[np.arange(d.phase.size), d.active, 0]
        stakes = self._stake_to_batch(masks, self._bet_targets[first], at_least_one=True)
        out = np.where(self._no_bet[first], BET_BASE, stakes)
        if self._exact and (first > 0).any():
            rows = np.flatnonzero(first > 0)
            out[rows] = self._exact_bets(d.obs[rows], first[rows], masks[rows])
        return out

    def _minso_batch(self, d: Decoded, masks: np.ndarray) -> np.ndarray:
        firsts = d.values[:, :, 0]
        score = sequential_sum(self._edge_array[firsts], firsts > 0)
        return np.where(score > NUM_SPREADS * self._mean_edge + self.p["minso_margin"], REDEAL, KEEP)

    def _dealer_draw_batch(self, d: Decoded, masks: np.ndarray) -> np.ndarray:
        """``_dealer_draw`` on arrays: axes (row, dealer hand: 2 cards then + third 1..10, spread,
        hidden value 1..10); every sum in the scalar method's order (``sequential_sum``)."""
        n = d.phase.size
        dv, dl = d.dealer_values[:, :2], d.dealer_lights[:, :2]
        first, third = d.values[:, :, 0], d.values[:, :, 2]
        stake = d.obs[:, self.sl["total_stakes"]].astype(np.float64)
        backed = (stake > 0) & (d.status[:, :, ESCAPED_BIT] < 0.5)
        drew = d.status[:, :, DREW_BIT] > 0.5
        seen = np.concatenate([dv, d.values.reshape(n, -1)], axis=1)
        counts = (seen[:, :, None] == np.arange(1, NUM_VALUES + 1)).sum(axis=1)
        weights = np.maximum(COPIES - counts, 0)  # (n, 10): unseen cards of value 1..10
        total_w = weights.sum(axis=1)
        total_w[total_w == 0] = 1
        # rows the tables cannot hold: the scalar method returns or raises for them
        scalar = (dv == 0).any(axis=1) | (backed & ((first == 0) | (drew & (third == 0)))).any(axis=1)
        first, third, dv = np.maximum(first, 1), np.maximum(third, 1), np.maximum(dv, 1)

        stand_ok, draw_ok, model_draw = candidate_tables(self.cfg, tuple((k, self.p[k]) for k in BETTOR_KEYS))
        x = np.arange(1, NUM_VALUES + 1)
        f = first[:, :, None]
        allowed = np.where(drew[:, :, None], draw_ok[f, x], stand_ok[f, x])
        cand = backed[:, :, None] & (weights[:, None, :] > 0) & allowed  # (n, spreads, 10)
        trust = self.p["model_trust"]
        fit = np.where(model_draw[f, x] == drew[:, :, None], trust, 1.0 - trust)
        w = weights[:, None, :] * fit
        z = sequential_sum(w, cand)
        has = cand.any(axis=2)
        scalar |= (has & (z == 0)).any(axis=1)  # the scalar method divides by zero there
        with np.errstate(divide="ignore", invalid="ignore"):  # 0/0 only where no candidate is summed
            wn = np.where(cand, w / z[:, :, None], 0.0)

        table = settle_table(self.cfg)
        dealer = table.dealer_codes(dv, dl)  # (n, 11)
        bettor = table.bettor_codes(first, third, drew)  # (n, spreads, 10)
        needed = np.concatenate([np.ones((n, 1), dtype=bool), weights > 0], axis=1)
        pairs = cand[:, None] & needed[:, :, None, None] & ~scalar[:, None, None, None]
        shape = pairs.shape
        settled = np.zeros(shape)
        settled[pairs] = table.lookup(
            np.broadcast_to(dealer[:, :, None, None], shape)[pairs],
            np.broadcast_to(bettor[:, None], shape)[pairs],
        )
        inner = sequential_sum(wn[:, None] * settled, cand[:, None])  # (n, 11, spreads)
        value = -sequential_sum(stake[:, None, :] * inner, has[:, None, :])  # (n, 11)
        ev_draw = sequential_sum(weights / total_w[:, None] * value[:, 1:], weights > 0)
        out = np.where(ev_draw > value[:, 0], DRAW, STAND)
        return self._scalar_rows(d, masks, out, scalar, self._dealer_draw)
