"""Certified canary-score bounds: published formulas in mpmath as oracles, null scores, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.stats import clopper_pearson
from privcheck.canaries import audit_scores, one_run_bound
from privcheck.canaries.binary import certify_point, direction_counts
from privcheck.canaries.curves import table_from_function
from privcheck.canaries.fdp import dp_family, gdp_family, reject_many, sup_rejected
from privcheck.canaries.reference import ref_cp_eps, ref_cp_upper, ref_fdp_sup, ref_gdp_mu, ref_steinke_eps
from privcheck.canaries.steinke import steinke_eps


@pytest.mark.parametrize(
    "r,v,m,delta,alpha",
    [(100, 100, 100, 1e-5, 0.05), (300, 200, 600, 1e-5, 0.05), (200, 180, 1000, 1e-4, 1e-3), (50, 30, 50, 0.0, 0.05)],
)
def test_one_run_never_above_the_published_formula_and_within_1e9(r, v, m, delta, alpha):
    ours = steinke_eps(r, v, m, delta, alpha)
    ref = float(ref_steinke_eps(r, v, m, delta, alpha))
    assert ours <= ref
    assert ours >= ref * (1 - 1e-9) - 1e-12


def test_one_run_delta0_is_the_logit_of_the_clopper_pearson_limit():
    b = one_run_bound(1000, 700, confidence=0.95)
    lim = clopper_pearson(700, 1000, 0.05, "lower")
    assert b.eps_lower <= math.log(lim / (1 - lim))
    assert b.eps_lower == pytest.approx(math.log(lim / (1 - lim)), rel=1e-12)
    assert b.eps_max == pytest.approx(one_run_bound(1000, 1000).eps_lower)


def test_one_run_at_many_guesses_is_exact_in_log_space():
    # 10^5 guesses: the binomial coefficients (~10^29000) are far outside the float range, so only log-space
    # arithmetic passes. (10^9 guesses took 25 min of the CI's 2 cores: betainc's mpmath continued fraction
    # grows with n; issue 33 moved that size out of the suite.)
    b = one_run_bound(10**5, 6 * 10**4, canaries=10**5, delta=1e-12)
    lim = clopper_pearson(6 * 10**4, 10**5, 0.05, "lower")  # δ term negligible here
    assert 0 < b.eps_lower <= math.log(lim / (1 - lim))
    assert b.eps_lower == pytest.approx(math.log(lim / (1 - lim)), rel=1e-6)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(guesses=10, correct=11), "cannot exceed guesses"),
        (dict(guesses=-1, correct=0), ">= 0"),
        (dict(guesses=10.5, correct=1), "whole number"),
        (dict(guesses=10, correct=5, canaries=5), "cannot exceed canaries"),
        (dict(guesses=10, correct=5, confidence=1.0), "confidence"),
        (dict(guesses=10, correct=5, delta=1.0), "delta"),
        (dict(guesses=float("nan"), correct=5), "whole number"),
    ],
)
def test_one_run_bad_input_is_one_line(kwargs, match):
    with pytest.raises(PrivcheckUsageError, match=match):
        one_run_bound(**kwargs)


def test_binary_bounds_never_above_the_published_formulas():
    ch = certify_point(1, 0.0, 30, 400, 1000, 1000, 1e-4, 1e-5)
    fu, nu = ref_cp_upper(30, 1000, 1e-4), ref_cp_upper(400, 1000, 1e-4)
    assert ch.fpr_upper >= float(fu) and ch.fnr_upper >= float(nu)
    ref_eps, ref_mu = float(ref_cp_eps(fu, nu, 1e-5)), float(ref_gdp_mu(fu, nu))
    assert ref_eps * (1 - 1e-8) <= ch.eps <= ref_eps
    assert ref_mu * (1 - 1e-8) <= ch.mu <= ref_mu


def test_reverse_counts_agree_with_negated_scores():
    rng = np.random.default_rng(0)
    for _ in range(30):
        a = rng.integers(0, 6, rng.integers(1, 15)).astype(float)
        b = rng.integers(0, 6, rng.integers(1, 15)).astype(float)
        d = direction_counts(a, b, (1, -1))
        for t, fp, fn in zip(*d[-1]):
            assert fp == np.sum(-b >= t) and fn == np.sum(-a < t)


@pytest.mark.parametrize("family", [dp_family(1e-5), gdp_family()])
def test_fdp_recursion_never_above_its_mpmath_inverse(family):
    theta, j = sup_rejected([150], [146], 1000, 1e-3, family)
    assert j == 0
    ref = float(ref_fdp_sup(150, 146, 1000, 1e-3, family))
    assert ref * (1 - 1e-9) <= theta <= ref


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 300), st.floats(0.3, 1.0), st.floats(0.0, 0.5))
def test_a_weaker_curve_never_rejects_more(cp, frac, shift):
    """The recursion is monotone in f̄⁻¹: a lower curve (weaker claim) is rejected no more often."""
    c = max(1, int(cp * frac))
    g_hi = lambda y: np.clip(y - 1e-4, 0, 1) ** 1.3  # noqa: E731
    g_lo = lambda y: np.clip(g_hi(y) - shift * y, 0, 1)  # noqa: E731
    strong = reject_many(np.array([cp]), np.array([c]), 1000, 0.01, g_hi)[0]
    weak = reject_many(np.array([cp]), np.array([c]), 1000, 0.01, g_lo)[0]
    assert strong or not weak


METHODS = ["cp", "gdp", "one-run", "one-run-fdp"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n", [10, 1000, 10**6])
def test_null_scores_certify_nothing(method, n):
    """In and out scores from the same law: no method, no rule certifies ε > 0 (seeded; the error
    rate itself is pinned below). n = 10^6 per side: vectorised counts, one sort per direction."""
    rng = np.random.default_rng(1234 + n)
    s_in, s_out = rng.normal(size=n), rng.normal(size=n)
    rules = ["bonferroni", "split", 0.0] if n < 10**6 else ["bonferroni"]
    for rule in rules:
        res = audit_scores(s_in, s_out, method=method, delta=1e-6, thresholds=rule)
        assert res.eps_lower == 0.0, (method, n, rule, res)
        assert res.mu_lower in (None, 0.0)


def test_null_error_rate_is_at_most_the_stated_level():
    """At a fixed threshold the only error is the Clopper-Pearson one: over 400 null runs the share
    of positive bounds must be consistent with alpha = 0.2 (binomial upper 99.9% limit)."""
    rng = np.random.default_rng(7)
    hits = 0
    runs = 400
    for _ in range(runs):
        s_in, s_out = rng.normal(size=50), rng.normal(size=50)
        res = audit_scores(s_in, s_out, method="cp", thresholds=0.0, confidence=0.8)
        hits += res.eps_lower > 0
    assert hits / runs <= clopper_pearson(int(runs * 0.2), runs, 0.001, "upper")
    assert hits > 0  # the test can fail: positives do occur at this level


def test_jax_privacy_pr270_case_reverse_evidence_is_not_folded():
    """In-scores *lower* than out-scores: the forward rule has FPR_u + FNR_u > 1 everywhere (μ < 0).
    Folding |μ| (jax_privacy before PR #270) would report a forward bound; forward-only gives 0 and
    the reverse rule, bounded on its own, finds the evidence."""
    rng = np.random.default_rng(3)
    s_in, s_out = rng.normal(-2, 1, 2000), rng.normal(0, 1, 2000)
    fwd = audit_scores(s_in, s_out, method="gdp", delta=1e-5, sides="forward")
    both = audit_scores(s_in, s_out, method="gdp", delta=1e-5, sides="both")
    assert fwd.eps_lower == 0.0 and fwd.mu_lower == 0.0
    assert both.mu_lower > 1.0 and both.chosen["mu"]["direction"].startswith("reverse")


def test_separated_scores_refute_and_the_power_line_limits():
    rng = np.random.default_rng(2)
    s_in, s_out = rng.normal(3, 1, 2000), rng.normal(0, 1, 2000)
    res = audit_scores(s_in, s_out, method="cp", delta=1e-5, eps=1.0)
    assert res.verdict == "refuted" and res.eps_lower > 1.0
    big = audit_scores(s_in, s_out, method="cp", delta=1e-5, eps=50.0)
    assert big.verdict == "inconclusive" and "at most eps" in big.reason
    assert big.eps_max < 50 and "certifiable" in big.power
    mu = audit_scores(s_in, s_out, method="gdp", delta=1e-5, mu=1.0)
    assert mu.verdict == "refuted" and mu.mu_lower > 1.0


def test_accountant_curve_claim_from_a_table():
    weak = table_from_function(lambda x: np.maximum(0.0, 0.2 - x))  # little privacy claimed
    strong = table_from_function(lambda x: 1.0 - x)  # perfect privacy claimed
    rng = np.random.default_rng(4)
    s_in, s_out = rng.normal(2, 1, 1000), rng.normal(0, 1, 1000)
    assert audit_scores(s_in, s_out, method="cp", accountant=strong).verdict == "refuted"
    assert audit_scores(s_in, s_out, method="cp", accountant=weak).verdict in ("holds", "inconclusive")
    assert audit_scores(s_in, s_out, method="one-run-fdp", accountant=strong).verdict == "refuted"


@pytest.mark.parametrize(
    "args,kwargs,match",
    [
        (([1.0, float("nan")], [0.0]), {}, "non-finite"),
        (([], [0.0]), {}, "empty"),
        (([[1.0]], [0.0]), {}, "1-d"),
        ((["a"], [0.0]), {}, "numbers"),
        (([1.0], [0.0]), {"method": "magic"}, "method"),
        (([1.0], [0.0]), {"confidence": 1.5}, "confidence"),
        (([1.0], [0.0]), {"eps": 1.0, "mu": 1.0}, "one claim"),
        (([1.0], [0.0]), {"thresholds": "split:2"}, "split fraction"),
        (([1.0], [0.0]), {"sides": "left"}, "sides"),
        (([1.0], [0.0]), {"delta": -0.1}, "delta"),
    ],
)
def test_audit_scores_bad_input_is_one_line(args, kwargs, match):
    with pytest.raises(PrivcheckUsageError, match=match):
        audit_scores(*args, **kwargs)
