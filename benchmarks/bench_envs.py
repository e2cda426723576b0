"""Steps/s and games/s of random legal play through each WRAPPED env, in one run.

Every env is driven the same way: the AEC loop ``agent_iter`` / ``last`` / ``step``, the action drawn
uniformly from the action mask with one seeded ``np.random.Generator``. A "step" is one ``step()`` with
an action (the ``step(None)`` calls of finished agents are not counted); a "game" is one episode.
Each env is seeded once (first ``reset(seed=...)``), later resets continue its random stream.

    python benchmarks/bench_envs.py [--duration 5] [--seed 0] [--only oicho_kabu leduc_holdem]
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import types
from collections.abc import Callable

import numpy as np


def _factories() -> dict[str, Callable[[], object]]:
    out: dict[str, Callable[[], object]] = {}
    from kabu_envs import oicho_kabu_v1

    out["oicho_kabu_v1 (4p)"] = lambda: oicho_kabu_v1.env(num_players=4)
    try:
        kakeya_v2 = importlib.import_module("kabu_envs.kakeya_v2")
        out["kakeya_v2 (4p)"] = lambda: kakeya_v2.env(num_players=4)
    except Exception as exc:  # another helper writes it; the benchmark still runs without it
        print(f"(kakeya_v2 skipped: {type(exc).__name__}: {exc})")
    _allow_missing_pygame()
    from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4

    out["leduc_holdem_v4"] = leduc_holdem_v4.env
    out["texas_holdem_v4"] = texas_holdem_v4.env
    return out


class _Stub(types.ModuleType):
    """Any attribute is another stub (RLCard's utils annotate with pygame.Surface, pygame.font.Font)."""

    def __getattr__(self, name: str) -> _Stub:
        return _Stub(f"{self.__name__}.{name}")


def _allow_missing_pygame() -> None:
    """PettingZoo's RLCard envs import pygame at module level, only to render; we never render.

    pygame is not a dependency of this project, so when it is missing an empty stand-in module is
    registered for the import (stepping speed is unaffected; calling render() would fail).
    """
    try:
        import pygame  # noqa: F401
    except ImportError:
        sys.modules["pygame"] = _Stub("pygame")


def run(make_env: Callable[[], object], duration: float, seed: int) -> tuple[int, int, float]:
    """Random legal play for about ``duration`` seconds: (steps, games, seconds)."""
    env = make_env()
    rng = np.random.Generator(np.random.PCG64(seed))
    steps = games = 0
    start = time.perf_counter()
    deadline = start + duration
    while True:
        env.reset(seed=seed if games == 0 else None)  # seeded once, as in training
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        games += 1
        now = time.perf_counter()
        if now >= deadline:
            return steps, games, now - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per env (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the action Generator and episodes")
    parser.add_argument("--only", nargs="*", default=None, help="substrings of env names to run")
    args = parser.parse_args(argv)

    factories = _factories()
    if args.only:
        factories = {k: v for k, v in factories.items() if any(s in k for s in args.only)}
    rows = []
    for name, make_env in factories.items():
        steps, games, secs = run(make_env, args.duration, args.seed)
        rows.append((name, steps / secs, games / secs, steps / games))
    leduc = next((r[1] for r in rows if r[0].startswith("leduc")), None)
    print(f"random legal play through the wrapped env(), {args.duration:g} s each, seed {args.seed}")
    print("| env | steps/s | games/s | steps/game | steps/s vs leduc |")
    print("|---|---:|---:|---:|---:|")
    for name, sps, gps, spg in rows:
        ratio = f"{sps / leduc:.2f}x" if leduc else "-"
        print(f"| {name} | {sps:,.0f} | {gps:,.0f} | {spg:.1f} | {ratio} |")


if __name__ == "__main__":
    main()
