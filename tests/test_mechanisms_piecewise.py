"""PM, Duchi, HM and multi-dimensional PM: exact ε, exact moments, samplers, validation."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from estimators import piecewise as pw
from estimators.registry import mechanism
from privcheck.base.errors import PrivcheckUsageError

mpmath.mp.dps = max(mpmath.mp.dps, 50)
TIGHT = mpmath.mpf(10) ** -35

eps_st = st.floats(0.05, 10.0)
t_st = st.floats(-1.0, 1.0)


# --------------------------------------------------------------------------- exact ε


@pytest.mark.parametrize("eps", [0.05, 0.5, 1.0, 2.0, 8.0])
def test_exact_eps_equals_closed_form(eps):
    for ex, claim in (
        (pw.pm_exact_epsilon(eps), pw.pm_claimed_epsilon(eps)),
        (pw.duchi_exact_epsilon(eps), pw.duchi_claimed_epsilon(eps)),
        (pw.hm_exact_epsilon(eps), pw.hm_claimed_epsilon(eps)),
    ):
        assert ex.eps == pytest.approx(claim, rel=1e-13)
        assert mpmath.almosteq(mpmath.mpf(ex.eps_text), mpmath.mpf(eps), rel_eps=TIGHT)


def test_pm_density_ratio_by_hand():
    # high density e^{ε/2}/((e^{ε/2}+1)(C−1)) vs low 1/((e^{ε/2}+1)(C+1)): ratio e^{ε/2}(C+1)/(C−1) = e^ε
    eps = 1.7
    c, p_high, dens_high = pw.pm_constants(eps)
    dens_low = (1 - p_high) / (c + 1)
    assert dens_high / dens_low == pytest.approx(math.exp(eps), rel=1e-13)


@pytest.mark.parametrize("shift", [1e-3, 0.2, -0.5, 7.0])
def test_pm_shift_breaks_privacy(shift):
    m = mechanism("pm", eps=1.0, shift=shift)
    ex = m.exact_epsilon()
    assert math.isinf(ex.eps) and ex.eps > m.eps_nominal
    # the witness: output beyond ±C under t = sign(shift)
    y = m.sample(math.copysign(1.0, shift), 20_000, np.random.default_rng(1))
    assert np.any(np.abs(y) > m.C)


def test_hm_regimes():
    assert pw.hm_alpha(0.6) == 0.0
    assert pw.hm_alpha(2.0) == pytest.approx(1 - math.exp(-1.0), rel=1e-14)
    assert "atom" in pw.hm_exact_epsilon(0.5).worst_output


@pytest.mark.parametrize("d,eps", [(1, 1.0), (5, 6.0), (3, 20.0), (10, 0.5)])
def test_multidim_exact(d, eps):
    m = mechanism("pm-multidim", d=d, eps=eps)
    assert m.k_prime == max(1, min(d, math.floor(eps / 2.5)))
    assert m.exact_epsilon().eps == pytest.approx(eps, rel=1e-13)


# --------------------------------------------------------------------------- moments


@settings(max_examples=40, deadline=None)
@given(t_st, eps_st)
def test_exact_means_unbiased_and_variances(t, eps):
    tol = mpmath.mpf(10) ** -30
    m, v = pw.pm_exact_moments(t, eps)
    assert abs(m - mpmath.mpf(t)) < tol * (1 + abs(v))
    assert float(v) == pytest.approx(pw.pm_variance(t, eps), rel=1e-10)
    m, v = pw.duchi_exact_moments(t, eps)
    assert abs(m - mpmath.mpf(t)) < tol * (1 + abs(v))
    assert float(v) == pytest.approx(pw.duchi_variance(t, eps), rel=1e-10)
    m, _ = pw.hm_exact_moments(t, eps)
    assert abs(m - mpmath.mpf(t)) < tol * (1 + abs(v))


def test_shifted_pm_is_biased():
    m, _ = pw.pm_exact_moments(0.3, 1.0, shift=0.5)
    assert abs(float(m) - 0.3) > 0.1


# --------------------------------------------------------------------------- samplers


@settings(max_examples=25, deadline=None)
@given(t_st, eps_st, st.integers(0, 2**32 - 1))
def test_pm_output_within_support(t, eps, seed):
    m = mechanism("pm", eps=eps)
    y = m.sample(t, 2000, np.random.default_rng(seed))
    assert np.all(np.abs(y) <= m.C * (1 + 1e-12))


def test_pm_sampler_matches_cell_probabilities():
    eps, t = 1.0, 0.3
    pieces, c = pw.pm_pieces(t, eps)
    cells = pw.piece_cells([pieces])
    edges = [float(y - w / 2) for y, w in cells] + [float(c)]
    probs = [float(pw.piece_density(pieces, y) * w) for y, w in cells]
    # refine each cell into 4 equal bins (uniform within a cell)
    fine_edges = np.concatenate([np.linspace(a, b, 5)[:-1] for a, b in zip(edges[:-1], edges[1:])] + [[edges[-1]]])
    fine_probs = np.repeat(probs, 4) / 4
    y = mechanism("pm", eps=eps).sample(t, 100_000, np.random.default_rng(7))
    counts, _ = np.histogram(y, bins=fine_edges)
    assert counts.sum() == y.size
    assert stats.chisquare(counts, fine_probs * y.size).pvalue > 1e-4
    # the same test rejects the law of a different input
    other, _ = pw.pm_pieces(-0.3, eps)
    wrong = [float(pw.piece_density(other, y0) * w) for y0, w in pw.piece_cells([pieces, other])]
    wedges = [float(y0 - w / 2) for y0, w in pw.piece_cells([pieces, other])] + [float(c)]
    counts, _ = np.histogram(y, bins=wedges)
    assert stats.chisquare(counts, np.asarray(wrong) * y.size).pvalue < 1e-6


def test_samplers_accept_one_input_per_draw():
    rng = np.random.default_rng(2)
    t = np.linspace(-1, 1, 50_000)
    for name in ("pm", "duchi", "hm"):
        y = mechanism(name, eps=2.0).sample(t, t.size, rng)
        assert y.shape == t.shape
        resid = y - t
        assert abs(resid.mean()) < 5 * resid.std() / math.sqrt(t.size)


def test_duchi_and_hm_samplers():
    rng = np.random.default_rng(4)
    m = mechanism("duchi", eps=1.0)
    y = m.sample(0.5, 100_000, rng)
    assert set(np.unique(y)) == {m.B, -m.B}
    p_plus = 0.5 + 0.5 * (math.e - 1) / (2 * (math.e + 1))
    assert stats.binomtest(int(np.sum(y > 0)), y.size, p_plus).pvalue > 1e-4
    h = mechanism("hm", eps=2.0)
    y = h.sample(-0.4, 100_000, rng)
    atoms = np.isclose(np.abs(y), pw.duchi_bound(2.0), rtol=0, atol=1e-12)
    assert stats.binomtest(int(atoms.sum()), y.size, 1 - h.alpha).pvalue > 1e-4
    _, var = pw.hm_exact_moments(-0.4, 2.0)
    assert abs(y.mean() + 0.4) < 5 * math.sqrt(float(var) / y.size)


def test_multidim_sampler():
    m = mechanism("pm-multidim", d=6, eps=5.5)
    t = np.array([-1.0, -0.5, 0.0, 0.2, 0.7, 1.0])
    y = m.sample(t, 100_000, np.random.default_rng(6))
    assert y.shape == (100_000, 6)
    assert m.k_prime == 2 and np.all(np.count_nonzero(y, axis=1) == 2)
    sd = np.sqrt((m.k_prime / 6) * (6 / 2) ** 2 * (pw.pm_variance(t, 5.5 / 2) + t * t) - t * t)
    assert np.all(np.abs(y.mean(axis=0) - t) < 5 * sd / math.sqrt(y.shape[0]))


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "name,params,word",
    [
        ("pm", dict(eps=0.0), "eps"),
        ("pm", dict(eps=float("nan")), "eps"),
        ("pm", dict(eps=1.0, shift=float("inf")), "shift"),
        ("duchi", dict(eps=-2.0), "eps"),
        ("hm", dict(eps=float("inf")), "eps"),
        ("pm-multidim", dict(d=0, eps=1.0), "d"),
    ],
)
def test_invalid_parameters_raise(name, params, word):
    with pytest.raises(PrivcheckUsageError) as err:
        mechanism(name, **params)
    assert word in str(err.value) and "\n" not in str(err.value)


def test_invalid_inputs_raise():
    rng = np.random.default_rng(0)
    with pytest.raises(PrivcheckUsageError, match=r"\[-1, 1\]"):
        mechanism("pm", eps=1.0).sample(1.5, 5, rng)
    with pytest.raises(PrivcheckUsageError, match=r"\[-1, 1\]"):
        mechanism("duchi", eps=1.0).sample(np.array([0.0, np.nan]), 2, rng)
    with pytest.raises(PrivcheckUsageError, match="shape"):
        mechanism("hm", eps=1.0).sample(np.zeros(3), 5, rng)
    with pytest.raises(PrivcheckUsageError, match="shape"):
        mechanism("pm-multidim", d=3, eps=1.0).sample(np.zeros(4), 5, rng)


@settings(max_examples=40, deadline=None)
@given(st.floats(0.01, 40.0))
def test_exact_eps_has_no_rounding_slivers(eps):
    # l(−1) = −C and r(1) = C must not leave sliver cells that only one input can reach
    assert pw.pm_exact_epsilon(eps).eps == pytest.approx(eps, rel=1e-12)
    assert pw.hm_exact_epsilon(eps).eps == pytest.approx(eps, rel=1e-12)
    assert mechanism("pm-multidim", d=4, eps=eps).exact_epsilon().eps == pytest.approx(eps, rel=1e-12)
