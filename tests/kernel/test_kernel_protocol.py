"""One kernel protocol for every game (docs/batch.md#one-kernel-protocol): every registered game's batch
engine is a ``KernelBatchEnv`` with the base class's seeding, feeding, legality check and observation
formats, and its kernel state is a named record read by name, never a positional tuple."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kabu_envs import batch, registry
from kabu_envs.batch.kernel_env import KernelBatchEnv

ENGINES = [g for g in registry.game_ids() if batch.engine_factory(g) is not None]
# what the base class alone does for every game (a game gives only its kernel's entry points)
SHARED = ("reset", "step", "_check_actions", "_feed", "observation", "observation_packed", "observation_real")


def test_the_kernel_games_all_have_an_engine() -> None:
    assert {"kakeya", "oicho_kabu", "toy_card"} <= set(ENGINES)


@pytest.mark.parametrize("game", ENGINES)
def test_every_engine_is_a_kernel_batch_env_with_the_shared_parts(game: str) -> None:
    env = batch.make(game, batch_size=3)
    assert isinstance(env, KernelBatchEnv)
    for name in SHARED:
        assert getattr(type(env), name) is getattr(KernelBatchEnv, name), (game, name)


def _is_named_record(state: Any) -> bool:
    """A named tuple of arrays (``_fields``), or a numpy record array with named fields."""
    if isinstance(state, tuple):
        fields = getattr(type(state), "_fields", None)
        return bool(fields) and all(isinstance(a, np.ndarray) for a in state)
    return isinstance(state, np.ndarray) and bool(state.dtype.names)


@pytest.mark.parametrize("game", ENGINES)
def test_every_kernel_state_is_a_named_record(game: str) -> None:
    env = batch.make(game, batch_size=3)
    env.reset(seed=1)
    state = env.state  # type: ignore[attr-defined]
    assert _is_named_record(state), type(state)
    assert not _is_named_record((np.zeros(1), np.zeros(1)))  # (a plain tuple is not one)


# ``st[6]``, ``st[12][2]``: a kernel state read by position
_POSITIONAL = re.compile(r"\bst\[\d")


@pytest.mark.parametrize("game", ENGINES)
def test_no_kernel_module_reads_its_state_by_position(game: str) -> None:
    env = batch.make(game, batch_size=1)
    source = Path(env._kernel.__file__)  # type: ignore[attr-defined]
    sources = sorted(source.parent.glob("*.py")) if source.name == "__init__.py" else [source]
    assert sources
    for path in sources:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            assert not _POSITIONAL.search(line), f"{path}:{number}: {line.strip()}"


def test_the_oicho_decision_view_is_typed_read_only_and_follows_the_engine() -> None:
    from kabu_envs.oicho_kabu.decision import DecisionView

    env = batch.make("oicho_kabu", batch_size=4, autoreset=True)
    env.reset(seed=2)
    view = env.decision_view()  # type: ignore[attr-defined]
    assert isinstance(view, DecisionView) and view is env.decision_view()  # type: ignore[attr-defined]
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.phase = view.phase  # type: ignore[misc]
    arrays = {f.name: getattr(view, f.name) for f in dataclasses.fields(view) if f.name != "config"}
    for name, a in arrays.items():
        assert isinstance(a, np.ndarray) and len(a) == 4 and not a.flags.writeable, name
        assert np.shares_memory(a, env.state), name  # type: ignore[attr-defined]
    assert view.stakes.shape[1] == env.num_players
    rng = np.random.default_rng(0)
    for _ in range(3):
        env.step(np.array([rng.choice(np.flatnonzero(m)) for m in env.legal_action_mask]))
    assert np.array_equal(view.current_player, env.current_player)
    assert np.array_equal(view.legal_action_mask, env.legal_action_mask)


def _legal_sets_of(mask: np.ndarray, words: int) -> np.ndarray:
    """Each padded mask row as bits, 64 actions a word (``KernelBatchEnv._legal``'s layout)."""
    bits = np.zeros((len(mask), words * 64), dtype=bool)
    bits[:, : mask.shape[1]] = mask
    return np.packbits(bits, axis=1, bitorder="little").view(np.uint64)


@pytest.mark.parametrize(
    ("game", "options"), [("kakeya", {}), ("kakeya", {"num_players": 6, "max_deals": 2}), ("toy_card", {})]
)
@pytest.mark.parametrize("fmt", ["float32", "compact"])
def test_the_legal_sets_the_check_reads_are_the_mask_after_every_call(
    game: str, options: dict[str, int], fmt: str
) -> None:
    """A deck-buffer kernel writes each game's legal set as bits beside its mask, and the legality check
    reads only those: they agree after every reset (whole, by rows, fed) and step (held games, games
    over, autoreset), and an action legal by the mask passes while any other raises."""
    B = 40
    env = batch.make(game, batch_size=B, autoreset=fmt == "float32", observation=fmt, **options)
    legal = env._legal  # type: ignore[attr-defined]
    assert legal is not None and legal.dtype == np.uint64 and legal.shape == (B, 1)
    rng = np.random.default_rng(4)

    def agree() -> None:
        assert np.array_equal(legal, _legal_sets_of(env._mask_rows, 1))  # type: ignore[attr-defined]

    env.reset(seed=2)
    agree()
    for t in range(150):
        if t == 40:
            env.reset(rows=np.arange(0, B, 3), seeds=list(range(100, 100 + len(range(0, B, 3)))))
            agree()
        if t == 80:
            env.reset(rows=np.arange(1, B, 4))
            agree()
        mask = env.legal_action_mask
        acts = np.argmax(mask * rng.random(mask.shape), axis=1)
        live = np.flatnonzero(env.current_player >= 0)
        if len(live) and t % 10 == 5:  # an action the mask forbids, in one live game: raises, names it
            b = int(live[0])
            wrong = np.flatnonzero(~mask[b])
            bad = acts.copy()
            bad[b] = int(wrong[0]) if len(wrong) else env.num_actions
            with pytest.raises(ValueError, match=f"game {b} of the batch"):
                env.step(bad)
        env.step(acts, active=rng.random(B) < 0.7 if t % 3 == 2 else None)
        agree()
