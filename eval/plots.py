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


def rolling(y: np.ndarray, window: int) -> tuple[np.ndarray, np.ndarray]:
    """Trailing rolling mean of ``y`` and its 95% band half-width (1.96 x the window's standard
    error); the first points average what there is."""
    mean, half = np.empty_like(y, dtype=float), np.zeros_like(y, dtype=float)
    for i in range(y.size):
        w = y[max(0, i - window + 1) : i + 1]
        mean[i] = w.mean()
        half[i] = 1.96 * w.std(ddof=1) / np.sqrt(w.size) if w.size > 1 else 0.0
    return mean, half


def _is_ensemble(model: Path) -> bool:
    """Whether a model directory holds an ensemble (its curve adds members, agents/ensemble.py)."""
    from kabu_envs.agents.policy_file import ENSEMBLE_FORMAT, read_record

    try:
        record = read_record(model)[1]
    except ValueError:
        return False
    return isinstance(record, dict) and record.get("format") == ENSEMBLE_FORMAT


def learning_curves(runs: dict[str, str | Path], out: str | Path, window: int = 20) -> Path | None:
    """One column per run (a model directory): on top, the duplicate advantage over fixed references
    at the run's checkpoints with 95% CI bands (``curve.csv``, training/curve.py) against samples, and
    wall time on the top axis; below, the training reward (SB3's ``ep_rew_mean``, training scale) as a
    rolling mean over ``window`` logged points with its band. A run without ``curve.csv`` (trained
    before the curve existed) says so in its top panel; a run without PPO (a DAgger clone, no
    ``progress.csv``) has its curve over the labelled decisions of its rounds and no reward panel."""
    from kabu_envs.eval.curve_file import read_curve

    dirs = {
        n: Path(d)
        for n, d in runs.items()
        if (Path(d) / "progress.csv").is_file() or (Path(d) / "curve.csv").is_file()
    }
    if not dirs:
        return None
    fig, axes = plt.subplots(2, len(dirs), figsize=(4.8 * len(dirs), 6.4), squeeze=False)
    for k, (name, d) in enumerate(dirs.items()):
        top, bottom = axes[0][k], axes[1][k]
        top.set_title(name, fontsize=10)
        top.axhline(0.0, color="grey", lw=0.6, ls="--")
        if (d / "curve.csv").is_file():
            curve = read_curve(d / "curve.csv")
            for opp, c in curve.items():
                x = np.asarray(c["samples"])
                (line,) = top.plot(x, c["mean"], marker="o", ms=3, lw=1.2, label=f"vs {opp}")
                top.fill_between(x, c["lo"], c["hi"], color=line.get_color(), alpha=0.2, lw=0)
            top.legend(fontsize=8)
            first = next(iter(curve.values()))
            xs, ws = np.asarray(first["samples"]), np.asarray(first["wall_seconds"]) / 60.0
            if xs.size > 1 and np.all(np.diff(xs) > 0) and np.all(np.diff(ws) > 0):
                # bound now: matplotlib calls these at draw time, after the loop
                def to_wall(v: Any, xs: np.ndarray = xs, ws: np.ndarray = ws) -> Any:
                    return np.interp(v, xs, ws)

                def to_samples(v: Any, xs: np.ndarray = xs, ws: np.ndarray = ws) -> Any:
                    return np.interp(v, ws, xs)

                sec = top.secondary_xaxis("top", functions=(to_wall, to_samples))
                sec.set_xlabel("training wall time (min)", fontsize=8)
        else:
            top.text(
                0.5, 0.5, "no evaluation curve recorded", ha="center", va="center", transform=top.transAxes
            )
            top.set_xticks([])
            top.set_yticks([])
        top.set_ylabel("duplicate advantage per deal (95% CI)")
        if not (d / "progress.csv").is_file():  # no PPO: the points are the DAgger rounds or the members
            if _is_ensemble(d):
                top.set_xlabel("the members' training samples (one point per member added)", fontsize=8)
                note = "an ensemble: no training of its own"
            else:
                top.set_xlabel("labelled decisions fitted (one point per DAgger round)", fontsize=8)
                note = "no PPO: the clone is the model"
            bottom.text(0.5, 0.5, note, ha="center", va="center", transform=bottom.transAxes)
            bottom.set_xticks([])
            bottom.set_yticks([])
            continue
        x, y = read_progress(d / "progress.csv")
        if y.size:
            m, h = rolling(y, window)
            bottom.plot(x, m, lw=1.2)
            bottom.fill_between(x, m - h, m + h, alpha=0.25, lw=0)
        bottom.axhline(0.0, color="grey", lw=0.6, ls="--")
        bottom.set_xlabel("training samples")
        bottom.set_ylabel(f"training reward, rolling mean of {window}")
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out, dpi=100)
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
