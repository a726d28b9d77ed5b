"""Discretise one privacy profile on the loss grid {i·h}: a pessimistic and an optimistic measure.

A (generalised) PLD is a measure μ on (−∞, +∞] (P-masses of privacy losses); its profile is
δ_μ(x) = ∫ (1 − e^{x − ℓ})_+ dμ(ℓ). If δ_μ' ≥ δ_μ for every real x (and in total mass), replacing
μ by μ' in any composition can only increase the composed profile (condition on the other
coordinates: each term is c·δ_μ(x − ℓ_rest)), so composing pessimistic measures gives upper
bounds and composing optimistic ones (δ_μ' ≤ δ_μ everywhere) lower bounds on every δ(ε).

In the variable t = e^x the profile is convex (π(t) = E_Q[(e^L − t)_+] plus the +∞ mass):
- pessimistic ("connect the dots", Doroshenko et al. 2022): the piecewise-linear interpolation
  of π at the grid points t_i = e^{ih} lies above π; its measure has P-masses
  p_i = [e^h δ_{i−1} − (1 + e^h) δ_i + δ_{i+1}]/(e^h − 1) (second differences, computed in
  80-bit long double), the top value δ_n kept as +∞ mass and the mass below the grid moved up.
  Profile values are inflated by 2ρ (ρ = 1e−12, the relative accuracy we assume of the closed
  forms) and masses rounded up.
- optimistic: the polygon through (t_i, δ_i − G_i), where G_i bounds the gap between a chord
  and the convex π on the two adjacent intervals (secant extensions from both sides give
  gap ≤ Δt·m_i m_{i+1}/(m_i + m_{i+1})), made convex, truncated at a top point where the
  polygon meets the true +∞ mass, with masses rounded down. Its error is second order in h
  like the pessimistic one.
- finite mechanisms (atoms): pessimistic = the same interpolation applied atom by atom (each
  atom's mass split between its two grid neighbours); optimistic = losses rounded down.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from accountants.pld.events import Profile
from accountants.pld.knots import KNOT_FLOOR, lattice_knots, pessimistic_on_knots
from accountants.pld.optimistic import optimistic_on_knots
from privcheck.base.errors import PrivcheckUsageError

__all__ = ["GridMeasure", "discretise", "pessimistic", "optimistic", "RHO"]

RHO = 1e-12  # assumed relative accuracy of the profile closed forms (≈ 4500 ulp)
_ULD = float(np.finfo(np.longdouble).eps)
_MAX_POINTS = 60_000_000


@dataclass
class GridMeasure:
    """A discretised PLD: P-masses ``p`` at losses (lo + i)·h, plus ``inf`` at +∞.

    shift: the largest amount any loss was moved against the measure's direction (down for a
    pessimistic, up for an optimistic measure) by snapping atoms to the grid; the accountant
    widens ε by count × shift.
    """

    h: float
    lo: int
    p: np.ndarray
    inf: float
    kind: str
    label: str
    shift: float = 0.0

    @property
    def x(self) -> np.ndarray:
        """Loss values of the grid points."""
        return (self.lo + np.arange(self.p.size)) * self.h

    @property
    def finite_mass(self) -> float:
        return float(np.sum(self.p))


def _round_up(p: np.ndarray) -> np.ndarray:
    out = p.astype(np.float64)
    pos = out > 0
    out[pos] = np.nextafter(out[pos], np.inf)
    return out


def _round_down(p: np.ndarray) -> np.ndarray:
    out = p.astype(np.float64)
    pos = out > 0
    out[pos] = np.nextafter(out[pos], 0.0)
    return out


def _grid(profile: Profile, h: float):
    """Grid i_lo.., losses x, and the profile split δ_i = lin_i + r_i with lin = (1 − e^x) below
    x = 0 (where r = e^x δ_rev(−x), from the reverse profile: small and accurate) and 0 above."""
    span = (profile.hi - profile.lo) / h
    if (
        not (math.isfinite(profile.lo / h) and math.isfinite(profile.hi / h) and math.isfinite(span))
        or span > _MAX_POINTS
    ):
        raise PrivcheckUsageError(
            f"loss grid of {profile.label} needs more than {_MAX_POINTS} points at step {h:g} "
            f"(losses in [{profile.lo:g}, {profile.hi:g}]); use a coarser grid_step"
        )
    i_lo = math.floor(profile.lo / h) - 1
    i_hi = math.ceil(profile.hi / h) + 1
    n = i_hi - i_lo + 1
    if n > _MAX_POINTS:
        raise PrivcheckUsageError(
            f"loss grid of {profile.label} needs {n} points at step {h:g}; use a coarser grid_step"
        )
    x = (i_lo + np.arange(n)) * h
    s = int(np.searchsorted(x, 0.0)) if profile.log_delta_rev is not None else 0
    r = np.empty(n)
    with np.errstate(over="ignore"):
        r[s:] = np.exp(profile.log_delta_at(x[s:]))
        if s:
            r[:s] = np.exp(x[:s] + profile.log_delta_rev_at(-x[:s]))
    # trim the top where δ has underflowed, and the bottom where r has (keep one zero point)
    top = n
    if s < n:
        nz = np.nonzero(r[s:] > 0)[0]
        top = min(n, s + (int(nz[-1]) + 2 if nz.size else 2))
    bot = 0
    if s > 0:
        nz = np.nonzero(r[:s] > 0)[0]
        bot = max(0, (int(nz[0]) - 2) if nz.size else s - 3)
    top = max(top, bot + 3)
    return i_lo + bot, x[bot:top], r[bot:top], max(s - bot, 0)


def _lin_parts(x: np.ndarray, s: int, h: float):
    """ldd_i = lin_i − lin_{i+1} (i = 0..n−2) and Lc_i = e^h·ldd_{i−1} − ldd_i (i = 1..n−2),
    exact zeros where the linear part has none."""
    L = np.longdouble
    n = x.size
    E = np.expm1(L(h))
    t0 = np.exp(L(x[0]))
    ldd = np.zeros(n - 1, dtype=L)
    if s >= 2:
        ldd[: s - 1] = np.exp(x[: s - 1].astype(L)) * E
    if 1 <= s <= n - 1:
        ldd[s - 1] = -np.expm1(L(x[s - 1]))
    Lc = np.zeros(n, dtype=L)
    if 1 <= s - 1 <= n - 2:
        Lc[s - 1] = np.expm1(L(x[s]))
    if 1 <= s <= n - 2:
        Lc[s] = (1 + E) - np.exp(L(x[s]))
    return ldd, Lc, t0, E


def _masses_r(r, ldd, Lc, t0, E):
    """Masses of the polygon through δ_i = lin_i + r_i (in t = e^x): interior second differences,
    the top point closing the slope to 0, the bottom point completing Q-mass 1."""
    eh = 1 + E
    rl = r.astype(np.longdouble)
    p = np.empty(rl.size, dtype=np.longdouble)
    p[1:-1] = (Lc[1:-1] + eh * (rl[:-2] - rl[1:-1]) - (rl[1:-1] - rl[2:])) / E
    p[-1] = eh * (ldd[-1] + rl[-2] - rl[-1]) / E
    p[0] = t0 - (ldd[0] + rl[0] - rl[1]) / E
    return p


def discretise(profile: Profile, h: float, floor: float | None = None) -> tuple[GridMeasure, GridMeasure]:
    """(pessimistic, optimistic) measures of ``profile`` on the grid of step h.

    Closed-form profiles: on knots chosen by accountants.pld.knots (``floor``: the absolute chord
    error allowed there, default KNOT_FLOOR; 0 for the tilted route that resolves tiny δ), the
    pessimistic measure by connect-the-dots and the optimistic one by the mass-preserving sweep of
    accountants.pld.optimistic (the polygon construction below is its fallback). Finite
    mechanisms: their atoms split or rounded onto the grid."""
    if profile.atoms is not None:
        return _atoms_pessimistic(profile, h), _atoms_optimistic(profile, h)
    k = lattice_knots(profile, h, floor=KNOT_FLOOR if floor is None else floor)
    pp, pinf = pessimistic_on_knots(k, RHO)
    lo = int(k.idx[0])
    pos = k.idx - lo
    dense = np.zeros(int(k.idx[-1]) - lo + 1)
    dense[pos] = _round_up(pp)
    pess = GridMeasure(h, lo, dense, pinf, "pessimistic", profile.label)
    res = optimistic_on_knots(profile, k, RHO)
    if res is None:
        return pess, optimistic(profile, h)
    po, oinf, _ = res
    dense = np.zeros(int(k.idx[-1]) - lo + 1)
    dense[pos] = po
    return pess, GridMeasure(h, lo, dense, oinf, "optimistic", profile.label)


def pessimistic(profile: Profile, h: float, _g=None) -> GridMeasure:
    """A measure on the grid whose profile is ≥ the true profile everywhere (see module doc)."""
    if profile.atoms is not None:
        return _atoms_pessimistic(profile, h)
    i_lo, x, r, s = _g if _g is not None else _grid(profile, h)
    if s >= x.size:
        raise PrivcheckUsageError(f"profile {profile.label}: empty loss range")
    ldd, Lc, t0, E = _lin_parts(x, s, h)
    rp = r.astype(np.longdouble) * (1 + 2 * RHO)
    rp[-1] = max(rp[-1], np.longdouble(profile.inf_mass) * (1 + 2 * RHO))
    p = np.maximum(_masses_r(rp, ldd, Lc, t0, E), 0)  # negative rounding masses raised: profile only rises
    inf = float(np.nextafter(float(rp[-1]), np.inf)) if rp[-1] > 0 else 0.0
    return GridMeasure(h, i_lo, _round_up(p), inf, "pessimistic", profile.label)


def optimistic(profile: Profile, h: float, _g=None) -> GridMeasure:
    """A measure on the grid whose profile is ≤ the true profile everywhere (see module doc)."""
    if profile.atoms is not None:
        return _atoms_optimistic(profile, h)
    if _g is None and profile.hi_opt is not None and profile.hi_opt < profile.hi:
        profile = dataclasses.replace(profile, hi=profile.hi_opt, hi_opt=None)
    i_lo, x, r, s = _g if _g is not None else _grid(profile, h)
    ldd, Lc, t0, E = _lin_parts(x, s, h)
    L = np.longdouble
    eh = 1 + E
    rl = r.astype(L)
    rm, rpl = rl * (1 - 2 * RHO), rl * (1 + 2 * RHO)
    c = np.maximum(_masses_r(rl, ldd, Lc, t0, E), 0)
    den = c[:-1] * eh + c[1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        g = np.where(den > 0, E * c[:-1] * c[1:] / np.where(den > 0, den, 1), 0)
    rmax = np.maximum(rl[:-1], rl[1:])
    g = g + 32 * RHO * np.maximum(rmax, np.concatenate([rmax[1:], rmax[-1:]]))
    g = np.minimum(g, _refined_gaps(profile, h, i_lo, x, r, s))
    n = r.size
    G = np.empty(n, dtype=L)
    G[0], G[-1] = g[0], g[-1]
    G[1:-1] = np.maximum(g[:-1], g[1:])
    w = rm - G  # r-part of the target polygon: δ_i − G_i = lin_i + w_i
    a = L(profile.inf_mass) * (1 - 2 * RHO)
    lin = np.zeros(n, dtype=L)
    if s:
        lin[:s] = -np.expm1(x[:s].astype(L))
    # top: end at the last k with polygon >= a; the measure with these second differences and +∞
    # mass a has profile polygon − (polygon_k − a) <= polygon (no forced drop to a)
    ks = np.nonzero(lin + w >= a)[0]
    if ks.size < 3:
        return _zero_measure(profile, h, i_lo)
    k = int(ks[-1])
    w, ldd, Lc = w[: k + 1].copy(), ldd[:k], Lc[: k + 1].copy()
    Lc[-1] = 0
    w = _convexify(w, ldd, Lc, t0, E, rm[0] - rpl[1], np.exp(x[: w.size].astype(L)), lin[: w.size])
    # rounding of the second differences: lower the polygon by suffix sums of the noise bound
    aw = np.abs(w)
    nu = 8 * _ULD * (eh * np.concatenate([aw[:1], aw[:-1]]) + (1 + eh) * aw + np.concatenate([aw[1:], aw[-1:]])) / E
    S = np.cumsum((4 * nu)[::-1])[::-1]
    w = w - S
    w = _convexify(w, ldd, Lc, t0, E, rm[0] - rpl[1], np.exp(x[: w.size].astype(L)), lin[: w.size])
    p = _masses_r(w, ldd, Lc, t0, E)
    p[0] = (rm[0] - rpl[1] - (w[0] - w[1])) / E
    a_out = a
    if np.any(p < 0):
        # a negative mass at x_j is cancelled by removing as much at x_{j+1} (the profile only
        # drops: |p_j|(1 − e^{x − x_j})_+ <= |p_j|(1 − e^{x − x_{j+1}})_+); what reaches the top
        # comes off the +∞ mass
        carry = np.longdouble(0)
        for j in np.nonzero(p < 0)[0][0:1]:
            for i in range(int(j), p.size):
                v = p[i] - carry
                if v < 0:
                    carry, p[i] = -v, 0
                else:
                    carry, p[i] = 0, v
        if carry > 0:
            if carry > a:
                raise PrivcheckUsageError(f"could not build an optimistic grid measure for {profile.label}")
            a_out = a - carry
    a = a_out
    # restore the total mass at the bottom point x_0: adding m at x_0 raises the profile only
    # below x_0, by m(1 − e^{x − x_0}); with Φ(x_0) <= 1 − e^{x_0} and total mass + m <= 1 the
    # result stays below 1 − e^x <= δ(x) there (linear in t on [0, t_0])
    xl = (i_lo + np.arange(p.size)).astype(L) * L(h)
    total = a + np.sum(p)
    phi0 = a + np.sum(p[1:] * -np.expm1(xl[0] - xl[1:]))
    slack0 = -np.expm1(xl[0]) - phi0
    if slack0 > 1e-15 and total < 1 and xl[0] > -1:  # (far below, the extra mass would widen the FFT window)
        p[0] += (1 - total) * (1 - L(1e-12)) - L(1e-18)
    return GridMeasure(
        h, i_lo, _round_down(p), float(np.nextafter(float(a), 0.0)) if a > 0 else 0.0, "optimistic", profile.label
    )


def _refined_gaps(profile: Profile, h: float, i_lo: int, x: np.ndarray, r: np.ndarray, s: int) -> np.ndarray:
    """A second bound on the chord gaps, from the profile at the interval midpoints:
    chord − π <= [chord(t_m) − π(t_m)] + (secant-extension bound on the half grid).
    Intervals that straddle x = 0 (where the split δ = lin + r changes) keep +inf."""
    n = x.size
    x2 = (2 * i_lo + np.arange(2 * n - 1)) * (h / 2)
    s2 = 2 * s
    r2 = np.empty(2 * n - 1)
    r2[0::2] = r
    xm = x2[1::2]
    below = xm < 0
    with np.errstate(over="ignore"):
        rm = np.empty(xm.size)
        if profile.log_delta_rev is not None and below.any():
            rm[below] = np.exp(xm[below] + profile.log_delta_rev_at(-xm[below]))
        else:
            below[:] = False
        rm[~below] = np.exp(profile.log_delta_at(xm[~below]))
    r2[1::2] = rm
    # consistent split on the half grid: below-zero points use the reverse form
    straddle = np.zeros(n - 1, dtype=bool)
    if profile.log_delta_rev is not None:
        straddle = (x[:-1] < 0) & (x[1:] >= 0)
        straddle |= (xm < 0) != (x[:-1] < 0)
        straddle |= (xm < 0) != (x[1:] < 0)
        s2 = int(np.searchsorted(x2, 0.0))
    else:
        s2 = 0
    L = np.longdouble
    ldd2, Lc2, t02, E2 = _lin_parts(x2, s2, h / 2)
    c2 = np.maximum(_masses_r(r2, ldd2, Lc2, t02, E2), 0)
    eh2 = 1 + E2
    den = c2[:-1] * eh2 + c2[1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        g2 = np.where(den > 0, E2 * c2[:-1] * c2[1:] / np.where(den > 0, den, 1), 0)
    r2l = r2.astype(L)
    phi = np.expm1(L(h) / 2) / np.expm1(L(h))
    mid_gap = r2l[0:-2:2] * (1 - phi) + r2l[2::2] * phi - r2l[1::2]  # lin parts cancel (linear in t)
    slack = 64 * RHO * np.maximum(np.maximum(r2l[0:-2:2], r2l[2::2]), r2l[1::2])
    out = np.maximum(mid_gap, 0) + np.maximum(g2[0::2], g2[1::2]) + slack
    out[straddle] = np.inf
    return out


def _convexify(w, ldd, Lc, t0, E, c0, t, lin):
    """Lower w until every mass of the polygon is >= 0 (up to rounding noise): local Jacobi steps
    toward the chords; where they do not settle, the exact lower convex hull of that stretch
    (then of everything). Only ever lowers values."""
    eh = 1 + E
    w = w.copy()
    n1 = w.size

    def masses():
        p = _masses_r(w, ldd, Lc, t0, E)
        p[0] = (c0 - (w[0] - w[1])) / E
        return p

    def jacobi(p, rounds):
        idx = np.arange(1, n1 - 1)
        bad = idx[:0]
        for _ in range(rounds):
            aw = np.abs(w[idx - 1]) * eh + (1 + eh) * np.abs(w[idx]) + np.abs(w[idx + 1])
            bad = idx[p[idx] < -8 * _ULD * aw / E]
            if bad.size == 0 and p[-1] >= 0:
                return True, bad
            if p[-1] < 0:
                w[-1] = w[-2] + ldd[-1]
                bad = np.union1d(bad, [n1 - 2])
            w[bad] = w[bad] + p[bad] * E / (1 + eh)
            idx = np.unique(np.concatenate([bad - 1, bad, bad + 1, [1]]))
            idx = idx[(idx >= 1) & (idx <= n1 - 2)]
            w[0] = min(w[0], w[1] + c0)
            p[0] = (c0 - (w[0] - w[1])) / E
            p[idx] = (Lc[idx] + eh * (w[idx - 1] - w[idx]) - (w[idx] - w[idx + 1])) / E
            p[-1] = eh * (ldd[-1] + w[-2] - w[-1]) / E
            if idx.size == 0:
                idx = np.arange(1, n1 - 1)
        return False, bad

    w[0] = min(w[0], w[1] + c0)
    done, bad = jacobi(masses(), 300)
    if not done and bad.size:
        a, b = max(int(bad.min()) - 64, 0), min(int(bad.max()) + 64, n1 - 1)
        w[a : b + 1] = _lower_hull(t[a : b + 1], lin[a : b + 1] + w[a : b + 1]) - lin[a : b + 1]
        w[0] = min(w[0], w[1] + c0)
        done, bad = jacobi(masses(), 300)
    if not done:
        w[:] = _lower_hull(t, lin + w) - lin
        w[0] = min(w[0], w[1] + c0)
        if w[-1] > w[-2] + ldd[-1]:
            w[-1] = w[-2] + ldd[-1]
    return w


def _lower_hull(t: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Values at every t of the lower convex hull of the points (t_i, v_i) (t increasing).

    Vectorised: every point on or above the chord of its current neighbours is no hull vertex
    (a lower-hull vertex lies strictly below every chord between a point on its left and one on
    its right), so all such points are dropped at once, pass after pass, until the chain is convex;
    after 4096 passes the monotone chain finishes the rest. Values are then interpolated (the
    same longdouble formula) and never raised above v."""
    idx = np.arange(t.size)
    for _ in range(4096):
        if idx.size < 3:
            break
        a, j, c = idx[:-2], idx[1:-1], idx[2:]
        drop = (v[j] - v[a]) * (t[c] - t[a]) >= (v[c] - v[a]) * (t[j] - t[a])
        if not drop.any():
            break
        idx = np.concatenate([idx[:1], j[~drop], idx[-1:]])
    else:
        idx = _monotone_chain(t, v, idx)
    out = np.array(v, copy=True)
    seg = np.clip(np.searchsorted(t[idx], t, side="right") - 1, 0, max(idx.size - 2, 0))
    if idx.size >= 2:
        lo, hi = idx[seg], idx[seg + 1]
        out = v[lo] + (v[hi] - v[lo]) * (t - t[lo]) / (t[hi] - t[lo])
        out[idx] = v[idx]
    return np.minimum(out, v)


def _monotone_chain(t: np.ndarray, v: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Lower-hull vertices among the points ``idx`` (Andrew's monotone chain, sequential)."""
    hull: list[int] = []
    for i in idx.tolist():
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            if (v[b] - v[a]) * (t[i] - t[a]) >= (v[i] - v[a]) * (t[b] - t[a]):
                hull.pop()
            else:
                break
        hull.append(i)
    return np.asarray(hull)


def _zero_measure(profile: Profile, h: float, i_lo: int) -> GridMeasure:
    return GridMeasure(
        h,
        i_lo,
        np.zeros(1),
        float(np.nextafter(profile.inf_mass, 0.0)) if profile.inf_mass > 0 else 0.0,
        "optimistic",
        profile.label,
    )


def _atoms_pessimistic(profile: Profile, h: float) -> GridMeasure:
    losses, mass = profile.atom_arrays()
    fin = np.isfinite(losses)
    lf, mf = losses[fin], mass[fin]
    inf = float(np.sum(mass[~fin]))
    if lf.size == 0:
        return GridMeasure(h, 0, np.zeros(1), _round_up(np.array([inf]))[0], "pessimistic", profile.label)
    r = lf / h
    i = np.floor(r)
    frac = r - i
    snap = frac > 1 - 1e-9
    i = np.where(snap, i + 1, i)
    shift = float(np.max(np.where(snap, (i * h - lf), 0.0), initial=0.0))
    shift = max(shift, 0.0) + 4e-16 * float(np.max(np.abs(lf)))
    u = np.where(snap, 0.0, lf - i * h)
    wlow = np.clip(np.expm1(h - u) / math.expm1(h), 0.0, 1.0)
    wlow = np.where(u <= 0, 1.0, wlow)
    i = i.astype(np.int64)
    lo = int(i.min())
    p = np.zeros(int(i.max()) - lo + 2)
    np.add.at(p, i - lo, mf * wlow)
    np.add.at(p, i - lo + 1, mf * (1 - wlow))
    p = p * (1 + 8 * 2.0**-53)
    return GridMeasure(
        h, lo, _round_up(p), float(np.nextafter(inf, 1.0)) if inf > 0 else 0.0, "pessimistic", profile.label, shift
    )


def _atoms_optimistic(profile: Profile, h: float) -> GridMeasure:
    losses, mass = profile.atom_arrays()
    fin = np.isfinite(losses)
    lf, mf = losses[fin], mass[fin]
    inf = float(np.sum(mass[~fin]))
    if lf.size == 0:
        return GridMeasure(h, 0, np.zeros(1), _round_down(np.array([inf]))[0], "optimistic", profile.label)
    r = lf / h
    i = np.floor(r)
    snap = (r - i) > 1 - 1e-9
    i = np.where(snap, i + 1, i)
    shift = float(np.max(np.where(snap, i * h - lf, 0.0), initial=0.0))
    shift = max(shift, 0.0) + 4e-16 * float(np.max(np.abs(lf)))
    i = i.astype(np.int64)
    lo = int(i.min())
    p = np.zeros(int(i.max()) - lo + 1)
    np.add.at(p, i - lo, mf)
    p = p * (1 - 8 * 2.0**-53)
    return GridMeasure(
        h, lo, _round_down(p), float(np.nextafter(inf, 0.0)) if inf > 0 else 0.0, "optimistic", profile.label, shift
    )
