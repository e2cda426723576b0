"""Every role's seat table of a batch engine (the training VecEnv's restarts and the batched evaluation
read it for many games at once) must hold exactly the groups the AEC env of each game gives
(``Role.groups``), on the game's vectorised engine and on the reference loop, at the smallest and the
largest table of every game."""

from __future__ import annotations

import numpy as np
import pytest

from kabu_envs import batch, registry
from kabu_envs.batch import LoopBatchEnv
from kabu_envs.training.batch_vec_env import BatchVecEnv

B = 40
ROWS = np.array([3, 0, 17, 39, 5, 22, 8, 31])
# options giving deals whose seat groups differ from game to game (Oicho-Kabu's dealer drawn by cards)
VARIED = {"oicho_kabu": {"dealer_selection": "lowest"}}

CASES = [
    (spec.id, role.name, {"num_players": n, **VARIED.get(spec.id, {})})
    for spec in registry.games()
    for role in spec.roles
    for n in sorted({min(spec.players), max(spec.players)})
]


def _aec_groups(game: str, role: registry.Role, options: dict, seeds: list[int]) -> list[list[list[int]]]:
    spec = registry.get(game)
    out = []
    for s in seeds:
        raw = spec.make_raw_env(**options)
        raw.reset(seed=s)
        out.append(role.groups(raw))
    return out


@pytest.mark.parametrize(("game", "role", "options"), CASES, ids=[f"{g}-{r}-{o}" for g, r, o in CASES])
def test_table_equals_the_aec_groups_game_by_game(game, role, options):
    r = registry.get(game).role(role)
    seeds = list(range(100, 100 + B))
    want = _aec_groups(game, r, options, [seeds[b] for b in ROWS])
    for eng in (batch.make(game, batch_size=B, **options), LoopBatchEnv(game, B, **options)):
        eng.reset(seeds=seeds)
        got = eng.seat_table(r, ROWS)
        assert got.dtype == np.int64 and got.ndim == 3 and got.shape[0] == len(ROWS), type(eng).__name__
        assert registry.table_groups(got) == want, type(eng).__name__
        # the padding is -1 and trails: after a group's last seat, after a game's last group
        assert ((got >= 0) | (got == -1)).all()
        assert (np.diff((got >= 0).astype(int), axis=2) <= 0).all()
        assert (np.diff((got[:, :, 0] >= 0).astype(int), axis=1) <= 0).all()
        one = registry.table_groups(eng.seat_table(r, [int(ROWS[2])]))
        assert one == [want[2]]
    if game in VARIED:  # the deals do seat the role differently
        assert len({str(w) for w in want}) > 1


def test_the_vectorised_engines_are_what_is_compared():
    """The cases above read the games' own engines, not only the reference loop."""
    for spec in registry.games():
        assert not isinstance(batch.make(spec.id, batch_size=2), LoopBatchEnv), spec.id


def test_vec_env_on_either_engine_seats_the_learner_alike(monkeypatch):
    """The VecEnv's restarts over the vectorised engine and over the reference loop seat the learner in
    the same groups (the same view streams, the same tables)."""
    opts = {"num_players": 5, "dealer_selection": "lowest"}
    fast = BatchVecEnv("oicho_kabu", 12, role="bettor", opponents="scripted", **opts)
    monkeypatch.setattr(batch, "make", lambda g, batch_size, **o: LoopBatchEnv(g, batch_size=batch_size, **o))
    slow = BatchVecEnv("oicho_kabu", 12, role="bettor", opponents="scripted", **opts)
    assert isinstance(slow.engine, LoopBatchEnv) and not isinstance(fast.engine, LoopBatchEnv)
    for env in (fast, slow):
        env.seed(7)
        env.reset()
    assert np.array_equal(fast.learner_seats, slow.learner_seats)
    assert fast.learner_seats.sum(axis=1).tolist() == [1] * 12
    assert len({tuple(row) for row in fast.learner_seats.tolist()}) > 1
