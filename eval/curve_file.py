"""A model's evaluation curve as written (``curve.csv``: one row per point and reference opponent), read.

Why here, apart from the writer (``kabu_envs.training.curve``): a shipped model carries its curve, and
the evaluation's reports draw it (``kabu_envs.eval.plots.learning_curves``) without importing training.
"""

from __future__ import annotations

import csv
from pathlib import Path

# a curve.csv row's columns, in order
FIELDS = ("samples", "wall_seconds", "opponent", "deals", "mean", "lo", "hi")


def read_rows(path: str | Path) -> list[dict[str, str]]:
    """The rows of ``path`` as written (strings; a partly written run's too)."""
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def read_curve(path: str | Path) -> dict[str, dict[str, list[float]]]:
    """``opponent -> {"samples", "wall_seconds", "mean", "lo", "hi"}`` (lists in sample order)."""
    out: dict[str, dict[str, list[float]]] = {}
    for r in sorted(read_rows(path), key=lambda r: int(r["samples"])):
        d = out.setdefault(r["opponent"], {k: [] for k in ("samples", "wall_seconds", "mean", "lo", "hi")})
        for k in d:
            d[k].append(float(r[k]))
    for d in out.values():  # a resumed run's segments once restarted the clock at 0: make it run on
        raw, offset = list(d["wall_seconds"]), 0.0
        for i in range(1, len(raw)):
            if raw[i] < raw[i - 1]:
                offset = d["wall_seconds"][i - 1]
            d["wall_seconds"][i] = raw[i] + offset
    return out
