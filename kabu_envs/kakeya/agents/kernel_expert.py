"""The Kakeya kernel search (``expert_0_3`` pins it; the registry's ``expert``, ``net_expert.py``, is it
with network play-outs): the search of ``expert.py`` with the sampling, the inference and the budget
inside the kernel, up to ten times the deals, raced. ``expert_0_2``, an older fixed reference, is
``expert.py``'s search with 0.2's parameters.

The same player as ``expert.py`` (Perfect-Information Monte Carlo from the seat's observation only,
play-outs by the scripted policy, the exact solver over the last ``dd_tricks`` tricks), with a card
decision made by one kernel call (``kabu_envs/kakeya/kernel/decide.py``):

* deals drawn by the kernel's sampler (``kernel/sample.py``: uniform over the consistent deals, like
  ``DealSampler``, with the kernel's generator seeded per decision from the agent's generator);
* each deal weighed by the likelihood of the current trick's earlier cards under the scripted policy
  with an ``eps`` for deviations (``decide.trick_weight``; ``eps=1``: no weighting);
* the samples raced (``decide.race``): ``min_samples`` deals for every candidate, then a candidate more
  than ``z`` paired standard errors below the best drops out every ``check_every`` deals, up to
  ``samples``; the race also stops once every candidate left is surely within ``delta`` stones of the
  best; forced moves and one-candidate decisions draw nothing.

The lead and trump choices are ``expert.py``'s (their sample counts ``lead_samples`` and
``trump_samples``; the trump's packs are dealt and played out in one kernel call too,
``decide.trump_totals``). A seed fixes every decision (the budget is counted in deals; ``max_ms`` caps
a card decision's deals at what the first ones' pace allows in that time, and the trump choice's packs,
so it depends on the machine).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from kabu_envs.agents.base import legal_from_mask, loadable
from kabu_envs.agents.batching import act_row_by_row, check_batch, check_rngs
from kabu_envs.kakeya.actions import TRUMP_BASE
from kabu_envs.kakeya.agents.expert import KakeyaExpertAgent, pinned
from kabu_envs.kakeya.agents.search import Deal, Position, Search
from kabu_envs.kakeya.cards import NUM_CARDS, NUM_SUITS
from kabu_envs.kakeya.game import Phase
from kabu_envs.kakeya.knowledge import SeatView

KERNEL_PARAMS: dict[str, Any] = {
    "samples": 160,  # most deals a card decision draws
    "min_samples": 16,  # deals every candidate gets before the race drops any
    "check_every": 8,  # deals between two looks of the race
    "z": 2.0,  # a candidate this many paired standard errors below the best drops out
    "delta": 0.0,  # stop when every candidate left is surely within this of the best (stones a deal)
    "eps": 1.0,  # the play model's deviation probability (1: deals not weighted)
    "lead_samples": 12,
    "trump_samples": 8,
    "dd_tricks": 2,
    # six players, all play: two losers tied on egara; the odd stone is paid by the lower partnership,
    # "absolute" as the game scores it, "relative" (version 0.3) counted from the deciding seat's own
    "tie_rule": "absolute",
}
RACE = ("min_samples", "check_every", "z", "delta", "eps")  # the race's numbers (``decide_rows``)
OWN = (*RACE, "tie_rule")  # the parameters ``expert.py`` does not have
TIE_RULES = ("absolute", "relative")


class KernelSearch(Search):
    """``Search`` plus the kernel sampler's scratch and the race's arrays (made once per agent), and its
    card decisions' play-outs: the rules of thumb, or with ``net`` (``net_expert.load_net``'s arrays)
    the network for ``plies`` cards of each."""

    AGENT = "KakeyaKernelExpertAgent"  # (named in its errors)

    def __init__(
        self, *args: Any, net: tuple[np.ndarray, ...] | None = None, plies: int = 0, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        from kabu_envs.kakeya import kernel

        kernel.prepare((kernel.netplay, kernel.sample, kernel.decide))
        self.kind = kernel.decide.SCRIPTED if net is None else kernel.decide.NETWORK
        self.net = kernel.netplay.empty() if net is None else net
        self.plies = plies
        self.sm = kernel.sample.make_scratch()
        self.rng = np.zeros(1, dtype=np.uint64)
        self.perm = np.zeros(NUM_CARDS, dtype=np.int64)
        self.alive = np.zeros(NUM_CARDS, dtype=np.bool_)
        self.totals = np.zeros(NUM_CARDS, dtype=np.float64)
        self.values = np.zeros((1, NUM_CARDS), dtype=np.float64)
        self.weights = np.zeros(1, dtype=np.float64)

    def seed(self, key: int) -> None:
        """The kernel generator's state (``core.seed_state(key, 0, 0)``, as ``decide`` seeds it)."""
        self.rng[0] = self._k.core.seed_state(np.uint64(key), np.uint64(0), np.uint64(0))

    def decide(
        self,
        key: int,
        cards: np.ndarray,
        exact: bool,
        samples: int,
        min_samples: int,
        check_every: int,
        z: float,
        delta: float,
        eps: float,
    ) -> int:
        """``decide.decide_cards`` from the template row (already loaded), its generator seeded from
        ``key``; returns the deals drawn."""
        if self.values.shape[0] < samples:
            self.values = np.zeros((samples, NUM_CARDS), dtype=np.float64)
            self.weights = np.zeros(samples, dtype=np.float64)
        self._stamp += 1
        k = self._k.decide.decide_cards(
            self.TEMPLATE,
            cards,
            exact,
            self.rmin,
            self.kind,
            self.plies,
            self.net,
            min_samples,
            check_every,
            z,
            delta,
            eps,
            self.st,
            self.opts,
            self.rewards,
            self.over,
            self.keys,
            self.bounds,
            self.stamps,
            self._stamp,
            self.sm,
            self.rng,
            np.uint64(key),
            self.values[:samples],  # (whole rows: always C-contiguous, one compiled version)
            self.weights[:samples],
            self.alive[: len(cards)],
            self.totals[: len(cards)],
        )
        if k < 0:
            raise ValueError(f"{self.AGENT}: no deal of the unseen cards fits the counts and the voids")
        return int(k)


@dataclass(frozen=True)
class CardJob:
    """A card decision ready for its search: the seat's view, the template row's position and deal, the
    candidates, the scripted policy's card (the tie-break) and the search's exactness and key."""

    view: SeatView
    position: Position | None
    deal: Deal | None
    cards: list[int]
    preferred: int
    exact: bool
    key: int


@dataclass(frozen=True)
class RowResults:
    """``BatchSearch.decide_rows``'s results, one row per decision."""

    drawn: np.ndarray  # (J,) the deals drawn (< 0: the sampler found no deal)
    totals: np.ndarray  # (J, 52) each candidate's weighted total
    alive: np.ndarray  # (J, 52) the candidates left in the race
    weights: np.ndarray  # (J, samples) the deals' weights


class BatchSearch(Search):
    """The workspaces of the batched card searches (``decide.decide_rows``): one template row per
    decision, then per thread ``NUM_CARDS + 8`` work rows, a transposition table, the sampler's scratch
    and a generator, grown on demand and reused (tables and memos are caches: stamps keep decisions
    apart, so a decision's result never depends on its workspace). The play-outs as ``KernelSearch``'s:
    with ``net``, its weights shared and its scratch per workspace."""

    ROWS = NUM_CARDS + 8  # a workspace's rows: the template's copy, then the work and the solver's plies

    def __init__(
        self,
        cfg: Any,
        rensho_min_egara: int = 2,
        table_bits: int = 16,
        net: tuple[np.ndarray, ...] | None = None,
        plies: int = 0,
    ) -> None:
        super().__init__(cfg, rensho_min_egara, table_bits=1)  # (the tables are per workspace, below)
        from kabu_envs.kakeya import kernel

        kernel.prepare((kernel.netplay, kernel.sample, kernel.decide))
        self.kind = kernel.decide.SCRIPTED if net is None else kernel.decide.NETWORK
        self._weights = None if net is None else net[:5]  # (w1, b1, w2, b2, gone_sum)
        self.plies = plies
        self._size = 1 << table_bits
        self._workspaces = 0
        self._grow_workspaces(1)

    def _grow_workspaces(self, W: int) -> None:
        if self._workspaces >= W:
            return
        k, size = self._k, self._size
        self.tkeys = np.zeros((W, size, k.search.KEY_WORDS), dtype=np.uint64)
        self.tbounds = np.zeros((W, size, 2), dtype=np.float64)
        self.tstamps = np.zeros((W, size), dtype=np.int64)
        self.tstamp = np.zeros(W, dtype=np.int64)
        self.sms = tuple(np.repeat(a[None], W, axis=0) for a in k.sample.make_scratch())
        self.rngs = np.zeros((W, 1), dtype=np.uint64)
        netplay = k.netplay
        w = self._weights
        self.nets = netplay.empty(W) if w is None else (*w, *netplay.scratch(w[1].shape[0], W))
        self._workspaces = W

    def decide_rows(self, jobs: Sequence[CardJob], params: dict[str, Any]) -> RowResults:
        """Every job's ``decide_cards`` (``params``: the agent's race parameters and ``samples``), the
        jobs spread over numba's threads."""
        from kabu_envs.core import threads

        J = len(jobs)
        W = max(1, min(threads.threads(), J))
        self._grow_workspaces(W)
        self._grow(J + W * self.ROWS)
        for j, job in enumerate(jobs):
            if job.position is None or job.deal is None:
                raise ValueError("BatchSearch: a card job needs its position and deal")
            self.load(j, job.position, job.deal, job.view.hand_counts)
        samples = int(params["samples"])
        cards = np.zeros((J, NUM_CARDS), dtype=np.int64)
        ncards = np.zeros(J, dtype=np.int64)
        for j, job in enumerate(jobs):
            cards[j, : len(job.cards)] = job.cards
            ncards[j] = len(job.cards)
        exact = np.array([job.exact for job in jobs], dtype=np.bool_)
        keys = np.array([job.key for job in jobs], dtype=np.uint64)
        race = np.array([params[name] for name in RACE], dtype=np.float64)
        base = (J + self.ROWS * np.arange(W)).astype(np.int64)
        out = RowResults(
            drawn=np.zeros(J, dtype=np.int64),
            totals=np.zeros((J, NUM_CARDS), dtype=np.float64),
            alive=np.zeros((J, NUM_CARDS), dtype=np.bool_),
            weights=np.zeros((J, samples), dtype=np.float64),
        )
        values = np.zeros((W, samples, NUM_CARDS), dtype=np.float64)
        self._k.decide.decide_rows(
            cards,
            ncards,
            exact,
            keys,
            np.full(J, samples, dtype=np.int64),
            self.rmin,
            self.kind,
            self.plies,
            self.nets,
            race,
            self.st,
            self.opts,
            self.rewards,
            self.over,
            base,
            self.tkeys,
            self.tbounds,
            self.tstamps,
            self.tstamp,
            self.sms,
            self.rngs,
            values,
            out.weights,
            out.alive,
            out.totals,
            out.drawn,
        )
        return out


@loadable
class KakeyaKernelExpertAgent(KakeyaExpertAgent):
    """The kernel search: its card decisions made in one kernel call (module docstring);
    ``options`` are the env's rule options plus ``KERNEL_PARAMS`` (and ``max_ms``, the play-out policy's
    ``rensho_min_egara``, ``lead_self_strength``)."""

    name = "kakeya_expert"

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        own = {k: options.pop(k) for k in OWN if k in options}
        merged = {**{k: v for k, v in KERNEL_PARAMS.items() if k not in OWN}, **options}
        super().__init__(seed=seed, **merged)
        self.params.update({**{k: KERNEL_PARAMS[k] for k in OWN}, **own})
        p = self.params
        if p["tie_rule"] not in TIE_RULES:
            raise ValueError(
                f"KakeyaKernelExpertAgent: tie_rule must be one of {TIE_RULES}, got {p['tie_rule']!r}"
            )
        for key in ("min_samples", "check_every"):
            if isinstance(p[key], bool) or not isinstance(p[key], int) or p[key] < 1:
                raise ValueError(f"KakeyaKernelExpertAgent: {key} must be an int >= 1, got {p[key]!r}")
        for key in ("z", "delta"):
            if isinstance(p[key], bool) or not isinstance(p[key], (int, float)) or p[key] < 0:
                raise ValueError(f"KakeyaKernelExpertAgent: {key} must be a number >= 0, got {p[key]!r}")
        if isinstance(p["eps"], bool) or not isinstance(p["eps"], (int, float)) or not 0 < p["eps"] <= 1:
            raise ValueError(f"KakeyaKernelExpertAgent: eps must be in (0, 1], got {p['eps']!r}")
        self._ksearch: KernelSearch | None = None
        self._bsearch: BatchSearch | None = None

    def _deal(self, view: SeatView, trump: int) -> Deal:
        """``expert.py``'s deal, with the scoring's tie order of ``tie_rule`` (``Deal.tie_base``)."""
        deal = super()._deal(view, trump)
        if self.params["tie_rule"] == "absolute":
            return replace(deal, tie_base=view.partnership)
        return deal

    @property
    def search(self) -> KernelSearch:
        if self._ksearch is None:
            self._ksearch = KernelSearch(self.cfg, self.params["rensho_min_egara"], **self._playouts())
        return self._ksearch

    def _playouts(self) -> dict[str, Any]:
        """The searches' play-out arguments (``KernelSearch``): none, the rules of thumb."""
        return {}

    def _choose_card(self, view: SeatView, legal: list[int]) -> int:
        job = self._card_job(view, legal)
        if isinstance(job, int):
            return job
        values = self._decided_values(job, self._decide(job))
        return self._finish_card(job, values, self.search.weights[: self._drawn])

    def _card_job(self, view: SeatView, legal: list[int]) -> int | CardJob:
        """A card decision up to its search: the action itself when the search is not needed (one
        candidate), else what the search needs (the template row loaded in ``search``, the generator's
        key drawn from ``rng``: the decision's one draw)."""
        if any(a >= NUM_CARDS for a in legal):
            raise ValueError(f"KakeyaExpertAgent: a play decision with non-card actions legal: {legal}")
        cards = self.candidates(view, legal)
        search = self.search
        deal = self._deal(view, view.trump)
        position = self.position(view, {})
        search.load(search.TEMPLATE, position, deal, view.hand_counts)
        preferred = int(search._k.search.policy_row(search.TEMPLATE, search.rmin, search.st, search.opts))
        if len(cards) == 1:
            return cards[0]
        exact = self._exact(view)
        key = int(self.rng.integers(0, 1 << 63))
        return CardJob(view, position, deal, cards, preferred, exact, key)

    def _exact(self, view: SeatView) -> bool:
        """Whether the decision is solved exactly: at most ``dd_tricks`` tricks left."""
        remaining = view.hand.bit_count() + view.unseen.bit_count()
        playing = sum(1 for c in view.hand_counts if c > 0) + sum(
            1 for k, c in enumerate(view.trick) if c >= 0 and view.hand_counts[k] == 0
        )
        return -(-remaining // max(playing, 1)) <= self.params["dd_tricks"]

    def _decide(self, job: CardJob) -> int:
        """``job``'s search in the agent's own workspace (the template row loaded); the deals drawn."""
        p = self.params
        array = np.asarray(job.cards, dtype=np.int64)
        samples = p["samples"]
        if p["max_ms"] is not None:
            samples = self._capped(job.key, array, job.exact)
        return self.search.decide(
            job.key,
            array,
            job.exact,
            samples,
            p["min_samples"],
            p["check_every"],
            p["z"],
            p["delta"],
            p["eps"],
        )

    def _decided_values(self, job: CardJob, drawn: int, out: Any = None) -> list[float]:
        """Each candidate's weighted total over the ``drawn`` deals (a candidate that dropped out of the
        race: -inf), from the agent's search (``out`` None) or a row of the batched search's results."""
        self._drawn = drawn
        totals, alive = (self.search.totals, self.search.alive) if out is None else out
        c = len(job.cards)
        return [float(t) if a else -np.inf for t, a in zip(totals[:c], alive[:c], strict=True)]

    def _finish_card(self, job: CardJob, values: list[float], weights: np.ndarray) -> int:
        """The decision from the candidates' totals: the best (ties: the scripted policy's card, else the
        first), the means kept for ``act_with_values`` (a dropped candidate: none)."""
        weight = float(weights.sum())
        self._values = {c: v / weight for c, v in zip(job.cards, values, strict=True) if np.isfinite(v)}
        best = max(values)
        ties = [c for c, v in zip(job.cards, values, strict=True) if v >= best - 1e-9]
        return job.preferred if job.preferred in ties else ties[0]

    def decision_values(self, view: SeatView, cards: list[int]) -> list[float]:
        """Each candidate's weighted total over the deals drawn (the template row loaded; their number in
        ``_drawn``, their weights in ``search.weights``); a candidate that dropped out of the race gets
        -inf."""
        job = CardJob(view, None, None, cards, -1, self._exact(view), int(self.rng.integers(0, 1 << 63)))
        return self._decided_values(job, self._decide(job))

    # --- the batched path: the rows' card searches on every core ------------------------------------
    def act_batch(
        self,
        observations: np.ndarray,
        action_masks: np.ndarray,
        rngs: Sequence[np.random.Generator] | None = None,
    ) -> np.ndarray:
        """``act`` on every row, bit for bit (``KakeyaExpertAgent.act_batch``), with the rows' card
        searches run at once on numba's threads (``decide.decide_rows``) when there are several threads
        and no time cap: each row is prepared in row order (its generator's one draw), then searched,
        then decided. The trump and lead choices stay row by row."""
        obs, masks = check_batch(observations, action_masks, self.decoder.size)
        check_rngs(rngs, obs.shape[0])
        if self.params["max_ms"] is not None or len(obs) < 2 or not self._parallel_threads():
            return act_row_by_row(self, obs, masks, rngs)
        out = np.empty(len(obs), dtype=np.int64)
        jobs: list[tuple[int, CardJob]] = []
        own = self.rng
        try:
            for k in range(len(obs)):
                if rngs is not None:
                    self.rng = rngs[k]
                legal = [int(a) for a in legal_from_mask(masks[k])]
                view = self.decoder.decode(np.asarray(obs[k])) if len(legal) > 1 else None
                if view is None or view.phase is not Phase.PLAY:
                    out[k] = self.act(obs[k], masks[k])
                    continue
                self._values = {}
                job = self._card_job(view, legal)
                if isinstance(job, int):
                    out[k] = job
                else:
                    jobs.append((k, job))
        finally:
            self.rng = own
        if jobs:
            rows = self.batch_search.decide_rows([job for _, job in jobs], self.params)
            for i, (k, job) in enumerate(jobs):
                drawn = int(rows.drawn[i])
                if drawn < 0:
                    raise ValueError(
                        "KakeyaKernelExpertAgent: no deal of the unseen cards fits the counts and the voids"
                    )
                values = self._decided_values(job, drawn, (rows.totals[i], rows.alive[i]))
                out[k] = self._finish_card(job, values, rows.weights[i, :drawn])
        return out

    @staticmethod
    def _parallel_threads() -> bool:
        """More than one of numba's threads to search on (``core.threads``; row by row gives the same
        actions)."""
        from kabu_envs.core import threads

        return threads.threads() > 1

    @property
    def batch_search(self) -> BatchSearch:
        if self._bsearch is None:
            self._bsearch = BatchSearch(self.cfg, self.params["rensho_min_egara"], **self._playouts())
        return self._bsearch

    def _capped(self, key: int, cards: np.ndarray, exact: bool) -> int:
        """Under ``max_ms``: time ``min_samples`` deals (a probe, no race), then allow as many deals as
        the cap affords at that pace (at least one; the decision itself starts again from ``key``)."""
        p = self.params
        start = time.process_time()
        probe = min(p["min_samples"], p["samples"])
        self.search.decide(key, cards, exact, probe, probe, 1, p["z"], p["delta"], p["eps"])
        spent = time.process_time() - start
        cap = float(p["max_ms"]) / 1000.0
        if spent >= cap:
            return 1
        return max(1, min(p["samples"], int(probe * (cap - spent) / max(spent, 1e-9))))

    def _choose_trump(self, view: SeatView, legal: list[int]) -> int:
        """``expert.py``'s trump choice (the same model: whole packs dealt to the receivers, the
        chooser's partnership leading, the scripted lead rule), its packs shuffled and played out in
        one kernel call (``decide.trump_totals``)."""
        current = TRUMP_BASE + view.trump
        if 0 not in self._playing(view):
            return current if current in legal else legal[0]
        n, m = self.cfg.num_players, self.cfg.num_partnerships
        receivers, chooser, partner = self.trump_seats(view)
        suits = [a - TRUMP_BASE for a in legal if TRUMP_BASE <= a < TRUMP_BASE + NUM_SUITS]
        search = self.search
        search._grow(len(suits) + 1)
        empty = Position([0] * n, [0] * m, 0, [0] * n, [chooser])
        for j, trump in enumerate(suits):
            search.load(j, empty, self._deal(view, trump))
        totals = np.zeros(len(suits), dtype=np.float64)
        search.seed(int(self.rng.integers(0, 1 << 63)))
        args = (
            np.arange(len(suits), dtype=np.int64),
            np.asarray(receivers, dtype=np.int64),
            chooser,
            partner,
        )
        strength, samples = self.params["lead_self_strength"], self.params["trump_samples"]
        start, cap = self._budget()
        self._drawn = 0
        for _ in range(samples if cap is not None else 1):  # under max_ms, one pack a call
            self._drawn += 1 if cap is not None else samples
            search._k.decide.trump_totals(
                *args,
                strength,
                1 if cap is not None else samples,
                search.rmin,
                search.st,
                search.opts,
                search.rewards,
                search.over,
                search.rng,
                search.perm,
                totals,
            )
            if self._over(start, cap):
                break
        self._values = {TRUMP_BASE + s: float(t) / self._drawn for s, t in zip(suits, totals, strict=True)}
        best = float(totals.max())
        ties = [TRUMP_BASE + s for s, t in zip(suits, totals, strict=True) if t >= best - 1e-9]
        return current if current in ties else ties[0]


# the expert as it stood in 0.3: a fixed reference player, whatever ``KERNEL_PARAMS`` (or the registry's
# ``expert``) become; every parameter spelled out, the race's and the play-out policy's included
EXPERT_0_3: dict[str, Any] = {
    "samples": 160,
    "min_samples": 16,
    "check_every": 8,
    "z": 2.0,
    "delta": 0.0,
    "eps": 1.0,
    "lead_samples": 12,
    "trump_samples": 8,
    "dd_tricks": 2,
    "max_ms": None,
    "rensho_min_egara": 2,
    "lead_self_strength": 2,
    "tie_rule": "relative",
}


@loadable
class KakeyaExpert03Agent(KakeyaKernelExpertAgent):
    """``expert_0_3``: the kernel expert with 0.3's parameters, pinned so that later searches are measured
    against the same player (its decisions are held to a fixture recorded in 0.3, bit for bit:
    tests/agents/test_kakeya_expert_0_3.py)."""

    name = "kakeya_expert_0_3"

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        use = "use 'expert', or KakeyaKernelExpertAgent for other settings"
        super().__init__(seed=seed, **pinned("expert_0_3", EXPERT_0_3, options, use))
