"""The encoder writes every value through the named pieces of ``obs_spec``, never through fixed offsets."""

import numpy as np
import pytest

from kabu_envs.core.obs_spec import ObsSpec
from kabu_envs.core.rng import make_rng
from kabu_envs.oicho_kabu import Game, make_config, observation


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"rules": "kansai", "num_players": 5, "max_rounds": 3},
        {"rules": "kabufuda_site", "deck": "hanafuda"},
    ],
)
def test_a_shuffled_layout_gives_the_same_pieces(options, monkeypatch):
    cfg = make_config(**options)
    normal = observation.obs_spec(cfg)
    shuffled = ObsSpec(tuple(normal.pieces[i] for i in make_rng(7).permutation(len(normal.pieces))))
    assert [p.name for p in shuffled.pieces] != [p.name for p in normal.pieces]
    a = observation.Encoder(cfg)
    monkeypatch.setattr(observation, "obs_spec", lambda c: shuffled)
    b = observation.Encoder(cfg)
    rng = np.random.Generator(np.random.PCG64(3))
    for g in range(40):
        game = Game(cfg, make_rng(g))
        while True:
            for seat in range(cfg.num_players):
                assert normal.decode(a.encode(game, seat)) == shuffled.decode(b.encode(game, seat))
            if game.terminal:
                break
            legal = game.legal_actions()
            game.apply_action(legal[int(rng.integers(len(legal)))])
