"""The action draw of ``benchmarks/bench_kernel.py``'s harness (issue #26): a random legal policy, the
same for every engine, uniform over each game's legal actions, whichever draw (``ranked``, ``argmax``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_kernel.py"


def _bench_kernel() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_bench_kernel_under_test", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("kind", ["ranked", "argmax"])
@pytest.mark.parametrize("num_actions", [3, 13, 58, 300])
def test_the_draw_is_legal_and_uniform_over_the_legal_actions(kind: str, num_actions: int) -> None:
    bench = _bench_kernel()
    B = 4096
    draw = bench.make_draw(kind, B, num_actions, np.random.default_rng(1))
    rng = np.random.default_rng(2)
    mask = rng.random((B, num_actions)) < 0.3
    mask[:, num_actions - 1] = True  # (the last action legal everywhere: the id bits at their widest)
    legal = [0, num_actions // 2, num_actions - 1]
    mask[:8] = False
    mask[:8, legal] = True  # a fixed set of three legal actions in the first rows
    counts = np.zeros(3)
    for k in range(8):
        acts = draw(mask, k)
        assert acts.dtype == np.int64 and acts.shape == (B,)
        assert mask[np.arange(B), acts].all(), "an illegal action was drawn"
        counts += [(acts[:8] == a).sum() for a in legal]
    # the first rows over the 8 tables: 64 draws among 3 actions, each picked
    assert counts.min() >= 8
    # every row: the chosen action's share of its legal ones, over all rows and tables, is 1 / count
    hits = np.zeros(num_actions)
    offers = np.zeros(num_actions)
    for k in range(8):
        acts = draw(mask, k)
        np.add.at(hits, acts, 1.0)
        offers += (mask / mask.sum(axis=1, keepdims=True)).sum(axis=0)
    often = offers > 200
    assert np.allclose(hits[often] / offers[often], 1.0, atol=0.25)


def test_an_unknown_draw_is_named() -> None:
    with pytest.raises(ValueError, match="draw='first'"):
        _bench_kernel().make_draw("first", 4, 5, np.random.default_rng(0))
