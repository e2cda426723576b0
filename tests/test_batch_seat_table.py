"""Every role's ``batch_seat_table`` (the training VecEnv's restarts read it for many games at once)
must hold exactly what its ``batch_seat_groups`` gives game by game, and the VecEnv's fallback for a role
without one must build the same table."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from kabu_envs import batch, registry
from kabu_envs.training.batch_vec_env import BatchVecEnv

CASES = [
    (game, role.name, options)
    for game in registry.game_ids()
    for role in registry.get(game).roles
    for options in ({}, {"num_players": 6 if game == "kakeya" else 5})
]


def _lists(table: np.ndarray) -> list[list[list[int]]]:
    """A seat table read back as each game's groups (the -1 padding dropped)."""
    return [[[int(x) for x in group if x >= 0] for group in groups if group[0] >= 0] for groups in table]


@pytest.mark.parametrize(("game", "role", "options"), CASES)
def test_table_equals_the_groups(game, role, options):
    spec = registry.get(game)
    r = spec.role(role)
    assert r.batch_seat_table is not None, f"{game}/{role} declares no batch_seat_table"
    eng = batch.make(game, batch_size=40, **options)
    eng.reset(seeds=list(range(40)))
    if hasattr(eng, "dealer"):  # every dealer seat, not only the first deal's
        eng.dealer[:] = np.arange(40) % eng.num_players
    rows = np.array([3, 0, 17, 39, 5, 22])
    got = np.asarray(registry.resolve(r.batch_seat_table)(eng, rows))
    assert got.dtype == np.int64 and got.ndim == 3 and got.shape[0] == len(rows)
    assert _lists(got) == [r.batch_groups(eng, b) for b in rows.tolist()]
    # the padding is -1 and trails: after a group's last seat, after a game's last group
    assert ((got >= 0) | (got == -1)).all()
    assert (np.diff((got >= 0).astype(int), axis=2) <= 0).all()
    assert (np.diff((got[:, :, 0] >= 0).astype(int), axis=1) <= 0).all()


def test_vec_env_fallback_builds_the_same_table():
    env = BatchVecEnv("oicho_kabu", 12, role="bettor", opponents="scripted")
    env.engine.reset(seeds=list(range(12)))
    env.engine.dealer[:] = np.arange(12) % env.engine.num_players
    rows = np.arange(12)
    fast = env._table_of(env.engine, rows)
    env.role = dataclasses.replace(env.role, batch_seat_table=None)
    slow = env._table_reader()(env.engine, rows)
    assert np.array_equal(fast, slow)
