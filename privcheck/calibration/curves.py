"""Exact privacy curves of the additive mechanisms a calibrator sets the noise of, as certified intervals.

Every function returns an interval ``(lo, hi)`` of floats that contains the true value (outward
rounding): a verdict drawn from ``lo > claimed`` or ``hi <= claimed`` cannot be an artefact of the
arithmetic.

- ``gaussian`` — N(0, σ²) noise, ℓ2-sensitivity Δ, μ = Δ/σ: δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)
  (Balle & Wang 2018, Thm 8; Dong, Roth & Su 2019, Cor. 2.13), evaluated in mpmath at a precision chosen
  from a float estimate (:func:`accountants.gdp.gdp_log_delta`) so that the absolute error (< 10^(5−dps),
  both terms lying in [0, 1]) is far below δ; ε(δ) by bisection on those intervals; the optimal σ is
  Δ/μ* with μ* = :func:`accountants.gdp.gdp_mu` (rounded down, so σ* is on the large side and the
  "wasted noise" never overstated).
- ``laplace`` — Lap(b) noise, ℓ1-sensitivity Δ, ε0 = Δ/b: δ(ε) = 1 − e^{(ε−ε0)/2} for ε < ε0, else 0
  (the hockey-stick divergence of two Laplace laws Δ apart); pure ε-DP at ε0.
- ``discrete-laplace`` — P(k) ∝ e^{−|k|/t} on the integers (the two-sided geometric), integer Δ: ε0 = Δ/t,
  δ(ε) = Σ_k (P(k) − e^ε P(k − Δ))_+ = (1 − e^{ε−ε0})/(1 + r) + Σ_{k=1}^{Δ−1} c r^k (1 − e^{ε−L_k})_+ with
  r = e^{−1/t}, c = (1 − r)/(1 + r), L_k = (Δ − 2k)/t (a finite sum, in mpmath).
- ``discrete-gaussian`` — P(k) ∝ e^{−k²/(2σ²)} on the integers, integer Δ: δ(ε) = Σ_k (P(k) − e^ε P(k − Δ))_+
  (Canonne, Kamath & Steinke 2020, Thm 7), summed in float64 over |k| ≤ 40σ + 40 + Δ: every term is a
  positive number computed with a relative error below 4·2⁻⁵², so the sums are within n·2⁻⁵² of the truth
  (n terms), widened here to a relative 1e−9, plus the neglected mass e^{−800} in the upper end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import mpmath
import numpy as np

from accountants.roots import round_down, round_up

Interval = tuple[float, float]


def _outward(v: mpmath.mpf, err: mpmath.mpf, lo_min: float = 0.0, hi_max: float = 1.0) -> Interval:
    """The float interval around ``v ± err`` rounded outward and clipped to ``[lo_min, hi_max]``."""
    lo, hi = v - err, v + err
    flo = max(lo_min, round_down(float(lo), 2)) if lo > lo_min else lo_min
    fhi = min(hi_max, round_up(float(hi), 2))
    return flo, max(fhi, flo)


# --------------------------------------------------------------------------- Gaussian


def gaussian_delta(sigma: float, sensitivity: float, eps: float) -> Interval:
    """δ(ε) of N(0, σ²) noise on ℓ2-sensitivity Δ (see the module docstring), as a certified interval."""
    from accountants.gdp import gdp_log_delta

    mu_f = sensitivity / sigma
    if mu_f == 0:  # infinite noise
        return 0.0, 0.0
    if not math.isfinite(mu_f):  # no noise
        return 1.0, 1.0
    try:
        est = gdp_log_delta(mu_f, eps)
    except Exception:  # noqa: BLE001 - the estimate only chooses the precision
        est = 0.0
    digits = 0.0 if not math.isfinite(est) else max(0.0, -est / math.log(10))
    dps = 40 + int(min(digits, 600))
    with mpmath.workdps(dps):
        mu = mpmath.mpf(sensitivity) / mpmath.mpf(sigma)
        e = mpmath.mpf(eps)
        v = mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu)
        return _outward(v, mpmath.mpf(10) ** (5 - dps))


def gaussian_eps_guess(sigma: float, sensitivity: float, delta: float) -> float:
    """A float estimate of ε at δ (:func:`accountants.gdp.gdp_eps`), certified afterwards by :func:`invert_eps`."""
    from accountants.gdp import gdp_eps

    return gdp_eps(sensitivity / sigma, delta)


def gaussian_optimal(sensitivity: float, eps: float, delta: float) -> float:
    """The smallest σ with δ(ε) ≤ δ, on the large side: Δ/μ* with μ* = gdp_mu(ε, δ) rounded down."""
    from accountants.gdp import gdp_mu

    return round_up(sensitivity / gdp_mu(eps, delta), 2)


# --------------------------------------------------------------------------- Laplace


def laplace_delta(scale: float, sensitivity: float, eps: float) -> Interval:
    """δ(ε) of Lap(b) noise on ℓ1-sensitivity Δ: 1 − e^{(ε − Δ/b)/2} below ε0 = Δ/b, else 0."""
    with mpmath.workdps(60):
        e0 = mpmath.mpf(sensitivity) / mpmath.mpf(scale)
        e = mpmath.mpf(eps)
        if e >= e0:
            return 0.0, 0.0
        v = -mpmath.expm1((e - e0) / 2)
        return _outward(v, mpmath.mpf(10) ** -50)


def laplace_eps0(scale: float, sensitivity: float) -> Interval:
    """ε0 = Δ/b of Lap(b) noise, as a certified interval."""
    with mpmath.workdps(60):
        v = mpmath.mpf(sensitivity) / mpmath.mpf(scale)
        return _outward(v, v * mpmath.mpf(10) ** -50, 0.0, math.inf)


def laplace_optimal(sensitivity: float, eps: float, delta: float) -> float:
    """The smallest b with δ(ε) ≤ δ: Δ/(ε − 2 ln(1 − δ)), rounded up."""
    with mpmath.workdps(60):
        v = mpmath.mpf(sensitivity) / (mpmath.mpf(eps) - 2 * mpmath.log1p(-mpmath.mpf(delta)))
        return round_up(float(v), 2)


# --------------------------------------------------------------------------- discrete Laplace


def discrete_laplace_delta(scale: float, sensitivity: float, eps: float) -> Interval:
    """δ(ε) of the discrete Laplace law P(k) ∝ e^{−|k|/t} on integer sensitivity Δ (finite sum, mpmath)."""
    d = int(sensitivity)
    with mpmath.workdps(60 + int(eps / 2.3)):
        t = mpmath.mpf(scale)
        e = mpmath.mpf(eps)
        r = mpmath.exp(-1 / t)
        c = (1 - r) / (1 + r)
        total = mpmath.mpf(0)
        if e < d / t:
            total += -mpmath.expm1(e - d / t) / (1 + r)
        for k in range(1, d):
            lk = (d - 2 * k) / t
            if lk > e:
                total += c * r**k * -mpmath.expm1(e - lk)
        return _outward(total, mpmath.mpf(10) ** -45)


def discrete_laplace_eps0(scale: float, sensitivity: float) -> Interval:
    """ε0 = Δ/t of the discrete Laplace law, as a certified interval."""
    return laplace_eps0(scale, sensitivity)


# --------------------------------------------------------------------------- discrete Gaussian


def discrete_gaussian_delta(sigma: float, sensitivity: float, eps: float) -> Interval:
    """δ(ε) of the discrete Gaussian N_Z(0, σ²) on integer sensitivity Δ (Canonne, Kamath & Steinke 2020, Thm 7)."""
    d = int(sensitivity)
    s = float(sigma)
    kmax = int(math.ceil(40 * s)) + 40 + d
    k = np.arange(-kmax, kmax + 1, dtype=float)
    logw = -(k * k) / (2 * s * s)
    z = float(np.sum(np.exp(logw)))
    loss = (d * d - 2 * k * d) / (2 * s * s)  # log P(k)/P(k − Δ)
    sel = loss > eps
    with np.errstate(under="ignore"):
        terms = np.exp(logw[sel]) * -np.expm1(eps - loss[sel])
    v = float(np.sum(terms)) / z
    rel = 1e-9
    return max(0.0, round_down(v * (1 - rel), 2)), min(1.0, round_up(v * (1 + rel) + math.exp(-800.0), 2))


# --------------------------------------------------------------------------- generic inversions


def invert_eps(
    delta_fn: Callable[[float], Interval], delta: float, hi: float = 1.0, guess: float | None = None
) -> Interval:
    """The certified interval of the smallest ε ≥ 0 with δ(ε) ≤ ``delta``, for a δ(ε) decreasing in ε given
    as intervals: lo has δ_lower(lo) > delta (or lo = 0), hi has δ_upper(hi) ≤ delta; relative width 1e−12.
    ``guess``: a float estimate of the root; when a bracket of relative width 1e−11 around it is certified by
    two evaluations, no bisection is needed."""
    if delta_fn(0.0)[1] <= delta:
        return 0.0, 0.0
    if guess is not None and 0 < guess < math.inf:
        g_hi = round_up(guess, 4)
        if delta_fn(g_hi)[1] <= delta:
            g_lo = g_hi * (1 - 1e-11)
            if delta_fn(g_lo)[0] > delta:
                return g_lo, g_hi
            hi = g_hi
    lo = 0.0
    while delta_fn(hi)[1] > delta:
        lo, hi = hi, 2 * hi
        if hi > 1e6:
            return lo, math.inf
    for _ in range(200):
        if hi - lo <= 1e-12 * hi:
            break
        mid = (lo + hi) / 2
        dlo, dhi = delta_fn(mid)
        if dhi <= delta:
            hi = mid
        elif dlo > delta:
            lo = mid
        else:  # the interval straddles δ: neither side is certain, keep both ends
            break
    return lo, hi


def invert_scale(delta_fn: Callable[[float], Interval], delta: float, start: float) -> float:
    """The smallest scale s with δ_s(ε) ≤ ``delta`` (δ decreasing in s), returned on the large side
    (δ_upper at the result ≤ delta), to a relative 1e−10; ``delta_fn(s)`` gives the interval at scale s."""
    hi = max(start, 1e-300)
    while delta_fn(hi)[1] > delta:
        hi *= 2
        if hi > 1e300:
            return math.inf
    lo = hi / 2
    while lo > 1e-300 and delta_fn(lo)[1] <= delta:
        hi, lo = lo, lo / 2
    for _ in range(200):
        if hi - lo <= 1e-10 * hi:
            break
        mid = (lo + hi) / 2
        if delta_fn(mid)[1] <= delta:
            hi = mid
        else:
            lo = mid
    return hi


@dataclass(frozen=True)
class Mechanism:
    """A calibrated mechanism: ``delta(scale, Δ, ε)`` and ``eps0(scale, Δ)`` (pure ε, or None) as
    intervals, ``optimal(Δ, ε, δ)`` the smallest scale meeting (ε, δ) (large side), ``integer``: Δ must be
    an integer, ``pure``: ε-DP at δ = 0 (default δ grid {0}), ``scale``: what the calibrator returns."""

    name: str
    delta: Callable[[float, float, float], Interval]
    eps0: Callable[[float, float], Interval] | None
    optimal: Callable[[float, float, float], float]
    integer: bool
    pure: bool
    scale: str
    source: str
    eps_guess: Callable[[float, float, float], float] | None = None


def _generic_optimal(delta_fn: Callable[[float, float, float], Interval], pure: Callable | None):
    def optimal(sensitivity: float, eps: float, delta: float) -> float:
        if delta == 0 and pure is not None:
            return round_up(sensitivity / eps, 2)
        return invert_scale(lambda s: delta_fn(s, sensitivity, eps), delta, sensitivity / max(eps, 1e-300))

    return optimal


MECHANISMS: dict[str, Mechanism] = {
    m.name: m
    for m in (
        Mechanism(
            "gaussian",
            gaussian_delta,
            None,
            gaussian_optimal,
            False,
            False,
            "sigma (standard deviation)",
            "Balle & Wang 2018, Thm 8 (exact Gaussian curve)",
            gaussian_eps_guess,
        ),
        Mechanism(
            "laplace",
            laplace_delta,
            laplace_eps0,
            laplace_optimal,
            False,
            True,
            "b (Laplace scale)",
            "Dwork & Roth 2014, Thm 3.6; hockey-stick divergence of two Laplace laws",
            lambda b, sens, d: max(0.0, sens / b + 2 * math.log1p(-d)),
        ),
        Mechanism(
            "discrete-laplace",
            discrete_laplace_delta,
            discrete_laplace_eps0,
            _generic_optimal(discrete_laplace_delta, discrete_laplace_eps0),
            True,
            True,
            "t (P(k) proportional to exp(-|k|/t))",
            "Ghosh, Roughgarden & Sundararajan 2012 (geometric mechanism); Canonne, Kamath & Steinke 2020",
        ),
        Mechanism(
            "discrete-gaussian",
            discrete_gaussian_delta,
            None,
            _generic_optimal(discrete_gaussian_delta, None),
            True,
            False,
            "sigma (P(k) proportional to exp(-k^2/(2 sigma^2)))",
            "Canonne, Kamath & Steinke 2020, Thm 7",
        ),
    )
}


def implied_mu(eps: float, delta: float) -> float:
    """The μ that an (ε, δ) claim implies for a Gaussian-additive mechanism: the largest μ such that μ-GDP
    gives (ε, δ)-DP (δ_μ(ε) = δ, Dong, Roth & Su 2019, Cor. 2.13), rounded down (:func:`accountants.gdp.gdp_mu`).

    A mechanism declared Gaussian-additive meets the (ε, δ) claim exactly when it is μ-GDP with this μ, so
    an (ε, δ) audit without power can audit this μ instead (a trade-off-curve claim), conditional on the
    declared family. eps ≥ 0, delta in (0, 1).
    """
    from accountants.gdp import gdp_mu

    return gdp_mu(eps, delta)
