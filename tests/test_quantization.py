"""Tests of estimators/quantization.py: sqSGD's quantiser (eq. 5–6) and PrivQuant (Alg. 1, Thm 1)."""

from __future__ import annotations

import itertools
import math
import time
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from estimators import quantization as q
from estimators.registry import mechanism
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.exact import worst_case_ratio

# ----------------------------------------------------------------------------- quantiser


def test_grid_levels_eq5():
    assert np.allclose(q.grid_levels(5, 2.0), [-2, -1, 0, 1, 2])
    assert q.grid_levels_exact(4, 3) == [-3, -1, 1, 3]


def test_printed_rule_is_biased_and_corrected_is_not():
    # K = 3, U = 1, x = -1/2: k* = 1, printed round-up prob k*(x-B_1)/(2U) = 1/4
    k0, qp = q.quantize_exact(Fraction(-1, 2), 3, 1)
    assert (k0, qp) == (0, Fraction(1, 4))
    assert q.quantizer_mean_exact(Fraction(-1, 2), 3, 1) == Fraction(-3, 4)
    assert q.quantizer_mean_exact(Fraction(-1, 2), 3, 1, corrected=True) == Fraction(-1, 2)
    # K = 2 and the top bin: printed = corrected
    assert q.quantizer_mean_exact(Fraction(1, 3), 2, 1) == Fraction(1, 3)
    assert q.quantizer_mean_exact(Fraction(1, 2), 3, 1) == Fraction(1, 2)
    # x = U is reported as U
    assert q.quantize_exact(1, 4, 1) == (2, 1)


def test_float_mean_variance_match_exact():
    rng = np.random.default_rng(1)
    for K in (2, 3, 5, 16):
        xs = rng.uniform(-2, 2, 50)
        for corrected in (False, True):
            m = q.quantizer_mean(xs, K, 2.0, corrected)
            ex = [float(q.quantizer_mean_exact(Fraction(x), K, 2, corrected)) for x in xs]
            assert np.allclose(m, ex, rtol=0, atol=1e-12)
            v = q.quantizer_variance(xs, K, 2.0, corrected)
            k0, qq = q.quantize_probabilities(xs, K, 2.0, corrected)
            assert np.allclose(v, (4.0 / (K - 1)) ** 2 * qq * (1 - qq))
    # the corrected mean is the identity
    xs = np.linspace(-1, 1, 101)
    assert np.allclose(q.quantizer_mean(xs, 7, 1.0, True), xs, atol=1e-12)


def test_on_grid_points_stay_put():
    lv = q.grid_levels(7, 1.0)
    k0, qq = q.quantize_probabilities(lv, 7, 1.0)
    assert np.allclose(lv[k0] + qq * (lv[1] - lv[0]), lv)
    assert np.all((qq == 0) | (qq == 1))


def test_quantizer_sampler_frequencies():
    mech = mechanism("quantizer", d=3, K=4, U=1.0)
    x = np.array([-0.9, 0.2, 0.95])
    out = mech.sample(x, 40_000, np.random.default_rng(7))
    assert out.shape == (40_000, 3)
    k0, qq = q.quantize_probabilities(x, 4, 1.0)
    lv = q.grid_levels(4, 1.0)
    for j in range(3):
        up = np.mean(out[:, j] == lv[k0[j] + 1])
        assert np.mean((out[:, j] == lv[k0[j]]) | (out[:, j] == lv[k0[j] + 1])) == 1.0
        assert abs(up - qq[j]) < 5 * math.sqrt(qq[j] * (1 - qq[j]) / 40_000) + 1e-12
    assert mech.exact_epsilon().eps == math.inf
    assert mech.eps_nominal == math.inf


@settings(max_examples=60, deadline=None)
@given(
    K=st.integers(2, 12),
    U=st.floats(0.1, 50),
    corrected=st.booleans(),
    xs=st.lists(st.floats(-1, 1), min_size=1, max_size=6),
    seed=st.integers(0, 2**32 - 1),
)
def test_quantizer_output_on_grid(K, U, corrected, xs, seed):
    x = np.array(xs) * U
    mech = q.Quantizer(d=len(xs), K=K, U=U, corrected=corrected)
    out = mech.sample(x, 50, np.random.default_rng(seed))
    lv = q.grid_levels(K, U)
    assert np.all(np.isin(out, lv))
    # each output is one of the two ends of the bin of x
    k0, _ = q.quantize_probabilities(x, K, U, corrected)
    assert np.all((out == lv[k0]) | (out == lv[k0 + 1]))


# ----------------------------------------------------------------------------- closed forms


@pytest.mark.parametrize("p", [Fraction(1, 2), Fraction(3, 4), Fraction(9, 10)])
def test_lhs_eq8_small_closed_forms(p):
    odds = p / (1 - p)
    assert q.lhs_eq8(1, 2, 0, p, exact=True) == odds  # |S̄| = |S| = 1
    assert q.lhs_eq8(3, 2, 0, p, exact=True) == odds  # τ = 2: 4 and 4
    assert q.lhs_eq8(2, 3, 1, p, exact=True) == 8 * odds  # τ = 2: 1 and 8
    assert q.lhs_eq8(3, 4, 2, p, exact=True) == 63 * odds  # τ = 3: 1 and 63
    assert mpmath.almosteq(q.lhs_eq8(2, 3, 1, p), mpmath.mpf(8 * odds.numerator) / odds.denominator, 1e-45)


@pytest.mark.parametrize("K", [2, 3, 5])
def test_m_d1_closed_form(K):
    # d = 1: τ = 1, m = p − (1−p)/(K−1)
    p = Fraction(4, 5)
    assert q.normalising_factor_m(1, K, 0, p, exact=True) == p - (1 - p) / (K - 1)


def test_m_and_lhs_mpmath_match_exact():
    for d, K, kappa, p in [(7, 3, 2, Fraction(3, 4)), (20, 16, 5, Fraction(9, 10)), (40, 2, 13, Fraction(2, 3))]:
        for f in (q.normalising_factor_m, q.normalising_factor_m_appendix, q.lhs_eq8):
            ex = f(d, K, kappa, p, exact=True)
            mp = f(d, K, kappa, p)
            assert mpmath.almosteq(mp, mpmath.mpf(ex.numerator) / ex.denominator, rel_eps=mpmath.mpf(10) ** -40)


def test_m_matches_enumerated_expectation_and_appendix_does_not():
    d, K, kappa, p = 3, 3, 1, Fraction(3, 4)
    lv = q.grid_levels_exact(K, 1)
    u = (2, 0, 1)
    dist = q.privquant_distribution_bruteforce(u, K, kappa, p)
    assert sum(dist.values()) == 1
    e_v = [sum(pr * lv[v[j]] for v, pr in dist.items()) for j in range(d)]
    m = q.normalising_factor_m(d, K, kappa, p, exact=True)
    assert e_v == [m * lv[a] for a in u]
    m_app = q.normalising_factor_m_appendix(d, K, kappa, p, exact=True)
    assert m_app != m  # the broken variant must be distinguishable
    assert e_v[0] != m_app * lv[u[0]]


def test_tau_matches_definition():
    for d in range(1, 9):
        for kappa in range(d):
            tau = q.tau_of(d, kappa)
            assert tau == math.ceil((d + kappa + 1) / 2)
            # M > κ  ⟺  matches ≥ τ
            for match in range(d + 1):
                assert (2 * match - d > kappa) == (match >= tau)


# ----------------------------------------------------------------------------- exact ε


@pytest.mark.parametrize(
    "d,K,kappa,p",
    [
        (1, 2, 0, 0.75),
        (5, 3, 2, 0.75),
        (10, 4, 0, 0.6),
        (100, 16, 30, 0.9),
        (1000, 16, 500, 0.9),
        (1024, 2, 0, 0.6),
        (64, 128, 63, "0.999"),
    ],
)
def test_exact_eps_equals_log_lhs8(d, K, kappa, p):
    ex = q.privquant_exact_epsilon(d, K, kappa, p)
    ref = q.log_lhs_eq8(d, K, kappa, p)
    assert ex.eps_text[:30] == mpmath.nstr(ref, 40)[:30]
    assert ex.method == "symmetry"
    assert ex.worst_pair[0] == tuple([-1.0] * d) and ex.worst_output == ex.worst_pair[0]


def test_exact_eps_p_one_is_infinite():
    assert q.privquant_exact_epsilon(4, 3, 1, 1).eps == math.inf


@pytest.mark.parametrize("d,K", [(1, 2), (2, 2), (2, 3), (3, 2), (3, 3), (2, 4)])
def test_bruteforce_over_all_inputs_matches_symmetry(d, K):
    for kappa in range(d):
        for p in (Fraction(3, 5), Fraction(7, 8)):
            table = {
                u: q.privquant_distribution_bruteforce(u, K, kappa, p) for u in itertools.product(range(K), repeat=d)
            }
            brute = worst_case_ratio(table)
            sym = q.privquant_exact_epsilon(d, K, kappa, p)
            assert brute.eps_text[:30] == sym.eps_text[:30], (d, K, kappa, p)


def test_off_grid_inputs_do_not_exceed_grid_worst_case():
    d, K, kappa, p = 2, 3, 0, Fraction(4, 5)
    grid = {u: q.privquant_distribution_bruteforce(u, K, kappa, p) for u in itertools.product(range(K), repeat=d)}
    xs = [
        (Fraction(-1), Fraction(1)),
        (Fraction(-1, 3), Fraction(2, 5)),
        (Fraction(1), Fraction(-1)),
        (Fraction(1, 7), Fraction(-6, 7)),
    ]
    table = {}
    for x in xs:
        per = [q.quantize_exact(xj, K, 1) for xj in x]
        dist = {}
        for u, du in grid.items():
            w = Fraction(1)
            for j, (k0, qq) in enumerate(per):
                w *= qq if u[j] == k0 + 1 else (1 - qq) if u[j] == k0 else 0
            for v, pr in du.items():
                dist[v] = dist.get(v, 0) + w * pr
        table[x] = dist
    mixed = worst_case_ratio(table)
    sym = q.privquant_exact_epsilon(d, K, kappa, p)
    assert mixed.eps <= sym.eps + 1e-12
    assert math.isclose(mixed.eps, sym.eps, rel_tol=1e-12)  # (−1, 1) and (1, −1) are grid points


def test_all_match_pairs_achievable():
    for d in (1, 2, 4):
        for K in (2, 3):
            assert len(q.achievable_match_pairs(d, K)) == (d + 1) ** 2


def test_exact_eps_timing_d1000_k16():
    q._terms_mp.cache_clear()
    t0 = time.perf_counter()
    mech = mechanism("privquant", d=1000, K=16, kappa=400, p=0.9)
    ex = mech.exact_epsilon()
    assert time.perf_counter() - t0 < 1.0
    assert math.isfinite(ex.eps)


# ----------------------------------------------------------------------------- calibration


def test_calibrate_picks_largest_kappa():
    for eps, d, K in [(4.0, 16, 2), (8.0, 4, 4), (400.0, 1024, 2), (2.0, 8, 2)]:
        cal = q.calibrate(eps, d, K)
        assert cal.feasible
        assert math.isclose(cal.p, math.exp(0.1 * eps) / (1 + math.exp(0.1 * eps)))
        assert q.log_lhs_eq8(d, K, cal.kappa, cal.p_mp) <= 0.9 * eps
        if cal.kappa < d - 1:
            assert q.log_lhs_eq8(d, K, cal.kappa + 1, cal.p_mp) > 0.9 * eps


def test_calibrate_infeasible_at_paper_setting():
    cal = q.calibrate(400.0, 1024, 16)  # LeNet d~ = 1024, K = 16, eps = 400 (Fig. 2)
    assert not cal.feasible and cal.kappa is None
    assert cal.min_log_lhs > 360
    with pytest.raises(PrivcheckUsageError):
        mechanism("privquant", d=1024, K=16, eps=400)


def test_calibrated_p_keeps_precision():
    cal = q.calibrate(2000.0, 64, 2)
    assert cal.p == 1.0  # as a float
    with mpmath.workdps(50):
        assert mpmath.almosteq(mpmath.log(cal.p_mp / (1 - cal.p_mp)), 200, rel_eps=mpmath.mpf(10) ** -40)
    mech = mechanism("privquant", d=64, K=2, eps=2000)
    assert math.isfinite(mech.exact_epsilon().eps)


# ----------------------------------------------------------------------------- sampler


def _exact_output_probs(mech, x):
    """Exact P(levels = v | x) (Fractions) for a small mechanism, quantiser included."""
    per = [q.quantize_exact(Fraction(float(xj)), mech.K, Fraction(mech.U), mech.corrected) for xj in x]
    probs = {}
    p = Fraction(mech.p)
    for u in itertools.product(range(mech.K), repeat=mech.d):
        w = Fraction(1)
        for j, (k0, qq) in enumerate(per):
            w *= qq if u[j] == k0 + 1 else (1 - qq) if u[j] == k0 else 0
        if w:
            for v, pr in q.privquant_distribution_bruteforce(u, mech.K, mech.kappa, p).items():
                probs[v] = probs.get(v, 0) + w * pr
    return probs


@pytest.mark.parametrize("x", [np.array([-1.0, 1.0]), np.array([0.25, -0.6])])
def test_privquant_sampler_chisquare(x):
    mech = mechanism("privquant", d=2, K=3, kappa=1, p=0.75, output="levels")
    n = 30_000
    out = mech.sample(x, n, np.random.default_rng(123))
    probs = _exact_output_probs(mech, x)
    keys = sorted(probs)
    codes = out[:, 0] * 3 + out[:, 1]
    obs = np.bincount(codes, minlength=9)
    exp = np.array([float(probs[k]) for k in keys]) * n
    assert chisquare(obs, exp).pvalue > 1e-3
    # a mis-specified p would be caught at this sample size
    wrong = mechanism("privquant", d=2, K=3, kappa=1, p=0.6, output="levels")
    obs_w = np.bincount((lambda o: o[:, 0] * 3 + o[:, 1])(wrong.sample(x, n, np.random.default_rng(123))), minlength=9)
    assert chisquare(obs_w, exp).pvalue < 1e-6


def test_privquant_match_count_distribution_d50():
    d, K, kappa, p = 50, 4, 10, 0.8
    mech = mechanism("privquant", d=d, K=K, kappa=kappa, p=p, output="levels")
    x = np.where(np.arange(d) % 2 == 0, -1.0, 1.0)  # on the grid
    n = 20_000
    out = mech.sample(x, n, np.random.default_rng(5))
    xl = np.rint((x + 1) * (K - 1) / 2).astype(int)  # level indices of x
    matches = (out == xl[None, :]).sum(axis=1)
    assert np.array_equal(matches, mech.match_counts(out, x))
    zmech = mechanism("privquant", d=d, K=K, kappa=kappa, p=p)
    lv7 = mech.sample(x, 7, np.random.default_rng(9))
    assert np.array_equal(
        zmech.match_counts(zmech.sample(x, 7, np.random.default_rng(9)), x), (lv7 == xl[None, :]).sum(axis=1)
    )
    terms, _, _ = q._terms_mp(d, K)
    tau = q.tau_of(d, kappa)
    up, low = q.binomial_sums(d, K, tau)
    pl = np.array([float(p * t / up) if ell >= tau else float((1 - p) * t / low) for ell, t in enumerate(terms)])
    obs = np.bincount(matches, minlength=d + 1)
    # pool cells with small expectations
    exp = pl * n
    keep = exp >= 5
    o = np.append(obs[keep], obs[~keep].sum())
    e = np.append(exp[keep], exp[~keep].sum())
    assert chisquare(o, e).pvalue > 1e-3
    # non-matching coordinates are uniform over the K-1 other levels
    diff = (out - xl[None, :]) % K
    nz = diff[diff != 0]
    assert chisquare(np.bincount(nz, minlength=K)[1:]).pvalue > 1e-3


def test_privquant_output_modes_and_unbiased_mean():
    kw = dict(d=6, K=4, kappa=2, p=0.9, U=2.0, corrected=True)
    x = np.array([-2.0, -1.1, 0.0, 0.4, 1.5, 2.0])
    z = mechanism("privquant", **kw).sample(x, 60_000, np.random.default_rng(3))
    v = mechanism("privquant", output="V", **kw).sample(x, 10, np.random.default_rng(3))
    lv = mechanism("privquant", output="levels", **kw)
    assert z.shape == (60_000, 6)
    assert np.all(np.isin(v, q.grid_levels(4, 2.0)))
    z10 = mechanism("privquant", **kw).sample(x, 10, np.random.default_rng(3))
    assert np.allclose(z10 * lv.m, v)  # same seed, same draws: Z = V/m
    assert np.array_equal(mechanism("privquant", **kw).to_levels(z10), lv.sample(x, 10, np.random.default_rng(3)))
    se = z.std(axis=0) / math.sqrt(len(z))
    assert np.all(np.abs(z.mean(axis=0) - x) < 5 * se)


@settings(max_examples=25, deadline=None)
@given(d=st.integers(1, 2), K=st.integers(2, 4), data=st.data())
def test_expected_z_equals_xhat_exactly(d, K, data):
    kappa = data.draw(st.integers(0, d - 1))
    num = data.draw(st.integers(51, 99))
    p = Fraction(num, 100)
    U = Fraction(data.draw(st.integers(1, 5)))
    m = q.normalising_factor_m(d, K, kappa, p, exact=True)
    lv = q.grid_levels_exact(K, U)
    u = tuple(data.draw(st.integers(0, K - 1)) for _ in range(d))
    dist = q.privquant_distribution_bruteforce(u, K, kappa, p)
    ez = [sum(pr * lv[v[j]] for v, pr in dist.items()) / m for j in range(d)]
    assert ez == [lv[a] for a in u]


# ----------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "kw",
    [
        dict(d=4, K=1, kappa=0, p=0.8),
        dict(d=0, K=2, kappa=0, p=0.8),
        dict(d=4, K=2, kappa=4, p=0.8),
        dict(d=4, K=2, kappa=-1, p=0.8),
        dict(d=4, K=2, kappa=0, p=0.3),
        dict(d=4, K=2, kappa=0, p=1.5),
        dict(d=4, K=2, kappa=0, p=0.8, U=-1),
        dict(d=4, K=2, kappa=0),
        dict(d=4, K=2),
        dict(d=3, K=2, kappa=0, p=0.5),
        dict(d=4, K=2, kappa=0, p=0.8, output="bits"),
        dict(d=4, K=2, kappa=0, p="abc"),
        dict(d=4, K=2, kappa=0, p=0.8, eps=-1),
    ],
)
def test_invalid_parameters_one_line(kw):
    with pytest.raises(PrivcheckUsageError) as e:
        mechanism("privquant", **kw)
    assert "\n" not in str(e.value)


def test_invalid_inputs_one_line():
    mech = mechanism("privquant", d=3, K=2, kappa=1, p=0.8)
    for x in (np.array([0.0, 2.0, 0.0]), np.zeros(4), np.array([np.nan, 0, 0])):
        with pytest.raises(PrivcheckUsageError) as e:
            mech.sample(x, 5, np.random.default_rng(0))
        assert "\n" not in str(e.value)
    with pytest.raises(PrivcheckUsageError):
        mechanism("quantizer", d=2, K=3, corrected="yes")
    with pytest.raises(PrivcheckUsageError):
        q.quantize_exact(2, 3, 1)


def test_inputs_contain_worst_pair():
    small = mechanism("privquant", d=2, K=3, kappa=0, p=0.8)
    assert len(small.inputs()) == 9
    big = mechanism("privquant", d=100, K=16, kappa=0, p=0.8)
    ins = big.inputs()
    assert np.all(ins[0] == -1.0) and np.all(ins[1] == 1.0)
    assert big.eps_nominal == big.exact_epsilon().eps
    named = mechanism("privquant", d=100, K=16, kappa=0, p=0.8, eps=800.0)
    assert named.eps_nominal == 800.0
