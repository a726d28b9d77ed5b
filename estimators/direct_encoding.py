"""Direct encoding (k-ary randomised response) — 003 (Biswas, Cormode, Maple), Def. 2.3–2.4.

Over a domain {0, …, m−1}, report the true value with probability
p = e^ε/(e^ε + m − 1) and each other value with q = 1/(e^ε + m − 1).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from estimators.base import Mechanism
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_eps, check_int, check_probability

if TYPE_CHECKING:
    from privcheck.base.exact import ExactEpsilon

#: the largest domain the sampler draws faithfully: one float64 uniform (53 random bits) picks the report
MAX_M = 2**53


def de_probabilities(eps: float, m: int) -> tuple[float, float]:
    """(p, q) of direct encoding: p = e^ε/(e^ε+m−1), q = 1/(e^ε+m−1) (003, Def. 2.3)."""
    eps = check_eps(eps)
    m = check_int("m", m, minimum=2)
    w = (m - 1) * math.exp(-eps)  # e^{-ε} underflows to 0 instead of overflowing
    return 1.0 / (1.0 + w), math.exp(-eps) / (1.0 + w)


def sample_krr(x, n: int, m: int, p: float, rng: np.random.Generator) -> np.ndarray:
    """``n`` k-RR reports of input(s) ``x``: keep w.p. ``p``, else a uniform *other* value.

    One uniform draw per report: ``u < p`` keeps ``x``; otherwise
    ``j = floor((u − p)/(1 − p)·(m − 1))`` indexes the other values. ``x`` may be
    a scalar or an array of length ``n``. Returns int64 codes in [0, m).
    """
    u = rng.random(n)
    x = np.asarray(x, dtype=np.int64)
    if p >= 1.0:
        return np.broadcast_to(x, (n,)).astype(np.int64)
    j = ((u - p) * ((m - 1) / (1.0 - p))).astype(np.int64)
    np.clip(j, 0, m - 2, out=j)
    other = j + (j >= x)
    return np.where(u < p, x, other)


class DirectEncoding(Mechanism):
    """k-RR over ``m`` values (CLI ``de``); optional ``p`` overrides the keep probability.

    Parameters: ``m`` integer in [2, :data:`MAX_M` = 2^53] (domain size), ``eps`` > 0 (claimed ε),
    ``p`` in (0, 1] (keep probability; default e^ε/(e^ε+m−1), the paper's).
    Overriding ``p`` builds a deliberately mis-calibrated variant for tests.
    """

    name = "de"
    source = "003_e5d52747d9985dd0.txt Def. 2.3"
    output_kind = "discrete"

    def __init__(self, m: int = 2, eps: float = 1.0, p: float | None = None):
        self.m = check_int("m", m, minimum=2)
        if self.m > MAX_M:
            raise PrivcheckUsageError(
                f"m must be an integer in [2, 2^53 = {MAX_M}], got m={self.m}: the sampler picks the reported "
                "value with one 53-bit uniform draw, which cannot reach every one of more values (and above "
                "2^63 - 1 its 64-bit codes overflow, which would refute a correct claim)"
            )
        self.eps_nominal = check_eps(eps)
        default_p, _ = de_probabilities(self.eps_nominal, self.m)
        self.p = default_p if p is None else check_probability("p", p, open_low=True)
        self.q = (1.0 - self.p) / (self.m - 1)
        self._params = {"m": self.m, "eps": self.eps_nominal} | ({} if p is None else {"p": self.p})
        self._p_given = p

    def sample(self, x, n, rng):
        x = check_int("x", x, minimum=0, maximum=self.m - 1)
        return sample_krr(x, n, self.m, self.p, rng)

    def inputs(self) -> list:
        return list(range(self.m)) if self.m <= 16 else [0, 1]

    def exact_epsilon(self) -> ExactEpsilon:
        """Closed form: ε = log(p/q), attained at inputs (0, 1) and output 0 (by symmetry)."""
        from fractions import Fraction

        import mpmath

        mpmath.mp.dps = max(mpmath.mp.dps, 50)
        if self._p_given is None:
            e = mpmath.e ** mpmath.mpf(self.eps_nominal)
            p = e / (e + self.m - 1)
        else:
            p = mpmath.mpf(Fraction(self._p_given).numerator) / Fraction(self._p_given).denominator
        return krr_exact(p, self.m, "log(p/q); every output is kept w.p. p and each other w.p. q")

    def sampler_exact_epsilon(self) -> ExactEpsilon:
        """Exact ε of the keep probability the sampler draws with (``self.p``, read exactly), each other
        value w.p. (1 − p)/(m − 1) as :func:`sample_krr` spreads them."""
        import mpmath

        mpmath.mp.dps = max(mpmath.mp.dps, 50)
        return krr_exact(mpmath.mpf(self.p), self.m, "the sampler's float p (read exactly); q = (1 − p)/(m − 1)")


def krr_exact(p, m: int, note: str) -> ExactEpsilon:
    """Exact ε = |log(p/q)| of k-RR over ``m`` values with keep probability ``p`` (mpmath) and q = (1 − p)/(m − 1)."""
    import mpmath

    from privcheck.base.exact import ExactEpsilon

    q = (1 - p) / (m - 1)
    hi, lo = (p, q) if p >= q else (q, p)
    pair, out = ((0, 1), 0) if p >= q else ((1, 0), 0)
    ratio = hi / lo if lo > 0 else mpmath.inf
    eps = float(mpmath.log(ratio)) if not mpmath.isinf(ratio) else math.inf
    return ExactEpsilon(
        eps=eps,
        eps_text=mpmath.nstr(mpmath.log(ratio), 40) if eps != math.inf else "inf",
        worst_pair=pair,
        worst_output=out,
        method="closed form",
        note=note,
    )
