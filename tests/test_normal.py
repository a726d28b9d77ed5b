"""Standard-library normal functions (privcheck/base/normal.py) against mpmath at both tails, and the
pure-Python Brent root finder of accountants/roots.py against scipy's brentq (same iterates)."""

from __future__ import annotations

import math

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize

from accountants.roots import _brentq
from privcheck.base.normal import erfcx, normal_cdf, normal_quantile


@settings(max_examples=200, deadline=None)
@given(x=st.one_of(st.floats(0, 40), st.floats(1e-300, 1e-3), st.floats(40, 1e300)))
def test_erfcx_matches_mpmath(x):
    with mpmath.workdps(60):
        xm = mpmath.mpf(x)  # beyond 1e15 the two-term asymptotic series is exact to 1e-60
        exact = (
            mpmath.exp(xm**2) * mpmath.erfc(xm) if x < 1e15 else (1 - 1 / (2 * xm**2)) / (mpmath.sqrt(mpmath.pi) * xm)
        )
        assert abs(erfcx(x) / exact - 1) < 4e-15


@settings(max_examples=200, deadline=None)
@given(x=st.floats(-37.5, 8.0))
def test_normal_cdf_keeps_relative_precision_in_the_lower_tail(x):
    # the rounding of x/√2 alone costs ~x²·1.1e−16 relatively (scipy's ndtr is built the same way)
    with mpmath.workdps(60):
        assert abs(normal_cdf(x) / mpmath.ncdf(x) - 1) < 1e-15 * (4 + x * x)


@settings(max_examples=100, deadline=None)
@given(logp=st.floats(-690, math.log(0.999)))
def test_normal_quantile_matches_mpmath(logp):
    p = math.exp(logp)
    z = normal_quantile(p)
    with mpmath.workdps(60):
        # Φ(z) = p to the quantile's precision: |Φ(z)/p − 1| ≤ |z|·φ(z)/Φ(z)·δz with δz ~ 1e−15 |z|
        rel = abs(mpmath.ncdf(z) / p - 1)
        assert rel < 1e-13 * max(1.0, z * z)


@pytest.mark.parametrize("bad", [-1.0, float("nan")])
def test_bad_input(bad):
    with pytest.raises(ValueError):
        erfcx(bad)
    with pytest.raises(ValueError):
        normal_quantile(bad)
    with pytest.raises(ValueError):
        normal_quantile(1.0)


@pytest.mark.parametrize(
    "f,lo,hi",
    [
        (lambda x: x**3 - 2 * x - 5, 2.0, 3.0),
        (lambda x: math.exp(x) - 1e-5, -20.0, 5.0),
        (lambda x: math.tanh(x - 0.3), -1.0, 40.0),
        (lambda x: x * x - 1e-200, 0.0, 1.0),
    ],
)
def test_brentq_port_gives_scipys_iterates(f, lo, hi):
    for xtol, rtol in [(1e-300, 8.9e-16), (5e-324, 1e-12)]:
        ours = _brentq(f, lo, hi, xtol, rtol, 1000)
        assert ours == optimize.brentq(f, lo, hi, xtol=xtol, rtol=rtol, maxiter=1000)
    with pytest.raises(ValueError):
        _brentq(f, hi, hi + 1.0, 1e-300, 8.9e-16, 1000)
