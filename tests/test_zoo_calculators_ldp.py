"""True-ε calculators of the LDP zoo (privcheck/catalogue/zoo/calculators_ldp.py) against brute force.

Every calculator is compared with an independent enumeration of ALL outputs of a small case in exact
rational arithmetic (``Fraction``), written from the library's code path rather than from the calculator's
decomposition; Hadamard response is enumerated by driving the library's own ``encode_symbol`` through
every value of its random draws. A calculator with a wrong law, a wrong decomposition or a wrong
probability fails these comparisons.
"""

from __future__ import annotations

import itertools
import math
import types
from fractions import Fraction as F

import pytest

from privcheck.catalogue.zoo import calculators_ldp as cl


def brute_eps(laws: dict) -> float:
    """max over ordered input pairs and outputs of log P(o|x)/P(o|x') from exact pmfs (inf if unbounded)."""
    for law in laws.values():
        assert sum(law.values()) == 1, "brute-force law does not sum to 1"
    best = F(1)
    for a, b in itertools.permutations(laws, 2):
        for o, pa in laws[a].items():
            pb = laws[b].get(o, F(0))
            if pa > 0 and pb == 0:
                return math.inf
            if pa > 0:
                best = max(best, pa / pb)
    return math.log(best)


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


# ------------------------------------------------------------------ sketches with public row indices
HASH = {"1": 0, "2": 3, "3": 0, "4": 1}  # row 0
HASH2 = {"1": 2, "2": 2, "3": 0, "4": 1}  # row 1 (items 1, 2 collide here)
HASHES = [HASH.__getitem__, HASH2.__getitem__]


def _cms_law(x, prob, m, hashes):
    law = {}
    for j, h in enumerate(hashes):
        base = [1 if i == h(str(x)) else -1 for i in range(m)]
        for v in itertools.product((-1, 1), repeat=m):
            pr = F(1, len(hashes))
            for b, o in zip(base, v):
                pr *= prob if o != b else 1 - prob
            law[(v, j)] = pr
    return law


@pytest.mark.parametrize("eps", [0.25, 1.0, 4.0])
@pytest.mark.parametrize("items", [(1, 2), (1, 3), (1, 2, 4)])
def test_cms_matches_enumeration(eps, items):
    prob = 1 / (1 + math.exp(eps / 2))
    want = brute_eps({x: _cms_law(x, F(prob), 4, HASHES) for x in items})
    assert close(cl.cms(prob, items, HASHES), want)


def test_cms_all_rows_colliding_is_zero():
    same = [lambda s: 1, lambda s: 0]
    assert cl.cms(0.3, (1, 2), same) == 0.0 == brute_eps({x: _cms_law(x, F(0.3), 4, same) for x in (1, 2)})


@pytest.mark.parametrize("eps", [0.25, 1.0, 4.0])
def test_hcms_matches_enumeration(eps):
    from scipy.linalg import hadamard

    m = 4
    H = hadamard(m)
    prob = F(1 / (1 + math.exp(eps)))

    def law(x):
        out = {}
        for j, h in enumerate(HASHES):
            for l in range(m):  # noqa: E741
                for s in (-1, 1):
                    out[(s, j, l)] = F(1, len(HASHES) * m) * (1 - prob if s == H[l, h(str(x))] else prob)
        return out

    assert close(cl.hcms(float(prob), (1, 2), HASHES), brute_eps({x: law(x) for x in (1, 2)}))


@pytest.mark.parametrize("eps", [0.25, 1.0, 4.0])
@pytest.mark.parametrize("signs", [{"1": 1, "2": 0, "3": 1, "4": 0}, {"1": 1, "2": 1, "3": 0, "4": 0}])
def test_pcs_matches_enumeration(eps, signs):
    w = 4
    bias = F(math.exp(eps) / (1 + math.exp(eps)))
    pairs = [(HASH.__getitem__, signs.__getitem__), (HASH2.__getitem__, signs.__getitem__)]

    def law(x):
        out = {}
        for j, (h, g) in enumerate(pairs):
            loc, sign = h(str(x)), 2 * g(str(x)) - 1
            for v in itertools.product((-1, 1), repeat=w):
                pr = F(1, len(pairs))
                for i, o in enumerate(v):
                    pr *= (bias if o == sign else 1 - bias) if i == loc else F(1, 2)
                out[(v, j)] = pr
        return out

    for items in ((1, 2), (1, 3), (2, 3)):
        assert close(cl.pcs(float(bias), items, pairs), brute_eps({x: law(x) for x in items}))


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_sketch_response_matches_enumeration(eps):
    xxhash = pytest.importorskip("xxhash")

    g, seeds = max(2, int(round(math.exp(eps))) + 1), 3
    p = F(math.exp(eps) / (math.exp(eps) + g - 1))
    q = (1 - p) / (g - 1)

    def cells(x):
        return [h(str(x)) for h in HASHES]

    def law(x):
        out = {}
        for j, c in enumerate(cells(x)):
            for s in range(seeds):
                hv = xxhash.xxh32(str(c), seed=s).intdigest() % g
                for y in range(g):
                    out[((y, s), j)] = F(1, len(HASHES) * seeds) * (p if y == hv else q)
        return out

    for items in ((1, 2), (1, 3)):
        got = cl.sketch_response(float(p), float(q), items, cells, g, seeds)
        assert close(got, brute_eps({x: law(x) for x in items}))


# ------------------------------------------------------------------ Hadamard response: the library's own encoder, enumerated
def _enumerate_encoder(hr, symbol, outs, threshold):
    """pmf of ``hr.encode_symbol(symbol)`` over every value of its draws: the uniform output index (``outs``
    values) and ``random.random()`` on either side of ``threshold`` (``ra > t`` or ``ra < t``)."""
    from pure_ldp.frequency_oracles.hadamard_response.internal import k2k_hadamard as mod

    law: dict = {}
    t = F(threshold)
    for o in range(outs):
        for ra, pr in ((0.0, t), (1.0, 1 - t)):  # 0.0 is below the threshold, 1.0 above it
            rnd = types.SimpleNamespace(randint=lambda a, b, o=o: o, random=lambda ra=ra: ra)
            npr = types.SimpleNamespace(random=types.SimpleNamespace(randint=lambda a, b, o=o: o))
            saved = mod.random, mod.np
            mod.random, mod.np = rnd, npr
            try:
                y = int(hr.encode_symbol(symbol))
            finally:
                mod.random, mod.np = saved
            law[y] = law.get(y, F(0)) + F(1, outs) * pr
    return law


@pytest.mark.parametrize("eps", [0.25, 1.0, 3.0, 4.0])
def test_hadamard_response_matches_library_encoder(eps):
    pytest.importorskip("pure_ldp")
    from pure_ldp.frequency_oracles.hadamard_response.internal import k2k_hadamard as mod

    d, xs = 8, [0, 1, 5, 7]
    if eps <= 1:
        hr = mod.Hadamard_Rand_high_priv(d, eps)
        laws = {x: _enumerate_encoder(hr, x, hr.outsz, hr.pri_para) for x in xs}
        got = cl.hr_high_privacy(hr.pri_para, hr.outsz, xs)
    else:
        import numpy as np

        np.random.seed(3)
        hr = mod.Hadamard_Rand_general_original(d, eps)
        u = (2 * hr.part) / (2 * hr.part - 1 + hr.exp)
        laws = {x: _enumerate_encoder(hr, hr.permute[x], hr.outsz, u) for x in xs}
        got = cl.hr_general(u, hr.outsz, cl.hr_general_sets(hr.part, hr.partsz, hr.tailbit, hr.permute, xs))
    assert close(got, brute_eps(laws))


# ------------------------------------------------------------------ multi-freq-ldpy: chained rounds
def _grr(p, k):
    return [[p if i == j else (1 - p) / (k - 1) for j in range(k)] for i in range(k)]


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("p1,p2", [(0.6, 0.4), (0.9, 0.3), (0.35, 0.7)])
def test_chained_grr_matches_enumeration(k, p1, p2):
    a, b = _grr(F(p1), k), _grr(F(p2), k)
    laws = {x: {y: sum(a[x][z] * b[z][y] for z in range(k)) for y in range(k)} for x in range(k)}
    assert close(cl.chained_grr(p1, p2, k), brute_eps(laws))


@pytest.mark.parametrize("p1,q1,p2,q2", [(0.5, 0.12, 0.5, 0.08), (0.73, 0.27, 0.76, 0.24), (0.5, 0.3, 0.8, 0.2)])
def test_chained_unary_matches_enumeration(p1, q1, p2, q2):
    k = 3
    P1, Q1, P2, Q2 = map(F, (p1, q1, p2, q2))

    def law(x):
        out: dict = {}
        for z in itertools.product((0, 1), repeat=k):
            pz = math.prod((P1 if i == x else Q1) if bit else 1 - (P1 if i == x else Q1) for i, bit in enumerate(z))
            for y in itertools.product((0, 1), repeat=k):
                py = math.prod((P2 if zb else Q2) if yb else 1 - (P2 if zb else Q2) for zb, yb in zip(z, y))
                out[y] = out.get(y, F(0)) + pz * py
        return out

    assert close(cl.chained_unary(p1, q1, p2, q2), brute_eps({x: law(x) for x in range(k)}))


@pytest.mark.parametrize("d_bits", [1, 2, 3])
@pytest.mark.parametrize("xs", [(0, 3), (0, 1), (0, 7)])
def test_bit_flip_pm_matches_enumeration(d_bits, xs):
    k, b = 8, 4
    p1 = F(math.exp(0.5) / (math.exp(0.5) + 1))
    q1 = 1 - p1

    def law(x):
        bucket = int(x / (k / b))
        out: dict = {}
        subsets = list(itertools.combinations(range(b), d_bits))
        for js in subsets:
            for bits in itertools.product((0, 1), repeat=d_bits):
                pr = F(1, len(subsets))
                for jj, bit in zip(js, bits):
                    t = p1 if jj == bucket else q1
                    pr *= t if bit else 1 - t
                out[(js, bits)] = pr
        return out

    assert close(cl.bit_flip_pm(float(p1), float(q1), k, b, d_bits, xs), brute_eps({x: law(x) for x in xs}))


# ------------------------------------------------------------------ RS+FD
def _rsfd_brute(A, Fk, outs, d, x, x2):
    def law(t):
        out = {}
        for y in itertools.product(outs, repeat=d):
            out[y] = sum(F(1, d) * A(t[j])[y[j]] * math.prod(Fk[y[i]] for i in range(d) if i != j) for j in range(d))
        return out

    return brute_eps({0: law(x), 1: law(x2)})


def _frac_grr(p, k):
    return lambda x: {y: (p if y == x else (1 - p) / (k - 1)) for y in range(k)}


def _frac_ue(p, q, k):
    def law(x):
        return {
            y: math.prod(((p if i == x else q) if bit else 1 - (p if i == x else q)) for i, bit in enumerate(y))
            for y in itertools.product((0, 1), repeat=k)
        }

    return law


@pytest.mark.parametrize("d", [2, 3])
@pytest.mark.parametrize("pair", ["tuple", "attribute"])
def test_rs_fd_grr_matches_enumeration_and_closed_form(d, pair):
    k, eps = 3, 1.0
    amp = math.log(d * (math.exp(eps) - 1) + 1)
    p = F(math.exp(amp) / (math.exp(amp) + k - 1))
    x, x2 = (0,) * d, ((1,) * d if pair == "tuple" else (1,) + (0,) * (d - 1))
    A, Fk = _frac_grr(p, k), {y: F(1, k) for y in range(k)}
    got = cl.rs_fd([cl.grr_pmf(float(p), k)] * d, [cl.uniform_pmf(k)] * d, x, x2)
    assert close(got, _rsfd_brute(A, Fk, range(k), d, x, x2))
    q = (1 - p) / (k - 1)
    closed = math.log(p / q) if pair == "tuple" else math.log((p + (d - 1) * q) / (d * q))
    assert close(got, closed)


@pytest.mark.parametrize("fake", ["zero", "rnd"])
@pytest.mark.parametrize("x2", [(1, 1), (1, 0)])
def test_rs_fd_ue_matches_enumeration(fake, x2):
    k, d, p, q = 3, 2, F(1, 2), F(1 / (math.exp(1.3) + 1))
    A = _frac_ue(p, q, k)
    outs = list(itertools.product((0, 1), repeat=k))
    Fk = A(None) if fake == "zero" else {y: sum(A(v)[y] for v in range(k)) / k for y in outs}
    law = cl.unary_pmf(float(p), float(q), k)
    fk = law(None) if fake == "zero" else cl.mixture_pmf(law, k)
    assert close(cl.rs_fd([law] * d, [fk] * d, (0, 0), x2), _rsfd_brute(A, Fk, outs, d, (0, 0), x2))


# ------------------------------------------------------------------ plumbing
def _lib_fn(k, eps, optimal=True):
    if eps < 0:
        raise ValueError("eps")
    p = 1 / (k + eps)
    q = 2 * p
    if optimal:
        p = 0.5
    else:
        q = 1 - p
    for i in range(k):
        r = p * i
    return p, q, r


def test_library_probabilities_follows_branches_and_loops():
    assert cl.library_probabilities(_lib_fn, ["p", "q"], k=2, eps=1.0, optimal=True) == {"p": 0.5, "q": 2 / 3}
    assert cl.library_probabilities(_lib_fn, ["p", "q"], k=2, eps=1.0, optimal=False) == {"p": 1 / 3, "q": 1 - 1 / 3}
    assert cl.library_probabilities(_lib_fn, ["p", "r"], k=2, eps=1.0, optimal=True, i=3)["r"] == 1.5
    with pytest.raises(ValueError, match="cannot decide"):
        cl.library_probabilities(_lib_fn, ["p"], k=2, eps=1.0)
    with pytest.raises(ValueError, match="assigns no"):
        cl.library_probabilities(_lib_fn, ["zz"], k=2, eps=1.0, optimal=True)


def test_flip_and_unary_closed_forms():
    assert close(cl.flip_eps(1 / (1 + math.e)), 1.0)
    p, q = 0.5, 1 / (math.exp(2) + 1)
    assert close(cl.unary_pq(p, q), math.log(p * (1 - q) / (q * (1 - p))))


@pytest.mark.parametrize("module", ["pure_ldp", "multi_freq_ldpy"])
def test_every_ldp_zoo_case_has_a_finite_calculator(module):
    """Every pure-ldp and multi-freq-ldpy case carries a true-ε calculator that evaluates (no silent NaN)."""
    pytest.importorskip(module)
    pytest.importorskip("xxhash")
    import importlib

    from privcheck.catalogue import zoo

    importlib.import_module(f"privcheck.catalogue.zoo.{module}")
    prefix = f"zoo.{module}."
    entries = [e for e in zoo.ENTRIES if e.claim_id.startswith(prefix)]
    assert entries
    for e in entries:
        for c in e.cases():
            assert c.true_eps is not None, (e.claim_id, c.label)
            v = float(c.true_eps())
            assert v >= 0 and not math.isnan(v), (e.claim_id, c.label, v)


@pytest.mark.parametrize("kind", ["GRR", "UE_zero", "UE_rnd", "ADP"])
@pytest.mark.parametrize("eps", [0.25, 1.0])
def test_rs_fd_wiring_whole_tuple_is_the_amplified_epsilon(kind, eps):
    """Through the library's formulas: tuples differing in every attribute give ln(d(e^ε−1)+1) (the budget the
    library spends on the sampled attribute), tuples differing in one attribute at least ε."""
    pytest.importorskip("multi_freq_ldpy")
    from privcheck.catalogue.zoo import multi_freq_ldpy as mfl

    d, k = 2, 4
    amp = math.log(d * (math.exp(eps) - 1) + 1)
    assert math.isclose(mfl.rs_fd_eps(kind, eps, k, d), amp, rel_tol=1e-9)
    assert mfl.rs_fd_eps(kind, eps, k, d, (0, 0), (1, 0)) >= eps * (1 - 1e-9)
