"""Privacy amplification by Poisson subsampling.

- (ε, δ)-DP mechanisms: Poisson sampling at rate q gives (log(1 + q(e^ε − 1)), qδ)-DP
  (Balle, Barthe & Gaboardi 2018, add/remove neighbours). Tight: :func:`canonical_pair` is the
  (ε, δ) pair (randomised response with a δ-atom) on which the bound is attained, and
  :func:`hockey_stick` evaluates any finite pair exactly.
- Subsampled Gaussian over T steps: the certified PLD interval (accountants.pld, the tight
  answer), autodp's RDP accountant (an upper bound, kept as a labelled cross-check) and the
  central-limit GDP view μ = q √(T (e^{1/σ²} − 1)) (Bu, Dong, Long & Su 2020), which is an
  *approximation, not a safe bound* (it is below the tight value in the DP-SGD regime).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from accountants.gdp import gdp_eps
from privcheck.base.validation import check_delta, check_eps, check_int, check_positive, check_probability

__all__ = [
    "AmplifiedGuarantee",
    "poisson_amplification",
    "hockey_stick",
    "eps_at_delta",
    "canonical_pair",
    "subsampled_pair",
    "SubsampledGaussian",
    "subsampled_gaussian",
]


@dataclass(frozen=True)
class AmplifiedGuarantee:
    """(eps, delta) after Poisson subsampling at rate q of an (eps_base, delta_base) mechanism."""

    eps: float
    delta: float
    q: float
    eps_base: float
    delta_base: float


def poisson_amplification(eps: float, delta: float, q: float) -> AmplifiedGuarantee:
    """Balle–Barthe–Gaboardi Poisson amplification: (log(1 + q(e^ε − 1)), qδ).

    eps > 0; delta ∈ [0, 1); q ∈ (0, 1].
    """
    eps = check_eps(eps)
    delta = check_delta(delta, allow_zero=True)
    q = check_probability("q", q, open_low=True)
    # log(1 + q(e^ε − 1)) = ε + log(q + (1 − q)e^{−ε}) for large ε (no overflow, e.g. ε = 800)
    amp = math.log1p(q * math.expm1(eps)) if eps < 30 else eps + math.log(q + (1 - q) * math.exp(-eps))
    return AmplifiedGuarantee(amp, q * delta, q, eps, delta)


def hockey_stick(p: Sequence, q: Sequence, eps) -> object:
    """Hockey-stick divergence Σ_o (P(o) − e^ε Q(o))_+ of two finite distributions.

    Works with floats, ``fractions.Fraction`` or ``mpmath.mpf`` entries (pass ``eps`` as
    ``mpmath.mpf`` for high precision). Returns the same number type.
    """
    import mpmath

    w = mpmath.e**eps if not isinstance(eps, float) else math.exp(eps)
    total = 0
    for a, b in zip(p, q):
        d = a - w * b
        if d > 0:
            total = total + d
    return total


def eps_at_delta(p: Sequence[float], q: Sequence[float], delta: float) -> float:
    """Smallest ε ≥ 0 with max(HS(P‖Q), HS(Q‖P)) ≤ δ for finite distributions (floats, exact search)."""
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)

    def hs(a, b, e):
        return float(np.sum(np.clip(a - math.exp(e) * b, 0, None)))

    def worst(e):
        return max(hs(p, q, e), hs(q, p, e))

    if worst(0.0) <= delta:
        return 0.0
    with np.errstate(divide="ignore"):
        r = np.abs(np.log(p) - np.log(q))
    finite = r[np.isfinite(r)]
    hi = float(finite.max()) + 1.0 if finite.size else 1.0
    if worst(hi) > delta:
        return math.inf
    lo = 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if worst(mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def canonical_pair(eps, delta) -> tuple[list, list]:
    """The (ε, δ) pair of Kairouz–Oh–Viswanath: RR with a δ-atom on each side.

    P = (δ, (1−δ)e^ε/(1+e^ε), (1−δ)/(1+e^ε), 0), Q = (0, (1−δ)/(1+e^ε), (1−δ)e^ε/(1+e^ε), δ).
    Accepts Fraction/mpmath values (``eps`` then as e^ε is computed with mpmath).
    """
    import mpmath

    w = math.exp(eps) if isinstance(eps, float) else mpmath.e**eps
    one = 1
    p = [delta, (one - delta) * w / (one + w), (one - delta) / (one + w), 0 * delta]
    q = [0 * delta, (one - delta) / (one + w), (one - delta) * w / (one + w), delta]
    return p, q


def subsampled_pair(p: Sequence, q: Sequence, rate) -> tuple[list, list]:
    """Output distributions of the Poisson-subsampled mechanism for add/remove neighbours.

    With the extra record included with probability ``rate``: M(D ∪ {x}) = rate·P + (1 − rate)·Q
    and M(D) = Q, where P, Q are the base mechanism's outputs with and without the record.
    """
    return [rate * a + (1 - rate) * b for a, b in zip(p, q)], list(q)


@dataclass(frozen=True)
class SubsampledGaussian:
    """Subsampled Gaussian over T steps: the certified PLD interval [eps_pld_lower, eps_pld_upper]
    (the tight answer; quote the upper end), the RDP bound (autodp, cross-check) and the
    labelled CLT GDP view."""

    eps_rdp: float
    delta: float
    q: float
    sigma: float
    steps: int
    mu_clt: float
    eps_clt: float
    clt_note: str = "central-limit GDP approximation: NOT a safe upper bound (can be below the tight ε)"
    eps_pld_lower: float | None = None  # None: not computed (pld=False, or the reason in pld_notes)
    eps_pld_upper: float | None = None
    pld_method: str = ""
    pld_notes: tuple = ()


def subsampled_gaussian(sigma: float, q: float, steps: int, delta: float, pld: bool = False) -> SubsampledGaussian:
    """ε at δ of the Poisson-subsampled Gaussian (noise multiplier σ, rate q) over T steps.

    pld: also compute the certified PLD interval (eps_pld_lower, eps_pld_upper) — the tight
    answer; eps_rdp: autodp's RDP accountant (``SubsampleGaussianMechanism``, improved bound) — a
    valid upper bound, a cross-check (inf where autodp fails, e.g. tiny σ); mu_clt/eps_clt:
    μ = q √(T (e^{1/σ²} − 1)) (Bu et al. 2020), labelled as approximate.
    sigma > 0; q ∈ (0, 1]; steps ≥ 1; delta ∈ (0, 1).
    """
    sigma = check_positive("sigma", sigma)
    q = check_probability("q", q, open_low=True)
    T = check_int("steps", steps, minimum=1)
    delta = check_delta(delta)
    eps_rdp = _rdp(sigma, q, T, delta)
    inv = (1.0 / sigma) * (1.0 / sigma)  # 1/σ², inf for tiny σ and 0 for huge σ (no OverflowError)
    mu = q * math.sqrt(T * math.expm1(inv)) if inv < 700 else math.inf
    try:
        eps_clt = gdp_eps(mu, delta) if math.isfinite(mu) and mu < 1e4 else math.inf
    except Exception:  # noqa: BLE001 - informational view only
        eps_clt = math.inf
    lo, hi, method, notes = None, None, "", ()
    if pld:
        from accountants.pld import GaussianEvent, PLDAccountant, PoissonSampledEvent
        from privcheck.base.errors import PrivcheckUsageError

        try:
            iv = PLDAccountant().compose(PoissonSampledEvent(GaussianEvent(sigma), q), T).epsilon(delta)
            lo, hi, method, notes = iv.lower, iv.upper, iv.method, iv.notes
        except PrivcheckUsageError as exc:
            notes = (f"PLD not computed: {exc}",)
    return SubsampledGaussian(
        eps_rdp, delta, q, sigma, T, mu, eps_clt, eps_pld_lower=lo, eps_pld_upper=hi, pld_method=method, pld_notes=notes
    )


def _rdp(sigma: float, q: float, T: int, delta: float) -> float:
    """autodp's RDP ε (a valid upper bound), or inf where autodp cannot evaluate it."""
    from autodp.mechanism_zoo import SubsampleGaussianMechanism

    try:
        with np.errstate(all="ignore"):
            v = float(SubsampleGaussianMechanism({"prob": q, "sigma": sigma, "coeff": T}).get_approxDP(delta))
    except (OverflowError, ValueError, ZeroDivisionError, FloatingPointError, RuntimeError):
        return math.inf
    return v if math.isfinite(v) and v >= 0 else math.inf
