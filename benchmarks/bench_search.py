"""Play-outs per second of the Kakeya expert's search: the Python search of 0.2 (``DealSim``) or the
kernel's (``Search``), on the same positions and sampled deals.

Positions: card decisions (4 players, default rules; more than one candidate, more than ``dd_tricks``
tricks left) of seeded random deals. At each, ``--samples`` deals of the unseen cards are drawn by the
expert's sampler (not timed); every candidate card is then played on every sample and the deal played
out by the scripted rules of thumb, as the expert does: the timed part, CPU time
(``time.process_time``). The kernel evaluates one decision's (sample, candidate) pairs in one
call. ``--tree`` measures another checkout (e.g. an export of the commit before the kernel search) with
the same script, so that old and new can be run interleaved:

    python benchmarks/bench_search.py [--tree /tmp/old] [--positions 40] [--samples 16] [--repeat 3]
                                      [--min-cards 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any


def positions(count: int, seed: int, min_cards: int = 3) -> list[tuple[Any, Any, list[int]]]:
    """(expert, view, candidates) at ``count`` card decisions of random deals, the seat to play holding
    at least ``min_cards`` cards (13: the deal's first trick)."""
    import numpy as np

    from kabu_envs.kakeya import make_config
    from kabu_envs.kakeya.agents.expert import KakeyaExpertAgent
    from kabu_envs.kakeya.game import Game, Phase
    from kabu_envs.kakeya.observation import Encoder

    cfg = make_config()
    enc = Encoder(cfg)
    out: list[tuple[Any, Any, list[int]]] = []
    g = 0
    while len(out) < count:
        rng = np.random.default_rng(seed + g)
        game = Game(cfg, np.random.Generator(np.random.PCG64(seed + g)))
        g += 1
        while not game.terminal and len(out) < count:
            holds = game.phase is Phase.PLAY and game.hand_counts[game.current_player] >= min_cards
            if holds and rng.random() < 0.2:
                obs, mask = enc.encode_with_mask(game, game.current_player, game.legal_bits())
                agent = KakeyaExpertAgent(seed=g)
                view = agent.decoder.decode(obs)
                cards = agent.candidates(view, [int(a) for a in np.flatnonzero(mask)])
                if len(cards) > 1:
                    out.append((agent, view, cards))
            legal = game.legal_actions()
            game.apply_action(legal[int(rng.integers(len(legal)))])
    return out


def measure(count: int, samples: int, seed: int, min_cards: int) -> tuple[str, int, float]:
    """(implementation, play-outs, CPU seconds) over the positions."""
    import numpy as np

    from kabu_envs.kakeya.agents import search as search_mod

    kernel = hasattr(search_mod, "Search")
    played, spent = 0, 0.0
    rng = np.random.default_rng(seed)
    for agent, view, cards in positions(count, seed, min_cards):
        drawn = [agent.sampler(view).sample(rng) for _ in range(samples)]
        if kernel:
            search = agent.search
            deal = agent._deal(view, view.trump)
            seen = agent.position(view, {})
            others = search.hands_array(drawn)
            totals = np.zeros(len(cards))
            search.card_totals(seen, view.hand_counts, deal, others[:1], cards[:1], False, totals)  # warm
            start = time.process_time()
            search.card_totals(seen, view.hand_counts, deal, others, cards, False, totals)
            spent += time.process_time() - start
        else:
            sim = agent._sim(view, view.trump)
            bases = [agent.position(view, d) for d in drawn]
            start = time.process_time()
            for base in bases:
                for card in cards:
                    p = base.copy()
                    sim.play(p, card)
                    sim.playout(p)
            spent += time.process_time() - start
        played += samples * len(cards)
    return ("kernel" if kernel else "python"), played, spent


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tree", default=str(Path(__file__).resolve().parent.parent), help="checkout to measure")
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--min-cards", type=int, default=3, help="13: positions at the first trick only")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(args.tree).resolve()))
    best = 0.0
    impl, played = "", 0
    for _ in range(args.repeat):
        impl, played, spent = measure(args.positions, args.samples, args.seed, args.min_cards)
        best = max(best, played / spent)
    print(
        f"{impl}: {played} play-outs per run ({args.positions} positions with >= {args.min_cards} cards x "
        f"{args.samples} samples x candidates); best of {args.repeat}: {best:,.0f} play-outs/s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
