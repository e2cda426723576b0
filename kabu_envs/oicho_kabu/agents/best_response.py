"""A best response for one Oicho-Kabu seat against fixed seats: the evaluator's yardstick.

``OichoBestResponse`` plays the bettor or the dealer seat of a round in which every other seat is a
fixed, known, deterministic policy (the evaluation's reference seats: hand-written players). It sees
only what its seat sees and takes, at each decision, the action of highest expected chips given that
information. ``kabu_envs.eval.best_response`` reports an agent's **gap** = the best response's
expected chips minus the agent's on the evaluation's deals, from ``regret``: at each of the agent's
turns, what the best response's own choice gains there (valued on draws independent of those it chose
on), summed over the deal.

What it conditions on (docs/studies/best_response.md):

- the cards its observation shows (its own info card included: one card fewer in the pool), and the
  bets (public: every stake is placed in the open);
- the other deciders' STAND / DRAW / ESCAPE: each is the decider's two-card rule
  (``draw_rule_table``) applied to the spread's first card and its hidden second card, so the hidden
  card's posterior is the unseen cards restricted to the values that rule maps to what was done;
- with ``unbacked_spread_card``, the unbacked spreads turned up before the dealer's draw: their two cards
  are seen by every seat then (the dealer's exact draw reads them from its observation); a simulation
  before that deals them from the unseen cards and hands them to the dealer's model, which sees them;
- nothing else: the remaining unseen cards (the other bettors' info cards, the dealer's face-down
  cards, the deck) are in uniformly random order. No other choice carries information: the bettors
  bet and the dealer calls minso on public cards (and a reshuffled table, minso's or a triple's,
  leaves the unseen cards uniform given the final table); the dealer's TAKE_TOP / BOTTOM / FOURTH
  picks a deck position whose card nobody has seen, so whatever it takes is a uniform unseen card.

How it decides:

- **Dealer draw (exact).** Every joint assignment of values to the backed spreads' hidden second
  cards is enumerated with its exact weight (the number of unseen cards that realise it, zero where a
  decider's rule contradicts what it did), and the dealer's third card over the cards left: the exact
  expected chips of STAND and of DRAW.
- **Bets (Monte Carlo, common samples).** The bettor's four stakes are consecutive turns with no
  hidden information yet, so they are planned together: a coordinate search over stake vectors
  (each spread's stake in turn, from the expert's stakes, until no single change gains ``z``
  standard errors on the draws), every vector
  played out: the later bettors' bets by their policies on a simulated table, then ``samples`` common
  draws of the second, third and dealer cards, each decider's rule, the dealer's policy reacting to
  the stakes and the draws (``dealer_draw_model``) and the settlement.
- **Bettor draw (Monte Carlo, common samples).** ``samples`` draws of the unseen cards consistent with
  the other deciders' choices (rejection), every legal action (free draws, the 4-6 escape) played out
  the same way.
- **Dealer's card choice (exact).** The three takes are the same draw: regret 0 for each.
- **Dealer's minso (exact over tables, Monte Carlo over the rest).** KEEP = the dealer's chips on
  ``samples / 4`` draws of the cards after this table (the bettors' stakes by their policies on a
  simulated table, their draws by their rules, its own draw by the expert's rule); REDEAL = the same
  over every ordered table a redeal can bring, with its exact probability (no triple under
  ``redeal_on_triple_table``), ``minso_draws`` draws each; computed once per process. Later minso
  questions (``minso_limit`` > 1) follow the expert's rule.

After the decision being taken the seat's own later decisions follow the expert's rules (its draw
rule when planning bets, its later draws when deciding a draw), so a bettor decision is the exact
best response only at the seat's last decision: the evaluator's best response is a lower bound on
the true one and its gap a lower bound on the true gap (the dealer's draw, its last decision, is
exact; its minso is followed by the expert's draw rule).

The simulation reads the game only to copy it (``Game.clone``) with every card the seat does not see
re-dealt at random, never to look at a hidden card.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kabu_envs.core.rng import make_rng
from kabu_envs.oicho_kabu.actions import BET_BASE, CHOICE_ACTIONS, DRAW, KEEP, REDEAL, STAND
from kabu_envs.oicho_kabu.agents.common import OichoAgentBase
from kabu_envs.oicho_kabu.agents.expert import OichoExpertAgent, settle_table
from kabu_envs.oicho_kabu.config import Config, make_config
from kabu_envs.oicho_kabu.deck import COPIES, NUM_VALUES, card_id
from kabu_envs.oicho_kabu.game import DREW, ESCAPED, MAX_CARDS, NUM_SPREADS, UNDECIDED, Game, Phase
from kabu_envs.oicho_kabu.observation import Encoder

# Rule options whose other values the best response does not model: rounds after the first (chips
# and dealer changes carry over) and the hanafuda lights (cards it would have to track by identity).
SUPPORTED: dict[str, Any] = {"max_rounds": 1}
ROLES = ("bettor", "dealer")


def check_supported(cfg: Config) -> None:
    """Raise a ValueError naming every rule option outside what the best response models."""
    bad = [f"{k}={getattr(cfg, k)!r} (needs {v!r})" for k, v in SUPPORTED.items() if getattr(cfg, k) != v]
    if cfg.deck == "hanafuda":
        bad.append("deck='hanafuda' (needs 'kabufuda' or 'western': lights are not modelled)")
    if bad:
        raise ValueError("the Oicho-Kabu best response does not model " + "; ".join(bad))


class _Seen:
    """What one seat's observation shows: card values by position (0 = not seen) and spread states."""

    def __init__(self, spec: Any, obs: np.ndarray) -> None:
        sl = spec.slices

        def values(piece: str, shape: tuple[int, ...]) -> np.ndarray:
            blocks = np.asarray(obs[sl[piece]]).reshape(*shape, NUM_VALUES)
            return np.where(blocks.max(axis=-1) > 0.5, blocks.argmax(axis=-1) + 1, 0)

        self.spread = values("spread_cards", (NUM_SPREADS, MAX_CARDS))  # (4, 3)
        self.dealer = values("dealer_cards", (MAX_CARDS,))  # (3,)
        bits = np.asarray(obs[sl["spread_status"]]).reshape(NUM_SPREADS, -1) > 0.5
        self.status = np.where(bits.any(axis=1), bits.argmax(axis=1) + 1, UNDECIDED)
        info = np.asarray(obs[sl["info_card"]])
        self.info = int(info.argmax()) + 1 if info.max() > 0.5 else 0  # the seat's own dead card

    def pool(self) -> np.ndarray:
        """Unseen cards per value 1..10 (index 0 unused): the seat's own info card is seen (and dead);
        the others' info cards, the selection cards (returned to the deck) are not."""
        counts = np.full(NUM_VALUES + 1, COPIES, dtype=np.int64)
        counts[0] = 0
        for v in [*np.concatenate([self.spread.ravel(), self.dealer]).tolist(), self.info]:
            if v:
                counts[v] -= 1
        return counts


# The value of a minso REDEAL (``OichoBestResponse.redeal_values``) depends only on the rule set, the
# seats (policies, betting order, chips), the seed and the questions left: once per process (it is the
# slow part; docs/studies/best_response.md has its cost).
_REDEAL_VALUES: dict[Any, tuple[float, float, float]] = {}


def _sample(rng: np.random.Generator, counts: np.ndarray, k: int, n: int) -> np.ndarray:
    """``n`` draws of ``k`` distinct unseen cards (values, ``(n, k)``) from the pool ``counts``."""
    pool = np.repeat(np.arange(NUM_VALUES + 1), counts)
    if k > pool.size:
        raise ValueError(f"{k} unseen cards needed, {pool.size} left")
    return rng.permuted(np.broadcast_to(pool, (n, pool.size)), axis=1)[:, :k]


def _better(diff: np.ndarray, z: float) -> bool:
    """Does a per-sample gain ``diff`` (common samples) show a gain at ``z`` standard errors?"""
    mean = float(diff.mean())
    if mean <= 1e-12:
        return False
    se = float(diff.std(ddof=1)) / np.sqrt(diff.size) if diff.size > 1 else 0.0
    return mean > z * se


class OichoBestResponse:
    """Best response in ``role`` ("bettor" or "dealer"); see the module docstring.

    ``samples``: Monte Carlo draws per bettor decision, for choosing and again (independent draws) for
    valuing; ``z``: a bettor's choice leaves the expert's only for a gain of ``z`` standard errors on
    the choosing draws; ``seed`` seeds the simulations; every other keyword is a rule option.

    Per deal: ``begin(game, seat, seat_agents, deal)`` with the agents of the other seats (hand-written
    players: ``OichoAgentBase``) and a deal key (the same key shares the bet plan and its draws between
    agents evaluated on that deal); then either ``act(game, seat, obs, mask)`` at the seat's turns (the
    best response plays), or ``regret(game, seat, obs, mask, action)`` at the turns of an agent playing
    the seat: the expected chips the best response's choice gains over ``action`` at that information
    state, both followed by the expert's rules (exact for the dealer; see
    ``kabu_envs.eval.best_response``). ``decisions`` counts the decisions by kind.
    """

    def __init__(
        self,
        role: str,
        seed: int = 0,
        samples: int = 16000,
        z: float = 1.0,
        minso_draws: int = 32,
        **rule_options: Any,
    ) -> None:
        self.check_rules(role, **rule_options)
        self.role = role
        self.cfg = make_config(**rule_options)
        self.samples = int(samples)
        self.z = float(z)
        self.minso_draws = int(minso_draws)
        self.seed = int(seed)
        self.rng = make_rng(seed)
        self.base = OichoExpertAgent(seed=0, **rule_options)
        self.base_table = self.base.draw_rule_table()
        self.encoder = Encoder(self.cfg)
        self.settle = settle_table(self.cfg)
        self.settle.fill()
        self.decisions = {
            "forced": 0,
            "bet_plan": 0,
            "bet": 0,
            "draw": 0,
            "dealer_exact": 0,
            "card_choice": 0,
            "minso": 0,
        }
        self._agents: Sequence[Any] = ()
        self._deal: int | None = None
        self._plans: dict[Any, dict[str, Any]] = {}
        self._own_bets: list[int] = []

    @staticmethod
    def check_rules(role: str, **rule_options: Any) -> None:
        """Raise a ValueError when ``role`` under these rules is not modelled (without building one)."""
        if role not in ROLES:
            raise ValueError(f"role must be 'bettor' or 'dealer', got {role!r}")
        check_supported(make_config(**rule_options))

    # --- the per-deal protocol ---------------------------------------------------------------------
    def begin(self, game: Game, seat: int, seat_agents: Sequence[Any], deal: int | None = None) -> None:
        """A new play of a deal: ``seat_agents[s]`` plays seat s (the entry for ``seat`` is ignored)."""
        for s, agent in enumerate(seat_agents):
            if s != seat and not isinstance(agent, OichoAgentBase):
                raise ValueError(
                    "the best response needs hand-written players on the other seats (their draw rule "
                    f"and dealer policy are read as tables); seat {s} holds {type(agent).__name__}"
                )
        self._agents = seat_agents
        if deal is None or deal != self._deal:
            self._plans = {}
        self._deal = deal
        self._own_bets = []

    def act(self, game: Game, seat: int, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The best response's action at this turn of ``seat``."""
        return self._decide(game, seat, observation, action_mask, None)[0]

    def regret(
        self, game: Game, seat: int, observation: np.ndarray, action_mask: np.ndarray, action: int
    ) -> float:
        """Expected chips of the best response's choice minus those of ``action`` here (for the
        bets: 0 until the seat's last bet turn, then the whole stake vector's)."""
        return self._decide(game, seat, observation, action_mask, int(action))[1]

    def _decide(
        self, game: Game, seat: int, observation: np.ndarray, mask: np.ndarray, action: int | None
    ) -> tuple[int, float]:
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            self.decisions["forced"] += 1
            if game.phase == Phase.BET:  # still one of the seat's planned stakes
                return self._bet(game, seat, _Seen(self.encoder.spec, observation), action)
            return int(legal[0]), 0.0
        seen = _Seen(self.encoder.spec, observation)
        if game.phase == Phase.BET:
            return self._bet(game, seat, seen, action)
        if game.phase == Phase.DECIDE:
            self.decisions["draw"] += 1
            return self._draw(game, seat, seen, legal, action)
        if game.phase == Phase.MINSO:
            self.decisions["minso"] += 1
            return self._minso(game, seat, seen, action)
        if game.phase == Phase.DEALER_CHOICE:
            # The deck's order is unknown to every seat and independent of all it has seen, so the top,
            # the bottom and the 4th card are the same draw: each take has the same value (regret 0).
            self.decisions["card_choice"] += 1
            return CHOICE_ACTIONS[0], 0.0
        if game.phase == Phase.DEALER_DRAW:
            self.decisions["dealer_exact"] += 1
            v = self.dealer_values(game, seen)
            best = DRAW if v[DRAW] > v[STAND] + 1e-12 else STAND
            return best, 0.0 if action is None else v[best] - v[action]
        raise ValueError(f"the best response takes no {game.phase.name} decision (rule set not modelled)")

    # --- simulation helpers ------------------------------------------------------------------------
    def _redealt(self, game: Game, seat: int, seen: _Seen, rng: np.random.Generator) -> Game:
        """A copy of ``game`` with every card ``seat`` does not see (hidden spread and dealer cards, the
        other seats' info cards, the undealt deck) shuffled among those places: a state consistent
        with the seat's information."""
        g = game.clone(make_rng(rng.integers(2**63)))
        places: list[tuple[list[int], int]] = []
        for s, cards in enumerate(g.spreads):
            places += [(cards, k) for k in range(len(cards)) if not seen.spread[s, k]]
        places += [(g.dealer_cards, k) for k in range(len(g.dealer_cards)) if not seen.dealer[k]]
        places += [(g.info_cards, s) for s in range(len(g.info_cards)) if s != seat and g.info_cards[s] >= 0]
        deck = g.deck.cards
        places += [(deck, i) for i in range(g.deck.top, len(deck))]
        cards = sorted(lst[i] for lst, i in places)  # sorted: the arrangement depends on nothing unseen
        for (lst, i), c in zip(places, rng.permutation(cards).tolist(), strict=True):
            lst[i] = c
        return g

    def _tables(self, deciders: Sequence[int], seat: int) -> list[np.ndarray | None]:
        """Each spread's decider's two-card rule (the expert's rule for this seat's own spreads)."""
        out: list[np.ndarray | None] = []
        for d in deciders:
            if d < 0:
                out.append(None)
            elif d == seat:
                out.append(self.base_table)
            else:
                out.append(self._agents[d].draw_rule_table())
        return out

    def _settlements(
        self, first: np.ndarray, second: np.ndarray, third: np.ndarray, status: np.ndarray, dealer: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(n, 4)`` multipliers of every spread (as if backed; 0 when escaped) against the dealer's
        two cards and against its three (``dealer``: its three candidate cards, ``(n, 3)``)."""
        n = dealer.shape[0]
        firsts = np.broadcast_to(first, (n, NUM_SPREADS))
        drew = status == DREW
        codes = self.settle.dealer_codes(dealer[:, :2], np.zeros((n, 2), dtype=bool))
        two = (firsts - 1) * NUM_VALUES + (second - 1)
        b_code = np.where(drew, NUM_VALUES**2 + two * NUM_VALUES + (np.maximum(third, 1) - 1), two)
        values = self.settle.values  # filled: a plain gather
        live = status != ESCAPED
        stand = np.where(live, values[codes[:, :1], b_code], 0.0)
        draw = np.where(live, values[codes[np.arange(n), dealer[:, 2]][:, None], b_code], 0.0)
        return stand, draw

    def _outcomes(
        self,
        first: np.ndarray,
        second: np.ndarray,
        third: np.ndarray,
        status: np.ndarray,
        dealer: np.ndarray,
        totals: np.ndarray,
        dealer_agent: OichoAgentBase,
        settlements: tuple[np.ndarray, np.ndarray],
    ) -> np.ndarray:
        """``(n, 4)`` multipliers of the backed spreads (0 elsewhere) once the dealer has stood or drawn
        by its policy, which sees the stakes ``totals``, the states and the drawn cards (and, with
        ``unbacked_spread_card``, the unbacked spreads' ``second`` and ``third`` cards, turned up)."""
        n = dealer.shape[0]
        backed = np.broadcast_to(np.asarray(totals) > 0, (n, NUM_SPREADS))
        status = np.where(backed, status, UNDECIDED)
        turned = ~backed if self.cfg.unbacked_spread_card else np.zeros_like(backed)
        acts = dealer_agent.dealer_draw_model(
            dealer[:, :2],
            np.broadcast_to(first, (n, NUM_SPREADS)),
            np.where((status == DREW) | turned, third, 0),
            status,
            np.broadcast_to(totals, (n, NUM_SPREADS)),
            np.where(turned, second, 0),
        )
        stand, draw = settlements
        return np.where(backed, np.where((acts == DRAW)[:, None], draw, stand), 0.0)

    # --- bets --------------------------------------------------------------------------------------
    def _bet(self, game: Game, seat: int, seen: _Seen, action: int | None) -> tuple[int, float]:
        """The planned stake (the seat's bets are consecutive turns, planned at the first of them);
        with ``action``, the regret of the agent's whole stake vector at its last bet turn."""
        key = (self._deal, game.active_spread, tuple(map(tuple, game.stakes))) if not self._own_bets else None
        plan = self._plans.get(key) if key is not None else self._plans.get("current")
        if plan is None:
            plan = self._plan_bets(game, seat, seen)
            if key is not None:
                self._plans[key] = plan
        self._plans["current"] = plan
        self.decisions["bet"] += 1
        i = len(self._own_bets)
        chosen = BET_BASE + plan["profile"][i]
        self._own_bets.append((chosen if action is None else action) - BET_BASE)
        if action is None or len(self._own_bets) < len(plan["profile"]):
            return chosen, 0.0
        agent_values = plan["value_b"](tuple(self._own_bets))
        if agent_values is None:
            raise RuntimeError("the agent's stakes did not fit the simulated table")
        return chosen, float((plan["best_b"] - agent_values).mean())

    def _plan_bets(self, game: Game, seat: int, seen: _Seen) -> dict[str, Any]:
        """The stakes of the seat's remaining bet turns, planned together (module docstring)."""
        self.decisions["bet_plan"] += 1
        deal = 0 if self._deal is None else int(self._deal)
        rng = make_rng([self.seed, deal & 0xFFFFFFFF, game.active_spread])
        root = self._redealt(game, seat, seen, rng)
        first = seen.spread[:, 0]
        dealer_agent = self._agents[game.dealer]
        settled: dict[tuple[int, ...], Game | None] = {}

        def after_bets(profile: tuple[int, ...]) -> Game | None:
            if profile not in settled:
                settled[profile] = self._play_bets(root, seat, profile)
            return settled[profile]

        def evaluator(draws: np.ndarray) -> Any:
            second, third, dealer = draws[:, :4], draws[:, 4:8], draws[:, 8:]
            cache: dict[tuple[int, ...], np.ndarray | None] = {}
            pre: dict[tuple[bytes, ...], tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]] = {}

            def value(profile: tuple[int, ...]) -> np.ndarray | None:
                if profile in cache:
                    return cache[profile]
                g = after_bets(profile)
                if g is None:
                    cache[profile] = None
                    return None
                totals = np.asarray(g.spread_total)
                own = np.asarray([st[seat] for st in g.stakes], dtype=np.float64)
                if own.sum() == 0:
                    cache[profile] = v = np.zeros(draws.shape[0])
                    return v
                tables = self._tables(g.decider, seat)
                key = tuple(b"" if t is None else t.tobytes() for t in tables)
                if key not in pre:
                    status = np.zeros((draws.shape[0], NUM_SPREADS), dtype=np.int64)
                    for sp, table in enumerate(tables):
                        if table is not None:
                            status[:, sp] = table[first[sp], second[:, sp]] + 1  # action + 1 = state
                    pre[key] = status, self._settlements(first, second, third, status, dealer)
                status, settlements = pre[key]
                m = self._outcomes(first, second, third, status, dealer, totals, dealer_agent, settlements)
                cache[profile] = v = m @ own
                return v

            return value

        pool = seen.pool()
        value_a = evaluator(_sample(rng, pool, 2 * NUM_SPREADS + 3, self.samples))
        value_b = evaluator(_sample(rng, pool, 2 * NUM_SPREADS + 3, self.samples))
        current = self._base_profile(root, seat)
        best = value_a(current)
        assert best is not None
        sizes = len(self.cfg.bet_sizes) + 1
        for _ in range(4):
            changed = False
            for i in range(len(current)):
                for k in range(sizes):
                    cand = current[:i] + (k,) + current[i + 1 :]
                    v = value_a(cand)
                    if v is not None and cand != current and _better(v - best, self.z):
                        current, best, changed = cand, v, True
            if not changed:
                break
        return {"profile": current, "value_b": value_b, "best_b": value_b(current)}

    def _base_profile(self, root: Game, seat: int) -> tuple[int, ...]:
        """The expert's stakes on the seat's remaining bet turns (the search's starting point)."""
        g = root.clone(root.rng)
        out = []
        while g.phase == Phase.BET and g.current_player == seat:
            a = self.base.act(self.encoder.encode(g, seat), self._mask(g))
            out.append(a - BET_BASE)
            g.apply_action(a)
        return tuple(out)

    def _play_bets(self, root: Game, seat: int, profile: tuple[int, ...]) -> Game | None:
        """``root`` after this seat stakes ``profile`` on its next bet turns and the later bettors bet
        by their policies (None when a stake does not fit the table)."""
        g = root.clone(root.rng)
        i = 0
        while g.phase == Phase.BET:
            p = g.current_player
            if p == seat:
                if i >= len(profile):
                    return None
                a = BET_BASE + profile[i]
                i += 1
                if a not in g._legal:
                    return None
            else:
                a = int(self._agents[p].act(self.encoder.encode(g, p), self._mask(g)))
            g.apply_action(a)
        return g if i == len(profile) else None

    def _mask(self, g: Game) -> np.ndarray:
        mask = np.zeros(g.num_actions, dtype=np.int8)
        mask[g.legal_actions()] = 1
        return mask

    # --- a bettor's draw ---------------------------------------------------------------------------
    def draw_values(
        self, game: Game, seat: int, seen: _Seen, legal: Sequence[int], rng: np.random.Generator
    ) -> dict[int, np.ndarray]:
        """Per legal action at this draw turn, the seat's chips on ``samples`` common draws of the
        unseen cards consistent with the other deciders' choices (module docstring)."""
        s0 = game.active_spread
        totals = np.asarray(game.spread_total)
        tables = self._tables(game.decider, seat)
        first, shown_second, shown_third = seen.spread[:, 0], seen.spread[:, 1], seen.spread[:, 2]
        hidden = [s for s in range(NUM_SPREADS) if totals[s] > 0 and not shown_second[s]]
        later = [s for s in range(s0, NUM_SPREADS) if totals[s] > 0 and seen.status[s] == UNDECIDED]
        # with ``unbacked_spread_card`` the unbacked spreads' two cards, turned up before the dealer's
        # draw (not yet dealt or seen at a bettor's draw)
        turned = [s for s in range(NUM_SPREADS) if totals[s] == 0] if self.cfg.unbacked_spread_card else []
        k = len(hidden) + len(later) + 2 * len(turned) + 3
        second = np.zeros((0, NUM_SPREADS), dtype=np.int64)
        third, dealer = second, np.zeros((0, 3), dtype=np.int64)
        for _ in range(20):  # rejection: grow until enough draws fit the deciders' choices
            draws = _sample(rng, seen.pool(), k, 4 * self.samples)
            sec = np.broadcast_to(shown_second, (draws.shape[0], NUM_SPREADS)).copy()
            sec[:, hidden] = draws[:, : len(hidden)]
            thi = np.broadcast_to(shown_third, sec.shape).copy()
            thi[:, later] = draws[:, len(hidden) : len(hidden) + len(later)]
            at = len(hidden) + len(later)
            sec[:, turned] = draws[:, at : at + len(turned)]
            thi[:, turned] = draws[:, at + len(turned) : at + 2 * len(turned)]
            ok = np.ones(draws.shape[0], dtype=bool)
            for s in hidden:
                table = tables[s]
                if seen.status[s] != UNDECIDED and table is not None:
                    ok &= table[first[s], sec[:, s]] + 1 == seen.status[s]
            second = np.concatenate([second, sec[ok]])
            third = np.concatenate([third, thi[ok]])
            dealer = np.concatenate([dealer, draws[ok][:, -3:]])
            if second.shape[0] >= self.samples:
                break
        second, third, dealer = second[: self.samples], third[: self.samples], dealer[: self.samples]
        own = np.asarray([st[seat] for st in game.stakes], dtype=np.float64)
        out = {}
        for a in legal:
            status = np.broadcast_to(seen.status, second.shape).copy()
            status[:, s0] = a + 1
            for s in later:
                table = tables[s]
                if s != s0 and table is not None:
                    status[:, s] = table[first[s], second[:, s]] + 1
            settlements = self._settlements(first, second, third, status, dealer)
            m = self._outcomes(
                first, second, third, status, dealer, totals, self._agents[game.dealer], settlements
            )
            out[int(a)] = m @ own
        return out

    def _draw(
        self, game: Game, seat: int, seen: _Seen, legal: np.ndarray, action: int | None
    ) -> tuple[int, float]:
        s0 = game.active_spread
        base = int(self.base_table[seen.spread[s0, 0], seen.spread[s0, 1]])
        q = self.draw_values(game, seat, seen, legal.tolist(), self.rng)
        best = base
        for a in legal.tolist():
            if a != best and _better(q[a] - q[best], self.z):
                best = a
        if action is None or action == best:
            return best, 0.0
        q = self.draw_values(game, seat, seen, [best, action], self.rng)  # independent draws to value
        return best, float((q[best] - q[action]).mean())

    # --- the dealer's minso (exact over tables, Monte Carlo over the rest) -------------------------
    def _after_keep(self, root: Game, values: Sequence[int]) -> Game:
        """``root`` (at a minso question) with the table of these first-card values kept and the
        bettors' stakes placed by their policies (they see the table and nothing hidden)."""
        g = root.clone(root.rng)
        copies = [0] * (NUM_VALUES + 1)
        for s, v in enumerate(values):
            g.spreads[s] = [card_id(int(v), copies[v] % COPIES)]  # ids: only the values matter here
            copies[v] += 1
        g.apply_action(KEEP)
        while g.phase == Phase.BET:
            p = g.current_player
            g.apply_action(int(self._agents[p].act(self.encoder.encode(g, p), self._mask(g))))
        return g

    def keep_chips(self, root: Game, tables: np.ndarray, draws: np.ndarray) -> np.ndarray:
        """``(K, m)``: the dealer's chips when it keeps table k (first-card values, ``(K, 4)``), on each
        of its ``m`` draws of the second, third and dealer cards (``(K, m, 11)``): the bettors' stakes by
        their policies, their draws by their rules, its own draw by the expert's rule."""
        k_tables, m = draws.shape[:2]
        totals = np.zeros((k_tables, NUM_SPREADS))
        status = np.zeros((k_tables, m, NUM_SPREADS), dtype=np.int64)
        for k, values in enumerate(tables.tolist()):
            g = self._after_keep(root, values)
            totals[k] = g.spread_total
            for sp, table in enumerate(self._tables(g.decider, -1)):
                if table is not None:
                    status[k, :, sp] = table[values[sp], draws[k, :, sp]] + 1
        n = k_tables * m
        first = np.repeat(tables, m, axis=0)
        rows = draws.reshape(n, -1)
        status_rows, total_rows = status.reshape(n, NUM_SPREADS), np.repeat(totals, m, axis=0)
        out = np.zeros(n)
        for lo in range(0, n, 20000):  # chunks: the dealer's model builds (rows, 11, 4, 10) arrays
            sl = slice(lo, lo + 20000)
            f, second, third, dealer = first[sl], rows[sl, :4], rows[sl, 4:8], rows[sl, 8:]
            settlements = self._settlements(f, second, third, status_rows[sl], dealer)
            mult = self._outcomes(
                f, second, third, status_rows[sl], dealer, total_rows[sl], self.base, settlements
            )
            out[sl] = -(mult * total_rows[sl]).sum(axis=1)
        return out.reshape(k_tables, m)

    def all_tables(self) -> tuple[np.ndarray, np.ndarray]:
        """Every table a redeal can bring, as ordered first-card values ``(K, 4)``, and its probability
        (cards drawn from all 40: the table goes back and the deck is reshuffled; a triple is dealt
        again under ``redeal_on_triple_table``, so those tables have probability 0)."""
        grid = np.stack(np.meshgrid(*[np.arange(1, NUM_VALUES + 1)] * NUM_SPREADS, indexing="ij"), -1)
        grid = grid.reshape(-1, NUM_SPREADS)
        weight = np.ones(grid.shape[0])
        for j in range(NUM_SPREADS):
            weight *= COPIES - (grid[:, :j] == grid[:, j : j + 1]).sum(axis=1)
        if self.cfg.redeal_on_triple_table:
            same = (grid[:, :, None] == grid[:, None, :]).sum(axis=2).max(axis=1)
            weight[same >= 3] = 0
        keep = weight > 0
        return grid[keep], weight[keep] / weight[keep].sum()

    def redeal_values(self, root: Game, left: int) -> tuple[float, float, float]:
        """The dealer's expected chips of a REDEAL that leaves ``left`` more questions, twice (on
        independent draws: one to choose, one to value) and the standard error of each: every table it
        can bring (``all_tables``), ``minso_draws`` draws of the rest per table, the table kept or
        (while questions are left) redealt again by the expert's minso rule."""
        tables, weight = self.all_tables()
        rng = make_rng([self.seed, 0x5EED])
        full = np.full(NUM_VALUES + 1, COPIES, dtype=np.int64)
        full[0] = 0
        m = self.minso_draws
        draws = np.zeros((tables.shape[0], 2 * m, 2 * NUM_SPREADS + 3), dtype=np.int64)
        for k, values in enumerate(tables.tolist()):
            pool = full.copy()
            np.subtract.at(pool, values, 1)
            draws[k] = _sample(rng, pool, 2 * NUM_SPREADS + 3, 2 * m)
        chips = self.keep_chips(root, tables, draws)
        redeals = np.array([left > 0 and self._expert_redeals(root, t) for t in tables.tolist()], dtype=bool)
        out = []
        for half in (chips[:, :m], chips[:, m:]):
            value = half.mean(axis=1)
            for _ in range(left):  # the expert's later questions: a redeal is worth the level below
                value = np.where(redeals, float(weight @ value), half.mean(axis=1))
            out.append(float(weight @ value))
        se = float(np.sqrt((weight**2 * chips[:, :m].var(axis=1, ddof=1) / m).sum()))
        return out[0], out[1], se

    def _expert_redeals(self, root: Game, values: Sequence[int]) -> bool:
        g = root.clone(root.rng)
        for s, v in enumerate(values):
            g.spreads[s] = [card_id(int(v))]
        return int(self.base.act(self.encoder.encode(g, g.dealer), self._mask(g))) == REDEAL

    def _minso(self, game: Game, seat: int, seen: _Seen, action: int | None) -> tuple[int, float]:
        """KEEP or REDEAL: the table's value (``keep_chips`` on ``samples`` draws of the unseen cards)
        against a redeal's (``redeal_values``: computed once per rule set, seats and questions left, as
        it depends on nothing else the dealer sees). The expert's choice unless the other gains ``z``
        standard errors; with ``action``, both valued again on independent draws."""
        table = seen.spread[:, 0]
        key = ("minso", game.minso_redeals, tuple(table.tolist()))
        if key not in self._plans:  # the same deal and question: shared by the agents evaluated on it
            deal = 0 if self._deal is None else int(self._deal)
            rng = make_rng([self.seed, deal & 0xFFFFFFFF, 99, game.minso_redeals])
            root = self._redealt(game, seat, seen, rng)
            left = self.cfg.minso_limit - game.minso_redeals - 1  # questions after a redeal
            agents = tuple((type(a).__name__, repr(getattr(a, "p", None))) for a in self._agents)
            # the table of seats matters too (who bets in which order, with what chips)
            seats = (game.dealer, tuple(game.betting_order), tuple(game.chips))
            rkey = (self.cfg, self.seed, self.minso_draws, left, agents, seats)
            if rkey not in _REDEAL_VALUES:  # per process: the best responses of one evaluation share it
                _REDEAL_VALUES[rkey] = self.redeal_values(root, left)
            redeal_a, redeal_b, redeal_se = _REDEAL_VALUES[rkey]
            n = max(2, self.samples // 4)  # the table's own value: the dealer's model is the cost
            draws = _sample(rng, seen.pool(), 2 * NUM_SPREADS + 3, 2 * n)
            keep = self.keep_chips(root, table[None, :], draws[None])[0]
            keep_a, keep_b = keep[:n], keep[n:]
            gain_a = redeal_a - keep_a.mean()
            se = float(np.sqrt(keep_a.var(ddof=1) / keep_a.size + redeal_se**2))
            best = int(self.base.act(self.encoder.encode(game, seat), self._mask(game)))
            if best == KEEP and gain_a > max(self.z * se, 1e-12):
                best = REDEAL
            elif best == REDEAL and -gain_a > max(self.z * se, 1e-12):
                best = KEEP
            gain_b = redeal_b - keep_b.mean()
            self._plans[key] = {"best": best, "regret": gain_b if best == REDEAL else -gain_b}
        plan = self._plans[key]
        if action is None or action == plan["best"]:
            return plan["best"], 0.0
        return plan["best"], float(plan["regret"])

    # --- the dealer's draw (exact) -----------------------------------------------------------------
    def dealer_values(self, game: Game, seen: _Seen) -> dict[int, float]:
        """The dealer's exact expected chips of STAND and DRAW given what it sees (module docstring)."""
        totals = np.asarray(game.spread_total, dtype=np.float64)
        backed = [s for s in range(NUM_SPREADS) if totals[s] > 0]
        tables = self._tables(game.decider, -1)
        first, third = seen.spread[:, 0], seen.spread[:, 2]
        codes = self.settle.dealer_codes(seen.dealer[None, :2], np.zeros((1, 2), dtype=bool))[0]  # (11,)
        counts = seen.pool()
        k = len(backed)
        grid = np.stack(np.meshgrid(*[np.arange(1, NUM_VALUES + 1)] * k, indexing="ij"), -1).reshape(-1, k)
        weight = np.ones(grid.shape[0])
        for j, s in enumerate(backed):
            x = grid[:, j]
            earlier = (grid[:, :j] == x[:, None]).sum(axis=1)
            weight *= np.maximum(counts[x] - earlier, 0)  # cards left of that value
            table = tables[s]
            assert table is not None
            weight *= table[first[s], x] + 1 == seen.status[s]  # the decider's rule gives what it did
        keep = weight > 0
        grid, weight = grid[keep], weight[keep] / weight[keep].sum()
        xs = np.arange(1, NUM_VALUES + 1)
        stand = np.zeros(grid.shape[0])
        draw = np.zeros((grid.shape[0], NUM_VALUES))
        for j, s in enumerate(backed):
            if seen.status[s] == ESCAPED:
                continue
            two = (first[s] - 1) * NUM_VALUES + (xs - 1)
            b = NUM_VALUES**2 + two * NUM_VALUES + (third[s] - 1) if seen.status[s] == DREW else two
            by_x = self.settle.lookup(np.full(NUM_VALUES, codes[0]), b)  # (10,) by hidden value
            by_yx = self.settle.lookup(np.repeat(codes[1:], NUM_VALUES), np.tile(b, NUM_VALUES))
            x = grid[:, j] - 1
            stand -= totals[s] * by_x[x]
            draw -= totals[s] * by_yx.reshape(NUM_VALUES, NUM_VALUES)[:, x].T  # [y, x] -> (G, y)
        left = counts[xs][None, :] - (grid[:, :, None] == xs).sum(axis=1)  # unseen after the grid
        p_y = left / left.sum(axis=1, keepdims=True)
        return {STAND: float(weight @ stand), DRAW: float(weight @ (p_y * draw).sum(axis=1))}


__all__ = ["OichoBestResponse", "check_supported", "SUPPORTED"]
