"""One-run audits of f-DP curves (Mahloujifar, Melis & Chaudhuri, "Auditing f-differential privacy
in one run", ICML 2025, arXiv:2410.22235, the recursion with abstentions, "audit_rh_with_cap").

Setting as in :mod:`privcheck.canaries.steinke`: m canaries each included with probability ½,
c' guesses, c of them correct. For a trade-off function f (symmetric), with
f̄⁻¹(y) = f(1 − y) the inverse of the "blow-up" y ↦ 1 − f(y), and τ the test's level, the
recursion is

    r_c = τ·c/m,   h_c = τ·(c' − c)/m,
    for i = c − 1, …, 0:   h_i = max(h_{i+1}, f̄⁻¹(r_{i+1})),
                           r_i = r_{i+1} + i/(c' − i) · (h_i − h_{i+1}),

and the f-DP claim is rejected at level τ when r_0 + h_0 > c'/m. Both r_i and h_i only grow as i
falls, so the test stops as soon as r + h exceeds c'/m (rejected) or h stops changing (then
nothing changes any more: not rejected).

Curve families (``family``):

- ``("dp", δ)``: (ε, δ)-DP, f(x) = max(0, 1 − δ − e^ε x, e^{−ε}(1 − δ − x)), parameter ε:
  a rejection refutes (ε, δ)-DP (Dong, Roth & Su 2022, Prop. 2.5: (ε, δ)-DP is f_{ε,δ}-DP);
- ``("gdp",)``: μ-GDP, f = G_μ, f̄⁻¹(y) = Φ(Φ⁻¹(y) − μ), parameter μ;
- :class:`TableCurve`: a certified *lower* curve (e.g. an accountant's, from
  :func:`accountants.pld.tradeoff`), used as a step function from below: f(x) ≥ f_lo(x_j) for the
  first grid point x_j ≥ x. A weaker curve only weakens the claim, so its rejection still refutes
  the accountant.

Numerics: the search runs in floats (vectorised over candidate rules); the final rejection is
re-checked in mpmath at 50 digits and must clear c'/m by a margin of 1e−30 (far above the
recursion's rounding), stepping the parameter down until it does. The parameter returned is
therefore rejected by the recursion evaluated in high precision — never above the published
test's own inverse, up to that margin.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Callable, Sequence

import mpmath
import numpy as np

from privcheck.base.normal import normal_cdf, normal_quantile

__all__ = ["Family", "TableCurve", "dp_family", "gdp_family", "mp_ndtri", "reject_many", "reject_mp", "sup_rejected"]

_MP_DPS = 50
_MP_MARGIN = mpmath.mpf("1e-30")


@dataclass(frozen=True)
class Family:
    """A one-parameter family of symmetric trade-off curves given by f̄⁻¹(y; θ) (θ larger = weaker claim).

    name: ``dp`` or ``gdp``; delta: the δ of the ``dp`` family; hi: an upper end for the search."""

    name: str
    delta: float = 0.0
    hi: float = 64.0

    def vec(self, y: np.ndarray, theta: float) -> np.ndarray:
        """f̄⁻¹ on an array (floats)."""
        if self.name == "dp":
            e = math.exp(theta)
            return np.maximum(0.0, np.maximum(1.0 - self.delta - e * (1.0 - y), (y - self.delta) / e))
        from scipy.special import ndtr, ndtri

        return ndtr(ndtri(np.minimum(y, 1.0)) - theta)

    def scalar(self, y: float, theta: float) -> float:
        """f̄⁻¹ at one point (floats)."""
        if self.name == "dp":
            e = math.exp(theta)
            return max(0.0, 1.0 - self.delta - e * (1.0 - y), (y - self.delta) / e)
        if y >= 1.0:
            return 1.0
        if y <= 0.0:
            return 0.0
        return normal_cdf(normal_quantile(y) - theta)

    def mp(self, y, theta: float):
        """f̄⁻¹ at one point in mpmath."""
        t = mpmath.mpf(theta)
        if self.name == "dp":
            d = mpmath.mpf(self.delta)
            e = mpmath.exp(t)
            return max(mpmath.mpf(0), 1 - d - e * (1 - y), (y - d) / e)
        if y >= 1:
            return mpmath.mpf(1)
        if y <= 0:
            return mpmath.mpf(0)
        return mpmath.ncdf(mp_ndtri(y) - t)


def mp_ndtri(y):
    """Φ⁻¹(y) in mpmath for 0 < y < 1: Newton steps from the double-precision quantile to full precision."""
    yf = float(y)
    if 0.0 < yf < 1.0:
        x = mpmath.mpf(normal_quantile(yf))
    else:
        x = mpmath.sqrt(2) * mpmath.erfinv(2 * y - 1)
    for _ in range(8):
        step = (mpmath.ncdf(x) - y) / mpmath.npdf(x)
        x -= step
        if abs(step) <= abs(x) * mpmath.mpf(10) ** (-mpmath.mp.dps + 3) + mpmath.mpf(10) ** (-mpmath.mp.dps):
            break
    return x


def dp_family(delta: float) -> Family:
    """(ε, δ)-DP curves, parameter ε."""
    return Family("dp", float(delta), 64.0)


def gdp_family() -> Family:
    """μ-GDP curves, parameter μ."""
    return Family("gdp", 0.0, 40.0)


@dataclass(frozen=True)
class TableCurve:
    """A certified lower trade-off curve on a grid: ``x`` increasing in [0, 1] with x[-1] = 1, ``f_lo`` ≤ f(x)."""

    x: tuple[float, ...]
    f_lo: tuple[float, ...]
    label: str = "curve"

    def vec(self, y: np.ndarray, theta: float = 0.0) -> np.ndarray:
        xs = np.asarray(self.x)
        arg = np.nextafter(1.0 - np.minimum(y, 1.0), 2.0)  # ≥ the exact 1 − y
        idx = np.minimum(np.searchsorted(xs, arg, side="left"), len(xs) - 1)
        return np.asarray(self.f_lo)[idx]

    def scalar(self, y: float, theta: float = 0.0) -> float:
        arg = math.nextafter(1.0 - min(y, 1.0), 2.0)
        return self.f_lo[min(bisect.bisect_left(self.x, arg), len(self.x) - 1)]

    def mp(self, y, theta: float = 0.0):
        arg = 1 - min(y, mpmath.mpf(1))
        lo, hi = 0, len(self.x) - 1  # first grid point ≥ arg
        while lo < hi:
            mid = (lo + hi) // 2
            if mpmath.mpf(self.x[mid]) >= arg:
                hi = mid
            else:
                lo = mid + 1
        return mpmath.mpf(self.f_lo[lo])


Curve = Family | TableCurve


def reject_many(cp: np.ndarray, c: np.ndarray, m: int, tau: float, g: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """The recursion in floats for many (c', c) pairs at once; True where the claim is rejected."""
    cp = np.asarray(cp, dtype=float)
    c = np.asarray(c, dtype=float)
    r = tau * c / m
    h = tau * (cp - c) / m
    target = cp / m
    i = c - 1.0
    rej = r + h > target
    active = (i >= 0) & ~rej
    while active.any():
        idx = np.flatnonzero(active)
        ri, hi, ii = r[idx], h[idx], i[idx]
        hn = np.maximum(hi, g(ri))
        rn = ri + ii / (cp[idx] - ii) * (hn - hi)
        r[idx], h[idx], i[idx] = rn, hn, ii - 1.0
        now = rn + hn > target[idx]
        rej[idx] = now
        active[idx] = (hn > hi) & (ii - 1.0 >= 0) & ~now
    return rej


def reject_scalar(cp: int, c: int, m: int, tau: float, g: Callable[[float], float]) -> bool:
    """The recursion in floats for one (c', c)."""
    r = tau * c / m
    h = tau * (cp - c) / m
    target = cp / m
    if r + h > target:
        return True
    for i in range(c - 1, -1, -1):
        hn = max(h, g(r))
        if hn == h:
            return False
        r += i / (cp - i) * (hn - h)
        h = hn
        if r + h > target:
            return True
    return False


def reject_mp(cp: int, c: int, m: int, tau: float, curve: Curve, theta: float = 0.0) -> bool:
    """The recursion in mpmath (50 digits): rejected only when r_0 + h_0 clears c'/m by 1e−30."""
    with mpmath.workdps(_MP_DPS):
        t = mpmath.mpf(tau)
        r = t * c / m
        h = t * (cp - c) / m
        target = mpmath.mpf(cp) / m + _MP_MARGIN
        if r + h > target:
            return True
        for i in range(c - 1, -1, -1):
            hn = max(h, curve.mp(r, theta))
            if hn == h:
                return False
            r += mpmath.mpf(i) / (cp - i) * (hn - h)
            h = hn
            if r + h > target:
                return True
        return False


def _test(cps: np.ndarray, cs: np.ndarray, m: int, tau: float, curve: Curve, theta: float) -> np.ndarray:
    """Rejection of θ by each candidate: scalar loops for a few candidates, one vectorised pass otherwise."""
    if cps.size <= 4:
        g = lambda y: curve.scalar(y, theta)  # noqa: E731
        return np.array([reject_scalar(int(a), int(b), m, tau, g) for a, b in zip(cps, cs)], dtype=bool)
    return reject_many(cps, cs, m, tau, lambda y: curve.vec(y, theta))


def sup_rejected(
    cps: Sequence[int], cs: Sequence[int], m: int, tau: float, fam: Family, tol: float = 1e-10
) -> tuple[float, int]:
    """The largest parameter θ ≥ 0 that some candidate rule (c'_j, c_j) rejects, and that candidate (−1: none).

    A bisection on θ over the union of the candidates' rejection sets: each step tests the
    surviving candidates at once and keeps only those rejecting the new lower end (a candidate
    that does not reject θ rejects no larger θ: the curves weaken as θ grows). The result is
    re-checked in mpmath and stepped down until certified (:func:`certify`)."""
    cps_a = np.asarray(cps, dtype=float)
    cs_a = np.asarray(cs, dtype=float)
    alive = np.flatnonzero(cs_a > 0)
    rej = _test(cps_a[alive], cs_a[alive], m, tau, fam, 0.0)
    alive = alive[rej]
    if not alive.size:
        return 0.0, -1
    lo, hi = 0.0, 1.0
    while True:
        rej = _test(cps_a[alive], cs_a[alive], m, tau, fam, hi)
        if not rej.any():
            break
        alive, lo, hi = alive[rej], hi, 2.0 * hi
        if hi > fam.hi:
            break
    while hi - lo > tol * max(1.0, hi):
        mid = 0.5 * (lo + hi)
        rej = _test(cps_a[alive], cs_a[alive], m, tau, fam, mid)
        if rej.any():
            alive, lo = alive[rej], mid
        else:
            hi = mid
    j = int(alive[np.argmax(cps_a[alive])])
    return certify(int(cps_a[j]), int(cs_a[j]), m, tau, fam, lo), j


def certify(cp: int, c: int, m: int, tau: float, fam: Family, theta: float) -> float:
    """θ stepped down (relative 1e−12, then doubling) until the mpmath recursion rejects it; 0 if it never does."""
    step = 1e-12 * max(1.0, theta)
    t = theta
    for _ in range(60):
        if t <= 0.0:
            return 0.0
        if reject_mp(cp, c, m, tau, fam, t):
            return t
        t -= step
        step *= 2.0
    return 0.0
