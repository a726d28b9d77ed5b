"""One-run methods over the candidate guess rules: Steinke et al. (2023) and the f-DP recursion (MMC 2025).

Each candidate rule j gives (c'_j guesses, c_j correct); the error level is divided over the
candidates tried (:mod:`privcheck.canaries.rules`), and the best certified bound over candidates is
returned with its candidate. Skipping a candidate (pruning) can only lower the result.
"""

from __future__ import annotations

import numpy as np

from privcheck.canaries.fdp import Curve, Family, certify, reject_many, reject_mp, sup_rejected
from privcheck.canaries.steinke import eps_delta0, steinke_eps

__all__ = ["steinke_over", "fdp_over", "curve_rejected", "approx_eps0"]


def approx_eps0(guesses: np.ndarray, correct: np.ndarray, alpha: float) -> np.ndarray:
    """Float (scipy) δ = 0 one-run bounds, for ranking and for choosing a rule on a selection half."""
    from scipy.special import betaincinv

    g = np.asarray(guesses, dtype=float)
    c = np.asarray(correct, dtype=float)
    out = np.zeros(g.shape)
    ok = c > 0
    lim = betaincinv(c[ok], g[ok] - c[ok] + 1.0, alpha)
    with np.errstate(divide="ignore"):
        out[ok] = np.maximum(0.0, np.log(lim) - np.log1p(-lim))
    return out


def steinke_over(guesses, correct, m: int, alpha_each: float, delta: float) -> tuple[float, int]:
    """The best certified Steinke bound over candidates, and its index (−1 when none is above 0).

    δ = 0 bounds (certified Clopper–Pearson) first; with δ > 0 candidates are refined in
    decreasing order of their δ = 0 bound, which no δ > 0 bound exceeds, until none can win."""
    g = np.asarray(guesses, dtype=int)
    c = np.asarray(correct, dtype=int)
    order = np.argsort(-approx_eps0(g, c, alpha_each), kind="stable")
    eps0 = {}
    best, best_j = 0.0, -1
    for j in order:  # δ = 0 certified; the float ranking only sets the order
        e = eps_delta0(int(g[j]), int(c[j]), alpha_each)
        eps0[int(j)] = e
        if e > best:
            best, best_j = e, int(j)
    if delta == 0.0:
        return best, best_j
    best, best_j = 0.0, -1
    for j in sorted(eps0, key=lambda k: -eps0[k]):
        if eps0[j] <= best:
            break
        e = steinke_eps(int(g[j]), int(c[j]), m, delta, alpha_each, floor=best)
        if e > best:
            best, best_j = e, j
    return best, best_j


def fdp_over(guesses, correct, m: int, tau: float, family: Family) -> tuple[float, int]:
    """The largest family parameter (ε or μ) some candidate rejects, certified; and the candidate."""
    return sup_rejected(guesses, correct, m, tau, family)


def curve_rejected(guesses, correct, m: int, tau: float, curve: Curve) -> int:
    """Index of a candidate whose recursion rejects the curve (checked in mpmath), or −1."""
    g = np.asarray(guesses, dtype=float)
    c = np.asarray(correct, dtype=float)
    rej = np.flatnonzero(reject_many(g, c, m, tau, lambda y: curve.vec(y, 0.0)))
    for j in rej[np.argsort(-g[rej])]:
        if reject_mp(int(g[j]), int(c[j]), m, tau, curve, 0.0):
            return int(j)
    return -1


__all__ += ["certify"]
