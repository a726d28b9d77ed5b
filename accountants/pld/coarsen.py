"""Two-stage composition ("evolving discretisation", Ghazi, Kamath, Kumar & Manurangsi, ICML 2022):
compose blocks of T₁ events on the fine lattice, turn each composed block into a certified lattice
measure, coarsen it onto a lattice m times coarser, and compose the blocks there.

A long self-composition is wide (its spread grows like √T) while one event is narrow, so a grid fine
enough for one event is needlessly fine for the whole: one FFT over the whole window costs N log N
at the fine step, and its error bound grows with T (repeated squaring). A block of T₁ ≈ √T events is
already smooth at the coarse step, so the coarsening costs little accuracy.

Certification (both stages keep valid bounds):
- :func:`measure_of` turns an untilted :class:`~accountants.pld.compose.Composition` into a measure:
  pessimistic = (ĉ + e_∞)_+ inside the window (e_∞ the composition's pointwise error bound), the
  Chernoff bound on the mass below the window put at its bottom point (moving mass up raises every
  δ), the mass above added to the +∞ mass; optimistic = ĉ − e_∞, then the negative parts and the
  bound on the mass that wrapped into the window (from outside it) removed from the top points
  (removing mass from the highest losses lowers every δ at least as much as removing it anywhere).
- :func:`coarsen` keeps that direction: pessimistic = connect-the-dots of the measure's own profile
  at the coarse points (values computed in long double, raised by their rounding bound);
  optimistic = the taut string of :mod:`accountants.pld.optimistic` below the measure's own profile
  (a polyline through its lowered values at the fine points), certified the same way.
"""

from __future__ import annotations

import math

import numpy as np

from accountants.pld.compose import Composition
from accountants.pld.discretise import GridMeasure
from accountants.pld.knots import Knots, pessimistic_on_knots
from accountants.pld.optimistic import Bound, optimistic_masses, polyline_bound
from privcheck.base.errors import PrivcheckUsageError

__all__ = ["measure_of", "coarsen", "side_values_of"]

L = np.longdouble
_ULD = float(np.finfo(np.longdouble).eps)


def _round_up(p: np.ndarray) -> np.ndarray:
    out = np.asarray(p, dtype=np.float64)
    return np.where(out > 0, np.nextafter(out, np.inf), 0.0)


def _round_down(p: np.ndarray) -> np.ndarray:
    out = np.asarray(p, dtype=np.float64)
    return np.where(out > 0, np.nextafter(out, 0.0), 0.0)


def _trim(lo: int, p: np.ndarray) -> tuple[int, np.ndarray]:
    nz = np.nonzero(p > 0)[0]
    if nz.size == 0:
        return lo, np.zeros(1)
    return lo + int(nz[0]), p[nz[0] : nz[-1] + 1]


def _cut_indices(comp: Composition, cut: float) -> tuple[int, int]:
    """Window positions [i_b, i_c) outside which the true composed finite mass is <= ``cut`` on
    each side (Chernoff bounds from the composition's log-MGF bounds, which do not depend on the FFT:
    mass at losses >= x is <= e^{K(λ) − λx} for every λ > 0, mass at losses <= x is <= e^{K(−λ) + λx})."""
    from accountants.pld.compose import LAMBDAS_NEG, LAMBDAS_POS

    lc = math.log(cut)
    x_top = float(np.min((comp.K_pos - lc) / LAMBDAS_POS))  # at and above: <= cut
    x_bot = float(np.max((lc - comp.K_neg) / LAMBDAS_NEG))  # at and below: <= cut
    n = comp.c.size
    i_c = min(max(math.ceil(x_top / comp.h) - comp.bot, 1), n) if math.isfinite(x_top) else n
    i_b = max(min(math.floor(x_bot / comp.h) - comp.bot + 1, i_c - 1), 0) if math.isfinite(x_bot) else 0
    return i_b, i_c


def measure_of(comp: Composition, label: str, cut: float = 1e-18) -> GridMeasure:
    """The composed (untilted) measure of ``comp`` as a certified GridMeasure of the same kind.

    Cut to the window part outside which the true mass is <= ``cut`` on each side: the pessimistic
    measure keeps that bound as +∞ mass (above) and at its bottom point (below), the optimistic one
    drops it; inside, (ĉ ± e_∞) as in the module doc."""
    if comp.tilt != 0:
        raise ValueError("measure_of needs an untilted composition")
    i_b, i_c = _cut_indices(comp, cut)
    c = comp.c[i_b:i_c].astype(L)
    e = L(comp.err_inf) * (1 + L(1e-9))
    bot = comp.bot + i_b
    if comp.kind == "pessimistic":
        p = np.maximum(c, 0) + e
        p[0] += L(cut if i_b > 0 else comp.out_below)
        above = cut if i_c < comp.c.size else comp.out_above
        inf = float(np.nextafter(comp.inf + above * (1 + 1e-12), np.inf))
        lo, pp = _trim(bot, _round_up(p))
        return GridMeasure(comp.h, lo, pp, min(inf, 1.0), "pessimistic", label, comp.shift)
    p = c - e
    remove = float(np.sum(np.where(p < 0, -p, 0))) * (1 + 1e-9) + (comp.out_above + comp.out_below) * (1 + 1e-12)
    p = np.maximum(p, 0)
    # take `remove` off the highest points
    top = np.cumsum(p[::-1])[::-1]  # mass at and above each point
    gone = top <= L(remove)
    inf = comp.inf * (1 - 1e-12)
    if gone[0]:
        left = L(remove) - top[0]
        if left > L(inf):
            raise PrivcheckUsageError("composition error bound exceeds the composed mass; use a coarser grid")
        a = float(np.nextafter(float(L(inf) - left), 0.0))
        return GridMeasure(comp.h, bot, np.zeros(1), max(a, 0.0), "optimistic", label, comp.shift)
    first_gone = int(np.argmax(gone)) if gone.any() else p.size
    if first_gone < p.size:
        p[first_gone:] = 0
        p[first_gone - 1] -= L(remove) - top[first_gone]
    lo, pp = _trim(bot, _round_down(np.maximum(p, 0)))
    return GridMeasure(
        comp.h, lo, pp, float(np.nextafter(inf, 0.0)) if inf > 0 else 0.0, "optimistic", label, comp.shift
    )


def side_values_of(m: GridMeasure, x_idx: np.ndarray, split: bool) -> tuple[np.ndarray, np.ndarray]:
    """Put (x < 0, when ``split``) or call (x >= 0) values of the measure's own profile at the lattice
    points ``x_idx`` (indices on m's lattice), long double, and a bound on their rounding error."""
    h = m.h
    xs = (m.lo + np.arange(m.p.size)) * h
    t = np.exp(xs.astype(L))
    p = m.p.astype(L)
    w = p / t
    T = np.exp((np.asarray(x_idx) * h).astype(L))
    pos = np.asarray(x_idx) - m.lo  # position in m's array
    n = m.p.size
    g = (n + 8) * L(_ULD)
    # call: a + Σ_{j > i} p_j − t Σ_{j > i} w_j  (points strictly above)
    SP = np.concatenate([np.cumsum(p[::-1])[::-1], [L(0)]])
    SW = np.concatenate([np.cumsum(w[::-1])[::-1], [L(0)]])
    j_above = np.clip(pos + 1, 0, n)
    call = L(m.inf) + SP[j_above] - T * SW[j_above]
    e_call = g * (L(m.inf) + SP[j_above] + T * SW[j_above])
    # put: Σ_{j < i} (t w_j − p_j) + (P − 1) − t (Q − 1)
    PP = np.concatenate([[L(0)], np.cumsum(p)])
    PW = np.concatenate([[L(0)], np.cumsum(w)])
    j_below = np.clip(pos, 0, n)
    dP, dQ = PP[-1] + L(m.inf) - 1, PW[-1] - 1  # (long double sums: error <= n·ULD·total)
    put = T * PW[j_below] - PP[j_below] + dP - T * dQ
    e_put = g * (T * PW[j_below] + PP[j_below]) + g * (PP[-1] + L(m.inf) + 1 + T * (PW[-1] + 1))
    neg = (np.asarray(x_idx) < 0) & split
    return np.where(neg, put, call), np.where(neg, e_put, e_call)


def coarsen(m: GridMeasure, factor: int) -> GridMeasure:
    """``m`` (pessimistic or optimistic) on the lattice of step factor·h, same kind (module doc)."""
    if factor == 1:
        return m
    h, H = m.h, m.h * factor
    lo_c = math.floor(m.lo / factor)
    hi_c = -((-(m.lo + m.p.size - 1)) // factor)
    if hi_c - lo_c < 2:
        hi_c = lo_c + 2
    ci = np.arange(lo_c, hi_c + 1)
    split = bool(ci[0] < 0 < ci[-1])
    r, er = side_values_of(m, ci * factor, split)
    s = int(np.searchsorted(ci, 0)) if split else 0
    k = Knots(
        h=H,
        idx=ci.astype(np.int64),
        x=ci * H,
        t=np.exp((ci * H).astype(L)),
        r=r,
        s=s,
        split=split,
        inf_mass=float(m.inf),
        label=m.label,
    )
    if m.kind == "pessimistic":
        p, inf = pessimistic_on_knots(k, 0.0, r_up=r + er)
        lo, pp = _trim(lo_c, _round_up(p))
        return GridMeasure(H, lo, pp, inf, "pessimistic", m.label, m.shift)
    # optimistic: H = m's own polyline (values lowered by their rounding bound) on each side
    fi = np.arange(m.lo, m.lo + m.p.size)
    fi = np.unique(np.concatenate([fi, ci * factor]))
    rv, ev = side_values_of(m, fi, split)
    low = (rv - ev).astype(np.float64)
    tf = np.exp((fi * h).astype(L))
    Q_tot = float(np.sum(m.p / np.exp(m.x)))
    a_low = float(np.nextafter(m.inf * (1 - 1e-12), 0.0)) if m.inf > 0 else 0.0
    if split:
        left = fi <= 0
        HL = polyline_bound(tf[left], low[left], 1.0 - Q_tot, 0.0, 0.0)
        right = fi >= 0
        HR = polyline_bound(tf[right], low[right], 0.0, 0.0, a_low)
    else:
        HL = Bound(np.zeros(0), np.zeros(0), 0.0, 0.0, 0.0)
        HR = polyline_bound(tf, low, -Q_tot, 0.0, a_low)
    # below the bottom coarse point (at or below m's support) keep m's own linear part
    B = 1.0 - Q_tot if split else None
    v0 = float(r[0] - er[0])
    res = optimistic_masses(k, HL, HR, r + er, v0, a_low, B=B)
    if res is None:
        raise PrivcheckUsageError(f"could not coarsen the optimistic measure of {m.label} by {factor}")
    p, inf, _ = res
    lo, pp = _trim(lo_c, p)
    return GridMeasure(H, lo, pp, inf, "optimistic", m.label, m.shift)
