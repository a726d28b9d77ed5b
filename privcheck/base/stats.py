"""Exact binomial intervals and multiplicity corrections: the one interval routine.

Everything that bounds a probability from counts goes through
:func:`clopper_pearson` (exact Clopper–Pearson limits as beta quantiles from the
certified inverse of :mod:`privcheck.base.betainc`, which never lands inside the exact
interval; no scipy, so the audit path does not import it), and every
family of tests is corrected with :func:`bonferroni_alpha` (by hand) or
:func:`adjust_pvalues` (statsmodels ``multipletests``, imported only when called:
importing statsmodels pulls in pandas, ~1.4 s, so it stays off the audit path).
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from privcheck.base.betainc import betainccinv_safe, betaincinv_safe

Side = Literal["two-sided", "lower", "upper"]


def _elementwise(fn, k: np.ndarray, n: np.ndarray, a: float) -> np.ndarray:
    """``fn(k, n, a)`` on every element of the broadcast arrays, each distinct (k, n) computed once."""
    kb, nb = np.broadcast_arrays(k, n)
    memo: dict[tuple[int, int], float] = {}
    out = np.empty(kb.shape, dtype=float)
    for idx, (kk, nn) in enumerate(zip(kb.ravel().tolist(), nb.ravel().tolist())):
        key = (int(kk), int(nn))
        if key not in memo:
            memo[key] = fn(*key, a)
        out.flat[idx] = memo[key]
    return out


def _cp_lower(k: int, n: int, a: float) -> float:
    """One-sided lower limit: the ``a`` quantile of Beta(k, n − k + 1), certified from below; 0 when k = 0."""
    return 0.0 if k <= 0 else betaincinv_safe(k, n - k + 1, a)


def _cp_upper(k: int, n: int, a: float) -> float:
    """One-sided upper limit: the ``1 − a`` quantile of Beta(k + 1, n − k), certified from above; 1 when k = n."""
    return 1.0 if k >= n else betainccinv_safe(k + 1, n - k, a)


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
    The limits are the beta quantiles (Clopper & Pearson 1934) from the certified
    inverse in :mod:`privcheck.base.betainc`: never inside the exact interval (lower ends
    down, upper ends up), within a relative ~1e-9 of it (looser only for α near ½ with
    n beyond ~1e8, where the search stops short of the mean).
    """
    if not (0 < alpha < 1):
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    if side not in ("two-sided", "lower", "upper"):
        raise ValueError(f"side must be 'two-sided', 'lower' or 'upper', got {side!r}")
    k_arr = np.asarray(k, dtype=float)
    n_arr = np.asarray(n, dtype=float)
    if np.any(n_arr < 1) or np.any(k_arr < 0) or np.any(k_arr > n_arr):
        raise ValueError("clopper_pearson needs 0 <= k <= n and n >= 1")
    if np.any(k_arr != np.round(k_arr)) or np.any(n_arr != np.round(n_arr)) or np.any(n_arr > 2.0**53):
        raise ValueError("clopper_pearson needs integer counts k and n with n <= 2**53")
    a = alpha / 2 if side == "two-sided" else alpha
    lo = _elementwise(_cp_lower, k_arr, n_arr, a) if side != "upper" else None
    hi = _elementwise(_cp_upper, k_arr, n_arr, a) if side != "lower" else None
    if side == "lower":
        assert lo is not None
        return float(lo) if np.ndim(lo) == 0 else lo
    if side == "upper":
        assert hi is not None
        return float(hi) if np.ndim(hi) == 0 else hi
    assert lo is not None and hi is not None
    if np.ndim(lo) == 0:
        return float(lo), float(hi)
    return lo, hi


def bonferroni_alpha(alpha: float, m: int) -> float:
    """Per-test error level for ``m`` simultaneous tests at family-wise level ``alpha``."""
    if m < 1:
        raise ValueError("number of tests must be >= 1")
    return alpha / m


def adjust_pvalues(pvalues, alpha: float, method: str = "holm"):
    """Multiplicity-adjusted p-values and rejections (statsmodels ``multipletests``).

    Returns ``(reject, adjusted_pvalues)`` as numpy arrays. statsmodels is
    imported here, on first use, not when this module is imported.
    """
    from statsmodels.stats.multitest import multipletests

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
