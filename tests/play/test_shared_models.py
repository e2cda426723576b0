"""Model opponents share their read-only weights across the games of a process (hardening #12: 40
Kakeya games against three models took a server from 41.5 MB to 872 MB: the weights were read again
for every game)."""

from __future__ import annotations

import tracemalloc

import numpy as np

from kabu_envs.agents.registry import make_agent
from kabu_envs.play.session import HUMAN, Match

MODELS = ["ens_kakeya", "ei2_kakeya", "ppo_kakeya"]


def test_games_share_the_weights_and_play_as_before() -> None:
    first = Match("kakeya", [HUMAN, *MODELS], seed=3)
    tracemalloc.start()
    try:
        games = [Match("kakeya", [HUMAN, *MODELS], seed=10 + i) for i in range(8)]
        per_game = tracemalloc.get_traced_memory()[0] / len(games)
    finally:
        tracemalloc.stop()
    assert per_game < 5e6, f"{per_game / 1e6:.1f} MB a game"  # store.py's "~5 MB per game"
    for seat in (1, 2, 3):
        assert all(g.agents[seat].policy is first.agents[seat].policy for g in games)
    # each game's agent keeps its own generator, and plays as make_agent's agent does
    game = games[0]
    for seat, name in enumerate(MODELS, 1):
        own = make_agent("kakeya", name, game.record().seats[seat]["seed"])
        assert own.policy is not game.agents[seat].policy
    env = game.env
    rng = np.random.default_rng(0)
    while not game.over:
        if game.human_to_act:
            game.play(int(rng.choice([m["action"] for m in game.legal_moves()])))
            continue
        seat = game.to_act
        obs = env.observe(env.agent_selection)
        ref = make_agent("kakeya", MODELS[seat - 1], 0)
        assert ref.act(obs["observation"], obs["action_mask"]) == game.agents[seat].act(
            obs["observation"], obs["action_mask"]
        )
        game.advance(limit=1)
