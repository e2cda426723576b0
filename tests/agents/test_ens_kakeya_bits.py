"""``ens_kakeya`` plays bit for bit as recorded: 405 decisions of a partnership game (half of them the
ensemble's own arg-max, so states it reaches), their observations, masks and the probabilities it gave
when its members were copies in its folder (``data/ens_kakeya_decisions.npz``, written before its record
named its members by checksum). Any change to how the shipped ensemble finds or combines its members
that moves one bit fails here."""

from pathlib import Path

import numpy as np

from kabu_envs.agents.ensemble import read_model
from kabu_envs.agents.registry import SHIPPED_MODELS
from kabu_envs.agents.stages import StageSplit

DATA = Path(__file__).parent / "data" / "ens_kakeya_decisions.npz"


def test_the_shipped_ensemble_gives_the_recorded_bits():
    with np.load(DATA, allow_pickle=False) as data:
        obs, masks, want = data["obs"], data["masks"], data["probs"]
    stage = StageSplit("kakeya", "endgame", {}).of(obs)
    assert len(obs) >= 400 and 30 < stage.sum() < len(obs) - 30  # both stages' members are exercised
    ens = read_model(SHIPPED_MODELS / "ens_kakeya")
    assert np.array_equal(ens.masked_probs_batch(obs, masks), want)
    for i in range(0, len(obs), 9):
        assert np.array_equal(ens.masked_probs(obs[i], masks[i]), want[i])
