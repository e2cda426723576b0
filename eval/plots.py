"""Plots (matplotlib, Agg backend): learning curves and matchup heatmaps."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def read_progress(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """``(timesteps, mean episode reward)`` from an SB3 progress.csv."""
    steps, rew = [], []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            s, r = row.get("time/total_timesteps", ""), row.get("rollout/ep_rew_mean", "")
            if s and r:
                steps.append(float(s))
                rew.append(float(r))
    return np.asarray(steps), np.asarray(rew)


def learning_curves(runs: dict[str, str | Path], out: str | Path) -> Path | None:
    """One panel per run: the learner's mean episode reward (training scale) vs steps."""
    curves = {n: read_progress(p) for n, p in runs.items() if Path(p).is_file()}
    curves = {n: c for n, c in curves.items() if c[0].size}
    if not curves:
        return None
    fig, axes = plt.subplots(1, len(curves), figsize=(4.5 * len(curves), 3.4), squeeze=False)
    for ax, (name, (x, y)) in zip(axes[0], curves.items(), strict=False):
        ax.plot(x, y, lw=1.2)
        ax.axhline(0.0, color="grey", lw=0.6, ls="--")
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("timesteps")
        ax.set_ylabel("ep_rew_mean (training scale)")
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def matchup_heatmap(rows: Sequence[dict[str, Any]], title: str, out: str | Path) -> Path:
    """Agents x opponents grid of the duplicate advantage (CI in the cell text)."""
    labels = [
        f"{r['agent']} ({r['role']}"
        + ("" if r.get("rules", "standard") == "standard" else f", {r['rules']}")
        + ")"
        for r in rows
    ]
    agents = list(dict.fromkeys(labels))
    opps = list(dict.fromkeys(r["opponent"] for r in rows))
    grid = np.full((len(agents), len(opps)), np.nan)
    text = [["" for _ in opps] for _ in agents]
    for lab, r in zip(labels, rows, strict=False):
        i, j = agents.index(lab), opps.index(r["opponent"])
        grid[i, j] = r["mean"]
        text[i][j] = f"{r['mean']:.2f}\n[{r['ci95'][0]:.2f}, {r['ci95'][1]:.2f}]"
    lim = np.nanmax(np.abs(grid)) if np.isfinite(grid).any() else 1.0
    fig, ax = plt.subplots(figsize=(2.2 + 2.0 * len(opps), 1.2 + 0.8 * len(agents)))
    im = ax.imshow(grid, cmap="RdYlGn", vmin=-lim, vmax=lim, aspect="auto")
    ax.set_xticks(range(len(opps)), opps)
    ax.set_yticks(range(len(agents)), agents)
    for i in range(len(agents)):
        for j in range(len(opps)):
            ax.text(j, i, text[i][j], ha="center", va="center", fontsize=8)
    ax.set_title(title, fontsize=10)
    fig.colorbar(im, ax=ax, label="mean advantage per duplicate deal")
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
