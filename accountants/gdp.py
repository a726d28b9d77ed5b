"""Gaussian differential privacy (GDP): conversion, composition, inversion, calibration.

μ-GDP (Dong, Roth & Su 2019, cited as Lemmas 1–3 of paper 002
``002_53ad70670a94e98a.txt``) is equivalent to (ε, δ(ε))-DP for every ε ≥ 0 with

    δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)                      (002 Lemma 2)

Composing μ_i-GDP mechanisms gives √(Σ μ_i²)-GDP (002 Lemma 3), and the Gaussian
mechanism with noise σ and ℓ2-sensitivity Δ is (Δ/σ)-GDP (002 Lemma 1).

Numerics: with a = −ε/μ + μ/2 and b = a − μ one has ε − b²/2 = −a²/2, so for a < 0

    δ(ε) = ½ e^{−a²/2} [erfcx(−a/√2) − erfcx(−b/√2)],

which never under- or overflows and keeps full relative precision down to δ ≈ 1e−300
(no difference of two nearly equal tiny probabilities). For a ≥ 0 the direct form is
used, with an mpmath fallback where the two terms cancel. :func:`gdp_log_delta` returns
log δ for root finding; the inversions :func:`gdp_eps` and :func:`gdp_mu` bracket their root
and return its conservative end (see :mod:`accountants.roots`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from accountants.roots import conservative_root, round_up
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.normal import erfcx, normal_cdf, normal_quantile
from privcheck.base.validation import check_delta, check_int, check_nonnegative, check_positive

__all__ = [
    "GDPBudget",
    "gdp_delta",
    "gdp_log_delta",
    "gdp_eps",
    "gdp_mu",
    "compose_gdp",
    "gaussian_mu",
    "gaussian_sigma",
    "gdp_budget",
]

_SQRT2 = math.sqrt(2.0)


def _check_mu(mu) -> float:
    return check_positive("mu", mu)


#: relative safety margin in δ for the inversions (absorbs the evaluation error of δ)
DELTA_MARGIN = 1e-10


def _log_delta_mp(mu: float, a: float) -> float:
    """log δ from the definition Φ(a) − e^ε Φ(a − μ), ε = μ(μ/2 − a), in mpmath (for cancelling cases)."""
    import mpmath

    with mpmath.workdps(60 + max(0, int(-math.log10(mu)))):  # the terms agree to about −log10 μ digits
        m, av = mpmath.mpf(mu), mpmath.mpf(a)
        eps = m * (m / 2 - av)
        d = mpmath.ncdf(av) - mpmath.exp(eps) * mpmath.ncdf(av - m)
        return float(mpmath.log(d)) if d > 0 else -math.inf


def _log_delta_a(mu: float, a: float) -> float:
    """log δ of μ-GDP as a function of a = μ/2 − ε/μ (b = a − μ < 0 always), stable in every tail.

    With ε − b²/2 = −a²/2: e^ε Φ(b) = ½ e^{−a²/2} erfcx(−b/√2), so no e^ε is ever
    formed. When more than 3 significant digits of the two terms cancel the
    value is recomputed in mpmath (60 digits).
    """
    if not a > -1e150:  # a²/2 overflows: log δ ≤ −a²/2 is −∞ in float
        return -math.inf
    b = a - mu
    if a < 0:
        t1 = erfcx(-a / _SQRT2)
        diff = t1 - erfcx(-b / _SQRT2)
        if not diff > 1e-3 * t1:  # more than 3 digits cancel: recompute at high precision
            return _log_delta_mp(mu, a)
        return -a * a / 2.0 + math.log(0.5 * diff)
    first = normal_cdf(a)
    second = 0.5 * math.exp(-a * a / 2.0) * erfcx(-b / _SQRT2)
    d = first - second
    if not d > 1e-3 * first:
        return _log_delta_mp(mu, a)
    return math.log(d)


def gdp_log_delta(mu: float, eps: float) -> float:
    """log δ(ε) of μ-GDP (002 Lemma 2), stable in the far tail.

    mu: μ > 0; eps: ε ≥ 0. Returns log δ ∈ [−∞, 0).
    """
    mu = _check_mu(mu)
    eps = check_nonnegative("eps", eps)
    return _log_delta_a(mu, mu / 2.0 - eps / mu)


def gdp_delta(mu: float, eps: float) -> float:
    """Exact δ(ε) of μ-GDP: Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (002 Lemma 2; Dong et al. 2019 Cor. 2.13).

    mu: μ > 0; eps: ε ≥ 0. Returns δ ∈ (0, 1): δ is never 0, and where it lies below the float
    range (log δ < −745) the smallest positive double 5e−324 is returned, an upper bound (issue 29
    §2: 0.0 read as "no privacy loss at all"); :func:`gdp_log_delta` gives its logarithm.
    """
    return max(math.exp(gdp_log_delta(mu, eps)), 5e-324)


def gdp_eps(mu: float, delta: float) -> float:
    """Smallest ε ≥ 0 with δ_μ(ε) ≤ δ for μ-GDP (inverse of :func:`gdp_delta` in ε), on the safe side.

    mu: any μ > 0 (ε = ∞ when μ²/2 overflows); delta: δ ∈ (0, 1). Solved in the
    variable a = μ/2 − ε/μ, bracketed by [Φ^{-1}(δ) − 1, μ/2] (δ ≤ Φ(a)), with the
    root taken on the conservative side: the returned ε has δ(ε) ≤ δ·(1 − 1e−10)
    as evaluated (the evaluation errs by less, relatively), and it is rounded up.
    """
    mu = _check_mu(mu)
    delta = check_delta(delta)
    target = math.log(delta) + math.log1p(-DELTA_MARGIN)
    a_hi = mu / 2.0
    if _log_delta_a(mu, a_hi) <= target:
        return 0.0
    a_lo = normal_quantile(delta) - 1.0
    a = conservative_root(lambda x: _log_delta_a(mu, x) - target, a_lo, a_hi, safe="low")
    with np.errstate(over="ignore"):
        eps = float(np.float64(mu) * (np.float64(a_hi) - np.float64(a)))
    return round_up(eps) if math.isfinite(eps) else math.inf


def gdp_mu(eps: float, delta: float) -> float:
    """The largest μ such that μ-GDP implies (ε, δ)-DP (solves δ_μ(ε) = δ; δ is increasing in μ), on the safe side.

    eps: ε ≥ 0; delta: δ ∈ (0, 1). The returned μ has δ_μ(ε) ≤ δ·(1 − 1e−10) as evaluated.
    """
    eps = check_nonnegative("eps", eps)
    delta = check_delta(delta)
    target = math.log(delta) + math.log1p(-DELTA_MARGIN)

    def f(lm: float) -> float:
        mu = math.exp(lm)
        return _log_delta_a(mu, mu / 2.0 - eps / mu) - target

    lo, hi = math.log(1e-8), 0.0
    while f(hi) <= 0:
        hi += 1.0
        if hi > math.log(1e8):
            raise PrivcheckUsageError(f"no mu <= 1e8 reaches (eps={eps}, delta={delta})")
    while f(lo) > 0:
        lo -= 2.0
        if lo < -745.0:
            raise PrivcheckUsageError(f"(eps={eps}, delta={delta}) needs mu below 1e-300")
    lm = conservative_root(f, lo, hi, safe="low")
    return math.exp(lm) * (1 - 4 * 2.0**-52)


def compose_gdp(mus: float | Sequence[float], steps: int = 1) -> float:
    """μ of the composition: √(Σ μ_i²) (002 Lemma 3; Dong et al. 2019 Cor. 3.3).

    mus: one μ > 0 (homogeneous, repeated ``steps`` times) or a sequence of μ_i > 0
    (heterogeneous; then ``steps`` repeats the whole sequence). steps: integer ≥ 1.
    """
    steps = check_int("steps", steps, minimum=1)
    arr = np.atleast_1d(np.asarray(mus, dtype=float))
    if arr.size == 0:
        raise PrivcheckUsageError("mus must contain at least one value")
    for v in arr:
        _check_mu(float(v))
    m = float(np.max(arr))
    mu = m * math.sqrt(steps * float(np.sum((arr / m) ** 2)))
    if not math.isfinite(mu):
        raise PrivcheckUsageError(
            f"the composed mu = sqrt(steps * sum mu_i^2) overflows (largest mu_i {m:g}, steps {steps:.6g})"
        )
    return mu


def gaussian_mu(sigma: float, sensitivity: float = 1.0) -> float:
    """GDP parameter μ = Δ/σ of the Gaussian mechanism (002 Lemma 1). sigma, sensitivity > 0."""
    mu = check_positive("sensitivity", sensitivity) / check_positive("sigma", sigma)
    if not math.isfinite(mu):
        raise PrivcheckUsageError(
            f"sensitivity/sigma overflows: sigma={sigma!r} is too small for sensitivity={sensitivity!r}"
        )
    return mu


def gaussian_sigma(
    sensitivity: float = 1.0, *, mu: float | None = None, eps: float | None = None, delta: float | None = None
) -> float:
    """Noise σ of the Gaussian mechanism for a target μ (σ = Δ/μ) or a target (ε, δ).

    The (ε, δ) calibration is exact (the analytic Gaussian mechanism of Balle & Wang 2018):
    σ = Δ / gdp_mu(ε, δ). Give either ``mu`` or both ``eps`` and ``delta``.
    """
    sensitivity = check_positive("sensitivity", sensitivity)
    if mu is not None:
        if eps is not None or delta is not None:
            raise PrivcheckUsageError("give either mu or (eps, delta), not both")
        return sensitivity / _check_mu(mu)
    if eps is None or delta is None:
        raise PrivcheckUsageError("gaussian_sigma needs mu, or both eps and delta")
    return sensitivity / gdp_mu(eps, delta)


@dataclass(frozen=True)
class GDPBudget:
    """A composed GDP budget: total μ and the (ε, δ) it implies.

    mu: total μ; steps: number of compositions; eps, delta: the point of the
    privacy curve asked for (the other coordinate computed exactly).
    """

    mu: float
    steps: int
    eps: float
    delta: float
    mu_per_step: list[float]


def gdp_budget(
    mus: float | Sequence[float], steps: int = 1, *, eps: float | None = None, delta: float | None = None
) -> GDPBudget:
    """Compose μ's (see :func:`compose_gdp`) and report ε at ``delta`` or δ at ``eps`` (exactly one)."""
    if (eps is None) == (delta is None):
        raise PrivcheckUsageError("give exactly one of eps or delta")
    mu = compose_gdp(mus, steps)
    per = [float(v) for v in np.atleast_1d(np.asarray(mus, dtype=float))]
    if delta is not None:
        return GDPBudget(mu, int(steps), gdp_eps(mu, delta), float(delta), per)
    e = check_nonnegative("eps", eps)
    return GDPBudget(mu, int(steps), e, gdp_delta(mu, e), per)
