"""FedSel's private dimension selectors — 000 (Liu, Cao, Yoshikawa, Chen), Sec. 4.1, Alg. 2–4.

Three ε1-"LDP" selectors of one coordinate index out of ``d``, each as printed:

- **EXP** (Alg. 2, Lemma 1): input a ranking vector ``z`` (a permutation of
  1..d, rank d = largest |r_j|); output ``j`` with probability
  ``exp(ε1 z_j/(d−1)) / Σ_i exp(ε1 i/(d−1))``.
- **PE** (Alg. 3, Lemma 2): input a Top-k status vector ``z ∈ {0,1}^d`` with
  ``k`` ones; keep each bit w.p. ``p = e^ε1/(e^ε1+1)`` (flip w.p. ``1−p``),
  then output an index uniformly from ``S = {j : ż_j = 1}``, or ⊥ (code −1) if
  ``S`` is empty.
- **PS** (Alg. 4, Lemma 3): w.p. ``p = e^ε1·k/(d−k+e^ε1·k)`` output a uniform
  Top-k index, else a uniform non-Top-k index.

Exact ε uses each selector's symmetry: for EXP the output probability depends
only on the output's rank, for PE and PS only on the output's status bit (and
for PE on the binomial law of the other bits), so a two-row table suffices and
``d = 100000`` takes a fraction of a second. ``*_enumerated_table`` functions
enumerate every input (and, for PE, every perturbed vector) literally for
small ``d``; tests compare the two.

Finding (see :func:`pe_exact_epsilon`): Lemma 2's proof cancels the factor
1/l (the *expected* size of S) between inputs, but the probability of output
j is ``P(ż_j = 1)·E[1/|S| | ż_j = 1]`` and that conditional expectation differs
between ``z_j = 1`` and ``z_j = 0``; PE's exact ε is strictly larger than ε1
(e.g. d=2, k=1, ε1=1: ε = 1.3106...).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np

from estimators.base import ExactEpsilon, Mechanism
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.exact import digits_for, with_precision, worst_case_ratio
from privcheck.base.validation import check_eps, check_int, check_probability

mpmath.mp.dps = max(mpmath.mp.dps, 50)

#: largest d for which the literal enumerations below are allowed
ENUMERATION_MAX_D = 12
#: vectors up to this length are reported literally in ExactEpsilon.worst_pair
_LITERAL_MAX_D = 20


# ---------------------------------------------------------------------------
# shared helpers
# ---------------------------------------------------------------------------


def _mpf(x) -> mpmath.mpf:
    """A float/int/Fraction as an exact mpmath number (floats are binary rationals)."""
    f = Fraction(x)
    return mpmath.mpf(f.numerator) / f.denominator


def _check_dk(d, k) -> tuple[int, int]:
    d = check_int("d", d, minimum=2)
    k = check_int("k", k, minimum=1, maximum=d)
    return d, k


def _vec_text(v: tuple) -> tuple | str:
    """A vector as a tuple when short, else a compact description."""
    if len(v) <= _LITERAL_MAX_D:
        return tuple(int(a) for a in v)
    head = ", ".join(str(int(a)) for a in v[:3])
    tail = ", ".join(str(int(a)) for a in v[-2:])
    return f"({head}, ..., {tail})  [d={len(v)}]"


def ranking_from_vector(v) -> np.ndarray:
    """Ranks 1..d of ``|v|`` in ascending order (000 Alg. 2 lines 2–4).

    Rank d is the coordinate with the largest magnitude. Ties (equal |v_j|)
    are broken by index: the lower index gets the lower rank (a stable sort),
    a data-independent rule the paper leaves open.
    """
    v = np.asarray(v, dtype=np.float64)
    if v.ndim != 1 or v.size < 2:
        raise PrivcheckUsageError(f"v must be a vector of length d >= 2, got shape {v.shape}")
    if not np.all(np.isfinite(v)):
        raise PrivcheckUsageError("v must contain finite numbers only (no NaN/inf)")
    order = np.argsort(np.abs(v), kind="stable")
    ranks = np.empty(v.size, dtype=np.int64)
    ranks[order] = np.arange(1, v.size + 1)
    return ranks


def topk_status(v, k: int) -> np.ndarray:
    """The Top-k status vector of ``|v|`` (000 Alg. 3/4 line 2): 1 on the k largest magnitudes.

    Ties are broken as in :func:`ranking_from_vector` (the k highest ranks are Top-k).
    """
    ranks = ranking_from_vector(v)
    k = check_int("k", k, minimum=1, maximum=ranks.size)
    return (ranks > ranks.size - k).astype(np.int64)


def _check_ranking(z, d: int) -> np.ndarray:
    z = np.asarray(z)
    if z.shape != (d,):
        raise PrivcheckUsageError(f"z must be a ranking vector of length d={d}, got shape {z.shape}")
    if not np.issubdtype(z.dtype, np.number) or not np.array_equal(np.sort(z), np.arange(1, d + 1)):
        raise PrivcheckUsageError(f"z must be a permutation of 1..{d} (a ranking vector)")
    return z.astype(np.int64)


def _check_status(z, d: int, k: int) -> np.ndarray:
    z = np.asarray(z)
    if z.shape != (d,):
        raise PrivcheckUsageError(f"z must be a status vector of length d={d}, got shape {z.shape}")
    if not np.issubdtype(z.dtype, np.number) or not np.all((z == 0) | (z == 1)):
        raise PrivcheckUsageError("z must be a status vector with entries in {0, 1}")
    if int(z.sum()) != k:
        raise PrivcheckUsageError(f"z must have exactly k={k} ones, got {int(z.sum())}")
    return z.astype(np.int64)


def _status_vectors(d: int, k: int):
    for top in itertools.combinations(range(d), k):
        z = [0] * d
        for i in top:
            z[i] = 1
        yield tuple(z)


# ---------------------------------------------------------------------------
# EXP (Alg. 2, Lemma 1)
# ---------------------------------------------------------------------------


def exp_claimed_epsilon(eps1: float) -> float:
    """The ε Lemma 1 of 000 claims for EXP selection: ε1."""
    return check_eps(eps1, "eps")


def exp_probabilities(z, eps1: float) -> np.ndarray:
    """EXP's output probabilities for ranking ``z`` (000 Alg. 2): ∝ exp(ε1·z_j/(d−1)), float64."""
    eps1 = check_eps(eps1, "eps")
    z = np.asarray(z, dtype=np.float64)
    d = z.size
    w = np.exp(eps1 * (z - d) / (d - 1))  # shifted by the max exponent for stability
    return w / w.sum()


@with_precision("eps1")
def exp_exact_epsilon(d: int, eps1: float) -> ExactEpsilon:
    """Exact ε of EXP by symmetry (000 Alg. 2).

    The normaliser Σ_i exp(ε1 z_i/(d−1)) is the same for every permutation, so
    P(j | z) depends on z_j only; the extreme ranks d and 1 give the two rows of
    the reduced table, evaluated in mpmath (50 digits).
    """
    d = check_int("d", d, minimum=2)
    eps1 = check_eps(eps1, "eps")
    e = _mpf(eps1)
    r = mpmath.exp(e / (d - 1))
    norm = r * (r**d - 1) / (r - 1)  # Σ_{i=1}^d r^i, the same for every permutation
    top = tuple(range(d, 0, -1))  # z_0 = d
    bottom = tuple(range(1, d + 1))  # z_0 = 1
    table = {
        "top": {0: mpmath.exp(e * d / (d - 1)) / norm},
        "bottom": {0: mpmath.exp(e / (d - 1)) / norm},
    }
    r = worst_case_ratio(table, method="symmetry")
    pair = (top, bottom) if r.worst_pair[0] == "top" else (bottom, top)
    return ExactEpsilon(
        eps=r.eps,
        eps_text=r.eps_text,
        worst_pair=(_vec_text(pair[0]), _vec_text(pair[1])),
        worst_output=0,
        method="symmetry",
        note="P(j|z) = exp(ε1 z_j/(d−1))/Σ_i exp(ε1 i/(d−1)) depends on z_j only; extreme ranks d vs 1",
    )


def exp_enumerated_table(d: int, eps1: float) -> dict:
    """Every ranking vector of length ``d`` (d ≤ 7) -> its exact output distribution (mpmath)."""
    d = check_int("d", d, minimum=2, maximum=7)
    e = _mpf(check_eps(eps1, "eps"))
    table = {}
    for z in itertools.permutations(range(1, d + 1)):
        w = [mpmath.exp(e * zj / (d - 1)) for zj in z]
        s = mpmath.fsum(w)
        table[z] = {j: w[j] / s for j in range(d)}
    return table


# ---------------------------------------------------------------------------
# PE (Alg. 3, Lemma 2)
# ---------------------------------------------------------------------------


def pe_claimed_epsilon(eps1: float) -> float:
    """The ε Lemma 2 of 000 claims for PE selection: ε1."""
    return check_eps(eps1, "eps")


def pe_keep_probability(eps1: float) -> float:
    """PE's keep probability p = e^ε1/(e^ε1+1) (000 Alg. 3 line 1)."""
    eps1 = check_eps(eps1, "eps")
    return 1.0 / (1.0 + math.exp(-eps1))


def pe_expected_sparsity(d: int, k: int, eps1: float) -> float:
    """E‖ż‖0 = k·p + (d−k)(1−p), the expected size of S (000 Lemma 2 proof)."""
    d, k = _check_dk(d, k)
    p = pe_keep_probability(eps1)
    return k * p + (d - k) * (1.0 - p)


def _pe_inverse_moments(d: int, k: int, p: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(E[1/(1+Y)], E[1/(2+Y)]) for Y ~ Bin(k−1, p) + Bin(d−k−1, 1−p), 1 ≤ k ≤ d−1.

    Uses E[1/(c+Y)] = ∫_0^1 u^(c−1) E[u^Y] du with the probability generating
    function G(u) = (1−p+pu)^(k−1)·(p+(1−p)u)^(d−k−1), integrated by mpmath
    (tanh-sinh, 50 digits). log G is concave with slope c0 = (k−1)p + (d−k−1)(1−p)
    at u = 1, so G(u) ≤ exp(−c0(1−u)): the substitution u = 1 + log(v)/c0 turns
    the integrand into the nearly constant G(u)/(c0·v) on v ∈ [e^−T, 1] with
    T = min(c0, 140). For c0 ≤ 140 this is all of u ∈ [0, 1]; otherwise the
    omitted part u < 1 − 140/c0 is below e^−140 relative to the result.
    """
    q = 1 - p
    a, b = k - 1, d - k - 1

    def g(u):
        return (q + p * u) ** a * (p + q * u) ** b

    c0 = a * p + b * q
    if c0 <= 1:
        m1 = mpmath.quad(g, [0, 1])
        m2 = mpmath.quad(lambda u: u * g(u), [0, 1])
        return m1, m2
    cache: dict = {}

    def h(v):  # (u, G(u)/(c0 v)) once per node; both integrals use the same nodes
        key = (v.man, v.exp)
        if key not in cache:
            u = 1 + mpmath.log(v) / c0
            cache[key] = (u, g(u) / (c0 * v))
        return cache[key]

    lo = mpmath.exp(-min(c0, mpmath.mpf(140)))
    m1 = mpmath.quad(lambda v: h(v)[1], [lo, 1])
    m2 = mpmath.quad(lambda v: h(v)[0] * h(v)[1], [lo, 1])
    return m1, m2


@with_precision("eps1")
def pe_output_probabilities(d: int, k: int, eps1: float, p: float | None = None) -> dict[str, mpmath.mpf]:
    """PE's exact output law by symmetry (000 Alg. 3), in mpmath (50 digits).

    Returns ``{"top": P(j | z_j = 1), "other": P(j | z_j = 0), "bot": P(⊥)}``:
    P(j | z) = P(ż_j = 1)·E[1/|S| | ż_j = 1], where |S| − 1 counts the other
    d−1 kept/flipped bits; P(⊥) = (1−p)^k p^(d−k). For k = d, ``other`` is absent.
    """
    d, k = _check_dk(d, k)
    with mpmath.workdps(digits_for(eps1, large=False)):  # no 1 − p cancellation below: tiny ε sets the digits
        return _pe_output_probabilities(d, k, check_eps(eps1, "eps"), p)


def _pe_output_probabilities(d: int, k: int, eps1: float, p_given: float | None = None) -> dict[str, mpmath.mpf]:
    """The law of :func:`pe_output_probabilities`; ``p_given``: the keep probability (else e^ε1/(e^ε1+1))."""
    if p_given is None:
        e = mpmath.exp(_mpf(eps1))
        p, q = e / (e + 1), 1 / (e + 1)
    else:
        p = _mpf(p_given)
        q = 1 - p
    out = {"bot": q**k * p ** (d - k)}
    if k == d:
        # the others are k−1 one-bits: E[1/(1+Bin(d−1,p))] = (1 − q^d)/(d p)
        out["top"] = p * (1 - q**d) / (d * p)
        return out
    m1, m2 = _pe_inverse_moments(d, k, p)
    out["top"] = p * (p * m1 + q * m2)  # |S| = 1 + Y + Bern(1−p)
    out["other"] = q * (q * m1 + p * m2)  # |S| = 1 + Y + Bern(p)
    return out


@with_precision("eps1")
def pe_exact_epsilon(d: int, k: int, eps1: float, p: float | None = None) -> ExactEpsilon:
    """Exact ε of PE selection (000 Alg. 3) by symmetry; compare :func:`pe_claimed_epsilon`.

    The worst case is output j with z_j = 1 against z'_j = 0:
    ε = ε1 + log(E[1/|S| | z_j=1, ż_j=1] / E[1/|S| | z_j=0, ż_j=1]) > ε1 for k < d.
    ``p``: the keep probability (a float read exactly; default e^ε1/(e^ε1+1) in mpmath).
    """
    d, k = _check_dk(d, k)
    probs = pe_output_probabilities(d, k, eps1, p)
    z_top = tuple([1] * k + [0] * (d - k))
    if k == d:
        return ExactEpsilon(
            eps=0.0,
            eps_text="0",
            worst_pair=(_vec_text(z_top), _vec_text(z_top)),
            worst_output=0,
            method="symmetry",
            note="k = d: a single status vector, every input has the same law",
        )
    z_other = tuple([0] + [1] * k + [0] * (d - k - 1))
    table = {"top": {0: probs["top"], -1: probs["bot"]}, "other": {0: probs["other"], -1: probs["bot"]}}
    r = worst_case_ratio(table, method="symmetry")
    pair = (z_top, z_other) if r.worst_pair[0] == "top" else (z_other, z_top)
    return ExactEpsilon(
        eps=r.eps,
        eps_text=r.eps_text,
        worst_pair=(_vec_text(pair[0]), _vec_text(pair[1])),
        worst_output=r.worst_output,
        method="symmetry",
        note="P(j|z) depends on z_j and the binomial law of the other bits; ⊥ has the same probability for all z",
        extra={
            "P_top": mpmath.nstr(probs["top"], 30),
            "P_other": mpmath.nstr(probs["other"], 30),
            "P_bot": mpmath.nstr(probs["bot"], 30),
            "claimed": float(eps1),
        },
    )


def pe_enumerated_table(d: int, k: int, eps1: float) -> dict:
    """Every status vector (d ≤ 12) -> exact output law, by enumerating all 2^d perturbed vectors ż.

    A literal rendering of 000 Alg. 3 (independent of :func:`pe_output_probabilities`);
    output −1 is ⊥.
    """
    d = check_int("d", d, minimum=2, maximum=ENUMERATION_MAX_D)
    k = check_int("k", k, minimum=1, maximum=d)
    e = mpmath.exp(_mpf(check_eps(eps1, "eps")))
    p, q = e / (e + 1), 1 / (e + 1)
    table = {}
    for z in _status_vectors(d, k):
        dist = {j: mpmath.mpf(0) for j in range(-1, d)}
        for zd in itertools.product((0, 1), repeat=d):
            pr = mpmath.mpf(1)
            for a, b in zip(z, zd):
                pr *= p if a == b else q
            s = [j for j in range(d) if zd[j]]
            if not s:
                dist[-1] += pr
            else:
                for j in s:
                    dist[j] += pr / len(s)
        table[z] = dist
    return table


# ---------------------------------------------------------------------------
# PS (Alg. 4, Lemma 3)
# ---------------------------------------------------------------------------


def ps_claimed_epsilon(eps1: float) -> float:
    """The ε Lemma 3 of 000 claims for PS selection: ε1."""
    return check_eps(eps1, "eps")


def ps_probability(d: int, k: int, eps1: float) -> float:
    """PS's Top-k branch probability p = e^ε1·k/(d−k+e^ε1·k) (000 Alg. 4 line 4)."""
    d, k = _check_dk(d, k)
    eps1 = check_eps(eps1, "eps")
    return k / ((d - k) * math.exp(-eps1) + k)


def _ps_p_mp(d: int, k: int, eps1: float, p: float | None) -> mpmath.mpf:
    if p is not None:
        return _mpf(p)
    e = mpmath.exp(_mpf(eps1))
    return e * k / (d - k + e * k)


@with_precision("eps1")
def ps_exact_epsilon(d: int, k: int, eps1: float, p: float | None = None) -> ExactEpsilon:
    """Exact ε of PS selection (000 Alg. 4) by symmetry: |log( (p/k) / ((1−p)/(d−k)) )|.

    ``p`` overrides the Top-k branch probability (a mis-calibrated variant);
    by default p = e^ε1·k/(d−k+e^ε1·k), which gives exactly ε1.
    """
    d, k = _check_dk(d, k)
    eps1 = check_eps(eps1, "eps")
    z_top = tuple([1] * k + [0] * (d - k))
    if k == d:
        return ExactEpsilon(
            eps=0.0,
            eps_text="0",
            worst_pair=(_vec_text(z_top), _vec_text(z_top)),
            worst_output=0,
            method="symmetry",
            note="k = d: a single status vector, every input has the same law",
        )
    pm = _ps_p_mp(d, k, eps1, p)
    z_other = tuple([0] + [1] * k + [0] * (d - k - 1))
    table = {"top": {0: pm / k}, "other": {0: (1 - pm) / (d - k)}}
    r = worst_case_ratio(table, method="symmetry")
    pair = (z_top, z_other) if r.worst_pair[0] == "top" else (z_other, z_top)
    return ExactEpsilon(
        eps=r.eps,
        eps_text=r.eps_text,
        worst_pair=(_vec_text(pair[0]), _vec_text(pair[1])),
        worst_output=0,
        method="symmetry",
        note="P(j|z) = p/k if z_j = 1 else (1−p)/(d−k)",
        extra={"p": mpmath.nstr(pm, 30), "claimed": eps1},
    )


def ps_enumerated_table(d: int, k: int, eps1: float, p: float | None = None) -> dict:
    """Every status vector (d ≤ 12) -> exact output law of PS, written out from Alg. 4."""
    d = check_int("d", d, minimum=2, maximum=ENUMERATION_MAX_D)
    k = check_int("k", k, minimum=1, maximum=d)
    pm = _ps_p_mp(d, k, check_eps(eps1, "eps"), p)
    table = {}
    for z in _status_vectors(d, k):
        ones = [j for j in range(d) if z[j]]
        zeros = [j for j in range(d) if not z[j]]
        dist = {j: pm / len(ones) for j in ones}
        for j in zeros:
            dist[j] = (1 - pm) / len(zeros)
        table[z] = dist
    return table


# ---------------------------------------------------------------------------
# Mechanism classes
# ---------------------------------------------------------------------------


class _Selector(Mechanism):
    output_kind = "discrete"

    def __init__(self, d: int, k: int, eps: float):
        self.d, self.k = _check_dk(d, k)
        self.eps_nominal = check_eps(eps)
        self._params = {"d": self.d, "k": self.k, "eps": self.eps_nominal}

    def _status_inputs(self) -> list:
        d, k = self.d, self.k
        if math.comb(d, k) <= 20:
            return list(_status_vectors(d, k))
        first = tuple([1] * k + [0] * (d - k))
        shifted = tuple([0] + [1] * k + [0] * (d - k - 1)) if k < d else first
        last = tuple([0] * (d - k) + [1] * k)
        return list(dict.fromkeys([first, shifted, last]))


class FedSelEXP(_Selector):
    """FedSel EXP selection (CLI ``fedsel-exp``) — 000 Alg. 2 / Lemma 1, as printed.

    Parameters: ``d`` ≥ 2 (dimension), ``k`` in [1, d] (unused: EXP is the
    Top-1 case; kept so the selectors share parameters), ``eps`` > 0 (ε1).
    Input: a ranking vector z, a permutation of 1..d. Output: index in [0, d).
    """

    name = "fedsel-exp"
    source = "000_55a5a0ab95d522af.txt Alg. 2, Lemma 1"

    def __init__(self, d: int = 5, k: int = 1, eps: float = 1.0):
        super().__init__(d, k, eps)

    def sample(self, x, n, rng):
        z = _check_ranking(x, self.d)
        n = check_int("n", n, minimum=0)
        cdf = np.cumsum(exp_probabilities(z, self.eps_nominal))
        idx = np.searchsorted(cdf, rng.random(n) * cdf[-1], side="right")
        return np.minimum(idx, self.d - 1).astype(np.int64)

    def inputs(self) -> list:
        if self.d <= 4:
            return list(itertools.permutations(range(1, self.d + 1)))
        ident = tuple(range(1, self.d + 1))
        return [ident, ident[::-1], ident[1:] + ident[:1]]

    def exact_epsilon(self) -> ExactEpsilon:
        return exp_exact_epsilon(self.d, self.eps_nominal)

    def sampler_exact_epsilon(self) -> ExactEpsilon:
        """Exact ε of the probability array the sampler builds its inverse CDF from (:func:`exp_probabilities`,
        floats read exactly): P(j | z) ∝ probs(z)_j, a function of the rank z_j alone (the array is computed
        elementwise), so the largest against the smallest entry is the worst case (the normaliser cancels)."""
        d = self.d
        probs = exp_probabilities(np.arange(1, d + 1), self.eps_nominal)  # rank r at position r − 1
        table = {"top": {0: mpmath.mpf(float(probs.max()))}, "bottom": {0: mpmath.mpf(float(probs.min()))}}
        r = worst_case_ratio(table, method="symmetry")
        top, bottom = tuple(range(d, 0, -1)), tuple(range(1, d + 1))
        pair = (top, bottom) if r.worst_pair[0] == "top" else (bottom, top)
        return ExactEpsilon(
            eps=r.eps,
            eps_text=r.eps_text,
            worst_pair=(_vec_text(pair[0]), _vec_text(pair[1])),
            worst_output=0,
            method="symmetry",
            note="the sampler's float probability array (read exactly): extreme ranks d vs 1",
        )


class FedSelPE(_Selector):
    """FedSel PE selection (CLI ``fedsel-pe``) — 000 Alg. 3 / Lemma 2, as printed.

    Parameters: ``d`` ≥ 2, ``k`` in [1, d], ``eps`` > 0 (ε1).
    Input: a status vector in {0,1}^d with exactly k ones. Output: index in
    [0, d), or −1 for ⊥ (S empty).

    :meth:`sample` draws the numbers of kept Top-k bits A ~ Bin(k, p) and of
    flipped non-Top-k bits B ~ Bin(d−k, 1−p), then picks the Top-k group w.p.
    A/(A+B) and a uniform index within the group — the same law as Alg. 3 (by
    exchangeability of the bits) at O(n) cost; :meth:`sample_literal` builds the
    n×d perturbed matrix as printed, for cross-checks on small inputs.
    """

    name = "fedsel-pe"
    source = "000_55a5a0ab95d522af.txt Alg. 3, Lemma 2"

    def __init__(self, d: int = 5, k: int = 2, eps: float = 1.0):
        super().__init__(d, k, eps)
        self.p = pe_keep_probability(self.eps_nominal)

    def perturbed_counts(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Alg. 3 line 4 in distribution: (A, B) = kept Top-k bits ~ Bin(k, p), flipped others ~ Bin(d−k, 1−p).

        ‖ż‖0 = |S| = A + B; :meth:`sample` draws its output from these counts.
        """
        a = rng.binomial(self.k, self.p, n)
        b = rng.binomial(self.d - self.k, 1.0 - self.p, n)
        return a, b

    def sample(self, x, n, rng):
        z = _check_status(x, self.d, self.k)
        n = check_int("n", n, minimum=0)
        top = np.flatnonzero(z == 1)
        other = np.flatnonzero(z == 0)
        a, b = self.perturbed_counts(n, rng)
        u = rng.random(n)
        v = rng.random(n)
        size = a + b
        in_top = u * size < a
        out = np.full(n, -1, dtype=np.int64)
        it = np.minimum((v * self.k).astype(np.int64), self.k - 1)
        sel_top = in_top & (size > 0)
        out[sel_top] = top[it[sel_top]]
        if other.size:
            io = np.minimum((v * other.size).astype(np.int64), other.size - 1)
            sel_other = ~in_top & (size > 0)
            out[sel_other] = other[io[sel_other]]
        return out

    def perturb_literal(self, x, n: int, rng: np.random.Generator) -> np.ndarray:
        """Alg. 3 line 4 as printed: the (n, d) perturbed status matrix ż (bit kept w.p. p, else flipped)."""
        z = _check_status(x, self.d, self.k)
        keep = rng.random((n, self.d)) < self.p
        return np.where(keep, z, 1 - z)

    def sample_literal(self, x, n: int, rng: np.random.Generator) -> np.ndarray:
        """Alg. 3 line by line on an (n, d) bit matrix (memory n·d; for tests on small inputs)."""
        zd = self.perturb_literal(x, n, rng)
        size = zd.sum(axis=1)
        pick = (rng.random(n) * np.maximum(size, 1)).astype(np.int64)
        csum = np.cumsum(zd, axis=1)
        idx = np.argmax(csum > pick[:, None], axis=1)
        return np.where(size > 0, idx, -1).astype(np.int64)

    def inputs(self) -> list:
        return self._status_inputs()

    def exact_epsilon(self) -> ExactEpsilon:
        return pe_exact_epsilon(self.d, self.k, self.eps_nominal)

    def sampler_exact_epsilon(self) -> ExactEpsilon:
        """Exact ε of the keep probability the binomial draws use (``self.p``, read exactly; 1 − p is exact)."""
        return pe_exact_epsilon(self.d, self.k, self.eps_nominal, self.p)


class FedSelPS(_Selector):
    """FedSel PS selection (CLI ``fedsel-ps``) — 000 Alg. 4 / Lemma 3, as printed.

    Parameters: ``d`` ≥ 2, ``k`` in [1, d], ``eps`` > 0 (ε1), optional ``p`` in
    [0, 1] overriding the Top-k branch probability (default
    e^ε1·k/(d−k+e^ε1·k); an override builds a deliberately broken variant).
    Input: a status vector in {0,1}^d with exactly k ones. Output: index in [0, d).
    """

    name = "fedsel-ps"
    source = "000_55a5a0ab95d522af.txt Alg. 4, Lemma 3"

    def __init__(self, d: int = 5, k: int = 2, eps: float = 1.0, p: float | None = None):
        super().__init__(d, k, eps)
        if p is not None:
            p = check_probability("p", p)
            if self.k == self.d and p < 1:
                raise PrivcheckUsageError(f"p must be 1 when k = d (the non-Top-k set is empty), got {p!r}")
            self._params["p"] = p
        self._p_given = p
        self.p = ps_probability(self.d, self.k, self.eps_nominal) if p is None else p

    def sample(self, x, n, rng):
        z = _check_status(x, self.d, self.k)
        n = check_int("n", n, minimum=0)
        top = np.flatnonzero(z == 1)
        other = np.flatnonzero(z == 0)
        u = rng.random(n)
        p = self.p
        out = np.empty(n, dtype=np.int64)
        hit = u < p
        if p > 0:
            it = np.minimum((u[hit] / p * self.k).astype(np.int64), self.k - 1)
            out[hit] = top[it]
        if other.size and p < 1:
            io = np.minimum(((u[~hit] - p) / (1.0 - p) * other.size).astype(np.int64), other.size - 1)
            out[~hit] = other[io]
        return out

    def inputs(self) -> list:
        return self._status_inputs()

    def exact_epsilon(self) -> ExactEpsilon:
        return ps_exact_epsilon(self.d, self.k, self.eps_nominal, self._p_given)

    def sampler_exact_epsilon(self) -> ExactEpsilon:
        """Exact ε of the Top-k branch probability the sampler draws with (``self.p``, read exactly)."""
        return ps_exact_epsilon(self.d, self.k, self.eps_nominal, self.p)


__all__ = [
    "ranking_from_vector",
    "topk_status",
    "exp_claimed_epsilon",
    "exp_probabilities",
    "exp_exact_epsilon",
    "exp_enumerated_table",
    "pe_claimed_epsilon",
    "pe_keep_probability",
    "pe_expected_sparsity",
    "pe_output_probabilities",
    "pe_exact_epsilon",
    "pe_enumerated_table",
    "ps_claimed_epsilon",
    "ps_probability",
    "ps_exact_epsilon",
    "ps_enumerated_table",
    "FedSelEXP",
    "FedSelPE",
    "FedSelPS",
]
