"""The Kakeya search player: Perfect-Information Monte Carlo over deals consistent with its observation.

``KakeyaExpertAgent`` is the search as it shipped in 0.2 (its ``DEFAULT_PARAMS`` are 0.2's, so agent files
saved then load as the same player); the registry names it with those parameters ``expert_0_2``. The
registry's ``expert`` is its kernel version with more deals and a race (``kernel_expert.py``).

Every decision is made from the seat's own observation (``knowledge.py`` decodes it; hidden cards
are never read):

1. **Sample** ``samples`` deals of the unseen cards uniformly among those consistent with everything
   the seat has seen: the hand counts, the cards played, the suits each seat has shown out of (with
   ``rensho_follow="free"`` a seat shown out of Rensho's suit may still hold Rensho)
   (``kabu_envs/kakeya/sampler.py``). Past plays are not weighted by how likely they were.
2. **Evaluate** every legal card (equivalent low cards once) on the SAME sampled deals: an exact
   double-dummy search (the exact stones of the deal with the 8-8 rule) once at most ``dd_tricks``
   tricks remain, else a play-out of the rest of the deal by the scripted rules of thumb. Both run on
   the compiled kernel (``search.py``, ``kabu_envs/kakeya/kernel/search.py``): one call evaluates every
   (sample, candidate) pair of a decision.
3. **Play** the card with the best mean value; ties go to the scripted choice.

The lead choice (LEAD_SELF / LEAD_PARTNER) and the trump choice use the same machinery: the seat's
unknown cards (for the trump: every hand, as nothing is dealt yet) are sampled and each option is played
out from the first trick. For the trump, the leading partnership is taken to be that of the first seat
dealt to (always right with two sides; with ``all_play`` the observation does not say who won the last
deal). A seat whose partnership sits the deal out keeps the current trump (its reward is 0 whatever).

The budget per decision is deterministic (``samples``, ``dd_tricks``), so a seed fixes every decision;
``max_ms`` optionally caps the CPU time of a decision (stopping after the sample that crosses it, at
least one sample): a cap makes decisions depend on the machine's speed, so it is off by default.

``expert_0_2`` (the registry's name for these default parameters) is the expert as it shipped in 0.2,
then in Python and then the registry's ``expert``: the kernel-based search makes the same decisions from
the same seed, bit for bit (tests/agents/test_kakeya_expert_0_2.py holds it to a fixture recorded from
the Python search).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kabu_envs.agents.base import BaseAgent, Capabilities, legal_from_mask, loadable
from kabu_envs.agents.batching import act_row_by_row, check_batch, check_rngs
from kabu_envs.kakeya.actions import LEAD_PARTNER, LEAD_SELF, TRUMP_BASE
from kabu_envs.kakeya.agents.search import Deal, Position, Search, trick_order
from kabu_envs.kakeya.cards import ACE, JACK, KING, NUM_CARDS, NUM_RANKS, NUM_SUITS
from kabu_envs.kakeya.config import OPTIONS, make_config
from kabu_envs.kakeya.game import Phase
from kabu_envs.kakeya.knowledge import SeatView, ViewDecoder
from kabu_envs.kakeya.sampler import DealSampler
from kabu_envs.kakeya.tricks import rensho_card

DEFAULT_PARAMS: dict[str, Any] = {
    "samples": 16,  # sampled deals per card decision
    "lead_samples": 12,  # per lead choice
    "trump_samples": 8,  # per trump choice
    "dd_tricks": 2,  # exact search once at most this many tricks remain (0: never)
    "max_ms": None,  # optional CPU-time cap per decision (ms)
    "rensho_min_egara": 2,  # the play-out policy's parameter (as the scripted player's)
    "lead_self_strength": 2,  # the play-out policy's lead choice (as the scripted player's)
}


@loadable
class KakeyaExpertAgent(BaseAgent):
    """Plays any Kakeya decision by sampling and search; ``options`` are the env's rule options plus the
    parameters above."""

    # saved agent files (BaseAgent.save) written before the class moved into the game's package; 0.2's
    # ``expert`` files name this class and load as that player (the registry's ``expert`` is now
    # kernel_expert.py's)
    former_names = ("kabu_envs.agents.kakeya_expert.KakeyaExpertAgent",)

    name = "kakeya_search"
    capabilities = Capabilities(values=True)

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        unknown = set(options) - set(OPTIONS.names) - set(DEFAULT_PARAMS)
        if unknown:
            raise ValueError(
                f"KakeyaExpertAgent: unknown option(s) {sorted(unknown)}; "
                f"parameters: {sorted(DEFAULT_PARAMS)}"
            )
        super().__init__(seed=seed, **options)
        self.cfg = make_config(**{k: v for k, v in options.items() if k in OPTIONS})
        self.params = {**DEFAULT_PARAMS, **{k: v for k, v in options.items() if k in DEFAULT_PARAMS}}
        for key in ("samples", "lead_samples", "trump_samples"):
            if not isinstance(self.params[key], int) or self.params[key] < 1:
                raise ValueError(f"KakeyaExpertAgent: {key} must be an int >= 1, got {self.params[key]!r}")
        if not isinstance(self.params["dd_tricks"], int) or self.params["dd_tricks"] < 0:
            raise ValueError(
                f"KakeyaExpertAgent: dd_tricks must be an int >= 0, got {self.params['dd_tricks']!r}"
            )
        cap = self.params["max_ms"]
        if cap is not None and (isinstance(cap, bool) or not isinstance(cap, (int, float)) or cap < 0):
            raise ValueError(f"KakeyaExpertAgent: max_ms must be None or a number >= 0, got {cap!r}")
        if cap is not None:  # a decision then depends on the machine's pace: one deal at a time
            self.capabilities = Capabilities(batch=False, values=True)
        self.decoder = ViewDecoder(self.cfg)
        self._free = self.cfg.rensho_follow == "free"
        self._search: Search | None = None  # made on the first decision (numba loads then)
        self._values: dict[int, float] = {}  # the last decision's options -> mean value (act_with_values)
        self._drawn = 0  # the samples the last search drew (fewer than its budget under max_ms)

    # --- the deal's fixed facts -------------------------------------------------------------------
    def _playing(self, view: SeatView) -> tuple[int, ...]:
        m = self.cfg.num_partnerships
        dealers = view.first_dealer % m
        return tuple(p for p in range(m) if not (self.cfg.dealers_sit_out and p == dealers))

    def _deal(self, view: SeatView, trump: int) -> Deal:
        """The deal's fixed facts for the search, were ``trump`` the trump."""
        m = self.cfg.num_partnerships
        rensho = rensho_card(trump, self.cfg.rensho_rule)
        return Deal(trump, rensho, view.first_dealer % m, view.stones)

    @property
    def search(self) -> Search:
        """The kernel's search (made, and the kernel loaded, on first use)."""
        if self._search is None:
            self._search = Search(self.cfg, self.params["rensho_min_egara"])
        return self._search

    # --- the protocol -----------------------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self._values = {}
        legal = [int(a) for a in legal_from_mask(action_mask)]
        if len(legal) == 1:
            return legal[0]
        view = self.decoder.decode(np.asarray(observation))
        if view.phase is Phase.TRUMP:
            return self._choose_trump(view, legal)
        if view.phase is Phase.LEAD:
            return self._choose_lead(view, legal)
        if view.phase is Phase.PLAY:
            return self._choose_card(view, legal)
        raise ValueError(f"KakeyaExpertAgent: no decision in phase {view.phase.name} (legal: {legal})")

    def act_batch(
        self,
        observations: np.ndarray,
        action_masks: np.ndarray,
        rngs: Sequence[np.random.Generator] | None = None,
    ) -> np.ndarray:
        """``act`` on every row of ``(B, obs)``, ``(B, A)``: ``(B,)`` int64, row i searched with
        ``self.rng`` = ``rngs[i]`` (None: the agent's own, row after row). One search per decision, row
        by row: what batching buys is the batch engine and batched players at the same table."""
        obs, masks = check_batch(observations, action_masks, self.decoder.size)
        check_rngs(rngs, obs.shape[0])
        return act_row_by_row(self, obs, masks, rngs)

    def act_with_values(self, observation: np.ndarray, action_mask: np.ndarray) -> tuple[int, np.ndarray]:
        """``act``, and the searched options' mean values over their sampled deals (this deal's reward for
        the seat; NaN for the actions not searched: illegal ones, the equivalent low cards the search
        skips, and every action of a forced or single-candidate decision): a soft teacher's labels."""
        action = self.act(observation, action_mask)
        values = np.full(np.asarray(action_mask).shape, np.nan)
        for a, v in self._values.items():
            values[a] = v
        return action, values

    def _budget(self) -> tuple[float, float | None]:
        """(start, cap) of the optional CPU-time cap, in seconds (no clock read without a cap)."""
        cap = self.params["max_ms"]
        if cap is None:
            return 0.0, None
        return time.process_time(), float(cap) / 1000.0

    @staticmethod
    def _over(start: float, cap: float | None) -> bool:
        return cap is not None and time.process_time() - start > cap

    # --- card play --------------------------------------------------------------------------------
    def position(self, view: SeatView, others: dict[int, int]) -> Position:
        """The position of this decision with the other seats' hands ``others`` (seat -> cards)."""
        n = self.cfg.num_players
        hands = [view.hand if k == 0 else others.get(k, 0) for k in range(n)]
        order = [
            s
            for s in ((view.leader + k) % n for k in range(n))
            if view.hand_counts[s] > 0 or view.trick[s] >= 0
        ]
        trick = [view.trick[s] for s in order if view.trick[s] >= 0]
        if order[len(trick)] != 0:
            raise ValueError("KakeyaExpertAgent: the observation is not this seat's turn to play")
        return Position(hands, list(view.captured), view.played, list(view.voids), order, trick)

    def sampler(self, view: SeatView) -> DealSampler:
        """Uniform consistent deals of the cards this seat cannot see."""
        seats = list(range(1, self.cfg.num_players))
        return DealSampler(
            view.unseen,
            seats,
            [view.hand_counts[k] for k in seats],
            view.voids,
            view.rensho,
            self._free,
        )

    def candidates(self, view: SeatView, legal: list[int]) -> list[int]:
        """The legal cards, one of each run of equivalent low cards (no egara, same suit, no card
        between them that is still in play or in the trick)."""
        alive = view.unseen | view.hand
        for c in view.trick:
            if c >= 0:
                alive |= 1 << c
        out: list[int] = []
        prev = -2
        for c in legal:
            if (
                prev >= 0
                and c % NUM_RANKS < JACK
                and prev % NUM_RANKS < JACK
                and c // NUM_RANKS == prev // NUM_RANKS
                and c != view.rensho
                and not (alive >> (prev + 1)) & ((1 << (c - prev - 1)) - 1)
            ):
                prev = c
                continue
            out.append(c)
            prev = c
        return out

    def card_values(self, view: SeatView, cards: list[int]) -> list[float]:
        """Total value of each card over the sampled deals (the same deals for every card), summed in
        sample order; one kernel call for all (sample, card) pairs (one per sample under ``max_ms``)."""
        search = self.search
        deal = self._deal(view, view.trump)
        sampler = self.sampler(view)
        remaining = view.hand.bit_count() + view.unseen.bit_count()
        playing_seats = sum(1 for c in view.hand_counts if c > 0) + sum(
            1 for k, c in enumerate(view.trick) if c >= 0 and view.hand_counts[k] == 0
        )
        tricks_left = -(-remaining // max(playing_seats, 1))
        exact = tricks_left <= self.params["dd_tricks"]
        seen = self.position(view, {})
        totals = np.zeros(len(cards), dtype=np.float64)
        start, cap = self._budget()
        self._drawn = self.params["samples"]
        if cap is None:
            drawn = [sampler.sample(self.rng) for _ in range(self.params["samples"])]
            search.card_totals(seen, view.hand_counts, deal, search.hands_array(drawn), cards, exact, totals)
        else:
            for k in range(self.params["samples"]):
                others = search.hands_array([sampler.sample(self.rng)])
                search.card_totals(seen, view.hand_counts, deal, others, cards, exact, totals)
                if self._over(start, cap):
                    self._drawn = k + 1
                    break
        return [float(t) for t in totals]

    def _playout_totals(
        self, draw: Callable[[], list[tuple[Position, Deal]]], samples: int, width: int
    ) -> list[float]:
        """Play out ``width`` options on each of ``samples`` draws (``draw()``: one sample's rows, an
        option each) and total each option's values in sample order."""
        totals = [0.0] * width
        self._drawn = samples
        start, cap = self._budget()
        rows: list[tuple[Position, Deal]] = []

        def flush() -> None:
            for j, v in enumerate(self.search.playout_many(rows)):
                totals[j % width] += float(v)
            rows.clear()

        for k in range(samples):
            rows.extend(draw())
            if cap is not None:
                flush()
                if self._over(start, cap):
                    self._drawn = k + 1
                    break
        if rows:
            flush()
        return totals

    def _choose_card(self, view: SeatView, legal: list[int]) -> int:
        if any(a >= NUM_CARDS for a in legal):
            raise ValueError(f"KakeyaExpertAgent: a play decision with non-card actions legal: {legal}")
        cards = self.candidates(view, legal)
        # the scripted choice, from this seat's own view (the policy reads only my hand and public cards)
        preferred = self.search.policy(
            self.position(view, {}), self._deal(view, view.trump), view.hand_counts
        )
        if len(cards) == 1:
            return cards[0]
        totals = self.card_values(view, cards)
        self._values = {c: t / self._drawn for c, t in zip(cards, totals, strict=True)}
        best = max(totals)
        ties = [c for c, t in zip(cards, totals, strict=True) if t >= best - 1e-9]
        if preferred in ties:
            return preferred
        return ties[0]

    # --- lead and trump -----------------------------------------------------------------------------
    def _choose_lead(self, view: SeatView, legal: list[int]) -> int:
        n, m = self.cfg.num_players, self.cfg.num_partnerships
        deal = self._deal(view, view.trump)
        sampler = self.sampler(view)
        options = [a for a in (LEAD_SELF, LEAD_PARTNER) if a in legal]

        def draw() -> list[tuple[Position, Deal]]:
            others = sampler.sample(self.rng)
            hands = [view.hand if k == 0 else others.get(k, 0) for k in range(n)]
            rows = []
            for a in options:
                leader = 0 if a == LEAD_SELF else m
                rows.append((Position(hands[:], [0] * m, 0, [0] * n, trick_order(leader, hands)), deal))
            return rows

        totals = self._playout_totals(draw, self.params["lead_samples"], len(options))
        self._values = {a: t / self._drawn for a, t in zip(options, totals, strict=True)}
        preferred = LEAD_SELF if self._strength(view.hand, view.trump, view.rensho) else LEAD_PARTNER
        best = max(totals)
        ties = [a for a, t in zip(options, totals, strict=True) if t >= best - 1e-9]
        return preferred if preferred in ties else ties[0]

    def _strength(self, hand: int, trump: int, rensho: int) -> bool:
        """The scripted lead rule: at least ``lead_self_strength`` sure winners (Rensho, trump A/K, aces)."""
        sure = 0
        for c in range(NUM_CARDS):
            if (hand >> c) & 1:
                rank, suit = c % NUM_RANKS, c // NUM_RANKS
                sure += c == rensho or (suit == trump and rank >= KING) or rank == ACE
        return sure >= self.params["lead_self_strength"]

    def trump_seats(self, view: SeatView) -> tuple[list[int], int, int]:
        """The trump choice's model of the deal: the seats dealt to in order (``receivers``), the
        chooser (the first of them, its partnership leading) and the chooser's partner."""
        n, m = self.cfg.num_players, self.cfg.num_partnerships
        dealers = view.first_dealer % m
        receivers = [
            s
            for s in ((view.first_dealer + k) % n for k in range(1, n + 1))
            if not (self.cfg.dealers_sit_out and s % m == dealers)
        ]
        chooser = receivers[0]
        partner = next(s for s in range(chooser % m, n, m) if s != chooser)
        return receivers, chooser, partner

    def _choose_trump(self, view: SeatView, legal: list[int]) -> int:
        current = TRUMP_BASE + view.trump
        playing = self._playing(view)
        if 0 not in playing:
            return current if current in legal else legal[0]
        n, m = self.cfg.num_players, self.cfg.num_partnerships
        receivers, chooser, partner = self.trump_seats(view)
        suits = [a - TRUMP_BASE for a in legal if TRUMP_BASE <= a < TRUMP_BASE + NUM_SUITS]
        deals = [self._deal(view, trump) for trump in suits]

        def draw() -> list[tuple[Position, Deal]]:
            deck = self.rng.permutation(NUM_CARDS).tolist()
            hands = [0] * n
            for i, card in enumerate(deck):
                hands[receivers[i % len(receivers)]] |= 1 << card
            rows = []
            for deal in deals:
                leader = chooser if self._strength(hands[chooser], deal.trump, deal.rensho) else partner
                rows.append((Position(hands[:], [0] * m, 0, [0] * n, trick_order(leader, hands)), deal))
            return rows

        totals = self._playout_totals(draw, self.params["trump_samples"], len(suits))
        self._values = {TRUMP_BASE + s: t / self._drawn for s, t in zip(suits, totals, strict=True)}
        best = max(totals)
        ties = [TRUMP_BASE + s for s, t in zip(suits, totals, strict=True) if t >= best - 1e-9]
        return current if current in ties else ties[0]


def pinned(name: str, params: dict[str, Any], options: dict[str, Any], instead: str) -> dict[str, Any]:
    """``options`` with a fixed reference's ``params`` laid over them; refuses a change to any of them
    (rule options pass), so a frozen player cannot be built with other settings by mistake."""
    changed = sorted(k for k, v in options.items() if k in params and v != params[k])
    if changed:
        raise ValueError(f"{name} is a fixed reference: its parameters {changed} cannot change ({instead})")
    return {**options, **params}


# the expert as it shipped in 0.2: a fixed reference player, whatever ``DEFAULT_PARAMS`` become
EXPERT_0_2: dict[str, Any] = {
    "samples": 16,
    "lead_samples": 12,
    "trump_samples": 8,
    "dd_tricks": 2,
    "max_ms": None,
    "rensho_min_egara": 2,
    "lead_self_strength": 2,
}


@loadable
class KakeyaExpert02Agent(KakeyaExpertAgent):
    """``expert_0_2``: the expert with 0.2's parameters, pinned so that every later result is measured
    against the same player (its decisions are held to a fixture of the 0.2 search, bit for bit)."""

    name = "kakeya_expert_0_2"

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        use = "use 'expert', the stronger search, or KakeyaExpertAgent for other settings"
        super().__init__(seed=seed, **pinned("expert_0_2", EXPERT_0_2, options, use))
