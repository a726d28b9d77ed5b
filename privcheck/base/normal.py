"""Scalar standard-normal functions from the standard library (no scipy on the light paths).

:func:`normal_quantile` is :class:`statistics.NormalDist`'s inverse CDF (Wichura's AS241,
relative error ~1e−16 down to p = 1e−300); :func:`normal_cdf` is Φ(x) = ½ erfc(−x/√2) from
``math.erfc`` (full relative precision in the lower tail down to underflow); :func:`erfcx` is the
scaled complementary error function e^{x²} erfc(x) for x ≥ 0, accurate to a few ulps: below 26
the product with e^{x²} formed from an exact split of x² (x = h + l, h² exact), above it Laplace's
continued fraction (where erfc(x) itself would underflow).
"""

from __future__ import annotations

import functools
import math

__all__ = ["normal_quantile", "normal_cdf", "erfcx"]

_INV_SQRT_PI = 1.0 / math.sqrt(math.pi)
_SPLIT = 134217729.0  # 2^27 + 1 (Veltkamp splitting: h has at most 26 significant bits)


def normal_quantile(p: float) -> float:
    """Φ^{-1}(p), the standard normal quantile, for p in (0, 1) (``statistics.NormalDist.inv_cdf``)."""
    p = float(p)
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p!r}")
    return _std().inv_cdf(p)


@functools.cache
def _std():
    """The standard normal ``statistics.NormalDist`` (imported on first use: ``statistics`` pulls in
    ``decimal``, ``fractions`` and ``random``, which a tiny audit need not load; issue 33)."""
    from statistics import NormalDist

    return NormalDist()


def normal_cdf(x: float) -> float:
    """Φ(x) = ½ erfc(−x/√2) for any float x (relative precision kept in the lower tail)."""
    return 0.5 * math.erfc(-float(x) / math.sqrt(2.0))


def _exp_square(x: float) -> float:
    """e^{x²} without the rounding of x·x (relative error ~2 ulps instead of ~x² ulps)."""
    t = _SPLIT * x
    h = t - (t - x)
    lo = x - h
    return math.exp(h * h) * math.exp(lo * (2.0 * h + lo))


def erfcx(x: float) -> float:
    """Scaled complementary error function e^{x²} erfc(x) for x ≥ 0 (a few ulps; ~1/(x√π) for large x)."""
    x = float(x)
    if not x >= 0.0:
        raise ValueError(f"erfcx needs x >= 0, got {x!r}")
    if x < 26.0:
        return _exp_square(x) * math.erfc(x)
    if x > 1e150:
        return _INV_SQRT_PI / x
    # Laplace: erfcx(x) = (1/√π) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))), backwards from 60 terms
    t = x
    for j in range(60, 0, -1):
        t = x + (j / 2.0) / t
    return _INV_SQRT_PI / t
