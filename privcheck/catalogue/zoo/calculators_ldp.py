"""True-ε calculators for the LDP zoo libraries (pure-ldp 1.1.2, multi-freq-ldpy 0.2.5).

Each calculator computes the exact ε of the law a library *documents* (its probability formulas, evaluated
as the library evaluates them, in float64; the floats are then exact inputs to mpmath arithmetic at the
precision :func:`privcheck.base.exact.precision_for` gives). Public constants of a protocol (the server's hash
functions, the permutation of Hadamard response) are inputs: the ε is that of the reports the client
sends, index columns included. The uniform draws are taken as real uniforms (the 2⁻⁵³ grid of
``random()`` is ignored). Like :mod:`privcheck.catalogue.zoo.calculators`, a gap between a calculator
and a certified bound above it is the code departing from its documented law (a finding).

The pieces reused: :func:`estimators.oracles.unary_exact` (unary encoding), :func:`privcheck.base.exact.worst_case_ratio`
(a full output table) and :func:`library_probabilities` (the library's own formulas, read from its source).
"""

from __future__ import annotations

import ast
import inspect
import itertools
import math
import textwrap
from typing import Callable, Hashable, Iterable, Mapping, Sequence

import mpmath

from estimators import oracles
from privcheck.base.exact import precision_for, worst_case_ratio

PURE_LDP = "pure-ldp 1.1.2 (Cormode, Maddock et al.)"
MFL = "multi-freq-ldpy 0.2.5 (Arcolezi et al.)"


# ------------------------------------------------------------------ reading the library's formulas
def library_probabilities(fn: Callable, names: Sequence[str], **env) -> dict[str, float]:
    """The values the library function ``fn`` assigns to ``names``, computed by its own source lines.

    ``fn``'s source (numba functions: their ``py_func``) is walked in order with ``np`` = numpy and the
    arguments ``env`` bound (e.g. ``k``, ``eps_perm``, ``eps_1``, ``optimal``): assignments ``name = expr``
    to one of ``names`` are evaluated; ``if`` tests are evaluated and only the branch taken is walked; a
    ``for`` body is walked once with its loop variable taken from ``env``; nothing else runs (no random
    draws, no raise). So a calculator uses the library's formulas as written (no transcription). Raises
    ``ValueError`` if a name is never assigned or a branch that assigns one cannot be decided from ``env``.
    """
    import numpy as np

    tree = ast.parse(textwrap.dedent(inspect.getsource(getattr(fn, "py_func", fn))))
    ns: dict = {"np": np, **env}
    wanted = set(names)

    def assigns(node) -> bool:
        return any(
            isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id in wanted for t in n.targets)
            for n in ast.walk(node)
        )

    def run(expr):
        return eval(compile(ast.Expression(expr), fn.__name__, "eval"), ns)  # noqa: S307 - the library's source

    def walk(stmts) -> None:
        for st in stmts:
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                if st.targets[0].id in wanted:
                    ns[st.targets[0].id] = run(st.value)
            elif isinstance(st, ast.If):
                try:
                    taken = bool(run(st.test))
                except NameError:
                    if assigns(st):
                        raise ValueError(f"{fn.__name__}: cannot decide `{ast.unparse(st.test)}` from {sorted(env)}")
                    continue
                walk(st.body if taken else st.orelse)
            elif isinstance(st, ast.For) and isinstance(st.target, ast.Name) and st.target.id in ns:
                walk(st.body)
            elif isinstance(st, ast.FunctionDef):
                walk(st.body)
            elif assigns(st):
                raise ValueError(f"{fn.__name__}: an assignment to {sorted(wanted)} sits where it cannot be followed")

    walk(tree.body)
    missing = [n for n in names if n not in ns]
    if missing:
        raise ValueError(f"{fn.__name__} assigns no {missing}: the library changed, the calculator needs updating")
    return {n: ns[n] for n in names}


def _mp(x) -> mpmath.mpf:
    return mpmath.mpf(float(x)) if not isinstance(x, mpmath.mpf) else x


def _log_ratio(a, b) -> float:
    """log(a/b) of two probabilities (inf if only ``b`` is 0, 0 if both are)."""
    a, b = _mp(a), _mp(b)
    if a <= 0:
        return 0.0
    return math.inf if b <= 0 else float(mpmath.log(a / b))


def flip_eps(flip: float) -> float:
    """ε of binary randomised response that flips w.p. ``flip`` in (0, 1/2]: log((1 − flip)/flip)."""
    with precision_for(abs(math.log((1 - flip) / flip)) + 1):
        return _log_ratio(1 - _mp(flip), flip)


def unary_pq(p, q) -> float:
    """ε of unary encoding with own-bit probability ``p`` and other-bit probability ``q`` (any numbers)."""
    with precision_for(abs(math.log(float(p) / float(q))) + 1):
        return oracles.unary_exact(_mp(p), _mp(q)).eps


# ------------------------------------------------------------------ public-index mixtures (sketches, hashing)
def separated_rows(items: Iterable[Hashable], keys: Callable[[Hashable], Sequence[Hashable]], row_eps: float) -> float:
    """ε of a report (row index j, R(key_j(x))) where j is public with a law independent of x, and R is one
    randomiser whose ε between two distinct keys is ``row_eps`` (and 0 between equal keys).

    The ratio of an output (j, r) is that of row j, so ε = ``row_eps`` if some row separates some pair of
    ``items`` (``keys(x)[j] != keys(x')[j]``), else 0. ``keys(x)``: the per-row keys of ``x`` (hash values).
    """
    rows = [tuple(keys(x)) for x in items]
    for a, b in itertools.combinations(rows, 2):
        if any(u != v for u, v in zip(a, b)):
            return row_eps
    return 0.0


def cms(prob: float, items, hashes: Sequence[Callable[[str], int]]) -> float:
    """Apple count-mean sketch (pure-ldp ``apple_cms/cms_client.py``, ``CMSClient``; Apple DP team 2017):
    row j uniform, v = −1 except v[h_j(x)] = +1, every coordinate flipped w.p. ``prob`` = 1/(1+e^{ε/2});
    report (v, j). A separating row is a unary encoding with p = 1 − prob, q = prob: ε = 2 log((1−prob)/prob)."""
    return separated_rows(items, lambda x: [h(str(x)) for h in hashes], unary_pq(1 - _mp(prob), prob))


def hcms(prob: float, items, hashes: Sequence[Callable[[str], int]]) -> float:
    """Hadamard count-mean sketch (``CMSClient(is_hadamard=True)``): report (b·H[l, h_j(x)], j, l) with j, l
    uniform and b = −1 w.p. ``prob`` = 1/(1+e^ε). Distinct Hadamard columns differ in half the rows l, where
    the report is binary RR: ε = log((1−prob)/prob) if a row j separates the items."""
    return separated_rows(items, lambda x: [h(str(x)) for h in hashes], flip_eps(prob))


def pcs(bias: float, items, hashes: Sequence[tuple]) -> float:
    """Private count sketch (pure-ldp ``priv_count_sketch/pcs_client.py``, ``PCSClient``; Charikar et al. 2004,
    Bassily–Smith 2015 randomiser): row j uniform, w uniform ±1 bits except bit h_j(x), which is
    g_j(x)·(+1 w.p. ``bias`` = e^ε/(1+e^ε), else −1); report (bits, j). Keys (h_j, g_j) equal: ratio 1;
    same cell, other sign: bias/(1−bias); other cells: (2·bias)·(1/(2(1−bias))) = bias/(1−bias)."""
    return separated_rows(items, lambda x: [(h(str(x)), g(str(x))) for h, g in hashes], flip_eps(1 - _mp(bias)))


def sketch_response(p: float, q: float, items, cells: Callable[[Hashable], Sequence[int]], g: int, seeds: int) -> float:
    """Sketch response (pure-ldp ``sketch_response/sketch_response_client.py``, ``SketchResponseClient`` with its
    default FastLH client, ``local_hashing/fast_lh_client.py``): row j uniform, cell c = h_j(x), seed s uniform in
    [0, ``seeds``), report ((GRR_g(xxh32(str(c), s) mod g), s), j) with GRR keep ``p`` and other-value ``q``
    (``LHClient.p``/``q``; Wang et al. 2017 Sec. 4.4). ``cells(x)``: the k cells of x. Rows (j, s) separate x, x'
    when their hash values differ; such a row has ε = log(p/q)."""
    import xxhash

    def keys(x):
        return [xxhash.xxh32(str(c), seed=s).intdigest() % g for c in cells(x) for s in range(seeds)]

    with precision_for(abs(math.log(p / q)) + 1):
        return separated_rows(items, keys, _log_ratio(p, q))


def hr_high_privacy(flip: float, K: int, xs: Sequence[int]) -> float:
    """Hadamard response, high-privacy regime (pure-ldp ``hadamard_response/internal/k2k_hadamard.py``,
    ``Hadamard_Rand_high_priv``; Acharya, Sun, Zhang 2019, Sec. 3): y uniform in C_x = {y : H_K[x+1, y] = +1}
    w.p. 1 − ``flip``, else uniform outside. Exact ε by enumeration of the K outputs for the indices ``xs``."""
    import numpy as np

    ys = np.arange(K)
    half = mpmath.mpf(K) / 2
    with precision_for(abs(math.log((1 - flip) / flip)) + 1):
        table = {
            x: {
                int(y): ((1 - _mp(flip)) if inside else _mp(flip)) / half
                for y, inside in zip(ys, oracles.hr_in_set(x, ys).tolist())
            }
            for x in xs
        }
        return worst_case_ratio(table).eps


def hr_general(u: float, K: int, sets: Mapping[int, set]) -> float:
    """Hadamard response, general regime (``Hadamard_Rand_general_original``, Acharya, Sun, Zhang 2019, Sec. 4):
    w.p. ``u`` = 2B/(2B−1+e^ε) a uniform output in [K], else a uniform element of S_x (the +1 entries of
    x's Hadamard row inside x's block, all of one size). ``sets``: input → S_x. Exact ε by enumeration."""
    size = {len(s) for s in sets.values()}
    if len(size) != 1:
        raise ValueError("the sets S_x of Hadamard response must all have one size")
    half = size.pop()
    with precision_for(10.0):
        base, extra = _mp(u) / K, (1 - _mp(u)) / half
        table = {x: {y: base + (extra if y in s else 0) for y in range(K)} for x, s in sets.items()}
        return worst_case_ratio(table).eps


def hr_general_sets(part: int, partsz: int, tailbit: int, permute: Sequence[int], xs: Sequence[int]) -> dict:
    """S_x of ``Hadamard_Rand_general_original.encode_symbol(permute[x])``: x' = permute[x] lives in block
    x' // (partsz−1), row x' % (partsz−1) + 1 of H_partsz; S_x = the columns of that block where the row is +1."""
    out = {}
    for x in xs:
        v = int(permute[x])
        block, row = v // (partsz - 1), v % (partsz - 1) + 1
        out[x] = {(block << tailbit) + pos for pos in range(partsz) if bin(row & pos).count("1") % 2 == 0}
    if len(out) and max(max(s) for s in out.values()) >= part * partsz:
        raise ValueError("an input falls outside Hadamard response's output alphabet")
    return out


# ------------------------------------------------------------------ multi-freq-ldpy: chained (longitudinal) randomisers
def _grr_matrix(p, k: int) -> list[list[mpmath.mpf]]:
    p = _mp(p)
    q = (1 - p) / (k - 1)
    return [[p if i == j else q for j in range(k)] for i in range(k)]


def chained_grr(p1, p2, k: int, xs: Sequence[int] | None = None) -> float:
    """Exact ε of GRR(k, keep ``p1``) followed by GRR(k, keep ``p2``) (other values uniform): the report of
    multi-freq-ldpy ``long_freq_est/L_GRR.py`` (Arcolezi et al. 2022, "Improving the utility of locally
    differentially private protocols for longitudinal and multidimensional frequency estimates", L-GRR).
    Enumerates the k outputs of the product channel for inputs ``xs`` (default all of [k])."""
    xs = list(range(k)) if xs is None else list(xs)
    with precision_for(abs(math.log(float(p1) * (k - 1) / (1 - float(p1)))) + 1):
        m1, m2 = _grr_matrix(p1, k), _grr_matrix(p2, k)
        table = {x: {y: mpmath.fsum(m1[x][z] * m2[z][y] for z in range(k)) for y in range(k)} for x in xs}
        return worst_case_ratio(table).eps


def chained_unary(p1, q1, p2, q2) -> float:
    """Exact ε of two unary-encoding rounds (bit kept as 1 w.p. p, set from 0 w.p. q, per round), the report of
    multi-freq-ldpy L-OUE/L-SUE/L-OSUE/L-SOUE (``long_freq_est/L_*.py``, Arcolezi et al. 2022): each bit is
    independent with P(1 | 1) = p1 p2 + (1−p1) q2, P(1 | 0) = q1 p2 + (1−q1) q2 — a unary encoding."""
    p1, q1, p2, q2 = map(_mp, (p1, q1, p2, q2))
    with precision_for(20.0):
        return unary_pq(p1 * p2 + (1 - p1) * q2, q1 * p2 + (1 - q1) * q2)


def lh_separated(items, g: int, seeds: Iterable[int] = range(1000)) -> bool:
    """Whether some xxh32 seed in ``seeds`` hashes two of ``items`` (as ``str``) to different values mod ``g``
    (the hash family of multi-freq-ldpy LH/L-LH and pure-ldp LH): a witness that the LH report's ε is the
    ε of its GRR step between two distinct hash values."""
    import xxhash

    items = list(items)
    return any(len({xxhash.xxh32(str(x), seed=s).intdigest() % g for x in items}) > 1 for s in seeds)


def bit_flip_pm(p1, q1, k: int, b: int, d_bits: int, xs: Sequence[int]) -> float:
    """dBitFlipPM (multi-freq-ldpy ``long_freq_est/dBitFlipPM.py``; Ding, Kulkarni, Yekhanin 2017): x → bucket
    ⌊x/(k/b)⌋; ``d_bits`` distinct buckets sampled uniformly (their positions are public in the report),
    each reported 1 w.p. ``p1`` if it is x's bucket else ``q1``. Two inputs in different buckets: the worst
    sample holds both buckets if d_bits ≥ 2 (ε = log(p1(1−q1)/(q1(1−p1)))), else one (ε = max of the
    bucket's two ratios); in one bucket: 0."""
    buckets = {int(x / (k / b)) for x in xs}
    if len(buckets) < 2:
        return 0.0
    if d_bits >= 2:
        return unary_pq(p1, q1)
    with precision_for(20.0):
        return max(abs(_log_ratio(p1, q1)), abs(_log_ratio(1 - _mp(p1), 1 - _mp(q1))))


# ------------------------------------------------------------------ multi-freq-ldpy: random sampling plus fake data
def rs_fd(
    sampled: Sequence[Callable[[Hashable], Mapping]], fake: Sequence[Mapping], x: Sequence, x2: Sequence
) -> float:
    """Exact ε between tuples ``x`` and ``x2`` of RS+FD (multi-freq-ldpy ``mdim_freq_est/RSpFD_solution.py``;
    Arcolezi, Couchot, Al Bouna, Xiao 2021, CIKM, "Random Sampling Plus Fake Data"): one attribute j uniform
    and hidden, reported through its randomiser ``sampled[j](x_j)`` (a pmf), every other attribute i a fake
    report drawn from ``fake[i]`` (a pmf, independent of x). The report is the tuple only, so
    P(y | x) = Π_i F_i(y_i) · (1/d) Σ_j A_j(y_j | x_j)/F_j(y_j): the ratio depends on y through the per-attribute
    triples (A_j(y_j|x_j), A_j(y_j|x2_j), F_j(y_j)); their distinct classes are enumerated (product over
    attributes) and the worst ratio of the two sums is returned (mpmath; pmfs given as mpf/Fraction/float)."""
    with mpmath.workdps(40):
        return _rs_fd(sampled, fake, x, x2)


def _rs_fd(sampled, fake, x, x2) -> float:
    classes = []
    for j, (law, f) in enumerate(zip(sampled, fake)):
        a, b = law(x[j]), law(x2[j])
        cls = {}
        for y, fy in f.items():
            fy = _mp(fy)
            if fy <= 0:
                raise ValueError("fake-data law must give every output a positive probability")
            cls[(_mp(a.get(y, 0)) / fy, _mp(b.get(y, 0)) / fy)] = None
        classes.append(list(cls))
    best = mpmath.mpf(0)
    for combo in itertools.product(*classes):
        num, den = mpmath.fsum(c[0] for c in combo), mpmath.fsum(c[1] for c in combo)
        for u, v in ((num, den), (den, num)):
            if u > 0 and v <= 0:
                return math.inf
            if u > 0:
                best = max(best, u / v)
    return float(mpmath.log(best))


def grr_pmf(p, k: int) -> Callable[[int], dict]:
    """GRR over [k] keeping the value w.p. ``p`` (others uniform): x → pmf over [k] (mpmath)."""
    p = _mp(p)
    q = (1 - p) / (k - 1)
    return lambda x: {y: (p if y == x else q) for y in range(k)}


def unary_pmf(p, q, k: int) -> Callable[[int | None], dict]:
    """Unary encoding over [k] (own bit 1 w.p. ``p``, others ``q``; x = None: all bits ``q``): x → pmf over
    {0,1}^k as tuples (mpmath; 2^k outputs)."""
    p, q = _mp(p), _mp(q)

    def law(x):
        out = {}
        for y in itertools.product((0, 1), repeat=k):
            pr = mpmath.mpf(1)
            for i, bit in enumerate(y):
                t = p if i == x else q
                pr *= t if bit else 1 - t
            out[y] = pr
        return out

    return law


def uniform_pmf(k: int) -> dict:
    """The uniform pmf over [k] (RS+FD[GRR]'s fake data)."""
    return {y: mpmath.mpf(1) / k for y in range(k)}


def mixture_pmf(law: Callable[[int], dict], k: int) -> dict:
    """The pmf of ``law(v)`` with v uniform over [k] (RS+FD[UE-rnd]'s fake data)."""
    out: dict = {}
    for v in range(k):
        for y, pr in law(v).items():
            out[y] = out.get(y, 0) + pr / k
    return out
