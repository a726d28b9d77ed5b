"""Outward rounding and certified scalar functions shared by the canary-score bounds.

Every bound of :mod:`privcheck.canaries` ends in a float that must lie on the safe side of the
exact value: a lower bound rounded down, an upper bound rounded up. The helpers here do that
after the last float operation: :func:`down` / :func:`up` step a few ulps, :func:`mp_down` /
:func:`mp_up` round an mpmath value (computed with enough digits) to the neighbouring double
on the required side, and :func:`logit_down`, :func:`z_lower` give the two transformations the
bounds need with that guarantee (checked in mpmath, not trusted from libm).
"""

from __future__ import annotations

import math

import mpmath

from privcheck.base.normal import normal_quantile

__all__ = ["down", "up", "mp_down", "mp_up", "logit_down", "logistic", "z_lower", "DPS"]

#: working precision (decimal digits) of the mpmath evaluations here
DPS = 40


def down(x: float, ulps: int = 2) -> float:
    """``x`` moved ``ulps`` doubles towards −∞ (covers that many roundings of the last operation)."""
    for _ in range(ulps):
        x = math.nextafter(x, -math.inf)
    return x


def up(x: float, ulps: int = 2) -> float:
    """``x`` moved ``ulps`` doubles towards +∞."""
    for _ in range(ulps):
        x = math.nextafter(x, math.inf)
    return x


def mp_down(v) -> float:
    """The largest double ≤ the mpmath number ``v`` (−inf for −inf)."""
    f = float(v)
    if math.isfinite(f) and mpmath.mpf(f) > v:
        f = math.nextafter(f, -math.inf)
    return f


def mp_up(v) -> float:
    """The smallest double ≥ the mpmath number ``v``."""
    f = float(v)
    if math.isfinite(f) and mpmath.mpf(f) < v:
        f = math.nextafter(f, math.inf)
    return f


def logistic(eps: float) -> float:
    """e^ε/(1 + e^ε) in floats (the accuracy of ε-DP randomised response), for ε ≥ 0."""
    return 1.0 / (1.0 + math.exp(-eps))


def logit_down(p: float) -> float:
    """A double ≤ log(p / (1 − p)) for a double p in (0, 1) (evaluated in mpmath, rounded down)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p!r}")
    with mpmath.workdps(DPS):
        x = mpmath.mpf(p)
        return mp_down(mpmath.log(x / (1 - x)))


def z_lower(p: float) -> float:
    """A double z ≤ Φ⁻¹(1 − p) = −Φ⁻¹(p) for a double p in (0, 1) (Φ(−z) ≥ p checked in mpmath).

    Starts from ``statistics.NormalDist`` (AS241, ~1e−16 relative) and steps down until the
    mpmath check passes, so the result is certified whatever libm does."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p!r}")
    z = -normal_quantile(p)
    extra = int(-math.log10(p)) if p < 1e-10 else 0
    with mpmath.workdps(DPS + extra):
        target = mpmath.mpf(p)
        for _ in range(64):
            if mpmath.ncdf(-mpmath.mpf(z)) >= target:
                return z
            z = down(z, 1)
    raise ArithmeticError(f"could not certify the normal quantile at p={p!r}")
