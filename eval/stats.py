"""Confidence intervals for per-deal-pair advantages (no scipy needed).

The interval is Student's t: ``mean ± t_{0.975, n-1} · s / sqrt(n)`` with ``s`` the
sample standard deviation (ddof=1) of the per-pair advantages. Each duplicate pair is
one independent sample (deals are independently seeded), so this is the textbook
interval; for n in the thousands it equals the normal one to three digits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np


def t_quantile(p: float, df: float) -> float:
    """Quantile of Student's t with ``df`` degrees of freedom.

    Cornish-Fisher expansion around the normal quantile (Abramowitz & Stegun 26.7.5),
    then two Newton steps on the exact CDF; accurate to ~1e-8 for df >= 1.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if df <= 0:
        raise ValueError(f"df must be positive, got {df}")
    z = NormalDist().inv_cdf(p)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    t = z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4
    for _ in range(3):
        t -= (t_cdf(t, df) - p) / t_pdf(t, df)
    return t


def t_pdf(t: float, df: float) -> float:
    c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    return math.exp(c - (df + 1) / 2 * math.log1p(t * t / df))


def t_cdf(t: float, df: float) -> float:
    """CDF of Student's t via the regularised incomplete beta function."""
    x = df / (df + t * t)
    tail = 0.5 * _betainc(df / 2, 0.5, x)
    return 1.0 - tail if t > 0 else tail


def _betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta I_x(a, b) (continued fraction, Numerical Recipes 6.4)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    ln_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x > (a + 1) / (a + b + 2):
        return 1.0 - _betainc(b, a, 1.0 - x)
    f, c, d = 1.0, 1.0, 0.0
    for i in range(400):
        m = i // 2
        if i == 0:
            num = 1.0
        elif i % 2 == 0:
            num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        else:
            num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        d = 1.0 + num * d
        d = 1.0 / (d if abs(d) > 1e-300 else 1e-300)
        c = 1.0 + num / (c if abs(c) > 1e-300 else 1e-300)
        f *= c * d
        if abs(1.0 - c * d) < 1e-15:
            break
    return math.exp(ln_front) * (f - 1.0) / a


@dataclass(frozen=True)
class Summary:
    """Mean, 95% CI and win/tie/loss rates of per-pair advantages."""

    n: int
    mean: float
    lo: float
    hi: float
    std: float
    win_rate: float
    tie_rate: float
    loss_rate: float

    def as_dict(self) -> dict[str, float | int | list[float]]:
        return {
            "games": self.n,
            "mean": self.mean,
            "ci95": [self.lo, self.hi],
            "std": self.std,
            "win_rate": self.win_rate,
            "tie_rate": self.tie_rate,
            "loss_rate": self.loss_rate,
        }


def mean_ci(values: np.ndarray | list[float], level: float = 0.95) -> tuple[float, float, float]:
    """``(mean, lo, hi)``: Student-t interval of the mean; needs at least 2 values."""
    x = np.asarray(values, dtype=float)
    if x.size < 2:
        raise ValueError(f"a confidence interval needs at least 2 samples, got {x.size}")
    m = float(x.mean())
    half = t_quantile(0.5 + level / 2, x.size - 1) * float(x.std(ddof=1)) / math.sqrt(x.size)
    return m, m - half, m + half


def summarize(advantages: np.ndarray | list[float], tol: float = 1e-9) -> Summary:
    """Summary of per-pair advantages; a win is an advantage above ``tol``."""
    x = np.asarray(advantages, dtype=float)
    m, lo, hi = mean_ci(x)
    return Summary(
        n=int(x.size),
        mean=m,
        lo=lo,
        hi=hi,
        std=float(x.std(ddof=1)),
        win_rate=float(np.mean(x > tol)),
        tie_rate=float(np.mean(np.abs(x) <= tol)),
        loss_rate=float(np.mean(x < -tol)),
    )
