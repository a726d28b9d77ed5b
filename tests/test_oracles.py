"""The standard LDP frequency oracles (estimators/oracles.py): exact ε, samplers against reference samplers."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.linalg
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

import privcheck
from estimators import oracles
from privcheck.base.errors import UnknownNameError

NAMES = ["grr", "sue", "oue", "blh", "olh", "he", "the", "hr", "ss"]
N = 20_000
P_MIN = 1e-6  # a fixed-seed homogeneity test at this level: a wrong law at these sizes fails by orders


# ----------------------------------------------------------------- straightforward reference samplers
def ref_grr(x, n, rng, d, eps):
    p = math.exp(eps) / (math.exp(eps) + d - 1)
    out = []
    for _ in range(n):
        out.append(x if rng.random() < p else rng.choice([v for v in range(d) if v != x]))
    return np.array(out)


def ref_unary(x, n, rng, d, p, q):
    return np.array([[int(rng.random() < (p if i == x else q)) for i in range(d)] for _ in range(n)])


def ref_the(x, n, rng, d, eps, theta):
    b = np.zeros((n, d))
    b[:, x] = 1.0
    return (b + rng.laplace(0, 2 / eps, (n, d)) > theta).astype(int)


def ref_hr(x, n, rng, d, eps):
    K = oracles.hr_order(d)
    H = scipy.linalg.hadamard(K)
    inside = [y for y in range(K) if H[x + 1, y] == 1]
    outside = [y for y in range(K) if H[x + 1, y] == -1]
    p = math.exp(eps) / (math.exp(eps) + 1)
    return np.array([rng.choice(inside) if rng.random() < p else rng.choice(outside) for _ in range(n)])


def ref_ss(x, n, rng, d, eps, k):
    p = k * math.exp(eps) / (k * math.exp(eps) + d - k)
    rest = [v for v in range(d) if v != x]
    rows = []
    for _ in range(n):
        z = (
            ([x] + list(rng.choice(rest, k - 1, replace=False)))
            if rng.random() < p
            else list(rng.choice(rest, k, replace=False))
        )
        rows.append([int(i in z) for i in range(d)])
    return np.array(rows)


def ref_lh_support(x, n, rng, d, eps, g):
    """Support patterns over [d] of LH reports with a uniformly random hash function [d] -> [g]."""
    p = math.exp(eps) / (math.exp(eps) + g - 1)
    rows = []
    for _ in range(n):
        h = rng.integers(0, g, d)
        v = h[x] if rng.random() < p else rng.choice([u for u in range(g) if u != h[x]])
        rows.append((h == v).astype(int))
    return np.array(rows)


def _cells(a: np.ndarray) -> list:
    a = np.asarray(a)  # packed bit rows (privcheck.PackedBits) read as their (n, d) matrix
    a = a.reshape(len(a), -1)
    return [tuple(r) for r in a.tolist()]


def homogeneity_p(a: np.ndarray, b: np.ndarray) -> float:
    """Chi-square test of equal laws of two samples of discrete outputs (cells with tiny counts pooled)."""
    ca, cb = _cells(a), _cells(b)
    keys = sorted(set(ca) | set(cb))
    ia = {k: i for i, k in enumerate(keys)}
    ta = np.bincount([ia[k] for k in ca], minlength=len(keys))
    tb = np.bincount([ia[k] for k in cb], minlength=len(keys))
    small = (ta + tb) < 10
    if small.any():
        ta = np.append(ta[~small], ta[small].sum())
        tb = np.append(tb[~small], tb[small].sum())
    keep = (ta + tb) > 0
    return scipy.stats.chi2_contingency(np.stack([ta[keep], tb[keep]]))[1]


def _fast(name, x, n, seed, **kw):
    return privcheck.mechanism(name, **kw).sample(x, n, np.random.default_rng(seed))


# ----------------------------------------------------------------- exact ε
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("eps", [0.25, 1.0, 4.0])
def test_exact_eps_equals_nominal_except_the(name, eps):
    m = privcheck.mechanism(name, d=5, eps=eps)
    ex = m.exact_epsilon()
    if name == "the":  # post-processing of SHE: at most ε, strictly below
        assert 0 < ex.eps < eps
    else:
        assert ex.eps == pytest.approx(eps, rel=1e-12)


def test_the_exact_matches_bit_formula():
    m = privcheck.mechanism("the", d=4, eps=2.0, theta=0.8)
    p = 1 - 0.5 * math.exp(-(1 - 0.8) * 2.0 / 2)
    q = 0.5 * math.exp(-0.8 * 2.0 / 2)
    assert m.exact_epsilon().eps == pytest.approx(math.log(p * (1 - q) / ((1 - p) * q)), rel=1e-12)


def test_symmetry_reduction_agrees_with_enumeration():
    """HR and SS reduce large domains to one pair; the full enumeration on d = 8 gives the same ε."""
    for name, kw in [("hr", {}), ("ss", {"k": 3})]:
        full = privcheck.mechanism(name, d=8, eps=1.3, **kw).exact_epsilon()
        reduced = privcheck.mechanism(name, d=9, eps=1.3, **kw).exact_epsilon()
        assert full.method == "enumeration" and reduced.method == "symmetry"
        assert full.eps == pytest.approx(reduced.eps, rel=1e-14)


def test_mis_calibrated_unary_exact_eps():
    """Unary encoding with SUE's q but OUE's p: the exact ε exceeds the nominal (a computed, not stored, number)."""
    p, q = 0.5, 1 / (math.exp(0.5) + 1)
    ex = oracles.unary_exact(p, q)
    assert ex.eps == pytest.approx(math.log(p * (1 - q) / ((1 - p) * q)))


def test_hr_sets_are_balanced_and_distinct():
    sets = oracles.hr_sets(6)
    K = oracles.hr_order(6)
    assert K == 8 and all(len(s) == K // 2 for s in sets)
    assert all(len(a ^ b) == K // 2 for a, b in itertools.combinations(sets, 2))


# ----------------------------------------------------------------- samplers against reference samplers
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_grr_law(eps):
    rng = np.random.default_rng(1)
    assert homogeneity_p(_fast("grr", 1, N, 2, d=4, eps=eps), ref_grr(1, N, rng, 4, eps)) > P_MIN


@pytest.mark.parametrize("name", ["sue", "oue"])
def test_unary_law(name):
    m = privcheck.mechanism(name, d=3, eps=1.0)
    ref = ref_unary(2, N, np.random.default_rng(3), 3, m.p, m.q)
    assert homogeneity_p(_fast(name, 2, N, 4, d=3, eps=1.0), ref) > P_MIN


def test_the_law_is_thresholded_laplace():
    m = privcheck.mechanism("the", d=3, eps=1.5)
    ref = ref_the(0, N, np.random.default_rng(5), 3, 1.5, m.theta)
    assert homogeneity_p(_fast("the", 0, N, 6, d=3, eps=1.5), ref) > P_MIN


@pytest.mark.parametrize("d", [3, 6])
def test_hr_law(d):
    ref = ref_hr(1, N, np.random.default_rng(7), d, 1.0)
    assert homogeneity_p(_fast("hr", 1, N, 8, d=d, eps=1.0), ref) > P_MIN


def test_ss_law():
    ref = ref_ss(2, N, np.random.default_rng(9), 5, 1.0, 2)
    assert homogeneity_p(_fast("ss", 2, N, 10, d=5, eps=1.0, k=2), ref) > P_MIN


@pytest.mark.parametrize("name", ["blh", "olh"])
def test_lh_support_law(name):
    m = privcheck.mechanism(name, d=3, eps=1.5)
    reports = m.sample(0, N, np.random.default_rng(11))
    ref = ref_lh_support(0, N, np.random.default_rng(12), 3, 1.5, m.g)
    # the built-in family h_{a,b} is pairwise (not 3-wise) independent: compare the pairs (0, y)
    for y in (1, 2):
        assert homogeneity_p(m.support(reports, [0, y]), ref[:, [0, y]]) > P_MIN


def test_homogeneity_test_can_fail():
    """The same test rejects SUE's sampler against OUE's reference law (so the law tests have power)."""
    oue = privcheck.mechanism("oue", d=3, eps=1.0)
    ref = ref_unary(2, N, np.random.default_rng(3), 3, oue.p, oue.q)
    assert homogeneity_p(_fast("sue", 2, N, 4, d=3, eps=1.0), ref) < P_MIN


def test_he_law_is_one_hot_plus_laplace():
    out = _fast("he", 1, N, 13, d=3, eps=1.0)
    for i in range(3):
        assert scipy.stats.kstest(out[:, i] - (i == 1), scipy.stats.laplace(scale=2.0).cdf).pvalue > P_MIN


@settings(max_examples=25, deadline=None)
@given(d=st.integers(2, 40), eps=st.floats(0.05, 6.0), x=st.integers(0, 39), seed=st.integers(0, 2**32 - 1))
def test_sampler_shapes_and_support(d, eps, x, seed):
    """Every sampler returns n outputs of its declared kind; ss rows hold exactly k items; hr stays in [K]."""
    x = x % d
    rng = np.random.default_rng(seed)
    for name in NAMES:
        m = privcheck.mechanism(name, d=d, eps=eps)
        out = m.sample(x, 7, rng)
        assert len(out) == 7
        if name == "ss":
            assert (out.sum(axis=1) == m.k).all()
        if name == "hr":
            assert ((0 <= out) & (out < m.K)).all()
        if name in ("blh", "olh"):
            assert m.support(out, [x]).shape == (7, 1)


# ----------------------------------------------------------------- audits and bad input
@pytest.mark.parametrize("name", ["grr", "oue", "ss", "hr"])
def test_audit_certifies_most_of_eps(name):
    res = privcheck.audit(privcheck.mechanism(name, d=4, eps=1.0), samples=200_000, seed=0, confidence=0.95)
    assert res.verdict == "holds"
    assert res.eps_lower > 0.8


def test_oracles_listed_and_bad_parameters():
    from estimators.registry import mechanism_names

    assert set(NAMES) <= set(mechanism_names())
    with pytest.raises(ValueError, match="d"):
        privcheck.mechanism("oue", d=1, eps=1.0)
    with pytest.raises(ValueError, match="k"):
        privcheck.mechanism("ss", d=4, eps=1.0, k=4)
    with pytest.raises(ValueError, match="theta"):
        privcheck.mechanism("the", d=4, eps=1.0, theta=1.5)
    with pytest.raises(UnknownNameError):
        privcheck.mechanism("oue", m=3)


@settings(max_examples=60, deadline=None)
@given(
    x=st.integers(0, oracles.HASH_PRIME - 2),
    a=st.integers(1, oracles.HASH_PRIME - 1),
    b=st.integers(0, oracles.HASH_PRIME - 1),
    g=st.integers(2, 1000),
)
def test_hash_values_is_exact_integer_arithmetic(x, a, b, g):
    """blh/olh hash on int64 without overflow: equal to Python's unbounded integers at the extremes too."""
    got = oracles.hash_values(x, np.array([a, oracles.HASH_PRIME - 1]), np.array([b, oracles.HASH_PRIME - 1]), g)
    assert got.tolist() == [
        ((a * x + b) % oracles.HASH_PRIME) % g,
        (((oracles.HASH_PRIME - 1) * x + oracles.HASH_PRIME - 1) % oracles.HASH_PRIME) % g,
    ]
