"""Tests of privcheck.moments: coverage sanity, TOST, Bonett variance interval, paired test, log-log fits."""
import numpy as np
import pytest

from privcheck.errors import PrivcheckUsageError
from privcheck.moments import (compare_slope, fit_loglog, mean_interval, paired_variance_difference,
                               tost_equivalence, variance_interval)
from privcheck.seeding import generator
from privcheck.stats import clopper_pearson


def test_mean_interval_coverage():
    rng = generator(1, "mean")
    x = rng.exponential(2.0, (400, 60))
    cover = sum(mean_interval(row, null=2.0).interval[0] <= 2.0 <= mean_interval(row, null=2.0).interval[1] for row in x)
    # nominal 0.95; the exact binomial interval of the observed coverage must contain a value >= 0.9
    assert clopper_pearson(cover, 400, 0.01)[1] >= 0.9


def test_mean_pvalue_matches_interval():
    x = generator(2, "p").normal(0.3, 1.0, 500)
    t = mean_interval(x, null=0.0, confidence=0.95)
    assert (t.pvalue < 0.05) == (not t.interval[0] <= 0.0 <= t.interval[1])


def test_tost_detects_equivalence_and_bias():
    rng = generator(3, "tost")
    assert tost_equivalence(rng.normal(0, 1, 20_000), 0.0, 0.05).equivalent
    assert not tost_equivalence(rng.normal(0.2, 1, 20_000), 0.0, 0.05).equivalent
    assert not tost_equivalence(rng.normal(0, 1, 30), 0.0, 0.05).equivalent  # too little data to prove it


def test_variance_interval_coverage_non_normal():
    rng = generator(4, "var")
    x = rng.exponential(1.0, (300, 200))  # variance 1, kurtosis 9: a normal-theory interval would undercover badly
    cover = 0
    for row in x:
        lo, hi = variance_interval(row).interval
        cover += lo <= 1.0 <= hi
    assert clopper_pearson(cover, 300, 0.01)[1] >= 0.9
    chi2_cover = 0  # the normal-theory chi-square interval, for contrast
    from scipy import stats
    for row in x:
        s2, n = row.var(ddof=1), row.size
        chi2_cover += (n - 1) * s2 / stats.chi2.ppf(0.975, n - 1) <= 1.0 <= (n - 1) * s2 / stats.chi2.ppf(0.025, n - 1)
    assert chi2_cover < cover


def test_variance_pvalue_inverts_interval():
    x = generator(5, "vp").normal(0, 1.1, 2_000)
    vt = variance_interval(x, null=1.0, confidence=0.95)
    assert (vt.pvalue < 0.05) == (not vt.interval[0] <= 1.0 <= vt.interval[1])
    assert variance_interval(x, null=vt.variance).pvalue > 0.5


def test_paired_variance_difference_covers_truth():
    rng = generator(6, "pair")
    z = rng.normal(size=(2, 50_000))
    x = 2 * z[0]
    y = z[0] + 0.5 * z[1]  # Var x − Var y = 4 − 1.25
    t = paired_variance_difference(x, y)
    assert t.interval[0] <= 2.75 <= t.interval[1]
    assert t.p_greater < 1e-6
    # independent samples are also fine (Cov(X+Y, X−Y) = Var X − Var Y for any joint law)
    t2 = paired_variance_difference(rng.normal(0, 1, 50_000), rng.normal(0, 1, 50_000))
    assert t2.interval[0] <= 0 <= t2.interval[1]


def test_scaling_fit_on_synthetic_power_law():
    rng = generator(7, "slope")
    x = np.array([10, 30, 100, 300, 1000, 3000.0])
    y = 3 * x ** -0.5 * np.exp(rng.normal(0, 0.01, x.size))
    fit = fit_loglog(x, y)
    assert fit.interval[0] <= -0.5 <= fit.interval[1]
    assert compare_slope(fit, -0.5, 0.05) == "holds"
    assert compare_slope(fit, -0.8, 0.05) == "refuted"
    wide = fit_loglog(x[:3], 3 * x[:3] ** -0.5 * np.exp(rng.normal(0, 0.5, 3)))
    assert compare_slope(wide, -0.5, 0.05) in ("inconclusive", "refuted")


@pytest.mark.parametrize("call", [
    lambda: mean_interval([1.0, np.nan, 2.0, 3.0]),
    lambda: mean_interval([1.0, 2.0]),
    lambda: tost_equivalence(np.ones(10) + np.arange(10), 0.0, -1.0),
    lambda: variance_interval(np.ones(20)),
    lambda: paired_variance_difference(np.arange(20.0), np.arange(21.0)),
    lambda: fit_loglog([1, 2, 3], [1, -1, 2]),
    lambda: compare_slope(fit_loglog([1, 2, 3], [1, 2, 3]), 1.0, 0.0),
])
def test_invalid_inputs_one_line_errors(call):
    with pytest.raises(PrivcheckUsageError) as e:
        call()
    assert "\n" not in str(e.value)
