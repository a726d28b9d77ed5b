"""FFT composition of grid measures with certified error terms, and δ(ε) from the result.

The composed finite measure is the convolution of the grid measures (self-composition: the
spectrum raised to the count by repeated squaring). One circular FFT of length N = 2^k covers a
window [bot, bot + N) of the composed loss chosen by Chernoff bounds from the exact (blocked)
moment generating functions; mass outside the window either wraps into it (non-negative, so it
only raises the pessimistic sum) or is bounded by the Chernoff tail and subtracted/added.

Floating-point error of the FFT route (bounded and added outward):
- forward FFT, componentwise: |Â_k − A_k| ≤ γ·‖a‖₁ with γ = 10·u·log2 N (radix-2 analysis,
  Higham 2002 §24.1, with a factor ~1.5 for the twiddle factors);
- powers by repeated squaring: |Â^T − A^T| ≤ T·d·(|Â| + d)^{T−1} + 4.1·u·T·(|Â| + d)^T;
- products of events telescoped; inverse FFT: ‖Δc‖₂ ≤ ‖ΔC‖₂/√N + γ·‖C‖₁/√N;
- δ(ε) = Σ c_i (1 − e^{ε − x_i})_+ is then off by at most ‖Δc‖₂·‖f‖₂ plus the summation error.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from accountants.pld.discretise import GridMeasure
from privcheck.errors import PrivcheckUsageError

__all__ = ["Composition", "compose", "log_mgf", "LAMBDAS_POS", "LAMBDAS_NEG"]

U = 2.0**-53
LAMBDAS_POS = np.geomspace(1e-2, 1e3, 21)
LAMBDAS_NEG = np.concatenate([np.linspace(0.1, 0.9, 3), np.geomspace(1.0, 300.0, 10)])


def log_mgf(m: GridMeasure, lams: np.ndarray, sign: int) -> np.ndarray:
    """log Σ_i p_i e^{±λ x_i} of the finite part, for λ in ``lams`` (exact sums in log space,
    inflated by 1e−12 relative for rounding)."""
    keep = m.p > 0
    if not keep.any():
        return np.full(lams.shape, -np.inf)
    lp = np.log(m.p[keep])
    x = (m.lo + np.nonzero(keep)[0]) * m.h
    out = np.empty(lams.size)
    step = max(1, 4_000_000 // max(x.size, 1))
    for s in range(0, lams.size, step):
        v = lp[None, :] + (sign * lams[s:s + step, None]) * x[None, :]
        mx = v.max(axis=1)
        out[s:s + step] = mx + np.log(np.sum(np.exp(v - mx[:, None]), axis=1))
    return out + 1e-12 * np.abs(out) + 1e-12


@dataclass
class Composition:
    """A composed grid measure restricted to a window, with its error terms.

    c[i] is the (FFT-computed) mass at loss (bot + i)·h; inf the composed +∞ mass; err_l2 a bound
    on ‖ĉ − c‖₂; out_above/out_below Chernoff bounds on the finite mass above/below the window;
    K_pos/K_neg: log-MGF bounds of the composed finite measure at LAMBDAS_POS / −LAMBDAS_NEG.
    """

    h: float
    bot: int
    c: np.ndarray
    inf: float
    err_l2: float
    out_above: float
    out_below: float
    K_pos: np.ndarray
    K_neg: np.ndarray
    kind: str
    shift: float
    tilt: float = 0.0
    log_scale: float = 0.0
    wrapped: float = 0.0  # bound on the (tilted) mass that wrapped into the window

    def delta_bound(self, eps: float) -> float:
        """Upper (pessimistic kind) or lower (optimistic kind) bound on δ(ε) of the composition."""
        # losses were snapped by up to `shift` against the measure's direction (down in the
        # pessimistic, up in the optimistic measure): evaluate where the true losses could sit
        eps = float(eps) - (self.shift if self.kind == "pessimistic" else -self.shift)
        n = self.c.size
        k0 = int(math.floor(eps / self.h)) + 1 - self.bot
        k0 = min(max(k0, 0), n)
        xs = (self.bot + k0 + np.arange(n - k0)) * self.h
        sel = xs > eps
        xs = xs[sel]
        cs = self.c[k0:][sel]
        f = -np.expm1(eps - xs)
        if self.tilt > 0:  # undo the tilt: c_i = c̃_i e^{log_scale − λ x_i}
            f = f * np.exp(np.minimum(self.log_scale - self.tilt * xs, 700.0)) * (1 + 1e-12)
        terms = cs * f
        val = float(np.sum(terms))
        sum_err = (np.log2(max(terms.size, 2)) + 8) * U * float(np.sum(np.abs(terms))) * 2 + 4 * U * abs(val)
        fft_err = self.err_l2 * float(np.sqrt(np.sum(f * f)))
        if self.tilt > 0:
            # wrapped tilted mass lands somewhere above eps with weight <= max f
            wrap = self.wrapped * (float(np.max(f)) if f.size else 0.0)
            fft_err += wrap if self.kind == "optimistic" else 0.0
        # below the window: every loss <= bot·h; only counts if eps < bot·h
        if self.kind == "pessimistic":
            below = self.out_below if eps < self.bot * self.h else 0.0
            out = self.inf + val + fft_err + sum_err + self.out_above + below
            ch = self.chernoff_delta(eps)
            return min(1.0, out, ch)
        # untilted: mass that wrapped into the window is at most the mass outside it; tilted:
        # that is bounded through `wrapped` above (the true mass outside only adds to δ)
        outside = 0.0 if self.tilt > 0 else self.out_above + self.out_below
        out = self.inf * (1 - 1e-12) + val - fft_err - sum_err - outside
        return max(0.0, out)

    def chernoff_delta(self, eps: float) -> float:
        """δ(ε) ≤ inf + min_λ exp(K(λ) − λε)·λ^λ/(λ+1)^{λ+1} (valid for the pessimistic measure)."""
        lam = LAMBDAS_POS
        logc = lam * np.log(lam / (lam + 1)) - np.log1p(lam)
        v = float(np.min(self.K_pos - lam * eps + logc))
        return self.inf + math.exp(min(v, 0.0)) * (1 + 1e-12)

    def chernoff_eps(self, delta: float) -> float:
        """Smallest ε certified by the Chernoff bound alone: δ(ε) <= delta (log space, any delta)."""
        rest = delta - self.inf * (1 + 1e-12)
        if rest <= 0:
            return math.inf
        lam = LAMBDAS_POS
        logc = lam * np.log(lam / (lam + 1)) - np.log1p(lam)
        e = (self.K_pos + logc - math.log(rest)) / lam
        # the measure's losses may sit up to `shift` below the true ones (grid snapping)
        return max(0.0, float(np.min(e)) * (1 + 1e-12) + 1e-12 + self.shift)


_FLUSH = 1e-140


def _power(A: np.ndarray, T: int, d: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Â^T by repeated squaring, with an error bound and a magnitude bound per component.

    Components below 1e−140 are flushed to 0 along the way (avoids subnormal arithmetic); each
    flush changes the result by at most 1e−140 per component, added to the error bound."""
    out = None
    base = A.copy()
    e = T
    while e:
        if e & 1:
            out = base.copy() if out is None else out * base
            out[np.abs(out) < _FLUSH] = 0
        e >>= 1
        if e:
            base = base * base
            base[np.abs(base) < _FLUSH] = 0
    mag = np.abs(A) + d
    with np.errstate(divide="ignore"):
        lm = np.log(mag)
    B = np.exp(np.maximum(T * lm, -745.0)) * (1 + 4.1 * U * T)
    Bm1 = np.exp(np.maximum((T - 1) * lm, -745.0))
    E = T * d * Bm1 + 4.1 * U * T * B + 4 * math.log2(T + 1) * _FLUSH
    return out, E, B


def product_inf_mass(parts: list[tuple[float, float, int]], kind: str) -> float:
    """+∞ mass of a product measure: Π(F_j + a_j)^{T_j} − Π F_j^{T_j} for parts (a_j, F_j, T_j)
    (a: +∞ mass, F: finite mass), as ΠF^T·expm1(Σ T·log1p(a/F)) so that a +∞ mass far below
    the float resolution of F (e.g. 1e−37 next to F ≈ 1) is kept; rounded outward per ``kind``."""
    log_fin, s = 0.0, 0.0
    only_inf = False
    for a, F, T in parts:
        if F <= 0:
            only_inf = True
            log_fin += T * math.log(a) if a > 0 else -math.inf
            continue
        log_fin += T * math.log(F)
        s += T * math.log1p(a / F)
    if only_inf:  # some part has no finite mass: every composed outcome is at +∞
        v = math.exp(log_fin + s) if log_fin > -math.inf else 0.0
    else:
        v = math.exp(log_fin) * math.expm1(s)
    if kind == "pessimistic":
        return float(np.nextafter(v * (1 + 1e-10), np.inf)) if v > 0 else 0.0
    return max(float(np.nextafter(v * (1 - 1e-10), 0.0)), 0.0) if v > 0 else 0.0


def _tilted(m: GridMeasure, lam: float) -> tuple[GridMeasure, float]:
    """The measure p_i e^{λx_i}/M(λ) and log M(λ) (exponential tilting; exact in log space)."""
    keep = m.p > 0
    lp = np.full(m.p.size, -np.inf)
    lp[keep] = np.log(m.p[keep]) + lam * m.x[keep]
    mx = float(lp.max())
    w = np.exp(lp - mx)
    logM = mx + math.log(float(np.sum(w)))
    return GridMeasure(m.h, m.lo, np.exp(lp - logM), 0.0, m.kind, m.label, m.shift), logM


def compose(parts: list[tuple[GridMeasure, int]], kind: str, tail: float, max_fft: int,
            window_only: bool = False, tilt: float = 0.0):
    """Compose ``parts`` = [(grid measure, count), ...] (all of one ``kind`` and step h).

    window_only: return just the width (in loss units) of the Chernoff window.
    tilt: λ ≥ 0 — compose the exponentially tilted measures p e^{λx}/M(λ) instead and undo the
    tilt when summing (the FFT's absolute error then sits at the scale of the tail that is asked
    for: δ down to ~1e−300 stays resolvable)."""
    h = parts[0][0].h
    Kp = sum(T * log_mgf(m, LAMBDAS_POS, +1) for m, T in parts)
    Kn = sum(T * log_mgf(m, LAMBDAS_NEG, -1) for m, T in parts)
    K_orig = (Kp, Kn)
    log_scale = 0.0
    if tilt > 0:
        tparts = []
        for m, T in parts:
            tm, logM = _tilted(m, tilt)
            tparts.append((tm, T))
            log_scale += T * logM
        inf_parts = [(m.inf, m.finite_mass, T) for m, T in parts]
        parts = tparts
        Kp = sum(T * log_mgf(m, LAMBDAS_POS, +1) for m, T in parts)
        Kn = sum(T * log_mgf(m, LAMBDAS_NEG, -1) for m, T in parts)
    lt = math.log(tail)
    top = float(np.min((Kp - lt) / LAMBDAS_POS))
    bot = float(np.max((lt - Kn) / LAMBDAS_NEG))
    lo_sum = sum(T * m.lo for m, T in parts)
    hi_sum = sum(T * (m.lo + m.p.size - 1) for m, T in parts)
    # a non-finite tail bound (degenerate measures, e.g. a loss concentrated at 0) gives no window: keep the support
    i_bot = max(int(math.floor(bot / h)) - 2, lo_sum) if math.isfinite(bot) else lo_sum
    i_top = min(int(math.ceil(top / h)) + 2, hi_sum) if math.isfinite(top) else hi_sum
    i_top = max(i_top, i_bot + 1)
    width = i_top - i_bot + 1
    if window_only:
        return width * h
    N = 1 << max(int(math.ceil(math.log2(width))), 4)
    if N > max_fft:
        raise PrivcheckUsageError(f"composition needs an FFT of size {N} > max_fft_size={max_fft}; use a coarser grid_step")
    gamma = 10 * U * math.log2(N)
    C = None
    Eacc = None
    Bacc = None
    shift = 0.0
    for m, T in parts:
        pos = (m.lo + np.arange(m.p.size)) % N
        a = np.bincount(pos, weights=m.p, minlength=N)
        A = np.fft.rfft(a)
        d = gamma * float(np.sum(np.abs(m.p))) * (1 + 1e-10)
        P, E, B = _power(A, T, d)
        if C is None:
            C, Eacc, Bacc = P, E, B
        else:
            Eacc = Eacc * B + E * Bacc + 4 * U * Bacc * B
            Bacc = Bacc * B
            C = C * P
        shift += T * m.shift
    c = np.fft.irfft(C, N)
    w = np.full(C.size, 2.0)
    w[0] = 1.0
    if N % 2 == 0:
        w[-1] = 1.0
    err_l2 = math.sqrt(float(np.sum(w * Eacc * Eacc)) / N) + gamma * float(np.sum(w * np.abs(C))) / math.sqrt(N)
    err_l2 *= 1.0 + 1e-6
    c = np.roll(c, -(i_bot % N))
    inf = product_inf_mass(inf_parts if tilt > 0 else [(m.inf, m.finite_mass, T) for m, T in parts], kind)
    x_top = (i_bot + N - 1) * h
    x_bot = i_bot * h
    # mass outside the window: of the measure that was transformed (tilted or not)
    t_above = math.exp(min(0.0, float(np.min(Kp - LAMBDAS_POS * (x_top + 0.5 * h))))) if i_bot + N - 1 < hi_sum else 0.0
    t_below = math.exp(min(0.0, float(np.min(Kn + LAMBDAS_NEG * (x_bot - 0.5 * h))))) if i_bot > lo_sum else 0.0
    Kp0, Kn0 = K_orig
    out_above = math.exp(min(0.0, float(np.min(Kp0 - LAMBDAS_POS * (x_top + 0.5 * h))))) if i_bot + N - 1 < hi_sum else 0.0
    out_below = math.exp(min(0.0, float(np.min(Kn0 + LAMBDAS_NEG * (x_bot - 0.5 * h))))) if i_bot > lo_sum else 0.0
    return Composition(h, i_bot, c, inf, err_l2, out_above, out_below, Kp0, Kn0, kind, shift,
                       tilt, log_scale, t_above + t_below)
