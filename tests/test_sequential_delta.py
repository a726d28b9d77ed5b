"""The sequential audit of (ε, δ) and μ-GDP claims (:mod:`privcheck.auditor.sequential.nulls`): payoffs with mean
≤ 0 under the null (and = 0 where it is tight), δ_μ rounded up, correct mechanisms not refuted and grossly broken
ones refuted within a few thousand draws, the API and its refusals. Heavy false-refutation rates:
``benchmarks/bench_sequential_delta.py``."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accountants.gdp import gdp_delta
from privcheck.auditor import audit
from privcheck.auditor.sequential import sequential_bound
from privcheck.auditor.sequential.nulls import DeltaAt, Gdp, delta_grid, gdp_delta_up
from privcheck.auditor.sequential.wealth import kelly_bet, null_payoffs
from privcheck.base.errors import PrivcheckUsageError

BUDGET = "auto:draws=2e4"


def rr_leak(eps: float, delta: float):
    """Randomized response at ε with a δ-mass atom revealing the input: exactly (ε, δ)-DP, tight at both."""
    p = math.exp(eps) / (1.0 + math.exp(eps))

    def f(x, n, rng):
        leak = rng.random(n) < delta
        out = np.where(rng.random(n) < p, x, 1 - x).astype(float)
        return np.where(leak, 2.0 + x, out)

    return f


def gauss(mu: float):
    """x + N(0, 1/μ²) on x ∈ {0, 1}: exactly μ-GDP (audited on its values, view=False: the raw float bits of
    ``x + z`` are not, which the auto view finds — a real floating-point leak, not this test's subject)."""

    def f(x, n, rng):
        return x + rng.normal(0.0, 1.0 / mu, n)

    return f


def _mean(p1: float, p0: float, theta, delta, bet) -> np.ndarray:
    """E[1 + c g] for independent A ~ Bern(p1), B ~ Bern(p0)."""
    g = null_payoffs(theta, delta)
    pr = (p1 * p0, p1 * (1 - p0), (1 - p1) * p0, (1 - p1) * (1 - p0))
    return sum(w * (1 + bet * gi) for w, gi in zip(pr, g, strict=True))


@settings(max_examples=60, deadline=None)
@given(
    st.floats(0.0, 3.0),
    st.floats(1e-6, 0.3),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
)
def test_delta_payoff_is_a_supermartingale_factor_under_the_null(eps, delta, p0, frac, q1, q0):
    """Any (p1, p0) with p1 ≤ e^ε p0 + δ and any Kelly bet (from any plug-in) gives E[1 + c g] ≤ 1; at the
    boundary p1 = e^ε p0 + δ the payoff's mean is exactly 0 (a wrong δ sign or factor would fail here)."""
    p1 = min(1.0, frac * (math.exp(eps) * p0 + delta))
    th, d = np.array([eps]), np.array([delta])
    c = kelly_bet(q1, q0, th, delta=d)
    assert np.all(c * (1 + math.exp(-eps) * delta) < 1.0)  # every factor stays positive
    assert float(_mean(p1, p0, th, d, c)[0]) <= 1.0 + 1e-12
    if math.exp(eps) * p0 + delta <= 1.0:
        edge = math.exp(eps) * p0 + delta
        assert abs(float(_mean(edge, p0, th, d, np.array([0.5 / (1 + delta)]))[0]) - 1.0) < 1e-12


def test_gdp_delta_is_rounded_up_and_tight():
    """δ_μ(e) of :func:`gdp_delta_up` ≥ the certified accountant value and the mpmath value, within 1e-12."""
    mp = mpmath.mp
    mp.dps = 40
    for mu in (0.1, 0.5, 1.0, 2.0, 5.0):
        for e in (0.0, 0.3, 1.0, 3.0, 8.0):
            exact = mpmath.ncdf(-e / mp.mpf(mu) + mp.mpf(mu) / 2) - mpmath.exp(e) * mpmath.ncdf(
                -e / mp.mpf(mu) - mp.mpf(mu) / 2
            )
            up = float(gdp_delta_up(np.array([mu]), np.array([e]))[0])
            assert up >= float(exact) and up >= gdp_delta(mu, e) * (1 - 1e-12)
            assert up - float(exact) <= 1e-12


def test_gdp_bet_is_the_tangent_of_the_tradeoff_curve():
    """At q1 = Φ(Φ^{-1}(q0) + μ) (a point of the curve G_μ) the tangent payoff's mean is 0; above the curve > 0."""
    from scipy.stats import norm

    mu = np.array([1.5])
    for q0 in (0.01, 0.05, 0.2):
        e, d = Gdp().at(mu, q0)
        q1 = float(norm.cdf(norm.ppf(q0) + 1.5))
        assert e[0] > 0 and abs(q1 - math.exp(e[0]) * q0 - d[0]) < 1e-9
        assert (q1 + 0.02) - math.exp(e[0]) * q0 - d[0] > 0.019
    e, d = Gdp().at(mu, 0.5)  # the tangent point would need e < 0: clipped to e = 0, still valid (mean < 0)
    assert e[0] == 0.0 and float(norm.cdf(1.5)) - 0.5 - d[0] < 0


def test_delta_grid_and_nulls_are_upward_closed():
    g = delta_grid()
    assert g[0] == 0.0 and g[-1] == 1.0 and np.all(np.diff(g) > 0) and np.all(g[2:] / g[1:-1] <= 1.002 + 1e-12)
    e, d = DeltaAt(1.0).at(g, 0.3)
    assert np.all(e == 1.0) and np.all(d == g)
    _, dm = Gdp().at(np.array([0.5, 1.0, 2.0]), 0.01)  # a larger μ allows more: δ grows along the grid at fixed q0
    assert np.all(np.diff(dm) > 0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_correct_delta_mechanism_is_not_refuted(seed):
    b, rec = sequential_bound(rr_leak(1.0, 0.01), [0, 1], BUDGET, eps=1.0, delta=0.01, seed=seed)
    assert rec.bounds == "delta" and rec.stopped != "claim refuted"
    assert b.delta_lower is not None and b.delta_lower <= 0.01


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gross_delta_leak_is_refuted_quickly(seed):
    b, rec = sequential_bound(rr_leak(1.0, 0.1), [0, 1], BUDGET, eps=1.0, delta=0.01, seed=seed)
    assert rec.stopped == "claim refuted" and rec.draws_per_input <= 2000 and b.delta_lower > 0.01


@pytest.mark.parametrize("seed", [0, 1])
def test_gaussian_at_its_mu_is_not_refuted_and_three_times_is(seed):
    _, ok = sequential_bound(gauss(1.0), [0, 1], BUDGET, eps=0.0, mu=1.0, seed=seed, view=False)
    assert ok.bounds == "mu" and ok.stopped != "claim refuted" and ok.mu_lower <= 1.0
    _, bad = sequential_bound(gauss(3.0), [0, 1], BUDGET, eps=0.0, mu=1.0, seed=seed, view=False)
    assert bad.stopped == "claim refuted" and bad.draws_per_input <= 2000 and bad.mu_lower > 1.0


def test_audit_api_takes_delta_and_mu_claims_with_samples_auto():
    r = audit(rr_leak(1.0, 0.1), inputs=[0, 1], eps=1.0, delta=0.01, samples=BUDGET, seed=0)
    assert r.verdict == "refuted" and r.details["adaptive"]["bounds"] == "delta" and r.delta_lower > 0.01
    g = audit(gauss(3.0), inputs=[0, 1], mu=1.0, samples=BUDGET, seed=0, view=False)
    assert g.verdict == "refuted" and g.mu_lower > 1.0 and g.details["adaptive"]["bounds"] == "mu"
    with pytest.raises(PrivcheckUsageError, match="policy=rounds"):
        audit(gauss(1.0), inputs=[0, 1], mu=1.0, samples="auto:policy=rounds")
    with pytest.raises(PrivcheckUsageError, match="delta"):
        sequential_bound(gauss(1.0), [0, 1], BUDGET, eps=1.0, delta=1.5)
    with pytest.raises(PrivcheckUsageError, match="mu"):
        sequential_bound(gauss(1.0), [0, 1], BUDGET, eps=1.0, mu=-1.0)
