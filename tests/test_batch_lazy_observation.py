"""Lazy observations (``KernelBatchEnv(lazy=True)``): a step writes the mask and marks the moved
games' observations stale; reading ``observation`` encodes them, with the values an eager encode gives.

Why it matters: the training VecEnv steps the engine ~18 times per learner decision for the opponents
(which act from the engine's state) and reads the observation once.
"""

from __future__ import annotations

import numpy as np
import pytest

from kabu_envs import batch
from kabu_envs.oicho_kabu.batch import OichoKabuBatch
from kabu_envs.training.batch_vec_env import BatchVecEnv


def _count_encodes(monkeypatch: pytest.MonkeyPatch, only: type = OichoKabuBatch) -> list[int]:
    """The number of games each ``_encode_observation`` call of an engine of class ``only`` encodes (all:
    B)."""
    calls: list[int] = []
    encode = OichoKabuBatch._encode_observation

    def counted(self, rows):  # type: ignore[no-untyped-def]
        if type(self) is only:
            calls.append(self.batch_size if rows is None else len(rows))
        return encode(self, rows)

    monkeypatch.setattr(OichoKabuBatch, "_encode_observation", counted)
    return calls


@pytest.mark.parametrize("options", [{}, {"rules": "kansai", "num_players": 6}])
def test_steps_encode_nothing_until_the_observation_is_read(monkeypatch, options):
    class Eager(OichoKabuBatch):
        """The reference: its observation read after every step (an eager engine's values)."""

    calls = _count_encodes(monkeypatch)
    env = batch.make("oicho_kabu", batch_size=64, autoreset=True, **options)
    eager = Eager(64, autoreset=True, **options)
    env.reset(seed=2)
    eager.reset(seed=2)
    assert calls == []
    rng = np.random.default_rng(0)
    ref = env.observation  # the array itself, updated in place when read again
    assert calls == [64]
    for step in range(40):
        masks = env.legal_action_mask
        assert np.array_equal(masks, eager.legal_action_mask)  # the mask is written at every step
        acts = np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1)
        held = rng.random(64) < 0.3 if step % 2 else None  # partial steps too
        env.step(acts, active=held)
        eager.step(acts, active=held)
        assert eager.observation.shape == (64, env.obs_size)
        if step % 5 == 4:
            before = len(calls)
            assert env.observation is ref
            assert len(calls) == before + 1  # one encode of the stale games, however many steps
            assert np.array_equal(ref, eager.observation), step
            assert env.observation is ref and len(calls) == before + 1  # nothing stale: no encode
        else:
            assert env._any_stale == bool(env._stale.any())


def test_batch_vec_env_opponents_encode_no_observation(monkeypatch):
    """Scripted opponents act from the engine's state: one encode per learner step (the observation the
    learner gets), none for the ~dozen opponent turns between two learner decisions."""
    calls = _count_encodes(monkeypatch)
    vec = BatchVecEnv("oicho_kabu", 32, role="bettor", opponents="scripted", seed=0)
    vec.reset()
    assert len(calls) == 1
    rng = np.random.default_rng(0)
    for t in range(20):
        masks = vec.action_masks()
        vec.step(np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1))
        assert len(calls) == 2 + t
