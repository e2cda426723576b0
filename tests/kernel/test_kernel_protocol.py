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
