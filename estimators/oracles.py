"""The standard LDP frequency oracles as built-in mechanisms.

CLI names and sources:

- ``grr``  generalised randomised response (k-RR) — Wang et al. 2017 (USENIX Security), Sec. 4.1 "DE";
- ``sue``  symmetric unary encoding (basic one-time RAPPOR) — Wang et al. 2017, Sec. 4.2, p = e^{ε/2}/(e^{ε/2}+1), q = 1 − p;
- ``oue``  optimised unary encoding — Wang et al. 2017, Sec. 4.2 eq. (13): p = 1/2, q = 1/(e^ε + 1);
- ``blh``  binary local hashing — Wang et al. 2017, Sec. 4.4 (g = 2);
- ``olh``  optimised local hashing — Wang et al. 2017, Sec. 4.4 (g = round(e^ε + 1));
- ``he``   histogram encoding (one-hot + Laplace(2/ε) per coordinate) — Wang et al. 2017, Sec. 4.3 "SHE";
- ``the``  thresholded histogram encoding (report {i : B_i > θ}) — Wang et al. 2017, Sec. 4.3 "THE";
- ``hr``   Hadamard response — Acharya, Sun, Zhang 2019 (AISTATS), Sec. 3: output y ∈ [K] uniform in
  C_x = {y : H_K[x+1, y] = +1} w.p. e^ε/(e^ε+1), else uniform outside;
- ``ss``   k-subset selection — Ye & Barg 2018 (IEEE T-IT), Wang et al. 2016: a k-subset containing x
  w.p. k e^ε/(k e^ε + d − k).

Every oracle has an exact ε computed by :func:`privcheck.base.exact.worst_case_ratio` from a table of
per-output probabilities (the full output pmf for small domains, else the symmetry classes of one
input pair — all pairs are equivalent under relabelling of the domain) and a vectorised sampler
(no per-report Python loop). :func:`unary_probabilities`, :func:`lh_probabilities`,
:func:`the_probabilities`, :func:`ss_include_probability` and :func:`hr_sets` are the reusable parts
(the zoo's true-ε calculators call them with the libraries' own probabilities).
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np

from estimators.base import ExactEpsilon, Mechanism
from estimators.direct_encoding import DirectEncoding, sample_krr
from estimators.packed import sample_unary_packed
from privcheck.base.exact import worst_case_ratio
from privcheck.base.validation import check_eps, check_in_interval, check_int

W2017 = (
    "Wang, Blocki, Li, Jha 2017 (USENIX Security), Locally Differentially Private Protocols for Frequency Estimation"
)
ASZ2019 = "Acharya, Sun, Zhang 2019 (AISTATS), Hadamard Response"
YB2018 = "Ye, Barg 2018 (IEEE T-IT), Optimal schemes for discrete distribution estimation under LDP; Wang et al. 2016"

#: the Mersenne prime of the built-in hash family h_{a,b}(x) = ((a x + b) mod P) mod g (Carter–Wegman)
HASH_PRIME = (1 << 31) - 1
#: domains up to this size are enumerated in full for the exact ε (else the symmetry classes of a pair)
ENUMERATE_MAX = 8


def _small_inputs(d: int) -> list:
    return list(range(d)) if d <= 16 else [0, 1]


def _mp_exp(eps: float) -> mpmath.mpf:
    return mpmath.e ** mpmath.mpf(eps)


# --------------------------------------------------------------------------- unary encoding
def unary_probabilities(eps: float, optimised: bool) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(p, q) of unary encoding in mpmath: p = P(bit of x is 1), q = P(any other bit is 1).

    SUE (``optimised=False``): p = e^{ε/2}/(e^{ε/2}+1), q = 1/(e^{ε/2}+1); OUE: p = 1/2,
    q = 1/(e^ε + 1) (Wang et al. 2017, Sec. 4.2 and eq. 13). ε > 0.
    """
    eps = check_eps(eps)
    if optimised:
        return mpmath.mpf(1) / 2, 1 / (_mp_exp(eps) + 1)
    e = _mp_exp(eps / 2)
    return e / (e + 1), 1 / (e + 1)


def unary_exact(p, q, method_note: str = "") -> ExactEpsilon:
    """Exact ε of unary encoding with bit probabilities ``p`` (own bit) and ``q`` (other bits).

    Bits other than those of the two inputs have the same law under both, so the ratio of any
    output is that of its two bits (b_x, b_x'): the 2×4 table of their probabilities is enumerated
    (:func:`privcheck.base.exact.worst_case_ratio`); the maximum is p(1−q)/((1−p)q) at (1, 0) when p > q.
    ``p``, ``q`` in [0, 1] (mpmath or Fraction for exactness).
    """

    def law(own_x: bool):
        a, b = (p, q) if own_x else (q, p)  # P(b_x = 1), P(b_x' = 1)
        return {(i, j): (a if i else 1 - a) * (b if j else 1 - b) for i in (0, 1) for j in (0, 1)}

    return worst_case_ratio(
        {0: law(True), 1: law(False)},
        method="symmetry",
        note="bits (b_x, b_x') of inputs x=0, x'=1; the other bits cancel" + method_note,
    )


def sample_unary(x, n: int, d: int, p: float, q: float, rng: np.random.Generator) -> np.ndarray:
    """``n`` unary-encoding reports of ``x``: (n, d) uint8, bit x is 1 w.p. ``p``, every other w.p. ``q``.

    The straightforward sampler (one float per bit): the reference the built-in mechanisms' packed
    sampler :func:`estimators.packed.sample_unary_packed` is tested against."""
    out = (rng.random((n, d)) < q).view(np.uint8) if n else np.zeros((0, d), np.uint8)
    out[:, x] = rng.random(n) < p
    return out


class _Unary(Mechanism):
    output_kind = "vector"
    optimised = False

    def __init__(self, d: int = 2, eps: float = 1.0):
        self.d = check_int("d", d, minimum=2)
        self.eps_nominal = check_eps(eps)
        self._params = {"d": self.d, "eps": self.eps_nominal}
        p, q = unary_probabilities(self.eps_nominal, self.optimised)
        self.p, self.q = float(p), float(q)

    def sample(self, x, n, rng):
        """``n`` reports of ``x`` as :class:`~privcheck.base.packed.PackedBits` (:func:`estimators.packed.sample_unary_packed`;
        ``np.asarray`` gives the ``(n, d)`` 0/1 matrix)."""
        x = check_int("x", x, minimum=0, maximum=self.d - 1)
        return sample_unary_packed(x, n, self.d, self.p, self.q, rng)

    def inputs(self) -> list:
        return _small_inputs(self.d)

    def exact_epsilon(self) -> ExactEpsilon:
        """Exact ε from the two-bit table (:func:`unary_exact`)."""
        return unary_exact(*unary_probabilities(self.eps_nominal, self.optimised))

    def sampler_exact_epsilon(self) -> ExactEpsilon:
        """Exact ε of the bit probabilities the sampler draws with (``self.p``, ``self.q``, read exactly)."""
        return unary_exact(mpmath.mpf(self.p), mpmath.mpf(self.q), "; the sampler's float p, q (read exactly)")


class SymmetricUnaryEncoding(_Unary):
    """SUE / basic one-time RAPPOR over ``d`` ≥ 2 values (CLI ``sue``); ``eps`` > 0."""

    name = "sue"
    source = W2017 + ", Sec. 4.2 (SUE)"


class OptimisedUnaryEncoding(_Unary):
    """OUE over ``d`` ≥ 2 values (CLI ``oue``): p = 1/2, q = 1/(e^ε+1); ``eps`` > 0."""

    name = "oue"
    source = W2017 + ", Sec. 4.2, eq. (13) (OUE)"
    optimised = True


# --------------------------------------------------------------------------- GRR
class GeneralisedRandomisedResponse(DirectEncoding):
    """k-RR over ``d`` ≥ 2 values (CLI ``grr``): keep w.p. e^ε/(e^ε+d−1); ``eps`` > 0.

    The same mechanism as ``de`` (direct encoding) under the frequency-oracle literature's name.
    """

    name = "grr"
    source = W2017 + ", Sec. 4.1 (DE / GRR)"

    def __init__(self, d: int = 2, eps: float = 1.0):
        super().__init__(m=d, eps=eps)
        self.d = self.m
        self._params = {"d": self.d, "eps": self.eps_nominal}


# --------------------------------------------------------------------------- local hashing
def lh_probabilities(eps: float, g: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(p, q) of GRR over the hash range ``[g]``: p = e^ε/(e^ε+g−1), q = 1/(e^ε+g−1); ε > 0, g ≥ 2."""
    eps = check_eps(eps)
    g = check_int("g", g, minimum=2)
    e = _mp_exp(eps)
    return e / (e + g - 1), 1 / (e + g - 1)


def olh_g(eps: float) -> int:
    """OLH's hash range g = round(e^ε + 1) (Wang et al. 2017, Sec. 4.4), at least 2."""
    return max(2, int(round(math.exp(check_eps(eps)) + 1)))


def lh_exact(p, q) -> ExactEpsilon:
    """Exact ε of local hashing whose GRR step has probabilities (``p``, ``q``).

    A report (h, v) has probability P(h)·(p if h(x) = v else q); the hash family's law cancels,
    so the classes (h(x) = v, h(x') = v) ∈ {0,1}² index the per-output table. The class (1, 0)
    occurs for every pair x ≠ x' under the family h_{a,b} (a ≠ 0 separates x and x' for some b).
    """
    table = {0: {(1, 1): p, (1, 0): p, (0, 1): q, (0, 0): q}, 1: {(1, 1): p, (1, 0): q, (0, 1): p, (0, 0): q}}
    return worst_case_ratio(table, method="symmetry", note="per-report classes (h(x)=v, h(x')=v); the hash law cancels")


def hash_values(x, a, b, g: int) -> np.ndarray:
    """h_{a,b}(x) = ((a·x + b) mod P) mod g on int64 arrays (P = 2^31 − 1; x < 2^31)."""
    return ((np.asarray(a, dtype=np.int64) * np.int64(x) + np.asarray(b, dtype=np.int64)) % HASH_PRIME) % g


def split_seed(seed) -> tuple[np.ndarray, np.ndarray]:
    """The (a, b) of a local-hashing seed ``a·P + b`` (see :class:`_LocalHashing`)."""
    s = np.asarray(seed, dtype=np.int64)
    return s // HASH_PRIME, s % HASH_PRIME


class _LocalHashing(Mechanism):
    """Report (seed, v): seed = a·P + b picks h_{a,b}, v = GRR_g(h_{a,b}(x))."""

    output_kind = "vector"
    #: the auto-views recognise this family by this name (see privcheck.auditor.autoviews)
    hash_family = "carter-wegman-mersenne31"

    def _setup(self, d: int, eps: float, g: int) -> None:
        self.d = check_int("d", d, minimum=2, maximum=HASH_PRIME - 1)
        self.eps_nominal = check_eps(eps)
        self.g = check_int("g", g, minimum=2)
        p, q = lh_probabilities(self.eps_nominal, self.g)
        self.p = float(p)

    def sample(self, x, n, rng):
        x = check_int("x", x, minimum=0, maximum=self.d - 1)
        a = rng.integers(1, HASH_PRIME, n, dtype=np.int64)
        b = rng.integers(0, HASH_PRIME, n, dtype=np.int64)
        v = sample_krr(hash_values(x, a, b, self.g), n, self.g, self.p, rng)
        return np.stack([a * HASH_PRIME + b, v], axis=1)

    def support(self, reports, domain) -> np.ndarray:
        """(n, len(domain)) uint8: report i supports y when h_seed(y) = v (the view of Sec. 4.4)."""
        reports = np.asarray(reports, dtype=np.int64)
        a, b = split_seed(reports[:, 0])
        return np.stack([hash_values(y, a, b, self.g) == reports[:, 1] for y in domain], axis=1).view(np.uint8)

    def inputs(self) -> list:
        return _small_inputs(self.d)

    def exact_epsilon(self) -> ExactEpsilon:
        """Exact ε from the per-report class table (:func:`lh_exact`)."""
        return lh_exact(*lh_probabilities(self.eps_nominal, self.g))

    def sampler_exact_epsilon(self) -> ExactEpsilon:
        """Exact ε of the keep probability the GRR step draws with (``self.p``, read exactly; the other hash
        values w.p. (1 − p)/(g − 1) each, as :func:`~estimators.direct_encoding.sample_krr` spreads them)."""
        p = mpmath.mpf(self.p)
        return lh_exact(p, (1 - p) / (self.g - 1))


class BinaryLocalHashing(_LocalHashing):
    """BLH over ``d`` ≥ 2 values (CLI ``blh``): hash to {0, 1}, then binary RR; ``eps`` > 0."""

    name = "blh"
    source = W2017 + ", Sec. 4.4 (BLH)"

    def __init__(self, d: int = 2, eps: float = 1.0):
        self._setup(d, eps, 2)
        self._params = {"d": self.d, "eps": self.eps_nominal}


class OptimisedLocalHashing(_LocalHashing):
    """OLH over ``d`` ≥ 2 values (CLI ``olh``): g = round(e^ε+1) unless ``g`` ≥ 2 is given; ``eps`` > 0."""

    name = "olh"
    source = W2017 + ", Sec. 4.4 (OLH)"

    def __init__(self, d: int = 2, eps: float = 1.0, g: int | None = None):
        self._setup(d, eps, olh_g(eps) if g is None else g)
        self._params = {"d": self.d, "eps": self.eps_nominal} | ({} if g is None else {"g": self.g})


# --------------------------------------------------------------------------- histogram encoding
class HistogramEncoding(Mechanism):
    """SHE over ``d`` ≥ 2 values (CLI ``he``): one-hot vector plus Laplace(2/ε) noise per coordinate."""

    name = "he"
    source = W2017 + ", Sec. 4.3 (SHE)"
    output_kind = "vector"

    def __init__(self, d: int = 2, eps: float = 1.0):
        self.d = check_int("d", d, minimum=2)
        self.eps_nominal = check_eps(eps)
        self._params = {"d": self.d, "eps": self.eps_nominal}

    def sample(self, x, n, rng):
        x = check_int("x", x, minimum=0, maximum=self.d - 1)
        out = rng.laplace(0.0, 2.0 / self.eps_nominal, (n, self.d))
        out[:, x] += 1.0
        return out

    def inputs(self) -> list:
        return _small_inputs(self.d)

    def exact_epsilon(self) -> ExactEpsilon:
        """Closed form: the ℓ1 distance of two one-hot vectors is 2, Laplace scale 2/ε, so ε = 2/(2/ε)."""
        eps = mpmath.mpf(2) / (mpmath.mpf(2) / mpmath.mpf(self.eps_nominal))
        return ExactEpsilon(
            eps=float(eps),
            eps_text=mpmath.nstr(eps, 40),
            worst_pair=(0, 1),
            worst_output="B_0 >= 1 and B_1 <= 0 (Laplace tails)",
            method="closed form",
            note="Laplace mechanism with sensitivity 2 and scale 2/eps",
        )


def the_probabilities(eps: float, theta: float) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(p, q) of THE: p = P(1 + L > θ) = 1 − ½e^{−(1−θ)ε/2}, q = P(L > θ) = ½e^{−θε/2}, L ~ Laplace(2/ε).

    ε > 0, θ in (0, 1) (Wang et al. 2017, Sec. 4.3).
    """
    eps = check_eps(eps)
    theta = check_in_interval("theta", theta, 0.0, 1.0, closed="neither")
    e, t = mpmath.mpf(eps), mpmath.mpf(theta)
    return 1 - mpmath.exp(-(1 - t) * e / 2) / 2, mpmath.exp(-t * e / 2) / 2


def the_variance(eps: float, theta: float) -> float:
    """THE's per-value estimator variance q(1−q)/(p−q)² (Wang et al. 2017, eq. 12 with n = 1)."""
    p, q = the_probabilities(eps, theta)
    return float(q * (1 - q) / (p - q) ** 2)


def the_theta(eps: float) -> float:
    """The θ in (1/2, 1) minimising :func:`the_variance` (golden-section search, to 1e-6)."""
    lo, hi = 0.5, 1.0 - 1e-9
    r = (math.sqrt(5) - 1) / 2
    while hi - lo > 1e-6:
        a, b = hi - r * (hi - lo), lo + r * (hi - lo)
        if the_variance(eps, a) < the_variance(eps, b):
            hi = b
        else:
            lo = a
    return round((lo + hi) / 2, 6)


class ThresholdedHistogramEncoding(_Unary):
    """THE over ``d`` ≥ 2 values (CLI ``the``): bits {B_i > θ} of SHE; ``theta`` in (0, 1) (default: optimal).

    The bits are independent: bit x is 1 w.p. p, the others w.p. q (:func:`the_probabilities`), so
    the sampler is the unary one with these probabilities (equal in law to thresholding SHE).
    """

    name = "the"
    source = W2017 + ", Sec. 4.3 (THE)"

    def __init__(self, d: int = 2, eps: float = 1.0, theta: float | None = None):
        self.d = check_int("d", d, minimum=2)
        self.eps_nominal = check_eps(eps)
        self.theta = (
            the_theta(self.eps_nominal)
            if theta is None
            else check_in_interval("theta", theta, 0.0, 1.0, closed="neither")
        )
        self._params = {"d": self.d, "eps": self.eps_nominal} | ({} if theta is None else {"theta": self.theta})
        p, q = the_probabilities(self.eps_nominal, self.theta)
        self.p, self.q = float(p), float(q)

    def exact_epsilon(self) -> ExactEpsilon:
        """Exact ε of the bits (:func:`unary_exact`); at most ε by post-processing of SHE."""
        return unary_exact(*the_probabilities(self.eps_nominal, self.theta), f"; theta = {self.theta:g}")


# --------------------------------------------------------------------------- Hadamard response
def hr_order(d: int) -> int:
    """K: the smallest power of two > d (rows 1..d of H_K index the inputs; row 0 is all ones)."""
    d = check_int("d", d, minimum=2)
    return 1 << d.bit_length()


def _parity(v: np.ndarray) -> np.ndarray:
    return (np.bitwise_count(v) & 1).astype(bool)


def hr_in_set(x, y) -> np.ndarray:
    """Whether y ∈ C_x, i.e. H_K[x+1, y] = (−1)^{popcount((x+1) & y)} = +1."""
    return ~_parity(np.bitwise_and(np.int64(x) + 1, np.asarray(y, dtype=np.int64)))


def hr_sets(d: int) -> list[set[int]]:
    """C_x for x in [d] (each of size K/2; distinct rows of H_K differ on K/2 columns)."""
    K = hr_order(d)
    ys = np.arange(K)
    return [set(ys[hr_in_set(x, ys)].tolist()) for x in range(d)]


class HadamardResponse(Mechanism):
    """Hadamard response over ``d`` ≥ 2 values (CLI ``hr``): y uniform in C_x w.p. e^ε/(e^ε+1); ``eps`` > 0."""

    name = "hr"
    source = ASZ2019 + ", Sec. 3 (HR with s = K/2)"

    def __init__(self, d: int = 2, eps: float = 1.0):
        self.d = check_int("d", d, minimum=2)
        self.eps_nominal = check_eps(eps)
        self.K = hr_order(self.d)
        self._params = {"d": self.d, "eps": self.eps_nominal}
        self.p_in = 1.0 / (1.0 + math.exp(-self.eps_nominal))

    def sample(self, x, n, rng):
        """Uniform y ∈ [K], moved into the wanted half by XOR with the lowest set bit of x+1 (a bijection
        that flips membership in C_x)."""
        x = check_int("x", x, minimum=0, maximum=self.d - 1)
        y = rng.integers(0, self.K, n, dtype=np.int64)
        want_in = rng.random(n) < self.p_in
        row = x + 1
        flip = hr_in_set(x, y) != want_in
        return np.where(flip, y ^ (row & -row), y)

    def inputs(self) -> list:
        return _small_inputs(self.d)

    def _law(self, x, outputs, p_in=None):
        """P(y | x) for ``outputs``: ``p_in``/(K/2) inside C_x, (1 − p_in)/(K/2) outside (p_in default e^ε/(e^ε+1))."""
        if p_in is None:
            e = _mp_exp(self.eps_nominal)
            p_in = e / (e + 1)
        half = mpmath.mpf(self.K) / 2
        inside, outside = p_in / half, (1 - p_in) / half
        return {o: (inside if ok else outside) for o, ok in zip(outputs, hr_in_set(x, np.asarray(outputs)).tolist())}

    def exact_epsilon(self, p_in=None) -> ExactEpsilon:
        """Exact ε: the full pmf for d ≤ 8 (enumeration), else inputs 0, 1 (all pairs alike: |C_x \\ C_x'| = K/4)."""
        if self.d <= ENUMERATE_MAX:
            ys = list(range(self.K))
            return worst_case_ratio({x: self._law(x, ys, p_in) for x in range(self.d)}, method="enumeration")
        ys = [0, 1, 2, 3]  # columns of every (C_0, C_1) membership class
        return worst_case_ratio(
            {x: self._law(x, ys, p_in) for x in (0, 1)},
            method="symmetry",
            note="outputs 0..3 cover the four membership classes of (C_0, C_1)",
        )

    def sampler_exact_epsilon(self) -> ExactEpsilon:
        """Exact ε of the probability the sampler draws "inside C_x" with (``self.p_in``, read exactly)."""
        return self.exact_epsilon(mpmath.mpf(self.p_in))


# --------------------------------------------------------------------------- subset selection
def ss_default_k(d: int, eps: float) -> int:
    """Subset size k = max(1, round(d/(e^ε+1))) (Ye–Barg 2018; Wang et al. 2016), at most d − 1."""
    return int(min(d - 1, max(1, round(d / (math.exp(check_eps(eps)) + 1)))))


def ss_include_probability(eps: float, d: int, k: int) -> mpmath.mpf:
    """P(x ∈ Z) = k e^ε/(k e^ε + d − k) for the k-subset mechanism; ε > 0, 1 ≤ k < d."""
    e = _mp_exp(eps)
    return k * e / (k * e + d - k)


def ss_output_law(eps: float, d: int, k: int, x: int, members: dict, p=None) -> dict:
    """Per-output probabilities of the k-subset mechanism: P(Z | x) = P(x∈Z)/C(d−1,k−1) if x ∈ Z, else
    P(x∉Z)/C(d−1,k). ``members`` maps an output key to the set it stands for; ``p`` = P(x∈Z) (default
    :func:`ss_include_probability`)."""
    p = ss_include_probability(eps, d, k) if p is None else p
    inc, exc = p / math.comb(d - 1, k - 1), (1 - p) / math.comb(d - 1, k)
    return {key: (inc if x in z else exc) for key, z in members.items()}


def sample_subsets(x, n: int, d: int, k: int, p_include: float, rng: np.random.Generator) -> np.ndarray:
    """(n, d) uint8 membership rows of k-subsets: x included w.p. ``p_include``, the rest uniform."""
    keys = rng.random((n, d))
    keys[:, x] = np.where(rng.random(n) < p_include, -1.0, 2.0)
    idx = np.argpartition(keys, k - 1, axis=1)[:, :k] if k < d else np.tile(np.arange(d), (n, 1))
    out = np.zeros((n, d), dtype=np.uint8)
    np.put_along_axis(out, idx, 1, axis=1)
    return out


class SubsetSelection(Mechanism):
    """k-subset selection over ``d`` ≥ 2 values (CLI ``ss``): output a k-subset as a membership bit vector.

    ``k`` in [1, d−1] (default :func:`ss_default_k`), ``eps`` > 0.
    """

    name = "ss"
    source = YB2018
    output_kind = "vector"

    def __init__(self, d: int = 2, eps: float = 1.0, k: int | None = None):
        self.d = check_int("d", d, minimum=2)
        self.eps_nominal = check_eps(eps)
        self.k = (
            ss_default_k(self.d, self.eps_nominal) if k is None else check_int("k", k, minimum=1, maximum=self.d - 1)
        )
        self._params = {"d": self.d, "eps": self.eps_nominal} | ({} if k is None else {"k": self.k})
        self.p_include = float(ss_include_probability(self.eps_nominal, self.d, self.k))

    def sample(self, x, n, rng):
        x = check_int("x", x, minimum=0, maximum=self.d - 1)
        return sample_subsets(x, n, self.d, self.k, self.p_include, rng)

    def inputs(self) -> list:
        return _small_inputs(self.d)

    def sampler_exact_epsilon(self) -> ExactEpsilon:
        """Exact ε of the inclusion probability the sampler draws with (``self.p_include``, read exactly)."""
        return self.exact_epsilon(mpmath.mpf(self.p_include))

    def exact_epsilon(self, p=None) -> ExactEpsilon:
        """Exact ε: every k-subset for d ≤ 8 (enumeration), else the classes (0 ∈ Z, 1 ∈ Z) of inputs 0, 1."""
        if self.d <= ENUMERATE_MAX:
            members = {z: set(z) for z in itertools.combinations(range(self.d), self.k)}
            xs = range(self.d)
            method, note = "enumeration", ""
        else:
            members = {}
            for a, b in itertools.product((0, 1), repeat=2):
                z = ({0} if a else set()) | ({1} if b else set())
                rest = [i for i in range(2, self.d)][: self.k - len(z)]
                if len(z) + len(rest) == self.k:
                    members[(a, b)] = z | set(rest)
            xs, method, note = (0, 1), "symmetry", "output classes (0 in Z, 1 in Z)"
        return worst_case_ratio(
            {x: ss_output_law(self.eps_nominal, self.d, self.k, x, members, p) for x in xs}, method=method, note=note
        )
