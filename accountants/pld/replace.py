"""Replace-one privacy profiles of Poisson-subsampled additive-noise mechanisms (Gaussian, Laplace).

Under Poisson sampling at rate q, replacing record x by x' changes the output law from
(1 − q)·M(S) + q·M(S ∪ {x}) to (1 − q)·M(S) + q·M(S ∪ {x'}). For noise density μ symmetric about 0
and a per-record contribution bounded by Δ (the base event's sensitivity, the convention of
dp_accounting's AdjacencyType.REPLACE; at q = 1 this is the 2Δ pair) the dominating pair is
    P = (1 − q)·μ + q·μ(· + Δ),    Q = (1 − q)·μ + q·μ(· − Δ)
(Zhu, Dong & Wang 2022, Sec. 4 / the dp_accounting supplement). The pair is symmetric (o ↦ −o swaps P
and Q), so both directions share one profile. Its loss L(o) = log P(o)/Q(o) is non-increasing in o,
so with t(x) = sup{o : L(o) > x}
    δ(x) = P(o < t) − e^x·Q(o < t)
         = (1 − q)(1 − e^x)F(t) + q[F(t + Δ) − e^x F(t − Δ)],  F the noise CDF.
t is found by bisection (an error in t changes δ only at second order: P and e^x Q have equal
densities at t). δ is a difference of positive terms summed in log space; where that difference
cancels beyond the discretiser's assumed relative accuracy (accountants.pld.discretise.RHO) the
points are recomputed in mpmath at 30 digits.
"""

from __future__ import annotations

import math
from typing import Callable

import mpmath
import numpy as np
from scipy import special

from accountants.pld.profile import GAUSS_SD_OPT, Profile

__all__ = ["replace_profile", "gaussian_replace_profile", "laplace_replace_profile"]

_BISECT = 200
_CANCEL_TOL = 2e-13  # estimated relative float error above which a point is redone in mpmath (RHO = 1e-12 assumed)


def _log_cdf_gauss(z):
    return special.log_ndtr(z)


def _mp_cdf_gauss(z):
    return mpmath.ncdf(z)


def _log_cdf_laplace(z):
    z = np.asarray(z, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(z < 0, z - math.log(2.0), np.log1p(-0.5 * np.exp(-np.abs(z))))


def _mp_cdf_laplace(z):
    return mpmath.exp(z) / 2 if z < 0 else 1 - mpmath.exp(-z) / 2


def _log_pdf_gauss(z):
    return -0.5 * z * z


def _log_pdf_laplace(z):
    return -np.abs(z)


def replace_profile(
    q: float,
    d: float,
    log_pdf: Callable,
    log_cdf: Callable,
    mp_cdf: Callable,
    t_max: float,
    label: str,
    bounded: bool = False,
) -> Profile:
    """Profile of the pair ((1−q)μ + qμ(·+d) ‖ (1−q)μ + qμ(·−d)) for a symmetric standardised noise
    (log density ``log_pdf`` up to a constant, log CDF ``log_cdf``, mpmath CDF ``mp_cdf``); d > 0 the
    shift in noise units, q ∈ (0, 1); the finite losses discretised are those of o ∈ [−t_max, t_max]."""
    la, lq = math.log1p(-q), math.log(q)

    def loss(o):
        o = np.asarray(o, dtype=float)
        return np.logaddexp(la + log_pdf(o), lq + log_pdf(o + d)) - np.logaddexp(la + log_pdf(o), lq + log_pdf(o - d))

    l_top = float(loss(-t_max))
    l_max = float(loss(-1e6)) if bounded else math.inf

    def f(x):
        x = np.asarray(x, dtype=float)
        shape = x.shape
        x = x.reshape(-1)
        out = np.full(x.shape, -np.inf)
        live = x < l_max
        # bisection for t = sup{o : L(o) > x}; L is non-increasing, L(−∞) = l_max, L(+∞) = −l_max
        # bounded (Laplace): L is constant (±l_max) beyond ±d, so t lies in [−d, d] when |x| < l_max
        lo = np.full(x.shape, -d if bounded else -1e6)
        hi = np.full(x.shape, d if bounded else 1e6)
        for _ in range(_BISECT):
            mid = 0.5 * (lo + hi)
            above = loss(mid) > x
            lo = np.where(above, mid, lo)
            hi = np.where(above, hi, mid)
            if np.all(hi - lo <= 1e-13 * np.maximum(1.0, np.abs(lo))):
                break
        t = lo
        with np.errstate(divide="ignore", invalid="ignore"):
            lF, lFp, lFm = log_cdf(t), log_cdf(t + d), log_cdf(t - d)
            pos = np.logaddexp(la + lF, lq + lFp)
            neg = x + np.logaddexp(la + lF, lq + lFm)
            gap = neg - pos  # δ = e^pos (1 − e^gap), gap <= 0 in exact arithmetic
            good = live & (gap < 0)
            val = pos + np.log(-np.expm1(np.where(good, gap, -1.0)))
            # a few ulps on each CDF value (log_ndtr/log1p: ~1e−16 relative), amplified by the cancellation
            rel = -np.expm1(np.where(good, gap, -1.0))
            err = (1.0e-15 + (np.abs(pos) + np.abs(neg)) * 2.3e-16) * (2.0 - rel) / rel
        out[good] = val[good]
        if bounded:  # every loss >= −l_max: δ(x) = 1 − e^x exactly for x <= −l_max
            low = x <= -l_max
            with np.errstate(divide="ignore"):
                out[low] = np.log(-np.expm1(np.minimum(x[low], 0.0)))
            good = good | low
            live = live & ~low
        redo = live & ((~good) | (err > _CANCEL_TOL))
        if redo.any():
            with mpmath.workdps(30):
                for i in np.nonzero(redo)[0]:
                    ti, xi = mpmath.mpf(float(t[i])), mpmath.mpf(float(x[i]))
                    dd = (1 - q) * (1 - mpmath.exp(xi)) * mp_cdf(ti) + q * (
                        mp_cdf(ti + d) - mpmath.exp(xi) * mp_cdf(ti - d)
                    )
                    out[i] = float(mpmath.log(dd)) if dd > 0 else -np.inf
        return out.reshape(shape)

    return Profile(label, -l_top, l_top, 0.0, f, None, f, bounded=bounded)


def gaussian_replace_profile(mu: float, q: float, label: str) -> Profile:
    """Replace-one profile of the Poisson-subsampled Gaussian, μ = Δ/σ (Δ the per-record bound), q ∈ (0, 1)."""
    return replace_profile(q, mu, _log_pdf_gauss, _log_cdf_gauss, _mp_cdf_gauss, mu + GAUSS_SD_OPT, label)


def laplace_replace_profile(eps0: float, q: float, label: str) -> Profile:
    """Replace-one profile of the Poisson-subsampled Laplace, ε0 = Δ/b, q ∈ (0, 1); its losses are
    bounded (constant beyond ±Δ), so the range is exact."""
    return replace_profile(
        q, eps0, _log_pdf_laplace, _log_cdf_laplace, _mp_cdf_laplace, eps0 + 1.0, label, bounded=True
    )
