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


def _padded(lists: list[list[list[int]]]) -> np.ndarray:
    G = max(len(groups) for groups in lists)
    S = max(len(group) for groups in lists for group in groups)
    out = np.full((len(lists), G, S), -1, dtype=np.int64)
    for k, groups in enumerate(lists):
        for g, group in enumerate(groups):
            out[k, g, : len(group)] = group
    return out


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
    want = _padded([r.batch_groups(eng, b) for b in rows.tolist()])
    got = np.asarray(registry.resolve(r.batch_seat_table)(eng, rows))
    assert got.dtype == np.int64 and np.array_equal(got, want)


def test_vec_env_fallback_builds_the_same_table():
    env = BatchVecEnv("oicho_kabu", 12, role="bettor", opponents="scripted")
    env.engine.reset(seeds=list(range(12)))
    env.engine.dealer[:] = np.arange(12) % env.engine.num_players
    rows = np.arange(12)
    fast = env._table_of(env.engine, rows)
    env.role = dataclasses.replace(env.role, batch_seat_table=None)
    slow = env._table_reader()(env.engine, rows)
    assert np.array_equal(fast, slow)
