"""Knots: the lattice points at which a continuous privacy profile is interpolated, and the
pessimistic ("connect the dots") measure on them.

The loss lattice is {i·h}. A measure used by the FFT must live on it, but it need not charge every
lattice point: in the tails of a profile, where its curvature is small against its value, every
2ᵏ-th point is enough. :func:`lattice_knots` evaluates the profile once on the whole lattice (one
vectorised call), then keeps the endpoints of dyadic blocks whose chord lies within a relative
tolerance of the profile at every lattice point inside (a heuristic choice only: every measure
built on the knots is certified on its own, whatever knots are chosen).

Values are kept split as in :mod:`accountants.pld.discretise`: δ(x) = (1 − e^x)_+ + r(x), with
r = e^x δ_rev(−x) (the *put* E_Q[(e^x − Y)_+] of Y = e^L under Q) below x = 0 and r = δ (the *call*)
above; both are convex in t = e^x and small where δ is close to its linear part, so second
differences keep their precision. The knot x = 0 (t = 1) joins the two: there put = call.

Pessimistic measure (Doroshenko et al. 2022, "connect the dots", on any set of knots): the
polygon through (t_j, δ_j(1 + 2ρ)) lies above the convex profile, its Q-masses are the slope
changes (P-mass = t·Q-mass), the top value is kept as +∞ mass and the bottom knot gets the mass
that completes Q-mass 1 (its polygon then continues the line 1 − t + put(t_0) ≥ δ below t_0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from accountants.pld.profile import Profile
from privcheck.base.errors import PrivcheckUsageError

__all__ = ["Knots", "lattice_knots", "pessimistic_on_knots", "KNOT_REL_TOL", "KNOT_FLOOR", "side_values"]

#: relative chord error allowed when lattice points are skipped (see lattice_knots)
KNOT_REL_TOL = 1e-5
#: absolute chord error allowed (single-event δ values below it do not move a composed δ the untilted
#: FFT resolves; the tilted route for tiny δ builds its knots with floor 0)
KNOT_FLOOR = 1e-25
_MAX_LEVEL = 12  # blocks of at most 2^12 lattice steps
_MAX_SPAN = 4e9  # lattice points in a loss range (the measure array spans it)


@dataclass
class Knots:
    """Knots of one profile on the lattice of step ``h``.

    idx: lattice indices (x = idx·h), increasing; x, t = e^x (long double); r: put (x < 0, when
    ``split``) or call (x >= 0) values at the knots; s: number of knots in put-space; inf_mass:
    the profile's +∞ mass. Lattice values of the whole range (``lat_x``, ``lat_r``, ``lat_s``)
    are kept for callers that need them."""

    h: float
    idx: np.ndarray
    x: np.ndarray
    t: np.ndarray
    r: np.ndarray
    s: int
    split: bool
    inf_mass: float
    label: str

    @property
    def size(self) -> int:
        return int(self.idx.size)


def side_values(profile: Profile, x: np.ndarray, split: bool) -> np.ndarray:
    """r at the losses x: the put e^x δ_rev(−x) below 0 (when ``split``), the call δ(x) at and above
    (float64, one vectorised profile call per side)."""
    x = np.asarray(x, dtype=float)
    out = np.empty(x.size)
    neg = (x < 0) & split
    with np.errstate(over="ignore", under="ignore"):
        if neg.any():
            out[neg] = np.exp(x[neg] + profile.log_delta_rev_at(-x[neg]))
        if (~neg).any():
            out[~neg] = np.exp(profile.log_delta_at(x[~neg]))
    return out


def _choose(profile: Profile, h: float, i_lo: int, i_hi: int, split: bool, rel_tol: float, floor: float):
    """Lattice indices and values of the knots: aligned dyadic blocks, halved until the chord of r
    is within tol = rel_tol·r + min(floor, r/10) at the block's midpoint (for a convex r the chord gap is a
    concave function vanishing at both ends, so its maximum is at most twice its midpoint value;
    the midpoint is tested against tol/2). Evaluations: about two per knot."""
    fixed = sorted({i_lo, i_hi, *([0] if split and i_lo < 0 < i_hi else [])})
    B = 1 << _MAX_LEVEL
    while B > 1 and (i_hi - i_lo) // B < 8:
        B >>= 1
    idx = np.unique(np.concatenate([np.asarray(fixed), np.arange(-(-i_lo // B) * B, i_hi, B)]))
    idx = idx[(idx >= i_lo) & (idx <= i_hi)]
    keys, vals = [idx], [side_values(profile, idx * h, split)]
    ra, rb = vals[0][:-1], vals[0][1:]
    a, b = idx[:-1], idx[1:]
    while a.size:
        live = b - a >= 2
        a, b, ra, rb = a[live], b[live], ra[live], rb[live]
        if not a.size:
            break
        m = (a + b) // 2
        rm = side_values(profile, m * h, split)
        keys.append(m)
        vals.append(rm)
        # (t_m − t_a)/(t_b − t_a) with t = e^{ih}, written so that it cannot overflow at large losses
        # (e^{ih} overflows above i·h ≈ 709: a NaN chord would refine every block down to single steps)
        w = np.exp((m - b) * h) * (np.expm1((a - m) * h) / np.expm1((a - b) * h))
        with np.errstate(invalid="ignore"):
            chord = ra + (rb - ra) * w
        bad = ~(chord - rm <= 0.5 * (rel_tol * np.abs(rm) + np.minimum(floor, 0.1 * np.abs(rm))))
        a, b = np.concatenate([a[bad], m[bad]]), np.concatenate([m[bad], b[bad]])
        ra, rb = np.concatenate([ra[bad], rm[bad]]), np.concatenate([rm[bad], rb[bad]])
    allk = np.concatenate(keys)
    allv = np.concatenate(vals)
    order = np.argsort(allk, kind="stable")
    allk, allv = allk[order], allv[order]
    first = np.concatenate([[True], allk[1:] != allk[:-1]])
    return allk[first], allv[first]


def lattice_knots(profile: Profile, h: float, rel_tol: float = KNOT_REL_TOL, floor: float = KNOT_FLOOR) -> Knots:
    """Knots of ``profile`` on the lattice {i·h} over its loss range [lo, hi] (one lattice step
    beyond each end), trimmed where r has underflowed to 0 (one zero knot kept at each end)."""
    span = (profile.hi - profile.lo) / h
    if not (math.isfinite(profile.lo / h) and math.isfinite(profile.hi / h)) or span > _MAX_SPAN:
        raise PrivcheckUsageError(
            f"loss grid of {profile.label} needs more than {_MAX_SPAN:.0e} points at step {h:g} "
            f"(losses in [{profile.lo:g}, {profile.hi:g}]); use a coarser grid_step"
        )
    i_lo = math.floor(profile.lo / h) - 1
    i_hi = math.ceil(profile.hi / h) + 1
    split = profile.log_delta_rev is not None and i_lo < 0
    idx, r = _choose(profile, h, i_lo, i_hi, split, rel_tol, floor)
    r = np.where(np.isfinite(r) & (r > 0), r, 0.0)
    nz = np.nonzero(r > 0)[0]
    if nz.size:
        lo_k = max(int(nz[0]) - 1, 0) if split else 0
        hi_k = min(int(nz[-1]) + 1, idx.size - 1)
        if split and idx[lo_k] >= 0:  # keep the junction x = 0 and the put part below it
            lo_k = int(np.searchsorted(idx, 0)) - 1 if idx[0] < 0 else 0
            lo_k = max(lo_k, 0)
        idx, r = idx[lo_k : hi_k + 1], r[lo_k : hi_k + 1]
    x = idx * h
    s = int(np.searchsorted(idx, 0)) if split else 0
    if split and (s >= idx.size or idx[s] != 0 or s == 0):
        split, s = False, 0
    return Knots(
        h=h,
        idx=idx.astype(np.int64),
        x=x,
        t=np.exp(x.astype(np.longdouble)),
        r=r.astype(np.longdouble),
        s=s,
        split=split,
        inf_mass=float(profile.inf_mass),
        label=profile.label,
    )


def pessimistic_on_knots(k: Knots, rho: float, r_up: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """P-masses at the knots (long double, >= 0) and the +∞ mass of the connect-the-dots measure
    through upper bounds on the side values: ``r_up`` if given, else the values inflated by 2ρ
    (``rho``: relative accuracy of the closed forms)."""
    L = np.longdouble
    rp = k.r * (1 + 2 * L(rho)) if r_up is None else np.asarray(r_up, dtype=L).copy()
    rp[-1] = max(rp[-1], L(k.inf_mass) * (1 + 2 * L(rho)))
    n = k.size
    dt = np.diff(k.t)
    sl = np.diff(rp) / dt  # slopes in the side space of each interval
    q = np.empty(n, dtype=L)
    # bottom knot: put space: slope change from 0 to sl[0] (Q-mass completing 1); call space: from the
    # slope of the chord to (0, 1) — the profile is convex with π(0) = P-total <= 1 (and slope >= −1),
    # so that line lies above it below t₀ — rather than from −1, whose P-mass π(t₀) + t₀ explodes when
    # the bottom knot is at a large loss (a composed block whose window starts at x₀ = 91: 4e39)
    first = sl[0] if n > 1 else L(0)
    q[0] = first if k.split else first - _below_slope(rp[0], k.t[0])
    q[1:-1] = sl[1:] - sl[:-1]
    if k.split and 0 < k.s < n:
        q[k.s] += 1  # the linear part (1 − t)_+ is a unit point mass at loss 0 (t = 1)
    q[-1] = -sl[-1] if n > 1 else L(0)
    p = np.maximum(q, 0) * k.t
    return p, float(np.nextafter(float(rp[-1]), np.inf)) if rp[-1] > 0 else 0.0


def _below_slope(r0, t0):
    """Call-space slope (long double, in [−1, 0]) of a line through (t₀, r0) that lies above a convex
    profile π with π(t₀) <= r0, π(0) <= 1 and slopes >= −1 on [0, t₀]: the chord to (0, 1), made
    steeper by a relative 1e−15 (its value at 0 then rounds to >= 1), and never steeper than −1."""
    L = np.longdouble
    s = (L(r0) - 1) / L(t0)
    if s >= 0:
        return L(0)
    return max(L(-1), s * (1 + L(1e-15)) - L(1e-300))
