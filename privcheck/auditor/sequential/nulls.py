"""What the sequential policy's grid bounds: ε (pure claims), δ at a fixed ε ((ε, δ) claims) or μ (μ-GDP claims).

The e-process (:mod:`~privcheck.auditor.sequential.wealth`) tests, at every point ``θ_i`` of a grid fixed before
any draw, a null hypothesis of the form "for every event ``E`` and ordered pair, ``p1 ≤ e^{e} p0 + d``" for one
or many ``(e, d)``; each null is a set *closed upwards* in ``θ`` (a mechanism that satisfies it at ``θ`` does at
every larger ``θ``), which is what the lower bound's validity argument needs (``wealth`` module docstring).
A null tells, per grid point and from the plug-in ``q0`` of the batch's bet (fixed before its draws), the pair
``(e, d)`` the payoff ``e^{−e}(1[Y ∈ E] − d) − 1[Z ∈ E]`` is bet on (mean ≤ 0 under the null):

- :class:`PureEps` — ``θ`` is ε: ``(e, d) = (θ, 0)``;
- :class:`DeltaAt` — ``θ`` is δ at the claimed ε: ``(e, d) = (ε, θ)`` (the null ``P[S] ≤ e^ε Q[S] + δ``);
- :class:`Gdp` — ``θ`` is μ: a μ-GDP mechanism is (e, δ_μ(e))-DP for *every* e ≥ 0 with
  ``δ_μ(e) = Φ(−e/μ + μ/2) − e^e Φ(−e/μ − μ/2)`` (Dong, Roth & Su, "Gaussian differential privacy",
  JRSS-B 2022, Cor. 2.13), so any e chosen before the batch gives a valid payoff. The e of the bet is the
  tangent point of the Gaussian trade-off curve at the plug-in: ``e = −μ Φ^{-1}(q0) − μ²/2`` maximises
  ``q1 − e^e q0 − δ_μ(e)`` over e (its derivative is ``e^e (Φ(−e/μ − μ/2) − q0)``). δ_μ is rounded *up*
  (:func:`gdp_delta_up`): a larger δ makes the null larger, so the test stays valid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr, ndtr, ndtri

from privcheck.auditor.selection import delta_gap
from privcheck.base.stats import clopper_pearson, log_ratio_lower_bound

#: relative error allowed for each of scipy's ``ndtr``, ``log_ndtr`` and ``exp`` (a few ulps each; this is a
#: hundredfold margin): δ_μ is rounded up by it, the final look's μ bound down
REL_MARGIN = 1e-13
#: the δ grid: 0, then geometric steps of this ratio from ``DELTA_GRID_LOW`` to 1 (fixed before any draw,
#: independent of the claim: refuting a claimed δ needs the grid point above it, at most 0.2 % higher)
DELTA_GRID_RATIO = 1.002
DELTA_GRID_LOW = 1e-15
#: the largest e a GDP bet uses (its δ_μ(e) is then below any δ the grid resolves)
GDP_E_TOP = 50.0


def delta_grid() -> np.ndarray:
    """The δ grid of :class:`DeltaAt`: 0, then ``DELTA_GRID_LOW · DELTA_GRID_RATIO^k`` up to 1 (1 included)."""
    k = int(math.ceil(math.log(1.0 / DELTA_GRID_LOW) / math.log(DELTA_GRID_RATIO)))
    geo = DELTA_GRID_LOW * DELTA_GRID_RATIO ** np.arange(k, dtype=np.float64)
    return np.concatenate([[0.0], geo[geo < 1.0], [1.0]])


def gdp_delta_up(mu: np.ndarray, e: np.ndarray) -> np.ndarray:
    """``δ_μ(e) = Φ(−e/μ + μ/2) − e^e Φ(−e/μ − μ/2)`` rounded up (Dong, Roth & Su, Cor. 2.13), elementwise for
    μ > 0 and e ≥ 0, clipped to [0, 1]: the first term raised and the second lowered by :data:`REL_MARGIN`
    (relative), so the result is ≥ the exact value whenever scipy's Φ and exp are within that relative error."""
    mu = np.asarray(mu, dtype=np.float64)
    e = np.asarray(e, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a = ndtr(-e / mu + mu / 2.0) * (1.0 + REL_MARGIN)
        b = np.exp(e + log_ndtr(-e / mu - mu / 2.0)) * (1.0 - REL_MARGIN)
    return np.clip(np.where(mu > 0, a - b, 0.0) + 1e-300, 0.0, 1.0)


def _cp(k1: int, k0: int, n: int, alpha: float) -> tuple[float, float]:
    """One-sided Clopper–Pearson lower limit of ``k1/n`` and upper of ``k0/n``, at ``alpha/2`` each."""
    return float(clopper_pearson(k1, n, alpha / 2, "lower")), float(clopper_pearson(k0, n, alpha / 2, "upper"))


@dataclass(frozen=True)
class PureEps:
    """Grid point θ claims ε ≤ θ (pure ε-DP)."""

    name = "eps"

    def grid(self, claim: float) -> np.ndarray:
        """The ε grid (:func:`~privcheck.auditor.sequential.wealth.theta_grid`)."""
        from privcheck.auditor.sequential.wealth import theta_grid

        return theta_grid(claim)

    def at(self, theta: np.ndarray, q0: float) -> tuple[np.ndarray, np.ndarray]:
        """``(e, d) = (θ, 0)``."""
        return theta, np.zeros_like(theta)

    def estimate(self, e1: int, e0: int, n: int) -> float:
        """The plain estimate ``log(e1/e0)`` (−inf when not finite)."""
        return math.log(e1 / e0) if e1 > 0 and e0 > 0 else -math.inf

    def final(self, k1: int, k0: int, n: int, alpha: float) -> float:
        """Clopper–Pearson lower bound on ``log(p1/p0)`` at ``alpha``."""
        return log_ratio_lower_bound(k1, n, k0, n, alpha)


@dataclass(frozen=True)
class DeltaAt:
    """Grid point θ claims δ(ε) ≤ θ at the claimed ε = ``eps`` (the null ``P[S] ≤ e^ε Q[S] + θ``)."""

    eps: float
    name = "delta"

    def grid(self, claim: float) -> np.ndarray:
        """The claim-independent :func:`delta_grid`."""
        return delta_grid()

    def at(self, theta: np.ndarray, q0: float) -> tuple[np.ndarray, np.ndarray]:
        """``(e, d) = (ε, θ)``."""
        return np.full_like(theta, self.eps), theta

    def estimate(self, e1: int, e0: int, n: int) -> float:
        """The plain estimate ``(e1 − e^ε e0)/n``."""
        return float(delta_gap(e1 / n, e0 / n, self.eps)) if n > 0 else -math.inf

    def final(self, k1: int, k0: int, n: int, alpha: float) -> float:
        """Clopper–Pearson lower bound on ``p1 − e^ε p0`` at ``alpha`` (:func:`delta_gap` of the limits)."""
        lo, hi = _cp(k1, k0, n, alpha)
        return float(delta_gap(lo, hi, self.eps))


@dataclass(frozen=True)
class Gdp:
    """Grid point θ claims μ ≤ θ (θ-GDP); the bet's e is the trade-off curve's tangent at the plug-in q0."""

    name = "mu"

    def grid(self, claim: float) -> np.ndarray:
        """The μ grid: :func:`~privcheck.auditor.sequential.wealth.theta_grid` of the claimed μ, without θ = 0's
        neighbour issues (θ = 0 claims 0-GDP: identical outputs)."""
        from privcheck.auditor.sequential.wealth import theta_grid

        return theta_grid(claim)

    def at(self, theta: np.ndarray, q0: float) -> tuple[np.ndarray, np.ndarray]:
        """``e = clip(−θ Φ^{-1}(q0) − θ²/2, 0, GDP_E_TOP)`` and ``d = δ_θ(e)`` rounded up (:func:`gdp_delta_up`)."""
        z = float(ndtri(min(max(q0, 1e-300), 1.0 - 1e-16)))
        e = np.clip(-theta * z - theta * theta / 2.0, 0.0, GDP_E_TOP)
        return e, gdp_delta_up(theta, e)

    def estimate(self, e1: int, e0: int, n: int) -> float:
        """The plain estimate ``Φ^{-1}(e1/n) − Φ^{-1}(e0/n)`` (−inf at the edges)."""
        if not (0 < e1 < n and 0 < e0 < n):
            return -math.inf
        return float(ndtri(e1 / n) - ndtri(e0 / n))

    def final(self, k1: int, k0: int, n: int, alpha: float) -> float:
        """Lower bound on μ from Clopper–Pearson limits ``lo ≤ p1``, ``hi ≥ p0`` at ``alpha``: μ-GDP gives
        ``p1 ≤ Φ(Φ^{-1}(p0) + μ)`` (the trade-off curve ``G_μ``), so ``μ ≥ Φ^{-1}(lo) − Φ^{-1}(hi)``, lowered by
        :data:`REL_MARGIN` relative and 1e-12 absolute (float quantiles); −inf at the edges."""
        lo, hi = _cp(k1, k0, n, alpha)
        if not (0.0 < lo and hi < 1.0):
            return -math.inf
        v = float(ndtri(lo) - ndtri(hi))
        return v - abs(v) * REL_MARGIN * 1e3 - 1e-12


Null = PureEps | DeltaAt | Gdp
