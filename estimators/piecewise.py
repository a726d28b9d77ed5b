"""One-dimensional mean-estimation randomisers used by FedSel (000 Sec. 5) and sqSGD (001 Sec. 4).

From Wang et al. (ICDE 2019, FedSel's ref. [13]) and Duchi et al. (ref. [14]),
with the definitions of the shared CLAIMS.md (FedSel section):

- **PM** (Piecewise Mechanism): C = (e^{ε/2}+1)/(e^{ε/2}−1),
  l(t) = (C+1)t/2 − (C−1)/2, r(t) = l(t)+C−1; w.p. e^{ε/2}/(e^{ε/2}+1)
  output Uniform[l(t), r(t)], else Uniform over [−C, l(t)) ∪ (r(t), C].
- **Duchi** 1-D: output ±B, B = (e^ε+1)/(e^ε−1),
  P(+B) = 1/2 + t(e^ε−1)/(2(e^ε+1)).
- **HM** (Hybrid): PM w.p. α = 1 − e^{−ε/2} when ε > 0.61, else (α = 0) Duchi.
- **multi-dimensional PM** (Wang et al. Alg. 4): sample k' = max(1, min(d, ⌊ε/2.5⌋))
  coordinates without replacement, PM at ε/k' on each, scale by d/k', zeros elsewhere.

The input domain is t ∈ [−1, 1] (per coordinate). Exact ε is computed from
the piecewise-constant densities (and atoms) in mpmath with 50 digits.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

from estimators.base import ExactEpsilon, Mechanism
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.exact import with_precision, worst_case_ratio
from privcheck.base.validation import check_eps, check_in_interval, check_int

mpmath.mp.dps = max(mpmath.mp.dps, 50)

#: HM's switch point ε* printed in CLAIMS.md (Wang et al. use ε* ≈ 0.61)
HM_THRESHOLD = 0.61


def _mpf(x) -> mpmath.mpf:
    f = Fraction(x)
    return mpmath.mpf(f.numerator) / f.denominator


def _check_t(x, n: int | None = None) -> np.ndarray | float:
    """Validate input(s) t ∈ [−1, 1]: a scalar, or an array of shape (n,) (one input per draw)."""
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim == 0:
        t = float(arr)
        if not (-1.0 <= t <= 1.0):
            raise PrivcheckUsageError(f"t must be in [-1, 1], got {x!r}")
        return t
    if arr.ndim != 1 or (n is not None and arr.shape[0] != n):
        raise PrivcheckUsageError(f"t must be a number or an array of shape (n,) = ({n},), got shape {arr.shape}")
    if not np.all((arr >= -1.0) & (arr <= 1.0)):  # also rejects NaN
        raise PrivcheckUsageError("t must be in [-1, 1] (no NaN)")
    return arr


def _check_shift(shift) -> float:
    return check_in_interval("shift", shift, -math.inf, math.inf, closed="neither")


# ---------------------------------------------------------------------------
# PM
# ---------------------------------------------------------------------------


def pm_claimed_epsilon(eps: float) -> float:
    """The ε claimed for PM (000 Sec. 5 citing [13]): ε."""
    return check_eps(eps)


def pm_constants(eps: float) -> tuple[float, float, float]:
    """(C, P_high, density_high) of PM at ε: the interval mass e^{ε/2}/(e^{ε/2}+1) over width C−1."""
    eps = check_eps(eps)
    c_minus_1 = _two_over_expm1(eps / 2)  # 0 when e^{ε/2} overflows; inf when ε/2 underflows
    p_high = 1.0 / (1.0 + math.exp(-eps / 2))
    return 1.0 + c_minus_1, p_high, (p_high / c_minus_1 if c_minus_1 > 0 else math.inf)


def _expm1(x: float) -> float:
    """``expm1(x)`` that returns ``inf`` instead of raising OverflowError."""
    return math.expm1(x) if x < 709.0 else math.inf


def _two_over_expm1(x: float) -> float:
    """2/(e^x − 1) for x ≥ 0: 0 when e^x overflows, ``inf`` when x underflows to 0 (no exception)."""
    em = _expm1(x)
    return 2.0 / em if em > 0 else math.inf


def _check_sampleable(name: str, eps: float, *values: float) -> None:
    """Refuse, in one line, to sample in float64 where the output range itself overflows (ε ≲ 1e−308)."""
    if not all(math.isfinite(v) for v in values):
        raise PrivcheckUsageError(
            f"{name} at eps={eps:g} cannot be sampled in float64 (its output range 1 + 2/(e^eps - 1) overflows); "
            "use the exact eps only (--no-mc / monte_carlo=False)"
        )


def pm_variance(t, eps: float):
    """Var[PM(t)] = t²/(e^{ε/2}−1) + (e^{ε/2}+3)/(3(e^{ε/2}−1)²) (Wang et al. [13]; CLAIMS fedsel.pm.unbiased)."""
    eps = check_eps(eps)
    t = np.asarray(t, dtype=np.float64)
    em = _expm1(eps / 2)
    if not em > 0:
        raise PrivcheckUsageError(f"PM's variance is infinite at eps={eps!r} (e^(eps/2) - 1 underflows to 0)")
    out = t * t / em + (1.0 / em + 4.0 / (em * em)) / 3.0
    return float(out) if out.ndim == 0 else out


def pm_pieces(t, eps, shift=0) -> tuple[list, mpmath.mpf]:
    """PM(t)'s law as (a, b, mass) uniform pieces plus C, in mpmath (shifted interval [l+s, r+s]).

    The high-probability piece is [l(t)+s, r(t)+s] with mass e^{ε/2}/(e^{ε/2}+1);
    the rest is uniform on [−C, C] minus that interval (which may leave [−C, C]
    when s ≠ 0).
    """
    h = mpmath.exp(_mpf(eps) / 2)
    c = (h + 1) / (h - 1)
    t, s = _mpf(t), _mpf(shift)
    lo = (c + 1) * t / 2 - (c - 1) / 2 + s
    hi = lo + c - 1
    tol = _snap_tol(c)
    for edge in (-c, c):  # l(−1) = −C and r(1) = C exactly: remove rounding slivers
        lo = edge if abs(lo - edge) <= tol else lo
        hi = edge if abs(hi - edge) <= tol else hi
    p_high = h / (h + 1)
    left = (-c, min(lo, c))
    right = (max(hi, -c), c)
    len_l = max(left[1] - left[0], 0)
    len_r = max(right[1] - right[0], 0)
    total = len_l + len_r
    pieces = [(lo, hi, p_high)]
    if len_l > 0:
        pieces.append((left[0], left[1], (1 - p_high) * len_l / total))
    if len_r > 0:
        pieces.append((right[0], right[1], (1 - p_high) * len_r / total))
    return pieces, c


def _snap_tol(c) -> mpmath.mpf:
    """Boundaries closer than this (relative to C) are the same point up to rounding."""
    return abs(c) * mpmath.mpf(10) ** (20 - mpmath.mp.dps)


def piece_density(pieces, y) -> mpmath.mpf:
    """Density at ``y`` of a piecewise-uniform law given as ``(a, b, mass)`` pieces."""
    return mpmath.fsum(m / (b - a) for a, b, m in pieces if a <= y <= b and b > a)


def piece_cells(piece_lists) -> list:
    """Midpoints and widths of the cells cut by every piece boundary of every input."""
    raw = sorted({p for pieces in piece_lists for a, b, _ in pieces for p in (a, b)})
    tol = _snap_tol(max(abs(raw[0]), abs(raw[-1])))
    pts = [raw[0]]
    for p in raw[1:]:
        if p - pts[-1] > tol:
            pts.append(p)
    return [((a + b) / 2, b - a) for a, b in zip(pts[:-1], pts[1:]) if b > a]


def _moments(pieces, atoms=()) -> tuple[mpmath.mpf, mpmath.mpf]:
    m1 = mpmath.fsum(m * (a + b) / 2 for a, b, m in pieces) + mpmath.fsum(w * y for y, w in atoms)
    m2 = mpmath.fsum(m * (a * a + a * b + b * b) / 3 for a, b, m in pieces) + mpmath.fsum(w * y * y for y, w in atoms)
    return m1, m2 - m1 * m1


@with_precision("eps")
def pm_exact_moments(t: float, eps: float, shift: float = 0.0) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(E, Var) of PM(t) (optionally shifted) integrated exactly from its uniform pieces, in mpmath."""
    return _moments(pm_pieces(t, check_eps(eps), _check_shift(shift))[0])


@with_precision("eps")
def pm_exact_epsilon(eps: float, shift: float = 0.0) -> ExactEpsilon:
    """Exact ε of PM (optionally with the high interval shifted by ``shift``).

    The density of PM(t) is piecewise constant. For shift 0 it takes two values,
    e^{ε/2}/((e^{ε/2}+1)(C−1)) on [l(t), r(t)] and 1/((e^{ε/2}+1)(C+1)) elsewhere,
    so any t ≠ t' attain the sup; for shift s ≠ 0 the input t = sign(s)
    puts mass outside [−C, C] where t = −sign(s) has none (ε = ∞). The table
    over t ∈ {−1, 0, 1} and the cells between all piece boundaries therefore
    gives the exact value; the ratio of cell masses equals that of densities.
    """
    eps = check_eps(eps)
    shift = _check_shift(shift)
    ts = (-1.0, 0.0, 1.0)
    pieces = {t: pm_pieces(t, eps, shift)[0] for t in ts}
    cells = piece_cells(pieces.values())
    table = {t: {i: piece_density(pieces[t], y) * w for i, (y, w) in enumerate(cells)} for t in ts}
    r = worst_case_ratio(table, method="closed form" if shift == 0 else "enumeration")
    y, w = cells[r.worst_output]
    out = f"y in [{mpmath.nstr(y - w / 2, 12)}, {mpmath.nstr(y + w / 2, 12)}]"
    return ExactEpsilon(
        eps=r.eps,
        eps_text=r.eps_text,
        worst_pair=r.worst_pair,
        worst_output=out,
        method=r.method,
        note="piecewise-constant densities over t ∈ {−1, 0, 1}",
        extra={"claimed": eps, "shift": shift},
    )


def pm_sampler_scales(t, eps: float, shift: float = 0.0) -> dict:
    """The floats :func:`sample_pm` draws with for input(s) ``t``: ``lo`` (start of the high interval),
    ``hi`` = lo + (C − 1), ``left``/``right`` (lengths of the low region left and right of it, inside
    [−C, C]), ``c`` = C, ``p_high`` (the high branch's probability), ``s_high`` = (C − 1)/P_high and
    ``s_low`` = (left + right)/P_low (the factors turning a uniform into a position: the densities are
    1/s_high and 1/s_low)."""
    c, p_high, _ = pm_constants(eps)
    cm1 = _two_over_expm1(eps / 2)  # C − 1 without cancellation
    p_low = 1.0 / (1.0 + math.exp(min(eps / 2, 709.0)))  # 1 − P_high without cancellation
    _check_sampleable("PM", eps, c)
    t = np.asarray(t, dtype=np.float64)
    with np.errstate(all="ignore"):  # the unused branch of np.where may overflow at large ε
        lo = (c + 1) / 2 * t - cm1 / 2 + shift
        hi = lo + cm1
        left = np.maximum(np.minimum(lo, c) + c, 0.0)  # length of [−C, min(l, C))
        right = np.maximum(c - np.maximum(hi, -c), 0.0)  # length of (max(r, −C), C]
        return {
            "c": c,
            "p_high": p_high,
            "lo": lo,
            "hi": hi,
            "left": left,
            "s_high": cm1 / p_high,
            "s_low": (left + right) / p_low,
        }


def sample_pm(t, eps: float, n: int, rng: np.random.Generator, shift: float = 0.0) -> np.ndarray:
    """``n`` PM outputs for input(s) ``t`` (scalar or shape (n,)) at ``eps``; one uniform per draw.

    ``u < P_high`` places the output at ``l + u·s_high``; otherwise ``w = (u − P_high)·s_low`` walks the
    low region of length L from −C (:func:`pm_sampler_scales`).
    """
    k = pm_sampler_scales(t, eps, shift)
    u = rng.random(n)
    c, lo, hi, left = k["c"], k["lo"], k["hi"], k["left"]
    with np.errstate(all="ignore"):
        w = (u - k["p_high"]) * k["s_low"]
        low = np.where(w < left, w - c, np.maximum(hi, -c) + (w - left))
        high = lo + u * k["s_high"]
        return np.where(u < k["p_high"], high, low)


def pm_sampler_densities(eps: float) -> dict:
    """{t: (high density, low density)} of the law :func:`sample_pm` draws from at t ∈ {−1, 0, 1} (unshifted):
    1/s_high on the high interval and 1/s_low on the rest of [−C, C], from the sampler's floats read exactly."""
    out = {}
    for t in (-1.0, 0.0, 1.0):
        k = pm_sampler_scales(t, eps)
        out[t] = (1 / mpmath.mpf(float(k["s_high"])), 1 / mpmath.mpf(float(k["s_low"])))
    return out


@with_precision("eps")
def pm_sampler_epsilon(eps: float) -> ExactEpsilon:
    """Exact ε of the law :func:`sample_pm` draws from (unshifted), from the sampler's own floats.

    Every pair t ≠ t' of {−1, 0, 1} has outputs in the high interval of one and the low region of the
    other, and outputs low for both: the sup of the density ratio is the largest high/low and low/low
    ratio of :func:`pm_sampler_densities`.
    """
    dens = pm_sampler_densities(check_eps(eps))
    best, pair, out = mpmath.mpf(1), (1.0, -1.0), "high"
    for t, (h, lo) in dens.items():
        for t2, (_, lo2) in dens.items():
            if t2 != t:
                for ratio, where in ((h / lo2, "high"), (lo / lo2, "low")):
                    if ratio > best:
                        best, pair, out = ratio, (t, t2), where
    return ExactEpsilon(
        eps=float(mpmath.log(best)),
        eps_text=mpmath.nstr(mpmath.log(best), 40),
        worst_pair=pair,
        worst_output=f"{out} region of t={pair[0]:g}, low region of t={pair[1]:g}",
        method="closed form",
        note="the sampler's float scales (C−1)/P_high and L/P_low (read exactly): densities 1/s",
    )


class PiecewiseMechanism(Mechanism):
    """Piecewise Mechanism (CLI ``pm``) — Wang et al. ICDE 2019, cited by 000 Sec. 5 as [13].

    Parameters: ``eps`` > 0; ``shift`` (default 0) moves the high-probability
    interval to [l(t)+shift, r(t)+shift] — a deliberately broken variant whose
    exact ε is infinite. Input t ∈ [−1, 1] (scalar, or shape (n,) one per draw).
    """

    name = "pm"
    source = "000_55a5a0ab95d522af.txt Sec. 5, ref. [13] (definition in CLAIMS.md)"
    output_kind = "continuous"

    def __init__(self, eps: float = 1.0, shift: float = 0.0):
        self.eps_nominal = check_eps(eps)
        self.shift = _check_shift(shift)
        self.C, self.p_high, _ = pm_constants(self.eps_nominal)
        self._params = {"eps": self.eps_nominal} | ({"shift": self.shift} if self.shift else {})

    def sample(self, x, n, rng):
        n = check_int("n", n, minimum=0)
        return sample_pm(_check_t(x, n), self.eps_nominal, n, rng, self.shift)

    def inputs(self) -> list:
        return [-1.0, 0.0, 1.0]

    def exact_epsilon(self) -> ExactEpsilon:
        return pm_exact_epsilon(self.eps_nominal, self.shift)

    def sampler_exact_epsilon(self) -> ExactEpsilon | None:
        """Exact ε of the sampler's own scales (:func:`pm_sampler_epsilon`); None for a shifted variant (its
        mass outside [−C, C] makes ε infinite, which :meth:`exact_epsilon` already says)."""
        return pm_sampler_epsilon(self.eps_nominal) if self.shift == 0 else None


# ---------------------------------------------------------------------------
# Duchi
# ---------------------------------------------------------------------------


def duchi_claimed_epsilon(eps: float) -> float:
    """The ε claimed for Duchi et al.'s 1-D mechanism (000 ref. [14]): ε."""
    return check_eps(eps)


def duchi_bound(eps: float) -> float:
    """B = (e^ε+1)/(e^ε−1), the magnitude of Duchi's output."""
    eps = check_eps(eps)
    return 1.0 + _two_over_expm1(eps)


def duchi_variance(t, eps: float):
    """Var[Duchi(t)] = ((e^ε+1)/(e^ε−1))² − t² (CLAIMS fedsel.duchi.ldp, ref. [14])."""
    b = duchi_bound(eps)
    t = np.asarray(t, dtype=np.float64)
    out = b * b - t * t
    return float(out) if out.ndim == 0 else out


def _duchi_atoms(t, eps) -> list:
    e = mpmath.exp(_mpf(eps))
    b = (e + 1) / (e - 1)
    plus = mpmath.mpf(1) / 2 + _mpf(t) * (e - 1) / (2 * (e + 1))
    return [(b, plus), (-b, 1 - plus)]


@with_precision("eps")
def duchi_exact_moments(t: float, eps: float) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(E, Var) of Duchi(t), exactly from its two atoms, in mpmath."""
    return _moments([], _duchi_atoms(t, check_eps(eps)))


@with_precision("eps")
def duchi_exact_epsilon(eps: float) -> ExactEpsilon:
    """Exact ε of Duchi's mechanism: P(+B | t) is affine in t, so t = ±1 are extreme."""
    eps = check_eps(eps)
    table = {t: {("+B" if y > 0 else "-B"): w for y, w in _duchi_atoms(t, eps)} for t in (-1.0, 0.0, 1.0)}
    r = worst_case_ratio(table, method="closed form")
    return ExactEpsilon(
        eps=r.eps,
        eps_text=r.eps_text,
        worst_pair=r.worst_pair,
        worst_output=r.worst_output,
        method="closed form",
        note="P(+B|1)/P(+B|−1) = e^ε",
        extra={"claimed": eps},
    )


def duchi_plus_probability(t, eps: float):
    """P(+B | t) as :func:`sample_duchi` draws it: 1/2 + t/(2B) in float64 ((e^ε−1)/(2(e^ε+1)) = 1/(2B))."""
    b = duchi_bound(eps)
    _check_sampleable("Duchi", eps, b)
    return 0.5 + np.asarray(t, dtype=np.float64) * (0.5 / b)


def sample_duchi(t, eps: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` Duchi outputs ±B for input(s) ``t`` (scalar or shape (n,))."""
    b = duchi_bound(eps)
    return np.where(rng.random(n) < duchi_plus_probability(t, eps), b, -b)


@with_precision("eps")
def duchi_sampler_epsilon(eps: float) -> ExactEpsilon:
    """Exact ε of the law :func:`sample_duchi` draws from: P(+B | t) of :func:`duchi_plus_probability` (floats
    read exactly) and 1 − P(+B | t), at t ∈ {−1, 0, 1} (P(+B | t) is affine in t)."""
    table = {}
    for t in (-1.0, 0.0, 1.0):
        p = mpmath.mpf(float(duchi_plus_probability(t, check_eps(eps))))
        table[t] = {"+B": p, "-B": 1 - p}
    r = worst_case_ratio(table, method="closed form")
    return ExactEpsilon(
        eps=r.eps,
        eps_text=r.eps_text,
        worst_pair=r.worst_pair,
        worst_output=r.worst_output,
        method="closed form",
        note="the sampler's float P(+B|t) = 1/2 + t/(2B) (read exactly)",
    )


class DuchiMechanism(Mechanism):
    """Duchi et al.'s 1-D mechanism (CLI ``duchi``) — cited by 000 as [14]; definition in CLAIMS.md.

    Parameters: ``eps`` > 0. Input t ∈ [−1, 1] (scalar or shape (n,)). Output ±B.
    """

    name = "duchi"
    source = "000_55a5a0ab95d522af.txt ref. [14] (definition in CLAIMS.md)"
    output_kind = "discrete"

    def __init__(self, eps: float = 1.0):
        self.eps_nominal = check_eps(eps)
        self.B = duchi_bound(self.eps_nominal)
        self._params = {"eps": self.eps_nominal}

    def sample(self, x, n, rng):
        n = check_int("n", n, minimum=0)
        return sample_duchi(_check_t(x, n), self.eps_nominal, n, rng)

    def inputs(self) -> list:
        return [-1.0, 0.0, 1.0]

    def exact_epsilon(self) -> ExactEpsilon:
        return duchi_exact_epsilon(self.eps_nominal)

    def sampler_exact_epsilon(self) -> ExactEpsilon:
        """Exact ε of the sampler's own P(+B | t) (:func:`duchi_sampler_epsilon`)."""
        return duchi_sampler_epsilon(self.eps_nominal)


# ---------------------------------------------------------------------------
# HM
# ---------------------------------------------------------------------------


def hm_claimed_epsilon(eps: float) -> float:
    """The ε claimed for the Hybrid Mechanism (000 ref. [13]): ε."""
    return check_eps(eps)


def hm_alpha(eps: float) -> float:
    """HM's PM probability α = 1 − e^{−ε/2} if ε > 0.61, else 0 (CLAIMS fedsel.hm.ldp)."""
    eps = check_eps(eps)
    return -math.expm1(-eps / 2) if eps > HM_THRESHOLD else 0.0


def _hm_alpha_mp(eps) -> mpmath.mpf:
    return 1 - mpmath.exp(-_mpf(eps) / 2) if eps > HM_THRESHOLD else mpmath.mpf(0)


@with_precision("eps")
def hm_exact_moments(t: float, eps: float) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(E, Var) of HM(t) (atoms at ±B plus the PM density), exactly, in mpmath."""
    eps = check_eps(eps)
    a = _hm_alpha_mp(eps)
    pieces = [(lo, hi, a * m) for lo, hi, m in pm_pieces(t, eps)[0]]
    atoms = [(y, (1 - a) * w) for y, w in _duchi_atoms(t, eps)]
    return _moments(pieces, atoms)


@with_precision("eps")
def hm_exact_epsilon(eps: float) -> ExactEpsilon:
    """Exact ε of HM: the atoms ±B (Duchi part) and the PM density are mutually singular.

    An event's probability is α·(PM mass) + (1−α)·(atom mass); the sup of the
    ratio is the larger of the atom ratio and the density ratio, computed on
    one table with outputs "+B", "-B" and PM cells.
    """
    eps = check_eps(eps)
    a = _hm_alpha_mp(eps)
    ts = (-1.0, 0.0, 1.0)
    table = {t: {("+B" if y > 0 else "-B"): (1 - a) * w for y, w in _duchi_atoms(t, eps)} for t in ts}
    if a > 0:
        pieces = {t: pm_pieces(t, eps)[0] for t in ts}
        cells = piece_cells(pieces.values())
        for t in ts:
            table[t].update({("pm-cell", i): a * piece_density(pieces[t], y) * w for i, (y, w) in enumerate(cells)})
    r = worst_case_ratio(table, method="closed form")
    out = r.worst_output
    if isinstance(out, tuple):
        y, w = cells[out[1]]
        out = f"PM density on y in [{mpmath.nstr(y - w / 2, 12)}, {mpmath.nstr(y + w / 2, 12)}]"
    else:
        out = f"atom {out}"
    return ExactEpsilon(
        eps=r.eps,
        eps_text=r.eps_text,
        worst_pair=r.worst_pair,
        worst_output=out,
        method="closed form",
        note=f"alpha = {mpmath.nstr(a, 20)}; atoms and density both attain e^ε",
        extra={"claimed": eps, "alpha": float(a)},
    )


class HybridMechanism(Mechanism):
    """Hybrid Mechanism (CLI ``hm``) — Wang et al. [13] as cited by 000; definition in CLAIMS.md.

    PM at ε w.p. α = 1 − e^{−ε/2} when ε > 0.61, else Duchi at ε. Parameters:
    ``eps`` > 0. Input t ∈ [−1, 1] (scalar or shape (n,)). The float output has
    atoms at ±B (Duchi) plus the PM density on [−C, C].
    """

    name = "hm"
    source = "000_55a5a0ab95d522af.txt ref. [13] (definition in CLAIMS.md)"
    output_kind = "continuous"

    def __init__(self, eps: float = 1.0):
        self.eps_nominal = check_eps(eps)
        self.alpha = hm_alpha(self.eps_nominal)
        self._params = {"eps": self.eps_nominal}

    def sample(self, x, n, rng):
        n = check_int("n", n, minimum=0)
        t = _check_t(x, n)
        use_pm = rng.random(n) < self.alpha
        y_pm = sample_pm(t, self.eps_nominal, n, rng)
        y_duchi = sample_duchi(t, self.eps_nominal, n, rng)
        return np.where(use_pm, y_pm, y_duchi)

    def inputs(self) -> list:
        return [-1.0, 0.0, 1.0]

    def exact_epsilon(self) -> ExactEpsilon:
        return hm_exact_epsilon(self.eps_nominal)

    def sampler_exact_epsilon(self) -> ExactEpsilon:
        """Exact ε of what the sampler draws: PM w.p. ``self.alpha`` (its float), else Duchi. The atoms ±B and
        the PM density are mutually singular and α cancels in each ratio, so ε is the larger of the two
        samplers' own (:func:`pm_sampler_epsilon`, :func:`duchi_sampler_epsilon`) among the parts drawn with
        positive probability."""
        parts = []
        if self.alpha > 0:
            parts.append(pm_sampler_epsilon(self.eps_nominal))
        if self.alpha < 1:
            parts.append(duchi_sampler_epsilon(self.eps_nominal))
        worst = max(parts, key=lambda e: mpmath.mpf(e.eps_text))
        return ExactEpsilon(
            eps=worst.eps,
            eps_text=worst.eps_text,
            worst_pair=worst.worst_pair,
            worst_output=worst.worst_output,
            method="closed form",
            note=f"alpha = {self.alpha!r} (the sampler's float); the larger of its PM and Duchi parts",
        )


# ---------------------------------------------------------------------------
# multi-dimensional PM
# ---------------------------------------------------------------------------


def pm_multidim_k(d: int, eps: float) -> int:
    """k' = max(1, min(d, ⌊ε/2.5⌋)), the number of sampled coordinates (Wang et al. Alg. 4)."""
    d = check_int("d", d, minimum=1)
    eps = check_eps(eps)
    return max(1, min(d, int(math.floor(eps / 2.5))))


class PMMultidim(Mechanism):
    """Multi-dimensional PM (CLI ``pm-multidim``) — Wang et al. ICDE 2019 Alg. 4; 001 Sec. 4.

    Parameters: ``d`` ≥ 1, ``eps`` > 0. Input t ∈ [−1, 1]^d (shape (d,), or
    (n, d) one per draw). Output (n, d): k' coordinates sampled without
    replacement carry (d/k')·PM(t_j; ε/k'), the others 0.
    """

    name = "pm-multidim"
    source = "Wang et al. ICDE 2019 Alg. 4 (000 ref. [13]; 001 Sec. 4)"
    output_kind = "vector"

    def __init__(self, d: int = 4, eps: float = 1.0):
        self.d = check_int("d", d, minimum=1)
        self.eps_nominal = check_eps(eps)
        self.k_prime = pm_multidim_k(self.d, self.eps_nominal)
        self._params = {"d": self.d, "eps": self.eps_nominal}

    def _check_vec(self, x, n):
        arr = np.asarray(x, dtype=np.float64)
        if arr.shape not in ((self.d,), (n, self.d)):
            raise PrivcheckUsageError(f"t must have shape (d,) = ({self.d},) or (n, d), got {arr.shape}")
        if not np.all((arr >= -1.0) & (arr <= 1.0)):
            raise PrivcheckUsageError("t must have every coordinate in [-1, 1] (no NaN)")
        return arr

    def sample(self, x, n, rng):
        n = check_int("n", n, minimum=0)
        t = self._check_vec(x, n)
        kp, d = self.k_prime, self.d
        keys = rng.random((n, d))
        cols = np.argsort(keys, axis=1)[:, :kp] if kp < d else np.broadcast_to(np.arange(d), (n, d))
        rows = np.repeat(np.arange(n), kp)
        cols = cols.reshape(-1)
        tv = np.broadcast_to(t, (n, d))[rows, cols]
        vals = sample_pm(tv, self.eps_nominal / kp, n * kp, rng) * (d / kp)
        out = np.zeros((n, d))
        out[rows, cols] = vals
        return out

    def inputs(self) -> list:
        return [tuple([-1.0] * self.d), tuple([0.0] * self.d), tuple([1.0] * self.d)]

    def sampler_exact_epsilon(self) -> ExactEpsilon:
        """k' times the exact ε of the PM sampler at ε/k' (:func:`pm_sampler_epsilon`): the coordinate set is
        input-independent and the k' PM draws are independent, so their worst ratios multiply."""
        one = pm_sampler_epsilon(self.eps_nominal / self.k_prime)
        val = self.k_prime * mpmath.mpf(one.eps_text)
        return ExactEpsilon(
            eps=float(val),
            eps_text=mpmath.nstr(val, 40),
            worst_pair=(tuple([1.0] * self.d), tuple([-1.0] * self.d)),
            worst_output=one.worst_output,
            method="closed form",
            note=f"k'={self.k_prime} independent PM draws at ε/k' with the sampler's float scales",
        )

    def exact_epsilon(self) -> ExactEpsilon:
        """Closed form: the coordinate set is input-independent; k' PM factors at ε/k' multiply to e^ε."""
        one = pm_exact_epsilon(self.eps_nominal / self.k_prime)
        val = self.k_prime * mpmath.mpf(one.eps_text)
        return ExactEpsilon(
            eps=float(val),
            eps_text=mpmath.nstr(val, 40),
            worst_pair=(tuple([1.0] * self.d), tuple([-1.0] * self.d)),
            worst_output=f"any k'={self.k_prime} coordinates J with y_j in (d/k')·[1, C(ε/k')] for j in J, 0 elsewhere",
            method="closed form",
            note="product of k' independent PM likelihood ratios, each at most e^{ε/k'}",
            extra={"claimed": self.eps_nominal, "k_prime": self.k_prime},
        )


__all__ = [
    "pm_claimed_epsilon",
    "pm_constants",
    "pm_variance",
    "pm_exact_moments",
    "pm_exact_epsilon",
    "sample_pm",
    "duchi_claimed_epsilon",
    "duchi_bound",
    "duchi_variance",
    "duchi_exact_moments",
    "duchi_exact_epsilon",
    "sample_duchi",
    "hm_claimed_epsilon",
    "hm_alpha",
    "hm_exact_moments",
    "hm_exact_epsilon",
    "pm_multidim_k",
    "PiecewiseMechanism",
    "DuchiMechanism",
    "HybridMechanism",
    "PMMultidim",
    "HM_THRESHOLD",
]
