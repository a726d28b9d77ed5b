"""Exact binomial intervals and multiplicity corrections: the one interval routine.

Everything that bounds a probability from counts goes through
:func:`clopper_pearson` (statsmodels' exact "beta" method), and every family of
tests is corrected with :func:`bonferroni_alpha` / :func:`adjust_pvalues`
(statsmodels ``multipletests``).
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

Side = Literal["two-sided", "lower", "upper"]


def clopper_pearson(k, n, alpha: float, side: Side = "two-sided"):
    """Clopper–Pearson (exact binomial) bound(s) for a proportion.

    Parameters
    ----------
    k, n : int or array of int
        Successes and trials, ``0 <= k <= n``, ``n >= 1``.
    alpha : float in (0, 1)
        Error probability. For ``side="lower"`` the returned value ``L``
        satisfies ``P(p < L) <= alpha`` (a one-sided ``1 - alpha`` bound), and
        likewise for ``"upper"``; ``"two-sided"`` returns ``(L, U)`` with
        ``alpha`` split between the two tails.

    Returns
    -------
    float/array for one-sided bounds, tuple of two for two-sided. Conventions:
    the lower bound is 0 when ``k == 0`` and the upper bound is 1 when ``k == n``.
    """
    if not (0 < alpha < 1):
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    k_arr = np.asarray(k, dtype=float)
    n_arr = np.asarray(n, dtype=float)
    if np.any(n_arr < 1) or np.any(k_arr < 0) or np.any(k_arr > n_arr):
        raise ValueError("clopper_pearson needs 0 <= k <= n and n >= 1")
    two_alpha = alpha if side == "two-sided" else 2 * alpha
    lo, hi = proportion_confint(k_arr, n_arr, alpha=two_alpha, method="beta")
    lo = np.where(k_arr == 0, 0.0, np.nan_to_num(lo, nan=0.0))
    hi = np.where(k_arr == n_arr, 1.0, np.nan_to_num(hi, nan=1.0))
    if np.ndim(lo) == 0:
        lo, hi = float(lo), float(hi)
    if side == "lower":
        return lo
    if side == "upper":
        return hi
    return lo, hi


def bonferroni_alpha(alpha: float, m: int) -> float:
    """Per-test error level for ``m`` simultaneous tests at family-wise level ``alpha``."""
    if m < 1:
        raise ValueError("number of tests must be >= 1")
    return alpha / m


def adjust_pvalues(pvalues, alpha: float, method: str = "holm"):
    """Multiplicity-adjusted p-values and rejections (statsmodels ``multipletests``).

    Returns ``(reject, adjusted_pvalues)`` as numpy arrays.
    """
    reject, p_adj, _, _ = multipletests(np.asarray(pvalues, dtype=float), alpha=alpha, method=method)
    return reject, p_adj


def log_ratio_lower_bound(k1: int, n1: int, k2: int, n2: int, alpha: float) -> float:
    """Lower confidence bound on ``log(p1 / p2)`` from two independent binomial counts.

    Uses a one-sided Clopper–Pearson lower bound on ``p1`` and upper bound on
    ``p2``, each at level ``alpha / 2``, so the bound holds with probability at
    least ``1 - alpha``. Returns ``-inf`` when the lower bound on ``p1`` is 0.
    """
    lo = clopper_pearson(k1, n1, alpha / 2, "lower")
    hi = clopper_pearson(k2, n2, alpha / 2, "upper")
    if lo <= 0:
        return -math.inf
    return math.log(lo / hi)


def max_certifiable_log_ratio(n1: int, n2: int, alpha: float) -> float:
    """The largest value :func:`log_ratio_lower_bound` can return with these sample sizes.

    Attained when the event occurs in all ``n1`` draws of one input and in none
    of the ``n2`` draws of the other: no audit with these sizes can certify more.
    """
    return log_ratio_lower_bound(n1, n1, 0, n2, alpha)
