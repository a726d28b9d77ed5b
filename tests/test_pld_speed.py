"""The speed-ups of the PLD accountant (issue 23) against their straightforward versions.

Each fast routine is checked against the slow one it replaced or against exact arithmetic:
the vectorised lower hull against Andrew's monotone chain, the blocked log-MGF against an
mpmath sum (it must stay an upper bound), the sparse repeated squaring against a dense power
within its own error bound, the float RDP screen against the certified mpmath route, and the
bisection search against a linear scan. No timing is asserted.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accountants.pld import GaussianEvent, LaplaceEvent, PoissonSampledEvent, RandomizedResponseEvent
from accountants.pld.accountant import _first_index
from accountants.pld.compose import U, _power, log_mgf
from accountants.pld.discretise import GridMeasure, _lower_hull, _monotone_chain
from accountants.rdp import rdp_delta, rdp_epsilon, rdp_estimate


def _hull_reference(t, v):
    hv = _monotone_chain(t, v, np.arange(t.size))
    out = np.empty_like(v)
    for a, b in zip(hv[:-1], hv[1:]):
        seg = slice(a, b + 1)
        out[seg] = v[a] + (v[b] - v[a]) * (t[seg] - t[a]) / (t[b] - t[a])
    return np.minimum(out, v)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=2, max_size=300), st.integers(0, 2**32 - 1))
def test_vectorised_lower_hull_equals_monotone_chain(vals, seed):
    rng = np.random.default_rng(seed)
    t = np.cumsum(rng.random(len(vals)) + 1e-3).astype(np.longdouble)
    v = np.asarray(vals, dtype=np.longdouble)
    got = _lower_hull(t, v)
    assert np.all(got <= v)
    assert np.allclose(got.astype(float), _hull_reference(t, v).astype(float), rtol=1e-12, atol=1e-9)


def test_lower_hull_of_a_concave_and_a_zigzag_sequence():
    t = np.linspace(0, 1, 2001).astype(np.longdouble)
    v = -((t - 0.5) ** 2)  # concave: the hull is the chord of the end points
    assert np.allclose(_lower_hull(t, v).astype(float), -0.25 * np.ones(t.size), atol=1e-15)
    z = np.where(np.arange(t.size) % 2 == 0, 0.0, 1.0).astype(np.longdouble)
    assert np.all(_lower_hull(t, z) == 0)


def test_blocked_log_mgf_is_an_upper_bound_on_the_exact_sum():
    rng = np.random.default_rng(7)
    p = rng.random(3000) * (rng.random(3000) < 0.7)
    m = GridMeasure(1e-3, -1700, p / p.sum(), 0.0, "pessimistic", "random")
    lams = np.array([0.01, 0.5, 3.0, 40.0, 1000.0])
    for sign in (1, -1):
        got = log_mgf(m, lams, sign)
        with mpmath.workdps(40):
            for lam, g in zip(lams, got):
                exact = mpmath.log(
                    mpmath.fsum(
                        mpmath.mpf(float(pi)) * mpmath.exp(sign * mpmath.mpf(float(lam)) * float(xi))
                        for pi, xi in zip(m.p, m.x)
                        if pi > 0
                    )
                )
                assert g >= exact
                assert g - exact <= 1e-11 * (1 + abs(float(exact)))


def test_sparse_power_within_its_error_bound():
    rng = np.random.default_rng(3)
    n = 4097
    A = (rng.random(n) ** 3) * np.exp(2j * np.pi * rng.random(n))
    A[0] = 1.0
    d = 1e-15
    for T in (1, 7, 100, 10_000):
        P, E, B = _power(A, T, d)
        dense = (A.astype(np.clongdouble) ** T).astype(complex)  # extended precision reference
        assert np.all(np.abs(P - dense) <= E + 4 * U * np.abs(dense))
        assert np.all(np.abs(dense) <= B * (1 + 1e-12) + 1e-300)
        assert np.count_nonzero(P) <= np.count_nonzero(B >= 1e-140)  # only the active components are powered


@pytest.mark.parametrize(
    "events",
    [
        [(PoissonSampledEvent(GaussianEvent(1.1), 0.01), 1000)],
        [(LaplaceEvent(b=1.0), 5), (RandomizedResponseEvent(1.0), 3), (GaussianEvent(2.0), 4)],
    ],
)
def test_float_rdp_screen_matches_the_certified_route(events):
    for delta in (1e-5, 1e-10):
        assert rdp_estimate(events, delta=delta) == pytest.approx(rdp_epsilon(events, delta).value, rel=1e-9)
    for eps in (0.5, 3.0):
        assert rdp_estimate(events, eps=eps) == pytest.approx(rdp_delta(events, eps).value, rel=1e-8, abs=1e-300)


def test_bisection_finds_the_first_good_point_of_a_monotone_predicate():
    grid = np.linspace(0.0, 1.0, 1001)
    for cut in (-1.0, 0.0, 0.3337, 0.999, 1.0, 2.0):
        j = _first_index(grid, lambda v: v >= cut)
        want = int(np.argmax(grid >= cut)) if np.any(grid >= cut) else grid.size
        assert j == want
