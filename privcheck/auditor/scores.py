"""Score-based events: one-dimensional statistics of the outputs and thresholds on them.

A trade-off-curve audit (:mod:`privcheck.auditor.curves`) tests ``H0: output ~ M(x)``
against ``H1: output ~ M(x')`` with rejection regions ``{s(output) ≥ t}`` for a
statistic ``s`` that is large under ``x'``. Each threshold gives one point of the
empirical trade-off curve: type I error ``α = P(s ≥ t | x)`` and type II error
``β = P(s < t | x')``. Everything here is a function of *selection* draws only:

- :func:`fit_projection` — the direction that best separates the two inputs' means
  (Fisher's discriminant ``Σ⁻¹(m' − m)`` from pooled moments, diagonal ``Σ`` for wide
  outputs), from streamed moments (:func:`moments`);
- :func:`llr_score` — the likelihood-ratio statistic where the mechanism or the view
  provides one (``obj.llr(outputs, x, x')`` = ``log p(outputs | x') − log p(outputs | x)``
  for the numeric ``(n, width)`` output matrix); the Neyman–Pearson optimal statistic;
- :func:`candidate_thresholds` — thresholds at a log-spaced grid of type I and
  type II error levels of the selection scores;
- :func:`threshold_counts` — how many outputs fall in each point's rejection region
  (used on the selection and, for the certified boxes, on the estimation draws).

``NaN`` entries of the output matrix (no value) score as 0 in a projection: any fixed
function of the output is a valid statistic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

#: outputs wider than this get a diagonal covariance in the projection (Fisher) direction
FULL_COVARIANCE_MAX = 64
#: log-spaced type I (and type II) error levels per decade of the candidate grid
GRID_PER_DECADE = 6


@dataclass
class Moments:
    """Streamed first and second moments of output rows: count, column sums, and the
    cross-product matrix (``width ≤ FULL_COVARIANCE_MAX``) or column sums of squares."""

    count: int
    sums: np.ndarray
    second: np.ndarray

    def __add__(self, other: "Moments") -> "Moments":
        return Moments(self.count + other.count, self.sums + other.sums, self.second + other.second)


def moments(X: np.ndarray) -> Moments:
    """The :class:`Moments` of the rows of ``X`` (``(n, width)`` numeric; NaN counts as 0)."""
    X = np.nan_to_num(np.asarray(X, dtype=np.float64), nan=0.0, posinf=0.0, neginf=0.0)
    second = X.T @ X if X.shape[1] <= FULL_COVARIANCE_MAX else np.einsum("ij,ij->j", X, X)
    return Moments(X.shape[0], X.sum(axis=0), second)


@dataclass
class Score:
    """A one-dimensional statistic for the ordered input pair ``pair = (a, b)``: large values point to ``b``.

    kind: ``"projection"`` (``X @ weights``) or ``"llr"`` (``llr(X, x_a, x_b)``); description: text for reports.
    """

    pair: tuple[int, int]
    kind: str
    description: str
    weights: np.ndarray | None = None
    llr: Callable | None = None
    inputs: tuple = ()

    def __call__(self, X: np.ndarray) -> np.ndarray:
        """Scores of the rows of the numeric output matrix ``X`` (``(n, width)``), shape ``(n,)``."""
        if self.kind == "llr" and self.llr is not None:
            s = np.asarray(self.llr(X, *self.inputs), dtype=np.float64).reshape(-1)
            if s.shape[0] != X.shape[0]:
                raise ValueError(f"llr returned {s.shape[0]} scores for {X.shape[0]} outputs")
            return np.nan_to_num(s, nan=-np.inf)
        X = np.nan_to_num(np.asarray(X, dtype=np.float64), nan=0.0, posinf=0.0, neginf=0.0)
        return X @ self.weights


def fit_projection(pair: tuple[int, int], ma: Moments, mb: Moments) -> Score:
    """Fisher's direction ``Σ⁻¹(m_b − m_a)`` (pooled covariance, ridge-regularised; diagonal when the
    second moments are per column), scaled to unit norm, as a projection :class:`Score` for ``pair``.

    With no difference in means (or one column whose means tie) the direction is the first axis:
    the statistic is still valid, it just separates nothing.
    """
    mean_a, mean_b = ma.sums / ma.count, mb.sums / mb.count
    diff = mean_b - mean_a
    if ma.second.ndim == 2:
        cov = (ma.second / ma.count - np.outer(mean_a, mean_a) + mb.second / mb.count - np.outer(mean_b, mean_b)) / 2
        ridge = 1e-9 * max(float(np.trace(cov)) / len(diff), 1e-300)
        try:
            w = np.linalg.solve(cov + ridge * np.eye(len(diff)), diff)
        except np.linalg.LinAlgError:
            w = diff.copy()
    else:
        var = (ma.second / ma.count - mean_a**2 + mb.second / mb.count - mean_b**2) / 2
        w = diff / np.maximum(var, 1e-300)
    norm = float(np.linalg.norm(w))
    if not np.isfinite(norm) or norm == 0.0:
        w = np.zeros_like(diff)
        w[0] = 1.0
        norm = 1.0
    w = w / norm
    top = np.argsort(-np.abs(w))[:3]
    text = " + ".join(f"{w[j]:.3g}·out[{j}]" for j in top) + (" + …" if len(w) > 3 else "")
    return Score(pair, "projection", f"projection {text}", weights=w)


def llr_score(pair: tuple[int, int], provider: Any, x_a: Any, x_b: Any) -> Score | None:
    """The likelihood-ratio :class:`Score` ``provider.llr(X, x_a, x_b)`` when ``provider`` has a callable
    ``llr`` attribute (a mechanism or a view), else ``None``."""
    fn = getattr(provider, "llr", None)
    if not callable(fn):
        return None
    return Score(pair, "llr", "log-likelihood ratio", llr=fn, inputs=(x_a, x_b))


def candidate_thresholds(s_a: np.ndarray, s_b: np.ndarray) -> np.ndarray:
    """Candidate thresholds from selection scores ``s_a`` (null input) and ``s_b`` (alternative):
    the upper quantiles of ``s_a`` at type I error levels and the lower quantiles of ``s_b`` at
    type II error levels ``10^(-k/GRID_PER_DECADE)`` down to a few draws' worth; sorted, unique."""
    levels = []
    for s in (s_a, s_b):
        n = len(s)
        lowest = max(3.0 / max(n, 1), 1e-12)
        k = int(np.ceil(-np.log10(lowest) * GRID_PER_DECADE))
        levels.append(np.unique(np.clip(10.0 ** (-np.arange(1, k + 1) / GRID_PER_DECADE), lowest, 0.5)))
    ts = []
    fa, fb = s_a[np.isfinite(s_a)], s_b[np.isfinite(s_b)]
    if len(fa):
        ts.append(np.quantile(fa, 1.0 - levels[0], method="higher"))
    if len(fb):
        ts.append(np.quantile(fb, levels[1], method="higher"))
    if not ts:
        return np.zeros(0)
    return np.unique(np.concatenate(ts))


def threshold_counts(s: np.ndarray, thresholds: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """For each threshold ``t_j``: how many scores are ``≥ t_j`` (where ``upper[j]``) or ``< t_j`` (elsewhere).

    ``s`` is one input's scores; ``upper`` selects the null input's count (the type I error region
    ``{s ≥ t}``) against the alternative's (the type II error region ``{s < t}``).
    """
    srt = np.sort(s)
    below = np.searchsorted(srt, thresholds, side="left")  # count of s < t (−inf scores count as below)
    return np.where(upper, len(s) - below, below).astype(np.int64)
