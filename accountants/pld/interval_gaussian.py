"""Numerical composition of Gaussian mechanisms through discretised privacy-loss distributions.

An independent route to the GDP composition theorem (002 Lemma 3): the privacy loss of a
Gaussian mechanism with μ = Δ/σ is L ~ N(μ²/2, μ²) under the "with record" distribution and
δ(ε) = E[(1 − e^{ε − L})_+]. Each loss distribution is discretised on a grid of step h, rounding
the loss *up* (a pessimistic, dominating discretisation, so δ is an upper bound) or *down*
(an optimistic one, a lower bound); the compositions are computed by FFT convolution. The exact
composed δ(ε) must lie between the two (up to floating-point error of the FFT, ~1e−15).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import special

from privcheck.base.errors import PrivcheckUsageError

__all__ = ["PLDBounds", "gaussian_pld_delta"]


@dataclass(frozen=True)
class PLDBounds:
    """Lower and upper bounds on δ(ε) of a composition from the two discretisations."""

    eps: list[float]
    lower: list[float]
    upper: list[float]
    step: float
    grid_points: int


def _component(mu: float, h: float, up: bool, width: float = 14.0) -> tuple[int, np.ndarray]:
    m, s = mu * mu / 2.0, mu
    lo = math.floor((m - width * s) / h) - 1
    hi = math.ceil((m + width * s) / h) + 1
    edges = (
        np.arange(lo, hi + 2) - (1 if up else 0)
    ) * h  # bin j collects L in (x_{j-1}, x_j] (up) or [x_j, x_{j+1}) (down)
    cdf = special.ndtr((edges - m) / s)
    mass = np.diff(cdf)[: hi - lo + 1]
    return lo, mass


def gaussian_pld_delta(mus: Sequence[float], eps: Sequence[float], step: float | None = None) -> PLDBounds:
    """Bounds on δ(ε) of the composition of Gaussian mechanisms with parameters ``mus`` (each μ_i > 0).

    step: grid step of the privacy loss (default: total μ / 4000). Mass outside ±14 sd of each
    component (< 1e−44) is dropped, which only lowers the lower bound.
    """
    mus = [float(m) for m in np.atleast_1d(np.asarray(mus, dtype=float))]
    if not mus or any(not (m > 0) or math.isinf(m) for m in mus):
        raise PrivcheckUsageError("mus must be positive finite numbers")
    total = math.sqrt(sum(m * m for m in mus))
    h = float(step) if step is not None else total / 4000.0
    eps_arr = np.atleast_1d(np.asarray(eps, dtype=float))
    res = {}
    for up in (True, False):
        comps = [_component(m, h, up) for m in mus]
        n = sum(c[1].size - 1 for c in comps) + 1
        N = 1 << (n - 1).bit_length()
        spec = np.ones(N // 2 + 1, dtype=complex)
        # group equal μ's: one FFT and a power
        by_mu: dict[float, list] = {}
        for m, c in zip(mus, comps):
            by_mu.setdefault(m, [c, 0])[1] += 1
        base = 0
        for (lo, mass), count in by_mu.values():
            spec *= np.fft.rfft(mass, N) ** count
            base += lo * count
        pmf = np.clip(np.fft.irfft(spec, N)[:n], 0.0, None)
        x = (base + np.arange(n)) * h
        out = []
        for e in eps_arr:
            sel = x > e
            out.append(float(np.sum(pmf[sel] * -np.expm1(e - x[sel]))))
        res[up] = out
    return PLDBounds(eps_arr.tolist(), res[False], res[True], h, n)
