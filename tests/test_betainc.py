"""The certified incomplete-beta inverse (privcheck/base/betainc.py) against exact mpmath tails and scipy.

Safe side is checked exactly: at the returned lower limit L, P(Bin(n, L) ≥ k) ≤ α, and at the
upper limit U, P(Bin(n, U) ≤ k) ≤ α, both evaluated in mpmath at 60 digits (finite sums, closed
forms, or — for huge n with k far from 0 and n — the continued fraction at 60 digits with an exact
binomial prefactor). Tightness: moving the limit inward by 1e-8 relative to min(x, 1 − x) (plus
8 ulps of 1) breaks the inequality.
"""

from __future__ import annotations

import math

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import betainccinv, betaincinv

from privcheck.base.betainc import REL_ERR, betainccinv_safe, betaincinv_safe, binomial_tail_log_bounds

DPS = 60
LEVELS = [0.5, 0.2, 0.025, 1e-3, 1e-6, 1e-12]


def _sum(n: int, x, js) -> mpmath.mpf:
    """Σ_{j ∈ js} P(Bin(n, x) = j), exactly (mpmath, DPS digits)."""
    with mpmath.workdps(DPS):
        x = mpmath.mpf(x)
        return mpmath.fsum(mpmath.binomial(n, j) * x**j * (1 - x) ** (n - j) for j in js)


def _sum_ge(k: int, n: int, x) -> mpmath.mpf:
    """P(Bin(n, x) ≥ k) by an exact finite sum over the shorter side (1 − a sum: only for values ≫ 1e−DPS)."""
    if n - k + 1 <= k:
        return _sum(n, x, range(k, n + 1))
    with mpmath.workdps(DPS):
        return 1 - _sum(n, x, range(0, k))


def _cf_ge(k: int, n: int, x) -> mpmath.mpf:
    """P(Bin(n, x) ≥ k) = I_x(k, n − k + 1) by the continued fraction at DPS digits (x below the mean)."""
    with mpmath.workdps(DPS):
        a, b, x = mpmath.mpf(k), mpmath.mpf(n - k + 1), mpmath.mpf(x)
        pre = mpmath.binomial(n, k) * x**k * (1 - x) ** (n - k + 1)
        return pre * _lentz_free(a, b, x)


def _lentz_free(a, b, x) -> mpmath.mpf:
    """I_x(a, b)·a·B(a, b)/(x^a (1 − x)^b) = 1/(1 + d1/(1 + d2/(1 + …))) (Numerical Recipes' fraction),
    evaluated backwards from 6000 terms at DPS digits."""
    t = mpmath.mpf(0)
    for j in range(6000, 0, -1):  # d_j for j = 1..: d_{2m} and d_{2m+1}
        m = j // 2
        if j % 2 == 0:
            d = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        else:
            d = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        t = d / (1 + t)
    return 1 / (1 + t)


def _ge(k: int, n: int, x) -> mpmath.mpf:
    """P(Bin(n, x) ≥ k), exact to DPS digits (finite sum when short, else the fraction below the mean)."""
    if min(k, n - k + 1) <= 3000:
        return _sum_ge(k, n, x)
    return _cf_ge(k, n, x)


def _le(k: int, n: int, x) -> mpmath.mpf:
    """P(Bin(n, x) ≤ k) = P(Bin(n, 1 − x) ≥ n − k), exact to DPS digits (1 − x formed in mpmath)."""
    if k + 1 <= 3000:
        return _sum(n, x, range(0, k + 1))
    if n - k <= 3000:
        with mpmath.workdps(DPS):
            return 1 - _sum(n, x, range(k + 1, n + 1))
    with mpmath.workdps(DPS):
        return _cf_ge(n - k, n, 1 - mpmath.mpf(x))


def _lower(k, n, alpha):
    return betaincinv_safe(k, n - k + 1, alpha)


def _upper(k, n, alpha):
    return betainccinv_safe(k + 1, n - k, alpha)


def _inward(x: float, tight: float) -> float:
    """How far to move x inward for the tightness check: relative to min(x, 1 − x), plus 8 ulps of 1."""
    return tight * min(x, 1 - x) + 8 * 2.0**-53


def _check_limits(k: int, n: int, alpha: float, tight: float = 1e-8) -> None:
    if k > 0:
        lo = _lower(k, n, alpha)
        assert _ge(k, n, lo) <= alpha, (k, n, alpha, lo)  # safe: never above the exact lower limit
        assert _ge(k, n, lo + _inward(lo, tight)) > alpha, (k, n, alpha, lo)  # tight
    if k < n:
        hi = _upper(k, n, alpha)
        assert _le(k, n, hi) <= alpha, (k, n, alpha, hi)  # safe: never below the exact upper limit
        assert _le(k, n, hi - _inward(hi, tight)) > alpha, (k, n, alpha, hi)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 300), frac=st.floats(0, 1), alpha=st.sampled_from(LEVELS))
def test_safe_and_tight_against_exact_sums(n, frac, alpha):
    _check_limits(int(round(frac * n)), n, alpha)


@settings(max_examples=25, deadline=None)
@given(
    n=st.sampled_from([10**6, 2**40, 10**12, 10**15]),
    k=st.integers(0, 40),
    mirror=st.booleans(),
    alpha=st.sampled_from(LEVELS),
)
def test_huge_n_at_both_tails(n, k, mirror, alpha):
    _check_limits(n - k if mirror else k, n, alpha)


@pytest.mark.parametrize("k,n", [(10**6, 10**12), (3 * 10**11, 10**12), (5000, 10**7)])
@pytest.mark.parametrize("alpha", [0.025, 1e-12])
def test_huge_n_far_from_both_ends(k, n, alpha):
    _check_limits(k, n, alpha)


@pytest.mark.parametrize("n", [1, 7, 10**6, 10**12])
@pytest.mark.parametrize("alpha", [0.3, 1e-12])
def test_closed_forms_at_k_0_and_k_n(n, alpha):
    # k = n: L = α^{1/n}; k = 0: U = 1 − α^{1/n} (mpmath, exact to 60 digits)
    with mpmath.workdps(DPS):
        root = mpmath.mpf(alpha) ** (mpmath.mpf(1) / n)
        lo, hi = _lower(n, n, alpha), _upper(0, n, alpha)
        assert lo <= root and lo >= root * (1 - 1e-8)
        assert hi >= 1 - root and hi <= (1 - root) * (1 + 1e-8)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 10**6), frac=st.floats(0.001, 0.999), alpha=st.sampled_from([0.05, 1e-3, 1e-9]))
def test_agrees_with_scipy(n, frac, alpha):
    k = min(max(1, int(frac * n)), n - 1)
    assert _lower(k, n, alpha) == pytest.approx(float(betaincinv(k, n - k + 1, alpha)), rel=1e-7)
    assert _upper(k, n, alpha) == pytest.approx(float(betainccinv(k + 1, n - k, alpha)), rel=1e-7)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 200), frac=st.floats(0, 1), x=st.floats(1e-6, 1 - 1e-6), lower=st.booleans())
def test_tail_interval_contains_the_exact_value(n, frac, x, lower):
    a = min(max(1, int(round(frac * n))), n)
    lo, hi = binomial_tail_log_bounds(a, n - a + 1, x, lower=lower)
    exact = _sum(n, x, range(0, a) if lower else range(a, n + 1))  # the requested side, summed directly
    with mpmath.workdps(DPS):
        if exact > 0:
            assert lo <= mpmath.log(exact) <= hi
    assert hi - lo <= 3 * REL_ERR or lo == -math.inf


@pytest.mark.parametrize(
    "args", [(0, 5, 0.1), (1.5, 5, 0.1), (2, 2**54, 0.1), (2, 5, 0.0), (2, 5, 1.0), (2, 5, float("nan"))]
)
def test_bad_input(args):
    with pytest.raises(ValueError):
        betaincinv_safe(*args)
    with pytest.raises(ValueError):
        betainccinv_safe(*args)


def test_lower_tail_brackets_the_rounding_of_one_minus_x():
    """Regression: at n = 10^12, k = 10^6 the lower tail's fraction runs in 1 − x, which is not a double
    here; evaluating it at the rounded 1 − x with the prefactor at x was wrong by 8e−8 relatively,
    outside the certified interval (the Illinois search then returned an upper limit inside the
    exact interval)."""
    k, n, x = 10**6, 10**12, 1.0019619109412442e-06
    assert 1.0 - (1.0 - x) != x
    lo, hi = binomial_tail_log_bounds(k + 1, n - k, x, lower=True)
    exact = _le(k, n, x)
    assert math.exp(lo) <= exact <= math.exp(hi)


@settings(max_examples=15, deadline=None)
@given(
    n=st.one_of(st.integers(1, 3000), st.integers(10**6, 10**12)),
    k_tail=st.integers(0, 2000),
    mirror=st.booleans(),
    alpha=st.floats(1e-12, 0.5),
)
def test_limits_bracket_the_mpmath_root(n, k_tail, mirror, alpha):
    """Any level α: the exact tail (mpmath, DPS digits) is on the safe side of α at the returned limit
    and on the other side 1e-8 (relative, plus 8 ulps) inward, so the limit and that point bracket
    the exact root of the tail equation (the tails are monotone in x)."""
    k = min(k_tail, n)
    _check_limits(n - k if mirror else k, n, alpha)


def test_regression_cancelling_continued_fraction_near_the_mean():
    """Issue 29 §2: at k = 144886108, n = 144888108, α = 0.4375 the lower limit read 0.9999861430235756
    with P[Bin(n, lo) >= k] = 0.4375000000461 > α: the continued fraction's first denominator
    1 − (a + b)x/(a + 1) ≈ 3e−7 cancels and amplified its rounding to 5.6e−10 (beyond REL_ERR)."""
    _check_limits(144886108, 144888108, 0.4375)
    # the amplification is now detected and the fraction redone in 40 digits
    from privcheck.base.betainc import _cf, _cf_float

    a, b, x = 144886108.0, 2001.0, 0.9999861430235756
    _, amp = _cf_float(a, b, x)
    assert amp > 1e3
    with mpmath.workdps(DPS):
        exact = mpmath.betainc(int(a), int(b), 0, x, regularized=True)
        n = a + b - 1
        pre = mpmath.binomial(int(n), int(a)) * mpmath.mpf(x) ** int(a) * (1 - mpmath.mpf(x)) ** int(n - a + 1)
        want = float(exact / pre)
    assert abs(_cf(a, b, x) / want - 1) < 1e-13
