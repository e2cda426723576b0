"""Record the fixture of ``expert_0_2`` (tests/agents/data/kakeya_expert_0_2.npz): observation -> action of
the Kakeya expert as it shipped in 0.2 (Python play-outs and solver), and its per-candidate totals at
card decisions. tests/agents/test_kakeya_expert_0_2.py holds the kernel-based expert to it, bit for bit.

Run once from the commit before the search moved to the kernel (it was: ``PYTHONPATH=. python
tests/agents/make_expert_fixture.py``); the positions come from seeded random play of the scalar engine.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from kabu_envs.kakeya import make_config
from kabu_envs.kakeya.agents.expert import KakeyaExpertAgent
from kabu_envs.kakeya.game import Game, Phase
from kabu_envs.kakeya.observation import Encoder

OUT = Path(__file__).parent / "data" / "kakeya_expert_0_2.npz"
# (rule options, expert parameters, decisions to record)
CASES: list[tuple[dict[str, object], dict[str, object], int]] = [
    ({}, {}, 60),
    ({"num_players": 6, "six_player_mode": "dealers_sit_out"}, {}, 50),
    ({"num_players": 6, "six_player_mode": "all_play"}, {}, 50),
    ({"rensho_follow": "must_follow"}, {}, 40),
    ({"rensho_rule": "traditional", "default_trump": "spades"}, {}, 40),
    ({"reward": "egara"}, {}, 40),
    ({"reward": "egara", "num_players": 6}, {}, 30),
    ({"max_deals": 3, "stones_per_player": 2}, {}, 40),
    ({}, {"dd_tricks": 3, "samples": 8}, 40),
    ({"num_players": 6, "six_player_mode": "dealers_sit_out"}, {"dd_tricks": 3, "samples": 6}, 20),
]
WIDTH = 16  # the most candidates a decision records


def record() -> None:
    case_ix, seeds, actions, masks, values, cands = [], [], [], [], [], []
    obs_by_case: list[list[np.ndarray]] = []
    for ci, (opts, params, wanted) in enumerate(CASES):
        cfg = make_config(**opts)
        enc = Encoder(cfg)
        got: list[np.ndarray] = []
        g = 0
        while len(got) < wanted:
            rng = np.random.default_rng(1000 * ci + g)
            game = Game(cfg, np.random.Generator(np.random.PCG64(1000 * ci + g)))
            g += 1
            while not game.terminal and len(got) < wanted:
                legal = game.legal_actions()
                if game.phase in (Phase.TRUMP, Phase.LEAD, Phase.PLAY) and len(legal) > 1:
                    take = rng.random() < (0.5 if game.phase is not Phase.PLAY else 0.12)
                    if take:
                        seat = game.current_player
                        obs, mask = enc.encode_with_mask(game, seat, game.legal_bits())
                        seed = 7919 * len(seeds) + 1
                        agent = KakeyaExpertAgent(seed=seed, **opts, **params)
                        action = agent.act(obs, mask)
                        row = np.full(WIDTH, np.nan)
                        crow = np.full(WIDTH, -1, dtype=np.int64)
                        if game.phase is Phase.PLAY:
                            again = KakeyaExpertAgent(seed=seed, **opts, **params)
                            view = again.decoder.decode(obs)
                            cards = again.candidates(view, [int(a) for a in np.flatnonzero(mask)])
                            if len(cards) > 1:
                                totals = again.card_values(view, cards)
                                row[: len(totals)] = totals
                                crow[: len(cards)] = cards
                        got.append(np.asarray(obs, dtype=np.float32))
                        case_ix.append(ci)
                        seeds.append(seed)
                        actions.append(action)
                        masks.append(np.asarray(mask, dtype=np.int8))
                        values.append(row)
                        cands.append(crow)
                game.apply_action(legal[int(rng.integers(len(legal)))])
        obs_by_case.append(got)
    arrays: dict[str, np.ndarray] = {
        "case": np.array(case_ix, dtype=np.int64),
        "seed": np.array(seeds, dtype=np.int64),
        "action": np.array(actions, dtype=np.int64),
        "values": np.array(values, dtype=np.float64),
        "candidates": np.array(cands, dtype=np.int64),
        "cases": np.array(json.dumps([[o, p] for o, p, _ in CASES])),
    }
    for ci, got in enumerate(obs_by_case):
        arrays[f"obs{ci}"] = np.stack(got)
        arrays[f"mask{ci}"] = np.stack([m for m, c in zip(masks, case_ix, strict=True) if c == ci])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **arrays)
    phases = sum(1 for v in values if not np.isnan(v[0]))
    print(f"{len(seeds)} decisions ({phases} card decisions with values) -> {OUT}")


if __name__ == "__main__":
    record()
