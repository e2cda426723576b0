"""``OichoKabuBatch.reset`` with seeds: each fed game's deck, stacked prefix and generator state must be
those of the AEC env's ``reset(seed=...)`` game (``Deck(make_rng(seed), prefix)`` and the round's draws
from it), or the game and its later reshuffles would drift from the AEC game's."""

from __future__ import annotations

import numpy as np

from kabu_envs import batch, registry
from kabu_envs.oicho_kabu.batch import OichoKabuBatch
from kabu_envs.oicho_kabu.deck import DECK_SIZE, card_ids


def test_seeded_deals_match_the_aec_games_bit_for_bit() -> None:
    options = {"dealer_selection": "closest_to_nine", "redeal_on_triple_table": True}
    engine = batch.make("oicho_kabu", 6, **options)
    assert isinstance(engine, OichoKabuBatch)
    engine.reset(seed=3)
    rows = np.array([5, 0, 3, 2])
    seeds = [11, 2**40 + 7, 0, 99]
    prefixes = [None, card_ids(1, 6, 1), None, list(range(DECK_SIZE - 1, DECK_SIZE - 13, -1))]
    st = engine.state
    kept = st.deck[[1, 4]].copy()
    engine.reset(rows=rows, seeds=seeds, decks=prefixes)
    for b, seed, prefix in zip(rows.tolist(), seeds, prefixes, strict=True):
        raw = registry.get("oicho_kabu").make_raw_env(**options)
        raw.reset(seed=seed, options=None if prefix is None else {"deck": prefix})
        deck = raw.game.deck
        rng = engine._rngs[b]
        assert rng is not None and rng.bit_generator.state == raw.game.rng.bit_generator.state
        assert st.deck[b, : st.dlen[b]].tolist() == deck.cards
        assert (st.top[b], st.stacked[b]) == (deck.top, deck.stacked)
    assert (st.deck[[1, 4]] == kept).all()  # rows not dealt keep their decks
    assert engine.state["feed"].tolist() == [True, False, True, True, False, True]


def test_row_reset_equals_a_fresh_batch_reset_with_those_seeds() -> None:
    """A re-dealt row plays the game a fresh batch deals from the same seed and stacked deck."""
    engine = batch.make("oicho_kabu", 4, autoreset=False)
    engine.reset(seed=8)
    engine.reset(rows=[2, 1], seeds=[40, 41], decks=[card_ids(9, 9), None])
    fresh = batch.make("oicho_kabu", 2, autoreset=False)
    fresh.reset(seeds=[41, 40], decks=[None, card_ids(9, 9)])
    assert isinstance(engine, OichoKabuBatch) and isinstance(fresh, OichoKabuBatch)
    for name in ("deck", "top", "dlen", "stacked"):
        assert (engine.state[name][[1, 2]] == fresh.state[name]).all(), name
    for name in ("observation", "legal_action_mask", "current_player"):
        assert (getattr(engine, name)[[1, 2]] == getattr(fresh, name)).all(), name
