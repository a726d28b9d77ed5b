"""Certified bounds from confidence boxes of trade-off points: μ (μ-GDP) and ε at δ, rounded down.

A box ``{α ≤ α_hi, β ≤ β_hi}`` holding the true (type I, type II) errors of a test between ``M(x)`` and
``M(x')`` certifies (Dong, Roth & Su 2019, Def. 2.6 and Prop. 2.4/2.5):

- ``μ ≥ Φ⁻¹(1 − α_hi) − Φ⁻¹(β_hi)`` (the mechanism's curve lies below ``G_μ`` for any smaller μ);
- ``ε(δ) ≥ max(log((1 − δ − β_hi)/α_hi), log((1 − δ − α_hi)/β_hi))``.

Every bound is rounded down by a relative :data:`ROUND`, so floating-point error never makes a refutation.
"""

from __future__ import annotations

import numpy as np

#: relative outward rounding of every reported bound and of claimed curves
ROUND = 1e-12


def round_down(v) -> np.ndarray:
    """``v`` lowered by the relative and absolute slack :data:`ROUND` (outward rounding of a lower bound)."""
    v = np.asarray(v, dtype=np.float64)
    return v - ROUND * (1.0 + np.abs(v))


def mu_from_box(alpha_hi, beta_hi) -> np.ndarray:
    """The μ certified exceeded by boxes ``{α ≤ α_hi, β ≤ β_hi}``: ``Φ⁻¹(1 − α_hi) − Φ⁻¹(β_hi)`` rounded down
    (``-inf`` when a coordinate's upper limit is 1)."""
    from scipy.special import ndtri  # vectorised Φ⁻¹; imported here to keep scipy off the ε-audit path

    with np.errstate(all="ignore"):
        v = -ndtri(np.asarray(alpha_hi, float)) - ndtri(np.asarray(beta_hi, float))
    return np.where(np.isnan(v), -np.inf, round_down(v))


def eps_from_box(alpha_hi, beta_hi, delta: float) -> np.ndarray:
    """The ε certified at δ by boxes: ``max(log((1 − δ − β_hi)/α_hi), log((1 − δ − α_hi)/β_hi))`` rounded
    down (``-inf`` where neither argument is positive)."""
    a, b = np.asarray(alpha_hi, float), np.asarray(beta_hi, float)
    with np.errstate(all="ignore"):
        one = np.log(np.maximum(1.0 - delta - b, 0.0)) - np.log(a)
        two = np.log(np.maximum(1.0 - delta - a, 0.0)) - np.log(b)
    v = np.fmax(np.where(np.isnan(one), -np.inf, one), np.where(np.isnan(two), -np.inf, two))
    return np.where(np.isfinite(v), round_down(v), v)
