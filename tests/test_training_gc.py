"""The training loop's garbage-collector settings (training/gc_tuning.py)."""

from __future__ import annotations

import gc
import weakref
from contextlib import contextmanager

import pytest

from kabu_envs.training.gc_tuning import LEARN_THRESHOLDS, quiet_gc


class _Node:
    other: _Node | None = None


def test_quiet_gc_freezes_and_raises_thresholds_then_restores_them():
    before = gc.get_threshold()
    assert gc.get_freeze_count() == 0
    with quiet_gc():
        assert gc.get_threshold() == LEARN_THRESHOLDS
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_quiet_gc_restores_on_an_interrupt():
    before = gc.get_threshold()
    with pytest.raises(KeyboardInterrupt), quiet_gc():
        raise KeyboardInterrupt
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_cycles_made_inside_are_still_collected():
    with quiet_gc():
        a, b = _Node(), _Node()
        a.other, b.other = b, a
        ref = weakref.ref(a)
        del a, b
        gc.collect()
        assert ref() is None


def test_a_callers_frozen_heap_stays_frozen():
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    ref = weakref.ref(a)
    gc.freeze()  # the caller's: the cycle is out of the collector's view
    try:
        with quiet_gc():
            pass
        del a, b
        gc.collect()
        assert ref() is not None  # still frozen after quiet_gc: not collected
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    gc.collect()
    assert ref() is None


def test_training_learns_inside_quiet_gc(tmp_path, monkeypatch):
    import torch

    from kabu_envs.training import run
    from kabu_envs.training.config import load_config

    torch.set_num_threads(1)
    entered: list[tuple[int, int, int]] = []

    @contextmanager
    def recording():
        with quiet_gc():
            entered.append(gc.get_threshold())
            yield

    monkeypatch.setattr(run, "quiet_gc", recording)
    run.train(
        load_config("ppo_toy_card", timesteps=256, eval_deals=0), out=tmp_path / "r", progress_bar=False
    )
    assert entered == [LEARN_THRESHOLDS]
