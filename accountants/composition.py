"""Composition of (ε, δ)-DP mechanisms: basic, DRV advanced, KOV closed form and optimal.

- basic: (Σ ε_i, Σ δ_i).
- DRV (Dwork, Rothblum & Vadhan 2010; used by 004 Sec. III-A for the time-invariant case):
  ε_tot = √(2T log(1/δ̃)) ε + T ε (e^ε − 1), δ_tot = T δ + δ̃.
- KOV closed form (Kairouz, Oh & Viswanath 2015, Thm 3.4/3.5; 004 eq. 18 and 20 use its third
  branch): ε_tot = min{Σ ε_i, Σ ε_i tanh(ε_i/2) + √(2 log(e + √(Σ ε_i²)/δ̃) Σ ε_i²),
  Σ ε_i tanh(ε_i/2) + √(2 log(1/δ̃) Σ ε_i²)}, δ_tot = 1 − (1 − δ̃) Π (1 − δ_i).
- KOV optimal (Thm 3.3): for T homogeneous (ε, δ) mechanisms the exact privacy region is that of
  T-fold randomised response; δ_tot(ε') = 1 − (1 − δ)^T (1 − δ_RR(ε')). ``optimal_composition``
  solves it for any ε' (not only on the grid (T − 2i)ε), so it is the ground truth the other
  bounds are tested against.

The RR composition is evaluated in log space (log-binomial coefficients) and in chunks, so any
T (tested to 10^9) runs in bounded memory; closed forms are rounded outward and every inversion
returns the conservative end of a bracketed root (:mod:`accountants.roots`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from accountants.roots import conservative_root, round_up
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_delta, check_eps, check_int, check_nonnegative

__all__ = [
    "CompositionResult",
    "basic_composition",
    "drv_composition",
    "kov_composition",
    "rr_composition_delta",
    "rr_composition_eps",
    "optimal_composition",
    "kov_optimal_grid",
    "compare_compositions",
]


@dataclass(frozen=True)
class CompositionResult:
    """A composed guarantee (eps, delta) with the method that produced it."""

    method: str
    eps: float
    delta: float
    steps: int


#: steps above which the homogeneous sums are formed in closed form (no arrays of length T)
_ARRAY_MAX = 1 << 20
#: terms of the RR privacy-loss sum evaluated per chunk (bounded memory for any T)
_CHUNK = 1 << 16
#: terms below max − this (in log) are only counted in the truncation bound
_TAIL_DROP = 760.0
#: relative safety margin in δ for the inversions (absorbs the evaluation error of δ)
DELTA_MARGIN = 1e-10
#: the largest T of the closed forms (float arithmetic on T stays exact enough and finite)
MAX_STEPS = 10**18
#: the largest T of the exact RR composition (and the optimum): chunks around the mode, ~5 s at 1e9
RR_MAX_STEPS = 10**9
#: the largest T·ε of the exact RR composition (the loss values must stay finite floats)
RR_MAX_LOSS = 1e300
#: the largest T for which kov_optimal_grid lists every grid point
GRID_MAX_STEPS = 100_000


@dataclass(frozen=True)
class _EpsTerms:
    """Σ ε_i, Σ ε_i², Σ ε_i tanh(ε_i/2) and the count, without materialising T copies of one ε."""

    n: int
    s1: float
    sq: float
    lin: float


def _eps_terms(eps, steps: int) -> _EpsTerms:
    arr = np.atleast_1d(np.asarray(eps, dtype=float))
    if arr.size == 0:
        raise PrivcheckUsageError("eps must contain at least one value")
    for v in arr:
        check_eps(float(v))
    if arr.size == 1:
        e = float(arr[0])
        return _EpsTerms(steps, steps * e, steps * e * e, steps * e * math.tanh(e / 2.0))
    # pairwise summation: relative error below 1e-13 for any length; rounded up by the callers
    return _EpsTerms(int(arr.size), float(arr.sum()), float(np.sum(arr * arr)), float(np.sum(arr * np.tanh(arr / 2.0))))


def _delta_terms(delta, n: int) -> tuple[float, float]:
    """(Σ δ_i, Σ log(1 − δ_i)) for one δ repeated ``n`` times or ``n`` values."""
    arr = np.atleast_1d(np.asarray(delta, dtype=float))
    for v in arr:
        check_delta(float(v), allow_zero=True)
    if arr.size == 1:
        d = float(arr[0])
        return n * d, n * math.log1p(-d)
    if arr.size != n:
        raise PrivcheckUsageError(f"delta must be one value or {n} values, got {arr.size}")
    return float(arr.sum()), float(np.sum(np.log1p(-arr)))


def _up(x: float) -> float:
    """Round a closed-form bound outward: relative 1e−13 (covers the pairwise sums) plus ulps."""
    return round_up(x * (1 + 1e-13)) if math.isfinite(x) and x != 0 else x


def basic_composition(
    eps: float | Sequence[float], delta: float | Sequence[float] = 0.0, steps: int = 1
) -> CompositionResult:
    """Basic composition (Σ ε_i, Σ δ_i). eps: ε > 0 (one value repeated ``steps`` times, or a list)."""
    steps = check_int("steps", steps, minimum=1, maximum=MAX_STEPS)
    t = _eps_terms(eps, steps)
    dsum, _ = _delta_terms(delta, t.n)
    return CompositionResult("basic", _up(t.s1), float(min(1.0, _up(dsum))), int(t.n))


def drv_composition(eps: float, steps: int, delta_tilde: float, delta: float = 0.0) -> CompositionResult:
    """Dwork–Rothblum–Vadhan advanced composition of ``steps`` (ε, δ) mechanisms (004 Sec. III-A).

    ε_tot = √(2T log(1/δ̃)) ε + T ε (e^ε − 1); δ_tot = T δ + δ̃.
    eps > 0; steps ≥ 1; delta_tilde ∈ (0, 1); delta ∈ [0, 1). ε_tot is ``inf``
    when e^ε overflows (ε > 709): a valid, vacuous bound.
    """
    eps = check_eps(eps)
    T = check_int("steps", steps, minimum=1, maximum=MAX_STEPS)
    dt = check_delta(delta_tilde, "delta_tilde")
    delta = check_delta(delta, allow_zero=True)
    em1 = math.expm1(eps) if eps < 709.0 else math.inf
    e = math.sqrt(2 * T * -math.log(dt)) * eps + T * eps * em1
    return CompositionResult("drv", _up(e), min(1.0, _up(T * delta + dt)), T)


def kov_composition(
    eps: float | Sequence[float], delta_tilde: float, delta: float | Sequence[float] = 0.0, steps: int = 1
) -> CompositionResult:
    """Kairouz–Oh–Viswanath closed-form bound (heterogeneous, Thm 3.5; 004 eq. 18 & 20 use its last branch).

    eps: ε_i > 0 (one value repeated ``steps`` times, or a list); delta_tilde ∈ (0, 1);
    delta: δ_i ∈ [0, 1). Returns the minimum of the three branches and
    δ_tot = 1 − (1 − δ̃) Π (1 − δ_i). One ε with any ``steps`` (up to 10^18) is
    evaluated in closed form, in constant memory.
    """
    steps = check_int("steps", steps, minimum=1, maximum=MAX_STEPS)
    t = _eps_terms(eps, steps)
    _, log_keep = _delta_terms(delta, t.n)
    dt = check_delta(delta_tilde, "delta_tilde")
    b2 = t.lin + math.sqrt(2 * t.sq * math.log(math.e + math.sqrt(t.sq) / dt))
    b3 = t.lin + math.sqrt(2 * t.sq * -math.log(dt))
    dtot = -math.expm1(math.log1p(-dt) + log_keep)
    return CompositionResult("kov", _up(min(t.s1, b2, b3)), min(1.0, _up(dtot)), int(t.n))


def _rr_log_terms(eps: float, steps: int, lo: int, hi: int, eps_total: float) -> tuple[np.ndarray, np.ndarray]:
    """log of P(l)(1 − e^{ε' − loss(l)}) for l in [lo, hi) and a bound on each value's absolute error.

    P(l) = C(T,l) e^{(T−l)ε}/(1+e^ε)^T is the probability of l flips in T-fold ε-RR;
    log C(T,l) from log-gamma differences and log P(l) = log C − (T−l)·log(1+e^{−ε}) −
    l·log(1+e^{ε}), so no term of size T·ε is formed. Terms with loss ≤ ε' are −inf.
    """
    from scipy import special

    l = np.arange(lo, hi, dtype=float)
    big = float(special.gammaln(steps + 1.0))
    logc = big - special.gammaln(l + 1.0) - special.gammaln(steps - l + 1.0)
    a = float(np.logaddexp(0.0, -eps))
    b = float(np.logaddexp(0.0, eps))
    keep = (steps - l) * a
    flip = l * b
    # the loss (T − 2l)ε is rounded once: use its upper end, so every term and the mask err upward
    loss = (steps - 2.0 * l) * eps
    loss = loss + 4 * 2.0**-52 * np.abs(loss)
    with np.errstate(divide="ignore", invalid="ignore"):
        tail = np.where(loss > eps_total, np.log(-np.expm1(np.minimum(eps_total - loss, 0.0))), -np.inf)
    logt = logc - keep - flip + tail
    # log-gamma differences err by up to ~2.3e−16·log Γ(T+1) (measured against mpmath up to T = 1e9)
    err = 8 * 2.0**-52 * (2 * big + keep + flip + np.abs(np.where(np.isfinite(tail), tail, 0.0)) + 1.0)
    return logt, err


def _check_rr(eps: float, steps) -> int:
    """Validate T for the exact RR composition: 1 ≤ T ≤ RR_MAX_STEPS and T·ε ≤ RR_MAX_LOSS."""
    T = check_int("steps", steps, minimum=1, maximum=MAX_STEPS)
    if T > RR_MAX_STEPS:
        raise PrivcheckUsageError(
            f"the exact optimal composition is computed for steps <= {RR_MAX_STEPS:.0e}, got {T:.3g}; "
            "use the KOV closed form (kov_composition) beyond"
        )
    if not T * eps <= RR_MAX_LOSS:
        raise PrivcheckUsageError(
            f"steps x eps = {T:g} x {eps:g} is too large for the exact composition (it must be <= {RR_MAX_LOSS:g})"
        )
    return T


def _rr_log_delta(eps: float, T: int, et: float) -> float:
    """An upper bound on log δ_RR(ε') of T-fold ε-RR, in memory O(chunk) for any T (see rr_composition_delta)."""
    from scipy import special

    # valid l: loss(l) = (T − 2l)ε > ε'  ⇔  l < (T − ε'/ε)/2
    l_end = min(T + 1, max(0, int(math.floor((T - et / eps) / 2.0)) + 3))  # exclusive; masked below
    if l_end <= 0:
        return -math.inf
    if l_end <= 4 * _CHUNK:
        logt, err = _rr_log_terms(eps, T, 0, l_end, et)
        if not np.any(np.isfinite(logt)):
            return -math.inf
        return float(special.logsumexp(logt)) + float(np.max(err[np.isfinite(logt)]))
    # the log-terms are concave in l: find the maximum, then add chunks outward until they are negligible
    q = 1.0 / (1.0 + math.exp(min(eps, 700.0)))
    centre = min(max(int(T * q), 0), l_end - 1)
    for _ in range(200):
        lo, hi = max(0, centre - _CHUNK // 2), min(l_end, centre + _CHUNK // 2)
        logt, _ = _rr_log_terms(eps, T, lo, hi, et)
        k = int(np.argmax(logt))
        if not np.isfinite(logt[k]):
            centre = max(0, lo - _CHUNK // 2)
            continue
        new = lo + k
        if (k == 0 and lo > 0) or (k == len(logt) - 1 and hi < l_end):
            centre = new
            continue
        break
    parts, errs, gmax = [], [], -math.inf
    start = max(0, centre - _CHUNK // 2)
    # walk left then right from the chunk holding the maximum
    for direction in (-1, 1):
        pos = start if direction == -1 else min(l_end, start + _CHUNK)
        first = direction == -1
        while (direction == -1 and pos > 0 or first) or (direction == 1 and pos < l_end):
            if direction == -1:
                lo, hi = (start, min(l_end, start + _CHUNK)) if first else (max(0, pos - _CHUNK), pos)
            else:
                lo, hi = pos, min(l_end, pos + _CHUNK)
            logt, err = _rr_log_terms(eps, T, lo, hi, et)
            fin = np.isfinite(logt)
            cmax = float(np.max(logt)) if np.any(fin) else -math.inf
            gmax = max(gmax, cmax)
            if np.any(fin):
                parts.append(float(special.logsumexp(logt[fin])))
                errs.append(float(np.max(err[fin])))
            if not first and cmax < gmax - _TAIL_DROP:
                break
            if direction == -1:
                pos = lo if not first else start
                first = False
                if pos <= 0:
                    break
            else:
                pos = hi
    if not parts:
        return -math.inf
    # every omitted term is below gmax − _TAIL_DROP (concavity); at most T + 1 of them
    parts.append(gmax - _TAIL_DROP + math.log(T + 1.0))
    return float(special.logsumexp(parts)) + max(errs)


def rr_composition_delta(eps: float, steps: int, eps_total: float) -> float:
    """Exact δ(ε') of the T-fold composition of ε-randomised response (KOV Thm 3.3; ground truth), rounded up.

    δ(ε') = Σ_l C(T,l) (e^{(T−l)ε} − e^{ε'} e^{lε})_+ / (1 + e^ε)^T, computed in log space
    in chunks (memory bounded for any T ≤ 10^12); the result is an upper bound: it
    adds each term's rounding-error bound and, for very large T, a bound on the
    terms more than e^{−760} below the largest.
    eps > 0; steps ≥ 1; eps_total ≥ 0.
    """
    eps = check_eps(eps)
    T = _check_rr(eps, steps)
    et = check_nonnegative("eps_total", eps_total)
    lg = _rr_log_delta(eps, T, et)
    if lg == -math.inf:
        return 0.0
    return min(1.0, max(math.exp(lg), 5e-324))  # an underflowing δ > 0 is reported as the smallest float above it


def rr_composition_eps(eps: float, steps: int, delta: float) -> float:
    """Smallest ε' with δ_RR(ε') ≤ δ for T-fold ε-randomised response, on the safe side.

    The root of log δ_RR(ε') = log δ is bracketed in [0, Tε] and the returned ε'
    has δ_RR(ε') ≤ δ·(1 − 1e−10) as evaluated (δ_RR itself an upper bound).
    """
    eps = check_eps(eps)
    T = _check_rr(eps, steps)
    delta = check_delta(delta)
    target = math.log(delta) + math.log1p(-DELTA_MARGIN)
    if _rr_log_delta(eps, T, 0.0) <= target:
        return 0.0
    hi = round_up(T * eps * (1 + 2.0**-48))  # above every (rounded-up) loss value: δ_RR(hi) = 0

    def f(x: float) -> float:
        return max(_rr_log_delta(eps, T, x), -1e5) - target

    return conservative_root(f, 0.0, hi, safe="high")


def optimal_composition(eps: float, steps: int, delta_total: float, delta: float = 0.0) -> CompositionResult:
    """Exact optimal composition of T homogeneous (ε, δ) mechanisms (KOV Thm 3.3), any ε', on the safe side.

    Solves 1 − (1 − δ)^T (1 − δ_RR(ε')) = delta_total for ε'. Requires delta_total > 1 − (1−δ)^T.
    """
    eps = check_eps(eps)
    T = _check_rr(eps, steps)
    dtot = check_delta(delta_total, "delta_total")
    delta = check_delta(delta, allow_zero=True)
    base = -math.expm1(T * math.log1p(-delta))
    if dtot <= base:
        raise PrivcheckUsageError(
            f"delta_total must exceed 1-(1-delta)^T = {base:.6g} for a finite epsilon, got {delta_total!r}"
        )
    # 1 − δ_RR = (1 − dtot)/(1−δ)^T
    drr = -math.expm1(math.log1p(-dtot) - T * math.log1p(-delta))
    return CompositionResult("optimal", rr_composition_eps(eps, T, drr), dtot, T)


def kov_optimal_grid(eps: float, steps: int, delta: float = 0.0) -> list[tuple[float, float]]:
    """The grid of KOV Thm 3.3: pairs ((T − 2i) ε, δ_i) for i = 0 … ⌊T/2⌋ (what dp_accounting returns)."""
    eps = check_eps(eps)
    T = check_int("steps", steps, minimum=1, maximum=GRID_MAX_STEPS)
    delta = check_delta(delta, allow_zero=True)
    out = []
    for i in range(T // 2 + 1):
        e = (T - 2 * i) * eps
        drr = rr_composition_delta(eps, T, e)
        out.append((e, -math.expm1(T * math.log1p(-delta) + math.log1p(-drr))))
    return out


def compare_compositions(
    eps: float, steps: int, delta_tilde: float, delta: float = 0.0
) -> dict[str, CompositionResult]:
    """Basic, DRV, KOV closed form and the exact optimum for T homogeneous (ε, δ) mechanisms.

    The optimum is evaluated at the KOV δ_tot = 1 − (1−δ̃)(1−δ)^T (≤ the DRV δ_tot = Tδ + δ̃).
    """
    kov = kov_composition(eps, delta_tilde, delta, steps)
    return {
        "basic": basic_composition(eps, delta, steps),
        "drv": drv_composition(eps, steps, delta_tilde, delta),
        "kov": kov,
        "optimal": optimal_composition(eps, steps, kov.delta, delta),
    }
