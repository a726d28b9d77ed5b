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
from privcheck.base.errors import PrivcheckUsageError


def _mp_delta(mu, eps):
    with mpmath.workdps(50):
        m, e = mpmath.mpf(mu), mpmath.mpf(eps)
        return mpmath.ncdf(-e / m + m / 2) - mpmath.e**e * mpmath.ncdf(-e / m - m / 2)


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


@pytest.mark.parametrize(
    "bad", [dict(mu=0, eps=1), dict(mu=-1, eps=1), dict(mu=float("nan"), eps=1), dict(mu=1, eps=-0.1)]
)
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
        ep = mpmath.log(1 + Q * (mpmath.e**E - 1))
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


def _rdp_subsampled_gaussian_eps(sigma: float, q: float, steps: int, delta: float, orders=range(2, 100)) -> float:
    """Independent RDP accountant: integer-order RDP of the Poisson-subsampled Gaussian (exact binomial
    expansion, Mironov–Talwar–Zhang 2019, summed in log space), T-fold composition, and the improved
    conversion ε = R(α) + log((α−1)/α) − (log δ + log α)/(α−1) (Balle et al. 2020), minimised over α."""
    from scipy.special import logsumexp

    best = math.inf
    for a in orders:
        k = np.arange(a + 1)
        logc = math.lgamma(a + 1) - np.array([math.lgamma(j + 1) + math.lgamma(a - j + 1) for j in k])
        terms = logc + (a - k) * math.log1p(-q) + k * math.log(q) + (k * k - k) / (2 * sigma**2)
        R = steps * float(logsumexp(terms)) / (a - 1)
        best = min(best, R + math.log((a - 1) / a) - (math.log(delta) + math.log(a)) / (a - 1))
    return best


def test_subsampled_gaussian_reference():
    r = amp.subsampled_gaussian(1.1, 0.01, 10000, 1e-5)
    # the RDP value equals an independent RDP computation (parameters passed correctly: σ, q, T, δ)
    assert r.eps_rdp == pytest.approx(_rdp_subsampled_gaussian_eps(1.1, 0.01, 10000, 1e-5), rel=1e-6)
    assert r.eps_rdp >= 5.192620  # a valid bound: never below the tight PLD value (REFERENCE.md)
    r2 = amp.subsampled_gaussian(2.0, 0.05, 500, 1e-6)
    assert r2.eps_rdp == pytest.approx(_rdp_subsampled_gaussian_eps(2.0, 0.05, 500, 1e-6), rel=1e-6)
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


# --------------------------------------------------------------------------- pinned by mutation testing
def test_kov_optimal_grid_against_the_binomial_sum():
    """KOV Thm 3.3 grid ((T−2i)ε, 1 − (1−δ)^T (1 − δ_RR((T−2i)ε))), δ_RR as a 40-digit binomial sum."""
    eps, T, delta = 0.3, 9, 1e-3
    grid = comp.kov_optimal_grid(eps, T, delta)
    assert len(grid) == T // 2 + 1
    with mpmath.workdps(40):
        w = mpmath.e ** mpmath.mpf(eps)
        for i, (e, d) in enumerate(grid):
            et = (T - 2 * i) * mpmath.mpf(eps)
            drr = (
                mpmath.fsum(mpmath.binomial(T, l) * max(0, w ** (T - l) - mpmath.e**et * w**l) for l in range(T + 1))
                / (1 + w) ** T
            )
            assert e == pytest.approx(float(et), rel=1e-14)
            assert d == pytest.approx(float(1 - (1 - mpmath.mpf(delta)) ** T * (1 - drr)), rel=1e-12)
    # T = 1: the grid is the single point (ε, 0); δ is an upper bound, rounded outward by at most a few ulps
    ((e1, d1),) = comp.kov_optimal_grid(0.5, 1)
    assert e1 == 0.5 and 0.0 <= d1 <= 1e-15
    with pytest.raises(PrivcheckUsageError, match="^steps must be"):
        comp.kov_optimal_grid(0.5, 0)


def test_gdp_mu_brackets_extreme_targets():
    # μ far below 1e-8·… and far above 1: the bracket must expand both ways; δ(ε) at the answer is the target
    for eps, delta in ((0.001, 1e-300), (30.0, 0.5), (0.0, 0.9), (200.0, 1e-3), (1e-6, 1e-9)):
        mu = gdp.gdp_mu(eps, delta)
        assert gdp.gdp_delta(mu, eps) == pytest.approx(delta, rel=1e-8), (eps, delta, mu)
    with pytest.raises(PrivcheckUsageError, match="^eps must be"):
        gdp.gdp_mu(-1.0, 1e-5)
    # ε = 1e9 at δ = 1e-300 needs μ ≈ 4.5e4: answered, on the safe side (δ_μ(ε) ≤ δ)
    mu = gdp.gdp_mu(1e9, 1e-300)
    assert 4e4 < mu < 5e4 and gdp.gdp_delta(mu, 1e9) <= 1e-300
    with pytest.raises(PrivcheckUsageError, match="no mu <= 1e8 reaches"):
        gdp.gdp_mu(1e300, 1e-300)


def test_compositions_with_delta_against_closed_forms():
    # DRV: δ_tot = Tδ + δ̃, capped at 1; basic: Σε, Σδ capped at 1; names and defaults
    r = comp.drv_composition(0.1, 10, 1e-5, 1e-4)
    assert r.method == "drv" and r.delta == pytest.approx(10 * 1e-4 + 1e-5, rel=1e-14) and r.steps == 10
    assert r.eps == pytest.approx(math.sqrt(2 * 10 * math.log(1e5)) * 0.1 + 10 * 0.1 * math.expm1(0.1), rel=1e-14)
    assert comp.drv_composition(0.1, 10, 1e-5, 0.2).delta == 1.0
    b = comp.basic_composition([0.1, 0.2, 0.3], [0.5, 0.4, 0.3])
    assert (b.method, b.eps, b.delta, b.steps) == ("basic", pytest.approx(0.6), 1.0, 3)
    b1 = comp.basic_composition(0.25)
    assert (b1.delta, b1.steps) == (0.0, 1) and 0.25 <= b1.eps <= 0.25 * (1 + 1e-12)  # rounded outward
    # KOV Thm 3.5 closed form, each of its three branches binding somewhere, with δ_i > 0
    for eps, T, dt, d in ((0.01, 10, 0.1, 0.0), (0.1, 400, 1e-5, 1e-7), (2.0, 3, 1e-5, 1e-3)):
        k = comp.kov_composition(eps, dt, d, T)
        lin, sq = T * eps * math.tanh(eps / 2), T * eps * eps
        branches = (
            T * eps,
            lin + math.sqrt(2 * sq * math.log(math.e + math.sqrt(sq) / dt)),
            lin + math.sqrt(2 * sq * math.log(1 / dt)),
        )
        # rounded outward: never below the closed form, and within 1e-12 of it
        assert k.method == "kov" and min(branches) <= k.eps <= min(branches) * (1 + 1e-12), (eps, T, dt)
        assert k.delta == pytest.approx(1 - (1 - dt) * (1 - d) ** T, rel=1e-12)
    assert min(range(3), key=lambda i: (0.1, 0.047, 0.069)[i]) == 1  # the first case binds on the middle branch
    assert comp.kov_composition(0.5, 1e-3).steps == 1 and comp.kov_composition(0.5, 1e-3).delta == pytest.approx(1e-3)


def test_optimal_composition_with_delta_inverts_the_exact_curve():
    eps, T, d, dtot = 0.5, 10, 1e-3, 0.05
    r = comp.optimal_composition(eps, T, dtot, d)
    assert r.method == "optimal" and r.delta == dtot and r.steps == T
    target = 1 - (1 - dtot) / (1 - d) ** T  # δ_RR needed once the T δ-failures are paid for
    with mpmath.workdps(40):
        w, et = mpmath.e ** mpmath.mpf(eps), mpmath.mpf(r.eps)
        drr = (
            mpmath.fsum(mpmath.binomial(T, l) * max(0, w ** (T - l) - mpmath.e**et * w**l) for l in range(T + 1))
            / (1 + w) ** T
        )
    assert float(drr) == pytest.approx(target, rel=1e-9)
    with pytest.raises(PrivcheckUsageError, match="delta_total must exceed"):
        comp.optimal_composition(eps, T, 0.005, d)  # below 1 − (1 − δ)^T ≈ 0.00996
    c = comp.compare_compositions(eps, T, 1e-4, d)
    assert c["drv"].delta == pytest.approx(T * d + 1e-4) and c["optimal"].delta == c["kov"].delta
    assert c["optimal"].eps == pytest.approx(comp.optimal_composition(eps, T, c["kov"].delta, d).eps, rel=1e-12)


def test_rr_composition_eps_single_step_closed_form():
    # T = 1: δ(ε') = (e^ε − e^ε')/(1 + e^ε), so ε' = log(e^ε − δ(1 + e^ε)); here δ_RR(1) < δ < δ_RR(0)
    for eps, delta in ((2.0, 0.6), (1.0, 0.1), (3.0, 0.9)):
        exact = math.log(math.exp(eps) - delta * (1 + math.exp(eps)))
        assert exact <= comp.rr_composition_eps(eps, 1, delta) <= exact * (1 + 1e-7)  # on the safe side, tight
    assert comp.rr_composition_eps(1.0, 1, 0.5) == 0.0  # δ_RR(0) = (e − 1)/(e + 1) ≈ 0.46 ≤ 0.5


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: gdp.gdp_delta(0.0, 1.0), r"^mu must be"),
        (lambda: gdp.gdp_delta(1.0, -1.0), r"^eps must be"),
        (lambda: gdp.compose_gdp(1.0, 0), r"^steps must be an integer >= 1"),
        (lambda: gdp.compose_gdp([], 1), r"^mus must contain at least one value"),
        (lambda: gdp.gaussian_mu(0.0), r"^sigma must be"),
        (lambda: gdp.gaussian_mu(1.0, -1.0), r"^sensitivity must be"),
        (lambda: gdp.gaussian_sigma(0.0, mu=1.0), r"^sensitivity must be"),
        (lambda: gdp.gaussian_sigma(1.0, mu=1.0, eps=1.0), r"^give either mu or \(eps, delta\), not both"),
        (lambda: gdp.gaussian_sigma(1.0, mu=1.0, delta=1e-5), r"^give either mu or \(eps, delta\), not both"),
        (lambda: gdp.gaussian_sigma(1.0, eps=1.0), r"^gaussian_sigma needs mu, or both eps and delta"),
        (lambda: gdp.gaussian_sigma(1.0, delta=1e-5), r"^gaussian_sigma needs mu, or both eps and delta"),
        (lambda: comp.drv_composition(1.0, 0, 1e-5), r"^steps must be"),
        (lambda: comp.drv_composition(1.0, 2, 0.0), r"^delta_tilde must be"),
        (lambda: comp.drv_composition(1.0, 2, 1e-5, 1.0), r"^delta must be"),
        (lambda: comp.kov_composition([], 1e-5), r"^eps must contain at least one value"),
        (lambda: comp.kov_composition(1.0, 0.0), r"^delta_tilde must be"),
        (lambda: comp.basic_composition(1.0, 0.0, 0), r"^steps must be"),
        (lambda: comp.rr_composition_delta(1.0, 0, 1.0), r"^steps must be"),
        (lambda: comp.rr_composition_delta(1.0, 2, -1.0), r"^eps_total must be"),
        (lambda: comp.rr_composition_eps(1.0, 0, 1e-5), r"^steps must be"),
        (lambda: comp.optimal_composition(1.0, 0, 0.1), r"^steps must be"),
        (lambda: comp.optimal_composition(1.0, 2, 0.0), r"^delta_total must be"),
    ],
)
def test_accountant_bad_input_names_the_parameter(call, match):
    with pytest.raises(PrivcheckUsageError, match=match):
        call()


def test_gaussian_sigma_defaults_to_unit_sensitivity():
    assert gdp.gaussian_sigma(mu=0.5) == 2.0 and gdp.gaussian_mu(4.0) == 0.25
    assert gdp.compose_gdp([0.3, 0.4]) == pytest.approx(0.5, rel=1e-15)


def test_optimal_composition_default_is_pure_dp():
    r = comp.optimal_composition(0.5, 10, 1e-5)  # δ = 0 per step by default
    assert r.eps == pytest.approx(comp.rr_composition_eps(0.5, 10, 1e-5), rel=1e-12)
