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
Both ends are then rounded outward (1e−14 absolute + 1e−12 relative; every term is an O(1) sum of a few float operations, error < 1e−15) and clipped to [0, 1 − α].

A composition of plain Gaussians is μ-GDP exactly (Dong et al. Cor. 3.3); there the curve is
G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) with μ recovered from the accountant's certified δ(0) = 2Φ(μ/2) − 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from accountants.pld.interval import Interval
from privcheck.base.errors import PrivcheckUsageError

__all__ = [
    "DeltaGrid",
    "delta_grid",
    "curve_bounds",
    "gaussian_curve",
    "tradeoff_interval",
    "CertifiedCurve",
    "certified_curve",
    "check_alpha",
    "check_alpha_min",
    "GDPResult",
    "gdp_description",
    "ABS_PAD",
    "REL_PAD",
]

ABS_PAD = 1e-14  # outward rounding of every reported curve value (absolute: values are O(1) sums) ...
REL_PAD = 1e-12  # ... plus this relative amount
DELTA_FLOOR = 1e-13  # the ε grid runs up to where the certified δ falls below this
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
        v = float(a[bad].flat[0])
        raise PrivcheckUsageError(f"{name} must be a probability in [0, 1], got {v!r}")
    return a


def delta_grid(acc, points: int = DEFAULT_POINTS) -> DeltaGrid:
    """Certified δ(ε) on ``points`` ≥ 6 values of ε ≥ 0: two thirds equally spaced up to
    ε(1e−6)'s upper end, the rest up to where the certified δ upper end drops below 1e−13 (or
    stops falling: the FFT's error floor; capped at ε = 60).

    acc: a composed PLDAccountant (its ``epsilon`` and ``delta_bounds`` are used)."""
    if not isinstance(points, (int, np.integer)) or points < 6:
        raise PrivcheckUsageError(f"points must be an integer >= 6, got {points!r}")
    mid = acc.epsilon(1e-6).upper
    mid = EPS_CAP / 2 if not math.isfinite(mid) else min(max(mid, 1e-3), EPS_CAP / 2)
    cand = [mid]
    while cand[-1] < EPS_CAP:
        cand.append(min(cand[-1] * 1.5, EPS_CAP))
    ups = acc.delta_bounds(np.array(cand))[1]  # one vectorised call (entries do not depend on each other)
    top, last = mid, ups[0]
    for nxt, d in zip(cand[1:], ups[1:]):
        if not (last > DELTA_FLOOR and top < EPS_CAP):
            break
        if d > 0.5 * last:  # no longer falling (error floor of the bound)
            break
        top, last = nxt, d
    n1 = (2 * int(points)) // 3
    eps = np.concatenate([np.linspace(0.0, mid, n1), np.linspace(mid, max(top, mid), int(points) - n1 + 1)[1:]])
    eps = np.unique(eps)
    lo, hi = acc.delta_bounds(eps)
    # δ is non-increasing in ε: a later lower bound is also a lower bound here, an earlier upper bound too
    lo = np.maximum.accumulate(lo[::-1])[::-1]
    hi = np.minimum.accumulate(hi)
    return DeltaGrid(eps, np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0))


def _max_lines(c: np.ndarray, d: np.ndarray, a: np.ndarray) -> np.ndarray:
    """max_k (c_k − a·d_k) for every entry of the 1-d array ``a`` (chunked)."""
    out = np.empty(a.size)
    step = max(1, 2_000_000 // max(c.size, 1))
    for s in range(0, a.size, step):
        out[s : s + step] = np.max(c[None, :] - a[s : s + step, None] * d[None, :], axis=1)
    return out


def _conjugate(T: np.ndarray, ell: np.ndarray, a: np.ndarray) -> np.ndarray:
    """max over points (t_k, ℓ_k) of max(1 − ℓ_k − α t_k, (1 − α − ℓ_k)/t_k) for each α in ``a``."""
    pts = np.unique(np.stack([T, ell], axis=1), axis=0)  # duplicates (clipped candidates) once
    t, el = pts[:, 0], pts[:, 1]
    s = 1.0 / t
    return np.maximum(_max_lines(1.0 - el, t, a), _max_lines(s * (1.0 - el), s, a))


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
    tail = np.maximum(1.0 - a * tG, (1.0 - a) / tG)
    return np.maximum(_conjugate(T, ell, a), tail)


def curve_bounds(g: DeltaGrid, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Certified (lower, upper) on the symmetrised trade-off curve f(α) from a DeltaGrid.

    alpha: 1-d float array in [0, 1]. Rounded outward and clipped to [0, 1 − α]."""
    a = np.asarray(alpha, dtype=float).ravel()
    lo = np.maximum(_conjugate(np.exp(g.eps), g.hi, a), 0.0)
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
    """μ bracket of an exactly μ-GDP composition (plain Gaussians: μ = √(Σ count·μ_i²) in closed
    form, any μ), else from its certified δ(0) = 2Φ(μ/2) − 1 when that is exact, or None."""
    mu = acc.exact_mu() if hasattr(acc, "exact_mu") else None
    if mu is not None:
        return max(0.0, mu * (1 - 1e-12)), mu * (1 + 1e-12)
    iv = acc.delta(0.0)
    if iv.method != "exact GDP" or not iv.upper < 1 - 1e-6:
        return None
    m_lo = 2.0 * float(norm.ppf((1.0 + iv.lower) / 2.0))
    m_hi = 2.0 * float(norm.ppf((1.0 + iv.upper) / 2.0))
    return max(0.0, m_lo * (1 - 1e-9) - 1e-12), m_hi * (1 + 1e-9) + 1e-12


@dataclass(frozen=True)
class CertifiedCurve:
    """The certified symmetrised trade-off curve of one composition: exact G_μ with μ ∈ ``mu``
    (Gaussian compositions) or the conjugate of the certified profile ``grid``."""

    method: str
    notes: tuple
    mu: tuple[float, float] | None = None
    grid: DeltaGrid | None = None

    def bounds(self, alpha) -> tuple[np.ndarray, np.ndarray]:
        """Certified (lower, upper) arrays on f(α) for a 1-d array alpha in [0, 1]."""
        a = np.asarray(alpha, dtype=float).ravel()
        if self.mu is not None:
            return _round_out(gaussian_curve(self.mu[1], a), gaussian_curve(self.mu[0], a), a)
        if self.grid is None:
            raise ValueError("a CertifiedCurve needs mu or grid")
        return curve_bounds(self.grid, a)


def certified_curve(acc, points: int = DEFAULT_POINTS) -> CertifiedCurve:
    """The accountant's CertifiedCurve (acc: a composed PLDAccountant; points: ε-grid size ≥ 3)."""
    mus = _gdp_mu_interval(acc)
    if mus is not None:
        return CertifiedCurve("exact GDP", (f"mu in [{mus[0]:.12g}, {mus[1]:.12g}]",), mu=mus)
    g = delta_grid(acc, points)
    return CertifiedCurve(
        "pld-profile",
        (f"conjugate of the certified profile on {g.eps.size} eps points in [0, {g.eps[-1]:.6g}]",),
        grid=g,
    )


def tradeoff_interval(curve: CertifiedCurve, alpha):
    """β(α) as a certified Interval from a CertifiedCurve.

    alpha: scalar or array in [0, 1] (vectorised; the ends have alpha's shape, floats for a scalar)."""

    a = check_alpha(alpha)
    lo, up = curve.bounds(a.ravel())
    if a.shape == ():
        return Interval(float(lo[0]), float(up[0]), curve.method, curve.notes)
    return Interval(lo.reshape(a.shape), up.reshape(a.shape), curve.method, curve.notes)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- μ-GDP description

GDP_ALPHA_MIN = 1e-10  # gdpnum's cut (converter._get_mus, err=1e-10): α and β both above it


@dataclass(frozen=True)
class GDPResult:
    """μ-GDP description of a composition (unpacks as ``mu, regret``).

    mu: certified Interval on μ_a = the smallest μ with G_μ(α) ≤ f(α) for every α with α ≥ a and
    f(α) ≥ a (a = ``alpha_min``; by the symmetry of f and G_μ that is α ∈ [a, α*], α* = f(α*)).
    regret: certified Interval on the worst-case regret of that μ, the smallest Δ ≥ 0 with
    f(α + Δ) − Δ ≤ G_μ(α) for all α ∈ [0, 1] (f = 0 beyond 1) — how far the true curve lies
    above (is more private than) the reported G_μ.
    """

    mu: object
    regret: object
    alpha_min: float
    #: why the answer says nothing, "" when it does: the range α, f(α) >= alpha_min is empty (μ_a = 0
    #: vacuously, although the mechanism may be far from private), or no finite μ was certified
    vacuous: str = ""

    def __iter__(self):
        return iter((self.mu, self.regret))


def _alpha_grid(a: float) -> np.ndarray:
    """Sorted α grid on [0, 1] (linear, plus geometric points from ``a`` down to 1e−12·a)."""
    return np.unique(
        np.concatenate(
            [np.linspace(0.0, 1.0, 20_001), np.geomspace(min(a, 1e-3) * 1e-2, 1.0, 4_000), np.geomspace(a, 0.5, 4_000)]
        )
    )


def _mu_bounds(Y: np.ndarray, lo: np.ndarray, up: np.ndarray, a: float) -> tuple[float, float]:
    """μ_a bracket from the curve bounds (lo, up) on the grid Y (see GDPResult)."""
    # fixed point α* = f(α*) bracketed on the grid (f(α) − α is decreasing; f(1/2) <= 1/2)
    below = np.nonzero((lo >= Y) & (Y <= 0.5))[0]
    star_lo = float(Y[below[-1]]) if below.size else -1.0
    star_hi = float(Y[np.nonzero(up <= Y)[0][0]])
    with np.errstate(divide="ignore", invalid="ignore"):
        pts = (Y >= a) & (Y <= star_lo)  # lower end: grid points inside [a, α*_lo], upper curve
        m_lo = float(np.max(norm.isf(Y[pts]) + norm.isf(up[pts]), initial=0.0))
        # upper end: cells [Y_j, Y_{j+1}] meeting [a, α*_hi]: isf(α) <= isf(max(Y_j, a)), f(α) >= lo(Y_{j+1})
        cells = (Y[1:] > a) & (Y[:-1] <= star_hi)
        left = np.maximum(Y[:-1][cells], a)
        m_up = float(np.max(norm.isf(left) + norm.isf(lo[1:][cells]), initial=0.0))
    if math.isnan(m_up):
        m_up = math.inf
    m_lo = max(0.0, m_lo * (1 - REL_PAD) - ABS_PAD) if math.isfinite(m_lo) else 0.0
    m_up = m_up * (1 + REL_PAD) + ABS_PAD
    return m_lo, max(m_up, m_lo)


def _regret_bounds(
    Y: np.ndarray, lo: np.ndarray, up: np.ndarray, mu_lo: float, mu_hi: float, iters: int = 40
) -> tuple[float, float]:
    """Bracket on the smallest Δ with f(α + Δ) − Δ <= G_μ(α) on [0, 1], μ ∈ [mu_lo, mu_hi],
    from the curve bounds on the grid Y (f non-increasing, f = 0 beyond 1)."""
    g_right = gaussian_curve(mu_hi, Y[1:]) * (1 - REL_PAD) - ABS_PAD  # G_μ >= this on each cell
    g_at = gaussian_curve(mu_lo, Y) * (1 + REL_PAD) + ABS_PAD  # G_μ <= this at grid points
    up0 = np.append(up, 0.0)
    lo0 = np.append(lo, 0.0)

    def feasible_sure(d):  # f(α + d) <= f(Y_j + d) <= up at the grid point at or below Y_j + d
        k = np.searchsorted(Y, Y[:-1] + d, side="right") - 1
        fu = np.where(Y[:-1] + d > 1.0, 0.0, up0[k])
        return bool(np.all(fu - d <= g_right))

    def infeasible_sure(d):  # f(Y_j + d) >= lo at the grid point at or above Y_j + d
        k = np.searchsorted(Y, Y + d, side="left")
        fl = np.where(Y + d > 1.0, 0.0, lo0[np.minimum(k, Y.size)])
        return bool(np.any(fl - d > g_at))

    upper = _bisect(feasible_sure, 0.0, 1.0, iters)[1]  # 1.0 is always feasible (f − 1 <= 0 <= G)
    if not infeasible_sure(0.0):
        return 0.0, upper
    return _bisect(lambda d: not infeasible_sure(d), 0.0, upper, iters)[0], upper


def _bisect(pred, lo: float, hi: float, iters: int) -> tuple[float, float]:
    """Bracket [lo, hi] of the switch of a monotone predicate (False at lo, True at hi), halved ``iters`` times."""
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        if pred(mid):
            hi = mid
        else:
            lo = mid
    return lo, hi


def check_alpha_min(alpha_min, name: str = "alpha_min") -> float:
    """``alpha_min`` as a float in (0, 0.5), else PrivcheckUsageError (one line)."""
    a = float(check_alpha(alpha_min, name))
    if not 0 < a < 0.5:
        raise PrivcheckUsageError(f"{name} must be in (0, 0.5), got {alpha_min!r}")
    return a


def gdp_description(curve: CertifiedCurve, alpha_min: float = GDP_ALPHA_MIN) -> GDPResult:
    """μ and its worst-case regret as certified Intervals (see GDPResult), from a CertifiedCurve.

    alpha_min ∈ (0, 0.5): the range cut; gdpnum uses 1e−10 (Gomez et al. 2025, arXiv:2503.10945).
    The strict μ over *all* α (alpha_min → 0) can be far larger for subsampled mechanisms: a single
    Poisson-subsampled Gaussian (q = 0.01, σ = 1) has μ ∈ [0.0477, 0.0482] at alpha_min = 1e−3,
    [0.2550, 0.2568] at gdpnum's 1e−10 and μ ≥ 0.2955 at 1e−30; its
    strict μ tends to the unsampled μ = 1 as alpha_min → 0 (tails of the curve at tiny α)."""

    a = float(check_alpha(alpha_min, "alpha_min"))
    if not 0 < a < 0.5:
        raise PrivcheckUsageError(f"alpha_min must be in (0, 0.5), got {alpha_min!r}")
    Y = _alpha_grid(a)
    lo, up = curve.bounds(Y)
    vacuous = ""
    if curve.mu is not None:  # exactly μ-GDP: the strict μ over every range is μ itself
        m_lo, m_up = curve.mu
    else:
        m_lo, m_up = _mu_bounds(Y, lo, up, a)
        # the range {α >= a, f(α) >= a} is empty when f(a) < a (f non-increasing): certainly so when
        # the curve's upper bound at a is below a, possibly so when only its lower bound is
        f_up = float(curve.bounds(np.array([a]))[1][0])
        f_lo = float(curve.bounds(np.array([a]))[0][0])
        if f_up < a:
            vacuous = (
                f"vacuous: beta(alpha) < alpha_min={a:g} wherever alpha >= alpha_min, so no alpha in the range "
                "constrains mu (mu = 0 by definition, however unprivate the mechanism); use a smaller alpha_min"
            )
            m_lo = m_up = 0.0
        elif f_lo < a:
            vacuous = (
                f"possibly vacuous: beta(alpha_min) is within the certified bounds of alpha_min={a:g}, so the range "
                "may be empty; use a smaller alpha_min"
            )
        elif not math.isfinite(m_up):
            vacuous = "vacuous upper end: no finite mu is certified in this range (the curve is not resolved there)"
    r_lo, r_up = _regret_bounds(Y, lo, up, m_lo, m_up)
    notes = curve.notes + (f"alpha_min={a:g}",) + ((vacuous,) if vacuous else ())
    return GDPResult(Interval(m_lo, m_up, curve.method, notes), Interval(r_lo, r_up, curve.method, notes), a, vacuous)
