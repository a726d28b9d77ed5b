"""FedSel selectors (EXP, PE, PS) and the two-stage update: exact ε, enumeration, samplers, validation."""

from __future__ import annotations

import math
import time

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from estimators import fedsel_selection as fs
from estimators import two_stage as ts
from estimators.registry import mechanism
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.exact import worst_case_ratio

mpmath.mp.dps = max(mpmath.mp.dps, 50)


def _chi2_pvalue(samples: np.ndarray, outputs: list, probs: list[float]) -> float:
    counts = np.array([np.count_nonzero(samples == o) for o in outputs], dtype=float)
    assert counts.sum() == samples.size, "sampler produced an output outside the support"
    expected = np.asarray(probs, dtype=float) * samples.size
    return float(stats.chisquare(counts, expected * counts.sum() / expected.sum()).pvalue)


# --------------------------------------------------------------------------- EXP


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_exp_exact_equals_closed_form(eps):
    ex = fs.exp_exact_epsilon(7, eps)
    assert ex.eps == pytest.approx(fs.exp_claimed_epsilon(eps), rel=1e-14)
    assert mpmath.almosteq(mpmath.mpf(ex.eps_text), mpmath.mpf(eps), rel_eps=mpmath.mpf(10) ** -35)
    z, z2 = ex.worst_pair
    assert z[ex.worst_output] == 7 and z2[ex.worst_output] == 1


@pytest.mark.parametrize("d", [2, 3, 4, 5])
def test_exp_enumeration_over_all_rankings_agrees(d):
    enum = worst_case_ratio(fs.exp_enumerated_table(d, 1.3))
    sym = fs.exp_exact_epsilon(d, 1.3)
    assert mpmath.almosteq(mpmath.mpf(enum.eps_text), mpmath.mpf(sym.eps_text), rel_eps=mpmath.mpf(10) ** -35)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 30), st.floats(0.01, 8.0), st.randoms(use_true_random=False))
def test_exp_probabilities_property(d, eps, rnd):
    z = list(range(1, d + 1))
    rnd.shuffle(z)
    p = fs.exp_probabilities(z, eps)
    assert p.sum() == pytest.approx(1.0, rel=1e-12)
    assert p.max() / p.min() <= math.exp(eps) * (1 + 1e-12)
    assert np.argmax(p) == z.index(d)


def test_exp_sampler_matches_probabilities():
    m = mechanism("fedsel-exp", d=6, eps=2.0)
    z = np.array([3, 6, 1, 2, 5, 4])
    y = m.sample(z, 60_000, np.random.default_rng(11))
    assert _chi2_pvalue(y, list(range(6)), list(fs.exp_probabilities(z, 2.0))) > 1e-4


# --------------------------------------------------------------------------- PE


def test_pe_closed_form_d2_and_refutes_lemma2():
    # d = 2, k = 1: |S| given ż_j = 1 is 1 + Bern(1−p) (z_j = 1) or 1 + Bern(p) (z_j = 0), so
    # P(j | z_j=1) = p(1+p)/2, P(j | z_j=0) = (1−p)(2−p)/2 and ε = ε1 + log((1+p)/(2−p)) > ε1.
    eps = 1.0
    p = mpmath.e / (mpmath.e + 1)
    expected = eps + mpmath.log((1 + p) / (2 - p))
    ex = fs.pe_exact_epsilon(2, 1, eps)
    assert mpmath.almosteq(mpmath.mpf(ex.eps_text), expected, rel_eps=mpmath.mpf(10) ** -35)
    assert ex.eps > fs.pe_claimed_epsilon(eps) + 0.3
    assert ex.worst_pair == ((1, 0), (0, 1)) and ex.worst_output == 0


@pytest.mark.parametrize("d,k", [(2, 1), (3, 1), (3, 2), (4, 1), (4, 2), (4, 3), (5, 1), (5, 2), (5, 3), (5, 4)])
def test_pe_enumeration_over_all_inputs_agrees(d, k):
    enum = worst_case_ratio(fs.pe_enumerated_table(d, k, 0.8))
    sym = fs.pe_exact_epsilon(d, k, 0.8)
    assert mpmath.almosteq(mpmath.mpf(enum.eps_text), mpmath.mpf(sym.eps_text), rel_eps=mpmath.mpf(10) ** -35)
    assert sym.eps > 0.8


def test_pe_symmetry_matches_binomial_convolution():
    # independent of the quadrature: E[1/(1+X)] by the full pmf of X = Bin(a, p) + Bin(b, 1−p)
    d, k, eps = 150, 9, 1.5
    e = mpmath.exp(mpmath.mpf(eps))
    p, q = e / (e + 1), 1 / (e + 1)

    def inv_mean(a, pa, b, pb):
        fa = [mpmath.binomial(a, i) * pa**i * (1 - pa) ** (a - i) for i in range(a + 1)]
        fb = [mpmath.binomial(b, i) * pb**i * (1 - pb) ** (b - i) for i in range(b + 1)]
        return mpmath.fsum(x * y / (1 + i + j) for i, x in enumerate(fa) for j, y in enumerate(fb))

    top = p * inv_mean(k - 1, p, d - k, q)
    other = q * inv_mean(k, p, d - k - 1, q)
    got = fs.pe_output_probabilities(d, k, eps)
    assert mpmath.almosteq(got["top"], top, rel_eps=mpmath.mpf(10) ** -40)
    assert mpmath.almosteq(got["other"], other, rel_eps=mpmath.mpf(10) ** -40)


def test_pe_probabilities_sum_to_one_large_d():
    d, k = 100_000, 300
    pr = fs.pe_output_probabilities(d, k, 0.5)
    total = k * pr["top"] + (d - k) * pr["other"] + pr["bot"]
    assert abs(total - 1) < mpmath.mpf(10) ** -40


def test_pe_expected_sparsity():
    p = math.exp(2) / (math.exp(2) + 1)
    assert fs.pe_expected_sparsity(10, 3, 2.0) == pytest.approx(3 * p + 7 * (1 - p), rel=1e-14)


def test_pe_samplers_match_exact_law():
    d, k, eps = 5, 2, 1.0
    m = mechanism("fedsel-pe", d=d, k=k, eps=eps)
    z = (0, 1, 0, 1, 0)
    pr = fs.pe_output_probabilities(d, k, eps)
    outputs = [-1] + list(range(d))
    probs = [float(pr["bot"])] + [float(pr["top"] if z[j] else pr["other"]) for j in range(d)]
    fast = m.sample(z, 200_000, np.random.default_rng(3))
    literal = m.sample_literal(z, 100_000, np.random.default_rng(4))
    assert _chi2_pvalue(fast, outputs, probs) > 1e-4
    assert _chi2_pvalue(literal, outputs, probs) > 1e-4


def test_pe_sampler_detects_a_wrong_law():
    # the test above can fail: the law of PS at the same ε is rejected for PE's samples
    m = mechanism("fedsel-pe", d=5, k=2, eps=1.0)
    z = (0, 1, 0, 1, 0)
    y = m.sample(z, 200_000, np.random.default_rng(3))
    p = fs.ps_probability(5, 2, 1.0)
    probs = [1e-12] + [p / 2 if z[j] else (1 - p) / 3 for j in range(5)]
    assert _chi2_pvalue(y, [-1] + list(range(5)), probs) < 1e-6


# --------------------------------------------------------------------------- PS


@pytest.mark.parametrize("d,k,eps", [(5, 2, 1.0), (100, 10, 0.3), (50, 49, 4.0)])
def test_ps_exact_equals_claim(d, k, eps):
    ex = fs.ps_exact_epsilon(d, k, eps)
    assert ex.eps == pytest.approx(fs.ps_claimed_epsilon(eps), rel=1e-13)
    assert mpmath.almosteq(mpmath.mpf(ex.eps_text), mpmath.mpf(eps), rel_eps=mpmath.mpf(10) ** -35)


@pytest.mark.parametrize("d,k", [(3, 1), (4, 2), (5, 2), (5, 4)])
def test_ps_enumeration_agrees(d, k):
    for p in (None, 0.9):
        enum = worst_case_ratio(fs.ps_enumerated_table(d, k, 1.0, p))
        sym = fs.ps_exact_epsilon(d, k, 1.0, p)
        assert mpmath.almosteq(mpmath.mpf(enum.eps_text), mpmath.mpf(sym.eps_text), rel_eps=mpmath.mpf(10) ** -35)


def test_ps_broken_p_exceeds_nominal():
    m = mechanism("fedsel-ps", d=5, k=2, eps=1.0, p=0.9)
    ex = m.exact_epsilon()
    assert ex.eps == pytest.approx(math.log(0.9 * 3 / (0.1 * 2)), rel=1e-12)
    assert ex.eps > m.eps_nominal
    assert math.isinf(mechanism("fedsel-ps", d=5, k=2, eps=1.0, p=1.0).exact_epsilon().eps)


def test_ps_sampler_matches_probabilities():
    m = mechanism("fedsel-ps", d=6, k=2, eps=1.5)
    z = (1, 0, 0, 0, 1, 0)
    p = fs.ps_probability(6, 2, 1.5)
    y = m.sample(z, 60_000, np.random.default_rng(5))
    assert _chi2_pvalue(y, list(range(6)), [p / 2 if z[j] else (1 - p) / 4 for j in range(6)]) > 1e-4


# --------------------------------------------------------------------------- scale


@pytest.mark.parametrize(
    "name,k", [("fedsel-exp", 1), ("fedsel-pe", 1), ("fedsel-pe", 50_000), ("fedsel-pe", 99_999), ("fedsel-ps", 1000)]
)
def test_large_d_exact_is_fast(name, k):
    m = mechanism(name, d=100_000, k=k, eps=1.0)
    t0 = time.perf_counter()
    ex = m.exact_epsilon()
    elapsed = time.perf_counter() - t0
    assert elapsed < 1.0, f"{name} exact ε took {elapsed:.2f}s"
    assert 1.0 <= ex.eps < 1.001


def test_tiny_d_edge_cases():
    assert fs.pe_exact_epsilon(4, 4, 1.0).eps == 0.0
    assert fs.ps_exact_epsilon(4, 4, 1.0).eps == 0.0
    pr = fs.pe_output_probabilities(4, 4, 1.0)
    assert abs(4 * pr["top"] + pr["bot"] - 1) < mpmath.mpf(10) ** -40


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "name,params,word",
    [
        ("fedsel-pe", dict(d=5, k=2, eps=0.0), "eps"),
        ("fedsel-pe", dict(d=5, k=2, eps=-1.0), "eps"),
        ("fedsel-pe", dict(d=5, k=2, eps=float("nan")), "eps"),
        ("fedsel-pe", dict(d=5, k=6, eps=1.0), "k"),
        ("fedsel-ps", dict(d=5, k=0, eps=1.0), "k"),
        ("fedsel-exp", dict(d=1, eps=1.0), "d"),
        ("fedsel-ps", dict(d=5, k=2, eps=1.0, p=1.5), "p"),
        ("fedsel-ps", dict(d=5, k=2, eps=1.0, p=float("nan")), "p"),
        ("fedsel-ps", dict(d=5, k=5, eps=1.0, p=0.5), "p"),
        ("fedsel-two-stage", dict(d=5, k=2, eps1=1.0, eps2=0.0), "eps2"),
        ("fedsel-two-stage", dict(d=5, k=2, eps1=1.0, eps2=1.0, selector="top"), "selector"),
    ],
)
def test_invalid_parameters_raise(name, params, word):
    with pytest.raises(PrivcheckUsageError) as err:
        mechanism(name, **params)
    msg = str(err.value)
    assert word in msg and "\n" not in msg


def test_invalid_inputs_raise():
    rng = np.random.default_rng(0)
    with pytest.raises(PrivcheckUsageError, match="permutation"):
        mechanism("fedsel-exp", d=3, eps=1.0).sample([1, 1, 3], 5, rng)
    with pytest.raises(PrivcheckUsageError, match="exactly k=2"):
        mechanism("fedsel-pe", d=4, k=2, eps=1.0).sample([1, 0, 0, 0], 5, rng)
    with pytest.raises(PrivcheckUsageError, match="0, 1"):
        mechanism("fedsel-ps", d=4, k=2, eps=1.0).sample([2, 0, 0, 0], 5, rng)
    with pytest.raises(PrivcheckUsageError, match="finite"):
        mechanism("fedsel-two-stage", d=3, k=1).sample([0.0, float("nan"), 1.0], 5, rng)


# --------------------------------------------------------------------------- two-stage


def test_ranking_and_status():
    v = [0.3, -2.0, 0.0, 0.3]
    assert fs.ranking_from_vector(v).tolist() == [2, 4, 1, 3]
    assert fs.topk_status(v, 2).tolist() == [0, 1, 0, 1]


@pytest.mark.parametrize("selector", ["exp", "pe", "ps"])
@pytest.mark.parametrize("d,k", [(2, 1), (3, 1), (3, 2)])
def test_two_stage_bruteforce_agrees(selector, d, k):
    enum = worst_case_ratio(ts.two_stage_enumerated_table(d, k, 1.0, 0.5, selector))
    ex = ts.two_stage_exact_epsilon(d, k, 1.0, 0.5, selector)
    assert mpmath.almosteq(mpmath.mpf(enum.eps_text), mpmath.mpf(ex.eps_text), rel_eps=mpmath.mpf(10) ** -30)


def test_two_stage_exact_vs_theorem1():
    for sel in ("exp", "ps"):
        ex = mechanism("fedsel-two-stage", d=50, k=5, eps1=0.5, eps2=1.5, selector=sel).exact_epsilon()
        assert ex.eps == pytest.approx(2.0, rel=1e-13)
    ex = mechanism("fedsel-two-stage", d=50, k=5, eps1=0.5, eps2=1.5, selector="pe").exact_epsilon()
    assert ex.eps == pytest.approx(fs.pe_exact_epsilon(50, 5, 0.5).eps + 1.5, rel=1e-13)
    assert ex.eps > 2.0


def test_two_stage_sampler():
    m = mechanism("fedsel-two-stage", d=4, k=1, eps1=0.2, eps2=1.0, selector="pe")
    v = np.array([0.5, -3.0, 0.1, -0.2])
    out = m.sample(v, 100_000, np.random.default_rng(9))
    assert out.shape == (100_000, 2)
    idx, val = out[:, 0].astype(int), out[:, 1]
    assert np.all(np.isnan(val[idx == -1])) and not np.any(np.isnan(val[idx >= 0]))
    pr = fs.pe_output_probabilities(4, 1, 0.2)
    z = fs.topk_status(v, 1)
    probs = [float(pr["bot"])] + [float(pr["top"] if z[j] else pr["other"]) for j in range(4)]
    assert _chi2_pvalue(idx, [-1, 0, 1, 2, 3], probs) > 1e-4
    sel = val[idx == 1]  # value of coordinate 1 is clipped to −1 and PM is unbiased
    assert abs(sel.mean() + 1.0) < 5 * math.sqrt(8.0 / sel.size)
