"""True-ε calculators of the zoo's *central* mechanisms (diffprivlib, OpenDP, PyDP), in real arithmetic.

Each function returns the exact ε of the law a library **documents**, on the inputs a zoo case audits
(a neighbouring pair, or all ordered pairs of its inputs): continuous laws by closed forms (the privacy
loss of a Laplace-type law is monotone between known breakpoints, so its supremum is an evaluation at
finitely many points), discrete laws by enumeration through :func:`privcheck.base.exact.worst_case_ratio`
(mpmath, 50+ digits), Gaussian laws as ε at the claimed δ of the exact δ(ε) curve (the continuous one
by the certified :func:`accountants.gdp.gdp_eps`, rounded up; the discrete one by enumeration and a
bracketed root, upper end returned). They describe the documented law, not the library's float code:
a certified Monte Carlo bound above a calculator is an implementation departing from its
documentation (a finding). Where a library calibrates a parameter only by a numerical procedure
(diffprivlib's analytic and discrete Gaussian σ), the law is taken at the σ that procedure returns
(read from the mechanism), so a calibration error shows as a true ε above the claim.
"""

from __future__ import annotations

import itertools
import math
from typing import Callable, Iterable, Sequence

import mpmath

from privcheck.base.exact import precision_for, worst_case_ratio

#: the binary64 machine epsilon diffprivlib's Snapping uses (np.finfo(float).epsneg = 2^-53)
MACHINE_EPSNEG = mpmath.mpf(2) ** -53


def _mp(v) -> mpmath.mpf:
    return mpmath.mpf(v)


def _pairs(inputs: Sequence) -> list[tuple]:
    return [(a, b) for a, b in itertools.permutations(inputs, 2)]


def _laplace_cdf(t, b) -> mpmath.mpf:
    """P(N ≤ t) for N ~ Laplace(0, b)."""
    t, b = _mp(t), _mp(b)
    return mpmath.exp(t / b) / 2 if t < 0 else 1 - mpmath.exp(-t / b) / 2


def _to_float(v) -> float:
    return float("inf") if mpmath.isinf(v) else float(v)


# ------------------------------------------------------------------ Laplace family (diffprivlib 0.6.6)
def laplace_truncated(eps: float, sensitivity: float, lower: float, upper: float, inputs: Sequence[float]) -> float:
    """Exact ε of diffprivlib's ``LaplaceTruncated``: ``clip(x + Lap(Δ/ε), lower, upper)`` (values outside the
    domain "mapped to the closest point", diffprivlib docs), over all ordered pairs of ``inputs`` ⊂ [lower, upper].

    The law has atoms F((lower−x)/b) at ``lower`` and 1 − F((upper−x)/b) at ``upper`` and the Laplace density
    inside, whose privacy loss (|y−x'| − |y−x|)/b is monotone in y: its supremum is at the two bounds.
    eps > 0, sensitivity > 0, lower < upper.
    """
    with precision_for(eps):
        b = _mp(sensitivity) / _mp(eps)
        worst = mpmath.mpf(0)
        for x0, x1 in _pairs(inputs):
            lo0, lo1 = _laplace_cdf(_mp(lower) - x0, b), _laplace_cdf(_mp(lower) - x1, b)
            hi0, hi1 = 1 - _laplace_cdf(_mp(upper) - x0, b), 1 - _laplace_cdf(_mp(upper) - x1, b)
            inner = max(abs(abs(_mp(y) - x1) - abs(_mp(y) - x0)) / b for y in (lower, upper))
            worst = max(worst, abs(mpmath.log(lo0 / lo1)), abs(mpmath.log(hi0 / hi1)), inner)
        return _to_float(worst)


def _folded_density(y, x, b, lower, upper) -> mpmath.mpf:
    """Density at y ∈ [lower, upper] of x + Lap(b) reflected into [lower, upper] (closed form of the image sum:
    Σ_k e^{−|u+2kD|/b} = cosh((D−u)/b)/sinh(D/b) for u ∈ [0, 2D], D = upper − lower)."""
    D = _mp(upper) - _mp(lower)

    def s(u):
        return mpmath.cosh((D - u) / b) / mpmath.sinh(D / b)

    return (s(abs(_mp(y) - x)) + s(_mp(y) + x - 2 * _mp(lower))) / (2 * b)


def laplace_folded(eps: float, sensitivity: float, lower: float, upper: float, inputs: Sequence[float]) -> float:
    """Exact ε of diffprivlib's ``LaplaceFolded``: x + Lap(Δ/ε) "folded around the domain until it falls
    within" (reflected at ``lower`` and ``upper``), over ordered pairs of ``inputs`` ⊂ [lower, upper].

    Between the breakpoints {lower, upper, x, x'} each density is α e^{y/b} + β e^{−y/b}, so the likelihood
    ratio is a Möbius function of e^{2y/b}, monotone: the supremum is at a breakpoint. For x = lower,
    x' = upper, Δ = upper − lower this is log cosh(ε) < ε.
    """
    with precision_for(eps):
        b = _mp(sensitivity) / _mp(eps)
        worst = mpmath.mpf(0)
        for x0, x1 in _pairs(inputs):
            for y in {lower, upper, x0, x1}:
                r = _folded_density(y, _mp(x0), b, lower, upper) / _folded_density(y, _mp(x1), b, lower, upper)
                worst = max(worst, abs(mpmath.log(r)))
        return _to_float(worst)


def bounded_domain_scale(eps: float, sensitivity: float, lower: float, upper: float, delta: float = 0.0) -> mpmath.mpf:
    """Scale b of the bounded Laplace mechanism (Holohan et al. 2020, J. Priv. Confid. 10(1), Thm 3.4 /
    diffprivlib ``LaplaceBoundedDomain._find_scale``): the fixed point b = Δ / (ε − log Δc(b) − log(1 − δ)),
    Δc(b) = (2 − e^{−Δ/b} − e^{−(D−Δ)/b}) / (1 − e^{−D/b}), D = upper − lower; solved by bisection in mpmath."""
    with precision_for(eps):
        q, D, e = _mp(sensitivity), _mp(upper) - _mp(lower), _mp(eps) + mpmath.log1p(-_mp(delta))

        def dc(s):
            return (2 - mpmath.exp(-q / s) - mpmath.exp(-(D - q) / s)) / (1 - mpmath.exp(-D / s))

        def g(s):  # f(s) − s, decreasing through its root on [Δ/ε, f(Δ/ε)]
            return q / (e - mpmath.log(dc(s))) - s

        lo = q / e
        hi = q / (e - mpmath.log(dc(lo)))
        for _ in range(400):
            mid = (lo + hi) / 2
            if g(mid) >= 0:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2


def laplace_bounded_domain(
    eps: float, sensitivity: float, lower: float, upper: float, inputs: Sequence[float]
) -> float:
    """Exact ε of diffprivlib's ``LaplaceBoundedDomain`` (x + Lap(b) conditioned on [lower, upper], b of
    :func:`bounded_domain_scale`) over ordered pairs of ``inputs`` ⊂ [lower, upper]: the privacy loss is
    (|y−x'| − |y−x|)/b + log(C_{x'}/C_x) with C_x = P(x + N ∈ [lower, upper]), whose supremum over the domain
    is |x − x'|/b + |log(C_{x'}/C_x)| (attained at y = min or max of the pair)."""
    with precision_for(eps):
        b = bounded_domain_scale(eps, sensitivity, lower, upper)

        def c(x):
            return _laplace_cdf(_mp(upper) - x, b) - _laplace_cdf(_mp(lower) - x, b)

        worst = max(abs(_mp(x0) - x1) / b + abs(mpmath.log(c(_mp(x1)) / c(_mp(x0)))) for x0, x1 in _pairs(inputs))
        return _to_float(worst)


def laplace_bounded_noise(eps: float, delta: float, sensitivity: float) -> float:
    """Exact ε at δ of diffprivlib's ``LaplaceBoundedNoise`` (Geng et al. 2018, arXiv:1810.00877 eq. (4)):
    x + Lap(b = Δ/ε) conditioned on |noise| ≤ B, B = b log(1 + (e^ε − 1)/(2δ)), on inputs at distance Δ.

    The loss is ±∞ on the two non-overlapping strips of width Δ and in [−ε, ε] elsewhere, with value ε on a
    set of positive mass, so δ(ε') > δ(ε) for ε' < ε and δ(ε) = the strip mass. That mass is computed here and
    the result is ε when it is ≤ δ (it equals δ in real arithmetic); otherwise no ε' reaches δ: ``inf``.
    """
    with precision_for(eps):
        e, d = _mp(eps), _mp(delta)
        b = _mp(sensitivity) / e
        B = b * mpmath.log(1 + (mpmath.exp(e) - 1) / (2 * d))
        mass = (_laplace_cdf(-B + sensitivity, b) - _laplace_cdf(-B, b)) / (_laplace_cdf(B, b) - _laplace_cdf(-B, b))
        return float(eps) if mass <= d * (1 + mpmath.mpf(10) ** (-30)) else float("inf")


def _staircase_density(z, eps, gamma, delta_s) -> mpmath.mpf:
    """Unnormalised staircase density (Geng & Viswanath 2016, IEEE T-IT 62(2), eq. (13)): e^{−kε} on
    |z| ∈ [kΔ, (k+γ)Δ) and e^{−(k+1)ε} on [(k+γ)Δ, (k+1)Δ)."""
    a = abs(_mp(z)) / delta_s
    k = mpmath.floor(a)
    return mpmath.exp(-(k + (0 if a - k < gamma else 1)) * eps)


def staircase(eps: float, sensitivity: float, inputs: Sequence[float], gamma: float | None = None) -> float:
    """Exact ε of diffprivlib's ``Staircase`` (Geng–Viswanath staircase noise, γ = 1/(1 + e^{ε/2}) by default)
    over ordered pairs of ``inputs``. The loss is piecewise constant with breakpoints at x ± kΔ, x ± (k+γ)Δ
    and, beyond the inputs, periodic with period Δ: its maximum is over the midpoints of the breakpoints in
    [min x − 2Δ, max x + 2Δ]."""
    with precision_for(eps):
        e, s = _mp(eps), _mp(sensitivity)
        g = 1 / (1 + mpmath.exp(e / 2)) if gamma is None else _mp(gamma)
        lo, hi = min(inputs) - 2 * s, max(inputs) + 2 * s
        kmax = int(mpmath.ceil((hi - lo) / s)) + 2
        pts = {lo, hi}
        for x in inputs:
            for k in range(-kmax, kmax + 1):
                for off in (k * s, (k + g) * s, -(k + g) * s):
                    y = _mp(x) + off
                    if lo < y < hi:
                        pts.add(y)
        pts = sorted(pts)
        mids = [(u + v) / 2 for u, v in zip(pts, pts[1:])]
        worst = max(
            abs(mpmath.log(_staircase_density(y - x0, e, g, s) / _staircase_density(y - x1, e, g, s)))
            for x0, x1 in _pairs(inputs)
            for y in mids
        )
        return _to_float(worst)


def snapping(eps: float, sensitivity: float, lower: float, upper: float, inputs: Sequence[float]) -> float:
    """Exact ε of diffprivlib's ``Snapping`` (Mironov 2012, CCS, §5.2) in real arithmetic: with
    B = (upper − lower)/(2Δ), x' = clamp(x/Δ − B − lower/Δ, ±B), scale λ = 1/ε_eff,
    ε_eff = (ε − 2η)/(1 + 12Bη) (η = 2^-53, the library's effective_epsilon), Λ = the smallest power of 2 ≥ λ,
    the output is clamp(Λ·round((x' + Lap(λ))/Λ), ±B) (rescaled): an enumerated discrete law."""
    with precision_for(eps):
        bound = (_mp(upper) - _mp(lower)) / 2 / _mp(sensitivity)
        eff = (_mp(eps) - 2 * MACHINE_EPSNEG) / (1 + 12 * bound * MACHINE_EPSNEG)
        lam = 1 / eff
        grid = mpmath.mpf(2) ** mpmath.ceil(mpmath.log(lam, 2))
        kmax = int(mpmath.ceil(bound / grid))  # every k ≥ kmax clamps to +B
        table = {}
        for x in inputs:
            xs = min(max(_mp(x) / sensitivity - bound - _mp(lower) / sensitivity, -bound), bound)
            law: dict = {}
            for k in range(-kmax, kmax + 1):
                a, c = (k - mpmath.mpf(1) / 2) * grid, (k + mpmath.mpf(1) / 2) * grid
                p = (1 if k == kmax else _laplace_cdf(c - xs, lam)) - (0 if k == -kmax else _laplace_cdf(a - xs, lam))
                out = min(max(k * grid, -bound), bound)
                law[out] = law.get(out, 0) + p
            table[x] = law
        return worst_case_ratio(table).eps


# ------------------------------------------------------------------ discrete laws
def _two_sided_geometric(eps, k) -> mpmath.mpf:
    """P(N = k) of the two-sided geometric law P ∝ e^{−ε|k|}."""
    a = mpmath.exp(-_mp(eps))
    return (1 - a) / (1 + a) * a ** abs(k)


def geometric_clipped(eps: float, lower: int, upper: int, inputs: Sequence[int], fold: bool = False) -> float:
    """Exact ε of diffprivlib's ``GeometricTruncated`` (``fold=False``: x + N clipped to [lower, upper]) or
    ``GeometricFolded`` (``fold=True``: reflected at the bounds, period 2(upper − lower)), N two-sided
    geometric with P ∝ e^{−ε|k|} (sensitivity 1), integer bounds, inputs in [lower, upper], by enumeration. The truncation keeps |k| ≤ K with
    e^{−εK} < 10^-80: the neglected mass changes no ratio in the first 70 digits."""
    with precision_for(eps):
        K = int(math.ceil(190.0 / eps)) + (upper - lower) + 2
        period = 2 * (upper - lower)
        table = {}
        for x in inputs:
            law: dict = {}
            if not fold:
                a = mpmath.exp(-_mp(eps))
                # P(N ≥ m) = P(N ≤ −m) = a^m/(1+a) for every m ≥ 0: the atoms at the bounds in closed form
                law[lower] = a ** (x - lower) / (1 + a)
                law[upper] = a ** (upper - x) / (1 + a)
                for v in range(lower + 1, upper):
                    law[v] = _two_sided_geometric(eps, v - x)
            else:
                for k in range(-K, K + 1):
                    r = (x + k - lower) % period
                    v = lower + (r if r <= upper - lower else period - r)
                    law[v] = law.get(v, 0) + _two_sided_geometric(eps, k)
            table[x] = law
        return worst_case_ratio(table).eps


def exponential(eps: float, sensitivity: float, utilities: dict, monotonic: bool = False) -> float:
    """Exact ε of the exponential mechanism as diffprivlib's ``Exponential`` documents it (McSherry–Talwar 2007):
    P(r | x) ∝ exp(ε u_x(r) / ((2 − monotonic) Δ)), over all pairs of ``utilities`` {input: utility list}."""
    with precision_for(eps):
        s = _mp(eps) / _mp(sensitivity) / (2 - int(monotonic))
        table = {}
        for x, u in utilities.items():
            w = [mpmath.exp(s * _mp(v)) for v in u]
            z = mpmath.fsum(w)
            table[x] = {i: wi / z for i, wi in enumerate(w)}
        return worst_case_ratio(table).eps


def _pnf_law(scaled: Sequence, pool: Sequence[int]) -> dict:
    """Output law of permute-and-flip over the candidates ``pool`` with scaled scores ``scaled`` (candidate i
    accepted with probability exp(scaled_i − max over the pool)), enumerated over all visiting orders."""
    top = max(scaled[i] for i in pool)
    acc = {i: mpmath.exp(scaled[i] - top) for i in pool}
    law = {i: mpmath.mpf(0) for i in pool}
    orders = list(itertools.permutations(pool))
    for order in orders:
        reach = mpmath.mpf(1)
        for i in order:
            law[i] += reach * acc[i] / len(orders)
            reach *= 1 - acc[i]
    return law


def permute_and_flip(eps: float, sensitivity: float, utilities: dict, monotonic: bool = False) -> float:
    """Exact ε of permute-and-flip (McKenna & Sheldon 2020, NeurIPS, Alg. 1), diffprivlib's ``PermuteAndFlip``:
    candidates visited in a uniformly random order, r accepted with probability exp(ε(u_r − u*)/((2−m)Δ)).
    The output law is enumerated over all orders (small candidate sets)."""
    with precision_for(eps):
        s = _mp(eps) / _mp(sensitivity) / (2 - int(monotonic))
        table = {x: _pnf_law([s * _mp(v) for v in u], range(len(u))) for x, u in utilities.items()}
        return worst_case_ratio(table).eps


def peeling_permute_and_flip(scale: float, scores: dict, k: int = 1) -> float:
    """Exact ε of OpenDP's ``make_noisy_max`` (k = 1) / ``make_noisy_top_k`` under ``max_divergence`` (OpenDP
    0.16 proof document ``noisy_top_k``: ``peel_permute_and_flip``): k rounds of permute-and-flip with
    acceptance exp((y_i − y*)/scale), each over the candidates not yet released; the output is the ordered
    k-tuple. Report-noisy-max with exponential noise has the same law (Ding et al. 2021, arXiv:2105.07260).
    ``scores`` {input: score vector}; enumerated exactly (small candidate sets)."""
    with mpmath.workdps(60):
        table = {}
        for x, y in scores.items():
            scaled = [_mp(v) / _mp(scale) for v in y]
            law: dict = {(): mpmath.mpf(1)}
            for _ in range(k):
                nxt: dict = {}
                for prefix, p in law.items():
                    for i, q in _pnf_law(scaled, [j for j in range(len(y)) if j not in prefix]).items():
                        nxt[prefix + (i,)] = p * q
                law = nxt
            table[x] = {o[0] if k == 1 else o: p for o, p in law.items()}
        return worst_case_ratio(table).eps


def exponential_categorical(eps: float, distances: dict, domain: Sequence[str], inputs: Sequence[str]) -> float:
    """Exact ε of diffprivlib's ``ExponentialCategorical``: P(v | x) ∝ exp(−ε d(x, v)/(βΔ)), Δ = max d,
    β = 1 when every row's normaliser is equal ("balanced tree") else 2; ``distances`` {(a, b): d} symmetric."""

    def dist(a, b):
        return 0 if a == b else distances.get((a, b), distances.get((b, a)))

    with precision_for(eps):
        sens = _mp(max(distances.values()))
        rows = {x: [mpmath.exp(-_mp(eps) * dist(x, v) / sens) for v in domain] for x in domain}
        zs = [mpmath.fsum(r) for r in rows.values()]
        beta = 1 if all(abs(z - zs[0]) <= mpmath.mpf(10) ** -20 * zs[0] for z in zs) else 2
        table = {}
        for x in inputs:
            w = [mpmath.exp(-_mp(eps) * dist(x, v) / sens / beta) for v in domain]
            z = mpmath.fsum(w)
            table[x] = {v: wi / z for v, wi in zip(domain, w)}
        return worst_case_ratio(table).eps


# ------------------------------------------------------------------ Gaussian laws: ε at the claimed δ
def gaussian_eps_at_delta(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    """ε at δ of the Gaussian mechanism N(x, σ²) on inputs at distance Δ: the exact curve of μ-GDP with
    μ = Δ/σ (Balle & Wang 2018, Thm 8), by the project's certified :func:`accountants.gdp.gdp_eps` (rounded up)."""
    from accountants.gdp import gaussian_mu, gdp_eps

    return gdp_eps(gaussian_mu(sigma, sensitivity), delta)


def gaussian_classic_sigma(eps: float, delta: float, sensitivity: float = 1.0) -> float:
    """σ = √(2 ln(1.25/δ)) Δ/ε of the classic Gaussian mechanism (Dwork & Roth 2014, Thm A.1; diffprivlib
    ``Gaussian``), rounded to the nearest float."""
    with mpmath.workdps(50):
        return float(mpmath.sqrt(2 * mpmath.log(mpmath.mpf(1.25) / _mp(delta))) * _mp(sensitivity) / _mp(eps))


def _discrete_gaussian_delta_fn(sigma, shift: int) -> Callable:
    """``eps -> δ(ε) = Σ_k max(0, P(k) − e^ε P(k − shift))`` for the discrete Gaussian P(k) ∝ exp(−k²/(2σ²))
    (Canonne, Kamath & Steinke 2020, Thm 7), summed over |k| ≤ shift + 40σ + 40 (neglected mass < e^-800)."""
    s2 = 2 * _mp(sigma) ** 2
    K = int(mpmath.ceil(40 * _mp(sigma))) + 40 + abs(shift)
    w = {k: mpmath.exp(-(_mp(k) ** 2) / s2) for k in range(-K - abs(shift), K + abs(shift) + 1)}
    z = mpmath.fsum(w[k] for k in range(-K, K + 1))
    terms = [(w[k], w[k - shift]) for k in range(-K, K + 1) if w[k] > w[k - shift]]

    def delta(eps) -> mpmath.mpf:
        ee = mpmath.exp(_mp(eps))
        return mpmath.fsum(max(mpmath.mpf(0), p - ee * q) for p, q in terms) / z

    return delta


def discrete_gaussian_eps_at_delta(sigma: float, delta: float, shift: int = 1) -> float:
    """Smallest ε ≥ 0 with δ(ε) ≤ δ for the discrete Gaussian of scale σ on inputs ``shift`` apart, by
    bisection of :func:`_discrete_gaussian_delta_fn` (decreasing in ε) in mpmath; the upper end of the final
    bracket (width < 1e-30) is returned, rounded up to the next float."""
    from accountants.roots import round_up

    with mpmath.workdps(60):
        d, f = _mp(delta), _discrete_gaussian_delta_fn(sigma, shift)
        if f(0) <= d:
            return 0.0
        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        while f(hi) > d:
            lo, hi = hi, 2 * hi
        while hi - lo > mpmath.mpf(10) ** -30:
            mid = (lo + hi) / 2
            if f(mid) > d:
                lo = mid
            else:
                hi = mid
        return round_up(float(hi), 1)


# ------------------------------------------------------------------ piecewise-uniform outputs (quantiles)
def piecewise_uniform(laws: dict) -> float:
    """Exact ε of continuous laws with piecewise-constant densities, ``laws`` {input: [(a, b, mass), ...]}
    (mass spread uniformly on [a, b], a < b; zero-width pieces carry no mass in a density): the ratio of
    densities at the midpoints of all breakpoints (``inf`` where only one input has density)."""
    with mpmath.workdps(60):
        cuts = sorted({_mp(v) for pieces in laws.values() for a, b, _ in pieces for v in (a, b)})
        mids = [(u + v) / 2 for u, v in zip(cuts, cuts[1:])]

        def dens(pieces, y):
            return mpmath.fsum(_mp(m) / (_mp(b) - _mp(a)) for a, b, m in pieces if b > a and a < y < b)

        table = {x: {i: dens(p, y) for i, y in enumerate(mids)} for x, p in laws.items()}
        return worst_case_ratio(table).eps


def diffprivlib_quantile_law(data: Iterable[float], quant: float, eps: float, lower: float, upper: float) -> list:
    """The documented law of ``diffprivlib.tools.quantile`` (Smith 2011 via the exponential mechanism): the data
    clipped and extended by the bounds, sorted z_0 ≤ … ≤ z_{k+1}; interval i chosen with probability ∝
    (z_{i+1} − z_i)·exp(−ε|i − qk|/2), then a uniform point in it. Returns [(z_i, z_{i+1}, mass)]."""
    with mpmath.workdps(60):
        z = sorted([min(max(float(v), lower), upper) for v in data] + [lower, upper])
        k = len(z) - 2
        w = [(_mp(z[i + 1]) - z[i]) * mpmath.exp(-_mp(eps) * abs(i - _mp(quant) * k) / 2) for i in range(k + 1)]
        tot = mpmath.fsum(w)
        return [(z[i], z[i + 1], w[i] / tot) for i in range(k + 1)]


def diffprivlib_tool(name: str, eps: float, datasets: dict, lower: float, upper: float) -> float:
    """Exact ε of ``diffprivlib.tools.<name>`` on ``datasets`` {key: list of records} (its documented laws,
    diffprivlib 0.6.6 ``tools/utils.py``): ``mean`` = LaplaceTruncated(Δ = (U−L)/n, [L, U]) on the mean;
    ``sum`` = LaplaceTruncated(Δ = U−L, [nL, nU]) on the sum; ``count_nonzero`` = GeometricTruncated(Δ = 1,
    [0, n]) on the count; ``var`` = LaplaceBoundedDomain(Δ = ((U−L)/n)²(n−1), [0, (U−L)²/4]) on the variance;
    ``median`` = :func:`diffprivlib_quantile_law` at q = 1/2. Datasets must have the same size n."""
    sizes = {len(v) for v in datasets.values()}
    if len(sizes) != 1:
        raise ValueError("diffprivlib's tools use the bounded relation: datasets of one size")
    n = sizes.pop()
    clipped = {k: [min(max(float(v), lower), upper) for v in d] for k, d in datasets.items()}
    with mpmath.workdps(60):
        if name == "mean":
            vals = [mpmath.fsum(_mp(v) for v in d) / n for d in clipped.values()]
            return laplace_truncated(eps, (upper - lower) / n, lower, upper, vals)
        if name == "sum":
            vals = [mpmath.fsum(_mp(v) for v in d) for d in clipped.values()]
            return laplace_truncated(eps, upper - lower, lower * n, upper * n, vals)
        if name == "count_nonzero":
            vals = [sum(1 for v in d if v != 0) for d in datasets.values()]
            return geometric_clipped(eps, 0, n, vals)
        if name == "var":

            def var(d):
                m = mpmath.fsum(_mp(v) for v in d) / n
                return mpmath.fsum((_mp(v) - m) ** 2 for v in d) / n

            vals = [var(d) for d in clipped.values()]
            return laplace_bounded_domain(
                eps, ((upper - lower) / n) ** 2 * (n - 1), 0.0, (upper - lower) ** 2 / 4, vals
            )
        if name == "median":
            return piecewise_uniform(
                {k: diffprivlib_quantile_law(d, 0.5, eps, lower, upper) for k, d in datasets.items()}
            )
    raise ValueError(f"no calculator for diffprivlib.tools.{name}")


def bind(fn: Callable, *args, **kw) -> Callable[[float], float]:
    """``eps -> fn(eps, *args, **kw)``: a zoo case's calculator from a calculator and its fixed parameters."""
    return lambda eps: fn(eps, *args, **kw)


# ------------------------------------------------------------------ bit-vector randomised response
def bitvector_rr(f: float, inputs: Sequence[Sequence[int]]) -> float:
    """Exact ε of OpenDP's ``make_randomized_response_bitvec`` (RAPPOR's permanent randomised response,
    Erlingsson et al. 2014, §3.2 step 2): each bit independently reported truthfully with probability 1 − f/2,
    flipped with probability f/2, f ∈ (0, 1]. The output law is a product, so the log-likelihood ratio of an
    output is a sum over the bits where the inputs differ, each ±log((2−f)/f): ε = max Hamming distance ×
    log((2 − f)/f) over the ordered pairs of ``inputs`` (bit sequences of one length)."""
    if not 0 < f <= 1:
        raise ValueError(f"f must be in (0, 1], got {f!r}")
    if len({len(v) for v in inputs}) != 1:
        raise ValueError("the bit vectors must have one length")
    with mpmath.workdps(60):
        ham = max(sum(int(a) != int(b) for a, b in zip(u, v)) for u, v in _pairs(inputs))
        return _to_float(ham * mpmath.log((2 - _mp(f)) / _mp(f)))


def laplace_rounded(eps: float, sensitivity: float, inputs: Sequence[int]) -> float:
    """Exact ε of x + Lap(Δ/ε) rounded to the nearest integer (Google's ``Count``: Laplace mechanism with an
    integer result, PyDP ``pydp.algorithms.laplacian.Count``) over ordered pairs of integer ``inputs``.
    Integer bins in [min x − 2, max x + 2] are enumerated; below and above, every bin lies on one side of both
    inputs, so the likelihood ratio is constant there and each tail is one atom of the same ratio."""
    with precision_for(eps):
        b = _mp(sensitivity) / _mp(eps)
        lo, hi = min(inputs) - 2, max(inputs) + 2
        table = {}
        for x in inputs:
            law = {
                "below": _laplace_cdf(lo - mpmath.mpf(1) / 2 - x, b),
                "above": 1 - _laplace_cdf(hi + mpmath.mpf(1) / 2 - x, b),
            }
            for k in range(lo, hi + 1):
                law[k] = _laplace_cdf(k + mpmath.mpf(1) / 2 - x, b) - _laplace_cdf(k - mpmath.mpf(1) / 2 - x, b)
            table[x] = law
        return worst_case_ratio(table).eps
