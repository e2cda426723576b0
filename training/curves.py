"""``python -m kabu_envs.training.curves RUN [RUN ...] --opponent expert [--out curves.png]``.

Compares the evaluation curves (``curve.csv``, training/curve.py) of several training runs -- e.g. the
same config with different seeds -- against one reference opponent: a plot of every run's duplicate
advantage with its 95% CI band against samples, and a Markdown table of, per run, the point from which
the run *reached* the reference (the CI's upper bound at or above 0 there and at every later point:
the reference is no longer significantly better, and stays so -- a noisy early point whose interval
touches 0 does not count), the last point's advantage and CI, and the samples and wall time it took.
A RUN is a run folder (its ``model/``) or a model folder holding ``curve.csv``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RunCurve:
    """One run's curve against one opponent (lists in sample order)."""

    name: str
    samples: list[float]
    wall_seconds: list[float]
    mean: list[float]
    lo: list[float]
    hi: list[float]

    def _reached(self) -> int | None:
        """Index of the first point from which every CI upper bound is >= 0 (None: the last is < 0)."""
        k = len(self.hi)
        while k > 0 and self.hi[k - 1] >= 0.0:
            k -= 1
        return k if k < len(self.hi) else None

    @property
    def reached_at(self) -> int | None:
        """Samples at the point from which the run stays level with the reference (None: never)."""
        k = self._reached()
        return None if k is None else int(self.samples[k])

    @property
    def reached_wall(self) -> float | None:
        k = self._reached()
        return None if k is None else self.wall_seconds[k]


def curve_file(run: str | Path) -> Path:
    """The ``curve.csv`` of a run folder (``model/curve.csv``, else ``work/curve.csv``) or model folder."""
    p = Path(run)
    for c in (p / "curve.csv", p / "model" / "curve.csv", p / "work" / "curve.csv"):
        if c.is_file():
            return c
    raise ValueError(f"no curve.csv in {p} (nor in its model/ or work/): was the run's curve.every > 0?")


def load(runs: list[str | Path], opponent: str) -> list[RunCurve]:
    from kabu_envs.eval.curve_file import read_curve

    out = []
    for run in runs:
        curves = read_curve(curve_file(run))
        if opponent not in curves:
            raise ValueError(f"{run}: no curve against {opponent!r}; it has {sorted(curves)}")
        c = curves[opponent]
        out.append(RunCurve(Path(run).name, c["samples"], c["wall_seconds"], c["mean"], c["lo"], c["hi"]))
    return out


def _num(x: float) -> str:
    return f"{x:+.3f}".replace("-", "−")


def table(curves: list[RunCurve], opponent: str) -> str:
    """Markdown: per run, when it reached ``opponent`` and where it ended."""
    lines = [
        f"| run | reached {opponent} at (samples) | wall time then | last point (samples) | "
        f"advantage vs {opponent} | 95% CI |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for c in curves:
        at, wall = c.reached_at, c.reached_wall
        lines.append(
            f"| {c.name} | {'not reached' if at is None else f'{at:,}'} | "
            f"{'' if wall is None else f'{wall / 60:.1f} min'} | {int(c.samples[-1]):,} | "
            f"{_num(c.mean[-1])} | [{_num(c.lo[-1])}, {_num(c.hi[-1])}] |"
        )
    return "\n".join(lines) + "\n"


def plot(curves: list[RunCurve], opponent: str, title: str, out: str | Path) -> Path:
    from kabu_envs.eval.plots import plt

    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for c in curves:
        (line,) = ax.plot(c.samples, c.mean, marker="o", ms=3, lw=1.2, label=c.name)
        ax.fill_between(c.samples, c.lo, c.hi, color=line.get_color(), alpha=0.18, lw=0)
    ax.axhline(0.0, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("training samples")
    ax.set_ylabel(f"duplicate advantage vs {opponent} (95% CI)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kabu_envs.training.curves", description=__doc__)
    ap.add_argument("runs", nargs="+", help="run folders (or model folders) holding curve.csv")
    ap.add_argument("--opponent", required=True, help="the reference the curves were measured against")
    ap.add_argument("--out", help="write the plot here (PNG)")
    ap.add_argument("--title", default="evaluation curves")
    args = ap.parse_args(argv)
    try:
        curves = load(args.runs, args.opponent)
    except ValueError as exc:
        ap.error(str(exc))
    print(table(curves, args.opponent), end="")
    if args.out:
        print(f"wrote {plot(curves, args.opponent, args.title, args.out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
