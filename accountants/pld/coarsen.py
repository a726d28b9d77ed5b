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


def side_values_of(m: GridMeasure, e0: int, e1: int, split: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(t, values, error bounds) at the lattice points e0..e1 (indices on m's lattice, a range
    containing m's support) of the measure's own profile: put (x < 0, when ``split``) or call
    (x >= 0), with a bound on the rounding of each value. t is float64, the values long double."""
    h = m.h
    n = e1 - e0 + 1
    # positions and Q-masses in float64 (within 2u and 4u relative; long double division is slow),
    # sums in long double; the bound g covers both
    t = np.exp(np.arange(e0, e1 + 1) * h)
    p = np.zeros(n)
    p[m.lo - e0 : m.lo - e0 + m.p.size] = m.p
    w = p / t
    g = (n + 8) * L(_ULD) + 8 * L(2.0**-53)
    ns = int(np.searchsorted(np.arange(e0, e1 + 1), 0)) if split else 0  # first point in call space
    val = np.empty(n, dtype=L)
    err = np.empty(n, dtype=L)
    # call at i >= ns: a + Σ_{j > i} p_j − t_i Σ_{j > i} w_j
    pc, wc = p[ns:].astype(L), w[ns:].astype(L)
    SP = np.cumsum(pc[::-1])[::-1] - pc
    SW = np.cumsum(wc[::-1])[::-1] - wc
    tc = t[ns:].astype(L)
    val[ns:] = L(m.inf) + SP - tc * SW
    err[ns:] = g * (L(m.inf) + SP + tc * SW)
    del pc, wc, SP, SW, tc
    if ns:
        # put at i < ns: Σ_{j < i} (t_i w_j − p_j) + (P − 1) − t_i (Q − 1)
        P_all = np.sum(p.astype(L)) + L(m.inf)
        Q_all = np.sum(w.astype(L))
        dP, dQ = P_all - 1, Q_all - 1  # (long double sums: error <= n·ULD·total)
        pp, ww, tp = p[:ns].astype(L), w[:ns].astype(L), t[:ns].astype(L)
        PP = np.cumsum(pp) - pp
        PW = np.cumsum(ww) - ww
        val[:ns] = tp * PW - PP + dP - tp * dQ
        err[:ns] = g * (tp * PW + PP) + g * (P_all + 1 + tp * (Q_all + 1))
    return t, val, err


def coarsen(m: GridMeasure, factor: int) -> GridMeasure:
    """``m`` (pessimistic or optimistic) on the lattice of step factor·h, same kind (module doc)."""
    if factor == 1:
        return m
    H = m.h * factor
    lo_c = math.floor(m.lo / factor)
    hi_c = -((-(m.lo + m.p.size - 1)) // factor)
    if hi_c - lo_c < 2:
        hi_c = lo_c + 2
    ci = np.arange(lo_c, hi_c + 1)
    split = bool(ci[0] < 0 < ci[-1])
    tf, rv, ev = side_values_of(m, lo_c * factor, hi_c * factor, split)
    kpos = (ci - lo_c) * factor  # the coarse points among the fine ones
    r, er = rv[kpos], ev[kpos]
    k = Knots(
        h=H,
        idx=ci.astype(np.int64),
        x=ci * H,
        t=tf[kpos],
        r=r,
        s=int(np.searchsorted(ci, 0)) if split else 0,
        split=split,
        inf_mass=float(m.inf),
        label=m.label,
    )
    if m.kind == "pessimistic":
        p, inf = pessimistic_on_knots(k, 0.0, r_up=r + er)
        lo, pp = _trim(lo_c, _round_up(p))
        return GridMeasure(H, lo, pp, inf, "pessimistic", m.label, m.shift)
    # optimistic: H = m's own polyline (values lowered by their rounding bound) on each side
    low = (rv - ev).astype(np.float64)
    Q_tot = float(np.sum(m.p / np.exp(m.x)))
    a_low = float(np.nextafter(m.inf * (1 - 1e-12), 0.0)) if m.inf > 0 else 0.0
    fi = np.arange(lo_c * factor, hi_c * factor + 1)
    if split:
        left, right = fi <= 0, fi >= 0
        HL = polyline_bound(tf[left], low[left], 1.0 - Q_tot, 0.0, 0.0)
        HR = polyline_bound(tf[right], low[right], 0.0, 0.0, a_low)
    else:
        HL = Bound(np.zeros(0), np.zeros(0), 0.0, 0.0, 0.0)
        HR = polyline_bound(tf, low, -Q_tot, 0.0, a_low)
    # below the bottom coarse point (at or below m's support) the measure keeps m's own linear part
    res = optimistic_masses(k, HL, HR, r + er, float(r[0] - er[0]), a_low, B=1.0 - Q_tot)
    if res is None:
        raise PrivcheckUsageError(f"could not coarsen the optimistic measure of {m.label} by {factor}")
    p, inf, _ = res
    lo, pp = _trim(lo_c, p)
    return GridMeasure(H, lo, pp, inf, "optimistic", m.label, m.shift)
