"""The Kakeya expert (the registry's ``expert``): the search of ``expert.py`` with the sampling, the
inference and the budget inside the kernel, up to ten times the deals, raced.
``expert_0_2``, the fixed reference it is measured against, is ``expert.py``'s search with 0.2's
parameters.

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
from typing import Any

import numpy as np

from kabu_envs.agents.base import loadable
from kabu_envs.kakeya.actions import TRUMP_BASE
from kabu_envs.kakeya.agents.expert import KakeyaExpertAgent, pinned
from kabu_envs.kakeya.agents.search import Position, Search
from kabu_envs.kakeya.cards import NUM_CARDS, NUM_SUITS
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
}
RACE = ("min_samples", "check_every", "z", "delta", "eps")  # the parameters ``expert.py`` does not have


class KernelSearch(Search):
    """``Search`` plus the kernel sampler's scratch and the race's arrays (made once per agent)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        from kabu_envs.kakeya import kernel

        kernel.prepare((kernel.sample, kernel.decide))
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
            raise ValueError(
                "KakeyaKernelExpertAgent: no deal of the unseen cards fits the counts and the voids"
            )
        return int(k)


@loadable
class KakeyaKernelExpertAgent(KakeyaExpertAgent):
    """``expert``: the search with its card decisions made in one kernel call (module docstring);
    ``options`` are the env's rule options plus ``KERNEL_PARAMS`` (and ``max_ms``, the play-out policy's
    ``rensho_min_egara``, ``lead_self_strength``)."""

    name = "kakeya_expert"

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        own = {k: options.pop(k) for k in RACE if k in options}
        merged = {**{k: v for k, v in KERNEL_PARAMS.items() if k not in RACE}, **options}
        super().__init__(seed=seed, **merged)
        self.params.update({**{k: KERNEL_PARAMS[k] for k in RACE}, **own})
        p = self.params
        for key in ("min_samples", "check_every"):
            if isinstance(p[key], bool) or not isinstance(p[key], int) or p[key] < 1:
                raise ValueError(f"KakeyaKernelExpertAgent: {key} must be an int >= 1, got {p[key]!r}")
        for key in ("z", "delta"):
            if isinstance(p[key], bool) or not isinstance(p[key], (int, float)) or p[key] < 0:
                raise ValueError(f"KakeyaKernelExpertAgent: {key} must be a number >= 0, got {p[key]!r}")
        if isinstance(p["eps"], bool) or not isinstance(p["eps"], (int, float)) or not 0 < p["eps"] <= 1:
            raise ValueError(f"KakeyaKernelExpertAgent: eps must be in (0, 1], got {p['eps']!r}")
        self._ksearch: KernelSearch | None = None

    @property
    def search(self) -> KernelSearch:
        if self._ksearch is None:
            self._ksearch = KernelSearch(self.cfg, self.params["rensho_min_egara"])
        return self._ksearch

    def _choose_card(self, view: SeatView, legal: list[int]) -> int:
        if any(a >= NUM_CARDS for a in legal):
            raise ValueError(f"KakeyaExpertAgent: a play decision with non-card actions legal: {legal}")
        cards = self.candidates(view, legal)
        search = self.search
        deal = self._deal(view, view.trump)
        search.load(search.TEMPLATE, self.position(view, {}), deal, view.hand_counts)
        preferred = int(search._k.search.policy_row(search.TEMPLATE, search.rmin, search.st, search.opts))
        if len(cards) == 1:
            return cards[0]
        values = self.decision_values(view, cards)
        # act_with_values: the weighted mean of each candidate left in the race (a dropped one: NaN)
        weight = float(search.weights[: self._drawn].sum())
        self._values = {c: v / weight for c, v in zip(cards, values, strict=True) if np.isfinite(v)}
        best = max(values)
        ties = [c for c, v in zip(cards, values, strict=True) if v >= best - 1e-9]
        return preferred if preferred in ties else ties[0]

    def decision_values(self, view: SeatView, cards: list[int]) -> list[float]:
        """Each candidate's weighted total over the deals drawn (the template row loaded; their number in
        ``_drawn``, their weights in ``search.weights``); a candidate that dropped out of the race gets
        -inf."""
        search, p = self.search, self.params
        remaining = view.hand.bit_count() + view.unseen.bit_count()
        playing = sum(1 for c in view.hand_counts if c > 0) + sum(
            1 for k, c in enumerate(view.trick) if c >= 0 and view.hand_counts[k] == 0
        )
        exact = -(-remaining // max(playing, 1)) <= p["dd_tricks"]
        key = int(self.rng.integers(0, 1 << 63))
        array = np.asarray(cards, dtype=np.int64)
        samples = p["samples"]
        if p["max_ms"] is not None:
            samples = self._capped(key, array, exact)
        self._drawn = search.decide(
            key, array, exact, samples, p["min_samples"], p["check_every"], p["z"], p["delta"], p["eps"]
        )
        c = len(cards)
        return [float(t) if a else -np.inf for t, a in zip(search.totals[:c], search.alive[:c], strict=True)]

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
