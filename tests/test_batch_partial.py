"""Partial refreshes of the vectorised engines: a step with ``active=`` rewrites the mask and observation
of the games it moved only (cost in proportion to them); every other game's must already be what a
whole-batch rewrite gives. The lockstep tests check the AEC equality of the whole-batch path."""

from __future__ import annotations

import numpy as np
import pytest

from kabu_envs import batch

CASES = [
    ("oicho_kabu", {}),
    ("oicho_kabu", {"rules": "kansai", "num_players": 5}),
    ("oicho_kabu", {"rules": "kabufuda_site", "num_players": 3}),
    (
        "oicho_kabu",
        {
            "deck": "hanafuda",
            "info_cards": True,
            "dealer_selection": "closest_to_nine",
            "dealer_selection_each_deal": True,
            "minso": True,
            "dealer_card_choice": True,
        },
    ),
    ("kakeya", {}),
    ("kakeya", {"num_players": 6, "six_player_mode": "all_play", "dealers_choose_trump": True}),
]


@pytest.mark.parametrize("autoreset", [False, True])
@pytest.mark.parametrize(("game", "options"), CASES)
def test_partial_steps_leave_what_a_whole_batch_refresh_gives(game, options, autoreset):
    B = 48
    env = batch.make(game, batch_size=B, autoreset=autoreset, **options)
    assert type(env).__name__ != "LoopBatchEnv"
    env.reset(seed=5)
    rng = np.random.default_rng(11)
    partial = 0
    for step in range(250):
        frac = (0.05, 0.3, 0.45, 1.0)[step % 4]
        active = rng.random(B) < frac
        live = env.current_player >= 0
        if not live.any():
            break
        partial += 0 < int((active & live).sum()) <= B // 2
        scores = rng.random(env.legal_action_mask.shape) * env.legal_action_mask
        env.step(scores.argmax(axis=1), active=active)
        mask, obs = env.legal_action_mask.copy(), env.observation.copy()
        env._refresh()  # the whole-batch rewrite
        assert np.array_equal(env.legal_action_mask, mask), f"step {step}: mask"
        assert np.array_equal(env.observation, obs), f"step {step}: observation"
        over = env.current_player < 0
        assert not env.legal_action_mask[over].any() and not env.observation[over].any()
    assert partial > 20


@pytest.mark.parametrize("game", ["kakeya", "oicho_kabu", "toy_card"])
def test_a_seed_beyond_64_bits_is_not_the_same_as_its_low_bits(game):
    """reset(seed=s) and reset(seed=s + 2**64) deal different games (a seed is not cut to 64 bits), and
    every seed below 2**64 keeps its stream."""
    from kabu_envs import batch
    from kabu_envs.batch.feed import u64

    a, b = batch.make(game, batch_size=8), batch.make(game, batch_size=8)
    a.reset(seed=5)
    b.reset(seed=5 + 2**64)
    differ = False
    for _ in range(12):  # the first legal action in every game, on both batches, until the deals show
        differ |= not np.array_equal(a.observation, b.observation)
        a.step(a.legal_action_mask.argmax(axis=1))
        b.step(b.legal_action_mask.argmax(axis=1))
    assert differ
    assert u64(5) == np.uint64(5) and u64(2**64 - 1) == np.uint64(2**64 - 1)
    assert u64(2**64 + 5) == u64(2**64 + 5) != u64(5)
