"""Laplace and Gaussian mechanisms: exact ε / δ(ε), samplers, validation."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from estimators import noise
from estimators.registry import mechanism
from privcheck.base.errors import PrivcheckUsageError

mpmath.mp.dps = max(mpmath.mp.dps, 50)


def _delta_mp(mu: float, eps: float) -> mpmath.mpf:
    """δ(ε) of μ-GDP in 50-digit arithmetic, written out independently of accountants.gdp."""
    mu, eps = mpmath.mpf(mu), mpmath.mpf(eps)
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


@pytest.mark.parametrize("sens,eps", [(1.0, 1.0), (2.5, 0.1), (0.01, 7.0)])
def test_laplace_exact(sens, eps):
    m = mechanism("laplace", sensitivity=sens, eps=eps)
    ex = m.exact_epsilon()
    assert ex.eps == pytest.approx(noise.laplace_claimed_epsilon(eps), rel=1e-14)
    # the worst pair's log density ratio at an output y <= 0, by hand
    b = sens / eps
    y = -0.3 * sens
    ratio = stats.laplace.logpdf(y, 0.0, b) - stats.laplace.logpdf(y, sens, b)
    assert ratio == pytest.approx(ex.eps, rel=1e-10)


def test_laplace_sampler():
    m = mechanism("laplace", sensitivity=2.0, eps=0.5)
    y = m.sample(3.0, 100_000, np.random.default_rng(1))
    assert stats.kstest(y, stats.laplace(3.0, 4.0).cdf).pvalue > 1e-4
    assert stats.kstest(y, stats.laplace(3.5, 4.0).cdf).pvalue < 1e-6
    x = np.linspace(-5, 5, 1000)
    assert m.sample(x, 1000, np.random.default_rng(2)).shape == (1000,)


@settings(max_examples=40, deadline=None)
@given(st.floats(0.05, 5.0), st.floats(0.0, 20.0))
def test_gaussian_delta_at_matches_mpmath(mu, eps):
    m = mechanism("gaussian", sensitivity=1.0, sigma=1.0 / mu)
    exact = _delta_mp(m.mu, eps)
    if exact > 1e-290:
        assert m.delta_at(eps) == pytest.approx(float(exact), rel=1e-9)


def test_gaussian_known_value():
    # μ = 1, ε = 0: δ = Φ(1/2) − Φ(−1/2) (total variation of N(0,1) and N(1,1))
    m = mechanism("gaussian", sensitivity=2.0, sigma=2.0)
    assert m.delta_at(0.0) == pytest.approx(stats.norm.cdf(0.5) - stats.norm.cdf(-0.5), rel=1e-12)


@pytest.mark.parametrize("mu,delta", [(0.5, 1e-5), (1.0, 1e-6), (3.0, 1e-2), (0.1, 1e-10)])
def test_gaussian_exact_eps_inverts_delta(mu, delta):
    m = mechanism("gaussian", sensitivity=1.0, sigma=1.0 / mu, delta=delta)
    ex = m.exact_epsilon()
    assert ex.delta == delta and m.delta_nominal == delta and math.isinf(m.eps_nominal)
    assert float(_delta_mp(m.mu, ex.eps)) == pytest.approx(delta, rel=1e-9)
    assert float(_delta_mp(m.mu, ex.eps * 0.99)) > delta


def test_gaussian_claims():
    m = mechanism("gaussian", sensitivity=1.0, sigma=2.0, eps=1.0, delta=1e-5)
    ex = m.exact_epsilon()
    assert m.eps_nominal == 1.0 and ex.eps > 1.0  # σ = 2 is not (1, 1e-5)-DP
    assert ex.extra["delta_at_claimed_eps"] > 1e-5
    only_eps = mechanism("gaussian", sensitivity=1.0, sigma=2.0, eps=1.0).exact_epsilon()
    assert only_eps.delta == pytest.approx(float(_delta_mp(0.5, 1.0)), rel=1e-9)
    assert math.isinf(mechanism("gaussian", sensitivity=1.0, sigma=2.0).exact_epsilon().eps)


def test_gaussian_sampler():
    y = mechanism("gaussian", sensitivity=1.0, sigma=1.5).sample(-1.0, 100_000, np.random.default_rng(3))
    assert stats.kstest(y, stats.norm(-1.0, 1.5).cdf).pvalue > 1e-4
    assert stats.kstest(y, stats.norm(-1.0, 1.6).cdf).pvalue < 1e-6


@pytest.mark.parametrize(
    "name,params,word",
    [
        ("laplace", dict(sensitivity=0.0, eps=1.0), "sensitivity"),
        ("laplace", dict(sensitivity=1.0, eps=float("nan")), "eps"),
        ("gaussian", dict(sensitivity=1.0, sigma=-1.0), "sigma"),
        ("gaussian", dict(sensitivity=1.0, sigma=1.0, delta=1.0), "delta"),
        ("gaussian", dict(sensitivity=1.0, sigma=1.0, eps=0.0), "eps"),
    ],
)
def test_invalid_parameters_raise(name, params, word):
    with pytest.raises(PrivcheckUsageError) as err:
        mechanism(name, **params)
    assert word in str(err.value) and "\n" not in str(err.value)


def test_invalid_inputs_raise():
    rng = np.random.default_rng(0)
    with pytest.raises(PrivcheckUsageError, match="finite"):
        mechanism("laplace").sample(float("nan"), 3, rng)
    with pytest.raises(PrivcheckUsageError, match="shape"):
        mechanism("gaussian").sample(np.zeros(4), 3, rng)
