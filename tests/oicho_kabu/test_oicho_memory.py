"""What one long episode stores stays bounded (docs/oicho_kabu.md#sessions-and-dealer-rotation).

Regression: the game log kept every event of the episode (about 11 MiB per 100k steps with
``max_rounds=10**9``) and the rules memo was keyed by card ids (up to ~120k hands). Now the log holds the
events of the current deal and the memo holds card *classes* (value, or a hanafuda light).
"""

from __future__ import annotations

import numpy as np
import pytest

from kabu_envs import oicho_kabu_v1
from kabu_envs.core.rng import make_rng
from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.game import Game
from kabu_envs.oicho_kabu.render import render_log
from kabu_envs.oicho_kabu.yaku import LOCAL_YAKU

CLASSES = 13  # card values 1..10 and the three hanafuda lights
MEMO_BOUND = 2 * (CLASSES**2 + CLASSES**3) + 2 * CLASSES**2  # best yaku of 2/3 cards + draw options, per role
LONG = {"max_rounds": 10**9, "bankroll": 10**9, "num_players": 4}
CASES = {
    "standard": {},
    "kansai": {"rules": "kansai"},
    "kabufuda_site": {"rules": "kabufuda_site"},
    "all_local": {"deck": "hanafuda", "local_yaku": list(LOCAL_YAKU), "minso": True},
}


def _sizes(obj) -> dict[str, int]:
    """The length of every container attribute of ``obj``."""
    return {k: len(v) for k, v in vars(obj).items() if isinstance(v, (list, tuple, dict, set))}


@pytest.mark.parametrize("name", list(CASES))
def test_a_long_episode_stores_a_bounded_amount(name):
    cfg = make_config(**LONG, **CASES[name])
    game = Game(cfg, make_rng(0))
    rng = np.random.Generator(np.random.PCG64(1))
    biggest: dict[str, int] = {}
    while game.round_index < 1500:
        legal = game.legal_actions()
        game.apply_action(legal[int(rng.integers(len(legal)))])
        for k, n in _sizes(game).items():
            biggest[k] = max(biggest.get(k, 0), n)
    assert not game.terminal
    # the log holds one deal: a dealer change, selection draws, the table, bets of 3 bettors on 4 spreads,
    # decisions, the dealer's draw and the showdown (before: every event of the episode, ~27k here)
    assert biggest["log"] <= 64, biggest
    assert max(biggest.values()) <= 64, biggest  # every other container is per-round or per-seat
    assert len(game.deck) <= 40 and len(game.deck.cards) <= 40
    assert len(cfg._memo) <= MEMO_BOUND  # before: one entry per distinct card-id hand, ~45k in 23k rounds
    assert "round 1501" in render_log(game)  # the log shows the current deal


def test_the_env_keeps_a_bounded_state_over_a_long_episode():
    env = oicho_kabu_v1.raw_env(**LONG)
    env.reset(seed=3)
    rng = np.random.Generator(np.random.PCG64(3))
    for _ in range(10_000):
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert max(_sizes(env).values()) <= 64 and max(_sizes(env.game).values()) <= 64
    assert len(env.config._memo) <= MEMO_BOUND
    # the state API's actions since the deal began: one per step, 2 bytes each (not a list of objects)
    assert len(env._history) == 10_000 and env._history.itemsize == 2
