"""Accountants over wide domains (issue 10): validity against mpmath, monotonicity, finiteness.

Domains: ε 1e-9…700, δ 1e-300…0.5, steps 1…1e9, σ 1e-3…1e4 (μ = 1/σ), μ up to 1e200.
"Valid" means on the safe side: an ε reported for a target δ has true δ (here
from an independent mpmath evaluation of the definition) at most the target; a
δ reported is at least the true δ.
"""

from __future__ import annotations

import math
import tracemalloc

import mpmath
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accountants import composition as comp
from accountants import gdp
from accountants.roots import BracketError, conservative_root

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

LOG_EPS = st.floats(min_value=-9.0, max_value=math.log10(700.0)).map(lambda x: 10.0**x)
LOG_DELTA = st.floats(min_value=-300.0, max_value=math.log10(0.5)).map(lambda x: 10.0**x)
SIGMA = st.floats(min_value=-3.0, max_value=4.0).map(lambda x: 10.0**x)


def _gdp_delta_mp(mu: float, eps: float) -> mpmath.mpf:
    """δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) (002 Lemma 2), from the definition, at ample precision."""
    dps = 80 + max(0, int(-math.log10(mu)))
    with mpmath.workdps(dps):
        m, e = mpmath.mpf(mu), mpmath.mpf(eps)
        return mpmath.ncdf(m / 2 - e / m) - mpmath.exp(e) * mpmath.ncdf(-m / 2 - e / m)


def _rr_delta_mp(eps: float, T: int, eps_total: float) -> mpmath.mpf:
    """δ(ε') of T-fold ε-RR by its definition (KOV Thm 3.3), term by term, capped at 1."""
    with mpmath.workdps(60):
        e, et = mpmath.mpf(eps), mpmath.mpf(eps_total)
        s = mpmath.mpf(0)
        for l in range(T + 1):
            if (T - 2 * l) * e > et:
                s += mpmath.binomial(T, l) * (mpmath.exp((T - l) * e) - mpmath.exp(et + l * e))
        return min(mpmath.mpf(1), s / (1 + mpmath.exp(e)) ** T)


# ---------------------------------------------------------------------------
# GDP
# ---------------------------------------------------------------------------


@SETTINGS
@given(sigma=SIGMA, delta=LOG_DELTA)
def test_gdp_eps_is_valid_and_tight(sigma, delta):
    mu = 1.0 / sigma
    e = gdp.gdp_eps(mu, delta)
    assert math.isfinite(e) and e >= 0
    assert _gdp_delta_mp(mu, e) <= delta  # safe side
    if e > 0:
        assert _gdp_delta_mp(mu, e * (1 - 1e-7)) > delta  # and next to the root


@SETTINGS
@given(mu=st.floats(min_value=1.0, max_value=200.0).map(lambda x: 10.0**x), delta=LOG_DELTA)
def test_gdp_eps_any_mu(mu, delta):
    from scipy.special import ndtri

    e = gdp.gdp_eps(mu, delta)
    assert e > 0
    if not math.isfinite(e):
        assert mu * mu / 2 > 1e300
        return
    # δ(a) ≤ Φ(a) gives the root a* ≥ Φ^{-1}(δ): ε ≤ μ²/2 − μ Φ^{-1}(δ)
    assert e <= (mu * mu / 2 - mu * float(ndtri(delta))) * (1 + 1e-12)
    if mu <= 1e4:
        assert _gdp_delta_mp(mu, e) <= delta


@SETTINGS
@given(sigma=SIGMA, d1=LOG_DELTA, d2=LOG_DELTA)
def test_gdp_eps_is_monotone_in_delta_and_mu(sigma, d1, d2):
    mu = 1.0 / sigma
    lo, hi = sorted((d1, d2))
    assert gdp.gdp_eps(mu, lo) >= gdp.gdp_eps(mu, hi)
    assert gdp.gdp_eps(mu * 1.5, lo) >= gdp.gdp_eps(mu, lo)


@SETTINGS
@given(sigma=SIGMA, eps=LOG_EPS)
def test_gdp_delta_matches_mpmath(sigma, eps):
    mu = 1.0 / sigma
    ref = _gdp_delta_mp(mu, eps)
    got = gdp.gdp_delta(mu, eps)
    if ref < mpmath.mpf("1e-300"):
        assert got < 1e-290
    else:
        assert got == pytest.approx(float(ref), rel=1e-9)


@SETTINGS
@given(eps=LOG_EPS, delta=LOG_DELTA)
def test_gdp_mu_is_valid(eps, delta):
    try:
        mu = gdp.gdp_mu(eps, delta)
    except Exception as exc:  # only the documented refusal (no μ in range), as a usage error
        from privcheck.base.errors import PrivcheckUsageError

        assert isinstance(exc, PrivcheckUsageError)
        return
    assert math.isfinite(mu) and mu > 0
    assert _gdp_delta_mp(mu, eps) <= delta
    assert _gdp_delta_mp(mu * (1 + 1e-7), eps) > delta


# ---------------------------------------------------------------------------
# composition
# ---------------------------------------------------------------------------


@SETTINGS
@given(
    eps=st.floats(min_value=-3.0, max_value=math.log10(700.0)).map(lambda x: 10.0**x),
    T=st.integers(min_value=1, max_value=40),
    frac=st.floats(min_value=0.0, max_value=1.0),
)
def test_rr_delta_is_an_upper_bound_close_to_mpmath(eps, T, frac):
    et = frac * T * eps
    got = comp.rr_composition_delta(eps, T, et)
    ref = _rr_delta_mp(eps, T, et)
    assert got >= ref or (ref < mpmath.mpf("1e-300") and got >= 0)
    if ref > mpmath.mpf("1e-290"):
        # tight up to 1e-8 relative, plus the rounding of the loss values (T ε) themselves
        assert got <= ref * (1 + 1e-8) + 16 * 2.0**-52 * T * eps


@SETTINGS
@given(
    eps=st.floats(min_value=-3.0, max_value=math.log10(700.0)).map(lambda x: 10.0**x),
    T=st.integers(min_value=1, max_value=40),
    delta=LOG_DELTA,
)
def test_rr_eps_is_valid(eps, T, delta):
    e = comp.rr_composition_eps(eps, T, delta)
    assert 0 <= e <= T * eps * (1 + 1e-12) and math.isfinite(e)
    assert _rr_delta_mp(eps, T, e) <= delta


@SETTINGS
@given(
    eps=LOG_EPS,
    T=st.one_of(st.integers(min_value=1, max_value=1000), st.integers(min_value=1, max_value=9).map(lambda k: 10**k)),
    dt=st.floats(min_value=-300.0, max_value=-1.0).map(lambda x: 10.0**x),
)
def test_closed_forms_are_finite_ordered_and_monotone(eps, T, dt):
    basic = comp.basic_composition(eps, 0.0, T)
    kov = comp.kov_composition(eps, dt, 0.0, T)
    drv = comp.drv_composition(eps, T, dt)
    assert math.isfinite(basic.eps) and math.isfinite(kov.eps)
    assert basic.eps >= T * eps and kov.eps <= basic.eps
    assert drv.eps >= 0 and (math.isfinite(drv.eps) or math.log(T * eps) + eps > 709)  # T ε e^ε overflows
    assert comp.kov_composition(eps, dt, 0.0, T + 1).eps >= kov.eps
    assert comp.kov_composition(eps * 1.01, dt, 0.0, T).eps >= kov.eps


@pytest.mark.parametrize("eps,T,dt", [(10.0, 100, 1e-15), (1.0, 10, 1e-5), (0.5, 30, 1e-300), (300.0, 3, 1e-10)])
def test_optimal_composition_is_on_the_safe_side(eps, T, dt):
    r = comp.optimal_composition(eps, T, dt)
    assert _rr_delta_mp(eps, T, r.eps) <= dt
    assert r.eps <= comp.kov_composition(eps, dt, 0.0, T).eps


def test_issue_10_optimal_eps_is_not_below_the_root():
    # the optimum for 100 × (10, 0)-DP at δ̃ = 1e−15 lies within 1e−15 of 1000: the float below 1000
    # (999.9999999999999) has true δ ≈ 1e−13 > 1e−15, so the only safe float answer is ≥ 1000
    r = comp.compare_compositions(10.0, 100, 1e-15)["optimal"]
    assert r.eps >= 1000.0
    assert _rr_delta_mp(10.0, 100, r.eps) <= 1e-15


def test_rr_composition_in_bounded_memory_for_a_billion_steps():
    tracemalloc.start()
    try:
        d1 = comp.rr_composition_delta(0.01, 10**9, 50000.0)
        d2 = comp.rr_composition_delta(0.01, 10**9, 52000.0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100 * 2**20
    assert 0 < d2 < d1 < 1
    # central limit: T-fold ε-RR is close to μ-GDP with μ = ε√T (Dong–Roth–Su Thm 3.5)
    mu = 0.01 * math.sqrt(1e9)
    assert d1 == pytest.approx(gdp.gdp_delta(mu, 50000.0), rel=0.01)
    assert d2 == pytest.approx(gdp.gdp_delta(mu, 52000.0), rel=0.05)


def test_conservative_root_refuses_an_unbracketed_interval():
    with pytest.raises(BracketError):
        conservative_root(lambda x: 1.0, 0.0, 1.0)
    x = conservative_root(lambda x: 0.3 - x, 0.0, 1.0)
    assert 0.3 - x <= 0 and x - 0.3 < 1e-15
