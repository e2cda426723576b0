"""Decisions/s of the hand-written agents: ``act`` row by row vs ``act_batch`` on B rows at once.

The decisions are real: every seat of AEC games played by the agent itself (60% of the seats) and
random players, default rules. ``act`` is timed on the first rows, ``act_batch`` on batches of B rows
of the same pool; "cold" is the first ``act_batch`` call in the process (it fills the per-rule-set
tables, and for the expert the settle table it meets), "warm" the best of ``--repeat`` passes over the
pool afterwards.

A second table times the shipped models (``kabu_envs/models/``, ensembles included) the way a match
plays them one decision at a time: CPU milliseconds per ``act`` on ``--scalar`` real decisions of the
model's own role (half played by the model, half random, against scripted seats), after one untimed
call. Issue #27 asks a learned Kakeya agent to play in at most 1 ms a decision.

    python benchmarks/bench_agents.py [--batch 1024] [--decisions 8192] [--repeat 3] [--models-only]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # measure this checkout's code
from kabu_envs import registry  # noqa: E402
from kabu_envs.agents.base import RandomAgent  # noqa: E402
from kabu_envs.agents.policy_file import read_trained_for  # noqa: E402
from kabu_envs.agents.registry import make_agent, model_path, shipped_models  # noqa: E402


def decisions(game: str, name: str, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` (observation, mask) pairs from games of ``name`` mixed with random players."""
    env = registry.resolve(registry.get(game).raw_env)()
    seats = len(env.possible_agents)
    rng = np.random.default_rng(seed)
    mine = [make_agent(game, name, seed + i) for i in range(seats)]
    rand = [RandomAgent(seed=seed + i) for i in range(seats)]
    obs, masks = [], []
    while len(obs) < n:
        env.reset(seed=int(rng.integers(1 << 31)))
        who = [mine[i] if rng.random() < 0.6 else rand[i] for i in range(seats)]
        for agent_name in env.agent_iter():
            o, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            obs.append(o["observation"].copy())
            masks.append(o["action_mask"].astype(bool))
            env.step(who[env.possible_agents.index(agent_name)].act(o["observation"], o["action_mask"]))
    return np.stack(obs[:n]), np.stack(masks[:n])


def role_decisions(game: str, name: str, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` (observation, mask) pairs of model ``name``'s own role: its view against scripted seats,
    every other move the model's arg-max (states it reaches), the rest random."""
    from kabu_envs.wrappers.views import make_view

    trained = read_trained_for(model_path(name))
    view = make_view(game, role=trained["role"], opponents=["scripted"], seed=seed, **trained["env_options"])
    agent = make_agent(game, name, seed, role=trained["role"], **trained["env_options"])
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    while len(obs) < n:
        o, _ = view.reset(seed=int(rng.integers(1 << 31)))
        done = False
        while not done:
            m = view.action_masks().astype(bool)
            obs.append(o)
            masks.append(m)
            a = agent.act(o, m) if rng.random() < 0.5 else int(rng.choice(np.flatnonzero(m)))
            o, _, term, trunc, _ = view.step(a)
            done = term or trunc
    return np.stack(obs[:n]), np.stack(masks[:n])


def time_models(rows: int) -> None:
    """CPU ms per decision of every shipped model, ``act`` one decision at a time."""
    print(f"\n{'shipped model':<44}{'CPU ms/decision':>16}")
    for game in registry.game_ids():
        for name in shipped_models():
            trained = read_trained_for(model_path(name))
            if trained["game"] != game:
                continue
            obs, masks = role_decisions(game, name, rows)
            agent = make_agent(game, name, 0, role=trained["role"], **trained["env_options"])
            agent.act(obs[0], masks[0])  # untimed: first-call work (feature tables)
            t = time.process_time()
            for o, m in zip(obs, masks, strict=True):
                agent.act(o, m)
            print(f"{game + ':' + name:<44}{1000 * (time.process_time() - t) / rows:>16.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--decisions", type=int, default=8192, help="pool size (a multiple of --batch)")
    ap.add_argument("--scalar", type=int, default=3000, help="rows timed with act")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--models-only", action="store_true", help="only the shipped models' table")
    args = ap.parse_args()
    print(f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, B={args.batch}")
    if args.models_only:
        time_models(args.scalar)
        return
    print(f"{'agent':<22}{'act/s':>10}{'batch cold/s':>14}{'batch warm/s':>14}{'speedup':>9}")
    for game in registry.game_ids():
        for name in registry.get(game).agents:
            obs, masks = decisions(game, name, args.decisions)
            agent = make_agent(game, name, 0)
            rows = min(args.scalar, len(obs))
            t = time.perf_counter()
            for o, m in zip(obs[:rows], masks[:rows], strict=True):
                agent.act(o, m)
            scalar = rows / (time.perf_counter() - t)
            chunks = [slice(i, i + args.batch) for i in range(0, len(obs) - args.batch + 1, args.batch)]
            t = time.perf_counter()
            agent.act_batch(obs[chunks[0]], masks[chunks[0]])
            cold = args.batch / (time.perf_counter() - t)
            best = 0.0
            for _ in range(args.repeat):
                t = time.perf_counter()
                for c in chunks:
                    agent.act_batch(obs[c], masks[c])
                best = max(best, len(chunks) * args.batch / (time.perf_counter() - t))
            print(f"{game + ':' + name:<22}{scalar:>10.0f}{cold:>14.0f}{best:>14.0f}{best / scalar:>8.0f}x")
    time_models(args.scalar)


if __name__ == "__main__":
    main()
