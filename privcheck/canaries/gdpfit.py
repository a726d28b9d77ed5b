"""From a certified μ lower bound to the ε it implies at δ *if* the trade-off curve is Gaussian.

Nasr et al. (2023) report ε(μ̂, δ), the ε at δ of the μ̂-GDP curve (Dong, Roth & Su 2022,
Cor. 2.13: δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)). It lower-bounds the mechanism's ε only for
mechanisms whose curve is G_μ for some μ (approximately DP-SGD's); privcheck reports it as
``eps_if_gdp`` next to the assumption-free ``eps_lower``. Here it is the largest ε with
δ_μ(ε) ≥ δ·(1 + 1e−9) as evaluated by :func:`accountants.gdp.gdp_log_delta` (relative error far
below the margin), so it never exceeds the exact ε(μ, δ) of the certified μ.
"""

from __future__ import annotations

import math

from accountants.gdp import gdp_log_delta

__all__ = ["eps_if_gdp"]

_MARGIN = 1e-9


def eps_if_gdp(mu: float, delta: float) -> float:
    """Largest ε (rounded down) with δ_μ(ε) ≥ δ; 0 when μ ≤ 0, inf when δ = 0 and μ > 0."""
    if not mu > 0.0:
        return 0.0
    if delta <= 0.0:
        return math.inf
    target = math.log(delta) + math.log1p(_MARGIN)
    if gdp_log_delta(mu, 0.0) < target:
        return 0.0
    lo, hi = 0.0, max(1.0, mu * mu)
    while gdp_log_delta(mu, hi) >= target:
        lo, hi = hi, 2.0 * hi
    while hi - lo > 1e-13 * max(1.0, hi):
        mid = 0.5 * (lo + hi)
        if gdp_log_delta(mu, mid) >= target:
            lo = mid
        else:
            hi = mid
    return lo
