"""Direct encoding (k-ary randomised response) — 003 (Biswas, Cormode, Maple), Def. 2.3–2.4.

Over a domain {0, …, m−1}, report the true value with probability
p = e^ε/(e^ε + m − 1) and each other value with q = 1/(e^ε + m − 1).
"""

from __future__ import annotations

import contextlib
import math
from typing import TYPE_CHECKING, Iterator

import numpy as np

from estimators.base import Mechanism
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_eps, check_int, check_probability

if TYPE_CHECKING:
    import decimal
    from decimal import Decimal

    from privcheck.base.exact_eps import ExactEpsilon

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
    exact_in_mpmath = False  # the closed form runs in decimal at the precision ε needs (see _decimal_context)

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
        from decimal import Decimal

        with _decimal_context(self.eps_nominal) as ctx:
            if self._p_given is None:
                e = ctx.exp(Decimal(self.eps_nominal))
                p = e / (e + (self.m - 1))
            else:
                from fractions import Fraction

                given = Fraction(self._p_given)
                p = Decimal(given.numerator) / Decimal(given.denominator)
            return krr_exact(p, self.m, "log(p/q); every output is kept w.p. p and each other w.p. q")

    def sampler_exact_epsilon(self) -> ExactEpsilon:
        """Exact ε of the keep probability the sampler draws with (``self.p``, read exactly), each other
        value w.p. (1 − p)/(m − 1) as :func:`sample_krr` spreads them."""
        from decimal import Decimal

        with _decimal_context(self.eps_nominal):
            return krr_exact(Decimal(self.p), self.m, "the sampler's float p (read exactly); q = (1 − p)/(m − 1)")


@contextlib.contextmanager
def _decimal_context(eps: float) -> Iterator[decimal.Context]:
    """A :mod:`decimal` context of :func:`privcheck.base.exact_eps.digits_for` ``(eps)`` significant digits (the
    precision mpmath ran at before, issue 33: the closed form needs no mpmath); ε above the exact range raises
    :class:`~privcheck.base.exact_eps.ExactRangeError`. Decimal's ``exp``, ``ln`` and division are correctly
    rounded at that precision."""
    import decimal

    from privcheck.base.exact_eps import check_exact_range, digits_for

    check_exact_range(eps)
    with decimal.localcontext() as ctx:
        ctx.prec = digits_for(eps)
        ctx.Emax, ctx.Emin = decimal.MAX_EMAX, decimal.MIN_EMIN
        ctx.traps[decimal.Overflow] = ctx.traps[decimal.Underflow] = True
        yield ctx


def krr_exact(p: Decimal, m: int, note: str) -> ExactEpsilon:
    """Exact ε = |log(p/q)| of k-RR over ``m`` values with keep probability ``p`` (a :class:`decimal.Decimal`,
    evaluated at the current decimal context's precision) and q = (1 − p)/(m − 1)."""
    from privcheck.base.exact_eps import ExactEpsilon

    q = (1 - p) / (m - 1)
    hi, lo = (p, q) if p >= q else (q, p)
    pair, out = ((0, 1), 0) if p >= q else ((1, 0), 0)
    log_ratio = (hi / lo).ln() if lo > 0 else None
    return ExactEpsilon(
        eps=math.inf if log_ratio is None else float(log_ratio),
        eps_text="inf" if log_ratio is None else decimal_text(log_ratio, 40),
        worst_pair=pair,
        worst_output=out,
        method="closed form",
        note=note,
    )


def decimal_text(value: Decimal, digits: int) -> str:
    """``value`` to ``digits`` significant digits as ``mpmath.nstr`` writes it: fixed point when the leading
    digit's position is in (min(−digits//3, −5), digits), else ``d.ddd e±N``; trailing zeros stripped."""
    import decimal

    if value == 0:
        return "0.0"
    sign = "-" if value < 0 else ""
    with decimal.localcontext() as ctx:
        ctx.prec, ctx.rounding = digits, decimal.ROUND_HALF_UP  # to `digits` significant digits, as mpmath rounds
        rounded = +abs(value)
    exponent = rounded.adjusted()
    mantissa = "".join(map(str, rounded.as_tuple().digits)).ljust(digits, "0")[:digits]
    if min(-(digits // 3), -5) < exponent < digits:
        if exponent < 0:
            text = "0." + "0" * (-exponent - 1) + mantissa
        else:
            text = mantissa[: exponent + 1].ljust(exponent + 1, "0") + "." + mantissa[exponent + 1 :]
        exponent = 0
    else:
        text = mantissa[:1] + "." + mantissa[1:]
    text = text.rstrip("0")
    text += "0" if text.endswith(".") else ""
    if exponent == 0:
        return sign + text
    return sign + text + (f"e+{exponent}" if exponent > 0 else f"e{exponent}")
