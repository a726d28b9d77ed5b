"""A certified Rényi-DP (RDP) accountant for PLD events: an upper-end route for ε(δ) and δ(ε).

Per event, the Rényi divergence D_α of its dominating pair, at integer orders α (both directions,
the larger kept), composed by addition and converted to (ε, δ) with the conversion of Canonne,
Kamath & Steinke 2020 (Prop. 12; also Asoodeh et al. 2021):
    δ(ε) ≤ exp((α − 1)(τ − ε)) / (α − 1) · (1 − 1/α)^α,
    ε(δ) ≤ τ + log(1 − 1/α) − (log δ + log α)/(α − 1),
τ the composed RDP at order α, minimised over the orders. It is never looser than the classic
conversion τ + log(1/δ)/(α − 1) (Mironov 2017, Prop. 3).

RDP of the events (Mironov 2017, Table 2; Mironov, Talwar & Zhang 2019):
- Gaussian, μ = Δ/σ: α μ²/2.
- Laplace, ε0 = Δ/b: log[α/(2α−1) e^{(α−1)ε0} + (α−1)/(2α−1) e^{−αε0}]/(α − 1).
- finite pairs (RR, pure ε via binary RR, discrete Laplace, finite events): log Σ p^α q^{1−α}/(α − 1),
  +∞ when some p > 0 has q = 0 (then the route is not available).
- Poisson-subsampled Gaussian (add/remove), integer α (Mironov, Talwar & Zhang 2019, Sec. 3.3):
  log Σ_k C(α, k)(1 − q)^{α−k} q^k e^{(k² − k)μ²/2}/(α − 1) — positive terms, no cancellation.
Everything is evaluated in mpmath at 40 significant digits and every float leaving the module
is rounded up by two ulps (``_up``), so the numbers are upper bounds despite their rounding.
- other Poisson-subsampled events (add/remove): the sampled finite pair, else the base's RDP
  (valid, not tight: e^{(α−1)D_α} is jointly convex, so subsampling never increases D_α).
An event without an RDP formula here (replace-one subsampling, (ε, δ>0) events, finite pairs
of more than 1000 atoms) makes the
route unavailable: the functions return None.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np  # (mpmath is imported inside the functions that use it: 0.1 s, and the float64 routes never need it)

from accountants.pld.events import GaussianEvent, LaplaceEvent, PLDEvent, PoissonSampledEvent

__all__ = ["ORDERS", "RDPBound", "event_rdp", "composed_rdp", "rdp_epsilon", "rdp_delta", "rdp_estimate"]

#: integer Rényi orders searched (the subsampled-Gaussian formula needs integers)
ORDERS: tuple[int, ...] = tuple(range(2, 129)) + tuple(range(136, 257, 8)) + (320, 384, 448, 512, 768, 1024)
_DPS = 40
_MAX_ATOMS = 1000  # larger finite pairs: the route is skipped (mpmath cost), never approximated


@dataclass(frozen=True)
class RDPBound:
    """An (ε, δ) upper bound from RDP: ``value`` (ε or δ) reached at Rényi order ``order``."""

    value: float
    order: int
    method: str = "rdp (integer orders, Canonne-Kamath-Steinke 2020 conversion)"


def _up(x) -> float:
    """mpmath number → float rounded up by two ulps (covers the round-to-nearest conversion)."""
    f = float(x)
    if math.isnan(f):
        raise ArithmeticError("NaN in the RDP route")
    return math.nextafter(math.nextafter(f, math.inf), math.inf)


def _pair_rdp(p: Sequence[float], q: Sequence[float], alpha: int):
    """D_α(P‖Q) in mpmath (+inf when P is not absolutely continuous w.r.t. Q)."""
    import mpmath

    tot = mpmath.mpf(0)
    for pi, qi in zip(p, q):
        if pi <= 0:
            continue
        if qi <= 0:
            return mpmath.inf
        tot += mpmath.mpf(pi) ** alpha * mpmath.mpf(qi) ** (1 - alpha)
    return mpmath.log(tot) / (alpha - 1)


def _sgm_rdp(q: float, mu: float, alpha: int):
    """RDP at integer α of the Poisson-subsampled Gaussian (rate q, μ = Δ/σ), add/remove."""
    import mpmath

    q_, m2 = mpmath.mpf(q), mpmath.mpf(mu) ** 2
    # term_k = C(α, k)(1 − q)^{α−k} q^k e^{(k² − k)μ²/2}, by the ratio term_k/term_{k−1}
    r, g = q_ / (1 - q_), mpmath.exp(m2)
    term = (1 - q_) ** alpha
    tot, grow = term, mpmath.mpf(1)
    for k in range(1, alpha + 1):
        term = term * (alpha - k + 1) / k * r * grow
        grow *= g
        tot += term
    return mpmath.log(tot) / (alpha - 1)


def _laplace_rdp(eps0: float, alpha: int):
    import mpmath

    e, a = mpmath.mpf(eps0), mpmath.mpf(alpha)
    return mpmath.log(a / (2 * a - 1) * mpmath.exp((a - 1) * e) + (a - 1) / (2 * a - 1) * mpmath.exp(-a * e)) / (a - 1)


@lru_cache(maxsize=256)
def _event_rdp_cached(event: PLDEvent, relation: str) -> tuple | None:
    import mpmath

    with mpmath.workdps(_DPS):
        if isinstance(event, PoissonSampledEvent) and event.q < 1.0:
            if relation != "add_remove":
                return None
            if isinstance(event.event, GaussianEvent):
                return tuple(_sgm_rdp(event.q, event.event.gdp_mu(), a) for a in ORDERS)
            # other bases: the sampled finite pair below, else the base's own (symmetric) RDP —
            # an upper bound, e^{(α−1)D_α} being jointly convex (subsampling never increases D_α)
        base = event.event if isinstance(event, PoissonSampledEvent) else event
        if isinstance(base, GaussianEvent):
            m2 = mpmath.mpf(base.gdp_mu()) ** 2
            return tuple(a * m2 / 2 for a in ORDERS)
        if isinstance(base, LaplaceEvent):
            return tuple(_laplace_rdp(base.eps0, a) for a in ORDERS)
        pr = event.pair()
        if pr is None or len(pr[0]) > _MAX_ATOMS:
            return None
        p, q = [float(v) for v in pr[0]], [float(v) for v in pr[1]]
        out = tuple(max(_pair_rdp(p, q, a), _pair_rdp(q, p, a)) for a in ORDERS)
        return None if any(mpmath.isinf(v) for v in out) else out


def _event_rdp_float(event: PLDEvent, relation: str) -> np.ndarray | None:
    """Float64 approximation (relative error ~1e−12) of ``_event_rdp_cached`` at every order, for the
    screen ``rdp_estimate`` only: its values never leave the module as bounds."""
    a = np.asarray(ORDERS, dtype=float)
    if isinstance(event, PoissonSampledEvent) and event.q < 1.0:
        if relation != "add_remove":
            return None
        if isinstance(event.event, GaussianEvent):
            from scipy.special import gammaln, logsumexp

            q, m2 = event.q, event.event.gdp_mu() ** 2
            k = np.arange(max(ORDERS) + 1, dtype=float)[None, :]
            al = a[:, None]
            with np.errstate(invalid="ignore"):
                lt = (
                    gammaln(al + 1.0)
                    - gammaln(k + 1)
                    - gammaln(np.maximum(al - k, 0) + 1)
                    + (al - k) * math.log1p(-q)
                    + k * math.log(q)
                    + (k * k - k) * m2 / 2
                )
            lt[k > al] = -np.inf  # terms k <= α only
            return logsumexp(lt, axis=1) / (a - 1)
    base = event.event if isinstance(event, PoissonSampledEvent) else event
    if isinstance(base, GaussianEvent):
        return a * base.gdp_mu() ** 2 / 2
    if isinstance(base, LaplaceEvent):
        e = base.eps0
        return np.logaddexp(np.log(a / (2 * a - 1)) + (a - 1) * e, np.log((a - 1) / (2 * a - 1)) - a * e) / (a - 1)
    pr = event.pair()
    if pr is None or len(pr[0]) > _MAX_ATOMS:
        return None
    p, q = np.asarray(pr[0], dtype=float), np.asarray(pr[1], dtype=float)
    keep = (p > 0) | (q > 0)
    p, q = p[keep], q[keep]
    if np.any((p > 0) & (q <= 0)) or np.any((q > 0) & (p <= 0)):
        return None
    from scipy.special import logsumexp

    lp, lq = np.log(p), np.log(q)
    f = logsumexp(a[:, None] * lp[None, :] + (1 - a[:, None]) * lq[None, :], axis=1)
    r = logsumexp(a[:, None] * lq[None, :] + (1 - a[:, None]) * lp[None, :], axis=1)
    return np.maximum(f, r) / (a - 1)


def rdp_estimate(
    events: Sequence[tuple[PLDEvent, int]],
    relation: str = "add_remove",
    *,
    delta: float | None = None,
    eps: float | None = None,
) -> float | None:
    """Float64 estimate (relative error ~1e−9, NOT a bound) of what ``rdp_epsilon`` (give ``delta``)
    or ``rdp_delta`` (give ``eps``) would return, in milliseconds instead of the mpmath route's
    seconds per subsampled event; None if the route is unavailable. Used to skip the certified route
    where it cannot beat another bound (skipping a route only ever costs tightness)."""
    tau = np.zeros(len(ORDERS))
    for e, c in events:
        r = _event_rdp_float(e, relation)
        if r is None:
            return None
        tau += c * r
    a = np.asarray(ORDERS, dtype=float)
    if delta is not None:
        return max(0.0, float(np.min(tau + np.log1p(-1 / a) - (math.log(delta) + np.log(a)) / (a - 1))))
    v = (a - 1) * (tau - eps) - np.log(a - 1) + a * np.log1p(-1 / a)
    return min(1.0, math.exp(min(float(np.min(v)), 0.0)))


def event_rdp(event: PLDEvent, relation: str = "add_remove") -> tuple | None:
    """RDP of one run of ``event`` at each order of ORDERS (mpmath numbers, exact to ~40 digits),
    or None when this module has no formula for it (see the module docstring)."""
    try:
        return _event_rdp_cached(event, relation)
    except TypeError:  # unhashable event
        return _event_rdp_cached.__wrapped__(event, relation)


def composed_rdp(events: Sequence[tuple[PLDEvent, int]], relation: str = "add_remove") -> tuple | None:
    """Σ count·RDP(event) at each order of ORDERS (mpmath), or None if an event has no RDP formula."""
    import mpmath

    with mpmath.workdps(_DPS):
        tot = [mpmath.mpf(0)] * len(ORDERS)
        for e, c in events:
            r = event_rdp(e, relation)
            if r is None:
                return None
            tot = [t + c * v for t, v in zip(tot, r)]
        return tuple(tot)


def rdp_epsilon(events: Sequence[tuple[PLDEvent, int]], delta: float, relation: str = "add_remove") -> RDPBound | None:
    """Upper bound on ε(δ) of the composition from RDP (CKS 2020 Prop. 12 conversion), δ ∈ (0, 1);
    None if the route is unavailable. The value is ≥ 0 and rounded up."""
    import mpmath

    tau = composed_rdp(events, relation)
    if tau is None:
        return None
    with mpmath.workdps(_DPS):
        ld = mpmath.log(mpmath.mpf(delta))
        best, order = None, ORDERS[0]
        for a, t in zip(ORDERS, tau):
            v = t + mpmath.log(1 - mpmath.mpf(1) / a) - (ld + mpmath.log(a)) / (a - 1)
            if best is None or v < best:
                best, order = v, a
        return RDPBound(max(0.0, _up(best)), order)


def rdp_delta(events: Sequence[tuple[PLDEvent, int]], eps: float, relation: str = "add_remove") -> RDPBound | None:
    """Upper bound on δ(ε) of the composition from RDP (CKS 2020 Prop. 12), ε ≥ 0; None if the
    route is unavailable. The value is in [0, 1] and rounded up."""
    import mpmath

    tau = composed_rdp(events, relation)
    if tau is None:
        return None
    with mpmath.workdps(_DPS):
        e = mpmath.mpf(eps)
        best, order = None, ORDERS[0]
        for a, t in zip(ORDERS, tau):
            v = (a - 1) * (t - e) - mpmath.log(a - 1) + a * mpmath.log(1 - mpmath.mpf(1) / a)
            if best is None or v < best:
                best, order = v, a
        return RDPBound(min(1.0, _up(mpmath.exp(best))), order)
