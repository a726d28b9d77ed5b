"""GDP, composition, amplification, PLD and planners: reference values, cross-checks, properties."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accountants import amplification as amp
from accountants import composition as comp
from accountants import gdp
from accountants import planners as pl
from accountants import spriFed as spf
from accountants.pld import gaussian_pld_delta
from privcheck.errors import PrivcheckUsageError


def _mp_delta(mu, eps):
    with mpmath.workdps(50):
        m, e = mpmath.mpf(mu), mpmath.mpf(eps)
        return mpmath.ncdf(-e / m + m / 2) - mpmath.e ** e * mpmath.ncdf(-e / m - m / 2)


# ------------------------------------------------------------------ GDP
def test_reference_100_gaussians_sigma10():
    mu = gdp.compose_gdp(gdp.gaussian_mu(10.0), 100)
    assert mu == pytest.approx(1.0, rel=1e-15)
    assert gdp.gdp_eps(mu, 1e-5) == pytest.approx(4.377178096, abs=2e-9)


def test_rdp_is_looser_than_exact_gdp():
    from autodp.mechanism_zoo import GaussianMechanism
    from autodp.transformer_zoo import Composition

    m = Composition()([GaussianMechanism(sigma=10.0)], [100])
    eps_rdp = m.get_approxDP(1e-5)
    assert eps_rdp == pytest.approx(4.7284, abs=2e-3)  # REFERENCE: autodp 4.728387
    assert eps_rdp > gdp.gdp_eps(1.0, 1e-5)


@pytest.mark.parametrize("mu", [1e-3, 0.1, 0.5, 1.0, 2.0, 10.0, 50.0])
@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0, 2.0, 4.0, 30.0])
def test_gdp_delta_matches_mpmath_and_autodp(mu, eps):
    from autodp import dp_bank

    ref = _mp_delta(mu, eps)
    if ref < mpmath.mpf("1e-300"):
        pytest.skip("below double range")
    assert gdp.gdp_delta(mu, eps) == pytest.approx(float(ref), rel=1e-9)
    if float(ref) > 1e-15:
        ad = math.exp(dp_bank.get_logdelta_ana_gaussian(1.0 / mu, eps))
        assert ad == pytest.approx(float(ref), rel=1e-9)


@pytest.mark.parametrize("mu", [1e-3, 0.05, 1.0, 7.0, 50.0])
@pytest.mark.parametrize("delta", [1e-2, 1e-5, 1e-10, 1e-15])
def test_gdp_eps_inverse_is_accurate_in_the_tail(mu, delta):
    e = gdp.gdp_eps(mu, delta)
    if e == 0.0:
        assert gdp.gdp_delta(mu, 0.0) <= delta
        return
    assert float(_mp_delta(mu, e)) == pytest.approx(delta, rel=1e-9)


def test_gdp_eps_agrees_with_autodp_analytic_gaussian():
    from autodp import dp_bank

    for sigma in [0.5, 1.0, 3.0, 20.0]:
        for delta in [1e-3, 1e-6, 1e-10]:
            assert gdp.gdp_eps(1 / sigma, delta) == pytest.approx(dp_bank.get_eps_ana_gaussian(sigma, delta), rel=1e-7)


def test_gaussian_sigma_calibration_and_mu_inverse():
    s = gdp.gaussian_sigma(2.0, eps=1.0, delta=1e-5)
    assert gdp.gdp_delta(2.0 / s, 1.0) == pytest.approx(1e-5, rel=1e-10)
    assert gdp.gaussian_sigma(2.0, mu=0.5) == 4.0
    with pytest.raises(PrivcheckUsageError):
        gdp.gaussian_sigma(1.0, mu=1.0, eps=1.0, delta=1e-5)


def test_heterogeneous_composition_matches_pld_interval():
    mus = [0.5, 1.0, 2.0, 0.3]
    mu = gdp.compose_gdp(mus)
    assert mu == pytest.approx(math.sqrt(0.25 + 1 + 4 + 0.09))
    b = gaussian_pld_delta(mus, [0.5, 2.0, 5.0])
    for e, lo, hi in zip(b.eps, b.lower, b.upper):
        assert lo <= gdp.gdp_delta(mu, e) <= hi
    # a wrong composition rule (sum of μ) must fall outside
    assert not (b.lower[1] <= gdp.gdp_delta(sum(mus), 2.0) <= b.upper[1])


@settings(max_examples=60, deadline=None)
@given(mu=st.floats(1e-3, 50), d=st.floats(1e-15, 0.3))
def test_gdp_roundtrip_property(mu, d):
    e = gdp.gdp_eps(mu, d)
    if e > 0:
        assert gdp.gdp_delta(mu, e) == pytest.approx(d, rel=1e-8)
        assert gdp.gdp_mu(e, d) == pytest.approx(mu, rel=1e-7)


@settings(max_examples=40, deadline=None)
@given(sigma=st.floats(0.3, 30), T=st.integers(1, 500), d=st.floats(1e-12, 1e-2))
def test_gdp_monotonicity(sigma, T, d):
    e = gdp.gdp_eps(gdp.compose_gdp(1 / sigma, T), d)
    assert gdp.gdp_eps(gdp.compose_gdp(1 / (sigma * 1.1), T), d) <= e  # more noise, less ε
    assert gdp.gdp_eps(gdp.compose_gdp(1 / sigma, T + 1), d) >= e  # more steps, more ε


@pytest.mark.parametrize("bad", [dict(mu=0, eps=1), dict(mu=-1, eps=1), dict(mu=float("nan"), eps=1), dict(mu=1, eps=-0.1)])
def test_gdp_invalid_inputs(bad):
    with pytest.raises(PrivcheckUsageError):
        gdp.gdp_delta(**bad)


def test_gdp_eps_invalid_delta():
    for d in (0.0, 1.0, -1e-3, float("nan")):
        with pytest.raises(PrivcheckUsageError):
            gdp.gdp_eps(1.0, d)


# ------------------------------------------------------------------ composition
def test_reference_400_mechanisms():
    r = comp.compare_compositions(0.1, 400, 1e-5)
    assert r["basic"].eps == pytest.approx(40.0)
    assert r["drv"].eps == pytest.approx(13.803889, abs=1e-6)
    assert r["kov"].eps == pytest.approx(11.595387, abs=1e-6)
    assert r["optimal"].eps == pytest.approx(9.936810, abs=1e-6)
    assert comp.rr_composition_delta(0.1, 400, 10.0) == pytest.approx(8.41e-6, rel=2e-3)
    grid = [g for g in comp.kov_optimal_grid(0.1, 400) if g[1] <= 1e-5]
    assert grid[-1][0] == pytest.approx(10.0)  # dp_accounting's grid answer


def test_rr_composition_matches_enumeration():
    # brute-force enumeration of 6-fold RR outputs
    import itertools

    e, T, et = 0.7, 6, 1.3
    p1 = math.exp(e) / (1 + math.exp(e))
    d = 0.0
    for out in itertools.product([0, 1], repeat=T):
        k = sum(out)
        P = p1**k * (1 - p1) ** (T - k)
        Q = (1 - p1) ** k * p1 ** (T - k)
        d += max(0.0, P - math.exp(et) * Q)
    assert comp.rr_composition_delta(e, T, et) == pytest.approx(d, rel=1e-12)


@settings(max_examples=50, deadline=None)
@given(e=st.floats(0.01, 2.0), T=st.integers(1, 800), dt=st.floats(1e-10, 1e-2))
def test_kov_le_drv_and_both_ge_optimal(e, T, dt):
    r = comp.compare_compositions(e, T, dt)
    assert r["kov"].eps <= r["drv"].eps * (1 + 1e-12)
    assert r["optimal"].eps <= r["kov"].eps * (1 + 1e-9) + 1e-12
    assert comp.rr_composition_delta(e, T, r["drv"].eps) <= dt * (1 + 1e-9)


def test_broken_drv_is_caught():
    # dropping the T ε(e^ε − 1) term gives a value below the exact optimum for large ε
    e, T, dt = 1.0, 50, 1e-5
    broken = math.sqrt(2 * T * math.log(1 / dt)) * e
    assert broken < comp.rr_composition_eps(e, T, dt) < comp.drv_composition(e, T, dt).eps


def test_composition_invalid_inputs():
    with pytest.raises(PrivcheckUsageError):
        comp.drv_composition(0.1, 0, 1e-5)
    with pytest.raises(PrivcheckUsageError):
        comp.drv_composition(0.1, 10, 0.0)
    with pytest.raises(PrivcheckUsageError):
        comp.kov_composition([0.1, -0.2], 1e-5)
    with pytest.raises(PrivcheckUsageError):
        comp.optimal_composition(0.1, 10, 1e-6, delta=1e-6)  # δ_total below 1−(1−δ)^T


# ------------------------------------------------------------------ amplification
@pytest.mark.parametrize("e,d,q", [(1.0, 0.0, 0.01), (2.0, 1e-5, 0.3), (0.2, 1e-3, 0.9)])
def test_amplification_tight_on_rr(e, d, q):
    with mpmath.workdps(50):
        E, D, Q = mpmath.mpf(e), mpmath.mpf(d), mpmath.mpf(q)
        p, qq = amp.canonical_pair(E, D)
        a, b = amp.subsampled_pair(p, qq, Q)
        ep = mpmath.log(1 + Q * (mpmath.e ** E - 1))
        hs = max(amp.hockey_stick(a, b, ep), amp.hockey_stick(b, a, ep))
        assert abs(hs - Q * D) < mpmath.mpf("1e-40")
        assert amp.hockey_stick(a, b, ep * (1 - mpmath.mpf("1e-8"))) > Q * D  # tight
    assert amp.poisson_amplification(e, d, q).eps == pytest.approx(float(ep), rel=1e-14)


def test_amplification_holds_on_random_pairs():
    rng = np.random.default_rng(3)
    for _ in range(40):
        P, Q = rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(4))
        d0 = 1e-3
        e0 = amp.eps_at_delta(P, Q, d0)
        for q in (0.05, 0.5):
            g = amp.poisson_amplification(e0, d0, q)
            a, b = amp.subsampled_pair(P, Q, q)
            assert amp.eps_at_delta(a, b, g.delta) <= g.eps * (1 + 1e-7) + 1e-12


def test_subsampled_gaussian_reference():
    r = amp.subsampled_gaussian(1.1, 0.01, 10000, 1e-5)
    assert 5.19 < r.eps_rdp < 5.70  # RDP bound ≥ tight 5.1926 (PLD); autodp 5.654
    assert r.eps_clt == pytest.approx(5.0647, abs=1e-3)  # below the tight value: not a bound
    assert "NOT a safe" in r.clt_note


def test_amplification_invalid():
    with pytest.raises(PrivcheckUsageError):
        amp.poisson_amplification(1.0, 0.0, 0.0)
    with pytest.raises(PrivcheckUsageError):
        amp.poisson_amplification(1.0, 0.0, 1.5)


# ------------------------------------------------------------------ SPriFed and planners
def test_spriFed_budget_and_exposure():
    b = spf.spriFed_budget(10, 0.3, 0.1, "omp")
    assert b.mu_total == pytest.approx(1.0)
    assert b.eps == pytest.approx(4.377178096, abs=1e-8)
    b2 = spf.spriFed_budget(4, 0.3, 0.1, "grad", invocations=(3, 8))
    assert b2.mu_total == pytest.approx(math.sqrt(3 * 0.09 + 8 * 0.01))
    e = spf.noisysmpc_exposure(1.0, 2.0, 100)
    assert e.sigma_client == pytest.approx(0.2)
    assert e.mu_exposed == pytest.approx(10 * e.mu_aggregate)
    with pytest.raises(PrivcheckUsageError):
        spf.spriFed_budget(5, 0.3, 0.1, "sgd")
    with pytest.raises(PrivcheckUsageError):
        spf.spriFed_budget(0, 0.3, 0.1)


def test_planners_roundtrip():
    p = pl.noise_for_budget(1.0, 1e-5, 1000)
    assert p.achieved_eps == pytest.approx(1.0, rel=1e-9)
    t = pl.max_steps(1.0, 1e-5, p.answer * (1 + 1e-9))
    assert t.answer == 1000 and t.details["eps_at_T_plus_1"] > 1.0
    ps = pl.noise_for_budget(5.0, 1e-5, 10000, q=0.01, accountant="rdp")
    assert 1.175 < ps.answer < 1.185  # REFERENCE RDP: 1.1793–1.1804
    assert ps.achieved_eps <= 5.0


def test_planner_invalid():
    with pytest.raises(PrivcheckUsageError):
        pl.noise_for_budget(-1.0, 1e-5, 10)
    with pytest.raises(PrivcheckUsageError):
        pl.max_steps(0.01, 1e-5, 0.1)  # one step already exceeds
