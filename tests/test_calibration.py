"""privcheck.audit_calibrator: exact curves (cross-checked), correct calibrations hold, the classic Gaussian
calibration is refuted outside eps < 1 with the true delta, bad input is one line / verdict error."""

from __future__ import annotations

import math

import mpmath
import pytest
from scipy import stats

import privcheck
from privcheck.base.errors import PrivcheckUsageError
from privcheck.calibration import curves
from privcheck.calibration.curves import implied_mu


def classic(eps, delta, sensitivity):
    return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / eps


def exact_gaussian(eps, delta, sensitivity):
    return sensitivity / implied_mu(eps, delta)


@pytest.mark.parametrize("sigma, eps", [(0.5, 1.0), (2.0, 0.1), (0.48448, 10.0), (0.3, 20.0)])
def test_gaussian_curve_against_scipy(sigma, eps):
    mu = 1.0 / sigma
    ref = stats.norm.cdf(mu / 2 - eps / mu) - math.exp(eps) * stats.norm.cdf(-mu / 2 - eps / mu)
    lo, hi = curves.gaussian_delta(sigma, 1.0, eps)
    assert lo <= hi and (hi - lo) <= 1e-12 * hi
    assert ref == pytest.approx(lo, rel=1e-7)  # scipy's float difference loses a few digits


def test_discrete_laplace_curve_against_a_brute_sum():
    t, d, eps = 1.7, 3, 0.4
    with mpmath.workdps(40):
        r = mpmath.exp(-1 / mpmath.mpf(t))
        c = (1 - r) / (1 + r)
        p = lambda k: c * r ** abs(k)  # noqa: E731
        ref = mpmath.fsum(max(0, p(k) - mpmath.exp(eps) * p(k - d)) for k in range(-400, 400))
    lo, hi = curves.discrete_laplace_delta(t, d, eps)
    assert lo <= float(ref) <= hi


def test_discrete_gaussian_curve_against_the_zoo_calculator():
    from privcheck.catalogue.zoo.calculators_central import _discrete_gaussian_delta_fn

    for sigma, eps in ((1.3, 0.5), (4.0, 0.2)):
        ref = float(_discrete_gaussian_delta_fn(sigma, 1)(eps))
        lo, hi = curves.discrete_gaussian_delta(sigma, 1, eps)
        assert lo <= ref <= hi


def test_exact_calibration_holds_everywhere_without_waste():
    res = privcheck.audit_calibrator(exact_gaussian, mechanism="gaussian", eps=[0.01, 1.0, 50.0], delta=[1e-3, 1e-12])
    assert res.verdict == "holds", res.summary
    assert all(p.verdict == "holds" and p.wasted < 1e-6 for p in res.points)


def test_classic_calibration_refuted_beyond_its_proof():
    res = privcheck.audit_calibrator(classic, mechanism="gaussian")
    assert res.verdict == "refuted"
    assert len(res.points) == 17 * 10
    small = [p for p in res.points if p.eps <= 1.0]
    assert all(p.verdict == "holds" for p in small)  # the proved range eps < 1 (and eps = 1) holds
    pt = next(p for p in res.points if p.eps == 10.0 and p.delta == 1e-5)
    sigma = classic(10.0, 1e-5, 1.0)
    mu = 1 / sigma
    ref = stats.norm.cdf(mu / 2 - 10 / mu) - math.exp(10) * stats.norm.cdf(-mu / 2 - 10 / mu)
    assert pt.verdict == "refuted" and pt.delta_true[0] == pytest.approx(ref, rel=1e-7) and pt.delta_true[0] > 2e-5
    assert pt.eps_true[0] > 10.0  # it spends more than the claimed eps at the claimed delta
    assert res.most_wasted.eps == 0.01 and res.most_wasted.wasted > 1.0  # over-noises at small eps


def test_one_percent_under_noise_is_refuted_everywhere():
    res = privcheck.audit_calibrator(
        lambda eps, delta, sensitivity: 0.99 * exact_gaussian(eps, delta, sensitivity), eps=[0.1, 5.0], delta=[1e-6]
    )
    assert res.verdict == "refuted" and all(p.verdict == "refuted" for p in res.points)


def test_laplace_and_discrete_laplace():
    ok = privcheck.audit_calibrator(lambda eps, sensitivity: sensitivity / eps, mechanism="laplace", sensitivity=2.0)
    assert ok.verdict == "holds" and all(p.eps_true[0] <= p.eps * (1 + 1e-9) for p in ok.points)
    bad = privcheck.audit_calibrator(lambda epsilon: 0.9 / epsilon, mechanism="laplace")
    assert bad.verdict == "refuted" and bad.worst.eps_true[0] == pytest.approx(bad.worst.eps / 0.9)
    dl = privcheck.audit_calibrator(
        lambda eps, sensitivity: sensitivity / eps, mechanism="discrete-laplace", sensitivity=2
    )
    assert dl.verdict == "holds"
    approx = privcheck.audit_calibrator(
        lambda eps, delta, sensitivity: sensitivity / eps, mechanism="laplace", eps=[1.0], delta=[1e-3]
    )
    assert approx.verdict == "holds" and approx.points[0].wasted > 0  # pure calibration at delta > 0 over-noises


def test_implied_mu_meets_the_claim():
    from accountants.gdp import gdp_delta

    mu = implied_mu(1.0, 1e-5)
    assert gdp_delta(mu, 1.0) <= 1e-5 and gdp_delta(mu * (1 + 1e-9), 1.0) > 1e-5 * (1 - 1e-6)


@pytest.mark.parametrize(
    "kw, words",
    [
        ({"mechanism": "cauchy"}, "unknown mechanism"),
        ({"eps": [0.0]}, "eps values must be > 0"),
        ({"delta": [1.0]}, "[0, 1)"),
        ({"delta": [0.0]}, "not eps-DP at delta = 0"),
        ({"mechanism": "discrete-gaussian", "sensitivity": 1.5}, "integer sensitivity"),
        ({"sensitivity": 0}, "sensitivity"),
        ({"eps": [float("nan")]}, "finite"),
    ],
)
def test_bad_requests_are_one_line(kw, words):
    with pytest.raises(PrivcheckUsageError) as err:
        privcheck.audit_calibrator(classic, **kw)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_bad_calibrators():
    with pytest.raises(PrivcheckUsageError, match="callable"):
        privcheck.audit_calibrator(3.0)
    with pytest.raises(PrivcheckUsageError, match="eps= or epsilon="):
        privcheck.audit_calibrator(lambda x, delta: 1.0)
    with pytest.raises(PrivcheckUsageError, match="no delta"):
        privcheck.audit_calibrator(lambda eps: 1.0, mechanism="gaussian")
    text = privcheck.audit_calibrator(lambda eps, delta: "big", eps=[1.0], delta=[1e-5])
    assert text.verdict == "error" and "not a number" in text.summary


def test_refusals_exits_and_hangs():
    def picky(eps, delta, sensitivity):
        if eps > 1:
            raise ValueError("Epsilon cannot be greater than 1")
        return classic(eps, delta, sensitivity)

    res = privcheck.audit_calibrator(picky, eps=[0.5, 2.0], delta=[1e-5])
    assert res.verdict == "holds" and res.refused == 1

    def leave(eps, delta, sensitivity):
        raise SystemExit(1)

    assert privcheck.audit_calibrator(leave, eps=[1.0], delta=[1e-5]).verdict == "error"

    def hang(eps, delta, sensitivity):
        while True:
            pass

    r = privcheck.audit_calibrator(hang, eps=[1.0], delta=[1e-5], timeout=1.0)
    assert r.verdict == "error" and "timed out" in r.summary
