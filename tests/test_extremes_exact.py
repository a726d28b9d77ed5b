"""Exact ε at the edges of ε (issue 10): tight mechanisms give exactly the claimed ε for ε in [1e-12, 1000].

Each property compares the library's exact ε with an independent mpmath
evaluation written here from the mechanism's definition (CLAIMS.md / the
papers), at twice the precision the library uses; the claim is tight for these
mechanisms, so both must equal ε to 1e-12 relative.
"""

from __future__ import annotations

import math

import mpmath
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import privcheck
from privcheck.base.exact import EXACT_EPS_MAX, ExactRangeError, digits_for

EPS = st.floats(min_value=-12.0, max_value=3.0).map(lambda x: 10.0**x)
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _dps(eps: float) -> int:
    return 2 * digits_for(eps)


def _mp(x: float) -> mpmath.mpf:
    return mpmath.mpf(x)


def _de_oracle(eps: float, m: int) -> mpmath.mpf:
    """log(P(out = x | x) / P(out = x | x')) of k-RR from Def. 2.3 of 003."""
    with mpmath.workdps(_dps(eps)):
        e = mpmath.exp(_mp(eps))
        p = e / (e + m - 1)
        q = (1 - p) / (m - 1)
        return mpmath.log(p / q)


def _duchi_oracle(eps: float) -> mpmath.mpf:
    with mpmath.workdps(_dps(eps)):
        e = mpmath.exp(_mp(eps))
        plus = lambda t: mpmath.mpf(1) / 2 + t * (e - 1) / (2 * (e + 1))  # noqa: E731
        return mpmath.log(plus(1) / plus(-1))


def _pm_oracle(eps: float) -> mpmath.mpf:
    """PM's high density over its low density: (p/(C−1)) / ((1−p)/(C+1))."""
    with mpmath.workdps(_dps(eps)):
        h = mpmath.exp(_mp(eps) / 2)
        c = (h + 1) / (h - 1)
        p = h / (h + 1)
        return mpmath.log((p / (c - 1)) / ((1 - p) / (c + 1)))


def _ps_oracle(eps: float, d: int, k: int) -> mpmath.mpf:
    with mpmath.workdps(_dps(eps)):
        e = mpmath.exp(_mp(eps))
        p = e * k / (d - k + e * k)
        return mpmath.log((p / k) / ((1 - p) / (d - k)))


def _exp_oracle(eps: float, d: int) -> mpmath.mpf:
    with mpmath.workdps(_dps(eps)):
        w = [mpmath.exp(_mp(eps) * i / (d - 1)) for i in range(1, d + 1)]
        s = mpmath.fsum(w)
        return mpmath.log((w[-1] / s) / (w[0] / s))


def _close(value: float, oracle: mpmath.mpf, eps: float) -> None:
    assert math.isclose(value, float(oracle), rel_tol=1e-12), (value, oracle)
    assert math.isclose(value, eps, rel_tol=1e-12), (value, eps)


@SETTINGS
@given(eps=EPS, m=st.integers(min_value=2, max_value=64))
def test_de_exact_equals_claim(eps, m):
    _close(privcheck.mechanism("de", m=m, eps=eps).exact_epsilon().eps, _de_oracle(eps, m), eps)


@SETTINGS
@given(eps=EPS)
def test_duchi_exact_equals_claim(eps):
    _close(privcheck.mechanism("duchi", eps=eps).exact_epsilon().eps, _duchi_oracle(eps), eps)


@SETTINGS
@given(eps=EPS)
def test_pm_exact_equals_claim(eps):
    _close(privcheck.mechanism("pm", eps=eps).exact_epsilon().eps, _pm_oracle(eps), eps)


@SETTINGS
@given(eps=EPS)
def test_hm_exact_equals_claim(eps):
    # atoms (Duchi part) and PM density both attain e^ε; α = 1 − e^{−ε/2} or 0
    oracle = _pm_oracle(eps) if eps > 0.61 else _duchi_oracle(eps)
    _close(privcheck.mechanism("hm", eps=eps).exact_epsilon().eps, oracle, eps)


@SETTINGS
@given(eps=EPS, d=st.integers(min_value=2, max_value=50), data=st.data())
def test_fedsel_ps_exact_equals_claim(eps, d, data):
    k = data.draw(st.integers(min_value=1, max_value=d - 1))
    _close(privcheck.mechanism("fedsel-ps", d=d, k=k, eps=eps).exact_epsilon().eps, _ps_oracle(eps, d, k), eps)


@SETTINGS
@given(eps=EPS, d=st.integers(min_value=2, max_value=50))
def test_fedsel_exp_exact_equals_claim(eps, d):
    _close(privcheck.mechanism("fedsel-exp", d=d, k=1, eps=eps).exact_epsilon().eps, _exp_oracle(eps, d), eps)


@SETTINGS
@given(eps=EPS, d=st.integers(min_value=1, max_value=8))
def test_pm_multidim_exact_equals_claim(eps, d):
    m = privcheck.mechanism("pm-multidim", d=d, eps=eps)
    assert math.isclose(m.exact_epsilon().eps, eps, rel_tol=1e-12)


@pytest.mark.parametrize("eps", [1e-300, 1e-12, 1.0, 100.0, 1000.0])
def test_laplace_and_pe_at_the_edges(eps):
    assert math.isclose(privcheck.mechanism("laplace", eps=eps).exact_epsilon().eps, eps, rel_tol=1e-12)
    # PE's exact ε exceeds ε1 (finding of 000 Lemma 2) but stays finite and positive at every ε
    pe = privcheck.mechanism("fedsel-pe", d=5, k=2, eps=eps).exact_epsilon().eps
    assert math.isfinite(pe) and pe > eps


def test_exact_range_is_refused_in_one_line():
    with pytest.raises(ExactRangeError, match="--no-exact"):
        privcheck.mechanism("de", eps=EXACT_EPS_MAX * 10).exact_epsilon()


def test_broken_mechanisms_stay_refuted_at_large_eps():
    # deliberately broken variants must keep their exact ε above the claim at the edges
    assert privcheck.mechanism("pm", eps=500.0, shift=0.5).exact_epsilon().eps == math.inf
    assert privcheck.mechanism("de", m=4, eps=300.0, p=0.5).exact_epsilon().eps > 0
    ps = privcheck.mechanism("fedsel-ps", d=5, k=2, eps=300.0, p=1.0).exact_epsilon().eps
    assert ps == math.inf


@pytest.mark.parametrize("name,params", [("pm", {}), ("duchi", {}), ("hm", {}), ("de", {"m": 4})])
@pytest.mark.parametrize("eps", [1e-12, 800.0, 1e6])
def test_samplers_work_or_refuse_at_the_edges(name, params, eps):
    import numpy as np

    m = privcheck.mechanism(name, eps=eps, **params)
    out = np.asarray(m.sample(m.inputs()[0], 1000, np.random.default_rng(0)), dtype=float)
    assert np.all(np.isfinite(out))
