"""accountants.wireless_exact: exact hockey-stick divergence of 004's wireless mechanism, and Thm 1 against it."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from accountants import wireless as wl
from accountants import wireless_exact as wx
from accountants.gdp import gdp_delta
from privcheck.base.errors import PrivcheckUsageError


def _single(mean: float, var: float) -> wx.IsoMixture:
    return wx.IsoMixture([1.0], [mean], [var])


@pytest.mark.parametrize("d", [1, 2, 50, 5000])
@pytest.mark.parametrize("shift,var,eps", [(1.0, 0.25, 0.5), (0.3, 1.0, 0.1), (2.0, 1.0, 3.0)])
def test_equal_covariances_is_the_gaussian_mechanism(d, shift, var, eps):
    h = wx.hockey_stick(_single(shift, var), _single(0.0, var), eps, d)
    exact = gdp_delta(shift / math.sqrt(var), eps)
    assert h.delta == pytest.approx(exact, rel=1e-9, abs=1e-14)
    assert abs(h.delta - exact) <= h.error_bound + 1e-14


@pytest.mark.parametrize("d", [1, 2, 10, 100, 1000, 10000])
def test_different_covariances_against_chi_square_closed_form(d):
    for v1, v0, eps in [(1.1, 1.0, 0.3), (5.0, 4.0, 1.0)]:
        h = wx.hockey_stick(_single(0.0, v1), _single(0.0, v0), eps, d)
        exact = wx.chi2_pair_delta(v1, v0, eps, d)
        assert abs(h.delta - exact) <= h.error_bound + 1e-13, (d, v1, v0, h, exact)


def _mixture_density_2d(M: wx.IsoMixture, y1: np.ndarray, y2: np.ndarray) -> np.ndarray:
    out = np.zeros_like(y1)
    for w, m, v in zip(M.weights, M.means, M.variances):
        out += w * np.exp(-((y1 - m) ** 2 + y2**2) / (2 * v)) / (2 * math.pi * v)
    return out


@pytest.mark.parametrize("relation", ["remove", "replace"])
def test_d2_against_direct_cartesian_quadrature(relation):
    P, Q = wx.neighbouring_pair(relation, [0.6, 0.5, 0.7], 0, 1.0, 1.0, 0.5)
    eps = 0.2
    h = wx.hockey_stick(P, Q, eps, 2)
    x = np.linspace(-12, 13, 1501)
    Y1, Y2 = np.meshgrid(x, x, indexing="ij")
    f = np.maximum(_mixture_density_2d(P, Y1, Y2) - math.exp(eps) * _mixture_density_2d(Q, Y1, Y2), 0.0)
    brute = float(np.trapezoid(np.trapezoid(f, x, axis=1), x))
    assert h.delta == pytest.approx(brute, rel=1e-4)


def test_mechanism_pair_against_monte_carlo_in_50_dimensions():
    """Sample y ∈ R^50 from the system model itself (sampled users, their noise, receiver noise) and
    average (1 − e^ε q/p)_+ under P: an unbiased estimate of H_ε(P‖Q)."""
    p, k, L, sigma, N0, d, eps = [0.8, 0.7, 0.9, 0.6], 0, 1.0, 0.7, 0.3, 50, 0.05
    P, Q = wx.neighbouring_pair("remove", p, k, L, sigma, N0)
    exact = wx.hockey_stick(P, Q, eps, d).delta
    rng = np.random.default_rng(20240607)
    n = 100_000
    part = rng.random((n, len(p))) < np.asarray(p)
    g = np.zeros(d)
    g[0] = L
    y = part[:, [k]] * g[None, :]  # user k's gradient; the others' are 0
    y = y + rng.standard_normal((n, d)) * np.sqrt(sigma**2 * part.sum(axis=1, keepdims=True) + N0)

    def logpdf(M: wx.IsoMixture) -> np.ndarray:
        sq = (y[:, :1] - M.means[None, :]) ** 2 + (y[:, 1:] ** 2).sum(axis=1, keepdims=True)
        keep = M.weights > 0
        v = M.variances[keep]
        terms = np.log(M.weights[keep])[None, :] - sq[:, keep] / (2 * v) - d / 2 * np.log(2 * math.pi * v)
        return np.logaddexp.reduce(terms, axis=1)

    vals = np.maximum(-np.expm1(eps + logpdf(Q) - logpdf(P)), 0.0)
    est, se = vals.mean(), vals.std(ddof=1) / math.sqrt(n)
    assert exact > 0.01
    assert abs(est - exact) <= 5 * se, (est, se, exact)


def test_point_masses():
    P = _single(0.0, 0.0)
    Q = wx.IsoMixture([0.5, 0.5], [0.0, 0.0], [0.0, 1.0])
    for eps in [0.0, 0.3, 1.0]:
        assert wx.hockey_stick(P, Q, eps, 3).delta == pytest.approx(max(0.0, 1 - 0.5 * math.exp(eps)))


def test_monotone_in_eps_d_and_receiver_noise():
    p = [0.9] * 10
    ds = [wx.profile_delta("remove", p, 0, 1.0, 1.0, 0.0, 1000, e).delta for e in (0.0, 0.5, 1.0, 2.0, 4.0)]
    assert all(a >= b - 1e-12 for a, b in itertools.pairwise(ds))
    # projecting y ∈ R^{d+1} onto d coordinates is post-processing: δ does not decrease with d
    by_d = [wx.profile_delta("remove", p, 0, 1.0, 1.0, 0.0, d, 1.0).delta for d in (1, 10, 100, 1000, 3000)]
    assert all(b >= a - 1e-12 for a, b in itertools.pairwise(by_d))
    assert by_d[-1] > 100 * max(by_d[0], 1e-12)
    # adding receiver noise is post-processing: δ does not increase with N0
    by_n0 = [wx.profile_delta("remove", p, 0, 1.0, 1.0, n0, 1000, 1.0).delta for n0 in (0.0, 0.5, 2.0, 8.0)]
    assert all(b <= a + 1e-12 for a, b in itertools.pairwise(by_n0))


def test_replace_relation_from_y_is_below_the_known_set_value():
    p, L, sigma, N0, eps = [0.5] * 6, 1.0, 1.0, 0.5, 0.3
    known = wl.local_exact_delta(p, 0, L, sigma, eps, N0)
    prev = 0.0
    for d in (1, 100, 3000):
        v = wx.profile_delta("replace", p, 0, L, sigma, N0, d, eps).delta
        assert prev - 1e-12 <= v <= known + 1e-12
        prev = v


def test_covariance_change_is_what_makes_d_matter():
    """A broken model in which the absent user's noise were still added (equal covariances given the
    count) stays below its known-count value Σ_r π_r δ_r for every d (joint convexity); the paper's
    Y_{−k} (no noise from user k) goes far above it as d grows."""
    pk, eps = 0.9, 0.5
    pi = wl.participation_pmf([pk] * 9)
    v = np.arange(pi.size, dtype=float) + 1.0
    P = wx.IsoMixture(
        np.concatenate([(1 - pk) * pi, pk * pi]), np.concatenate([0 * v, 0 * v + 1]), np.concatenate([v, v])
    )
    Q = wx.IsoMixture(pi, 0 * v, v)
    known = sum(
        w * wx.hockey_stick(wx.IsoMixture([1 - pk, pk], [0, 1], [vr, vr]), _single(0, vr), eps, 1).delta
        for w, vr in zip(pi, v)
    )
    same = [wx.hockey_stick(P, Q, eps, d).delta for d in (1, 100, 3000)]
    assert max(same) <= known + 1e-12
    P_true, Q_true = wx.neighbouring_pair("remove", [pk] * 10, 0, 1.0, 1.0, 0.0)
    assert wx.hockey_stick(P_true, Q_true, eps, 3000).delta > 10 * known


def test_thm1_fails_at_table3b_for_mnist_dimension_and_holds_at_d1():
    K, p, L, s2 = 200, 0.9, 0.2, 0.8  # Table III(b), uniform p = 0.9
    dp = 2 * math.exp(-2 * K * p * p) + 1e-5
    big = wx.compare_thm1([p] * K, L, s2, 1.0, 7850, dp, 1e-5)
    assert big.violated and big.true_delta > 100 * big.delta_c
    assert big.eps_c == pytest.approx(wl.central_uniform(K, p, wl.wireless_c(L, math.sqrt(s2), 1e-5), dp, 1e-5).eps)
    small = wx.compare_thm1([p] * K, L, s2, 1.0, 1, dp, 1e-5)
    assert not small.violated and small.true_delta + small.error < small.delta_c


def test_profile_eps_inverts_profile_delta():
    p, L, sigma, N0, d = [0.9] * 10, 1.0, 1.0, 0.0, 1000
    target = 1e-3
    e = wx.profile_eps("remove", p, 0, L, sigma, N0, d, target)
    assert wx.profile_delta("remove", p, 0, L, sigma, N0, d, e).delta == pytest.approx(target, rel=1e-4)


@pytest.mark.parametrize(
    "call",
    [
        lambda: wx.neighbouring_pair("swap", [0.5], 0, 1.0, 1.0, 0.0),
        lambda: wx.neighbouring_pair("remove", [0.5, 0.5], 0, 1.0, 1.0, 0.0, grad_norm=2.0),
        lambda: wx.neighbouring_pair("remove", [0.5, 1.5], 0, 1.0, 1.0, 0.0),
        lambda: wx.neighbouring_pair("remove", [0.5, 0.5], 2, 1.0, 1.0, 0.0),
        lambda: wx.hockey_stick(_single(0, 1), _single(0, 1), 0.1, 0),
        lambda: wx.hockey_stick(_single(0, 1), _single(0, 1), -0.1, 3),
        lambda: wx.IsoMixture([1.0], [0.0], [-1.0]),
        lambda: wx.chi2_pair_delta(1.0, 1.0, 0.1, 3),
    ],
)
def test_bad_input_raises_usage_error(call):
    with pytest.raises(PrivcheckUsageError):
        call()
