"""The published formulas evaluated in mpmath, for comparisons (benchmark, tests) — not for audits.

Each function evaluates one method's formula as printed, at high precision (``dps`` digits) and with
a plain bisection to ~1e−15 relative, with no outward rounding: the value an exact implementation
of the paper would give. privcheck's certified results must never exceed these, and should lie
within ~1e−9 relative of them.

- :func:`ref_cp_upper`: the Clopper–Pearson upper limit (the 1 − a quantile of Beta(k + 1, n − k));
- :func:`ref_cp_eps`, :func:`ref_gdp_mu`: Nasr et al. (2021) ε and Nasr et al. (2023) μ from two limits;
- :func:`ref_eps_of_mu`: ε at δ of the μ-GDP curve (Dong, Roth & Su 2022, Cor. 2.13);
- :func:`ref_steinke_p`, :func:`ref_steinke_eps`: Steinke, Nasr & Jagielski (2023) Thm 5.2 and its inverse;
- :func:`ref_fdp_sup`: the largest parameter the f-DP recursion (Mahloujifar et al. 2025) rejects.
"""

from __future__ import annotations

import mpmath

__all__ = [
    "ref_cp_upper",
    "ref_cp_eps",
    "ref_gdp_mu",
    "ref_eps_of_mu",
    "ref_steinke_p",
    "ref_steinke_eps",
    "ref_fdp_sup",
]

DPS = 40


def _bisect(pred, lo, hi, rel="1e-16", it=200):
    """Largest x in [lo, hi] with pred(x) true, pred monotone (true below, false above)."""
    lo, hi, rel = mpmath.mpf(lo), mpmath.mpf(hi), mpmath.mpf(rel)
    for _ in range(it):
        if hi - lo <= rel * max(1, abs(hi)):
            break
        mid = (lo + hi) / 2
        if pred(mid):
            lo = mid
        else:
            hi = mid
    return lo


def _log_pmf(j: int, n: int, p):
    return (
        mpmath.loggamma(n + 1)
        - mpmath.loggamma(j + 1)
        - mpmath.loggamma(n - j + 1)
        + j * mpmath.log(p)
        + (n - j) * mpmath.log1p(-p)
    )


def _tail_sum(start: int, stop: int, step: int, n: int, p):
    """Σ pmf(j) for j from ``start`` towards ``stop`` (exclusive) by ``step``, while the terms matter."""
    if (stop - start) * step <= 0:
        return mpmath.mpf(0)
    term = mpmath.exp(_log_pmf(start, n, p))
    total, j, ratio = term, start, p / (1 - p)
    while True:
        nj = j + step
        if nj == stop or term == 0:
            return total
        term = term * ((n - j) / mpmath.mpf(nj) * ratio if step > 0 else j / mpmath.mpf(n - nj) / ratio)
        j = nj
        total += term
        if term < total * mpmath.mpf(10) ** (-(mpmath.mp.dps + 5)) and (j - n * p) * step > 0:
            return total


def binom_cdf(k: int, n: int, p):
    """P[Bin(n, p) ≤ k] by direct summation from the side where the terms fall (mpmath; no hypergeometric series)."""
    if k < 0:
        return mpmath.mpf(0)
    if k >= n:
        return mpmath.mpf(1)
    p = mpmath.mpf(p)
    if p <= 0:
        return mpmath.mpf(1)
    if p >= 1:
        return mpmath.mpf(0)
    if k < n * p:
        return _tail_sum(k, -1, -1, n, p)
    return 1 - _tail_sum(k + 1, n + 1, 1, n, p)


def ref_cp_upper(k: int, n: int, a: float):
    """Exact upper Clopper–Pearson limit: the p with P[Bin(n, p) ≤ k] = a (1 when k = n)."""
    if k >= n:
        return mpmath.mpf(1)
    with mpmath.workdps(DPS):
        a = mpmath.mpf(a)
        return _bisect(lambda p: binom_cdf(k, n, p) > a, 0, 1, rel="1e-17", it=400)


def ref_cp_eps(fpr_u, fnr_u, delta: float):
    """Nasr et al. (2021): max(log((1 − δ − FNR)/FPR), log((1 − δ − FPR)/FNR)) at the limits."""
    with mpmath.workdps(DPS):
        a, b, d = mpmath.mpf(fpr_u), mpmath.mpf(fnr_u), mpmath.mpf(delta)
        vals = [mpmath.log((1 - d - b) / a)] if (1 - d - b > 0 and a > 0) else []
        vals += [mpmath.log((1 - d - a) / b)] if (1 - d - a > 0 and b > 0) else []
        return max(vals) if vals else mpmath.mpf("-inf")


def ref_gdp_mu(fpr_u, fnr_u):
    """Nasr et al. (2023): μ = Φ⁻¹(1 − FPR) − Φ⁻¹(FNR) at the limits."""
    with mpmath.workdps(DPS + 20):
        a, b = mpmath.mpf(fpr_u), mpmath.mpf(fnr_u)
        q = lambda p: mpmath.sqrt(2) * mpmath.erfinv(2 * p - 1)  # noqa: E731
        return -q(a) - q(b)


def ref_eps_of_mu(mu, delta: float):
    """The ε with δ_μ(ε) = δ (largest ε with δ_μ(ε) ≥ δ)."""
    with mpmath.workdps(DPS):
        m, d = mpmath.mpf(mu), mpmath.mpf(delta)
        dl = lambda e: mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)  # noqa: E731
        hi = mpmath.mpf(1)
        while dl(hi) >= d:
            hi *= 2
        return _bisect(lambda e: dl(e) >= d, 0, hi)


def ref_steinke_p(r: int, v: int, m: int, delta: float, eps):
    """Steinke et al. (2023) Thm 5.2 p-value f(v) + 2mδ max_i (f(v − i) − f(v))/i, in mpmath."""
    with mpmath.workdps(DPS):
        q = 1 / (1 + mpmath.exp(-mpmath.mpf(eps)))
        f_v = 1 - binom_cdf(v - 1, r, q)
        if delta == 0 or v <= 0:
            return min(f_v, mpmath.mpf(1))
        pmf = lambda j: mpmath.binomial(r, j) * q**j * (1 - q) ** (r - j)  # noqa: E731
        best, s = mpmath.mpf(0), mpmath.mpf(0)
        term = pmf(v - 1)
        ratio_num = (1 - q) / q
        for i in range(1, v + 1):
            j = v - i  # term = pmf(j)
            s += term
            best = max(best, s / i)
            if j > 0:
                term = term * j / (r - j + 1) * ratio_num  # pmf(j − 1) from pmf(j)
        return min(f_v + 2 * m * mpmath.mpf(delta) * best, mpmath.mpf(1))


def ref_steinke_eps(r: int, v: int, m: int, delta: float, alpha: float):
    """The largest ε whose p-value is ≤ α (bisection, as in the paper's App. D, to ~1e−15)."""
    with mpmath.workdps(DPS):
        a = mpmath.mpf(alpha)
        if ref_steinke_p(r, v, m, delta, 0) > a:
            return mpmath.mpf(0)
        hi = mpmath.mpf(1)
        while ref_steinke_p(r, v, m, delta, hi) <= a:
            hi *= 2
        return _bisect(lambda e: ref_steinke_p(r, v, m, delta, e) <= a, 0, hi, rel="1e-14", it=80)


def ref_fdp_sup(cp: int, c: int, m: int, tau: float, family):
    """The largest θ the f-DP recursion rejects (no margin), ``family`` a :class:`~privcheck.canaries.fdp.Family`."""

    def rejects(theta) -> bool:
        with mpmath.workdps(50):
            t = mpmath.mpf(tau)
            r, h = t * c / m, t * (cp - c) / m
            target = mpmath.mpf(cp) / m
            if r + h > target:
                return True
            for i in range(c - 1, -1, -1):
                hn = max(h, family.mp(r, float(theta)))
                if hn == h:
                    return False
                r += mpmath.mpf(i) / (cp - i) * (hn - h)
                h = hn
                if r + h > target:
                    return True
            return False

    if not rejects(0):
        return mpmath.mpf(0)
    hi = mpmath.mpf(1)
    while rejects(hi):
        hi *= 2
        if hi > family.hi:
            return hi / 2
    return _bisect(rejects, 0, hi, rel="1e-13", it=60)
