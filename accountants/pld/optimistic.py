"""The optimistic measure on a set of knots: it keeps the P-mass and the Q-mass, so the error of a
T-fold composition stays of the order of the pessimistic one.

Setting (t = e^x, Y = e^L under Q): the profile π(t) = δ(log t) is convex and decreasing. A measure
on the knots has a piecewise-linear π' with kinks at the knots only; it is a valid optimistic measure
when π' <= π everywhere. The earlier construction (polygon through δ_i − gap_i, made convex, mass
completed at the bottom) lowers π near a sharp edge of the loss distribution (Poisson-subsampled
mechanisms put most of their mass within a grid step of the bottom loss log(1 − q)) and so changes
the measure's total Q-mass: an error that T-fold composition multiplies by T (issue 33 §2). Here:

1. A lower bound H, convex up to rounding, stored as a polyline (vertices rounded down) in the
   accurate space of each side of t = 1: the put E_Q[(t − Y)_+] below, the call E_Q[(Y − t)_+] above
   (π = put + 1 − t = call; see accountants.pld.knots). For a closed-form profile, H is the upper
   envelope of near-tangent lines (:func:`profile_bounds`): at every knot the line through its value
   lowered by the closed forms' accuracy 2ρ, with the mid-slope of two secants of width η = h/64 (in
   x); by convexity it lies below the function except within η of the knot, where it is lowered by
   (half the secant gap + the slope error)·η. For a lattice measure that is being coarsened, H is
   that measure's own polyline (accountants.pld.coarsen).
2. A sweep (a taut string from below): from the bottom knot (value <= H, slope just above a bound on
   π'(t_0−) from Markov's inequality on the put) take at each knot the largest slope whose line
   stays below H on the whole future, and at or below the +∞ mass at the top knot. The polygon is
   convex by construction (the previous line stays feasible), below H, and keeps the Q-mass; the
   mirror sweep from the top keeps the +∞ mass. The sweep from the edge with more mass is tried first.
3. Certification: masses rounded down to float64 and scaled by (1 − κ); the measure is compared with
   H at every knot and every vertex of H (both are piecewise linear in between) in long double, with
   a bound on the rounding of the comparison. If it fails for κ up to 1e−9, None is returned (the
   caller falls back to accountants.pld.discretise.optimistic).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from accountants.pld.knots import Knots
from accountants.pld.profile import Profile

__all__ = ["Bound", "lines_bound", "polyline_bound", "profile_bounds", "optimistic_masses", "optimistic_on_knots"]

L = np.longdouble
_ULD = float(np.finfo(np.longdouble).eps)
_U = 2.0**-53
_ETA_STEPS = 64  # secant width η = h / 64 (in x)
_AIM = 1e-10  # the sweep aims this much (relative) below H: room for its float64 rounding
_FILL_MIN = 1e-10  # missing P-mass below which _fill_bottom does not try (T·1e−10 of every composed mass)


# ---------------------------------------------------------------------------- lower bounds


@dataclass
class Bound:
    """A lower bound in one side space: the polyline through (vt, vv) (float64, increasing vt),
    continued with slope ``s_left`` below vt[0] and ``s_right`` above vt[-1], and never below ``floor``."""

    vt: np.ndarray
    vv: np.ndarray
    s_left: float
    s_right: float
    floor: float = -math.inf

    @property
    def empty(self) -> bool:
        return self.vt.size == 0

    def __call__(self, t: float) -> float:
        vt, vv = self.vt, self.vv
        if t <= vt[0]:
            v = vv[0] + self.s_left * (t - vt[0])
        elif t >= vt[-1]:
            v = vv[-1] + self.s_right * (t - vt[-1])
        else:
            i = int(np.searchsorted(vt, t)) - 1
            v = vv[i] + (vv[i + 1] - vv[i]) * (t - vt[i]) / (vt[i + 1] - vt[i])
        return max(float(v), self.floor)

    def certified(self, T: np.ndarray) -> np.ndarray:
        """Values at T (long double) of the polyline, lowered by the rounding of the interpolation."""
        vt, vv = self.vt.astype(L), self.vv.astype(L)
        i = np.clip(np.searchsorted(vt, T, side="right") - 1, 0, max(vt.size - 2, 0))
        if vt.size >= 2:
            a, b = vt[i], vt[i + 1]
            out = vv[i] + (vv[i + 1] - vv[i]) * ((T - a) / (b - a))
        else:
            out = np.full(T.shape, vv[0], dtype=L)
        out = np.where(T < vt[0], vv[0] + L(self.s_left) * (T - vt[0]), out)
        out = np.where(T > vt[-1], vv[-1] + L(self.s_right) * (T - vt[-1]), out)
        mag = np.abs(vv[i]) + np.abs(vv[np.minimum(i + 1, vt.size - 1)]) + np.abs(out)
        mag += np.where(T < vt[0], abs(self.s_left) * np.abs(T - vt[0]), 0)
        mag += np.where(T > vt[-1], abs(self.s_right) * np.abs(T - vt[-1]), 0)
        return np.maximum(out - 16 * L(_ULD) * mag, L(self.floor))

    def local_slope(self, T: np.ndarray) -> np.ndarray:
        """|slope| of the polyline at T (the larger of the two at a vertex), float64."""
        vt, vv = self.vt, self.vv
        if vt.size < 2:
            return np.full(T.shape, max(abs(self.s_left), abs(self.s_right)))
        with np.errstate(divide="ignore", invalid="ignore"):
            seg = np.abs(np.diff(vv) / np.diff(vt))
        seg = np.concatenate([[abs(self.s_left)], np.where(np.isfinite(seg), seg, 0.0), [abs(self.s_right)]])
        Tf = np.asarray(T, dtype=np.float64)
        i = np.searchsorted(vt, Tf, side="left")
        j = np.searchsorted(vt, Tf, side="right")
        return np.maximum(seg[i], seg[j])


def _down(v: np.ndarray) -> np.ndarray:
    return np.nextafter(np.asarray(v, dtype=np.float64), -np.inf)


def lines_bound(a: np.ndarray, v: np.ndarray, s: np.ndarray, floor: float) -> Bound:
    """Upper envelope of the valid lower lines y = v + s(t − a) (float64 arrays) as a Bound: vertices
    where consecutive envelope lines meet, each valued at the smaller of the two lines there (so the
    polyline stays below the envelope whatever the rounding of the vertex positions)."""
    o = np.lexsort((v + s * (1.0 - a), s))  # by slope (ties: higher line at t = 1 last)
    a, v, s = a[o], v[o], s[o]
    keep = np.ones(a.size, dtype=bool)
    # equal slopes: keep the highest
    same = np.nonzero(s[1:] == s[:-1])[0]
    keep[same] = False
    a, v, s = a[keep], v[keep], s[keep]
    for _ in range(4096):  # prune lines below the max of their neighbours, half the indices per pass
        if a.size < 3:
            break
        x = a[:-1] + (v[1:] - v[:-1] - s[1:] * (a[1:] - a[:-1])) / (s[:-1] - s[1:])  # meet of k, k+1
        bad = np.zeros(a.size, dtype=bool)
        bad[1:-1] = x[:-1] >= x[1:]
        if not bad.any():
            break
        for par in (0, 1):
            sel = bad & (np.arange(a.size) % 2 == par)
            if sel.any():
                a, v, s = a[~sel], v[~sel], s[~sel]
                break
    if a.size == 0:
        return Bound(np.zeros(0), np.zeros(0), 0.0, 0.0, floor)
    if a.size == 1:
        return Bound(np.array([a[0]]), _down(v[:1]), float(s[0]), float(s[0]), floor)
    x = a[:-1] + (v[1:] - v[:-1] - s[1:] * (a[1:] - a[:-1])) / (s[:-1] - s[1:])
    x = np.maximum.accumulate(x)
    y1 = v[:-1] + s[:-1] * (x - a[:-1])
    y2 = v[1:] + s[1:] * (x - a[1:])
    mag = np.abs(v[:-1]) + np.abs(v[1:]) + np.abs(s[:-1] * (x - a[:-1])) + np.abs(s[1:] * (x - a[1:]))
    vv = _down(np.minimum(y1, y2) - 4 * _U * mag)
    # the ends continue the first and last lines; start them at the first/last vertex
    return Bound(x, vv, float(s[0]), float(s[-1]), floor)


def polyline_bound(t: np.ndarray, v: np.ndarray, s_left: float, s_right: float, floor: float) -> Bound:
    """The polyline through the points (t_i, v_i) of a function known to be >= v_i at t_i and linear
    in between (a lattice measure's own profile), as a Bound. The vertex positions t_i (long double)
    are stored as float64: each value is lowered by the local slope times that rounding."""
    tf = np.asarray(t, dtype=np.float64)
    b = Bound(tf, np.asarray(v, dtype=np.float64), s_left, s_right, floor)
    sl = b.local_slope(tf)
    shift = np.abs(np.asarray(t, dtype=L) - tf.astype(L)).astype(np.float64) + 2 * _U * np.abs(tf)
    return Bound(tf, _down(np.asarray(v, dtype=np.float64) - 2 * sl * shift), s_left, s_right, floor)


def _at(profile: Profile, x: np.ndarray, put: bool) -> np.ndarray:
    """Put (``put``) or call values at x, each computed on its accurate side of x = 0 and converted
    (put = call + e^x − 1), float64."""
    out = np.empty(x.size)
    neg = x < 0
    with np.errstate(over="ignore", under="ignore"):
        out[neg] = np.exp(x[neg] + profile.log_delta_rev_at(-x[neg])) if neg.any() else 0.0
        out[~neg] = np.exp(profile.log_delta_at(x[~neg])) if (~neg).any() else 0.0
    conv = ~neg if put else neg
    out[conv] += np.expm1(x[conv]) * (1.0 if put else -1.0)
    return out


def _profile_lines(profile: Profile, k: Knots, rho: float, sel: np.ndarray, put: bool):
    """Near-tangent lines (anchor t, value, slope; float64) in put or call space at the knots ``sel``.
    Knots whose two secants are not separated by more than their error get no line."""
    x, t, r = k.x[sel], k.t[sel], k.r[sel]
    # secant width: h/64 where knots are dense; an eighth of the knot gap where they are sparse (there
    # the profile is flat against its own accuracy 2ρ, and narrow secants would not separate)
    gaps = np.diff(k.x)
    gap = np.minimum(np.concatenate([[np.inf], gaps]), np.concatenate([gaps, [np.inf]]))[sel]
    gap = np.where(np.isfinite(gap), gap, k.h)
    eta = np.where(gap <= 2 * k.h, k.h / _ETA_STEPS, gap / 8)
    rpL = _at(profile, x + eta, put).astype(L)
    rmL = _at(profile, x - eta, put).astype(L)
    dp = t * np.expm1(eta.astype(L))
    dm = t * -np.expm1(-eta.astype(L))
    sp = (rpL - r) / dp
    sm = (r - rmL) / dm
    err = 4 * L(rho) * (np.abs(rpL) + 2 * np.abs(r)) / dp + 4 * L(rho) * (np.abs(rmL) + 2 * np.abs(r)) / dm
    # long double rounding of the secants, and the float64 rounding of the slope kept
    err += (16 * L(_ULD) + 4 * L(_U)) * (np.abs(sp) + np.abs(sm))
    ok = (sp - sm >= 2 * err) & np.isfinite(sp) & np.isfinite(sm)
    slope = 0.5 * (sp + sm)
    corr = (0.5 * (sp - sm) + err) * np.maximum(dp, dm)
    # anchor and value stored as float64: lower by the anchor's rounding times the slope
    val = r * (1 - 2 * L(rho)) - corr - np.abs(slope) * t * L(4 * _U)
    return t[ok].astype(np.float64), _down(val[ok]), slope[ok].astype(np.float64)


def profile_bounds(profile: Profile, k: Knots, rho: float) -> tuple[Bound, Bound]:
    """(H_L in put space, H_R in call space) for a closed-form profile on its knots; with the extra
    valid lines put >= 0 and call >= the +∞ mass (lowered by 2ρ)."""
    n = k.size
    idx = np.arange(n)
    a_top = _a_top(k, rho)
    if k.split:
        a, v, s = _profile_lines(profile, k, rho, idx[: k.s + 1], True)
        HL = lines_bound(np.append(a, 1.0), np.append(v, 0.0), np.append(s, 0.0), 0.0)
        sel = idx[k.s :]
    else:
        HL = Bound(np.zeros(0), np.zeros(0), 0.0, 0.0, 0.0)
        sel = idx
    a, v, s = _profile_lines(profile, k, rho, sel, False)
    HR = lines_bound(np.append(a, 1.0), np.append(v, a_top), np.append(s, 0.0), a_top)
    return HL, HR


def _a_top(k: Knots, rho: float) -> float:
    return float(np.nextafter(k.inf_mass * (1 - 2 * rho), 0.0)) if k.inf_mass > 0 else 0.0


# ---------------------------------------------------------------------------- sweeps


def _tan_right(vt, vv, j0: int, j1: int, ti: float, vi: float) -> float:
    """min over j in [j0, j1) of (vv[j] − vi)/(vt[j] − ti): the slope of the tangent from a point
    below a convex polyline to its vertices right of it (unimodal: short scan, then bisection)."""
    if j0 >= j1:
        return math.inf
    best = (vv[j0] - vi) / (vt[j0] - ti)
    j = j0 + 1
    for _ in range(8):
        if j >= j1:
            return best
        c = (vv[j] - vi) / (vt[j] - ti)
        if c > best:
            return best
        best = c
        j += 1
    lo, hi = j - 1, j1 - 1
    while lo < hi:
        m = (lo + hi) // 2
        if (vv[m + 1] - vi) / (vt[m + 1] - ti) <= (vv[m] - vi) / (vt[m] - ti):
            lo = m + 1
        else:
            hi = m
    return min(best, (vv[lo] - vi) / (vt[lo] - ti))


def _tan_left(vt, vv, j0: int, j1: int, tn: float, vn: float) -> float:
    """max over j in [j0, j1) of (vn − vv[j])/(tn − vt[j]) (vertices left of the point; unimodal)."""
    if j0 >= j1:
        return -math.inf
    best = (vn - vv[j1 - 1]) / (tn - vt[j1 - 1])
    j = j1 - 2
    for _ in range(8):
        if j < j0:
            return best
        c = (vn - vv[j]) / (tn - vt[j])
        if c < best:
            return best
        best = c
        j -= 1
    lo, hi = j0, j + 1
    while lo < hi:
        m = (lo + hi + 1) // 2
        if (vn - vv[m - 1]) / (tn - vt[m - 1]) >= (vn - vv[m]) / (tn - vt[m]):
            hi = m - 1
        else:
            lo = m
    return max(best, (vn - vv[lo]) / (tn - vt[lo]))


class _Side:
    """Vertices of H on one side of t = 1 (with t = 1 itself), lowered by the aim, in that side's
    space and in π space (π = put + 1 − t on the put side); python lists for the sweeps."""

    def __init__(self, H: Bound, put: bool, split: bool):
        vt, vv = H.vt, H.vv
        if split:
            keep = vt < 1.0 if put else vt > 1.0
            vt, vv = vt[keep], vv[keep]
            one_t, one_v = np.array([1.0]), np.array([H(1.0)])
            vt = np.concatenate([vt, one_t]) if put else np.concatenate([one_t, vt])
            vv = np.concatenate([vv, one_v]) if put else np.concatenate([one_v, vv])
        # local slopes at each vertex (for the rounding of its position)
        with np.errstate(divide="ignore", invalid="ignore"):
            seg = np.abs(np.diff(vv) / np.diff(vt)) if vt.size > 1 else np.zeros(0)
        seg = np.where(np.isfinite(seg), seg, 0.0)
        sl = np.maximum(np.concatenate([[abs(H.s_left)], seg]), np.concatenate([seg, [abs(H.s_right)]]))
        low = vv - _AIM * np.abs(vv) - 1e-15 * vt * sl
        self.t = vt.tolist()
        self.v = low.tolist()
        self.pi = (low + 1.0 - vt).tolist() if (put and split) else self.v
        self.last_slope = H.s_right


def _sweep_up(t, put_iv, SL: _Side, SR: _Side, v0: float, s_left: float, a_top: float):
    """Left-to-right taut string from the bottom knot (value v0, slope s_left before it, in the
    first interval's space); returns (values at the knots, slopes per interval) in side spaces.
    (The inner loop is written out for speed: one tangent search per knot.)"""
    n = len(t)
    v = [0.0] * n
    sig = [0.0] * (n - 1)
    v[0] = v0
    prev_pi = s_left - 1.0 if put_iv[0] else s_left
    t_end = t[-1]
    Lt, Lv, Rt, Rv, Rpi = SL.t, SL.v, SR.t, SR.v, SR.pi
    last = SR.last_slope
    jl = jr = 0
    nl, nr = len(Lt), len(Rt)
    isfinite = math.isfinite
    for i in range(n - 1):
        ti, vi = t[i], v[i]
        if put_iv[i]:
            while jl < nl and Lt[jl] <= ti:
                jl += 1
            vpi = vi + 1.0 - ti
            s_pi = _tan_right(Lt, Lv, jl, nl, ti, vi) - 1.0  # H_L on (t_i, 1]
            c = _tan_right(Rt, Rpi, 0, nr, ti, vpi)  # H_R on [1, ∞), π space
            if c < s_pi:
                s_pi = c
            c = (a_top - vpi) / (t_end - ti)  # at or below the +∞ mass at the top knot
            if c < s_pi:
                s_pi = c
            if last < s_pi:
                s_pi = last
        else:
            while jr < nr and Rt[jr] <= ti:
                jr += 1
            # the tangent (short scan; _tan_right when it goes on)
            if jr < nr:
                s_pi = (Rv[jr] - vi) / (Rt[jr] - ti)
                if jr + 1 < nr:
                    c = (Rv[jr + 1] - vi) / (Rt[jr + 1] - ti)
                    if c <= s_pi:
                        s_pi = _tan_right(Rt, Rv, jr + 1, nr, ti, vi)
            else:
                s_pi = math.inf
            if last < s_pi:
                s_pi = last
            if s_pi > 0.0:
                s_pi = 0.0
            c = (a_top - vi) / (t_end - ti)
            if c < s_pi:
                s_pi = c
        if not isfinite(s_pi) or s_pi < prev_pi:
            s_pi = prev_pi
        prev_pi = s_pi
        s_side = s_pi + 1.0 if put_iv[i] else s_pi
        sig[i] = s_side
        v[i + 1] = vi + s_side * (t[i + 1] - ti)
    return v, sig


def _sweep_down(t, put_iv, SL: _Side, SR: _Side, a_top: float, s_left: float):
    """Right-to-left taut string from the +∞ mass (flat beyond the top knot); put-space slopes stay
    >= s_left (the measure's linear part below t_0)."""
    n = len(t)
    v = [0.0] * n
    sig = [0.0] * (n - 1)
    v[n - 1] = a_top
    nxt_pi = 0.0
    Lt, Lv, Lpi, Rt, Rv = SL.t, SL.v, SL.pi, SR.t, SR.v
    nl, nr = len(Lt), len(Rt)
    jl, jr = nl, nr
    isfinite = math.isfinite
    for i in range(n - 2, -1, -1):
        tn, vn = t[i + 1], v[i + 1]
        if not put_iv[i]:
            while jr > 0 and Rt[jr - 1] >= tn:
                jr -= 1
            if jr > 0:
                s_pi = (vn - Rv[jr - 1]) / (tn - Rt[jr - 1])
                if jr > 1:
                    c = (vn - Rv[jr - 2]) / (tn - Rt[jr - 2])
                    if c >= s_pi:
                        s_pi = _tan_left(Rt, Rv, 0, jr - 1, tn, vn)
            else:
                s_pi = -math.inf
            c = _tan_left(Lt, Lpi, 0, nl, tn, vn)  # H_L on (0, 1], π space
            if c > s_pi:
                s_pi = c
        else:
            while jl > 0 and Lt[jl - 1] >= tn:
                jl -= 1
            c = _tan_left(Lt, Lv, 0, jl, tn, vn)
            s_pi = (c if c > s_left else s_left) - 1.0
        if not isfinite(s_pi) or s_pi > nxt_pi:
            s_pi = nxt_pi
        nxt_pi = s_pi
        s_side = s_pi + 1.0 if put_iv[i] else s_pi
        sig[i] = s_side
        v[i] = vn - s_side * (tn - t[i])
    return v, sig


# ---------------------------------------------------------------------------- masses and checks


def _masses(k: Knots, sig: list, s_left: float, put_iv: list) -> np.ndarray:
    """Q-masses at the knots from the slopes (side spaces), long double."""
    n = k.size
    sg = np.asarray(sig, dtype=L)
    q = np.empty(n, dtype=L)
    q[0] = sg[0] - (L(s_left) if put_iv[0] else L(s_left) - 1)
    q[1:-1] = sg[1:] - sg[:-1]
    if k.split and 0 < k.s < n - 1:
        q[k.s] += 1  # π-slope: call slope on the right, put slope − 1 on the left
    q[-1] = -sg[-1]
    return q


def _check(k: Knots, p: np.ndarray, a: float, HL: Bound, HR: Bound) -> bool:
    """Whether the measure (P-masses ``p`` at the knots, +∞ mass ``a``) lies below H everywhere.

    Both are piecewise linear in t (the measure with kinks at the knots), so it is enough to compare
    at every knot, every vertex of H and t = 0. Evaluated in long double with a bound on the rounding
    of the evaluation: call space C(t) = a + Σ_{t_i > t} w_i(t_i − t) at t >= 1 (everywhere without the
    split), put space P(t) = Σ_{t_i < t} w_i(t − t_i) + (P' − 1) − t(Q' − 1) below (π' − π = P − put)."""
    # knot positions as float64 (the same numbers as H's vertices where they coincide); the true
    # positions e^{x} are within 2u relative: the measure's value moves by at most 2u·Σ w_i t_i
    t = k.t.astype(np.float64).astype(L)
    w = p.astype(L) / k.t
    n = k.size
    if k.split:
        T_put = np.concatenate([[L(0)], HL.vt[(HL.vt > 0) & (HL.vt < 1)].astype(L), t[t < 1]])
        T_call = np.concatenate([HR.vt[HR.vt >= 1].astype(L), t[t >= 1]])
    else:
        T_put = np.zeros(0, dtype=L)
        T_call = np.concatenate([[L(0)], HR.vt[HR.vt > 0].astype(L), t])
    g = (n + 8) * L(_ULD) + 4 * L(_U)
    if T_call.size:
        W = np.concatenate([np.cumsum(w[::-1])[::-1], [L(0)]])
        M = np.concatenate([np.cumsum((w * t)[::-1])[::-1], [L(0)]])
        j = np.searchsorted(t, T_call, side="right")
        val = L(a) + M[j] - T_call * W[j]
        err = g * (L(a) + M[j] + T_call * W[j])
        if not np.all(val + err <= HR.certified(T_call)):
            return False
    if T_put.size:
        P_tot = math.fsum([float(a)] + p.tolist())
        Q_tot = math.fsum(w.astype(np.float64).tolist())
        dP, dQ = L(P_tot) - 1, L(Q_tot) - 1
        W = np.concatenate([[L(0)], np.cumsum(w)])
        M = np.concatenate([[L(0)], np.cumsum(w * k.t)])
        j = np.searchsorted(t, T_put, side="left")
        val = T_put * W[j] - M[j] + dP - T_put * dQ
        err = g * (T_put * W[j] + M[j]) + L(2.3e-16) * (1 + 2 * T_put * L(Q_tot))
        if not np.all(val + err <= HL.certified(T_put)):
            return False
    return True


def _round_down(q: np.ndarray) -> np.ndarray:
    out = np.asarray(q, dtype=np.float64)
    pos = out > 0
    out = np.where(pos, np.nextafter(out, 0.0), 0.0)
    return out


def optimistic_masses(
    k: Knots, HL: Bound, HR: Bound, r_up: np.ndarray, v0: float, a_top: float, B: float | None = None
) -> tuple[np.ndarray, float, dict] | None:
    """P-masses at the knots (float64) and +∞ mass of a measure certified below H = (HL, HR),
    with diagnostics; None if none was certified.

    r_up: upper bounds on the side values at the knots (for the slope below the bottom knot, unless
    that slope ``B`` (put space) is given); v0 (<= H at the bottom knot) starts the upward sweep;
    a_top: a lower bound on the +∞ mass."""
    n = k.size
    if n < 3 or HR.empty or (k.split and HL.empty):
        return None
    idx = np.arange(n)
    put_iv = (idx[:-1] < k.s).tolist() if k.split else [False] * (n - 1)
    # below the bottom knot the measure is linear; its put slope must be >= put'(t_0−) = Q(Y < t_0),
    # and Q(Y < t_0) <= put(t_j)/(t_j − t_0) (Markov); without the split put = π − 1 + t
    if B is None:
        jj = idx[1 : min(n, 8)]
        if k.split:
            jj = jj[jj <= k.s]
            puts = r_up[jj].astype(L)
        else:
            puts = np.maximum(r_up[jj].astype(L) - 1 + k.t[jj], 0) + L(4e-16)
        B = float(np.min(puts / (k.t[jj] - k.t[0]))) * (1 + 1e-9) + 1e-300 if jj.size else 1.0
    s_left = B if k.split else B - 1.0  # in the first interval's space
    # the upward sweep starts with slope >= B: start low enough that this line stays below H nearby
    H0 = HL if k.split else HR
    t0 = float(k.t[0])
    near = np.concatenate([H0.vt[H0.vt > t0][:32], k.t[1:33].astype(np.float64)])
    if near.size:
        v0 = min(v0, min(H0(float(tv)) - B * (float(tv) - t0) for tv in near))
    SL = _Side(HL, True, k.split) if k.split else _Side(Bound(np.array([0.5]), np.array([0.0]), 0, 0), True, False)
    SR = _Side(HR, False, k.split)
    t = k.t.astype(np.float64).tolist()
    order = ("down", "up") if float(np.sum(r_up[-4:])) > 0 and _top_heavy(k) else ("up", "down")
    for name in order:
        if name == "up":
            v, sig = _sweep_up(t, put_iv, SL, SR, v0 * (1 - _AIM) - 1e-300, s_left, a_top)
        else:
            v, sig = _sweep_down(t, put_iv, SL, SR, a_top, B)
        if not (v[-1] >= -1e-300 - 1e-12 * abs(v[0])) or not all(map(math.isfinite, sig)):
            continue
        q = _masses(k, sig, s_left, put_iv)
        if not np.all(np.isfinite(q)):
            continue
        pf = _round_down(np.maximum(q, 0) * k.t)
        # (a flat level below the polygon's end lowers the whole profile; a tiny negative end from
        # rounding is clamped to 0 and left to the check)
        af = float(np.nextafter(min(v[-1], a_top), 0.0)) if min(v[-1], a_top) > 0 else 0.0
        for kappa in (1e-12, 1e-10, 1e-9):
            ps = _round_down(pf * (1 - kappa))
            ai = float(np.nextafter(af * (1 - kappa), 0.0)) if af > 0 else 0.0
            if _check(k, ps, ai, HL, HR):
                ps, added = _fill_bottom(k, ps, ai, HL, HR)
                return ps, ai, {"sweep": name, "kappa": kappa, "P": math.fsum(ps.tolist()) + ai, "filled": added}
    return None


def _fill_bottom(k: Knots, p: np.ndarray, a: float, HL: Bound, HR: Bound) -> tuple[np.ndarray, float]:
    """``p`` with P-mass added at the bottom knot, as much of the missing 1 − P' as stays certified.

    A sweep that keeps the +∞ mass (from the top) leaves the measure's missing Q-mass on its linear
    part below the bottom knot t₀: an atom of the true distribution at t₀ (Laplace, or any mechanism
    with a bounded loss) is dropped there. That loses nothing for one event's δ(ε) at ε >= x₀, but a
    T-fold composition multiplies every composed mass by (P')^T (Laplace b = 0.5: 0.932^1000 = 4e−31,
    the lower end of ε(δ) fell from 1292.7 to 2.0). Adding P-mass m at t₀ leaves the measure's
    profile unchanged at t >= t₀ and changes it linearly on [0, t₀] (from P' + m at t = 0): below the
    true profile when P' + m <= 1 and the value at t₀ is <= 1 − t₀ (π >= 1 − t, the line put >= 0 in H).
    The Q-mass m/t₀ may take Q' above 1 (an atom between two knots, whose P-mass the sweep kept as Q-mass at
    t₀ < its t): the profile, and so every composition, only depends on the P-masses at their losses.
    _check decides, at t = 0 and every knot and vertex of H: the largest certified m of 1 − P'
    scaled by (1 − 1e−9)·2^−j, j = 0..3, is kept (none: ``p`` unchanged). A missing mass <= _FILL_MIN is
    left alone (each _check costs as much as the certification: DP-SGD's 5e−13 was not worth 1.3× the time)."""
    if not k.split:
        return p, 0.0
    miss = 1.0 - math.fsum([float(a)] + p.tolist())
    if not miss > _FILL_MIN:
        return p, 0.0
    m = miss * (1 - 1e-9)
    for _ in range(4):
        q = p.copy()
        q[0] = float(np.nextafter(p[0] + m, 0.0))
        if _check(k, q, a, HL, HR):
            return q, m
        m *= 0.5
    return p, 0.0


def _top_heavy(k: Knots) -> bool:
    """Whether the pessimistic masses pile up at the top knots rather than the bottom ones."""
    r = k.r.astype(np.float64)
    dt = np.diff(k.t.astype(np.float64))
    sl = np.diff(r) / dt
    q = np.abs(np.diff(sl))
    tail = max(1, min(4, q.size // 4))
    return float(np.sum(q[-tail:] * k.t[-tail - 1 : -1].astype(np.float64))) > float(
        np.sum(q[:tail] * k.t[1 : tail + 1].astype(np.float64))
    )


def optimistic_on_knots(profile: Profile, k: Knots, rho: float) -> tuple[np.ndarray, float, dict] | None:
    """The certified optimistic measure of a closed-form profile on its knots (see the module doc)."""
    if k.size < 3:
        return None
    HL, HR = profile_bounds(profile, k, rho)
    a_top = _a_top(k, rho)
    r_up = k.r * (1 + 2 * L(rho))
    r_lo = float(k.r[0] * (1 - 2 * L(rho)))
    v0 = min(HL(float(k.t[0])) if k.split else HR(float(k.t[0])), r_lo)
    # the slope below the bottom knot: Markov's bound put(t)/(t − t_0) at points just above t_0 too
    # (they see less of the mass above t_0 than the next knot does)
    B = None
    if k.split:
        xs = k.x[0] + k.h * np.exp2(-np.arange(1.0, 9.0))
        xs = xs[xs < min(0.0, float(k.x[1]))]
        if xs.size:
            pu = _at(profile, xs, True).astype(L) * (1 + 2 * L(rho))
            ts = np.exp(xs.astype(L))
            cand = pu / (ts - k.t[0])
            jj = np.arange(1, min(k.size, 8))
            jj = jj[jj <= k.s]
            if jj.size:
                cand = np.concatenate([cand, r_up[jj] / (k.t[jj] - k.t[0])])
            B = float(np.min(cand)) * (1 + 1e-9) + 1e-300
    return optimistic_masses(k, HL, HR, r_up, v0, a_top, B=B)
