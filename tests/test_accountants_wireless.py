"""004 wireless bounds: formulas as printed, validity conditions, Lemma 1, scaling, tables."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accountants import composition as comp
from accountants import wireless as wl
from privcheck.base.errors import PrivcheckUsageError


def test_c_and_beta():
    assert wl.wireless_c(1.0, 3.0, 1e-4) == pytest.approx(2 / 3 * math.sqrt(2 * math.log(12500)))
    assert wl.hoeffding_beta(200, 1e-5) == pytest.approx(math.sqrt(0.5 * math.log(2e5)) / math.sqrt(200))


def test_eq14_by_hand_and_eq13_reduces():
    K, p, c, dp, dl = 200, 0.3, 3.0, 1e-5, 1e-5
    beta = wl.hoeffding_beta(K, dp)
    hand = math.log(1 + p / (1 - dp) * (math.exp(c / math.sqrt(K * (p - beta))) - 1))
    u = wl.central_uniform(K, p, c, dp, dl)
    assert u.eps == pytest.approx(hand, rel=1e-13)
    assert u.delta == pytest.approx(dp + p * dl / (1 - dp))
    n = wl.central_nonuniform([p] * K, c, dp, dl)
    assert n.eps == pytest.approx(u.eps, rel=1e-13)


def test_eq13_uses_max_p():
    p = [0.5] * 99 + [0.9]
    g = wl.central_nonuniform(p, 1.0, 1e-4, 1e-5)
    assert g.p_max == 0.9 and g.mu_K == pytest.approx(50.4)


@pytest.mark.parametrize(
    "kw",
    [
        dict(K=200, p=0.1, c=1.0, delta_prime=1e-5, delta_l=1e-5),  # p ≤ β
        dict(K=200, p=0.3, c=1.0, delta_prime=1.0, delta_l=1e-5),  # δ′ not < 1
        dict(K=200, p=1.2, c=1.0, delta_prime=1e-5, delta_l=1e-5),  # p > 1
        dict(K=200, p=0.3, c=-1.0, delta_prime=1e-5, delta_l=1e-5),  # c ≤ 0
    ],
)
def test_validity_conditions_enforced(kw):
    with pytest.raises(PrivcheckUsageError):
        wl.central_uniform(**kw)


def test_nonuniform_validity():
    # δ′ > 2e^{−2μ_K²/K} is equivalent to μ_K > βK; both are enforced
    with pytest.raises(PrivcheckUsageError, match="delta_prime"):
        wl.central_nonuniform([0.01] * 100, 1.0, 1e-5, 1e-5)
    with pytest.raises(PrivcheckUsageError, match="delta_prime"):
        wl.central_nonuniform([0.5] * 10, 1.0, 1e-30, 1e-5)
    with pytest.raises(PrivcheckUsageError, match="p_k"):
        wl.central_nonuniform([0.5, 1.5], 1.0, 1e-3, 1e-5)


def test_lemma1_paper_popt_vs_true_minimum():
    o = wl.optimal_p(200, 30.0, 1e-4, 1e-4)
    assert o.p_paper == pytest.approx(2 * wl.hoeffding_beta(200, 1e-4))
    assert o.p_numeric == 1.0 and o.eps_numeric < o.eps_paper  # the printed p* is not the minimiser
    # small c/√(Kβ): the two agree closely
    o2 = wl.optimal_p(10**6, 0.5, 1e-4, 1e-4)
    assert o2.excess < 1e-4
    # the numerical minimiser is a minimum of eq. 14
    for dp in (-1e-4, 1e-4):
        p = min(1.0, o2.p_numeric + dp)
        assert wl.central_uniform(10**6, p, 0.5, 1e-4, 1e-4).eps >= o2.eps_numeric * (1 - 1e-12)


def test_eq16_equals_eq14_at_pstar():
    for K in (10**3, 10**5, 10**8):
        c, dp = 2.9, 1e-4
        assert wl.lemma1_eps(K, c, dp) == pytest.approx(
            wl.central_uniform(K, wl.paper_popt(K, dp), c, dp, 1e-4).eps, rel=1e-10
        )


def test_k_slope_approaches_three_quarters():
    s = wl.k_slope(2.9, 1e-4)
    assert -0.80 < s.slope < -0.75
    assert abs(s.asymptotic_slope + 0.75) < 0.01
    # a 1/√K law (no sampling gain) would be caught
    assert not (s.interval[0] <= -0.5 <= s.interval[1])


def test_lemma2_and_exact_local_delta():
    p = [0.3] * 200
    c = wl.wireless_c(1.0, math.sqrt(0.1), 1e-5)
    lg = wl.local_eps(p, 0, c, 1e-5, 1e-5)
    beta = wl.hoeffding_beta(200, 1e-5)
    assert lg.eps == pytest.approx(c / math.sqrt(1 + 199 * 0.3 - beta * 200))
    assert wl.local_exact_delta(p, 0, 1.0, math.sqrt(0.1), lg.eps) <= lg.delta
    pmf = wl.participation_pmf([0.2, 0.5, 0.9])
    assert pmf.sum() == pytest.approx(1.0) and pmf[3] == pytest.approx(0.09)


@settings(max_examples=30, deadline=None)
@given(T=st.integers(1, 40), lo=st.floats(0.3, 0.9), c=st.floats(0.1, 10), seed=st.integers(0, 10**6))
def test_eq18_le_eq19(T, lo, c, seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    P = rng.uniform(lo, 1.0, size=(T, 300))
    eps = [wl.central_nonuniform(P[t], c, 1e-4, 1e-5).eps for t in range(T)]
    assert wl.total_eq18(eps, 1e-5) <= wl.total_eq19(P, c, 1e-4, 1e-5) * (1 + 1e-12)


def test_totals_and_drv():
    e18 = wl.total_eq18([0.1] * 100, 1e-5)
    assert e18 == pytest.approx(comp.kov_composition(0.1, 1e-5, steps=100).eps)
    e, d = wl.total_time_invariant(0.1, 1e-7, 400, 1e-5)
    assert e == pytest.approx(13.803889, abs=1e-6) and d == pytest.approx(400e-7 + 1e-5)
    assert wl.total_delta_eq20([1e-6] * 10, 1e-5) == pytest.approx(1 - (1 - 1e-5) * (1 - 1e-6) ** 10)


def test_tables_reported_cell_by_cell():
    cells = wl.reproduce_tables()
    assert len(cells) == 8
    got = {(c.table, c.p): c.eps_c_reproduced for c in cells}
    # the small-c tables follow from eq. 14, the large-c ones do not
    assert got[("II(b)", 0.3)] and got[("III(b)", 0.9)]
    assert not got[("II(a)", 0.3)]
