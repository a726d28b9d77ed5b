"""Lower bounds on δ(ε) of a composition from its top losses, valid at any δ (log space).

δ(ε) of G ⊗ μ (G the composed plain-Gaussian part, μ-GDP; μ the rest) is E_μ[δ_G(ε − L)]
(condition on the non-Gaussian losses L). Replacing μ by an optimistic grid measure (its profile
lies below μ's, see :mod:`accountants.pld.discretise`) and dropping any of its atoms (all terms
are ≥ 0) can only lower that expectation, so keeping the ``keep`` highest composed losses of
the optimistic measures (by repeated squaring with truncation after each product) gives a lower
bound that reaches the far tail the FFT cannot resolve (δ down to 1e−300 and beyond: the sum is
formed in log space). Without a Gaussian part δ_G(x) is replaced by (1 − e^x)_+ (the point mass
at loss 0). Issue 18 §5: δ(ε) ≥ δ_G(ε − 1.5)/8 for 2 × N(σ=1) + 3 × Laplace(0.5) is this
bound with one atom kept.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from accountants.pld.discretise import GridMeasure
from accountants.pld.events import gaussian_log_delta

__all__ = ["TopMeasure", "top_measure", "log_delta_lower", "eps_lower"]

KEEP = 512
_REL = 1e-9  # relative slack for float products and the closed form (≈1e−15 accurate)


@dataclass
class TopMeasure:
    """Sub-measure: masses ``w`` at losses ``idx``·h (highest losses kept) plus +∞ mass ``inf``;
    ``shift``: how far the grid losses may sit above the true ones (atom snapping and float error)."""

    h: float
    idx: np.ndarray
    w: np.ndarray
    inf: float
    shift: float = 0.0


def _truncate(idx: np.ndarray, w: np.ndarray, keep: int) -> tuple[np.ndarray, np.ndarray]:
    nz = w > 0
    idx, w = idx[nz], w[nz]
    if idx.size > keep:
        sel = np.argsort(idx)[-keep:]
        idx, w = idx[sel], w[sel]
    return idx, w


def _product(a: TopMeasure, b: TopMeasure, keep: int) -> TopMeasure:
    if a.idx.size and b.idx.size:
        # sparse: every pair of kept atoms (at most keep² products of positives, relative error ≪ 1e−9)
        s = (a.idx[:, None] + b.idx[None, :]).ravel()
        m = (a.w[:, None] * b.w[None, :]).ravel()
        u, inv = np.unique(s, return_inverse=True)
        c = np.bincount(inv.ravel(), weights=m) * (1 - 4 * _REL)
        idx, w = _truncate(u, c, keep)
    else:
        idx, w = np.zeros(0, dtype=np.int64), np.zeros(0)
    fa, fb = float(np.sum(a.w)), float(np.sum(b.w))
    inf = (a.inf * (fb + b.inf) + fa * b.inf) * (1 - 4 * _REL)
    return TopMeasure(a.h, idx, w, inf, a.shift + b.shift)


def top_measure(parts: list[tuple[GridMeasure, int]], keep: int = KEEP) -> TopMeasure | None:
    """The top ``keep`` atoms of the composition of optimistic measures ``parts`` [(measure, count)]
    (a sub-measure of their composition, so every δ it gives is a lower bound); None if empty."""
    out: TopMeasure | None = None
    for m, T in parts:
        if m.kind != "optimistic":
            raise ValueError("top_measure needs optimistic measures")
        idx, w = _truncate(m.lo + np.arange(m.p.size), m.p.astype(float), keep)
        base = TopMeasure(m.h, idx, w, float(m.inf), float(m.shift))
        acc: TopMeasure | None = None
        e = int(T)
        while e:
            if e & 1:
                acc = base if acc is None else _product(acc, base, keep)
            e >>= 1
            if e:
                base = _product(base, base, keep)
        if acc is not None:
            out = acc if out is None else _product(out, acc, keep)
    return out


def log_delta_lower(top: TopMeasure | None, mu: float | None, eps: float) -> float:
    """log of a lower bound on δ(ε) of (μ-GDP part) ⊗ (measure whose sub-measure is ``top``)."""
    if top is None:
        if mu is None:
            return -math.inf
        return float(gaussian_log_delta(mu, np.array([eps]))[0]) + math.log1p(-_REL)
    x = top.idx * top.h
    # the true losses may be up to `shift` below the grid ones, and idx·h is rounded once
    eps = eps + top.shift * (1 + 1e-12) + 4 * 2.0**-53 * (abs(eps) + float(np.max(np.abs(x), initial=0.0)))
    with np.errstate(divide="ignore"):
        lw = np.log(top.w)
        if mu is None:
            d = np.where(x > eps, np.log(-np.expm1(np.minimum(eps - x, 0.0))), -np.inf)
        else:
            d = gaussian_log_delta(mu, eps - x)
        terms = lw + d
        parts = [
            special.logsumexp(terms) if np.any(np.isfinite(terms)) else -math.inf,
            math.log(top.inf) if top.inf > 0 else -math.inf,
        ]
    v = float(np.logaddexp(parts[0], parts[1]))
    return v + math.log1p(-_REL) if math.isfinite(v) else v


def eps_lower(top: TopMeasure | None, mu: float | None, delta: float, hi: float) -> float:
    """Largest ε found in [0, hi] with the lower bound on δ(ε) still > delta (so ε(δ) ≥ it); 0 if none."""
    ld = math.log(delta)
    if not log_delta_lower(top, mu, 0.0) > ld:
        return 0.0
    lo = 0.0
    if log_delta_lower(top, mu, hi) > ld:
        return hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if log_delta_lower(top, mu, mid) > ld:
            lo = mid
        else:
            hi = mid
    return lo
