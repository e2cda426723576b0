"""``OichoKabuBatch`` (the batch contract on the Oicho-Kabu kernel) against the AEC env.

A game of ``reset(seeds=...)`` is fed: the kernel pauses at each shuffle and Python draws it from the
game's numpy generator as the scalar ``Deck`` does, so the batch plays the AEC env's ``reset(seed=s)``
deals; partial steps (``active``), the compact observation, autoreset, the feed's pauses and bad input
are checked here, every rule option by ``test_kernel_oicho.py`` and ``test_batch_oicho.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_kernel_oicho import _aec_state

from kabu_envs import registry
from kabu_envs.batch.feed import decode_compact
from kabu_envs.core import kernel as core
from kabu_envs.core.errors import IllegalActionError
from kabu_envs.oicho_kabu.batch import OichoKabuBatch
from kabu_envs.oicho_kabu.kernel import flow, observe


def _envs(options: dict[str, Any], seeds: list[int], decks: list[Any]) -> list[Any]:
    out = []
    for s, d in zip(seeds, decks, strict=True):
        env = registry.get("oicho_kabu").make_raw_env(**options)
        env.reset(seed=s, options=None if d is None else {"deck": d})
        out.append(env)
    return out


@pytest.mark.parametrize(
    "options",
    [{}, {"rules": "kansai", "max_rounds": 3}, {"rules": "kabufuda_site", "max_rounds": 3, "num_players": 6}],
    ids=["standard", "kansai", "site-6p"],
)
@pytest.mark.parametrize("observation", ["float32", "compact"])
def test_kernel_batch_equals_aec_envs_with_partial_steps(options: dict[str, Any], observation: str) -> None:
    B = 8
    env = OichoKabuBatch(B, observation=observation, **options)
    seeds = [40 + b for b in range(B)]
    decks: list[Any] = [None] * B
    decks[1] = [0, 4, 8, 12, 16, 20]
    env.reset(seeds=seeds, decks=decks)
    aecs = _envs(options, seeds, decks)
    names = aecs[0].possible_agents
    rng = np.random.default_rng(2)
    summed = np.zeros((B, len(names)))
    steps = 0
    while not env.terminated.all():
        obs = env.observation
        if observation == "compact":
            lo, _ = env._real_columns
            assert np.array_equal(
                decode_compact(env.observation_packed, env.observation_real, lo, env.obs_size), obs
            )
        acts = np.zeros(B, dtype=np.int64)
        for b, a in enumerate(aecs):
            seat, mask, aec_obs = _aec_state(a, names)
            assert env.current_player[b] == seat
            if seat < 0:
                assert not obs[b].any()
                continue
            assert np.array_equal(env.legal_action_mask[b], mask)
            assert np.array_equal(obs[b], aec_obs), (b, steps)
            acts[b] = int(rng.choice(np.flatnonzero(mask)))
        moving = rng.random(B) < 0.6
        live = (env.current_player >= 0) & moving
        env.step(acts, active=moving)
        summed -= env.rewards
        assert not env.rewards[~moving].any()
        assert np.array_equal(env.terminated, env.current_player < 0)
        for k in np.flatnonzero(live):
            aecs[k].step(int(acts[k]))
            summed[k] += [aecs[k].rewards[n] for n in names]
        np.testing.assert_array_equal(summed, 0.0)
        steps += 1
        assert steps < 5000


def test_autoreset_reports_the_end_and_plays_the_next_episode() -> None:
    B = 16
    auto = OichoKabuBatch(B, autoreset=True, max_rounds=2)
    plain = OichoKabuBatch(B, max_rounds=2)
    auto.reset(seed=5)
    plain.reset(seed=5)
    rng = np.random.default_rng(1)
    restarted = np.zeros(B, dtype=bool)
    episodes = np.zeros(B, dtype=np.int64)
    for _ in range(300):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in auto.legal_action_mask])
        same = ~restarted
        plain.step(np.where(same & (plain.current_player >= 0), acts, 0))
        auto.step(acts)
        assert (auto.current_player >= 0).all()
        np.testing.assert_array_equal(auto.rewards[same], plain.rewards[same])
        assert np.array_equal(auto.terminated[same], plain.terminated[same])
        ended = auto.terminated
        episodes += ended
        assert (auto.state.round_index[ended] == 0).all() and (auto.state.chips[ended] == 100).all()
        restarted |= ended
        np.testing.assert_array_equal(auto.rewards.sum(axis=1), 0.0)
    assert restarted.all()
    assert np.array_equal(auto.state.episode.astype(np.int64), episodes)  # (seed, row, episode): the next one


def test_rows_seeded_by_one_seed_are_independent_of_the_batch() -> None:
    """``reset(seed=s)``: row b deals from (s, b, 0), whatever the batch size and the other rows."""
    big, small = OichoKabuBatch(6), OichoKabuBatch(3)
    big.reset(seed=11)
    small.reset(seed=11)
    assert np.array_equal(big.state.deck[:3], small.state.deck) and np.array_equal(
        big.observation[:3], small.observation
    )
    assert not np.array_equal(big.state.deck[0], big.state.deck[1])
    again = OichoKabuBatch(6)
    again.reset(seed=11)
    again.reset(rows=[4], seeds=[123])
    assert np.array_equal(again.state.deck[:4], big.state.deck[:4])
    assert not np.array_equal(again.state.deck[4], big.state.deck[4])


def test_bad_input_is_refused_and_changes_nothing() -> None:
    with pytest.raises(ValueError, match="observation='bits'"):
        OichoKabuBatch(2, observation="bits")
    env = OichoKabuBatch(3)
    env.reset(seed=4)
    acts = np.array([int(np.flatnonzero(m)[0]) for m in env.legal_action_mask])
    bad = acts.copy()
    bad[2] = 1  # DRAW while betting
    before = env.observation.copy()
    with pytest.raises(IllegalActionError, match=r"game 2 of the batch"):
        env.step(bad)
    assert np.array_equal(env.observation, before)
    with pytest.raises(ValueError):
        env.reset(seeds=[1, 2, 3], decks=[None, [3, 3], None])
    with pytest.raises(TypeError, match="seed=1.5"):
        env.reset(seed=1.5)  # type: ignore[arg-type]
    env.step(acts)
    assert env.state_nbytes() > env.observation.nbytes


def test_every_rule_set_runs_one_compiled_version_of_each_entry_point() -> None:
    """Every rule set (players, bet sizes, decks) and both observations call the kernel's cached entry
    points with the same argument types: numba's cache then holds one
    version of each, so processes compiling at once (test or training workers) write the same code (two
    processes adding different versions at once can pair an index entry with the other's code)."""
    for options in ({}, {"num_players": 8, "bet_sizes": (1, 2, 3, 4, 5, 6)}, {"deck": "hanafuda"}):
        for observation in ("float32", "compact"):
            env = OichoKabuBatch(3, autoreset=True, observation=observation, **options)
            env.reset(seed=1)
            for _ in range(30):
                env.step(np.array([int(np.flatnonzero(m)[0]) for m in env.legal_action_mask]))
                env.observation  # noqa: B018 - encodes
            env.reset(rows=[1], seeds=[5], decks=[[0, 1, 2]])
            moving = np.array([True, False, True])
            env.step(np.array([int(np.flatnonzero(m)[0]) for m in env.legal_action_mask]), active=moving)
            env.observation  # noqa: B018
    for f in (flow.reset_rows, flow.resume_rows, flow.step, observe.encode, observe.encode_compact):
        if hasattr(f, "signatures") and f.signatures:  # (none under NUMBA_DISABLE_JIT)
            assert len(f.signatures) == 1, (f, [[str(x)[-120:] for x in sig] for sig in f.signatures])


@pytest.mark.parametrize(
    "options",
    [
        {"max_rounds": 5, "minso": True, "minso_limit": 3, "redeal_on_triple_table": True},
        {"max_rounds": 6, "dealer_selection": "lowest", "dealer_selection_each_deal": True, "bankroll": 5},
        {"rules": "kansai", "max_rounds": 4, "num_players": 8},
    ],
    ids=["minso-triple", "select-each-deal", "kansai-8p"],
)
def test_fed_games_pause_at_every_shuffle_and_draw_as_the_aec_game(options: dict[str, Any]) -> None:
    """Pause and resume: a fed game stops at each shuffle (new episode, new round, selection and redeal
    reshuffles) and Python draws it from the game's own generator; after every step the deck and the
    generator's state are the AEC game's (so every later shuffle is too), and the games really paused."""
    B = 6
    env = OichoKabuBatch(B, **options)
    resumed: list[int] = []
    kernel = env._kernel
    real = kernel.resume_rows

    class Spy:
        def __getattr__(self, name: str) -> Any:
            return getattr(kernel, name)

        @staticmethod
        def resume_rows(st: Any, ru: Any, rows: np.ndarray, perms: np.ndarray) -> int:
            resumed.append(len(rows))
            return int(real(st, ru, rows, perms))

    env._kernel = Spy()  # type: ignore[assignment]
    seeds = [7 * b + 1 for b in range(B)]
    decks: list[Any] = [None] * B
    decks[2] = [39, 38, 37, 0, 4, 8]  # a stacked prefix: the rest is shuffled below it
    env.reset(seeds=seeds, decks=decks)
    aecs = _envs(options, seeds, decks)
    names = aecs[0].possible_agents
    rng = np.random.default_rng(4)
    while not env.terminated.all():
        acts = np.zeros(B, dtype=np.int64)
        for b, a in enumerate(aecs):
            seat, mask, obs = _aec_state(a, names)
            assert env.current_player[b] == seat
            if seat < 0:
                continue
            deck = a.game.deck
            st = env.state
            assert st.deck[b, : st.dlen[b]].tolist() == deck.cards and st.top[b] == deck.top
            rngb = env._rngs[b]
            assert rngb is not None and rngb.bit_generator.state == a.game.rng.bit_generator.state
            assert np.array_equal(obs, env.observation[b])
            acts[b] = int(rng.choice(np.flatnonzero(mask)))
        live = env.current_player >= 0
        env.step(acts)
        for k in np.flatnonzero(live):
            aecs[k].step(int(acts[k]))
    assert sum(resumed) >= 2 * B  # every game: its first deal and at least one more shuffle
    assert not env.state["resume"].any()


def test_a_waiting_game_without_a_generator_is_named() -> None:
    env = OichoKabuBatch(2, max_rounds=3)
    env.reset(seeds=[1, 2])
    env._rngs[1] = None  # as if its generator had been lost
    with pytest.raises(RuntimeError, match="game 1 waits for a shuffle"):
        for _ in range(200):
            env.step(np.array([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in env.legal_action_mask]))


def test_the_kernel_legality_check_finds_the_first_illegal_action() -> None:
    """``core.first_illegal_fields`` (the step's check, one loop over the record fields) names the same
    game as the mask read by numpy: the first live, moving game whose action its mask does not allow."""
    B = 64
    env = OichoKabuBatch(B, autoreset=True, rules="kansai")
    env.reset(seed=4)
    rng = np.random.default_rng(5)
    A = env.num_actions
    for _ in range(40):
        acts = rng.integers(-2, A + 2, size=B)
        moving = rng.random(B) < 0.7
        mask, live = env.legal_action_mask, env.current_player >= 0
        inside = (acts >= 0) & (acts < A)
        ok = ~(live & moving) | (inside & mask[np.arange(B), np.clip(acts, 0, A - 1)])
        expected = int(np.flatnonzero(~ok)[0]) if not ok.all() else -1
        assert core.first_illegal_fields(acts, moving, env.current_player, env._mask_rows) == expected
        legal = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        env.step(legal)


def test_a_game_record_fills_whole_cache_lines_from_a_line_start() -> None:
    """Every record starts a 64-byte cache line and takes whole lines (``layout.LINE``), with the fields
    a step touches first, so a game's step reads as few lines as its fields need."""
    from kabu_envs.oicho_kabu.kernel import layout

    many: dict[str, Any] = {"num_players": 8, "bet_sizes": (1, 2, 3, 4, 5, 6), "deck": "hanafuda"}
    for options in ({}, many):
        env = OichoKabuBatch(7, **options)
        st = env.state
        assert st.dtype.itemsize % layout.LINE == 0
        assert st.ctypes.data % layout.LINE == 0
        names = st.dtype.names or ()
        assert names[:2] == ("current_player", "phase") and "deck" in names[-8:]
        assert st.dtype.fields is not None and st.dtype.fields["legal_action_mask"][1] < layout.LINE * 2
