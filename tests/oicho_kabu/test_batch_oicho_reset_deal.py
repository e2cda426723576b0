"""``OichoKabuBatch.reset`` deals without building ``Deck`` objects (the autoreset hot path): each game's
deck, stacked prefix and generator state must still be those of ``Deck(Generator(PCG64(seed)), prefix)``,
the AEC env's deal, or the game and its later reshuffles would drift from the AEC game's."""

from __future__ import annotations

import numpy as np

from kabu_envs import batch
from kabu_envs.oicho_kabu.batch import OichoKabuBatch
from kabu_envs.oicho_kabu.deck import DECK_SIZE, Deck, card_ids


def test_seeded_deals_match_deck_objects_bit_for_bit() -> None:
    engine = batch.make("oicho_kabu", 6, autoreset=False)
    assert isinstance(engine, OichoKabuBatch)
    engine.reset(seed=3)
    rows = np.array([5, 0, 3, 2])
    seeds: list[int | None] = [11, 2**40 + 7, 0, 99]
    prefixes = [None, card_ids(1, 6, 1), None, list(range(DECK_SIZE - 1, DECK_SIZE - 13, -1))]
    kept = engine.deck[[1, 4]].copy()
    engine._deal_seeded(rows, seeds, prefixes)
    for b, seed, prefix in zip(rows.tolist(), seeds, prefixes, strict=True):
        want = Deck(np.random.Generator(np.random.PCG64(seed)), prefix)
        rng = engine._rngs[b]
        assert rng is not None
        assert rng.bit_generator.state == want.rng.bit_generator.state
        assert engine.deck[b].tolist() == want.cards
        assert (engine.top[b], engine.dlen[b], engine.stacked[b]) == (0, DECK_SIZE, want.stacked)
    assert (engine.deck[[1, 4]] == kept).all()  # rows not dealt keep their decks


def test_row_reset_equals_a_fresh_batch_reset_with_those_seeds() -> None:
    """A re-dealt row plays the game a fresh batch deals from the same seed and stacked deck."""
    engine = batch.make("oicho_kabu", 4, autoreset=False)
    engine.reset(seed=8)
    engine.reset(rows=[2, 1], seeds=[40, 41], decks=[card_ids(9, 9), None])
    fresh = batch.make("oicho_kabu", 2, autoreset=False)
    fresh.reset(seeds=[41, 40], decks=[None, card_ids(9, 9)])
    assert isinstance(engine, OichoKabuBatch) and isinstance(fresh, OichoKabuBatch)
    for name in ("deck", "top", "dlen", "stacked", "observation", "legal_action_mask", "current_player"):
        assert (getattr(engine, name)[[1, 2]] == getattr(fresh, name)).all(), name
