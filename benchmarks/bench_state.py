"""Clones/s, state_dict/s and load_state_dict/s of every registered game's raw AEC env, mid-deal.

The state API (``env.unwrapped.clone()``, ``state_dict()``, ``load_state_dict()``) is what a search
plays forward from; this prints its rates beside ``step()``'s on the same positions, in one run.

    python benchmarks/bench_state.py [--duration 2] [--steps 10]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from kabu_envs import registry


def _rate(fn: Callable[[], Any], duration: float) -> float:
    n, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < duration:
        fn()
        n += 1
    return n / elapsed


def _position(game: str, steps: int) -> Any:
    env = registry.get(game).make_raw_env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        if not env.agents or env.terminations[env.agent_selection]:
            break
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    return env


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=2.0)
    ap.add_argument("--steps", type=int, default=10, help="actions played before measuring")
    args = ap.parse_args(argv)
    print(
        f"{'game':<12} {'actions':>7} {'clone/s':>10} {'state_dict/s':>13} {'load/s':>9} {'JSON bytes':>11}"
    )
    for game in registry.game_ids():
        env = _position(game, args.steps)
        state = env.state_dict()
        target = registry.get(game).make_raw_env(**state["rules"])
        print(
            f"{game:<12} {len(state['actions']):>7} {_rate(env.clone, args.duration):>10,.0f} "
            f"{_rate(env.state_dict, args.duration):>13,.0f} "
            f"{_rate(lambda t=target, s=state: t.load_state_dict(s), args.duration):>9,.0f} "
            f"{len(json.dumps(state)):>11,}"
        )


if __name__ == "__main__":
    main()
