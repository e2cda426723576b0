"""``make_generators``/``seed_states`` must give each seed exactly ``Generator(PCG64(seed))``'s state:
every seeded batch deal depends on it (``OichoKabuBatch.reset``)."""

from __future__ import annotations

import numpy as np
import pytest

from kabu_envs.core.batch_seeds import PresetSeedSequence, make_generators, seed_states

# one to ten 32-bit words of entropy: the pool's padding, exactly full, and the extra-entropy mixing
EDGE_SEEDS = [0, 1, 5, 2**32 - 1, 2**32, 2**63 - 1, 2**64 + 3, 2**96 + 1, 2**128 - 1, 2**128, 2**300 + 7]


def test_seed_states_equal_seed_sequence() -> None:
    seeds = EDGE_SEEDS + [int(s) for s in np.random.default_rng(0).integers(0, 2**63, 300)]
    states = seed_states(seeds)
    for seed, words in zip(seeds, states, strict=True):
        assert words.tolist() == np.random.SeedSequence(seed).generate_state(4, np.uint64).tolist(), seed


def test_generators_equal_pcg64_of_the_seed() -> None:
    seeds: list[int | None] = [*EDGE_SEEDS, None, 123456789]
    gens = make_generators(seeds)
    assert len(gens) == len(seeds)
    for seed, gen in zip(seeds, gens, strict=True):
        if seed is None:
            continue
        want = np.random.Generator(np.random.PCG64(seed))
        assert gen.bit_generator.state == want.bit_generator.state, seed
        assert gen.permutation(40).tolist() == want.permutation(40).tolist()
        assert gen.random() == want.random()


def test_bad_seeds_and_requests_are_named() -> None:
    with pytest.raises(ValueError, match="negative"):
        make_generators([3, -1])
    with pytest.raises(ValueError, match="uint64 words"):
        PresetSeedSequence(seed_states([1])[0]).generate_state(8, np.uint32)


def test_seed_states_of_64_bit_seeds_equal_seed_sequence() -> None:
    """Seeds below 2**64 (what the engines and views draw) take the array route: one or two words."""
    seeds = [0, 1, 2**32 - 1, 2**32, 2**63 - 1, 2**64 - 1, *np.random.default_rng(1).integers(0, 2**63, 200)]
    states = seed_states(seeds)
    for seed, words in zip(seeds, states, strict=True):
        assert words.tolist() == np.random.SeedSequence(int(seed)).generate_state(4, np.uint64).tolist(), seed
    assert seed_states([]).shape == (0, 4)
