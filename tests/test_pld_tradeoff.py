"""Certified trade-off curves of the PLD accountant against exact curves.

Oracles (independent of the accountant's code): the μ-GDP closed form G_μ (Dong, Roth & Su 2022,
eq. (2.4)); the Laplace closed form (ibid., Sect. 2.3 example); n-fold binary randomised response
by Neyman–Pearson on the binomial count with mpmath (50 digits); the single Poisson-subsampled
Gaussian as the lower convex hull of the two parametric Neyman–Pearson curves (2·10⁵ points).
Every interval must contain the exact value (no tolerance on the certified side) at ≥ 200
hypothesis-drawn α per mechanism, and be narrower than a stated width (so a loose answer fails).
"""
from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from accountants.pld import (
    GaussianEvent,
    LaplaceEvent,
    PLDAccountant,
    PoissonSampledEvent,
    RandomizedResponseEvent,
)
from privcheck.errors import PrivcheckUsageError

ALPHAS = st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=50, max_size=50)
FEW = settings(max_examples=5, deadline=None)


def _gauss(mu, a):
    return norm.cdf(norm.isf(a) - mu)


# ---------------------------------------------------------------- accountants (built once)
@functools.lru_cache(maxsize=None)
def _acc(name: str) -> PLDAccountant:
    if name == "gauss-exact":
        return PLDAccountant().compose(GaussianEvent(sigma=2.0), count=9)          # μ = 1.5
    if name == "gauss-fft":
        return PLDAccountant(method="pld", target_fft_size=2**14).compose(GaussianEvent(sigma=2.0), count=9)
    if name == "laplace":
        return PLDAccountant().compose(LaplaceEvent(eps=1.3))
    if name == "rr":
        return PLDAccountant(target_fft_size=2**14).compose(RandomizedResponseEvent(eps=0.7), count=12)
    if name == "sub-exact":
        return PLDAccountant().compose(PoissonSampledEvent(GaussianEvent(sigma=0.8), q=0.2))
    if name == "sub-fft":
        return PLDAccountant(method="pld", target_fft_size=2**14).compose(
            PoissonSampledEvent(GaussianEvent(sigma=0.8), q=0.2))
    raise KeyError(name)


# ---------------------------------------------------------------- exact curves
def _laplace_curve(eps: float, a: np.ndarray) -> np.ndarray:
    """T(Lap(0,1), Lap(ε,1)) (Dong, Roth & Su 2022, Sect. 2.3)."""
    e = math.exp(-eps)
    return np.where(a < e / 2, 1 - a / e, np.where(a <= 0.5, e / (4 * np.maximum(a, 1e-300)), e * (1 - a)))


@functools.lru_cache(maxsize=None)
def _rr_vertices(eps: float, n: int):
    """Neyman–Pearson vertices (α_j, β_j) of n-fold binary RR (symmetric pair), mpmath 50 digits."""
    with mpmath.workdps(50):
        E = mpmath.e ** mpmath.mpf(eps)
        a, b = E / (E + 1), 1 / (E + 1)
        P = [mpmath.binomial(n, k) * a**k * b ** (n - k) for k in range(n + 1)]
        Q = [mpmath.binomial(n, k) * b**k * a ** (n - k) for k in range(n + 1)]
        al, be = [mpmath.mpf(0)], [mpmath.mpf(1)]
        for k in range(n + 1):  # Q/P = e^{ε(n−2k)} decreases in k: reject P for small k first
            al.append(al[-1] + P[k])
            be.append(be[-1] - Q[k])
        al[-1], be[-1] = mpmath.mpf(1), mpmath.mpf(0)  # ΣP = ΣQ = 1 exactly (the sums carry rounding)
        return al, be


def _rr_curve(eps: float, n: int, alpha: float) -> float:
    al, be = _rr_vertices(eps, n)
    with mpmath.workdps(50):
        x = mpmath.mpf(alpha)
        for j in range(len(al) - 1):
            if al[j] <= x <= al[j + 1]:
                w = (x - al[j]) / (al[j + 1] - al[j])
                return float(be[j] + w * (be[j + 1] - be[j]))
    return 0.0


@functools.lru_cache(maxsize=None)
def _subsampled_hull(mu: float, q: float):
    """Lower convex hull of min(T(A,B), T(B,A)), A = (1−q)N(0,1) + qN(μ,1), B = N(0,1)."""
    c = np.linspace(-40, 40, 200_001)
    # T(B, A): reject B for large x
    a1 = norm.sf(c)
    b1 = (1 - q) * norm.cdf(c) + q * norm.cdf(c - mu)
    # T(A, B): reject A for small x
    a2 = (1 - q) * norm.cdf(c) + q * norm.cdf(c - mu)
    b2 = norm.sf(c)
    pts = np.concatenate([np.stack([a1, b1], 1), np.stack([a2, b2], 1), [[0.0, 1.0], [1.0, 0.0]]])
    pts = pts[np.lexsort((pts[:, 1], pts[:, 0]))]
    hull: list = []
    for p in pts:
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1) <= 0:
                hull.pop()
            else:
                break
        hull.append(p)
    h = np.array(hull)
    return h[:, 0], h[:, 1]


# ---------------------------------------------------------------- containment (≥ 200 points each)
@FEW
@given(ALPHAS)
def test_gaussian_exact_route_contains_g_mu(alphas):
    a = np.array(alphas)
    iv = _acc("gauss-exact").tradeoff(a)
    ex = _gauss(1.5, a)
    assert iv.method == "exact GDP"
    assert np.all(iv.lower <= ex) and np.all(ex <= iv.upper)
    assert np.max(iv.upper - iv.lower) < 1e-8


@FEW
@given(ALPHAS)
def test_gaussian_fft_route_contains_g_mu(alphas):
    a = np.array(alphas)
    iv = _acc("gauss-fft").tradeoff(a, points=121)
    ex = _gauss(1.5, a)
    assert iv.method == "pld-profile"
    assert np.all(iv.lower <= ex) and np.all(ex <= iv.upper)
    assert np.max(iv.upper - iv.lower) < 5e-3


@FEW
@given(ALPHAS)
def test_laplace_contains_closed_form(alphas):
    a = np.array(alphas)
    iv = _acc("laplace").tradeoff(a, points=121)
    ex = _laplace_curve(1.3, a)
    assert np.all(iv.lower <= ex) and np.all(ex <= iv.upper)
    assert np.max(iv.upper - iv.lower) < 5e-3


@FEW
@given(ALPHAS)
def test_rr_composition_contains_binomial_curve(alphas):
    iv = _acc("rr").tradeoff(np.array(alphas), points=121)
    for a, lo, up in zip(alphas, iv.lower, iv.upper):
        ex = _rr_curve(0.7, 12, a)
        assert lo <= ex <= up, (a, lo, ex, up)
    assert np.max(iv.upper - iv.lower) < 1e-2


@pytest.mark.parametrize("name", ["sub-exact", "sub-fft"])
@FEW
@given(alphas=ALPHAS)
def test_subsampled_gaussian_contains_reference(name, alphas):
    a = np.array(alphas)
    iv = _acc(name).tradeoff(a, points=121)
    hx, hy = _subsampled_hull(1.25, 0.2)
    ref = np.interp(a, hx, hy)  # chords lie above the convex curve by < 1e-9 at this density
    assert np.all(iv.lower <= ref) and np.all(ref - 1e-9 <= iv.upper)
    assert np.max(iv.upper - iv.lower) < 5e-3


# ---------------------------------------------------------------- shape, symmetry, refusals
def test_scalar_and_shape():
    acc = _acc("gauss-exact")
    iv = acc.tradeoff(0.1)
    assert isinstance(iv.lower, float) and iv.lower <= _gauss(1.5, 0.1) <= iv.upper
    grid = np.linspace(0, 1, 12).reshape(3, 4)
    assert acc.tradeoff(grid).lower.shape == (3, 4)


def test_curve_is_symmetric_and_trivial_at_ends():
    iv = _acc("sub-fft").tradeoff(np.array([0.0, 1.0]), points=121)
    assert iv.upper[1] == 0.0 and iv.lower[0] > 1 - 1e-6
    # symmetric f: f(f(α)) = α within the interval slack, tested through the exact hull reference
    hx, hy = _subsampled_hull(1.25, 0.2)
    assert np.allclose(np.interp(np.interp(0.3, hx, hy), hx, hy), 0.3, atol=1e-6)


def test_wrong_mu_is_excluded():
    """A curve for μ·1.05 must fall outside the interval somewhere (the interval is informative)."""
    a = np.linspace(0.01, 0.99, 99)
    iv = _acc("gauss-fft").tradeoff(a, points=121)
    assert np.any(_gauss(1.5 * 1.05, a) < iv.lower)


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), "x", [0.2, 2.0]])
def test_bad_alpha_refused(bad):
    with pytest.raises(PrivcheckUsageError, match="alpha"):
        _acc("gauss-exact").tradeoff(bad)
