"""Intervals and tests for the moments of a simulated estimator.

Everything the estimator checker (:mod:`privcheck.estimator_check`) states about
a mean, a variance or a scaling exponent goes through this module:

- :func:`mean_interval` — Student-t interval and two-sided test for the mean
  (valid by the central limit theorem for the replicate counts used here);
- :func:`tost_equivalence` — "the mean is within ±tol of a target", the
  two one-sided tests of statsmodels (``DescrStatsW.ttost_mean``);
- :func:`variance_interval` — Bonett's (2006) interval for a variance, which
  uses the sample kurtosis and therefore does *not* assume normality
  (asymptotically distribution-free), with the matching p-value obtained by
  inverting the interval;
- :func:`paired_variance_difference` — Var(X) − Var(Y) for two estimators
  computed on the *same* draws, through Cov(X+Y, X−Y) = Var X − Var Y, with a
  distribution-free (CLT) interval;
- :func:`fit_loglog` — a log-log slope with its interval (statsmodels WLS).

Multiplicity is handled by the callers with :func:`privcheck.base.stats.adjust_pvalues`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_confidence, check_positive


def _as_sample(x, name: str = "x", minimum: int = 3) -> np.ndarray:
    arr = np.asarray(x, dtype=float).ravel()
    if arr.size < minimum:
        raise PrivcheckUsageError(f"{name} needs at least {minimum} values, got {arr.size}")
    if not np.all(np.isfinite(arr)):
        raise PrivcheckUsageError(f"{name} contains NaN or infinite values")
    return arr


@dataclass(frozen=True)
class MeanTest:
    """Mean of a sample with a Student-t interval and the two-sided test of ``mean == null``.

    mean, se: sample mean and its standard error; interval: (lo, hi) at
    ``confidence``; null: the tested value; pvalue: two-sided t-test p-value.
    """

    mean: float
    se: float
    interval: tuple[float, float]
    confidence: float
    null: float
    pvalue: float
    n: int


def mean_interval(x, null: float = 0.0, confidence: float = 0.95) -> MeanTest:
    """Student-t interval for E[x] and the two-sided p-value of ``E[x] == null``.

    x: at least 3 finite values (replicates of an estimator, or its errors);
    confidence in (0, 1). Valid for i.i.d. replicates with finite variance by
    the central limit theorem.
    """
    from scipy import stats

    arr = _as_sample(x)
    confidence = check_confidence(confidence)
    n = arr.size
    m = float(arr.mean())
    se = float(arr.std(ddof=1) / math.sqrt(n))
    tq = float(stats.t.ppf(0.5 + confidence / 2, n - 1))
    if se == 0.0:
        p = 1.0 if m == null else 0.0
    else:
        p = float(2 * stats.t.sf(abs((m - null) / se), n - 1))
    return MeanTest(m, se, (m - tq * se, m + tq * se), confidence, float(null), p, n)


@dataclass(frozen=True)
class TostResult:
    """Two one-sided tests of ``|E[x] − target| < tol`` (equivalence).

    pvalue: the TOST p-value (max of the two one-sided p-values); equivalent:
    ``pvalue < alpha``; bounds: (target − tol, target + tol).
    """

    pvalue: float
    bounds: tuple[float, float]
    tol: float
    alpha: float
    equivalent: bool


def tost_equivalence(x, target: float, tol: float, alpha: float = 0.05) -> TostResult:
    """statsmodels TOST: is the mean of ``x`` within ``±tol`` of ``target``?

    tol > 0 (the equivalence margin, in the units of ``x``); alpha in (0, 1).
    """
    from statsmodels.stats.weightstats import DescrStatsW

    arr = _as_sample(x)
    tol = check_positive("tol", tol)
    if not 0 < alpha < 1:
        raise PrivcheckUsageError(f"alpha must be in (0, 1), got {alpha!r}")
    lo, hi = float(target) - tol, float(target) + tol
    if arr.std() == 0.0:
        p = 0.0 if lo < arr[0] < hi else 1.0
    else:
        p = float(DescrStatsW(arr).ttost_mean(lo, hi)[0])
    return TostResult(p, (lo, hi), tol, float(alpha), p < alpha)


@dataclass(frozen=True)
class VarianceTest:
    """Sample variance with Bonett's distribution-free interval and the test of ``Var == null``.

    variance: unbiased sample variance; interval at ``confidence``; kurtosis:
    Bonett's kurtosis estimate γ̂4 (3 for a normal sample); pvalue: smallest
    level at which the interval excludes ``null`` (None if no null given).
    """

    variance: float
    interval: tuple[float, float]
    confidence: float
    kurtosis: float
    null: float | None
    pvalue: float | None
    n: int


def _bonett_parts(arr: np.ndarray) -> tuple[float, float]:
    from scipy import stats

    n = arr.size
    s2 = float(arr.var(ddof=1))
    trim = 1.0 / (2.0 * math.sqrt(n - 4))
    m = float(stats.trim_mean(arr, trim))
    ss = float(((arr - arr.mean()) ** 2).sum())
    g4 = n * float(((arr - m) ** 4).sum()) / ss**2
    return s2, g4


def _bonett_interval(n: int, s2: float, g4: float, alpha: float) -> tuple[float, float, float]:
    from scipy import stats

    z = float(stats.norm.isf(alpha / 2))  # isf keeps precision for tiny alpha
    c = n / (n - z)
    se = c * math.sqrt(max(g4 - (n - 3) / n, 1e-12) / (n - 1))
    centre = math.log(c * s2)
    return math.exp(centre - z * se), math.exp(centre + z * se), se


def variance_interval(x, null: float | None = None, confidence: float = 0.95) -> VarianceTest:
    """Bonett (2006) interval for Var[x]; it adjusts for the sample kurtosis, so needs no normality.

    x: at least 10 finite values, not all equal; null: a claimed variance (> 0)
    to test; confidence in (0, 1). Reference: D. G. Bonett, "Approximate
    confidence interval for standard deviation of nonnormal distributions",
    Comput. Stat. Data Anal. 50 (2006) 775–782.
    """
    from scipy import optimize

    arr = _as_sample(x, minimum=10)
    confidence = check_confidence(confidence)
    n = arr.size
    if float(arr.var()) == 0.0:
        raise PrivcheckUsageError("x has zero variance; a variance interval needs varying values")
    s2, g4 = _bonett_parts(arr)
    lo, hi, _ = _bonett_interval(n, s2, g4, 1 - confidence)
    p = None
    if null is not None:
        null = check_positive("null variance", null)

        def excess(a: float) -> float:
            lo_a, hi_a, _ = _bonett_interval(n, s2, g4, a)
            return max(lo_a - null, null - hi_a)  # > 0 when the level-(1-a) interval excludes null

        if excess(1 - 1e-12) <= 0:
            p = 1.0
        elif excess(1e-300) > 0:
            p = 0.0
        else:
            p = float(optimize.brentq(excess, 1e-300, 1 - 1e-12, xtol=1e-15, rtol=1e-10))
    return VarianceTest(s2, (lo, hi), confidence, g4, None if null is None else float(null), p, n)


@dataclass(frozen=True)
class PairedVarianceTest:
    """Var(X) − Var(Y) on the same draws, via Cov(X+Y, X−Y), with a CLT interval.

    difference: the estimate; interval at ``confidence``; pvalue: two-sided
    test of ``difference == 0``; p_greater: one-sided p-value of
    ``H0: Var X ≤ Var Y`` (small when Var X > Var Y is established).
    """

    difference: float
    interval: tuple[float, float]
    confidence: float
    pvalue: float
    p_greater: float
    var_x: float
    var_y: float
    n: int


def paired_variance_difference(x, y, confidence: float = 0.95) -> PairedVarianceTest:
    """Interval and tests for Var(X) − Var(Y) when X and Y are computed on the same draws.

    Uses the identity Var X − Var Y = Cov(U, V) with U = X+Y, V = X−Y and
    the per-replicate products (U_i − Ū)(V_i − V̄), whose mean is asymptotically
    normal whatever the distribution of (X, Y) (finite fourth moments).
    x, y: equal-length samples (at least 10 pairs).
    """
    from scipy import stats

    a = _as_sample(x, "x", 10)
    b = _as_sample(y, "y", 10)
    if a.size != b.size:
        raise PrivcheckUsageError(f"x and y must have the same length, got {a.size} and {b.size}")
    confidence = check_confidence(confidence)
    n = a.size
    u, v = a + b, a - b
    w = (u - u.mean()) * (v - v.mean())
    diff = float(w.sum() / (n - 1))
    se = float(w.std(ddof=1) / math.sqrt(n)) * n / (n - 1)
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    if se == 0.0:
        p2 = 1.0 if diff == 0 else 0.0
        pg = 0.0 if diff > 0 else 1.0
    else:
        p2 = float(2 * stats.norm.sf(abs(diff) / se))
        pg = float(stats.norm.sf(diff / se))
    return PairedVarianceTest(
        diff, (diff - z * se, diff + z * se), confidence, p2, pg, float(a.var(ddof=1)), float(b.var(ddof=1)), n
    )


@dataclass(frozen=True)
class SlopeFit:
    """A fitted log-log slope: log y = intercept + slope · log x.

    slope with its interval at ``confidence``; weighted: whether per-point
    standard errors were used (WLS) instead of plain OLS.
    """

    slope: float
    interval: tuple[float, float]
    intercept: float
    confidence: float
    weighted: bool
    points: int


def fit_loglog(x, y, y_se=None, confidence: float = 0.95) -> SlopeFit:
    """Slope of log(y) against log(x) with a t interval (statsmodels OLS, or WLS with ``y_se``).

    x, y: positive values at ≥ 3 grid points; y_se: standard errors of y
    (each > 0), turned into standard errors of log y by the delta method
    (se/y). With ``y_se`` the residual scale is still estimated from the fit
    (so lack of fit widens the interval).
    """
    import statsmodels.api as sm

    xa = np.asarray(x, dtype=float).ravel()
    ya = np.asarray(y, dtype=float).ravel()
    if xa.size != ya.size or xa.size < 3:
        raise PrivcheckUsageError("fit_loglog needs x and y of equal length >= 3")
    if np.any(xa <= 0) or np.any(ya <= 0) or not (np.all(np.isfinite(xa)) and np.all(np.isfinite(ya))):
        raise PrivcheckUsageError("fit_loglog needs finite positive x and y")
    confidence = check_confidence(confidence)
    X = sm.add_constant(np.log(xa))
    ly = np.log(ya)
    if y_se is not None:
        se = np.asarray(y_se, dtype=float).ravel() / ya
        if se.size != ya.size or np.any(se <= 0):
            raise PrivcheckUsageError("y_se must be positive, one per point")
        res = sm.WLS(ly, X, weights=1.0 / se**2).fit()
    else:
        res = sm.OLS(ly, X).fit()
    ci = res.conf_int(alpha=1 - confidence)[1]
    return SlopeFit(
        float(res.params[1]),
        (float(ci[0]), float(ci[1])),
        float(res.params[0]),
        confidence,
        y_se is not None,
        int(xa.size),
    )


def compare_slope(fit: SlopeFit, claimed: float, margin: float) -> str:
    """Verdict for a claimed exponent given a fitted slope.

    ``refuted`` when the interval lies entirely outside [claimed − margin,
    claimed + margin]; ``holds`` when it meets that band and is no wider than
    2·margin (so the fit had the power to tell); ``inconclusive`` otherwise.
    margin > 0 is the finite-grid allowance on the exponent, stated by the caller.
    """
    margin = check_positive("margin", margin)
    lo, hi = fit.interval
    if hi < claimed - margin or lo > claimed + margin:
        return "refuted"
    if hi - lo <= 2 * margin:
        return "holds"
    return "inconclusive"
