"""Record the fixture of the network search's decisions (tests/agents/data/kakeya_net_expert.npz):
observation -> action and action values of ``KakeyaNetExpertAgent`` with explicit parameters, recorded
before its card decisions moved into the expert's kernel (``decide.decide_cards`` with a play-out kind),
so that tests/agents/test_kakeya_net_expert.py can hold the moved search to the same decisions, bit for
bit. The positions are ``make_expert_0_3_fixture``'s (seeded play of the scalar engine).

Recorded once (``PYTHONPATH=. python tests/agents/make_net_expert_fixture.py``); every parameter that
decides is stored, so later defaults do not move it (the six-player tie rule: the old, relative one).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from kabu_envs.kakeya import make_config
from kabu_envs.kakeya.agents.net_expert import KakeyaNetExpertAgent
from tests.agents.make_expert_0_3_fixture import positions

OUT = Path(__file__).parent / "data" / "kakeya_net_expert.npz"
CASES: list[tuple[dict[str, Any], int]] = [
    ({}, 50),
    ({"num_players": 6}, 40),
    ({"num_players": 6, "six_player_mode": "dealers_sit_out"}, 16),
    ({"reward": "egara"}, 12),
]
PARAMS: dict[str, Any] = {
    "samples": 48,
    "min_samples": 8,
    "net_plies": 52,
    "lead_samples": 6,
    "trump_samples": 4,
    "tie_rule": "relative",
}


def record() -> None:
    arrays: dict[str, np.ndarray] = {}
    cases = []
    for ci, (opts, single) in enumerate(CASES):
        resolved = make_config(**opts).as_dict()
        cases.append([resolved, single])
        obs, masks = positions(ci, opts, single)
        o, m = np.stack(obs), np.stack(masks)
        seeds = 7919 * np.arange(single, dtype=np.int64) + 1000 * ci + 5
        actions = np.zeros(single, dtype=np.int64)
        values = np.full((single, m.shape[1]), np.nan)
        for i in range(single):
            agent = KakeyaNetExpertAgent(seed=int(seeds[i]), **resolved, **PARAMS)
            actions[i], values[i] = agent.act_with_values(o[i], m[i])
        arrays[f"obs{ci}"], arrays[f"mask{ci}"] = o, m
        arrays[f"seed{ci}"], arrays[f"action{ci}"], arrays[f"values{ci}"] = seeds, actions, values
    arrays["cases"] = np.array(json.dumps(cases))
    arrays["params"] = np.array(json.dumps(PARAMS))
    np.savez_compressed(OUT, **arrays)
    print(f"{sum(s for _, s in CASES)} decisions -> {OUT}")


if __name__ == "__main__":
    record()
