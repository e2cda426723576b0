"""Kakeya's play-out network's training data (``kernel/netplay.py``): a teacher's card decisions with the
network's inputs, recorded for the lab's fit (``kabu_envs.training.netplay``; torch stays there).

Games of the teacher at every seat (``expert_0_3`` by default): at each card decision with a choice, the
inputs computed by the kernel itself from the decision's template row (``netplay.features_row``: the
seat's own view, the same function the play-outs read), the legal cards and the card played.

    python -m kabu_envs.kakeya.agents.netplay_data --players 4 --deals 10000 --seed 5001 --out data4.npz
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from kabu_envs.core.rng import make_rng
from kabu_envs.kakeya.agents.kernel_expert import KakeyaKernelExpertAgent
from kabu_envs.kakeya.cards import NUM_CARDS
from kabu_envs.kakeya.knowledge import SeatView


def _teacher(
    name: str, seed: int, rule_options: dict[str, Any], sink: list[tuple[np.ndarray, int, int]]
) -> Any:
    """A teacher agent that appends (inputs, legal cards as a bit set, card) to ``sink`` at each card
    decision with more than one legal card."""
    from kabu_envs.agents.registry import make_agent
    from kabu_envs.kakeya.kernel import netplay

    base = type(make_agent("kakeya", name, seed=0, **rule_options))
    if not issubclass(base, KakeyaKernelExpertAgent):
        raise ValueError(f"the teacher must be a kernel expert (expert, expert_0_3), got {name!r}")
    idx = np.zeros(netplay.MAX_ACTIVE, dtype=np.int64)

    class Recording(base):  # type: ignore[valid-type, misc]
        def _choose_card(self, view: SeatView, legal: list[int]) -> int:
            card = int(super()._choose_card(view, legal))
            if len(legal) > 1:
                s = self.search  # the template row holds this decision's position (seat 0 = me)
                k = netplay.features_row(s.TEMPLATE, 0, s.st, s.opts, idx)
                mask = sum(1 << c for c in legal)
                sink.append((idx[:k].copy(), mask, card))
            return card

    return Recording(seed=seed, **rule_options)


def record(teacher: str, num_players: int, deals: int, seed: int) -> dict[str, np.ndarray]:
    """``deals`` one-deal matches of the teacher at every seat (seeded from ``seed``): the inputs (flat
    indices with row offsets), the legal cards (bit sets) and the cards played."""
    from kabu_envs import registry

    rule_options: dict[str, Any] = {"num_players": num_players}
    sink: list[tuple[np.ndarray, int, int]] = []
    seats = [_teacher(teacher, seed * 1000 + s, rule_options, sink) for s in range(num_players)]
    env = registry.get("kakeya").make_raw_env(**rule_options)
    rng = make_rng(seed)  # (the same stream as np.random.default_rng(seed))
    for _ in range(deals):
        env.reset(seed=int(rng.integers(2**31)))
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = env.agents.index(name) if name in env.agents else env.possible_agents.index(name)
            env.step(int(seats[seat].act(obs["observation"], obs["action_mask"])))
    lengths = np.array([len(i) for i, _, _ in sink], dtype=np.int64)
    return {
        "indices": np.concatenate([i for i, _, _ in sink]).astype(np.int16),
        "offsets": np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
        "legal": np.array([m for _, m, _ in sink], dtype=np.uint64),
        "target": np.array([c for _, _, c in sink], dtype=np.int64),
    }


def meta(teacher: str, num_players: int, deals: int, seed: int) -> dict[str, Any]:
    """What the lab's fit needs to know about a data file: the game, the role, the network's sizes, and
    how the data was made."""
    from kabu_envs.kakeya.kernel import netplay

    return {
        "game": "kakeya",
        "role": "partnership",
        "num_features": netplay.NUM_FEATURES,
        "num_actions": NUM_CARDS,
        "teacher": teacher,
        "num_players": num_players,
        "deals": deals,
        "seed": seed,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--teacher", default="expert_0_3")
    ap.add_argument("--players", type=int, choices=(4, 6), default=4)
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    start = time.time()
    data = record(args.teacher, args.players, args.deals, args.seed)
    saved: dict[str, Any] = {
        "meta": np.array(json.dumps(meta(args.teacher, args.players, args.deals, args.seed))),
        **data,
    }
    np.savez_compressed(args.out, **saved)
    print(f"{len(data['target'])} decisions in {time.time() - start:.0f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
