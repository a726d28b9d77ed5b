"""Tests of privcheck.base.moments: coverage sanity, TOST, Bonett variance interval, paired test, log-log fits."""

import numpy as np
import pytest

from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.moments import (
    compare_slope,
    fit_loglog,
    mean_interval,
    paired_variance_difference,
    tost_equivalence,
    variance_interval,
)
from privcheck.base.seeding import generator
from privcheck.base.stats import clopper_pearson


def _coverage(fn, rows, truth, confidence):
    hits = 0
    for row in rows:
        lo, hi = fn(row, confidence=confidence).interval
        hits += lo <= truth <= hi
    return hits


def _at_nominal(hits: int, n: int, level: float = 0.95) -> bool:
    """Binomial test of 'coverage = level' (two-sided, α = 0.001): the interval has its nominal level."""
    from scipy import stats

    return stats.binomtest(hits, n, level).pvalue > 1e-3


def test_mean_interval_has_its_nominal_level():
    rows = generator(1, "mean-normal").normal(2.0, 3.0, (2_000, 20))  # normal data: the t interval is exact
    hits = _coverage(mean_interval, rows, 2.0, 0.95)
    assert _at_nominal(hits, len(rows))
    # power: the same test rejects a 90 % interval labelled 95 % (coverage 0.90 vs 0.95, 2,000 replicates)
    assert not _at_nominal(_coverage(mean_interval, rows, 2.0, 0.90), len(rows))


def test_mean_interval_coverage_skewed_data():
    rng = generator(1, "mean")
    x = rng.exponential(2.0, (1_500, 60))  # skewness 2: the CLT interval undercovers slightly at n = 60
    cover = _coverage(mean_interval, x, 2.0, 0.95)
    lo, hi = clopper_pearson(cover, len(x), 0.001)
    assert hi >= 0.93 and lo <= 0.95  # within 2 points of nominal; a 90 % interval (≈0.885 here) fails


def test_mean_pvalue_matches_interval():
    x = generator(2, "p").normal(0.3, 1.0, 500)
    t = mean_interval(x, null=0.0, confidence=0.95)
    assert (t.pvalue < 0.05) == (not t.interval[0] <= 0.0 <= t.interval[1])


def test_tost_detects_equivalence_and_bias():
    rng = generator(3, "tost")
    assert tost_equivalence(rng.normal(0, 1, 20_000), 0.0, 0.05).equivalent
    assert not tost_equivalence(rng.normal(0.2, 1, 20_000), 0.0, 0.05).equivalent
    assert not tost_equivalence(rng.normal(0, 1, 30), 0.0, 0.05).equivalent  # too little data to prove it


def test_variance_interval_has_its_nominal_level():
    rows = generator(4, "var-normal").normal(0.0, 1.0, (1_000, 100))
    assert _at_nominal(_coverage(variance_interval, rows, 1.0, 0.95), len(rows))
    assert not _at_nominal(_coverage(variance_interval, rows, 1.0, 0.90), len(rows))


def test_variance_interval_coverage_non_normal():
    rng = generator(4, "var")
    x = rng.exponential(1.0, (1_500, 200))  # variance 1, kurtosis 9: a normal-theory interval would undercover badly
    cover = _coverage(variance_interval, x, 1.0, 0.95)
    lo, hi = clopper_pearson(cover, len(x), 0.001)
    assert hi >= 0.92 and lo <= 0.95  # Bonett is approximate under kurtosis 9 (≈0.925); 90 % gives ≈0.87
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
    y = 3 * x**-0.5 * np.exp(rng.normal(0, 0.01, x.size))
    fit = fit_loglog(x, y)
    assert fit.interval[0] <= -0.5 <= fit.interval[1]
    assert compare_slope(fit, -0.5, 0.05) == "holds"
    assert compare_slope(fit, -0.8, 0.05) == "refuted"
    wide = fit_loglog(x[:3], 3 * x[:3] ** -0.5 * np.exp(rng.normal(0, 0.5, 3)))
    assert compare_slope(wide, -0.5, 0.05) in ("inconclusive", "refuted")


@pytest.mark.parametrize(
    "call",
    [
        lambda: mean_interval([1.0, np.nan, 2.0, 3.0]),
        lambda: mean_interval([1.0, 2.0]),
        lambda: tost_equivalence(np.ones(10) + np.arange(10), 0.0, -1.0),
        lambda: variance_interval(np.ones(20)),
        lambda: paired_variance_difference(np.arange(20.0), np.arange(21.0)),
        lambda: fit_loglog([1, 2, 3], [1, -1, 2]),
        lambda: compare_slope(fit_loglog([1, 2, 3], [1, 2, 3]), 1.0, 0.0),
    ],
)
def test_invalid_inputs_one_line_errors(call):
    with pytest.raises(PrivcheckUsageError) as e:
        call()
    assert "\n" not in str(e.value)
