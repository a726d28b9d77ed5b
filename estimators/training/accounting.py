"""Each training run's own accountant: the PLD of T Poisson-subsampled Gaussian steps, and σ calibration.

A step (DP-SGD) or round (DP-FedAvg) with sampling rate q, clipping norm C and noise N(0, (σC)²)
is the Poisson-subsampled Gaussian mechanism with noise multiplier σ under add/remove of one
example (client); T of them compose adaptively (Abadi et al. 2016; Mironov, Talwar & Zhang 2019):
``PoissonSampledEvent(GaussianEvent(σ), q) × T`` in :mod:`accountants.pld` (certified intervals).
The accountant is told the *claimed* q and σ: a bug (e.g. a larger real sampling rate) is what an
audit against this accountant must catch.
"""

from __future__ import annotations

import math

from accountants.pld import GaussianEvent, PLDAccountant, PoissonSampledEvent
from privcheck.base.errors import PrivcheckUsageError

__all__ = ["accountant", "calibrate_sigma"]


def accountant(q: float, sigma: float, steps: int) -> PLDAccountant:
    """The composed PLD accountant of ``steps`` Poisson-subsampled Gaussian steps (q = 1: plain Gaussians)."""
    event = GaussianEvent(sigma=sigma) if q >= 1.0 else PoissonSampledEvent(GaussianEvent(sigma=sigma), q=q)
    return PLDAccountant().compose(event, count=steps)


def calibrate_sigma(eps: float, delta: float, q: float, steps: int, rel_tol: float = 1e-3) -> float:
    """The smallest noise multiplier σ (to ``rel_tol``, rounded up) whose accountant's certified upper
    ε at δ is ≤ ``eps``: a bisection on log σ with the accountant's upper ends (safe side)."""
    if not (eps > 0 and 0 < delta < 1):
        raise PrivcheckUsageError(f"calibrate_sigma needs eps > 0 and delta in (0, 1), got {eps}, {delta}")

    def ok(s: float) -> bool:
        try:
            return accountant(q, s, steps).epsilon(delta).upper <= eps
        except PrivcheckUsageError:  # σ so small that the loss grid cannot be built: far above eps
            return False

    lo, hi = 0.05, 1.0
    while not ok(hi):
        lo, hi = hi, hi * 2.0
        if hi > 1e4:
            raise PrivcheckUsageError(f"no noise multiplier <= 1e4 reaches eps {eps} at delta {delta}")
    while ok(lo) and lo > 1e-3:
        hi, lo = lo, lo / 2.0
    while hi / lo > 1.0 + rel_tol:
        mid = math.sqrt(lo * hi)
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi
