"""Rigorous mpmath brackets on δ(ε) of mixes of Gaussian, Laplace and binary RR / pure-ε events.

Product form (condition on the non-Gaussian losses L): δ(ε) = E_μ[g(ε − L)] with g = δ_G of the
composed Gaussian part (μ_G = √Σμ_i²) or (1 − e^x)_+ without one, μ the P-law of the summed
non-Gaussian losses. g is decreasing, so moving every loss up (to the top of its bin on a grid
of step s) gives an upper bound and moving it down a lower bound. Laplace(ε0) losses under P:
atom ½ at ε0, atom ½e^{−ε0} at −ε0, and on (−ε0, ε0) the tail P(L > ℓ) = 1 − ½e^{−(ε0−ℓ)/2};
binary ε-RR: atoms e^ε/(1+e^ε) at ε and 1/(1+e^ε) at −ε. Everything in mpmath (60 digits), so
no mass underflows at any δ. Independent of the accountant's code (only mpmath).
"""

from __future__ import annotations

import math

import mpmath

DPS = 60


def _pieces_laplace(eps0, bins):
    """(loss_lo, loss_hi, mass) pieces of the Laplace loss law (exact masses)."""
    e0 = mpmath.mpf(eps0)
    out = [(e0, e0, mpmath.mpf(1) / 2), (-e0, -e0, mpmath.exp(-e0) / 2)]
    for j in range(bins):
        a = -e0 + 2 * e0 * j / bins
        b = -e0 + 2 * e0 * (j + 1) / bins
        out.append((a, b, (mpmath.exp(-(e0 - b) / 2) - mpmath.exp(-(e0 - a) / 2)) / 2))
    return out


def _pieces_rr(eps):
    e = mpmath.mpf(eps)
    p = mpmath.exp(e) / (1 + mpmath.exp(e))
    return [(e, e, p), (-e, -e, 1 - p)]


def _measure(pieces, step, up: bool) -> dict:
    out: dict = {}
    for lo, hi, m in pieces:
        k = int(mpmath.ceil(hi / step)) if up else int(mpmath.floor(lo / step))
        out[k] = out.get(k, 0) + m
    return out


def _convolve(a: dict, b: dict) -> dict:
    out: dict = {}
    for i, x in a.items():
        for j, y in b.items():
            out[i + j] = out.get(i + j, 0) + x * y
    return out


def _g(mu, x):
    if mu is None:
        return 1 - mpmath.exp(x) if x < 0 else mpmath.mpf(0)
    mu = mpmath.mpf(mu)
    return mpmath.ncdf(-x / mu + mu / 2) - mpmath.exp(x) * mpmath.ncdf(-x / mu - mu / 2)


class MixReference:
    """Brackets [lower, upper] on δ(ε) of ``gauss`` (list of σ, sensitivity 1), ``laplace`` (list of ε0)
    and ``rr`` (list of ε of binary RR = pure ε-DP dominating pair), each event used once."""

    def __init__(self, gauss=(), laplace=(), rr=(), bins: int = 48):
        with mpmath.workdps(DPS):
            self.mu = mpmath.sqrt(sum(1 / mpmath.mpf(s) ** 2 for s in gauss)) if gauss else None
            eps_all = list(laplace) + list(rr)
            self.step = mpmath.mpf(min(eps_all)) / bins if eps_all else mpmath.mpf(1)
            self.meas = {}
            for up in (True, False):
                m = {0: mpmath.mpf(1)}
                for e0 in laplace:
                    m = _convolve(m, _measure(_pieces_laplace(e0, bins), self.step, up))
                for e in rr:
                    m = _convolve(m, _measure(_pieces_rr(e), self.step, up))
                self.meas[up] = m

    def delta(self, eps: float, up: bool):
        """Upper (up=True) or lower bound on δ(eps), an mpf."""
        with mpmath.workdps(DPS):
            e = mpmath.mpf(eps)
            return sum((w * _g(self.mu, e - k * self.step) for k, w in self.meas[up].items()), mpmath.mpf(0))

    def eps_interval_ok(self, lower: float, upper: float, delta: float) -> tuple[bool, str]:
        """Whether [lower, upper] can contain ε(δ): δ(lower) must be able to exceed δ (δ_upper(lower) ≥ δ
        unless lower = 0) and δ(upper) must be able to be ≤ δ (δ_lower(upper) ≤ δ)."""
        d = mpmath.mpf(delta)
        if lower > 0 and self.delta(lower, True) < d:
            return False, f"lower end {lower!r}: rigorous δ upper bound {mpmath.nstr(self.delta(lower, True), 8)} < δ"
        if math.isfinite(upper) and self.delta(upper, False) > d:
            return False, f"upper end {upper!r}: rigorous δ lower bound {mpmath.nstr(self.delta(upper, False), 8)} > δ"
        return True, ""
