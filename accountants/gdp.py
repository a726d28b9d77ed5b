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
used (δ is then not small). :func:`gdp_log_delta` returns log δ for root finding.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import optimize, special

from privcheck.errors import PrivcheckUsageError
from privcheck.validation import check_delta, check_int, check_nonnegative, check_positive

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


def gdp_log_delta(mu: float, eps: float) -> float:
    """log δ(ε) of μ-GDP (002 Lemma 2), stable in the far tail.

    mu: μ > 0; eps: ε ≥ 0. Returns log δ ∈ (−∞, 0).
    """
    mu = _check_mu(mu)
    eps = check_nonnegative("eps", eps)
    a = -eps / mu + mu / 2.0
    b = a - mu
    if a < 0:
        diff = special.erfcx(-a / _SQRT2) - special.erfcx(-b / _SQRT2)
        if diff <= 0:  # only when δ underflows every representation
            return -math.inf
        return -a * a / 2.0 + math.log(0.5 * diff)
    # a >= 0: Φ(a) ≥ 1/2, δ is not small; e^ε Φ(b) = ½ e^{-a²/2} erfcx(-b/√2) when b < 0
    if b < 0:
        second = 0.5 * math.exp(-a * a / 2.0) * special.erfcx(-b / _SQRT2)
    else:
        second = math.exp(eps) * special.ndtr(b)
    d = special.ndtr(a) - second
    return math.log(d) if d > 0 else -math.inf


def gdp_delta(mu: float, eps: float) -> float:
    """Exact δ(ε) of μ-GDP: Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (002 Lemma 2; Dong et al. 2019 Cor. 2.13).

    mu: μ > 0; eps: ε ≥ 0. Returns δ ∈ [0, 1).
    """
    return math.exp(gdp_log_delta(mu, eps))


def _eps_upper(mu: float, delta: float) -> float:
    # δ(ε) ≤ Φ(−ε/μ + μ/2), so ε = μ²/2 − μ Φ^{-1}(δ) has δ(ε) ≤ δ
    return mu * mu / 2.0 - mu * float(special.ndtri(delta)) + 1.0


def gdp_eps(mu: float, delta: float) -> float:
    """Smallest ε ≥ 0 with δ_μ(ε) ≤ δ for μ-GDP (inverse of :func:`gdp_delta` in ε).

    mu: μ > 0; delta: δ ∈ (0, 1). Solved in log δ with Brent's method (relative tolerance
    ~1e−15), so it stays accurate for δ down to 1e−300.
    """
    mu = _check_mu(mu)
    delta = check_delta(delta)
    logd = math.log(delta)
    if gdp_log_delta(mu, 0.0) <= logd:
        return 0.0
    hi = _eps_upper(mu, delta)
    return float(optimize.brentq(lambda e: gdp_log_delta(mu, e) - logd, 0.0, hi, xtol=1e-18, rtol=1e-15, maxiter=500))


def gdp_mu(eps: float, delta: float) -> float:
    """The largest μ such that μ-GDP implies (ε, δ)-DP (solves δ_μ(ε) = δ; δ is increasing in μ).

    eps: ε ≥ 0; delta: δ ∈ (0, 1).
    """
    eps = check_nonnegative("eps", eps)
    delta = check_delta(delta)
    logd = math.log(delta)
    f = lambda lm: gdp_log_delta(math.exp(lm), eps) - logd  # noqa: E731
    lo, hi = math.log(1e-8), math.log(1.0)
    while f(hi) < 0:
        hi += 1.0
        if hi > math.log(1e4):
            raise PrivcheckUsageError(f"no μ ≤ 1e4 reaches (eps={eps}, delta={delta})")
    while f(lo) > 0:
        lo -= 2.0
    return math.exp(optimize.brentq(f, lo, hi, xtol=1e-18, rtol=1e-15, maxiter=500))


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
    return m * math.sqrt(steps * float(np.sum((arr / m) ** 2)))


def gaussian_mu(sigma: float, sensitivity: float = 1.0) -> float:
    """GDP parameter μ = Δ/σ of the Gaussian mechanism (002 Lemma 1). sigma, sensitivity > 0."""
    return check_positive("sensitivity", sensitivity) / check_positive("sigma", sigma)


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
