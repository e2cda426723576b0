"""Strength per time of the Kakeya expert's search: ``expert`` (the search with network play-outs) with
other parameters
against a fixed reference (``expert_0_2``, or ``expert_0_3`` with ``--reference``) at duplicate deals
(``kabu_envs.eval.games.matchup``: each deal played twice, the partnerships swapped; mean stones per
deal with its 95% t-interval), and both sides' CPU time per decision (``time.process_time`` around
every ``act``, forced moves included, after one untimed deal that loads both sides' compiled kernels)
in the same run.

    python benchmarks/strength_curve.py --option samples=64 [--option dd_tricks=3] [--deals 300]
                                        [--seed 7] [--table 4p|6p] [--agent expert|kernel|plain|net]
                                        [--reference expert_0_2|expert_0_3] [--chunks 10]

``--agent expert`` (the default; ``net`` is the same) measures the registry's ``expert``, the search with
network play-outs (``KakeyaNetExpertAgent``, ``net_expert.py``: ``--option samples=160``,
``--option net_plies=8``); ``--agent kernel`` the same search with the scripted play-outs that
``expert_0_3`` pins (``kernel_expert.py``), with other parameters; ``--agent plain`` the plain search of
``expert.py`` that ``expert_0_2`` pins, with other parameters (``--option samples=64``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # measure this checkout's code
from kabu_envs.eval.games import matchup  # noqa: E402
from kabu_envs.eval.stats import summarize  # noqa: E402
from kabu_envs.kakeya.agents.expert import KakeyaExpert02Agent, KakeyaExpertAgent  # noqa: E402
from kabu_envs.kakeya.agents.kernel_expert import KakeyaExpert03Agent, KakeyaKernelExpertAgent  # noqa: E402
from kabu_envs.kakeya.agents.net_expert import KakeyaNetExpertAgent  # noqa: E402

TABLES: dict[str, dict[str, Any]] = {"4p": {}, "6p": {"num_players": 6}}


class _Timing:
    """Adds up the CPU time of every ``act`` of the agent class it is mixed into."""

    spent = 0.0
    calls = 0

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        start = time.process_time()
        action = super().act(observation, action_mask)
        self.spent += time.process_time() - start
        self.calls += 1
        return int(action)


class TimedPlain(_Timing, KakeyaExpertAgent):
    """The plain search (``expert_0_2``'s, other parameters allowed), timing its decisions."""


class TimedKernel(_Timing, KakeyaKernelExpertAgent):
    """The search with scripted play-outs (``expert_0_3``'s, other parameters allowed), timing its
    decisions."""


class TimedNet(_Timing, KakeyaNetExpertAgent):
    """``expert``, the search with network play-outs, timing its decisions."""


class TimedReference(_Timing, KakeyaExpert02Agent):
    """``expert_0_2``, timing its decisions."""


class TimedReference03(_Timing, KakeyaExpert03Agent):
    """``expert_0_3``, timing its decisions."""


AGENTS: dict[str, type[_Timing]] = {
    "expert": TimedNet,
    "net": TimedNet,
    "kernel": TimedKernel,
    "plain": TimedPlain,
}
REFERENCES: dict[str, type[_Timing]] = {"expert_0_2": TimedReference, "expert_0_3": TimedReference03}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--option", action="append", default=[], help="an expert parameter KEY=JSON")
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--table", choices=sorted(TABLES), default="4p")
    ap.add_argument("--agent", choices=sorted(AGENTS), default="expert")
    ap.add_argument("--reference", choices=sorted(REFERENCES), default="expert_0_2")
    ap.add_argument(
        "--chunks",
        type=int,
        default=1,
        help="play the deals in this many matchups (deal seeds seed*100+i), a row each",
    )
    args = ap.parse_args(argv)
    params = {k: json.loads(v) for k, v in (o.split("=", 1) for o in args.option)}
    opts = TABLES[args.table]
    agent: Any = AGENTS[args.agent](seed=args.seed, **opts, **params)  # type: ignore[call-arg]
    reference: Any = REFERENCES[args.reference](seed=args.seed + 1, **opts)  # type: ignore[call-arg]
    # one untimed deal first: each side's first kernel call loads (or compiles) its cache
    matchup("kakeya", agent, reference, None, 1, args.seed + 10**6, opts, batched=False)
    agent.spent = reference.spent = 0.0
    agent.calls = reference.calls = 0
    start = time.time()
    advantages: list[float] = []
    for i in range(args.chunks):  # (one chunk: the whole run's deals from --seed, as before)
        seed = args.seed if args.chunks == 1 else args.seed * 100 + i
        part = args.deals // args.chunks + (i < args.deals % args.chunks)
        advantages += matchup("kakeya", agent, reference, None, part, seed, opts, batched=False).advantages
        s = summarize(advantages)
        ms = 1000 * agent.spent / max(agent.calls, 1)
        ref_ms = 1000 * reference.spent / max(reference.calls, 1)
        print(
            f"| {args.table} | {args.agent} {json.dumps(params)} vs {args.reference} | {s.n} | "
            f"{s.mean:+.3f} | [{s.lo:+.3f}, {s.hi:+.3f}] | "
            f"{ms:.2f} | {ref_ms:.2f} | {ms / ref_ms:.1f}x | {time.time() - start:.0f} s |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
