"""Oracle tests of the 003 frequency estimators (estimators/frequency.py) by exhaustive enumeration.

Every node j holds a value x_j and is sampled with probability π_j; a sampled node reports its value
w.p. p and each other value w.p. q (direct encoding). For small n and m all (m + 1)^n joint outcomes
(not sampled / reported value, per node) are enumerated with their probabilities, so the exact
expectation and variance of every estimator (c_DE eq. 3, g_DE eq. 5, ĉ_DE Thm 3.4, T Thm 5.1) follow
without any formula of the module under test. The estimators are then compared with what the paper
states (eq. 4, unbiasedness, Thm 3.2, Thm 5.1) and with :func:`exact_moments`; the samplers are
compared with the enumerated law of (C, S) by chi-square tests on fixed seeds.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from estimators import frequency as fq
from estimators.direct_encoding import de_probabilities

I = 0  # the value whose frequency is estimated


def _enumerate(values, pis, p, q, m):
    """[(probability, C, S)] over all joint outcomes; C = reports equal to I, S = sampled nodes."""
    per_node = []
    for x, pi in zip(values, pis):
        opts = [(1 - pi, None)] + [(pi * (p if v == x else q), v) for v in range(m)]
        per_node.append(opts)
    out = []
    for combo in itertools.product(*per_node):
        prob = math.prod(c[0] for c in combo)
        reports = [c[1] for c in combo if c[1] is not None]
        out.append((prob, sum(r == I for r in reports), len(reports)))
    return out


def _moments(table, estimator):
    """Exact (mean, variance) of estimator(C, S) under the enumerated law."""
    pr = np.array([t[0] for t in table])
    C = np.array([t[1] for t in table])
    S = np.array([t[2] for t in table])
    v = np.asarray(estimator(C, S), dtype=float)
    mean = float((pr * v).sum())
    return mean, float((pr * (v - mean) ** 2).sum())


# (values, pi, eps, m): small designs; value I = 0 held by some, none or all nodes
UNIFORM = [
    ((0, 1, 2, 0), 0.3, 1.0, 3),
    ((1, 2, 1, 2), 0.6, 0.5, 3),  # f_i = 0: the Var* limits are exact
    ((0, 0, 0, 1, 2), 0.8, 2.0, 3),
    ((0, 1, 0, 1), 0.5, 1.5, 2),
]


def test_de_probabilities_are_direct_encoding():
    for eps, m in ((1.0, 3), (0.3, 10), (4.0, 2)):
        p, q = de_probabilities(eps, m)
        assert math.isclose(p / q, math.exp(eps), rel_tol=1e-13)
        assert math.isclose(p + (m - 1) * q, 1.0, rel_tol=1e-13)


@pytest.mark.parametrize("values,pi,eps,m", UNIFORM)
def test_estimators_against_enumeration_uniform(values, pi, eps, m):
    p, q = de_probabilities(eps, m)
    n = len(values)
    n_i = sum(v == I for v in values)
    table = _enumerate(values, [pi] * n, p, q, m)
    assert math.isclose(sum(t[0] for t in table), 1.0, rel_tol=1e-12)
    g = fq.uniform_groups(n, n_i, pi)
    rel = dict(rel_tol=1e-9, abs_tol=1e-9)

    for kind, est in (
        ("c_de", lambda C, S: fq.c_de(C, n, p, q)),
        ("g_de", lambda C, S: fq.g_de(C, n, pi, p, q)),
        ("c_hat", lambda C, S: fq.c_hat(C, S, pi, p, q)),
        ("T", lambda C, S: fq.t_estimator(C, n, n * pi, p, q)),
    ):
        em, ev = _moments(table, est)  # exact_moments (a·C + b·S + c) against the enumeration
        assert fq.exact_moments(kind, g, p, q) == (
            pytest.approx(em, rel=1e-9, abs=1e-9),
            pytest.approx(ev, rel=1e-9, abs=1e-12),
        ), kind
    # c_DE (eq. 3): biased, with mean eq. 4 (Thm 2.1)
    m_c, v_c = _moments(table, lambda C, S: fq.c_de(C, n, p, q))
    assert math.isclose(m_c, fq.eq4_mean(n, n_i / n, pi, p, q), **rel)
    assert math.isclose(m_c, fq.exact_moments("c_de", g, p, q)[0], **rel)
    assert math.isclose(v_c, fq.exact_moments("c_de", g, p, q)[1], **rel)
    # g_DE (eq. 5): unbiased (Thm 3.1); Var = Thm 3.2's Var* when nobody holds I
    m_g, v_g = _moments(table, lambda C, S: fq.g_de(C, n, pi, p, q))
    assert math.isclose(m_g, n_i, **rel)
    assert math.isclose(v_g, fq.exact_moments("g_de", g, p, q)[1], **rel)
    if n_i == 0:
        assert math.isclose(v_g, fq.thm32_var_star(n, pi, p, q), **rel)
    # ĉ_DE (Thm 3.4): unbiased; its variance is exact_moments' (which Thm 3.5 compares)
    m_h, v_h = _moments(table, lambda C, S: fq.c_hat(C, S, pi, p, q))
    assert math.isclose(m_h, n_i, **rel)
    assert math.isclose(v_h, fq.exact_moments("c_hat", g, p, q)[1], **rel)
    assert math.isclose(v_h - v_g, fq.exact_thm35_difference(g, p, q), **rel)
    # T (Thm 5.1) with equal π equals g_DE
    m_t, v_t = _moments(table, lambda C, S: fq.t_estimator(C, n, n * pi, p, q))
    assert math.isclose(m_t, n_i, **rel) and math.isclose(v_t, v_g, **rel)


@pytest.mark.parametrize(
    "values,pis,eps,m",
    [
        ((0, 1, 2, 0), (0.2, 0.5, 0.9, 0.7), 1.0, 3),
        ((1, 2, 1, 2), (0.1, 0.4, 0.6, 1.0), 0.7, 3),  # f_i = 0: Thm 5.1's Var* is exact
        ((0, 1, 1, 0, 1), (0.3, 0.3, 0.8, 0.8, 0.5), 2.0, 2),
    ],
)
def test_t_estimator_against_enumeration_personalised(values, pis, eps, m):
    p, q = de_probabilities(eps, m)
    n = len(values)
    n_i = sum(v == I for v in values)
    table = _enumerate(values, pis, p, q, m)
    g = fq.groups_from_nodes(np.array(values), np.array(pis), I)
    assert g.n == n and g.n_i == n_i and math.isclose(g.sum_pi, sum(pis))
    m_t, v_t = _moments(table, lambda C, S: fq.t_estimator(C, n, sum(pis), p, q))
    # for fixed data E[T] = n Σ_{holders} π_j / Σ π_j: unbiased only when the holders' π average is
    # the overall one (Thm 5.1 averages over data independent of π; see the i.i.d. test below)
    held_pi = sum(pi for v, pi in zip(values, pis) if v == I)
    assert math.isclose(m_t, n * held_pi / sum(pis), rel_tol=1e-9, abs_tol=1e-9)
    assert math.isclose(m_t, fq.exact_moments("T", g, p, q)[0], rel_tol=1e-9, abs_tol=1e-9)
    assert math.isclose(v_t, fq.exact_moments("T", g, p, q)[1], rel_tol=1e-9)
    if n_i == 0:
        assert math.isclose(v_t, fq.thm51_var_star(g, p, q), rel_tol=1e-9)
        assert math.isclose(v_t, fq.var_star_T(n, pis, p, q), rel_tol=1e-9)
    cm = fq.count_moments(g, p, q)
    m_C, v_C = _moments(table, lambda C, S: C)
    m_S, v_S = _moments(table, lambda C, S: S)
    m_CS, _ = _moments(table, lambda C, S: C * S)
    assert math.isclose(cm.mean_C, m_C, rel_tol=1e-12) and math.isclose(cm.mean_S, m_S, rel_tol=1e-12)
    assert math.isclose(cm.var_C, v_C, rel_tol=1e-9) and math.isclose(cm.var_S, v_S, rel_tol=1e-9)
    assert math.isclose(cm.cov_CS, m_CS - m_C * m_S, rel_tol=1e-9, abs_tol=1e-12)


def test_t_estimator_unbiased_for_iid_data():
    """Thm 5.1: with values i.i.d. (I w.p. f_i) independent of π_j, E[T] = n f_i (enumerated over the data too)."""
    p, q = de_probabilities(1.0, 3)
    pis, f_i = (0.2, 0.5, 0.9, 0.7), 0.3
    n = len(pis)
    mean = 0.0
    for holds in itertools.product([True, False], repeat=n):
        w = math.prod(f_i if h else 1 - f_i for h in holds)
        vals = [I if h else 1 for h in holds]
        mean += w * _moments(_enumerate(vals, pis, p, q, 3), lambda C, S: fq.t_estimator(C, n, sum(pis), p, q))[0]
    assert math.isclose(mean, n * f_i, rel_tol=1e-9)


def _pmf_CS(table):
    pmf = {}
    for pr, C, S in table:
        pmf[(C, S)] = pmf.get((C, S), 0.0) + pr
    return pmf


def _chi2_pvalue(pmf: dict, C, S) -> float:
    keys = sorted(pmf)
    idx = {k: j for j, k in enumerate(keys)}
    obs = np.bincount([idx[(c, s)] for c, s in zip(C.tolist(), S.tolist())], minlength=len(keys))
    exp = np.array([pmf[k] for k in keys]) * len(C)
    return float(stats.chisquare(obs, exp).pvalue)


@pytest.mark.parametrize(
    "values,pis,eps,m",
    [
        ((0, 1, 2, 0), (0.3,) * 4, 1.0, 3),
        ((0, 1, 2, 0, 1), (0.2, 0.5, 0.9, 0.7, 0.5), 0.8, 3),
    ],
)
def test_draw_counts_has_the_enumerated_law(values, pis, eps, m):
    p, q = de_probabilities(eps, m)
    g = fq.groups_from_nodes(np.array(values), np.array(pis), I)
    pmf = _pmf_CS(_enumerate(values, pis, p, q, m))
    C, S = fq.draw_counts(g, p, q, np.random.default_rng(11), 200_000)
    assert C.dtype.kind == "i" and S.dtype.kind == "i"  # counts
    assert _chi2_pvalue(pmf, C, S) > 1e-4
    # a sampler with p and q swapped is rejected by the same test (power check)
    C2, S2 = fq.draw_counts(g, q * 1.5, q, np.random.default_rng(11), 200_000)
    assert _chi2_pvalue(pmf, C2, S2) < 1e-6


def test_draw_counts_iid_has_the_mixture_law():
    p, q = de_probabilities(1.0, 3)
    f_i, n_by_pi, pis = 0.4, [3, 2], [0.3, 0.8]
    # enumerate: each node holds I w.p. f_i independently, then samples/reports as before
    node_pis = [0.3] * 3 + [0.8] * 2
    pmf: dict = {}
    for holds in itertools.product([True, False], repeat=5):
        w = math.prod(f_i if h else 1 - f_i for h in holds)
        vals = [I if h else 1 for h in holds]
        for k, v in _pmf_CS(_enumerate(vals, node_pis, p, q, 3)).items():
            pmf[k] = pmf.get(k, 0.0) + w * v
    C, S = fq.draw_counts_iid(n_by_pi, pis, f_i, p, q, np.random.default_rng(5), 200_000)
    assert C.dtype.kind == "i" and S.dtype.kind == "i"
    assert _chi2_pvalue(pmf, C, S) > 1e-4


def test_srswor_sampler_and_moments_against_enumeration():
    p, q = de_probabilities(1.0, 3)
    n, n_i, B = 6, 2, 3
    holders = [True] * n_i + [False] * (n - n_i)
    subsets = list(itertools.combinations(range(n), B))
    pmf = np.zeros(B + 1)
    for sub in subsets:
        h = sum(holders[j] for j in sub)
        for c in range(B + 1):  # C = Bin(h, p) + Bin(B − h, q)
            pmf[c] += stats.binom.pmf(np.arange(c + 1), h, p) @ stats.binom.pmf(c - np.arange(c + 1), B - h, q)
    pmf /= len(subsets)
    a = n / (B * (p - q))
    vals = a * (np.arange(B + 1) - B * q)
    mean = float(pmf @ vals)
    var = float(pmf @ (vals - mean) ** 2)
    em, ev = fq.exact_moments_srswor(n, n_i, B, p, q)
    assert math.isclose(em, n_i, rel_tol=1e-12) and math.isclose(mean, em, rel_tol=1e-12)
    assert math.isclose(var, ev, rel_tol=1e-10)
    C, S = fq.draw_counts_srswor(n, n_i, B, p, q, np.random.default_rng(8), 200_000)
    assert np.all(S == B) and S.dtype.kind == "i" and C.dtype.kind == "i"
    obs = np.bincount(C, minlength=B + 1)
    assert stats.chisquare(obs, pmf * len(C)).pvalue > 1e-4
    # the f_i → 0 variance of sampling exactly B nodes is optimal_design's var_srswor
    dc = fq.optimal_design(n, B, p, q)
    assert math.isclose(fq.exact_moments_srswor(n, 0, B, p, q)[1], dc.var_srswor, rel_tol=1e-12)


def test_optimal_design_against_brute_force():
    p, q = de_probabilities(1.0, 10)
    n, B = 6, 2.5
    dc = fq.optimal_design(n, B, p, q)
    vertex = [1.0, 1.0, 0.5, 0.0, 0.0, 0.0]
    assert math.isclose(dc.var_optimum, fq.var_star_T(n, vertex, p, q), rel_tol=1e-12)
    assert math.isclose(dc.var_uniform, fq.var_star_T(n, [B / n] * n, p, q), rel_tol=1e-12)
    rng = np.random.default_rng(3)
    for _ in range(300):  # no feasible design beats the vertex
        x = rng.dirichlet(np.ones(n)) * B
        if x.max() <= 1:
            assert fq.var_star_T(n, x, p, q) >= dc.var_optimum * (1 - 1e-12)
    assert math.isclose(dc.ratio_formula, (1 - q) / (1 - q * B / n), rel_tol=1e-15)
    assert math.isclose(dc.ratio_optimum, dc.var_optimum / dc.var_uniform, rel_tol=1e-15)
    assert math.isclose(dc.ratio_srswor, dc.var_srswor / dc.var_uniform, rel_tol=1e-15)
    assert (dc.n, dc.B, dc.q) == (n, B, q)
    # Var*(T) for explicit π_j: n² Σ qπ_j(1 − qπ_j)/((Σπ_j)²(p − q)²), also for integer (0/1) designs
    assert fq.var_star_T(4, [1, 1, 0, 0], p, q) == pytest.approx(16 * 2 * q * (1 - q) / (4 * (p - q) ** 2), rel=1e-14)


def test_printed_formulas_closed_forms():
    p, q = de_probabilities(1.0, 4)
    n, pi = 7, 0.35
    assert math.isclose(fq.thm32_var_star(n, pi, p, q), n * (q - q * q * pi) / ((p - q) ** 2 * pi), rel_tol=1e-15)
    g = fq.uniform_groups(n, 2, pi)
    # eq. 6 as printed: Var(S) q² / (π²(p−q)²), Var(S) = nπ(1−π)
    assert math.isclose(
        fq.thm35_paper_difference(g, pi, p, q), n * pi * (1 - pi) * q * q / (pi * pi * (p - q) ** 2), rel_tol=1e-13
    )
    # the exact Thm 3.5 difference is π(1−π)Σ_j q(q − 2r_j)/(π²(p−q)²) < 0 for π < 1
    r = np.array([p, p] + [q] * 5)
    exact = pi * (1 - pi) * float((q * (q - 2 * r)).sum()) / (pi * pi * (p - q) ** 2)
    assert math.isclose(fq.exact_thm35_difference(g, p, q), exact, rel_tol=1e-10)
    assert fq.exact_thm35_difference(g, p, q) < 0


# --------------------------------------------------------------------------- bad input: one clear message
P_, Q_ = de_probabilities(1.0, 3)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: fq.c_de([1], 3, Q_, P_), r"need 0 <= q < p <= 1"),
        (lambda: fq.g_de([1], 3, 0.0, P_, Q_), r"^pi must be a probability in \(0, 1\]"),
        (lambda: fq.g_de([1], 3, 1.5, P_, Q_), r"^pi must be"),
        (lambda: fq.c_hat([1], [2], 0.0, P_, Q_), r"^pi must be a probability in \(0, 1\]"),
        (lambda: fq.c_hat([1], [2], 0.5, Q_, P_), r"need 0 <= q < p"),
        (lambda: fq.t_estimator([1], 3, 0.0, P_, Q_), r"^sum_pi must be > 0"),
        (lambda: fq.t_estimator([1], 3, 1.0, Q_, P_), r"need 0 <= q < p"),
        (lambda: fq.uniform_groups(0, 0, 0.5), r"^n must be"),
        (lambda: fq.uniform_groups(3, 4, 0.5), r"^n_i must be an integer in \[0, 3\]"),
        (lambda: fq.uniform_groups(3, 1, 0.0), r"^pi must be a probability in \(0, 1\]"),
        (lambda: fq.groups([1, 2], [0.5], [True, False]), r"equal length"),
        (lambda: fq.groups([[1]], [[0.5]], [[True]]), r"equal length"),
        (lambda: fq.groups([1, -1], [0.5, 0.5], [True, False]), r"^group size must be"),
        (lambda: fq.groups([1, 1], [0.5, 1.5], [True, False]), r"^pi must be"),
        (lambda: fq.groups([1, 1], [0.0, 0.0], [True, False]), r"at least one node with pi > 0"),
        (lambda: fq.groups([0, 0], [0.5, 0.5], [True, False]), r"at least one node with pi > 0"),
        (lambda: fq.groups_from_nodes(np.array([0, 1]), np.array([0.5]), 0), r"equal length"),
        (lambda: fq.draw_counts_iid([2], [0.5], 1.5, P_, Q_, np.random.default_rng(0), 3), r"^f_i must be"),
        (lambda: fq.draw_counts_srswor(0, 0, 1, P_, Q_, np.random.default_rng(0), 3), r"^n must be"),
        (lambda: fq.draw_counts_srswor(5, 6, 1, P_, Q_, np.random.default_rng(0), 3), r"^n_i must be"),
        (
            lambda: fq.draw_counts_srswor(5, 2, 6, P_, Q_, np.random.default_rng(0), 3),
            r"^B must be an integer in \[1, 5\]",
        ),
        (lambda: fq.draw_counts_srswor(5, 2, 0, P_, Q_, np.random.default_rng(0), 3), r"^B must be"),
        (lambda: fq.exact_moments("nope", fq.uniform_groups(4, 1, 0.5), P_, Q_), r"kind must be one of"),
        (lambda: fq.exact_moments("c_hat", fq.groups([1, 3], [0.2, 0.5], [True, False]), P_, Q_), r"uniform sampling"),
        (lambda: fq.exact_moments("g_de", fq.groups([3, 1], [0.2, 0.5], [True, False]), P_, Q_), r"uniform sampling"),
        (lambda: fq.exact_moments("T", fq.uniform_groups(4, 1, 0.5), Q_, P_), r"need 0 <= q < p"),
        (lambda: fq.optimal_design(0, 1.0, P_, Q_), r"^n must be"),
        (lambda: fq.optimal_design(5, 0.0, P_, Q_), r"^B must be in \(0, n\]"),
        (lambda: fq.optimal_design(5, 5.5, P_, Q_), r"^B must be in \(0, n\]"),
        (lambda: fq.optimal_design(5, 2.0, Q_, P_), r"need 0 <= q < p"),
        (lambda: fq.figure3_data(n=0), r"^n must be"),
        (lambda: fq.figure3_data(n=10, m=1), r"^m must be"),
        (lambda: fq.figure3_data(n=10, m=3, eps=0.0), r"eps"),
        (lambda: fq.figure3_data(n=10, m=3, replicates=5), r"^replicates must be"),
        (lambda: fq.figure3_data(n=10, m=3, pis=(0.0,)), r"^pi must be"),
    ],
)
def test_bad_input_is_one_clear_error(call, match):
    from privcheck.base.errors import PrivcheckUsageError

    with pytest.raises(PrivcheckUsageError, match=match):
        call()


def test_edge_designs():
    # π = 1 is allowed (census); n_i = 0 and n_i = n are allowed
    g = fq.uniform_groups(3, 3, 1.0)
    assert g.n == 3 and g.n_i == 3 and g.sum_pi == 3.0 and g.sum_pi2 == 3.0
    assert fq.uniform_groups(3, 0, 0.5).n_i == 0
    assert fq.c_hat([3], [3], 1.0, P_, Q_)[0] == pytest.approx((3 - 3 * Q_) / (P_ - Q_), rel=1e-15)
    # q = 0 (p = 1): every sampled holder reports I; c_DE is the count itself
    assert fq.c_de([2], 5, 1.0, 0.0)[0] == 2.0
    # a group with π = 0 contributes nothing to the draws
    g0 = fq.groups([4, 3], [0.0, 1.0], [True, False])
    C, S = fq.draw_counts(g0, P_, Q_, np.random.default_rng(1), 50)
    assert np.all(S == 3)
    # fixed-size sampling of everybody / of all holders
    C, S = fq.draw_counts_srswor(4, 4, 4, 1.0, 0.0, np.random.default_rng(2), 20)
    assert np.all(C == 4) and np.all(S == 4)
    C, S = fq.draw_counts_srswor(4, 0, 2, 1.0, 0.0, np.random.default_rng(2), 20)
    assert np.all(C == 0) and np.all(S == 2)
    # n = 1: no finite-population correction (n − 1 = 0)
    assert fq.exact_moments_srswor(1, 1, 1, P_, Q_) == pytest.approx((1.0, P_ * (1 - P_) / (P_ - Q_) ** 2))
    # B < 1: the fixed-size comparison samples one node
    dc = fq.optimal_design(10, 0.4, P_, Q_)
    assert dc.var_srswor == pytest.approx(100 * Q_ * (1 - Q_) / (P_ - Q_) ** 2, rel=1e-14)
    assert dc.var_optimum == pytest.approx(fq.var_star_T(10, [0.4] + [0.0] * 9, P_, Q_), rel=1e-14)
    assert (dc.n, dc.B, dc.q) == (10, 0.4, Q_)


def test_single_node_and_full_designs():
    g = fq.uniform_groups(1, 1, 0.5)
    assert g.n == 1 and fq.exact_moments("c_hat", g, P_, Q_)[0] == pytest.approx(1.0, rel=1e-12)
    assert fq.t_estimator([1], 2, 0.5, P_, Q_)[0] == pytest.approx(2 * (1 - 0.5 * Q_) / (0.5 * (P_ - Q_)), rel=1e-14)
    C, S = fq.draw_counts_srswor(1, 1, 1, 1.0, 0.0, np.random.default_rng(0), 5)
    assert C.tolist() == [1] * 5 and S.tolist() == [1] * 5
    dc = fq.optimal_design(1, 1.0, P_, Q_)
    assert dc.var_optimum == pytest.approx(dc.var_uniform, rel=1e-14)
    dc = fq.optimal_design(5, 5.0, P_, Q_)  # B = n: everybody reports, all designs coincide
    assert dc.var_optimum == pytest.approx(dc.var_uniform, rel=1e-14) and dc.ratio_formula == pytest.approx(1.0)
    # n = 2: the finite-population correction (n − B)/(n − 1) of the hypergeometric count
    em, ev = fq.exact_moments_srswor(2, 1, 1, P_, Q_)
    a = 2 / (P_ - Q_)  # holder drawn w.p. ½: C ~ ½ Bern(p) + ½ Bern(q)
    r = (P_ + Q_) / 2
    assert em == pytest.approx(1.0, rel=1e-12) and ev == pytest.approx(a * a * r * (1 - r), rel=1e-12)


def test_srswor_with_one_holder_samples_it():
    # n_i = 1: the holder is among the B sampled w.p. B/n (hypergeometric), never "not at all"
    C, S = fq.draw_counts_srswor(4, 1, 2, 1.0, 0.0, np.random.default_rng(9), 4_000)
    assert abs(C.mean() - 0.5) < 0.05 and set(np.unique(C)) == {0, 1}


def test_tv_distance_and_figure3_wiring():
    assert fq.tv_distance([[2, 2], [4, 0]], 4, [0.5, 0.5]).tolist() == [0.0, 0.5]
    assert float(fq.tv_distance([3, 1], 4, [0.5, 0.5])) == 0.25  # one distribution: the last axis
    # with ε large (q ≈ 0) and π = 1 every node reports its own value: the estimates are the counts
    d = fq.figure3_data(n=300, m=4, eps=40.0, pis=(1.0,), replicates=10, seed=3)
    assert d.tv_chat == [pytest.approx(0.0, abs=1e-12)] and d.tv_gde == [pytest.approx(0.0, abs=1e-12)]
    assert d.cost_expected == [300.0] and d.cost_simulated == [300.0]
    assert d.params["n"] == 300 and d.params["m"] == 4 and d.replicates == 10
    # moderate ε: TV falls with π, cost grows as nπ; ĉ_DE and g_DE agree in law to within noise
    d = fq.figure3_data(n=3000, m=5, eps=1.0, pis=(0.1, 0.9), replicates=40, seed=4)
    assert d.cost_expected == [pytest.approx(300.0), pytest.approx(2700.0)]
    assert d.cost_simulated[0] == pytest.approx(300, abs=30) and d.cost_simulated[1] == pytest.approx(2700, abs=30)
    assert d.tv_chat_interval[1][1] < d.tv_chat_interval[0][0] and d.tv_gde_interval[1][1] < d.tv_gde_interval[0][0]
    for tv, (lo, hi) in zip(d.tv_chat + d.tv_gde, d.tv_chat_interval + d.tv_gde_interval):
        assert 0 < lo <= tv <= hi < 1
    # the expected TV at π = 0.9 is of the order of the estimator's spread: Σ_v sd_v/n·√(2/π) / 2
    p, q = de_probabilities(1.0, 5)
    f = d.params  # data: Binomial(100, 0.5) clipped to m − 1 = 4, i.e. (almost) all mass at value 4
    sd = math.sqrt(3000 * (q - q * q * 0.9) / ((p - q) ** 2 * 0.9))  # Var* of a value nobody holds
    assert 0.5 * 4 * sd / 3000 * math.sqrt(2 / math.pi) * 0.5 < d.tv_gde[1] < 0.5 * 5 * 3 * sd / 3000
    assert f["p"] == p and f["q"] == q


def test_figure3_defaults_are_the_papers_setting_and_seeding_is_pinned():
    import inspect

    from privcheck.base.seeding import derive

    sig = inspect.signature(fq.figure3_data).parameters
    assert (sig["n"].default, sig["m"].default, sig["replicates"].default) == (50_000, 100, 200)  # 003 Sec. 4
    assert sig["eps"].default == 1.0 and sig["seed"].default == 0 and sig["confidence"].default == 0.95
    assert tuple(sig["pis"].default) == (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
    d = fq.figure3_data(n=200, m=4, eps=1.0, pis=(0.5,), replicates=10, seed=7)
    # one seed → one result (golden values of this seed; a change of the seeding scheme must be deliberate)
    assert d.tv_chat == [pytest.approx(0.2165244192763521, rel=1e-12)]
    assert d.tv_gde == [pytest.approx(0.2431813911693645, rel=1e-12)] and d.cost_simulated == [pytest.approx(99.2)]
    e = fq.figure3_data(n=200, m=4, eps=1.0, pis=(0.5,), replicates=10, seed=derive(7, "figure3"))
    assert e.tv_chat == d.tv_chat  # an int seed is the SeedSequence derive(seed, "figure3")
    assert d.pis == [0.5] and d.confidence == 0.95 and d.params["eps"] == 1.0
    assert "Binomial(100, 0.5)" in d.params["data"] and "tv" in d.params
    tv_c, tv_g = d.tv_samples[0.5]
    assert len(tv_c) == len(tv_g) == 10 and float(np.mean(tv_c)) == pytest.approx(d.tv_chat[0], rel=1e-12)
    assert fq.figure3_data(n=50, m=2, pis=(0.5,), replicates=10).params["m"] == 2  # two values allowed


def test_figure3_default_call_is_the_papers_setting():
    d = fq.figure3_data(pis=(0.5,))  # defaults: n = 50,000, domain 100, 200 replicates, ε = 1, seed 0
    assert (d.params["n"], d.params["m"], d.replicates, d.params["eps"]) == (50_000, 100, 200, 1.0)
    assert d.confidence == 0.95 and d.tv_chat == [pytest.approx(1.4714630431321474, rel=1e-12)]
    lo, hi = d.tv_chat_interval[0]
    narrow = fq.figure3_data(n=500, m=5, pis=(0.5,), replicates=30, seed=2, confidence=0.5)
    wide = fq.figure3_data(n=500, m=5, pis=(0.5,), replicates=30, seed=2, confidence=0.99)
    for a, b in (
        (narrow.tv_chat_interval[0], wide.tv_chat_interval[0]),
        (narrow.tv_gde_interval[0], wide.tv_gde_interval[0]),
    ):
        assert b[0] < a[0] < a[1] < b[1]  # the intervals use the confidence asked for


@pytest.mark.parametrize("p,q", [(0.3, 0.3), (1.5, 0.2), (0.5, -0.1)])
def test_degenerate_direct_encoding_parameters_are_rejected(p, q):
    from privcheck.base.errors import PrivcheckUsageError

    with pytest.raises(PrivcheckUsageError, match="need 0 <= q < p <= 1"):
        fq.c_de([1], 3, p, q)
