"""FFT composition of grid measures with certified error terms, and δ(ε) from the result.

The composed finite measure is the convolution of the grid measures (self-composition: the
spectrum raised to the count by repeated squaring). One circular FFT of length N = 2^k covers a
window [bot, bot + N) of the composed loss chosen by Chernoff bounds from the exact (blocked)
moment generating functions; mass outside the window either wraps into it (non-negative, so it
only raises the pessimistic sum) or is bounded by the Chernoff tail and subtracted/added.

Floating-point error of the FFT route (bounded and added outward):
- forward FFT (scipy.fft: pocketfft, as numpy.fft; ``workers`` only splits batches of transforms),
  componentwise: |Â_k − A_k| ≤ γ·‖a‖₁ with γ = 10·u·log2 N (radix-2 analysis,
  Higham 2002 §24.1, with a factor ~1.5 for the twiddle factors);
- powers by repeated squaring: |Â^T − A^T| ≤ T·d·(|Â| + d)^{T−1} + 4.1·u·T·(|Â| + d)^T;
- products of events telescoped; inverse FFT: ‖Δc‖₂ ≤ ‖ΔC‖₂/√N + γ·‖C‖₁/√N;
- δ(ε) = Σ c_i (1 − e^{ε − x_i})_+ is then off by at most ‖Δc‖₂·‖f‖₂ plus the summation error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import fft as sp_fft

from accountants.pld.discretise import GridMeasure
from privcheck.base.errors import PrivcheckUsageError

__all__ = ["Composition", "compose", "log_mgf", "LAMBDAS_POS", "LAMBDAS_NEG"]

U = 2.0**-53
LAMBDAS_POS = np.geomspace(1e-2, 1e3, 21)
LAMBDAS_NEG = np.concatenate([np.linspace(0.1, 0.9, 3), np.geomspace(1.0, 300.0, 10)])


def log_mgf(m: GridMeasure, lams: np.ndarray, sign: int) -> np.ndarray:
    """log Σ_i p_i e^{±λ x_i} of the finite part, for λ in ``lams`` (exact sums in log space,
    inflated by 1e−12 relative for rounding).

    Blocked: with x_i = a_b + j·h inside a block of B consecutive grid points,
    Σ_i p_i e^{sλx_i} = Σ_b e^{sλa_b}·Σ_j p_{b,j} e^{sλjh}; the inner sums are one matrix product of
    non-negative terms (factors <= e^{50}: no overflow), the outer sum is taken in log space."""
    cache = m.__dict__.setdefault("_log_mgf", {})
    key = (lams.tobytes(), sign)
    if key not in cache:
        cache[key] = _log_mgf(m, lams, sign)
    return cache[key]


def _log_mgf(m: GridMeasure, lams: np.ndarray, sign: int) -> np.ndarray:
    keep = m.p > 0
    if not keep.any():
        return np.full(lams.shape, -np.inf)
    nz = np.nonzero(keep)[0]
    i0, i1 = int(nz[0]), int(nz[-1]) + 1
    if nz.size * 4 < i1 - i0:  # sparse (a measure on knots): every term in log space
        lx = np.log(m.p[nz])[:, None] + sign * np.multiply.outer((m.lo + nz) * m.h, lams)
        mx = lx.max(axis=0)
        out = mx + np.log(np.sum(np.exp(lx - mx[None, :]), axis=0))
        return out + 1e-12 * np.abs(out) + 1e-12
    lam_max = float(np.max(lams)) if lams.size else 0.0
    B = int(max(1, min(64, 50.0 // max(lam_max * m.h, 1e-300))))
    p = m.p[i0:i1]
    nb = -(-p.size // B)
    flat = np.zeros(nb * B)
    flat[: p.size] = p
    P = flat.reshape(nb, B)
    j = np.arange(B) * m.h
    inner = P @ np.exp(sign * np.multiply.outer(j, lams))  # (nb, len(lams)), non-negative
    a = (m.lo + i0 + np.arange(nb) * B) * m.h
    with np.errstate(divide="ignore"):
        v = np.log(inner)
    v += sign * np.multiply.outer(a, lams)
    mx = v.max(axis=0)
    v -= mx[None, :]
    np.exp(v, out=v)
    out = mx + np.log(np.sum(v, axis=0))
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
    err_inf: float = math.inf  # a bound on max_i |ĉ_i − c_i|

    def delta_bound(self, eps: float) -> float:
        """Upper (pessimistic kind) or lower (optimistic kind) bound on δ(ε) of the composition."""
        return float(self.delta_bounds(np.array([float(eps)]))[0])

    def delta_bounds(self, eps) -> np.ndarray:
        """``delta_bound`` for every entry of the 1-d array ``eps`` (same shape, float array).

        Each entry is computed by the same arithmetic whatever the other entries are (summation in
        fixed blocks of absolute window positions, exact zeros below the entry's first loss), so
        ``delta_bounds(e)[i] == delta_bound(e[i])`` bit for bit."""
        e0 = np.asarray(eps, dtype=float).ravel()
        # losses were snapped by up to `shift` against the measure's direction (down in the
        # pessimistic, up in the optimistic measure): evaluate where the true losses could sit
        e = e0 - (self.shift if self.kind == "pessimistic" else -self.shift)
        n = self.c.size
        val, s_abs, s_f2, f_max = _tail_sums(self, e)
        # relative rounding, plus the absolute rounding of subnormal results (half an ulp of the
        # smallest double per operation: relative bounds say nothing below 2.2e−308; issue 29 §2)
        sum_err = (np.log2(max(n, 2)) + 24) * U * s_abs * 2 + 4 * U * np.abs(val) + _SUBNORMAL_ULP * 4 * (n + 64)
        fft_err = self.err_l2 * np.sqrt(s_f2)
        if self.tilt > 0 and self.kind == "optimistic":
            # wrapped tilted mass lands somewhere above eps with weight <= max f
            fft_err = fft_err + self.wrapped * f_max
        if self.kind == "pessimistic":
            # below the window: every loss <= bot·h; only counts if eps < bot·h
            below = np.where(e < self.bot * self.h, self.out_below, 0.0)
            out = self.inf + val + fft_err + sum_err + self.out_above + below
            return np.minimum(np.minimum(1.0, out), self._chernoff_deltas(e))
        # untilted: mass that wrapped into the window is at most the mass outside it; tilted:
        # that is bounded through `wrapped` above (the true mass outside only adds to δ)
        outside = 0.0 if self.tilt > 0 else self.out_above + self.out_below
        out = self.inf * (1 - 1e-12) + val - fft_err - sum_err - outside
        return np.maximum(0.0, out)

    def chernoff_delta(self, eps: float) -> float:
        """δ(ε) ≤ inf + min_λ exp(K(λ) − λε)·λ^λ/(λ+1)^{λ+1} (valid for the pessimistic measure)."""
        return float(self._chernoff_deltas(np.array([float(eps)]))[0])

    def _chernoff_deltas(self, eps: np.ndarray) -> np.ndarray:
        lam = LAMBDAS_POS
        logc = lam * np.log(lam / (lam + 1)) - np.log1p(lam)
        v = np.min(self.K_pos[None, :] - lam[None, :] * eps[:, None] + logc[None, :], axis=1)
        return self.inf + np.exp(np.minimum(v, 0.0)) * (1 + 1e-12)

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


_SUBNORMAL_ULP = 5e-324  # the spacing of doubles below 2.2e−308
_BLOCK = 256  # block of absolute window positions (exact terms in ε's own block, block sums beyond)
_CHUNK_ROWS = 2048  # ε values per work chunk


def _block_sums(comp: Composition) -> dict:
    """Per block b of window positions [bB, (b+1)B) with a_b = x_{bB}, g_i the un-tilting
    factor (1 untilted) and w_i = e^{−(x_i − a_b)} ∈ (0, 1]: S1 = Σ c_i g_i, S2 = Σ c_i g_i w_i,
    A1 = Σ |c_i g_i|, A2 = Σ |c_i g_i| w_i, G0/G1/G2 = Σ g_i² w_i^{0,1,2}, gmax = max g_i
    (cached on the composition; computed 2^18 positions at a time to keep temporaries small)."""
    hit = getattr(comp, "_blocks", None)
    if hit is not None:
        return hit
    n = comp.c.size
    B = min(_BLOCK, n)
    nb = n // B  # n is a power of two >= 16
    keys = ("S1", "S2", "A1", "A2", "G0", "G1", "G2", "gmax")
    out: dict = {k: np.empty(nb) for k in keys}
    step = max(1, (1 << 18) // B)  # blocks per chunk
    for b0 in range(0, nb, step):
        b1 = min(nb, b0 + step)
        xs = (comp.bot + np.arange(b0 * B, b1 * B)) * comp.h
        g = _untilt(comp, xs)
        cg = (comp.c[b0 * B : b1 * B] * g).reshape(-1, B)
        w = np.exp(-(xs.reshape(-1, B) - xs[::B][:, None]))
        g2 = (g * g).reshape(-1, B)
        acg = np.abs(cg)
        out["S1"][b0:b1] = cg.sum(axis=1)
        out["S2"][b0:b1] = (cg * w).sum(axis=1)
        out["A1"][b0:b1] = acg.sum(axis=1)
        out["A2"][b0:b1] = (acg * w).sum(axis=1)
        out["G0"][b0:b1] = g2.sum(axis=1)
        g2 *= w
        out["G1"][b0:b1] = g2.sum(axis=1)
        g2 *= w
        out["G2"][b0:b1] = g2.sum(axis=1)
        out["gmax"][b0:b1] = g.reshape(-1, B).max(axis=1)
    j = np.arange(nb) * B
    out.update({"B": B, "nb": nb, "a": (comp.bot + j) * comp.h, "a_end": (comp.bot + j + B - 1) * comp.h})
    comp.__dict__["_blocks"] = out
    return out


def _untilt(comp: Composition, xs: np.ndarray):
    """The factor e^{log_scale − λ x} (rounded up) that turns tilted masses back into true ones; 1 untilted."""
    if comp.tilt > 0:
        return np.exp(np.minimum(comp.log_scale - comp.tilt * xs, 700.0)) * (1 + 1e-12)
    return np.ones_like(xs)


def _tail_sums(comp: Composition, e: np.ndarray):
    """For each ε in ``e`` (already shifted), over the window points x_i > ε with f_i = (1 − e^{ε − x_i})·g_i
    (g the un-tilting factor): (Σ c_i f_i, a bound on the magnitude of its summands, an upper
    bound on Σ f_i², an upper bound on max f_i).

    The block holding ε's first point is summed term by term (exact zeros at positions <= ε);
    every later block b in closed form S1_b − e^{ε − a_b}·S2_b, whose rounding error
    (<= 2(log2 B + 24)u·(A1_b + e^{ε−a_b}A2_b)) is counted in the magnitude returned (the caller
    multiplies it by (log2 N + 24)·2u). Row results do not depend on the other entries."""
    n = comp.c.size
    bs = _block_sums(comp)
    B, nb = bs["B"], bs["nb"]
    gam = (math.log2(B) + 24) * U * 2
    k0 = np.clip(np.floor(e / comp.h) + (1 - comp.bot), 0, n).astype(np.int64)
    val, mag, f2, fmax = (np.zeros(e.size) for _ in range(4))
    jj = np.arange(B)
    bidx = np.arange(nb)
    for s in range(0, e.size, _CHUNK_ROWS):
        ei, ki = e[s : s + _CHUNK_ROWS], k0[s : s + _CHUNK_ROWS]
        b0 = np.minimum(ki // B, nb - 1)
        # first block, term by term
        pos = b0[:, None] * B + jj[None, :]
        xs = (comp.bot + pos) * comp.h
        sel = (pos >= ki[:, None]) & (xs > ei[:, None])
        with np.errstate(over="ignore", invalid="ignore"):
            f = np.where(sel, -np.expm1(np.minimum(ei[:, None] - xs, 0.0)) * _untilt(comp, xs), 0.0)
        t = comp.c[pos] * f
        # later blocks, in closed form
        later = bidx[None, :] > b0[:, None]
        with np.errstate(over="ignore", invalid="ignore"):
            E = np.where(later, np.exp(np.minimum(ei[:, None] - bs["a"][None, :], 0.0)), 0.0)
        contrib = np.where(later, bs["S1"] - E * bs["S2"], 0.0)
        m_b = np.where(later, (bs["A1"] + E * bs["A2"]) * (1 + gam / ((math.log2(max(n, 2)) + 24) * U * 2)), 0.0)
        q2 = bs["G0"] - 2 * E * bs["G1"] + E * E * bs["G2"]
        q2 = np.where(later, np.maximum(q2, 0.0) + gam * (bs["G0"] + 2 * E * bs["G1"] + E * E * bs["G2"]), 0.0)
        fm_b = np.where(later, bs["gmax"] * -np.expm1(np.minimum(ei[:, None] - bs["a_end"][None, :], 0.0)), 0.0)
        val[s : s + _CHUNK_ROWS] = t.sum(axis=1) + contrib.sum(axis=1)
        mag[s : s + _CHUNK_ROWS] = np.abs(t).sum(axis=1) + m_b.sum(axis=1)
        f2[s : s + _CHUNK_ROWS] = ((f * f).sum(axis=1) + q2.sum(axis=1)) * (1 + (math.log2(n) + 24) * U * 2)
        fmax[s : s + _CHUNK_ROWS] = np.maximum(f.max(axis=1), fm_b.max(axis=1) * (1 + 8 * U))
    return val, mag, f2, fmax


_FLUSH = 1e-140


def _power(A: np.ndarray, T: int, d: float, u: float = U) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Â^T by repeated squaring, with an error bound and a magnitude bound per component.

    Only components whose magnitude bound B = (|Â| + d)^T reaches 1e−140 are powered; the others
    are set to 0 with error B (|A^T| <= B). At long horizons that is a small share of the
    spectrum (|φ|^T decays fast away from frequency 0). Components below 1e−140 are flushed to 0
    along the way (avoids subnormal arithmetic); each flush changes the result by at most 1e−140
    per component, added to the error bound."""
    # the bounds in float64 (also for a long double spectrum): |Â| rounded up, then + d rounded up
    mag = np.nextafter(np.abs(A).astype(np.float64), np.inf)
    mag += d
    lm = np.log(mag, out=mag)  # (|Â| + d > 0: d > 0)
    lm += 4 * U * np.abs(lm) + 1e-300  # (log rounded up)
    B = np.exp(np.maximum(T * lm, -700.0)) * (1 + 4.1 * u * T + 1e-12)  # (no subnormals: larger is valid)
    E = np.exp(np.maximum((T - 1) * lm, -700.0)) * (1 + 1e-12)  # (|Â| + d)^{T−1}, at least e^−700
    del lm, mag
    E *= T * d
    E += 4.1 * u * T * B + 4 * math.log2(T + 1) * _FLUSH
    act = np.nonzero(B >= _FLUSH)[0]
    out = np.zeros_like(A)
    if act.size:
        base = A[act]
        res = None
        e = T
        while e:
            if e & 1:
                res = base.copy() if res is None else res * base
                res[np.abs(res) < _FLUSH] = 0
            e >>= 1
            if e:
                base *= base
                base[np.abs(base) < _FLUSH] = 0
        out[act] = res
    dead = B < _FLUSH
    E[dead] += B[dead]
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


def _k_sum(parts: list[tuple[GridMeasure, int]], lams: np.ndarray, sign: int) -> np.ndarray:
    """Σ count·log-MGF of the parts (the composed measure's log-MGF bound)."""
    out = np.zeros(lams.shape)
    for m, T in parts:
        out = out + T * log_mgf(m, lams, sign)
    return out


def compose(
    parts: list[tuple[GridMeasure, int]],
    kind: str,
    tail: float,
    max_fft: int,
    window_only: bool = False,
    tilt: float = 0.0,
    long: bool = False,
):
    """Compose ``parts`` = [(grid measure, count), ...] (all of one ``kind`` and step h).

    long: transform and power in long double (about 2000 times smaller error bounds, about three
    times slower; used for the blocks of accountants.pld.coarsen, whose pointwise error is spread
    over every window point).
    window_only: return just the width (in loss units) of the Chernoff window.
    tilt: λ ≥ 0 — compose the exponentially tilted measures p e^{λx}/M(λ) instead and undo the
    tilt when summing (the FFT's absolute error then sits at the scale of the tail that is asked
    for: δ down to ~1e−300 stays resolvable)."""
    h = parts[0][0].h
    Kp = _k_sum(parts, LAMBDAS_POS, +1)
    Kn = _k_sum(parts, LAMBDAS_NEG, -1)
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
        Kp = _k_sum(parts, LAMBDAS_POS, +1)
        Kn = _k_sum(parts, LAMBDAS_NEG, -1)
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
        raise PrivcheckUsageError(
            f"composition needs an FFT of size {N} > max_fft_size={max_fft}; use a coarser grid_step"
        )
    u = float(np.finfo(np.longdouble).eps) / 2 if long else U
    gamma = 10 * u * math.log2(N)
    C = None
    Eacc = None
    Bacc = None
    shift = 0.0
    for m, T in parts:
        pos = (m.lo + np.arange(m.p.size)) % N
        a = np.bincount(pos, weights=m.p, minlength=N)
        A = sp_fft.rfft(a.astype(np.longdouble) if long else a, workers=-1)
        del a
        d = gamma * float(np.sum(np.abs(m.p))) * (1 + 1e-10)
        P, E, B = _power(A, T, d, u)
        if C is None or Eacc is None or Bacc is None:
            C, Eacc, Bacc = P, E, B
        else:
            Eacc = Eacc * B + E * Bacc + 4 * u * Bacc * B
            Bacc = Bacc * B
            C = C * P
        shift += T * m.shift
    assert C is not None and Eacc is not None and Bacc is not None  # (parts is not empty)
    c = sp_fft.irfft(C, N, workers=-1)
    w = np.full(C.size, 2.0)
    w[0] = 1.0
    if N % 2 == 0:
        w[-1] = 1.0
    err_l2 = math.sqrt(float(np.sum(w * Eacc * Eacc)) / N) + gamma * float(np.sum(w * np.abs(C))) / math.sqrt(N)
    err_l2 *= 1.0 + 1e-6
    # pointwise: |Δc_i| <= (1/N) Σ_k w_k |ΔC_k| (power and product errors) + the inverse transform's
    # rounding (its ℓ2 bound, an ℓ∞ bound too)
    err_inf = (float(np.sum(w * Eacc)) / N + gamma * float(np.sum(w * np.abs(C))) / math.sqrt(N)) * (1.0 + 1e-6)
    del C, Eacc, Bacc, w, P, E, B, A  # (free the spectra before the window copy)
    c = np.roll(c, -(i_bot % N))
    inf = product_inf_mass(inf_parts if tilt > 0 else [(m.inf, m.finite_mass, T) for m, T in parts], kind)
    x_top = (i_bot + N - 1) * h
    x_bot = i_bot * h
    # mass outside the window: of the measure that was transformed (tilted or not)
    t_above = math.exp(min(0.0, float(np.min(Kp - LAMBDAS_POS * (x_top + 0.5 * h))))) if i_bot + N - 1 < hi_sum else 0.0
    t_below = math.exp(min(0.0, float(np.min(Kn + LAMBDAS_NEG * (x_bot - 0.5 * h))))) if i_bot > lo_sum else 0.0
    Kp0, Kn0 = K_orig
    out_above = (
        math.exp(min(0.0, float(np.min(Kp0 - LAMBDAS_POS * (x_top + 0.5 * h))))) if i_bot + N - 1 < hi_sum else 0.0
    )
    out_below = math.exp(min(0.0, float(np.min(Kn0 + LAMBDAS_NEG * (x_bot - 0.5 * h))))) if i_bot > lo_sum else 0.0
    return Composition(
        h,
        i_bot,
        c,
        inf,
        err_l2,
        out_above,
        out_below,
        Kp0,
        Kn0,
        kind,
        shift,
        tilt,
        log_scale,
        t_above + t_below,
        min(err_inf, err_l2),
    )
