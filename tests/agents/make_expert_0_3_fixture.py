"""Record the fixture of ``expert_0_3`` (tests/agents/data/kakeya_expert_0_3.npz): observation -> action of
the Kakeya kernel expert as it stood in 0.3, its action values at each decision, and its actions on
batches of positions (``act_batch`` with a generator per row, and with the agent's own generator row
after row). tests/agents/test_kakeya_expert_0_3.py holds ``expert_0_3`` to it, bit for bit, so a later
change of the kernels (``kabu_envs/kakeya/kernel/{search,decide,sample}.py``) that changes the player
fails there.

Recorded once in 0.3 (``PYTHONPATH=. python tests/agents/make_expert_0_3_fixture.py``); the positions
come from seeded play of the scalar engine (mostly the scripted player's moves, a quarter random), the
rule options are stored resolved (``Config.as_dict``), so a later change of a default does not move them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from kabu_envs.kakeya import make_config
from kabu_envs.kakeya.agents.kernel_expert import KakeyaExpert03Agent
from kabu_envs.kakeya.agents.scripted import KakeyaScriptedAgent
from kabu_envs.kakeya.game import Game, Phase
from kabu_envs.kakeya.observation import Encoder

OUT = Path(__file__).parent / "data" / "kakeya_expert_0_3.npz"
# (rule options, single decisions, batches of BATCH positions with a generator per row, batches with the
# agent's own generator)
CASES: list[tuple[dict[str, Any], int, int, int]] = [
    ({}, 140, 2, 1),
    ({"num_players": 6}, 140, 2, 1),  # all play (the v2 default for six)
    ({"num_players": 6, "six_player_mode": "dealers_sit_out"}, 40, 0, 0),
    ({"reward": "egara"}, 30, 0, 0),
    ({"rensho_follow": "must_follow", "rensho_rule": "traditional"}, 30, 0, 0),
    ({"max_deals": 3, "stones_per_player": 2}, 30, 0, 0),
    ({"num_players": 6, "reward": "egara"}, 20, 0, 0),
]
BATCH = 40


def positions(ci: int, opts: dict[str, Any], wanted: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """``wanted`` (observation, mask) decisions of more than one legal action (trump, lead or card) from
    seeded games: each seat plays the scripted move, or with probability 1/4 a random legal one."""
    cfg = make_config(**opts)
    enc = Encoder(cfg)
    scripted = KakeyaScriptedAgent(seed=0, **opts)
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    g = 0
    while len(obs) < wanted:
        rng = np.random.default_rng(50_000 + 1000 * ci + g)
        game = Game(cfg, np.random.Generator(np.random.PCG64(60_000 + 1000 * ci + g)))
        g += 1
        while not game.terminal and len(obs) < wanted:
            legal = game.legal_actions()
            seat = game.current_player
            o, m = enc.encode_with_mask(game, seat, game.legal_bits())
            deciding = game.phase in (Phase.TRUMP, Phase.LEAD, Phase.PLAY) and len(legal) > 1
            if deciding and rng.random() < (0.5 if game.phase is not Phase.PLAY else 0.15):
                obs.append(np.asarray(o, dtype=np.float32))
                masks.append(np.asarray(m, dtype=np.int8))
            if len(legal) > 1 and rng.random() < 0.25:
                action = legal[int(rng.integers(len(legal)))]
            else:
                action = scripted.act(o, m)
            game.apply_action(action)
    return obs, masks


def record() -> None:
    arrays: dict[str, np.ndarray] = {}
    cases = []
    singles = batched = 0
    for ci, (opts, single, per_row, own) in enumerate(CASES):
        resolved = make_config(**opts).as_dict()
        cases.append(resolved)
        count = single + BATCH * (per_row + own)
        obs, masks = positions(ci, opts, count)
        o, m = np.stack(obs), np.stack(masks)
        arrays[f"obs{ci}"], arrays[f"mask{ci}"] = o, m
        seeds = 7919 * np.arange(single, dtype=np.int64) + 1000 * ci + 3
        actions = np.zeros(single, dtype=np.int64)
        values = np.full((single, m.shape[1]), np.nan)
        for i in range(single):
            agent = KakeyaExpert03Agent(seed=int(seeds[i]), **resolved)
            actions[i], values[i] = agent.act_with_values(o[i], m[i])
        arrays[f"seed{ci}"], arrays[f"action{ci}"], arrays[f"values{ci}"] = seeds, actions, values
        singles += single
        at = single
        batch_actions, batch_seeds, after = [], [], []
        for b in range(per_row + own):
            rows = slice(at, at + BATCH)
            at += BATCH
            agent = KakeyaExpert03Agent(seed=10_007 * (b + 1) + ci, **resolved)
            if b < per_row:
                row_seeds = 31 * np.arange(BATCH, dtype=np.int64) + 100_000 * (b + 1) + ci
                rngs = [np.random.default_rng(int(s)) for s in row_seeds]
                batch_actions.append(agent.act_batch(o[rows], m[rows], rngs=rngs))
                after.append([int(r.integers(1 << 62)) for r in rngs][-1])
            else:
                row_seeds = np.full(BATCH, -1, dtype=np.int64)
                batch_actions.append(agent.act_batch(o[rows], m[rows]))
                after.append(int(agent.rng.integers(1 << 62)))
            batch_seeds.append(row_seeds)
            batched += BATCH
        if per_row + own:
            arrays[f"batch_actions{ci}"] = np.stack(batch_actions)
            arrays[f"batch_seeds{ci}"] = np.stack(batch_seeds)
            arrays[f"batch_after{ci}"] = np.array(after, dtype=np.int64)
    rows = [[c, s, p, w] for c, (_, s, p, w) in zip(cases, CASES, strict=True)]
    arrays["cases"] = np.array(json.dumps(rows))
    arrays["batch"] = np.array(BATCH)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **arrays)
    print(f"{singles} single decisions and {batched} batched -> {OUT}")


if __name__ == "__main__":
    record()
