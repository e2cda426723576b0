"""The Kakeya and Toy Card kernels behind their batch engines (issue #26): the compact observation, the
row streams of ``reset(seed=s)``, the deck feed, and the kernels as plain Python (``NUMBA_DISABLE_JIT``).

The lockstep with the AEC envs on every rule option is tests/test_batch.py (and the partial-step,
autoreset and VecEnv suites); here what the kernels add."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from kabu_envs import batch
from kabu_envs.batch.kernel_env import KernelBatchEnv
from kabu_envs.core import kernel as core
from kabu_envs.core.errors import IllegalActionError

CASES = [
    ("kakeya", {}),
    ("kakeya", {"num_players": 6, "six_player_mode": "dealers_sit_out", "max_deals": 3, "reward": "egara"}),
    ("toy_card", {"num_players": 5}),
]


def _random_play(envs, steps: int, seed: int = 0) -> None:
    """Step every engine with the same random legal actions (chosen on the first one's mask)."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        first = envs[0]
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in first.legal_action_mask])
        for env in envs:
            env.step(acts)
        for env in envs[1:]:
            assert np.array_equal(env.current_player, first.current_player)
            assert np.array_equal(env.legal_action_mask, first.legal_action_mask)
            assert np.array_equal(env.observation, first.observation)
            assert np.array_equal(env.rewards, first.rewards)
            assert np.array_equal(env.terminated, first.terminated)


@pytest.mark.parametrize(("game", "options"), CASES)
def test_compact_observation_decodes_to_the_float32_one(game, options):
    plain = batch.make(game, batch_size=16, autoreset=True, **options)
    compact = batch.make(game, batch_size=16, autoreset=True, observation="compact", **options)
    assert compact.observation_packed.dtype == np.uint8
    assert compact.observation_packed.nbytes + compact.observation_real.nbytes < plain.observation.nbytes / 8
    for env in (plain, compact):
        env.reset(seeds=list(range(16)))
    assert np.array_equal(compact.observation, plain.observation)
    _random_play([plain, compact], 150)
    with pytest.raises(ValueError, match="observation='bits'"):
        batch.make(game, batch_size=2, observation="bits", **options)


@pytest.mark.parametrize(("game", "options"), CASES)
def test_reset_seed_gives_each_row_its_own_stream(game, options):
    """``reset(seed=s)``: row b deals from ``seed_state(s, b, episode)``, so a row plays the same
    games whatever the batch size; another seed deals other games; autoreset continues the stream."""
    small = batch.make(game, batch_size=3, autoreset=True, **options)
    large = batch.make(game, batch_size=7, autoreset=True, **options)
    other = batch.make(game, batch_size=3, autoreset=True, **options)
    small.reset(seed=42)
    large.reset(seed=42)
    other.reset(seed=43)
    rng = np.random.default_rng(5)
    differs = 0
    for _ in range(200):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in large.legal_action_mask])
        large.step(acts)
        small.step(acts[:3])
        assert np.array_equal(small.observation, large.observation[:3])
        assert np.array_equal(small.rewards, large.rewards[:3])
        differs += not np.array_equal(small.observation, other.observation)
        if other.legal_action_mask[np.arange(3), acts[:3]].all():
            other.step(acts[:3])
    assert differs > 0
    assert (small.state.g[:, small._kernel.EPISODE] > 0).any()  # matches restarted from the stream


def test_kernel_stream_is_the_documented_generator():
    """A Toy Card row reset with ``seed=s`` holds the cards of a deck shuffled by ``core.kernel`` from
    ``seed_state(s, row, 0)``: the documented stream, nothing of numpy's."""
    env = batch.make("toy_card", batch_size=4, num_players=8)
    env.reset(seed=9)
    for row in range(4):
        state = core.seed_states(9, [row], [0])
        deck = np.arange(40, dtype=np.int64)
        core.shuffle(state, 0, deck, 40)
        assert env.state.values[row].tolist() == (deck[:8] // 4).tolist()


def test_fed_rows_deal_the_aec_decks_and_a_missing_deck_is_named():
    from kabu_envs import registry

    env = batch.make("kakeya", batch_size=2, max_deals=4)
    env.reset(seeds=[3, 4])
    raw = registry.get("kakeya").make_raw_env(max_deals=4)
    raw.reset(seed=4)
    assert np.array_equal(env.observation[1], raw.observe(raw.agent_selection)["observation"])
    k = env._kernel
    assert env.state.g[:, k.FEED].tolist() == [1, 1] and env.state.g[:, k.READY].tolist() == [1, 1]
    env.state.g[0, k.READY] = 0  # as if the feed had not been topped up
    acts = np.array([int(np.flatnonzero(m)[0]) for m in env.legal_action_mask])  # TRUMP: deal now
    with pytest.raises(RuntimeError, match="no deck in its feed"):
        env.step(acts)


_PLAIN = """
import numpy as np
import importlib.util
import sys
# by path: a top-level ``tests`` package installed by another project (pgx ships one) would shadow ours
spec = importlib.util.spec_from_file_location("lockstep_suite", "tests/test_batch.py")
tb = importlib.util.module_from_spec(spec)
sys.modules["lockstep_suite"] = tb
spec.loader.exec_module(tb)
from kabu_envs import batch
tb._lockstep("kakeya", {}, B=2, decks=[[12, 51], None], max_steps=2000)
tb._lockstep("kakeya", {"num_players": 6, "six_player_mode": "dealers_sit_out", "max_deals": 2}, B=2,
             max_steps=2000)
tb._lockstep("toy_card", {"num_players": 3}, B=3)
env = batch.make("kakeya", batch_size=2, autoreset=True, observation="compact")
env.reset(seed=1)
for _ in range(80):
    env.step(np.array([np.flatnonzero(m)[0] for m in env.legal_action_mask]))
print("plain python ok")
"""


def test_the_kernels_run_as_plain_python(plain_python):
    """``NUMBA_DISABLE_JIT=1``: the same kernels as plain Python (coverage, debugging), in lockstep."""
    assert "plain python ok" in plain_python(_PLAIN)


@pytest.mark.parametrize("game", ["kakeya", "toy_card"])
def test_the_cache_stamp_covers_the_modules_the_constants_come_from(game, monkeypatch):
    """A change to the observation layout (or a table) must recompile: the stamp hashes those modules'
    sources, beside the kernel's own (``core.kernel.prepare`` drops a cache of another stamp)."""
    import importlib

    module = importlib.import_module(f"kabu_envs.{game}.kernel")
    seen: list[str] = []
    real = core.fingerprint

    def spy(modules, constants=()):
        seen.extend(m.__name__ for m in modules)
        return real(modules, constants)

    monkeypatch.setattr(core, "fingerprint", spy)
    first = module.stamp()
    assert {f"kabu_envs.{game}.kernel", f"kabu_envs.{game}.observation", "kabu_envs.core.kernel"} <= set(seen)
    if game == "kakeya":
        assert {"kabu_envs.kakeya.scoring", "kabu_envs.kakeya.cards"} <= set(seen)
    assert module.stamp() == first  # stable: a warm start loads the cache


_ONE_VERSION_CASES = [
    ("kakeya", {}),
    ("kakeya", {"num_players": 6, "six_player_mode": "dealers_sit_out", "reward": "egara"}),
    ("toy_card", {"num_players": 5}),
    ("oicho_kabu", {"num_players": 8, "bet_sizes": (1, 2, 3, 4, 5, 6), "deck": "hanafuda"}),
]


def test_every_cached_kernel_function_has_one_version():
    """numba's cache index of a function is read, extended and rewritten by each process compiling a
    new version: two processes adding different ones at once (test or training workers) can pair an
    entry with the other's machine code. So every cached function of every kernel (and of
    ``core.kernel``) must be compiled with one set of argument types whatever the game, rule set,
    observation format and call (a helper called with several, such as ``core.shuffle`` with int8 and
    int64 decks or Kakeya's ``bit`` with literal cards, is ``inner_jit``: compiled into its callers)."""
    import importlib

    if core.jit_disabled():
        pytest.skip("plain Python: nothing is compiled")
    for game, options in _ONE_VERSION_CASES:
        for observation in ("float32", "compact"):
            env = batch.make(game, batch_size=3, autoreset=True, observation=observation, **options)
            env.reset(seed=1)
            _random_play([env], 40)
            env.reset(rows=[1], seeds=[5], decks=[[0, 1, 2]])
            legal = np.array([int(np.flatnonzero(m)[0]) for m in env.legal_action_mask])
            env.step(legal, active=np.array([True, False, True]))
            env.observation  # noqa: B018 - encodes
    modules = [
        "kabu_envs.core.kernel",
        "kabu_envs.kakeya.kernel.rules",
        "kabu_envs.kakeya.kernel.batch",
        "kabu_envs.kakeya.kernel.sample",
        "kabu_envs.kakeya.kernel.decide",
        "kabu_envs.toy_card.kernel",
        "kabu_envs.oicho_kabu.kernel.flow",
        "kabu_envs.oicho_kabu.kernel.observe",
    ]
    cached = []
    for name in modules:
        module = importlib.import_module(name)
        for f in vars(module).values():
            if hasattr(f, "py_func") and f.__module__ == name and core.is_cached(f):
                cached.append(f)
                index = f._cache._cache_file._load_index()  # (numba's index of the cached versions)
                assert len(f.signatures) <= 1 and len(index) <= 1, (name, f.__name__, list(index))
    assert len(cached) >= 10


@pytest.mark.parametrize(("game", "options"), CASES)
def test_mask_rows_are_padded_words_and_the_padding_is_illegal(game: str, options: dict[str, Any]) -> None:
    """The kernel engines keep each game's mask in whole 8-byte words (Kakeya writes them as uint64
    words): ``legal_action_mask`` is the (B, A) view, the padding is never legal, and an action id in
    the padding is refused as any id past the last."""
    env = batch.make(game, batch_size=5, autoreset=True, **options)
    env.reset(seed=3)
    _random_play([env], 30)
    assert isinstance(env, KernelBatchEnv)
    rows = env._mask_rows
    assert rows.shape[1] % 8 == 0 and rows.shape[1] - env.num_actions < 8
    assert env.legal_action_mask.shape == (5, env.num_actions)
    assert np.shares_memory(env.legal_action_mask, rows)
    assert not rows[:, env.num_actions :].any()
    if rows.shape[1] > env.num_actions:
        acts = np.array([int(np.flatnonzero(m)[0]) for m in env.legal_action_mask])
        acts[2] = env.num_actions  # (inside the padding)
        with pytest.raises(IllegalActionError, match="game 2 of the batch"):
            env.step(acts)


def test_the_kakeya_layout_checks_what_the_encoder_assumes(monkeypatch: pytest.MonkeyPatch) -> None:
    """``layout`` refuses an observation whose small pieces (before the egara) pass one 64-bit word, or
    whose real-valued tail cannot hold the entries a last whole byte of 0/1 entries writes past it."""
    from kabu_envs.core.obs_spec import ObsSpec
    from kabu_envs.kakeya import kernel
    from kabu_envs.kakeya.config import make_config

    cfg = make_config()
    real = kernel.obs_spec(cfg)
    assert len(kernel.layout(cfg)) == len(real.pieces)

    def widened(name: str, size: int) -> ObsSpec:
        return ObsSpec(tuple(replace(p, size=size) if p.name == name else p for p in real.pieces))

    monkeypatch.setattr(kernel, "obs_spec", lambda _cfg: widened("voids", 40))
    with pytest.raises(ValueError, match="before 'egara'"):
        kernel.layout(cfg)
    short = ObsSpec(tuple(p for p in real.pieces if p.name not in ("deal", "stones")))
    monkeypatch.setattr(kernel, "obs_spec", lambda _cfg: short)
    with pytest.raises(ValueError, match="in this order"):
        kernel.layout(cfg)
    monkeypatch.setattr(kernel, "obs_spec", lambda _cfg: widened("hand_counts", 1))
    with pytest.raises(ValueError, match="7 entries"):
        kernel.layout(cfg)
