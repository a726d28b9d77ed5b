"""The central-mechanism true-ε calculators (privcheck/catalogue/zoo/calculators_central.py) against
independent computations: the laws rebuilt from their sampling descriptions, evaluated by mpmath
quadrature on fine grids, brute-force enumeration, and the exact Gaussian δ(ε) formula."""

from __future__ import annotations

import itertools
import math

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcheck.catalogue.zoo import calculators_central as cc

GRID = 400


def _lap_pdf(z, b):
    return mpmath.exp(-abs(z) / b) / (2 * b)


def _grid(lo, hi, n=GRID):
    return [mpmath.mpf(lo) + (mpmath.mpf(hi) - lo) * i / n for i in range(n + 1)]


def _sup_log_ratio(f0, f1, ys):
    return max(abs(mpmath.log(f0(y) / f1(y))) for y in ys)


# ------------------------------------------------------------------ Laplace family
@pytest.mark.parametrize("eps", [0.25, 1.0, 4.0])
@pytest.mark.parametrize("pair", [(0.0, 1.0), (0.2, 0.7)])
def test_laplace_truncated_against_quadrature(eps, pair):
    b, (x0, x1) = 1.0 / eps, pair
    atoms = []
    for x in pair:  # atoms by quadrature of the Laplace density beyond each bound
        atoms.append(
            (
                mpmath.quad(lambda t: _lap_pdf(t - x, b), [-mpmath.inf, min(0, x), 0]),
                mpmath.quad(lambda t: _lap_pdf(t - x, b), [1, max(1, x), mpmath.inf]),
            )
        )
    inner = _sup_log_ratio(lambda y: _lap_pdf(y - x0, b), lambda y: _lap_pdf(y - x1, b), _grid(0, 1))
    want = max(inner, abs(mpmath.log(atoms[0][0] / atoms[1][0])), abs(mpmath.log(atoms[0][1] / atoms[1][1])))
    assert cc.laplace_truncated(eps, 1.0, 0.0, 1.0, list(pair)) == pytest.approx(float(want), rel=1e-9)


def _folded_by_images(y, x, b, lo, hi, terms=50):
    D = hi - lo
    return mpmath.fsum(
        _lap_pdf(y + 2 * k * D - x, b) + _lap_pdf(2 * lo - y + 2 * k * D - x, b) for k in range(-terms, terms + 1)
    )


@pytest.mark.parametrize("eps", [0.25, 1.0, 4.0])
@pytest.mark.parametrize("pair", [(0.0, 1.0), (0.3, 0.8)])
def test_laplace_folded_against_image_sum(eps, pair):
    b, (x0, x1) = 1.0 / eps, pair
    want = _sup_log_ratio(
        lambda y: _folded_by_images(y, x0, b, 0, 1),
        lambda y: _folded_by_images(y, x1, b, 0, 1),
        _grid(0, 1, 100) + [mpmath.mpf(x0), mpmath.mpf(x1)],
    )
    got = cc.laplace_folded(eps, 1.0, 0.0, 1.0, list(pair))
    assert got == pytest.approx(float(want), rel=1e-9)
    if pair == (0.0, 1.0):  # closed form at the two bounds
        assert got == pytest.approx(math.log(math.cosh(eps)), rel=1e-12)


@pytest.mark.parametrize(
    "eps, sens, pair",
    [(0.25, 1.0, (0.0, 1.0)), (1.0, 0.5, (0.0, 0.5)), (4.0, 0.3, (0.7, 1.0)), (1.0, 0.09, (0.0, 0.09))],
)
def test_laplace_bounded_domain_against_quadrature(eps, sens, pair):
    m = pytest.importorskip("diffprivlib.mechanisms")  # the library's own float bisection: an independent check
    b = cc.bounded_domain_scale(eps, sens, 0.0, 1.0)

    lib = m.LaplaceBoundedDomain(epsilon=eps, sensitivity=sens, lower=0.0, upper=1.0)
    assert float(sens / b) == pytest.approx(lib.effective_epsilon(), rel=1e-9)
    (x0, x1) = pair
    c0, c1 = (mpmath.quad(lambda t: _lap_pdf(t - x, b), [0, x, 1]) for x in pair)
    want = _sup_log_ratio(lambda y: _lap_pdf(y - x0, b) / c0, lambda y: _lap_pdf(y - x1, b) / c1, _grid(0, 1))
    assert cc.laplace_bounded_domain(eps, sens, 0.0, 1.0, list(pair)) == pytest.approx(float(want), rel=1e-9)


@pytest.mark.parametrize("eps, delta", [(0.25, 1e-5), (1.0, 1e-3), (4.0, 1e-5)])
def test_laplace_bounded_noise_delta_curve(eps, delta):
    """δ(ε') of the two conditioned laws by quadrature: ≤ δ at the returned ε, > δ just below it."""
    b = mpmath.mpf(1) / eps
    B = b * mpmath.log(1 + (mpmath.exp(eps) - 1) / (2 * delta))
    C = mpmath.quad(lambda t: _lap_pdf(t, b), [-B, 0, B])

    def p(y, x):
        return _lap_pdf(y - x, b) / C if -B <= y - x <= B else mpmath.mpf(0)

    def dlt(e):
        f = lambda y: max(mpmath.mpf(0), p(y, 0) - mpmath.exp(e) * p(y, 1))  # noqa: E731
        return mpmath.quad(f, [-B, 1 - B, 0, 0.5, 1, B, B + 1])

    got = cc.laplace_bounded_noise(eps, delta, 1.0)
    assert dlt(got) <= delta * (1 + 1e-8)
    assert dlt(got * 0.99) > delta * 1.001


def _staircase_pdf(z, eps, gamma):
    """Density from diffprivlib's sampling description: sign × (G + γU) w.p. γ/(γ+(1−γ)e^{−ε}), else
    sign × (G + γ + (1−γ)U), G geometric with P(G = g) = (1 − e^{−ε}) e^{−εg}."""
    a = abs(z)
    g = mpmath.floor(a)
    pg = (1 - mpmath.exp(-eps)) * mpmath.exp(-eps * g)
    p0 = gamma / (gamma + (1 - gamma) * mpmath.exp(-eps))
    inner = p0 / gamma if a - g < gamma else (1 - p0) / (1 - gamma)
    return pg * inner / 2


@pytest.mark.parametrize("eps", [0.25, 1.0, 4.0])
@pytest.mark.parametrize("pair", [(0.0, 1.0), (0.0, 0.4)])
def test_staircase_against_sampler_density(eps, pair):
    gamma = 1 / (1 + mpmath.exp(eps / 2))
    x0, x1 = pair
    ys = [y + mpmath.mpf(1) / 1e7 for y in _grid(-3, 4, 2800)]
    want = _sup_log_ratio(
        lambda y: _staircase_pdf(y - x0, eps, gamma), lambda y: _staircase_pdf(y - x1, eps, gamma), ys
    )
    assert cc.staircase(eps, 1.0, list(pair)) == pytest.approx(float(want), rel=1e-9)


@pytest.mark.parametrize("eps", [0.25, 1.0, 4.0, 9.0])
def test_snapping_against_quadrature(eps):
    """Output masses by quadrature of the Laplace density over each output's preimage."""
    eta = mpmath.mpf(2) ** -53
    lam = 1 / ((eps - 2 * eta) / (1 + 12 * 0.5 * eta))
    grid = mpmath.mpf(2) ** mpmath.ceil(mpmath.log(lam, 2))
    table = {}
    for x, xs in ((0.0, -0.5), (1.0, 0.5)):
        law = {}
        for k in range(-50, 51):
            out = min(max(k * grid, -0.5), 0.5)
            a, c = (k - 0.5) * grid, (k + 0.5) * grid
            if k == -50:
                a = -mpmath.inf
            if k == 50:
                c = mpmath.inf
            law[out] = law.get(out, 0) + mpmath.quad(
                lambda t: _lap_pdf(t - xs, lam), [a, xs, c] if a < xs < c else [a, c]
            )
        table[x] = law
    want = max(abs(mpmath.log(table[0.0][o] / table[1.0][o])) for o in table[0.0])
    assert cc.snapping(eps, 1.0, 0.0, 1.0, [0.0, 1.0]) == pytest.approx(float(want), rel=1e-9)


@settings(max_examples=25, deadline=None)
@given(eps=st.floats(0.05, 6.0), u=st.floats(0.0, 1.0), v=st.floats(0.0, 1.0), sens=st.floats(0.1, 1.0))
def test_laplace_family_never_exceeds_epsilon(eps, u, v, sens):
    """Post-processing of Laplace (truncation, folding, snapping) and Holohan's calibration: ε' ≤ ε on every
    pair at distance ≤ Δ; the truncated law attains ε only at distance Δ."""
    x0, x1 = u, u + (v - 0.5) * 2 * sens
    if not 0.0 <= x1 <= 1.0 or x0 == x1:
        return
    for fn in (cc.laplace_truncated, cc.laplace_folded, cc.laplace_bounded_domain):
        assert fn(eps, sens, 0.0, 1.0, [x0, x1]) <= eps * (1 + 1e-12)
    assert cc.laplace_truncated(eps, sens, 0.0, 1.0, [x0, x1]) == pytest.approx(eps * abs(x1 - x0) / sens, rel=1e-9)


# ------------------------------------------------------------------ discrete laws
def _brute_geometric(eps, x, lo, hi, fold, K=3000):
    def fold_fn(v):
        while v < lo or v > hi:
            v = 2 * lo - v if v < lo else 2 * hi - v
        return v

    a = mpmath.exp(-mpmath.mpf(eps))
    law = {}
    for k in range(-K, K + 1):
        v = x + k
        out = fold_fn(v) if fold else min(max(v, lo), hi)
        law[out] = law.get(out, 0) + (1 - a) / (1 + a) * a ** abs(k)
    return law


@pytest.mark.parametrize("eps", [0.25, 1.0, 4.0])
@pytest.mark.parametrize("fold", [False, True])
@pytest.mark.parametrize("pair", [(0, 1), (2, 3), (0, 5)])
def test_geometric_clipped_against_brute_force(eps, fold, pair):
    p0, p1 = (_brute_geometric(eps, x, 0, 5, fold) for x in pair)
    want = max(abs(mpmath.log(p0[o] / p1[o])) for o in p0)
    assert cc.geometric_clipped(eps, 0, 5, list(pair), fold=fold) == pytest.approx(float(want), rel=1e-12)


def test_exponential_closed_form():
    """Utilities [1,0,0] vs [0,1,0], sensitivity 1: equal normalisers, ratio e^{ε/2} (e^{ε} if monotonic)."""
    u = {0: [1.0, 0.0, 0.0], 1: [0.0, 1.0, 0.0]}
    for eps in (0.25, 1.0, 4.0):
        assert cc.exponential(eps, 1.0, u) == pytest.approx(eps / 2, rel=1e-12)
        assert cc.exponential(eps, 1.0, u, monotonic=True) == pytest.approx(eps, rel=1e-12)


def _pnf_by_subsets(u, eps):
    """P(r) of permute-and-flip: r is reached after a uniformly random subset S of the others of size m
    (probability m!(n−1−m)!/n!) all rejected."""
    n, top = len(u), max(u)
    acc = [mpmath.exp(eps / 2 * (v - top)) for v in u]
    out = {}
    for r in range(n):
        others = [j for j in range(n) if j != r]
        tot = mpmath.mpf(0)
        for m in range(n):
            for S in itertools.combinations(others, m):
                w = mpmath.factorial(m) * mpmath.factorial(n - 1 - m) / mpmath.factorial(n)
                tot += w * mpmath.fprod(1 - acc[j] for j in S) * acc[r]
        out[r] = tot
    return out


@pytest.mark.parametrize("eps", [0.25, 1.0, 4.0])
def test_permute_and_flip_against_subset_formula(eps):
    u = {0: [1.0, 0.0, 0.0, 0.5], 1: [0.0, 1.0, 0.0, 0.5]}
    p0, p1 = _pnf_by_subsets(u[0], eps), _pnf_by_subsets(u[1], eps)
    assert float(mpmath.fsum(p0.values())) == pytest.approx(1.0, rel=1e-12)
    want = max(abs(mpmath.log(p0[o] / p1[o])) for o in p0)
    got = cc.permute_and_flip(eps, 1.0, u)
    assert got == pytest.approx(float(want), rel=1e-12)
    assert got <= eps  # permute-and-flip is ε-DP (McKenna & Sheldon 2020, Thm 1)


def test_exponential_categorical_balanced_and_unbalanced():
    dom = ["a", "b", "c"]
    bal = {("a", "b"): 1.0, ("a", "c"): 1.0, ("b", "c"): 1.0}
    assert cc.exponential_categorical(1.0, bal, dom, ["a", "b"]) == pytest.approx(1.0, rel=1e-12)
    unbal = {("a", "b"): 1.0, ("a", "c"): 2.0, ("b", "c"): 1.0}  # rows differ: β = 2, ε/2 per unit of d/Δ
    p = {
        x: [math.exp(-1.0 * (0 if x == v else unbal.get((x, v), unbal.get((v, x)))) / 2 / 2) for v in dom] for x in dom
    }
    want = max(abs(math.log(p[x][i] / sum(p[x]) / (p[y][i] / sum(p[y])))) for x in dom for y in dom for i in range(3))
    assert cc.exponential_categorical(1.0, unbal, dom, dom) == pytest.approx(want, rel=1e-9)


# ------------------------------------------------------------------ Gaussian laws
def _gauss_delta(eps, sigma):
    eps, s = mpmath.mpf(eps), mpmath.mpf(sigma)
    return mpmath.ncdf(1 / (2 * s) - eps * s) - mpmath.exp(eps) * mpmath.ncdf(-1 / (2 * s) - eps * s)


@pytest.mark.parametrize("sigma", [0.5, 2.0, 20.0])
def test_gaussian_eps_at_delta_is_the_exact_root(sigma):
    got = cc.gaussian_eps_at_delta(sigma, 1e-5)
    assert _gauss_delta(got, sigma) <= 1e-5
    assert _gauss_delta(got * (1 - 1e-8), sigma) > 1e-5


def test_classic_gaussian_is_loose():
    """Dwork–Roth σ is valid but not tight at ε ≤ 1: the exact ε at δ is below the claim."""
    for eps in (0.25, 1.0):
        sigma = cc.gaussian_classic_sigma(eps, 1e-5)
        assert sigma == pytest.approx(math.sqrt(2 * math.log(1.25e5)) / eps, rel=1e-15)
        assert _gauss_delta(eps, sigma) < 1e-5
        assert cc.gaussian_eps_at_delta(sigma, 1e-5) < eps


def _dg_delta(eps, sigma):
    """δ(ε) of the discrete Gaussian with shift 1 by mpmath.nsum over all integers."""
    w = lambda k: mpmath.exp(-(mpmath.mpf(k) ** 2) / (2 * mpmath.mpf(sigma) ** 2))  # noqa: E731
    z = mpmath.nsum(w, [-mpmath.inf, mpmath.inf])
    kstar = int(mpmath.floor((1 - 2 * mpmath.mpf(sigma) ** 2 * eps) / 2))  # P(k) > e^ε P(k−1) iff k ≤ k*
    return mpmath.nsum(lambda k: w(k) - mpmath.exp(eps) * w(k - 1), [-mpmath.inf, kstar]) / z


@pytest.mark.parametrize("sigma", [0.7, 3.0])
def test_discrete_gaussian_against_nsum(sigma):
    got = cc.discrete_gaussian_eps_at_delta(sigma, 1e-4)
    assert _dg_delta(got, sigma) <= 1e-4 * (1 + 1e-12)
    assert _dg_delta(got * (1 - 1e-6), sigma) > 1e-4
    assert got < cc.gaussian_eps_at_delta(sigma, 1e-4) * 1.05  # close to the continuous curve at σ ≫ 1/2


# ------------------------------------------------------------------ tools (documented laws vs the library)
def test_median_law_matches_the_library():
    """diffprivlib.tools.median's interval masses (:func:`diffprivlib_quantile_law`) against 4000 library
    draws: every interval's count within a Bonferroni-corrected Clopper–Pearson interval of its mass."""
    import numpy as np

    tools = pytest.importorskip("diffprivlib.tools")

    from privcheck.base.stats import clopper_pearson

    data, n = [0.1, 0.2, 0.2, 0.6, 0.9], 4000
    law = cc.diffprivlib_quantile_law(data, 0.5, 1.0, 0.0, 1.0)
    rs = np.random.RandomState(7)
    draws = np.array([tools.median(data, epsilon=1.0, bounds=(0.0, 1.0), random_state=rs) for _ in range(n)])
    pieces = [(a, b, m) for a, b, m in law if b > a]
    for a, b, m in pieces:
        k = int(np.sum((draws >= a) & (draws < b)))
        lo, hi = clopper_pearson(k, n, 0.001 / len(pieces))
        assert lo <= float(m) <= hi, (a, b, float(m), k / n)


def test_tools_dispatch_matches_mechanism_calculators():
    data = {0: [0.0] * 10, 1: [0.0] * 9 + [1.0]}
    assert cc.diffprivlib_tool("mean", 1.0, data, 0.0, 1.0) == cc.laplace_truncated(1.0, 0.1, 0.0, 1.0, [0.0, 0.1])
    assert cc.diffprivlib_tool("sum", 1.0, data, 0.0, 1.0) == cc.laplace_truncated(1.0, 1.0, 0.0, 10.0, [0.0, 1.0])
    assert cc.diffprivlib_tool("count_nonzero", 1.0, data, 0.0, 1.0) == cc.geometric_clipped(1.0, 0, 10, [0, 1])
    # median of these two datasets: one interval [0, 1] of positive width in both, uniform output: ε = 0
    assert cc.diffprivlib_tool("median", 1.0, data, 0.0, 1.0) == 0.0
    other = {0: [0.2, 0.4, 0.6], 1: [0.2, 0.4, 0.9]}
    assert 0.0 < cc.diffprivlib_tool("median", 1.0, other, 0.0, 1.0) <= 1.0
    with pytest.raises(ValueError, match="one size"):
        cc.diffprivlib_tool("mean", 1.0, {0: [0.0], 1: [0.0, 1.0]}, 0.0, 1.0)


def test_zoo_cases_carry_the_calculators():
    from privcheck.catalogue.zoo import ENTRIES

    rows = [
        (e.claim_id, c) for e in ENTRIES if e.claim_id.startswith("zoo.diffprivlib") for c in e.cases() if not c.outside
    ]
    missing = sorted({cid for cid, c in rows if c.true_eps is None})
    assert missing == [], missing


# ------------------------------------------------------------------ OpenDP selection laws
def _rnm_exponential(scores, scale):
    """P(argmax = i) of report-noisy-max with Exp(scale) noise, by quadrature: ∫ f_i(t) Π_{j≠i} F_j(t) dt."""

    def pdf(t, u):
        return mpmath.exp(-(t - u) / scale) / scale if t >= u else mpmath.mpf(0)

    def cdf(t, u):
        return 1 - mpmath.exp(-(t - u) / scale) if t >= u else mpmath.mpf(0)

    pts = sorted(set(scores)) + [mpmath.inf]
    return [
        mpmath.quad(lambda t: pdf(t, u) * mpmath.fprod(cdf(t, v) for j, v in enumerate(scores) if j != i), pts)
        for i, u in enumerate(scores)
    ]


@pytest.mark.parametrize("scale", [0.5, 2.0, 8.0])
def test_noisy_max_equals_report_noisy_max_with_exponential_noise(scale):
    s0, s1 = [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]
    p0, p1 = _rnm_exponential(s0, scale), _rnm_exponential(s1, scale)
    want = max(abs(mpmath.log(a / b)) for a, b in zip(p0, p1))
    assert cc.peeling_permute_and_flip(scale, {0: s0, 1: s1}) == pytest.approx(float(want), rel=1e-9)


def test_noisy_top_k_law_matches_opendp():
    """The peeled permute-and-flip law of ordered pairs against 3000 draws of OpenDP's make_noisy_top_k (OS
    entropy: not seedable, so the family-wise error is set to 1e-6)."""
    import numpy as np

    dp = pytest.importorskip("opendp.prelude")
    from privcheck.base.stats import clopper_pearson

    dp.enable_features("contrib")
    scores, scale, n = [1.0, 0.0, 0.0, 0.5], 1.0, 3000
    m = dp.m.make_noisy_top_k(
        dp.vector_domain(dp.atom_domain(T=float, nan=False)),
        dp.linf_distance(T=float),
        dp.max_divergence(),
        k=2,
        scale=scale,
    )
    draws = [tuple(m(scores)) for _ in range(n)]
    scaled = [mpmath.mpf(v) / scale for v in scores]
    outcomes = list(itertools.permutations(range(4), 2))
    first = cc._pnf_law(scaled, range(4))
    for a, b in outcomes:
        p = first[a] * cc._pnf_law(scaled, [j for j in range(4) if j != a])[b]
        lo, hi = clopper_pearson(sum(1 for d in draws if d == (a, b)), n, 1e-6 / len(outcomes))
        assert lo <= float(p) <= hi, ((a, b), float(p))
    assert np.isclose(cc.peeling_permute_and_flip(scale, {0: scores, 1: scores}, k=2), 0.0)


# ------------------------------------------------------------------ bit-vector randomised response
def _bitvec_law(x, f):
    """The full product law over {0,1}^len(x): bit kept with probability 1 − f/2."""
    keep, flip = 1 - mpmath.mpf(f) / 2, mpmath.mpf(f) / 2
    return {
        y: mpmath.fprod(keep if a == b else flip for a, b in zip(x, y))
        for y in itertools.product((0, 1), repeat=len(x))
    }


@pytest.mark.parametrize("f", [0.1, 0.5, 0.95, 1.0])
def test_bitvector_rr_against_enumeration(f):
    from privcheck.base.exact import worst_case_ratio

    inputs = [(1, 1, 0, 0, 0, 0, 0, 0), (0, 0, 1, 1, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0, 0, 0)]
    want = worst_case_ratio({x: _bitvec_law(x, f) for x in inputs}).eps
    assert cc.bitvector_rr(f, inputs) == pytest.approx(want, rel=1e-12, abs=1e-15)


def test_bitvector_rr_matches_the_opendp_map_and_rejects_bad_input():
    pytest.importorskip("opendp")
    from privcheck.catalogue.zoo import opendp as zo

    for eps in (0.25, 1.0, 4.0):
        f = zo._bitvec_f(eps)
        assert cc.bitvector_rr(f, zo.BITVEC_INPUTS) == pytest.approx(float(zo._bitvec_measurement(f).map(1)), rel=1e-12)
        # weight max_weight + 1: the documented per-bit law on these inputs exceeds the map by (2m + 2)/(2m)
        assert cc.bitvector_rr(f, zo.BITVEC_OUTSIDE) == pytest.approx(
            eps * (2 * zo.MAX_WEIGHT + 2) / (2 * zo.MAX_WEIGHT), rel=1e-9
        )
    with pytest.raises(ValueError, match="f must be"):
        cc.bitvector_rr(0.0, zo.BITVEC_INPUTS)


def test_bitvec_adapter_returns_the_library_output_as_packed_rows():
    """f = 1: every bit is a fair coin (RAPPOR), so 4000 decoded draws have per-bit means near 1/2; f close to 0
    keeps the input (the decoding is in the right bit order)."""
    import numpy as np

    pytest.importorskip("opendp")
    from privcheck.catalogue.zoo import opendp as zo

    x = zo.BITVEC_INPUTS[0]
    out = np.asarray(zo.BitvecRR(1e-9)(x, 50, None))
    assert out.shape == (50, zo.BITS) and np.all(out == np.array(x, dtype=np.uint8))
    coins = np.asarray(zo.BitvecRR(1.0)(x, 4000, None))
    assert np.all(np.abs(coins.mean(axis=0) - 0.5) < 0.05)


@pytest.mark.parametrize("eps", [0.25, 1.0, 4.0])
@pytest.mark.parametrize("pair", [(10, 11), (3, 5)])
def test_laplace_rounded_against_quadrature(eps, pair):
    """Every integer bin in a wide window by quadrature of the Laplace density (tails far out included)."""
    b = 1.0 / eps
    x0, x1 = pair
    lo, hi = min(pair) - 25, max(pair) + 25

    def mass(k, x):
        return mpmath.quad(
            lambda t: _lap_pdf(t - x, b), [k - 0.5, k + 0.5] if not k - 0.5 < x < k + 0.5 else [k - 0.5, x, k + 0.5]
        )

    want = max(abs(mpmath.log(mass(k, x0) / mass(k, x1))) for k in range(lo, hi + 1))
    assert cc.laplace_rounded(eps, 1.0, list(pair)) == pytest.approx(float(want), rel=1e-9)
