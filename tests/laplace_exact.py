"""Exact δ(ε) of T-fold composition of the Laplace mechanism (ε0 = Δ/b), in mpmath (no grid, no binning).

Under P the privacy loss of one run has an atom ½ at ε0, an atom ½e^{−ε0} at −ε0 and on (−ε0, ε0) the density
f(ℓ) = ¼e^{−ε0/2}e^{ℓ/2} (x ∈ (0, 1) ↦ ℓ = (1 − 2x)/b under the Laplace(0, b) density). Conditioning on how many
runs land on each atom (k at +ε0, j at −ε0, n = T − k − j in between), the n continuous losses have the joint
weight (¼e^{−ε0/2})^n·e^{u/2} with u their sum, and u has the n-fold convolution of the indicator of (−ε0, ε0)
(Irwin–Hall: V_n(u) = Σ_i (−1)^i C(n, i)(u + (n − 2i)ε0)_+^{n−1}/(n − 1)!). So

    δ(ε) = Σ_{k,j} T!/(k! j! n!)·½^k·(½e^{−ε0})^j·(¼e^{−ε0/2})^n·∫_{u > A} (e^{u/2} − e^{A}e^{−u/2}) V_n(u) du,

A = ε − (k − j)ε0, and each ∫ e^{λu}(u − s)^{N}/N! over a finite range has the antiderivative
e^{λv}Σ_m (−1)^{N−m} v^m/(m! λ^{N−m+1}) (v = u − s). The alternating sums cancel heavily: the working precision
grows with T (exact to far more digits than a float for T <= 20 at the precision used here).
Independent of the accountant's code (only mpmath).
"""

from __future__ import annotations

import mpmath


def _antider(lam, N: int, v):
    """∫ e^{λv} v^N/N! dv (an antiderivative), mpmath."""
    return mpmath.exp(lam * v) * mpmath.fsum(
        (-1) ** (N - m) * v**m / (mpmath.factorial(m) * lam ** (N - m + 1)) for m in range(N + 1)
    )


def _cont(eps0, n: int, A):
    """∫_{u > A} (e^{u/2} − e^A e^{−u/2}) V_n(u) du for n >= 1 (V_n the n-fold convolution of 1_(−ε0, ε0))."""
    top = n * eps0
    if A >= top:
        return mpmath.mpf(0)
    total = mpmath.mpf(0)
    half = mpmath.mpf(1) / 2
    for i in range(n + 1):
        s = (2 * i - n) * eps0  # the term (u − s)_+^{n−1}/(n−1)! starts at s
        lo = max(A, s)
        if lo >= top:
            continue
        term = mpmath.exp(half * s) * (_antider(half, n - 1, top - s) - _antider(half, n - 1, lo - s))
        term -= mpmath.exp(A - half * s) * (_antider(-half, n - 1, top - s) - _antider(-half, n - 1, lo - s))
        total += (-1) ** i * mpmath.binomial(n, i) * term
    return total


def laplace_delta(eps0: float, T: int, eps: float, dps: int = 80) -> mpmath.mpf:
    """Exact δ(eps) of T runs of the Laplace mechanism with ε0 = Δ/b (either neighbouring direction: symmetric)."""
    with mpmath.workdps(dps + 4 * T):
        e0, e = mpmath.mpf(eps0), mpmath.mpf(eps)
        a, c, w = mpmath.mpf(1) / 2, mpmath.exp(-e0) / 2, mpmath.exp(-e0 / 2) / 4
        out = mpmath.mpf(0)
        for k in range(T + 1):
            for j in range(T - k + 1):
                n = T - k - j
                A = e - (k - j) * e0
                mult = mpmath.factorial(T) / (mpmath.factorial(k) * mpmath.factorial(j) * mpmath.factorial(n))
                if n == 0:
                    inner = -mpmath.expm1(A) if A < 0 else mpmath.mpf(0)
                else:
                    inner = w**n * _cont(e0, n, A)
                out += mult * a**k * c**j * inner
        return +out


def laplace_eps(eps0: float, T: int, delta: float, tol: float = 1e-9) -> float:
    """ε(δ) of the T-fold Laplace composition by bisection on :func:`laplace_delta` (relative tolerance ``tol``;
    returns the upper end of the final bracket, where δ <= delta)."""
    lo, hi = 0.0, T * eps0
    if laplace_delta(eps0, T, 0.0) <= delta:
        return 0.0
    while hi - lo > tol * hi:
        mid = 0.5 * (lo + hi)
        if laplace_delta(eps0, T, mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi
