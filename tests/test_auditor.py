"""The LDP auditor: exact ε, validity (coverage), power, reproducibility, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import privcheck
from estimators.direct_encoding import de_probabilities
from privcheck.auditor import monte_carlo_bound
from privcheck.base.errors import PrivcheckUsageError


def oue(d: int, eps: float):
    """Optimised unary encoding as a plain black-box callable returning bit vectors."""
    q = 1.0 / (math.exp(eps) + 1.0)

    def sampler(x, n, rng):
        bits = rng.random((n, d)) < q
        bits[:, x] = rng.random(n) < 0.5
        return bits

    return sampler


def laplace(scale: float, shift: float = 0.0):
    def sampler(x, n, rng):
        return x * (1.0 + shift) + rng.laplace(0.0, scale, n)

    return sampler


def test_krr_exact_matches_closed_form():
    for m, eps in [(2, 1.0), (10, 0.5), (100, 3.0)]:
        res = privcheck.audit(privcheck.mechanism("de", m=m, eps=eps), monte_carlo=False)
        p, q = de_probabilities(eps, m)
        assert res.eps_exact == pytest.approx(math.log(p / q), rel=1e-12)
        assert res.verdict == "holds"


def test_broken_krr_refuted_exact_and_mc():
    # keep probability 0.9 over m = 4 values is log(0.9 / (0.1/3)) = 3.30 > the claimed 1.0
    mech = privcheck.mechanism("de", m=4, eps=1.0, p=0.9)
    res = privcheck.audit(mech, samples=20_000, seed=1)
    assert res.eps_exact == pytest.approx(math.log(0.9 / (0.1 / 3)), rel=1e-12)
    assert res.verdict_exact == "refuted"
    assert res.verdict_mc == "refuted"
    assert 1.0 < res.eps_lower <= res.eps_exact
    assert res.verdict == "refuted"


def test_coverage_of_lower_bound():
    """Over 200 independent small audits the bound exceeds the true ε in at most ~5 % of runs."""
    mech = privcheck.mechanism("de", m=3, eps=1.0)
    true_eps = mech.exact_epsilon().eps
    ss = np.random.SeedSequence(2024)
    exceed = 0
    runs = 200
    for child in ss.spawn(runs):
        b = monte_carlo_bound(mech, [0, 1, 2], 3000, confidence=0.95, seed=child, jobs=1)
        exceed += b.eps_lower > true_eps
    # allowance: the 0.999 quantile of Binomial(200, 0.05)
    assert exceed <= stats.binom.ppf(0.999, runs, 0.05)


def test_coverage_criterion_rejects_a_point_estimate_auditor():
    """The coverage criterion above can fail: a plug-in log(p̂/q̂) 'bound' exceeds ε about half the time."""
    mech = privcheck.mechanism("de", m=3, eps=1.0)
    true_eps = mech.exact_epsilon().eps
    rng = np.random.default_rng(7)
    runs, n = 200, 3000
    a = mech.sample(0, n * runs, rng).reshape(runs, n)
    b = mech.sample(1, n * runs, rng).reshape(runs, n)
    plug_in = np.log((a == 0).mean(axis=1) / (b == 0).mean(axis=1))
    exceed = int((plug_in > true_eps).sum())
    assert exceed > stats.binom.ppf(0.999, runs, 0.05)


def test_power_oue_black_box():
    res = privcheck.audit(oue(100, 1.0), inputs=[0, 1], eps=1.0, samples=1_000_000, seed=0)
    assert res.eps_lower >= 0.95
    assert res.eps_lower <= 1.0
    assert res.eps_exact is None
    assert res.verdict == "holds"


def test_power_krr_domain_two():
    res = privcheck.audit(privcheck.mechanism("de", m=2, eps=1.0), samples=1_000_000, seed=0)
    assert 0.99 <= res.eps_lower <= 1.0


def test_reproducible_across_jobs():
    mech = privcheck.mechanism("de", m=5, eps=2.0)
    r1 = privcheck.audit(mech, samples=600_000, seed=11, jobs=1)
    r2 = privcheck.audit(mech, samples=600_000, seed=11, jobs=2)
    r3 = privcheck.audit(mech, samples=600_000, seed=12, jobs=2)
    assert r1.eps_lower == r2.eps_lower
    assert r1.details["candidates"] == r2.details["candidates"]
    assert r1.eps_lower != r3.eps_lower


def test_sampler_ignoring_rng_is_flagged():
    state = np.random.RandomState(0)

    def global_state_sampler(x, n, rng):
        return (state.random_sample(n) < (0.7 if x else 0.3)).astype(int)

    res = privcheck.audit(global_state_sampler, inputs=[0, 1], eps=2.0, samples=5000, seed=0)
    assert res.reproducible is False
    good = privcheck.audit(lambda x, n, rng: rng.integers(0, 2, n), inputs=[0, 1], eps=1.0, samples=5000)
    assert good.reproducible is True


def test_continuous_laplace_bound_and_shift_refuted():
    # view=False: the value alone, as the real-valued law this test checks (the float representation of
    # textbook Laplace leaks, Mironov 2012: tests/test_autoviews.py)
    ok = privcheck.audit(laplace(1.0), inputs=[0.0, 1.0], eps=1.0, samples=200_000, seed=3, view=False)
    assert 0.5 < ok.eps_lower <= 1.0
    assert ok.verdict == "holds"
    # the sensitivity is really 1.5 (shifted), so the mechanism is only 1.5-DP
    bad = privcheck.audit(laplace(1.0, shift=0.5), inputs=[0.0, 1.0], eps=1.0, samples=200_000, seed=3)
    assert bad.eps_lower > 1.0
    assert bad.verdict == "refuted"


def test_delta_lower_bound_for_gaussian():
    from accountants_oracle import gaussian_delta  # local oracle below

    sigma = 1.0

    def gauss(x, n, rng):
        return x + rng.normal(0.0, sigma, n)

    # view=False: the real-valued law (its float representation leaks more, see tests/test_autoviews.py)
    b = monte_carlo_bound(gauss, [0.0, 1.0], 400_000, seed=5, delta_eps=0.5, view=False)
    exact = gaussian_delta(1.0 / sigma, 0.5)
    assert 0.0 < b.delta_lower <= exact
    assert b.delta_lower > 0.5 * exact
    # claiming a much smaller delta must be refuted
    res = privcheck.audit(gauss, inputs=[0.0, 1.0], eps=0.5, delta=0.01, samples=400_000, seed=5)
    assert res.verdict == "refuted"


def test_vector_outputs_with_few_distinct_rows_use_whole_outputs():
    def two_bits(x, n, rng):
        p = 0.8 if x else 0.2
        return np.stack([rng.random(n) < p, rng.random(n) < p], axis=1).astype(np.int8)

    res = privcheck.audit(two_bits, inputs=[0, 1], eps=2 * math.log(4), samples=200_000, seed=2)
    # the whole output (1, 1) has ratio 16 = e^(2 log 4): only whole-row events reach beyond log 4
    assert res.eps_lower > math.log(4) + 0.5
    assert "output=" in res.event


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(inputs=[0], eps=1.0), "at least two"),
        (dict(inputs=[0, 1], eps=-1.0), "eps must be"),
        (dict(inputs=[0, 1], eps=float("nan")), "eps must be"),
        (dict(inputs=[0, 1], eps=1.0, samples=0), "samples must be"),
        (dict(inputs=[0, 1], eps=1.0, confidence=1.5), "confidence"),
        (dict(inputs=None, eps=1.0), "needs inputs"),
    ],
)
def test_bad_input_messages(kwargs, message):
    with pytest.raises(PrivcheckUsageError, match=message):
        privcheck.audit(lambda x, n, rng: rng.integers(0, 2, n), **kwargs)


def test_wrong_output_shape_is_a_clear_error():
    with pytest.raises(ValueError, match="expected"):
        privcheck.audit(lambda x, n, rng: rng.integers(0, 2, n + 1), inputs=[0, 1], eps=1.0, samples=100)
