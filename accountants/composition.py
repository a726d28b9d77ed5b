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

The RR composition is evaluated in log space (log-binomial coefficients), so T up to 10^6 and
T·ε up to hundreds stay finite.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import optimize, special

from privcheck.errors import PrivcheckUsageError
from privcheck.validation import check_delta, check_eps, check_int, check_nonnegative

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


def _eps_list(eps, steps: int) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(eps, dtype=float))
    if arr.size == 0:
        raise PrivcheckUsageError("eps must contain at least one value")
    for v in arr:
        check_eps(float(v))
    if arr.size == 1:
        arr = np.full(steps, arr[0])
    return arr


def _delta_list(delta, n: int) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(delta, dtype=float))
    for v in arr:
        check_delta(float(v), allow_zero=True)
    if arr.size == 1:
        arr = np.full(n, arr[0])
    if arr.size != n:
        raise PrivcheckUsageError(f"delta must be one value or {n} values, got {arr.size}")
    return arr


def basic_composition(eps: float | Sequence[float], delta: float | Sequence[float] = 0.0, steps: int = 1) -> CompositionResult:
    """Basic composition (Σ ε_i, Σ δ_i). eps: ε > 0 (one value repeated ``steps`` times, or a list)."""
    steps = check_int("steps", steps, minimum=1)
    e = _eps_list(eps, steps)
    d = _delta_list(delta, e.size)
    return CompositionResult("basic", float(e.sum()), float(min(1.0, d.sum())), int(e.size))


def drv_composition(eps: float, steps: int, delta_tilde: float, delta: float = 0.0) -> CompositionResult:
    """Dwork–Rothblum–Vadhan advanced composition of ``steps`` (ε, δ) mechanisms (004 Sec. III-A).

    ε_tot = √(2T log(1/δ̃)) ε + T ε (e^ε − 1); δ_tot = T δ + δ̃.
    eps > 0; steps ≥ 1; delta_tilde ∈ (0, 1); delta ∈ [0, 1).
    """
    eps = check_eps(eps)
    T = check_int("steps", steps, minimum=1)
    dt = check_delta(delta_tilde, "delta_tilde")
    delta = check_delta(delta, allow_zero=True)
    e = math.sqrt(2 * T * math.log(1 / dt)) * eps + T * eps * math.expm1(eps)
    return CompositionResult("drv", e, min(1.0, T * delta + dt), T)


def kov_composition(
    eps: float | Sequence[float], delta_tilde: float, delta: float | Sequence[float] = 0.0, steps: int = 1
) -> CompositionResult:
    """Kairouz–Oh–Viswanath closed-form bound (heterogeneous, Thm 3.5; 004 eq. 18 & 20 use its last branch).

    eps: ε_i > 0 (one value repeated ``steps`` times, or a list); delta_tilde ∈ (0, 1);
    delta: δ_i ∈ [0, 1). Returns the minimum of the three branches and
    δ_tot = 1 − (1 − δ̃) Π (1 − δ_i).
    """
    steps = check_int("steps", steps, minimum=1)
    e = _eps_list(eps, steps)
    d = _delta_list(delta, e.size)
    dt = check_delta(delta_tilde, "delta_tilde")
    s1 = float(e.sum())
    sq = float(np.sum(e * e))
    lin = float(np.sum(e * np.tanh(e / 2.0)))
    b2 = lin + math.sqrt(2 * sq * math.log(math.e + math.sqrt(sq) / dt))
    b3 = lin + math.sqrt(2 * sq * math.log(1 / dt))
    dtot = -math.expm1(math.log1p(-dt) + float(np.sum(np.log1p(-d))))
    return CompositionResult("kov", min(s1, b2, b3), dtot, int(e.size))


def _rr_log_terms(eps: float, steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """log P(L = (T−2l)ε) for the privacy loss of T-fold RR, and the loss values."""
    l = np.arange(steps + 1, dtype=float)
    logc = special.gammaln(steps + 1) - special.gammaln(l + 1) - special.gammaln(steps - l + 1)
    lognorm = steps * np.logaddexp(0.0, eps)  # log (1 + e^ε)^T
    logp = logc + (steps - l) * eps - lognorm  # P-mass of outcome with l "flips"
    loss = (steps - 2 * l) * eps
    return logp, loss, l


def rr_composition_delta(eps: float, steps: int, eps_total: float) -> float:
    """Exact δ(ε') of the T-fold composition of ε-randomised response (KOV Thm 3.3; ground truth).

    δ(ε') = Σ_l C(T,l) (e^{(T−l)ε} − e^{ε'} e^{lε})_+ / (1 + e^ε)^T, computed in log space.
    eps > 0; steps ≥ 1; eps_total ≥ 0.
    """
    eps = check_eps(eps)
    T = check_int("steps", steps, minimum=1)
    et = check_nonnegative("eps_total", eps_total)
    logp, loss, _ = _rr_log_terms(eps, T)
    mask = loss > et
    if not np.any(mask):
        return 0.0
    # term = P(l) (1 − e^{ε' − loss})
    logt = logp[mask] + np.log(-np.expm1(et - loss[mask]))
    return float(math.exp(special.logsumexp(logt)))


def rr_composition_eps(eps: float, steps: int, delta: float) -> float:
    """Smallest ε' with δ_RR(ε') ≤ δ for T-fold ε-randomised response (inverse of :func:`rr_composition_delta`)."""
    eps = check_eps(eps)
    T = check_int("steps", steps, minimum=1)
    delta = check_delta(delta)
    if rr_composition_delta(eps, T, 0.0) <= delta:
        return 0.0
    hi = T * eps
    logd = math.log(delta)

    def f(x: float) -> float:
        d = rr_composition_delta(eps, T, x)
        return (math.log(d) if d > 0 else -800.0) - logd

    return float(optimize.brentq(f, 0.0, hi, xtol=1e-13, rtol=1e-14, maxiter=500))


def optimal_composition(eps: float, steps: int, delta_total: float, delta: float = 0.0) -> CompositionResult:
    """Exact optimal composition of T homogeneous (ε, δ) mechanisms (KOV Thm 3.3), any ε'.

    Solves 1 − (1 − δ)^T (1 − δ_RR(ε')) = delta_total for ε'. Requires delta_total > 1 − (1−δ)^T.
    """
    eps = check_eps(eps)
    T = check_int("steps", steps, minimum=1)
    dtot = check_delta(delta_total, "delta_total")
    delta = check_delta(delta, allow_zero=True)
    base = -math.expm1(T * math.log1p(-delta))
    if dtot <= base:
        raise PrivcheckUsageError(
            f"delta_total must exceed 1-(1-delta)^T = {base:.6g} for a finite epsilon, got {delta_total!r}")
    # 1 − δ_RR = (1 − dtot)/(1−δ)^T
    drr = -math.expm1(math.log1p(-dtot) - T * math.log1p(-delta))
    return CompositionResult("optimal", rr_composition_eps(eps, T, drr), dtot, T)


def kov_optimal_grid(eps: float, steps: int, delta: float = 0.0) -> list[tuple[float, float]]:
    """The grid of KOV Thm 3.3: pairs ((T − 2i) ε, δ_i) for i = 0 … ⌊T/2⌋ (what dp_accounting returns)."""
    eps = check_eps(eps)
    T = check_int("steps", steps, minimum=1)
    delta = check_delta(delta, allow_zero=True)
    out = []
    for i in range(T // 2 + 1):
        e = (T - 2 * i) * eps
        drr = rr_composition_delta(eps, T, e)
        out.append((e, -math.expm1(T * math.log1p(-delta) + math.log1p(-drr))))
    return out


def compare_compositions(eps: float, steps: int, delta_tilde: float, delta: float = 0.0) -> dict[str, CompositionResult]:
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
