"""The one interval routine (privcheck/base/stats.py) against statsmodels and exact binomial tails.

Clopper–Pearson limits come from the certified beta quantiles of privcheck/base/betainc.py (no
scipy or statsmodels import on the audit path). They must agree with statsmodels'
``proportion_confint(method="beta")`` (scipy's beta quantiles) and be on the safe side of the
exact limit: P(Bin(n, L) ≥ k) ≤ α for the lower limit L, and
P(Bin(n, U) ≤ k) ≤ α for the upper limit U.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint

from privcheck.base.stats import clopper_pearson, log_ratio_lower_bound, max_certifiable_log_ratio


def _tail_ge(k: int, n: int, p: float) -> mpmath.mpf:
    """P(Bin(n, p) ≥ k), exactly (mpmath, 40 digits)."""
    with mpmath.workdps(40):
        p = mpmath.mpf(p)
        return mpmath.fsum(mpmath.binomial(n, j) * p**j * (1 - p) ** (n - j) for j in range(k, n + 1))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 400), frac=st.floats(0, 1), alpha=st.sampled_from([0.05, 0.01, 1e-4, 0.3]))
def test_agrees_with_statsmodels_beta_method(n, frac, alpha):
    k = int(round(frac * n))
    lo, hi = clopper_pearson(k, n, alpha)
    sm_lo, sm_hi = proportion_confint(k, n, alpha=alpha, method="beta")
    sm_lo = 0.0 if k == 0 else float(sm_lo)
    sm_hi = 1.0 if k == n else float(sm_hi)
    assert lo == pytest.approx(sm_lo, rel=1e-9, abs=1e-300)
    assert hi == pytest.approx(sm_hi, rel=1e-9, abs=1e-300)
    assert _tail_ge(k, n, lo) <= alpha / 2 if k > 0 else lo == 0.0  # safe side of the exact limits
    assert 1 - _tail_ge(k + 1, n, hi) <= alpha / 2 if k < n else hi == 1.0


@pytest.mark.parametrize("k,n,alpha", [(1, 10, 0.05), (7, 10, 0.05), (50, 100, 1e-3), (99, 100, 0.01), (3, 200, 1e-6)])
def test_limits_are_on_the_safe_side_of_the_exact_tails(k, n, alpha):
    lo = clopper_pearson(k, n, alpha, "lower")
    hi = clopper_pearson(k, n, alpha, "upper")
    assert _tail_ge(k, n, lo) <= alpha  # at L, seeing ≥ k successes is still rare: L is not too high
    assert 1 - _tail_ge(k + 1, n, hi) <= alpha  # at U, seeing ≤ k successes is rare: U is not too low
    assert _tail_ge(k, n, lo * 1.001) > alpha  # and tight: a slightly larger L would not hold


def test_edges_and_bad_input():
    assert clopper_pearson(0, 10, 0.05, "lower") == 0.0
    assert clopper_pearson(10, 10, 0.05, "upper") == 1.0
    lo, hi = clopper_pearson(np.array([0, 5, 10]), np.array([10, 10, 10]), 0.05)
    assert lo[0] == 0.0 and hi[2] == 1.0 and 0 < lo[1] < 0.5 < hi[1] < 1
    for bad in [(-1, 10, 0.05), (11, 10, 0.05), (1, 0, 0.05), (1, 10, 0.0), (1, 10, 1.0)]:
        with pytest.raises(ValueError):
            clopper_pearson(*bad)


def test_log_ratio_bound_and_its_maximum():
    # all n1 draws in the event for one input, none for the other: the largest certifiable value
    best = max_certifiable_log_ratio(1000, 1000, 0.05)
    assert best == log_ratio_lower_bound(1000, 1000, 0, 1000, 0.05)
    assert log_ratio_lower_bound(600, 1000, 400, 1000, 0.05) < np.log(600 / 400) < best
    assert log_ratio_lower_bound(0, 1000, 10, 1000, 0.05) == -np.inf
