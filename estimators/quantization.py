"""sqSGD's stochastic K-level quantiser and PrivQuant_{K,∞} — 001 (sqSGD), eq. 5–6, Alg. 1, Thm 1, App. A.1.

Quantiser (eq. 5–6). Levels ``B_k = −U + 2(k−1)U/(K−1)``, ``k = 1..K``. A
coordinate ``X^j ∈ [B_{k*}, B_{k*+1})`` is rounded up to ``B_{k*+1}`` with
probability ``k*(X^j − B_{k*})/(2U)`` **as printed** (``corrected=False``), or
with ``(K−1)(X^j − B_{k*})/(2U)`` (``corrected=True``), the probability that
makes the rounding unbiased. The printed and the corrected rule coincide for
``K = 2`` and in the top bin ``k* = K−1``. ``X^j = U`` is put in the top bin
(it is then rounded to ``U`` with probability 1 under both rules).

PrivQuant (Alg. 1). With ``M(v, u) = #matches − #mismatches`` and
``τ = ⌈(d+κ+1)/2⌉``, ``M(v, u) > κ`` ⟺ ``v`` matches ``u`` in ``≥ τ``
coordinates. After quantising ``X`` to ``X̂ ∈ B^d``, ``V`` is uniform on
``S̄(X̂) = {v : matches ≥ τ}`` with probability ``p``, else uniform on
``S(X̂) = {v : matches ≤ τ−1}``; the client returns ``Z = V/m`` with ``m`` of
Alg. 1 step 3. Counting outputs by their number ``ℓ`` of matches,
``|S̄| = Σ_{ℓ≥τ} C(d,ℓ)(K−1)^{d−ℓ}``, ``|S| = Σ_{ℓ<τ} C(d,ℓ)(K−1)^{d−ℓ}``.

Exact arithmetic: the binomial sums are evaluated with ``mpmath`` (50 digits,
unbounded exponent range, so ``d`` in the tens of thousands works) or, with
``exact=True``, as Python integers / ``Fraction``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np

from estimators.base import ExactEpsilon, Mechanism
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_bool, check_eps, check_int, check_positive

_DPS = 50
mpmath.mp.dps = max(mpmath.mp.dps, _DPS)

# --------------------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------------------


def _check_K(K: Any) -> int:
    return check_int("K", K, minimum=2)


def _check_d(d: Any) -> int:
    return check_int("d", d, minimum=1)


def _check_U(U: Any) -> float:
    """U > 0, a normal float (≥ 2.2e−308) with 2U finite: the grid spacing 2U/(K−1) must be representable."""
    U = check_positive("U", U)
    if U < 2.2250738585072014e-308 or U > 1e300:
        raise PrivcheckUsageError(f"U must be in [2.2e-308, 1e300] (a normal float range for the grid), got {U!r}")
    return U


def _check_kappa(kappa: Any, d: int) -> int:
    return check_int("kappa", kappa, minimum=0, maximum=d - 1)


def _p_mp(p: Any) -> mpmath.mpf:
    """``p`` (float, int, Fraction, decimal string or mpf) as an mpf in [1/2, 1] (Alg. 1 requires p ≥ 1/2)."""
    if isinstance(p, bool):
        raise PrivcheckUsageError(f"p must be a probability in [0.5, 1], got {p!r}")
    if isinstance(p, mpmath.mpf):  # keep its full precision (calibrated p can be 1 − 1e−800)
        v = p
        if mpmath.isnan(v) or not (mpmath.mpf(1) / 2 <= v <= 1):
            raise PrivcheckUsageError(f"p must be a probability in [0.5, 1], got {p!r}")
        return v
    try:
        if isinstance(p, Fraction):
            v = mpmath.mpf(p.numerator) / p.denominator
        elif isinstance(p, str):
            with mpmath.workdps(max(_DPS, len(p) + 10)):
                v = +mpmath.mpf(p)
        else:
            v = mpmath.mpf(p)
    except (TypeError, ValueError):
        raise PrivcheckUsageError(f"p must be a probability in [0.5, 1], got {p!r}") from None
    if mpmath.isnan(v) or not (mpmath.mpf(1) / 2 <= v <= 1):
        raise PrivcheckUsageError(f"p must be a probability in [0.5, 1], got {p!r}")
    return v


def _p_fraction(p: Any) -> Fraction:
    """``p`` as an exact Fraction (floats are taken at their exact binary value)."""
    if isinstance(p, Fraction):
        out = p
    elif isinstance(p, (int, float, str)) and not isinstance(p, bool):
        try:
            out = Fraction(p)
        except (TypeError, ValueError):
            raise PrivcheckUsageError(f"p must be a probability in [0.5, 1], got {p!r}") from None
    else:
        raise PrivcheckUsageError(f"p must be a rational probability in [0.5, 1] for exact=True, got {p!r}")
    if not (Fraction(1, 2) <= out <= 1):
        raise PrivcheckUsageError(f"p must be a probability in [0.5, 1], got {p!r}")
    return out


def _binom(n: int, k: int) -> int:
    """C(n, k), zero outside 0 ≤ k ≤ n."""
    return math.comb(n, k) if 0 <= k <= n else 0


# --------------------------------------------------------------------------------------
# the quantiser (eq. 5–6)
# --------------------------------------------------------------------------------------


#: bytes per quantisation level while the levels are built (int64 index, float64 level, temporaries)
_BYTES_PER_LEVEL = 32
#: bytes per term of the exact PrivQuant sums (three lists of 50-digit mpmath numbers)
_BYTES_PER_TERM_MP = 3 * 120


def grid_levels(K: int, U: float = 1.0) -> np.ndarray:
    """The K quantisation levels ``B_k = −U + 2(k−1)U/(K−1)``, k = 1..K (001 eq. 5), as floats.

    ``K`` ≥ 2 with the levels' memory (about 32 bytes each) within
    :func:`privcheck.base.resources.memory_limit` (refused up front otherwise).
    """
    from privcheck.base.resources import check_memory

    K = _check_K(K)
    U = _check_U(U)
    check_memory(f"the K={K} quantisation levels", K * _BYTES_PER_LEVEL, "lower K")
    return -U + 2.0 * np.arange(K) * U / (K - 1)


def grid_levels_exact(K: int, U: Any = 1) -> list[Fraction]:
    """The levels of eq. 5 as Fractions (``U`` rational, e.g. an int or Fraction)."""
    K = _check_K(K)
    U = Fraction(U)
    if U <= 0:
        raise PrivcheckUsageError(f"U must be a positive finite number, got {U!r}")
    return [-U + Fraction(2 * k, K - 1) * U for k in range(K)]


def quantize_exact(x: Any, K: int, U: Any = 1, corrected: bool = False) -> tuple[int, Fraction]:
    """Exact rounding rule of eq. 6 for one rational coordinate ``x ∈ [−U, U]``.

    Returns ``(k0, q)``: ``x`` is rounded to level index ``k0 + 1`` (0-based) with
    probability ``q`` and to ``k0`` otherwise. ``k0 = k* − 1`` where ``k*`` is the
    1-based bin of eq. 6 (``x = U`` is in the top bin). ``q = k*(x − B_{k*})/(2U)``
    as printed, or ``(K−1)(x − B_{k*})/(2U)`` with ``corrected=True``.
    """
    K = _check_K(K)
    U = Fraction(U)
    x = Fraction(x)
    if not (-U <= x <= U):
        raise PrivcheckUsageError(f"x must be in [-U, U] = [{-U}, {U}], got {x}")
    t = (x + U) * (K - 1) / (2 * U)
    k0 = min(math.floor(t), K - 2)
    frac = t - k0  # (x − B_{k*}) (K−1)/(2U) ∈ [0, 1]
    kstar = k0 + 1
    q = frac if corrected else Fraction(kstar, K - 1) * frac
    return k0, q


def quantize_probabilities(x: Any, K: int, U: float = 1.0, corrected: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised eq. 6: lower level index ``k0`` (0-based, int) and round-up probability ``q`` per coordinate.

    ``x`` is an array with entries in ``[−U, U]``. Entries within ``1e−12`` (in bin
    units) of a level are treated as lying on it (float rounding of the bin index).
    """
    K = _check_K(K)
    U = _check_U(U)
    x = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(x)) or np.any(np.abs(x) > U):
        raise PrivcheckUsageError(f"x must have every coordinate in [-U, U] = [{-U:g}, {U:g}]")
    t = (x + U) * ((K - 1) / (2.0 * U))
    r = np.rint(t)
    on_grid = np.abs(t - r) <= 1e-12 * max(1, K)
    t = np.where(on_grid, r, t)
    k0 = np.minimum(np.floor(t), K - 2).astype(np.int64)
    frac = np.clip(t - k0, 0.0, 1.0)
    q = frac if corrected else frac * (k0 + 1) / (K - 1)
    return k0, q


def quantizer_mean(x: Any, K: int, U: float = 1.0, corrected: bool = False) -> np.ndarray:
    """Exact E[X̂^j] per coordinate (001 eq. 6): ``B_{k*} + q·2U/(K−1)``. Equals ``x`` iff the rule is unbiased there."""
    k0, q = quantize_probabilities(x, K, U, corrected)
    levels = grid_levels(K, U)
    return levels[k0] + q * (2.0 * U / (K - 1))


def quantizer_variance(x: Any, K: int, U: float = 1.0, corrected: bool = False) -> np.ndarray:
    """Exact Var[X̂^j] per coordinate (001 eq. 6): ``(2U/(K−1))² q(1−q)``."""
    _, q = quantize_probabilities(x, K, U, corrected)
    return (2.0 * U / (K - 1)) ** 2 * q * (1.0 - q)


def quantizer_mean_exact(x: Any, K: int, U: Any = 1, corrected: bool = False) -> Fraction:
    """E[X̂] for one rational coordinate, as a Fraction (001 eq. 5–6)."""
    k0, q = quantize_exact(x, K, U, corrected)
    levels = grid_levels_exact(K, U)
    return levels[k0] + q * (levels[k0 + 1] - levels[k0])


def sample_quantized_levels(x: Any, n: int, K: int, U: float, corrected: bool, rng: np.random.Generator) -> np.ndarray:
    """``n`` independent quantisations of the vector ``x`` (eq. 6): level indices, int64 array ``(n, d)``."""
    k0, q = quantize_probabilities(x, K, U, corrected)
    k0 = np.atleast_1d(k0)
    q = np.atleast_1d(q)
    up = rng.random((n, k0.size)) < q
    return k0[None, :] + up


def _as_vector(x: Any, d: int, U: float) -> np.ndarray:
    arr = np.asarray(x, dtype=float)
    if arr.ndim == 0:
        arr = np.full(d, float(arr))
    if arr.shape != (d,):
        raise PrivcheckUsageError(f"x must be a vector of length d={d}, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(np.abs(arr) > U):
        raise PrivcheckUsageError(f"x must have every coordinate in [-U, U] = [{-U:g}, {U:g}]")
    return arr


class Quantizer(Mechanism):
    """Stochastic K-level quantiser of 001 eq. 5–6 (CLI ``quantizer``); not a private mechanism.

    Parameters: ``d`` ≥ 1 (dimension), ``K`` ≥ 2 (levels), ``U`` > 0 (ℓ∞ bound),
    ``corrected`` (False: round-up probability ``k*(X−B_{k*})/(2U)`` as printed;
    True: ``(K−1)(X−B_{k*})/(2U)``, unbiased). ``sample(x, n, rng)`` returns the
    quantised vectors (values in the grid), shape ``(n, d)``.
    """

    name = "quantizer"
    source = "001_30a1c1c8dca8a50f.txt eq. 5-6"
    output_kind = "vector"

    def __init__(self, d: int = 1, K: int = 2, U: float = 1.0, corrected: bool = False):
        self.d = _check_d(d)
        self.K = _check_K(K)
        self.U = _check_U(U)
        self.corrected = check_bool("corrected", corrected)
        self.eps_nominal = math.inf
        self.levels = grid_levels(self.K, self.U)
        self._params = {"d": self.d, "K": self.K, "U": self.U, "corrected": self.corrected}

    def sample(self, x, n, rng):
        n = check_int("n", n, minimum=0)
        x = _as_vector(x, self.d, self.U)
        return self.levels[sample_quantized_levels(x, n, self.K, self.U, self.corrected, rng)]

    def mean(self, x) -> np.ndarray:
        """Exact E[X̂] per coordinate (closed form)."""
        return quantizer_mean(_as_vector(x, self.d, self.U), self.K, self.U, self.corrected)

    def variance(self, x) -> np.ndarray:
        """Exact Var[X̂] per coordinate (closed form)."""
        return quantizer_variance(_as_vector(x, self.d, self.U), self.K, self.U, self.corrected)

    def inputs(self) -> list:
        lv = self.levels
        mid = (lv[0] + lv[1]) / 2
        return [np.full(self.d, -self.U), np.full(self.d, self.U), np.full(self.d, mid)]

    def exact_epsilon(self) -> ExactEpsilon:
        """ε = ∞: the input −U·1 is output as −U·1 with probability 1, which U·1 never outputs."""
        return ExactEpsilon(
            eps=math.inf,
            eps_text="inf",
            worst_pair=(tuple([-self.U] * self.d), tuple([self.U] * self.d)),
            worst_output=tuple([-self.U] * self.d),
            method="closed form",
            note="the quantiser alone is not differentially private: grid inputs are reported exactly",
        )


# --------------------------------------------------------------------------------------
# PrivQuant (Alg. 1, Thm 1, App. A.1)
# --------------------------------------------------------------------------------------


def tau_of(d: int, kappa: int) -> int:
    """``τ = ⌈(d+κ+1)/2⌉`` (001 Thm 1): ``M(v, u) > κ`` iff ``v`` matches ``u`` in at least τ coordinates."""
    return (d + kappa + 2) // 2


@lru_cache(maxsize=64)
def _terms_mp(d: int, K: int) -> tuple:
    """(t_ℓ, prefix sums Σ_{ℓ'<ℓ}, suffix sums Σ_{ℓ'≥ℓ}) with t_ℓ = C(d, ℓ)(K−1)^{d−ℓ}, ℓ = 0..d, in mpmath (the number of outputs with ℓ matches)."""
    from privcheck.base.resources import check_memory

    check_memory(
        f"the exact PrivQuant sums for d={d} (d+1 terms in 50-digit arithmetic)",
        (d + 2) * _BYTES_PER_TERM_MP,
        "lower d",
    )
    with mpmath.workdps(_DPS):
        km = mpmath.mpf(K - 1)
        t = km**d
        terms = [t]
        for ell in range(d):
            t = t * (d - ell) / ((ell + 1) * km)
            terms.append(t)
        prefix = [mpmath.mpf(0)]
        acc = mpmath.mpf(0)
        for t in terms:
            acc += t
            prefix.append(acc)
        # suffix sums accumulated separately: |S̄| can be far below 10^-50 |S| (no cancellation)
        suffix = [mpmath.mpf(0)] * (d + 2)
        acc = mpmath.mpf(0)
        for ell in range(d, -1, -1):
            acc += terms[ell]
            suffix[ell] = acc
    return tuple(terms), tuple(prefix), tuple(suffix)


def binomial_sums(d: int, K: int, tau: int, exact: bool = False):
    """``(|S̄|, |S|) = (Σ_{ℓ=τ}^{d}, Σ_{ℓ=0}^{τ−1}) C(d,ℓ)(K−1)^{d−ℓ}`` (001 eq. 11 times K^d).

    mpmath values (50 digits), or Python ints with ``exact=True``. ``1 ≤ τ ≤ d``.
    """
    d = _check_d(d)
    K = _check_K(K)
    tau = check_int("tau", tau, minimum=1, maximum=d)
    if exact:
        up = sum(math.comb(d, ell) * (K - 1) ** (d - ell) for ell in range(tau, d + 1))
        return up, K**d - up
    _, prefix, suffix = _terms_mp(d, K)
    return suffix[tau], prefix[tau]


def _validated(d, K, kappa):
    d = _check_d(d)
    K = _check_K(K)
    kappa = _check_kappa(kappa, d)
    return d, K, kappa, tau_of(d, kappa)


def lhs_eq8(d: int, K: int, kappa: int, p: Any, exact: bool = False):
    """Left side of relation (8) of 001 Thm 1, as printed: ``p/(1−p) · |S| / |S̄|``.

    ``|S| = Σ_{ℓ=0}^{τ−1} C(d,ℓ)(K−1)^{d−ℓ}``, ``|S̄| = Σ_{ℓ=τ}^{d} …``, ``τ = ⌈(d+κ+1)/2⌉``.
    Parameters: d ≥ 1, K ≥ 2, κ ∈ {0..d−1}, p ∈ [1/2, 1]. Returns an mpf (``+inf``
    for p = 1), or a Fraction with ``exact=True`` (p rational, p < 1).
    """
    d, K, kappa, tau = _validated(d, K, kappa)
    if exact:
        pf = _p_fraction(p)
        if pf == 1:
            raise PrivcheckUsageError("p must be < 1 for an exact (finite) LHS(8), got 1")
        up, low = binomial_sums(d, K, tau, exact=True)
        return pf / (1 - pf) * Fraction(low, up)
    pm = _p_mp(p)
    up, low = binomial_sums(d, K, tau)
    with mpmath.workdps(_DPS):
        if pm == 1:
            return mpmath.inf
        return pm / (1 - pm) * low / up


def log_lhs_eq8(d: int, K: int, kappa: int, p: Any) -> mpmath.mpf:
    """``log`` of :func:`lhs_eq8` (mpf, 50 digits; ``+inf`` for p = 1)."""
    v = lhs_eq8(d, K, kappa, p)
    with mpmath.workdps(_DPS):
        return mpmath.inf if mpmath.isinf(v) else mpmath.log(v)


def normalising_factor_m(d: int, K: int, kappa: int, p: Any, exact: bool = False):
    """Normalising factor of 001 Alg. 1 step 3, as printed:

    ``m = p·C(d−1,τ−1)(K−1)^{d−τ}/|S̄| − (1−p)·C(d−1,τ−1)(K−1)^{d−τ}/|S|``.

    Returns an mpf, or a Fraction with ``exact=True`` (p rational).
    """
    d, K, kappa, tau = _validated(d, K, kappa)
    if exact:
        pf = _p_fraction(p)
        up, low = binomial_sums(d, K, tau, exact=True)
        c = _binom(d - 1, tau - 1) * (K - 1) ** (d - tau)
        return pf * Fraction(c, up) - (1 - pf) * Fraction(c, low)
    pm = _p_mp(p)
    up, low = binomial_sums(d, K, tau)
    with mpmath.workdps(_DPS):
        c = mpmath.binomial(d - 1, tau - 1) * mpmath.mpf(K - 1) ** (d - tau)
        return pm * c / up - (1 - pm) * c / low


def normalising_factor_m_appendix(d: int, K: int, kappa: int, p: Any, exact: bool = False):
    """Normalising factor as printed in 001 App. A.1 (last display of the unbiasedness proof):

    ``m = p·C(d−1,τ−1)(K−1)^{d−τ}/|S̄| − (1−p)·C(d−1,d−τ−1)(K−1)^{d−τ}/|S|``
    (the Υ2 coefficient is ``C(d−1, d−τ−1)``, zero when ``d−τ−1 < 0``).
    Returns an mpf, or a Fraction with ``exact=True``.
    """
    d, K, kappa, tau = _validated(d, K, kappa)
    if exact:
        pf = _p_fraction(p)
        up, low = binomial_sums(d, K, tau, exact=True)
        c1 = _binom(d - 1, tau - 1) * (K - 1) ** (d - tau)
        c2 = _binom(d - 1, d - tau - 1) * (K - 1) ** (d - tau)
        return pf * Fraction(c1, up) - (1 - pf) * Fraction(c2, low)
    pm = _p_mp(p)
    up, low = binomial_sums(d, K, tau)
    with mpmath.workdps(_DPS):
        km = mpmath.mpf(K - 1) ** (d - tau)
        c1 = mpmath.binomial(d - 1, tau - 1) * km
        c2 = (mpmath.binomial(d - 1, d - tau - 1) if d - tau - 1 >= 0 else 0) * km
        return pm * c1 / up - (1 - pm) * c2 / low


def match_count_probabilities(d: int, K: int, kappa: int, p: Any, exact: bool = False) -> list:
    """``P(V = v | X̂ = u)`` as a function of the number ℓ = 0..d of coordinates where v matches u.

    ``p/|S̄|`` for ℓ ≥ τ, ``(1−p)/|S|`` for ℓ < τ (001 Alg. 1 step 2). mpf values, or
    Fractions with ``exact=True``.
    """
    d, K, kappa, tau = _validated(d, K, kappa)
    if exact:
        pf = _p_fraction(p)
        up, low = binomial_sums(d, K, tau, exact=True)
        hi, lo = pf / up, (1 - pf) / low
    else:
        pm = _p_mp(p)
        up, low = binomial_sums(d, K, tau)
        with mpmath.workdps(_DPS):
            hi, lo = pm / up, (1 - pm) / low
    return [hi if ell >= tau else lo for ell in range(d + 1)]


def privquant_distribution_bruteforce(u: tuple, K: int, kappa: int, p: Any) -> dict[tuple, Fraction]:
    """Exact output distribution of 001 Alg. 1 step 2 for a grid input, by enumerating all K^d outputs.

    ``u``: level indices (0..K−1) of X̂, length d. Uses the definition
    ``M(v, u) = #{v^j = u^j} − #{v^j ≠ u^j}`` and ``S̄ = {M > κ}``, ``S = {M ≤ κ}``
    directly (no τ, no binomial sums), with ``p`` rational. Returns
    ``{v (level indices): P(V = v | X̂ = u)}`` as Fractions. Only for K^d ≤ 100 000.
    """
    import itertools

    K = _check_K(K)
    u = tuple(int(a) for a in u)
    d = len(u)
    _check_d(d)
    kappa = _check_kappa(kappa, d)
    if K**d > 100_000:
        raise PrivcheckUsageError(f"K^d must be <= 100000 for brute-force enumeration, got {K}^{d}")
    if any(not 0 <= a < K for a in u):
        raise PrivcheckUsageError(f"u must hold level indices in [0, {K - 1}], got {u}")
    pf = _p_fraction(p)
    outs = list(itertools.product(range(K), repeat=d))
    close = []
    for v in outs:
        match = sum(1 for a, b in zip(v, u) if a == b)
        close.append(match - (d - match) > kappa)
    n_up = sum(close)
    n_low = len(outs) - n_up
    return {v: (pf / n_up if c else (1 - pf) / n_low) for v, c in zip(outs, close)}


def achievable_match_pairs(d: int, K: int) -> list[tuple[int, int]]:
    """Pairs (ℓ, ℓ') such that some inputs u, u' ∈ B^d and output v have ℓ = #{v = u}, ℓ' = #{v = u'}.

    With h = Hamming distance of u and u', v matches both in a ≤ d−h agreeing
    coordinates and, among the h differing ones, u in b and u' in c with
    b + c ≤ h (b + c = h when K = 2). Taking a = max(0, ℓ+ℓ'−d), h = ℓ+ℓ'−2a,
    b = ℓ−a, c = ℓ'−a shows every pair in {0..d}² is achievable for every K ≥ 2;
    the enumeration below verifies it from the constraints (O(d²) pairs, used for
    small d only by the tests; :func:`privquant_exact_epsilon` uses the result).
    """
    d = _check_d(d)
    K = _check_K(K)
    out = []
    for ell in range(d + 1):
        for ell2 in range(d + 1):
            ok = False
            for a in range(0, min(ell, ell2) + 1):
                b, c = ell - a, ell2 - a
                for h in range(b + c, d - a + 1):
                    if K == 2 and b + c != h:
                        continue
                    ok = True
                    break
                if ok:
                    break
            if ok:
                out.append((ell, ell2))
    return out


def privquant_exact_epsilon(d: int, K: int, kappa: int, p: Any, U: float = 1.0) -> ExactEpsilon:
    """Exact worst-case log-likelihood ratio of PrivQuant_{K,∞}(κ, p) (001 Alg. 1), by symmetry.

    ``P(v | u)`` depends only on the match count ℓ of v with u (table
    :func:`match_count_probabilities`), and every pair (ℓ, ℓ') is achievable by some
    inputs u, u' and output v (:func:`achievable_match_pairs`), so the exact ε over
    grid inputs is ``log(max_ℓ P_ℓ / min_ℓ P_ℓ)``. For off-grid inputs ``P(v | X)``
    is a mixture over the quantiser's outcomes of these values, so the supremum over
    ``[−U, U]^d`` is the same and is attained at grid points. Maximising pair:
    ``X = −U·1``, ``X' = U·1`` (all coordinates differ), output ``v = X``.
    """
    table = match_count_probabilities(d, K, kappa, p)
    with mpmath.workdps(_DPS):
        hi_l = max(range(len(table)), key=lambda i: table[i])
        lo_l = min(range(len(table)), key=lambda i: table[i])
        hi, lo = table[hi_l], table[lo_l]
        ratio = mpmath.inf if lo == 0 else hi / lo
        eps_text = "inf" if mpmath.isinf(ratio) else mpmath.nstr(mpmath.log(ratio), 40)
        eps = math.inf if mpmath.isinf(ratio) else float(mpmath.log(ratio))
    tau = tau_of(d, kappa)
    x, x2 = tuple([-float(U)] * d), tuple([float(U)] * d)
    # the output matching x everywhere has ℓ = d w.r.t. x and ℓ' = 0 w.r.t. x2
    if hi_l >= tau:
        pair, out = (x, x2), x
    else:
        pair, out = (x2, x), x
    return ExactEpsilon(
        eps=eps,
        eps_text=eps_text,
        worst_pair=pair,
        worst_output=out,
        method="symmetry",
        note=(
            "P(v|u) depends only on the match count of v with u: p/|S̄| for ≥ τ matches, (1−p)/|S| below; "
            "every (ℓ, ℓ') pair is achievable, so ε = log(max/min) = log p|S|/((1−p)|S̄|) when p/|S̄| ≥ (1−p)/|S|"
        ),
        extra={
            "tau": tau,
            "S_up": mpmath.nstr(binomial_sums(d, K, tau)[0], 30),
            "S_low": mpmath.nstr(binomial_sums(d, K, tau)[1], 30),
            "log_lhs_eq8": mpmath.nstr(log_lhs_eq8(d, K, kappa, p), 40),
        },
    )


@dataclass(frozen=True)
class Calibration:
    """Result of the Sec. 4 calibration rule (001 Sec. 4).

    feasible: some κ ∈ {0..d−1} has LHS(8) ≤ e^{0.9ε}; kappa: the largest such κ
    (None if infeasible); p: e^{0.1ε}/(1+e^{0.1ε}) (as a float and as a
    decimal string with enough digits to keep 1 − p); log_lhs: log LHS(8) at the chosen κ (at κ = 0 when
    infeasible); min_log_lhs: log LHS(8) at κ = 0, the smallest value any κ gives;
    p_mp: p as an mpf carrying enough digits that 1 − p is exact to 50 digits.
    """

    eps: float
    d: int
    K: int
    feasible: bool
    kappa: int | None
    p: float
    p_text: str
    log_lhs: float
    min_log_lhs: float
    p_mp: Any = None


def calibrate(eps: float, d: int, K: int) -> Calibration:
    """The experiments' rule of 001 Sec. 4: κ_ε the largest integer in {0..d−1} with
    LHS(8) ≤ e^{0.9ε}, p_ε = e^{0.1ε}/(1+e^{0.1ε}).

    LHS(8) is non-decreasing in κ (τ grows, |S̄| shrinks), so the rule picks the
    largest τ whose log LHS(8) ≤ 0.9ε (compared in 50-digit arithmetic) and
    κ = min(d−1, 2τ−d−1). Returns a :class:`Calibration`; ``feasible`` is False
    when even κ = 0 violates the inequality.
    """
    eps = check_eps(eps)
    if eps > 1e4:
        raise PrivcheckUsageError(
            f"the Sec. 4 calibration is computed for eps <= 10000 (it needs eps/23 digits), got {eps:g}"
        )
    d = _check_d(d)
    K = _check_K(K)
    # p = 1 − e^{−0.1ε}/(1+e^{−0.1ε}): keep enough digits that 1 − p survives
    digits = _DPS + int(math.ceil(0.1 * eps / math.log(10))) + 5
    with mpmath.workdps(digits):
        e = mpmath.exp(-mpmath.mpf(eps) / 10)
        p = 1 / (1 + e)
        p_text = mpmath.nstr(p, digits)
    with mpmath.workdps(_DPS):
        logodds = mpmath.mpf(eps) / 10
        target = mpmath.mpf(eps) * 9 / 10
        _, prefix, suffix = _terms_mp(d, K)

        def log_lhs_tau(tau):
            return logodds + mpmath.log(prefix[tau]) - mpmath.log(suffix[tau])

        tau_min = tau_of(d, 0)
        tau_max = tau_of(d, d - 1)
        if log_lhs_tau(tau_min) > target:
            best_tau = None
        else:
            lo, hi = tau_min, tau_max  # invariant: log_lhs(lo) ≤ target
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if log_lhs_tau(mid) <= target:
                    lo = mid
                else:
                    hi = mid - 1
            best_tau = lo
        min_log = log_lhs_tau(tau_min)
        if best_tau is None:
            return Calibration(eps, d, K, False, None, float(p), p_text, float(min_log), float(min_log), p)
        kappa = min(d - 1, 2 * best_tau - d - 1)
        assert tau_of(d, kappa) == best_tau
        return Calibration(eps, d, K, True, kappa, float(p), p_text, float(log_lhs_tau(best_tau)), float(min_log), p)


def _log_weights(d: int, K: int, lo: int, hi: int) -> np.ndarray:
    """Normalised log-probabilities of ℓ = lo..hi with weights C(d,ℓ)(K−1)^{d−ℓ} (float64, log space)."""
    from scipy.special import gammaln, logsumexp  # here, not at import: keeps scipy off the audit start-up

    ell = np.arange(lo, hi + 1)
    lw = gammaln(d + 1) - gammaln(ell + 1) - gammaln(d - ell + 1) + (d - ell) * math.log(K - 1)
    return lw - logsumexp(lw)


def sample_privquant_levels(
    levels_hat: np.ndarray, K: int, kappa: int, p: float, rng: np.random.Generator, chunk_elems: int = 1 << 21
) -> np.ndarray:
    """Step 2 of 001 Alg. 1, vectorised: one V per row of ``levels_hat`` (level indices, int ``(n, d)``).

    Per row: branch S̄ with probability ``p``; the match count ℓ is drawn with
    probability ∝ C(d,ℓ)(K−1)^{d−ℓ} on the branch's range (ℓ ≥ τ or ℓ < τ), the ℓ
    matching coordinates uniformly (the ℓ smallest of d uniform keys), and every
    other coordinate uniformly among the K−1 other levels. This is the uniform
    distribution on the branch's set. Returns level indices ``(n, d)``.
    """
    n, d = levels_hat.shape
    tau = tau_of(d, kappa)
    cdf_up = np.cumsum(np.exp(_log_weights(d, K, tau, d)))
    cdf_low = np.cumsum(np.exp(_log_weights(d, K, 0, tau - 1)))
    out = np.empty_like(levels_hat)
    rows = max(1, chunk_elems // max(d, 1))
    for start in range(0, n, rows):
        u_hat = levels_hat[start : start + rows]
        m = u_hat.shape[0]
        high = rng.random(m) < p
        u = rng.random(m)
        ell_up = tau + np.minimum(np.searchsorted(cdf_up, u * cdf_up[-1], side="right"), d - tau)
        ell_low = np.minimum(np.searchsorted(cdf_low, u * cdf_low[-1], side="right"), tau - 1)
        ell = np.where(high, ell_up, ell_low)
        keys = rng.random((m, d))
        srt = np.sort(keys, axis=1)
        thr = np.where(ell > 0, srt[np.arange(m), np.maximum(ell - 1, 0)], -1.0)
        match = keys <= thr[:, None]
        offset = rng.integers(1, K, size=(m, d)) if K > 2 else np.ones((m, d), dtype=np.int64)
        out[start : start + m] = np.where(match, u_hat, (u_hat + offset) % K)
    return out


class PrivQuant(Mechanism):
    """PrivQuant_{K,∞}(κ, p) of 001 Alg. 1 (CLI ``privquant``), including the quantisation step 1.

    Parameters: ``d`` ≥ 1, ``K`` ≥ 2, ``kappa`` ∈ {0..d−1}, ``p`` ∈ [1/2, 1] (float,
    Fraction or decimal string; kept to 50 digits for the exact ε), ``U`` > 0,
    ``eps`` > 0 optional (the claimed ε; default log LHS(8)); when ``kappa`` and
    ``p`` are both omitted, ``eps`` is required and they are set by the Sec. 4
    rule (:func:`calibrate`). ``corrected``: quantise with the unbiased rule
    instead of the printed eq. 6. ``output``: ``"Z"`` (default, ``V/m`` as Alg. 1
    returns), ``"V"`` (grid values) or ``"levels"`` (level indices 0..K−1).
    ``sample(x, n, rng)``: ``x`` a vector in ``[−U, U]^d``; returns ``(n, d)``.
    """

    name = "privquant"
    source = "001_30a1c1c8dca8a50f.txt Alg. 1, Thm 1"
    output_kind = "vector"

    def __init__(
        self,
        d: int = 4,
        K: int = 2,
        kappa: int | None = None,
        p: Any = None,
        U: float = 1.0,
        eps: float | None = None,
        corrected: bool = False,
        output: str = "Z",
    ):
        self.d = _check_d(d)
        self.K = _check_K(K)
        self.U = _check_U(U)
        self.corrected = check_bool("corrected", corrected)
        if output not in ("Z", "V", "levels"):
            raise PrivcheckUsageError(f"output must be one of Z, V, levels, got {output!r}")
        self.output = output
        self.calibration: Calibration | None = None
        if kappa is None and p is None:
            if eps is None:
                raise PrivcheckUsageError("give kappa and p, or eps to calibrate them by the Sec. 4 rule")
            cal = calibrate(eps, self.d, self.K)
            if not cal.feasible:
                raise PrivcheckUsageError(
                    f"eps={eps:g}: no kappa in [0, {self.d - 1}] has LHS(8) <= e^(0.9 eps) for d={self.d}, K={self.K} "
                    f"(kappa=0 gives log LHS(8) = {cal.min_log_lhs:.6g})"
                )
            self.calibration = cal
            kappa, p = cal.kappa, cal.p_mp
        elif kappa is None or p is None:
            raise PrivcheckUsageError("give both kappa and p (or neither, with eps, to calibrate)")
        self.kappa = _check_kappa(kappa, self.d)
        self.p_mp = _p_mp(p)
        self.p = float(self.p_mp)
        self.tau = tau_of(self.d, self.kappa)
        with mpmath.workdps(_DPS):
            self.m_mp = normalising_factor_m(self.d, self.K, self.kappa, self.p_mp)
            if self.m_mp <= 0:
                raise PrivcheckUsageError(
                    f"p={p} and kappa={self.kappa} give m <= 0 (V independent of X); need LHS(8) > 1"
                )
        self.m = float(self.m_mp)
        self.log_lhs = log_lhs_eq8(self.d, self.K, self.kappa, self.p_mp)
        self.eps_nominal = (
            check_eps(eps) if eps is not None else (math.inf if mpmath.isinf(self.log_lhs) else float(self.log_lhs))
        )
        self.levels = grid_levels(self.K, self.U)
        self._params = (
            {"d": self.d, "K": self.K, "kappa": self.kappa, "p": self.p, "U": self.U}
            | ({} if eps is None else {"eps": self.eps_nominal})
            | ({"corrected": True} if self.corrected else {})
            | ({} if output == "Z" else {"output": output})
        )

    def sample_levels(self, x, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` outputs as level indices ``(n, d)`` (steps 1–2 of Alg. 1)."""
        n = check_int("n", n, minimum=0)
        x = _as_vector(x, self.d, self.U)
        hat = sample_quantized_levels(x, n, self.K, self.U, self.corrected, rng)
        return sample_privquant_levels(hat, self.K, self.kappa, self.p, rng)

    def sample(self, x, n, rng):
        lv = self.sample_levels(x, n, rng)
        if self.output == "levels":
            return lv
        v = self.levels[lv]
        return v if self.output == "V" else v / self.m

    def to_levels(self, outputs: np.ndarray) -> np.ndarray:
        """Map outputs of :meth:`sample` (any ``output`` mode) back to level indices 0..K−1."""
        a = np.asarray(outputs, dtype=float)
        if self.output == "levels":
            return a.astype(np.int64)
        v = a if self.output == "V" else a * self.m
        return np.rint((v + self.U) * (self.K - 1) / (2 * self.U)).astype(np.int64)

    def match_counts(self, outputs: np.ndarray, u) -> np.ndarray:
        """Per output row, the number ℓ of coordinates equal to the grid point ``u`` (a vector in B^d).

        ``P(V = v | X̂ = u)`` depends on ``v`` only through ℓ (Alg. 1 step 2), so ℓ is a
        sufficient statistic for audits: under input ``u``, ``P(ℓ) = p·t_ℓ/|S̄|`` for
        ℓ ≥ τ and ``(1−p)·t_ℓ/|S|`` below, ``t_ℓ = C(d,ℓ)(K−1)^{d−ℓ}``.
        """
        u = _as_vector(u, self.d, self.U)
        ul = np.rint((u + self.U) * (self.K - 1) / (2 * self.U)).astype(np.int64)
        if not np.allclose(self.levels[ul], u, rtol=0, atol=1e-9 * self.U):
            raise PrivcheckUsageError("u must be a grid point: every coordinate one of the K levels of eq. 5")
        return (self.to_levels(outputs) == ul[None, :]).sum(axis=1)

    def inputs(self) -> list:
        """The whole grid B^d when K^d ≤ 16; else −U·1, U·1 (differ everywhere: the worst pair) and an alternating vector."""
        if self.d * math.log2(self.K) <= 4:  # K^d <= 16, without computing K^d for large d
            grid = np.array(np.meshgrid(*[self.levels] * self.d, indexing="ij")).reshape(self.d, -1).T
            return [row.copy() for row in grid]
        alt = np.where(np.arange(self.d) % 2 == 0, -self.U, self.U)
        return [np.full(self.d, -self.U), np.full(self.d, self.U), alt]

    def exact_epsilon(self) -> ExactEpsilon:
        """Exact ε over all inputs in [−U, U]^d and outputs (see :func:`privquant_exact_epsilon`)."""
        return privquant_exact_epsilon(self.d, self.K, self.kappa, self.p_mp, self.U)


# --------------------------------------------------------------------------------------
# reconstruction protection, 001 Theorem 1, eq. 9
# --------------------------------------------------------------------------------------
def _omega_args(a: Any, r: Any, eps: Any, rho0: Any) -> tuple[float, float, float, float]:
    from privcheck.base.validation import check_in_interval, check_nonnegative

    return (
        check_in_interval("a", a, 0.0, 1.0),
        check_in_interval("r", r, 1.0, math.inf, closed="left"),
        check_nonnegative("eps", eps),
        check_nonnegative("rho0", rho0),
    )


def reconstruction_log_omega(a: Any, r: Any, eps: Any, rho0: Any = 0.0, *, exact: bool = False):
    """log ω(a) of 001 (sqSGD) Theorem 1, eq. 9: ``log √8 − (r−1)a²/2 + ε + ρ0``.

    a: the reconstruction accuracy parameter in [0, 1]; r ≥ 1 (the paper's r; r = O(d)); eps ≥ 0 the
    LDP level; rho0 ≥ 0 the adversary's prior parameter ρ0. Float by default (no overflow: the log),
    a 50-digit ``mpmath.mpf`` with ``exact=True``.
    """
    a, r, eps, rho0 = _omega_args(a, r, eps, rho0)
    if exact:
        with mpmath.workdps(_DPS):
            A = mpmath.mpf(a)
            return mpmath.log(mpmath.sqrt(8)) - (mpmath.mpf(r) - 1) * A * A / 2 + mpmath.mpf(eps) + mpmath.mpf(rho0)
    return 1.5 * math.log(2.0) - (r - 1.0) * a * a / 2.0 + eps + rho0


def reconstruction_omega(a: Any, r: Any, eps: Any, rho0: Any = 0.0, *, exact: bool = False):
    """ω(a) = √8·exp(−(r−1)a²/2)·exp(ε+ρ0), 001 (sqSGD) Theorem 1, eq. 9, as printed.

    PrivQuant_{K,∞} is claimed (√(2−2a), ω(a), f_A)-protected against reconstruction; ω bounds a
    probability, so values ≥ 1 are vacuous. Parameters as in :func:`reconstruction_log_omega`;
    returns a float (``inf`` past the float range) or, with ``exact=True``, a 50-digit ``mpmath.mpf``.
    """
    log_w = reconstruction_log_omega(a, r, eps, rho0, exact=exact)
    if exact:
        with mpmath.workdps(_DPS):
            return mpmath.exp(log_w)
    return math.exp(log_w) if log_w < 709.0 else math.inf


def reconstruction_nonvacuous_a(r: Any, eps: Any, rho0: Any = 0.0) -> float | None:
    """The smallest a in [0, 1] with ω(a) ≤ 1 (eq. 9 informative from there on), or None if no a ≤ 1 gives it.

    a* = √(2(ε + ρ0 + log √8)/(r − 1)) (solving log ω(a) = 0); r = 1 never gives ω < 1 (ω is then constant).
    Evaluated with 50 digits and rounded up to the next float, so that ω(a*) ≤ 1 holds exactly at the
    returned float (several float operations would each add their own rounding error).
    """
    import mpmath

    _, r, eps, rho0 = _omega_args(0.0, r, eps, rho0)
    if r == 1.0:
        return None
    with mpmath.workdps(50):
        exact = mpmath.sqrt(2 * (mpmath.mpf(eps) + mpmath.mpf(rho0) + mpmath.log(8) / 2) / (mpmath.mpf(r) - 1))
        a_star = float(exact)
        if mpmath.mpf(a_star) < exact:
            a_star = math.nextafter(a_star, math.inf)
    return a_star if a_star <= 1.0 else None
