"""Certified trade-off curves (f-DP) from a PLD accountant's certified privacy profile.

Notation (Dong, Roth & Su 2022, "Gaussian differential privacy", JRSS-B; Sect. 2 and App. F).
For the pair (P, Q) = (M(D), M(D')) the trade-off function is
T(P,Q)(α) = inf{1 − E_Q φ : E_P φ ≤ α} (β = type II error at type I error α). With the hockey-stick
divergences δ_{Q‖P}(ε) = sup_S Q(S) − e^ε P(S) for all real ε (Prop. 2.12 / the convex conjugate):

    T(P,Q)(α) = sup_{ε ∈ ℝ} max(0, 1 − δ_{Q‖P}(ε) − e^ε α),

and for ε = −ε' < 0, δ_{Q‖P}(−ε') = 1 − e^{−ε'} + e^{−ε'} δ_{P‖Q}(ε').
The accountant's privacy profile δ(ε) (ε ≥ 0) is the maximum over both directions, (P‖Q) and
(Q‖P) — for add/remove the pairs (M(D), M(D')) and (M(D'), M(D)), for replace-one whatever
pairs the accountant's events define. Its curve

    f(α) = sup_{ε ≥ 0} max(0, 1 − δ(ε) − e^ε α, e^{−ε}(1 − δ(ε) − α))

is the symmetrised trade-off function of App. F, Def. F.1: the lower convex envelope of
min(T(P,Q), T(Q,P)) (the conjugate of a minimum is the maximum of the conjugates), i.e. the
tightest symmetric f such that the mechanism is f-DP for both orders of every neighbouring pair.

Certification. δ(ε) is only known as an interval [δ_lo(ε), δ_hi(ε)] on a finite grid of ε.
- Lower end of β: every grid point ε_i gives a valid bound 1 − δ_hi(ε_i) − e^{ε_i} α (and the
  mirrored term), so the maximum over the grid is ≤ f(α).
- Upper end of β: the supremum over *all* ε is needed. In t = e^ε the profile δ(t) = E[(1 − t e^{−L})_+]
  is convex and non-increasing, so on each grid cell [t_j, t_{j+1}] it lies above (i) the constant
  δ_lo(t_{j+1}), (ii) the extension of the secant over the previous cell and (iii) the backward
  extension of the secant over the next cell (secants built from the interval ends that make them
  lower). The maximum ℓ(t) of these lines is a certified piecewise-linear lower bound for δ on the
  cell; both objectives 1 − ℓ(t) − αt and (1 − α − ℓ(t))/t are monotone on each linear piece,
  so their supremum is attained at the cell ends or at a crossing of two lines — evaluated
  exactly there. Beyond the last grid point t_G: f ≤ max(1 − α t_G, (1 − α)/t_G).
Both ends are then rounded outward (1e−12 absolute + 1e−9 relative) and clipped to [0, 1 − α].

A composition of plain Gaussians is μ-GDP exactly (Dong et al. Cor. 3.3); there the curve is
G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) with μ recovered from the accountant's certified δ(0) = 2Φ(μ/2) − 1.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from privcheck.errors import PrivcheckUsageError

__all__ = [
    "DeltaGrid",
    "delta_grid",
    "curve_bounds",
    "gaussian_curve",
    "tradeoff_interval",
    "check_alpha",
    "ABS_PAD",
    "REL_PAD",
]

ABS_PAD = 1e-12   # outward rounding of every reported curve value (absolute) ...
REL_PAD = 1e-9    # ... plus this relative amount
DELTA_FLOOR = 1e-8  # the ε grid runs up to (an upper bound on) ε(DELTA_FLOOR) (no tilted FFT needed)
EPS_CAP = 60.0
DEFAULT_POINTS = 241


@dataclass(frozen=True)
class DeltaGrid:
    """Certified δ(ε) intervals on an increasing grid ``eps`` ≥ 0: ``lo[i] <= δ(eps[i]) <= hi[i]``."""

    eps: np.ndarray
    lo: np.ndarray
    hi: np.ndarray


def check_alpha(alpha, name: str = "alpha") -> np.ndarray:
    """``alpha`` (scalar or array-like) as a float array, every entry a probability in [0, 1].

    Raises PrivcheckUsageError with a one-line message naming the first bad value otherwise."""
    try:
        a = np.asarray(alpha, dtype=float)
    except (TypeError, ValueError):
        raise PrivcheckUsageError(f"{name} must be a number or an array of numbers in [0, 1], got {alpha!r}") from None
    bad = ~((a >= 0) & (a <= 1))  # NaN fails both comparisons
    if bad.any():
        v = a[bad].flat[0]
        raise PrivcheckUsageError(f"{name} must be a probability in [0, 1], got {v!r}")
    return a


def delta_grid(acc, points: int = DEFAULT_POINTS) -> DeltaGrid:
    """Certified δ(ε) on ``points`` ≥ 3 equally spaced ε from 0 to ε(1e−8)'s upper end (capped at 60).

    acc: a composed PLDAccountant (its ``epsilon`` and ``delta_bounds`` are used)."""
    if points < 3:
        raise PrivcheckUsageError(f"points must be an integer >= 3, got {points!r}")
    top = acc.epsilon(DELTA_FLOOR).upper
    top = EPS_CAP if not math.isfinite(top) else min(max(top, 1e-3), EPS_CAP)
    eps = np.linspace(0.0, top, int(points))
    lo, hi = acc.delta_bounds(eps)
    # δ is non-increasing in ε: a later lower bound is also a lower bound here, an earlier upper bound too
    lo = np.maximum.accumulate(lo[::-1])[::-1]
    hi = np.minimum.accumulate(hi)
    return DeltaGrid(eps, np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0))


def _lower_from_grid(g: DeltaGrid, a: np.ndarray) -> np.ndarray:
    """max over grid points of the two certified terms, for a 1-d array ``a``."""
    t = np.exp(g.eps)
    out = np.zeros(a.size)
    for s in range(0, a.size, 512):
        aa = a[s:s + 512, None]
        plus = 1.0 - g.hi[None, :] - t[None, :] * aa
        minus = (1.0 - aa - g.hi[None, :]) / t[None, :]
        out[s:s + 512] = np.maximum(plus.max(axis=1), minus.max(axis=1))
    return np.maximum(out, 0.0)


def _cell_candidates(g: DeltaGrid) -> tuple[np.ndarray, np.ndarray]:
    """Per grid cell: candidate points t (cell ends, crossings of the bounding lines) and the
    certified lower bound ℓ(t) on δ there. Shapes (cells, 8)."""
    t = np.exp(g.eps)
    t0, t1 = t[:-1], t[1:]
    n = t0.size
    lo, hi = g.lo, g.hi
    C = lo[1:]  # constant: δ(t) >= δ_lo(t_{j+1}) on the cell
    # line through (t_{j-1}, hi_{j-1}) and (t_j, lo_j), valid for t >= t_j
    s1 = np.full(n, 0.0)
    b1 = np.full(n, -np.inf)
    s1[1:] = (lo[1:-1] - hi[:-2]) / (t[1:-1] - t[:-2])
    b1[1:] = lo[1:-1] - s1[1:] * t[1:-1]
    # line through (t_{j+1}, lo_{j+1}) and (t_{j+2}, hi_{j+2}), valid for t <= t_{j+1}
    s2 = np.full(n, 0.0)
    b2 = np.full(n, -np.inf)
    s2[:-1] = (hi[2:] - lo[1:-1]) / (t[2:] - t[1:-1])
    b2[:-1] = lo[1:-1] - s2[:-1] * t[1:-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        x12 = (b2 - b1) / (s1 - s2)
        x1c = (C - b1) / s1
        x2c = (C - b2) / s2
    cands = [t0, t1, x12, x1c, x2c]
    T = np.stack([np.where(np.isfinite(x), np.clip(x, t0, t1), t0) for x in cands], axis=1)
    with np.errstate(invalid="ignore"):
        L1 = np.where(np.isfinite(b1)[:, None], b1[:, None] + s1[:, None] * T, -np.inf)
        L2 = np.where(np.isfinite(b2)[:, None], b2[:, None] + s2[:, None] * T, -np.inf)
    ell = np.maximum(np.maximum(L1, L2), C[:, None])
    return T.ravel(), np.clip(ell, 0.0, 1.0).ravel()


def _upper_from_grid(g: DeltaGrid, a: np.ndarray) -> np.ndarray:
    T, ell = _cell_candidates(g)
    tG = float(np.exp(g.eps[-1]))
    out = np.empty(a.size)
    for s in range(0, a.size, 256):
        aa = a[s:s + 256, None]
        plus = (1.0 - ell[None, :] - T[None, :] * aa).max(axis=1)
        minus = ((1.0 - aa - ell[None, :]) / T[None, :]).max(axis=1)
        tail = np.maximum(1.0 - a[s:s + 256] * tG, (1.0 - a[s:s + 256]) / tG)
        out[s:s + 256] = np.maximum(np.maximum(plus, minus), tail)
    return out


def curve_bounds(g: DeltaGrid, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Certified (lower, upper) on the symmetrised trade-off curve f(α) from a DeltaGrid.

    alpha: 1-d float array in [0, 1]. Rounded outward and clipped to [0, 1 − α]."""
    a = np.asarray(alpha, dtype=float).ravel()
    lo = _lower_from_grid(g, a)
    up = _upper_from_grid(g, a)
    return _round_out(lo, up, a)


def _round_out(lo: np.ndarray, up: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    cap = np.minimum(1.0, (1.0 - a) * (1 + 2**-52))  # f(α) <= 1 − α (the trivial test); 1 − α rounded up
    lo = np.clip(lo * (1 - REL_PAD) - ABS_PAD, 0.0, None)
    up = np.minimum(up * (1 + REL_PAD) + ABS_PAD, cap)
    lo = np.minimum(lo, up)
    return lo, up


def gaussian_curve(mu, alpha) -> np.ndarray:
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), the μ-GDP trade-off curve (Dong et al. 2022, eq. (2.4)).

    mu >= 0 (scalar or broadcastable array, +inf allowed); alpha in [0, 1]."""
    return norm.cdf(norm.isf(alpha) - mu)


def _gdp_mu_interval(acc) -> tuple[float, float] | None:
    """μ bracket of an exactly μ-GDP composition from its certified δ(0) = 2Φ(μ/2) − 1, or None."""
    iv = acc.delta(0.0)
    if iv.method != "exact GDP" or not iv.upper < 1 - 1e-6:
        return None
    m_lo = 2.0 * float(norm.ppf((1.0 + iv.lower) / 2.0))
    m_hi = 2.0 * float(norm.ppf((1.0 + iv.upper) / 2.0))
    return max(0.0, m_lo * (1 - 1e-9) - 1e-12), m_hi * (1 + 1e-9) + 1e-12


def tradeoff_interval(acc, alpha, points: int = DEFAULT_POINTS, grid: DeltaGrid | None = None):
    """β(α) of the accountant's composition as a certified interval (lower, upper, method, notes).

    acc: composed PLDAccountant; alpha: scalar or array in [0, 1] (vectorised; the result has
    alpha's shape, floats for a scalar); points: ε-grid size for the PLD route (more = tighter,
    cost linear); grid: a precomputed DeltaGrid (reused by gdp()/risk())."""
    from accountants.pld.accountant import Interval

    a = check_alpha(alpha)
    shape = a.shape
    flat = a.ravel()
    mus = None if grid is not None else _gdp_mu_interval(acc)
    if mus is not None:
        lo = gaussian_curve(mus[1], flat)
        up = gaussian_curve(mus[0], flat)
        lo, up = _round_out(lo, up, flat)
        method, notes = "exact GDP", (f"mu in [{mus[0]:.12g}, {mus[1]:.12g}]",)
    else:
        g = grid if grid is not None else delta_grid(acc, points)
        lo, up = curve_bounds(g, flat)
        method = "pld-profile"
        notes = (f"conjugate of the certified profile on {g.eps.size} eps points in [0, {g.eps[-1]:.6g}]",)
    if shape == ():
        return Interval(float(lo[0]), float(up[0]), method, notes)
    return Interval(lo.reshape(shape), up.reshape(shape), method, notes)
