"""Interval arithmetic with outward rounding: mpmath's ``iv`` context plus the functions it lacks.

Intervals are ``mpmath.iv`` numbers (``ivmpf``); their endpoints are exact binary numbers and may be
±inf. Sums, products, quotients and integer powers are mpmath's (each endpoint rounded outward).
Monotone functions (exp, log, sqrt, erf, erfc, erfcx, x^r, sinh, tanh, cosh on each side of 0) map the
endpoints through certified point bounds from a backend (:mod:`proofs.interval.points`: arb or
mpmath). An operation that is not real-valued on part of its argument (log of an interval reaching
below 0, a root of a negative number, gamma near a pole) raises :class:`Undefined`. No float is used.
"""

from __future__ import annotations

from fractions import Fraction

from mpmath import iv
from mpmath import libmp as lm

from proofs.interval.points import MPF, PointBounds

__all__ = [
    "Undefined",
    "Ops",
    "lower",
    "upper",
    "to_fraction",
    "is_nonnegative",
    "is_negative",
    "interval_text",
    "decimal_text",
]

_F, _C = lm.round_floor, lm.round_ceiling


class Undefined(ArithmeticError):
    """The expression is not real-valued (or not defined) somewhere on the box."""


def lower(x) -> MPF:
    """Lower endpoint (raw mpf) of an interval."""
    return x._mpi_[0]


def upper(x) -> MPF:
    """Upper endpoint (raw mpf) of an interval."""
    return x._mpi_[1]


def to_fraction(v: MPF) -> Fraction | None:
    """The exact value of a finite raw mpf as a Fraction (None for ±inf or nan)."""
    if v in (lm.finf, lm.fninf, lm.fnan):
        return None
    p, q = lm.to_rational(v)
    return Fraction(p, q)


def is_nonnegative(x) -> bool:
    """Whether every point of the interval is >= 0 (exact test of the lower endpoint)."""
    a = lower(x)
    return a != lm.fnan and lm.mpf_sign(a) >= 0


def is_negative(x) -> bool:
    """Whether every point of the interval is < 0 (exact test of the upper endpoint)."""
    b = upper(x)
    return b != lm.fnan and lm.mpf_sign(b) < 0


def interval_text(x, digits: int = 6) -> str:
    """``[lo, hi]`` with the endpoints rounded outward to ``digits`` significant digits."""
    a, b = lower(x), upper(x)
    return f"[{_text(a, digits, _F)}, {_text(b, digits, _C)}]"


def _text(v: MPF, digits: int, rnd) -> str:
    if v == lm.finf:
        return "inf"
    if v == lm.fninf:
        return "-inf"
    q = to_fraction(v)
    return "nan" if q is None else decimal_text(q, digits, down=rnd == _F)


def decimal_text(q: Fraction, digits: int = 6, *, down: bool = True) -> str:
    """``q`` to ``digits`` significant decimal digits, rounded toward −inf (``down``) or +inf (exact)."""
    if q == 0:
        return "0"
    num, den = abs(q.numerator), q.denominator
    e = (num.bit_length() - den.bit_length()) * 30103 // 100000  # an estimate of floor(log10 |q|)
    while abs(q) >= Fraction(10) ** (e + 1):
        e += 1
    while abs(q) < Fraction(10) ** e:
        e -= 1  # now 10^e <= |q| < 10^(e+1)
    shift = e - digits + 1
    scaled = q / Fraction(10) ** shift
    m = scaled.__floor__() if down else scaled.__ceil__()
    if abs(m) >= 10**digits:  # rounding carried into a new digit
        shift += 1
        scaled = q / Fraction(10) ** shift
        m = scaled.__floor__() if down else scaled.__ceil__()
    sign = "-" if m < 0 else ""
    ds = str(abs(m)).rjust(digits, "0")
    exp10 = shift + len(ds) - 1
    mant = ds[0] + ("." + ds[1:].rstrip("0") if ds[1:].rstrip("0") else "")
    if -4 <= exp10 < digits:
        return sign + _plain(abs(m), shift)
    return f"{sign}{mant}e{exp10:+d}"


def _plain(m: int, shift: int) -> str:
    """m·10^shift written without an exponent."""
    if shift >= 0:
        return str(m * 10**shift)
    s = str(m).rjust(-shift + 1, "0")
    whole, frac = s[:shift], s[shift:].rstrip("0")
    return whole + ("." + frac if frac else "")


def _hi(a: MPF, b: MPF) -> MPF:
    return a if lm.mpf_ge(a, b) else b


def _lo(a: MPF, b: MPF) -> MPF:
    return a if lm.mpf_le(a, b) else b


def _make(a: MPF, b: MPF):
    return iv.make_mpf((a, b))


class Ops:
    """Interval operations at ``prec`` bits with point bounds from ``points`` (see the module docstring)."""

    def __init__(self, points: PointBounds, prec: int) -> None:
        self.points = points
        self.prec = prec
        self._consts: dict[Fraction, object] = {}

    # ------------------------------------------------------------------ numbers
    def num(self, r: Fraction | int) -> object:
        """An enclosure of the exact rational ``r`` (a point when r is a short binary number)."""
        r = Fraction(r)
        got = self._consts.get(r)
        if got is None:
            p, q = r.numerator, r.denominator
            got = _make(lm.from_rational(p, q, self.prec, _F), lm.from_rational(p, q, self.prec, _C))
            self._consts[r] = got
        return got

    def span(self, lo: Fraction | None, hi: Fraction | None) -> object:
        """The interval [lo, hi] (None = ∓inf), endpoints rounded outward."""
        a = lm.fninf if lo is None else lower(self.num(lo))
        b = lm.finf if hi is None else upper(self.num(hi))
        return _make(a, b)

    def pi(self) -> object:
        """An enclosure of π."""
        return _make(lm.mpf_pi(self.prec, _F), lm.mpf_pi(self.prec, _C))

    def e(self) -> object:
        """An enclosure of e."""
        return _make(lm.mpf_e(self.prec, _F), lm.mpf_e(self.prec, _C))

    # ------------------------------------------------------------------ monotone functions
    def _pt(self, fn: str, v: MPF) -> tuple[MPF, MPF]:
        try:
            return self.points.bounds(fn, v, self.prec)
        except ValueError as exc:
            raise Undefined(str(exc)) from None

    def increasing(self, fn: str, x) -> object:
        """f([a, b]) = [lo f(a), hi f(b)] for a nondecreasing f."""
        return _make(self._pt(fn, lower(x))[0], self._pt(fn, upper(x))[1])

    def decreasing(self, fn: str, x) -> object:
        """f([a, b]) = [lo f(b), hi f(a)] for a nonincreasing f."""
        return _make(self._pt(fn, upper(x))[0], self._pt(fn, lower(x))[1])

    def exp(self, x) -> object:
        """e^x."""
        return self.increasing("exp", x)

    def log(self, x) -> object:
        """log x; Undefined unless x >= 0 on the whole interval (log 0 = -inf)."""
        if lm.mpf_sign(lower(x)) < 0:
            raise Undefined("log of an interval reaching below 0")
        return self.increasing("log", x)

    def sqrt(self, x) -> object:
        """√x; Undefined unless x >= 0 on the whole interval."""
        if lm.mpf_sign(lower(x)) < 0:
            raise Undefined("square root of an interval reaching below 0")
        return self.increasing("sqrt", x)

    def erf(self, x) -> object:
        """erf x."""
        return self.increasing("erf", x)

    def erfc(self, x) -> object:
        """erfc x = 1 − erf x (decreasing)."""
        return self.decreasing("erfc", x)

    def erfcx(self, x) -> object:
        """erfcx x = e^{x²} erfc x (decreasing on the whole line)."""
        return self.decreasing("erfcx", x)

    def power(self, x, r) -> object:
        """x^r for a real exponent interval r: x must be >= 0 (x = 0 only with r > 0)."""
        a = lower(x)
        if lm.mpf_sign(a) < 0:
            raise Undefined("power of an interval reaching below 0 with a non-integer exponent")
        if lm.mpf_sign(a) > 0:
            return self.exp(r * self.log(x))
        if lm.mpf_sign(lower(r)) <= 0:
            raise Undefined("0 to a power that is not positive")
        b = upper(x)
        if b == lm.fzero:
            return self.num(0)
        top = self.exp(r * self.log(_make(b, b)))
        return _make(lm.fzero, upper(top))

    def sinh(self, x) -> object:
        """sinh x (increasing), endpoints from (e^t − e^{−t})/2."""
        return _make(lower(self._sinh_pt(lower(x))), upper(self._sinh_pt(upper(x))))

    def _sinh_pt(self, t: MPF):
        if t in (lm.finf, lm.fninf):
            return _make(t, t)
        p = _make(t, t)
        return (self.exp(p) - self.exp(-p)) / 2

    def _cosh_pt(self, t: MPF):
        if t in (lm.finf, lm.fninf):
            return _make(lm.finf, lm.finf)
        p = _make(t, t)
        return (self.exp(p) + self.exp(-p)) / 2

    def cosh(self, x) -> object:
        """cosh x (even, increasing in |x|)."""
        a, b = lower(x), upper(x)
        ca, cb = self._cosh_pt(a), self._cosh_pt(b)
        top = upper(ca) if lm.mpf_ge(upper(ca), upper(cb)) else upper(cb)
        if lm.mpf_sign(a) <= 0 <= lm.mpf_sign(b):
            return _make(lm.fone, top)
        bottom = lower(ca) if lm.mpf_sign(a) > 0 else lower(cb)
        return _make(bottom, top)

    def tanh(self, x) -> object:
        """tanh x (increasing), endpoints from 1 − 2/(e^{2t} + 1)."""

        def pt(t: MPF):
            if t == lm.finf:
                return self.num(1)
            if t == lm.fninf:
                return self.num(-1)
            p = _make(t, t)
            return 1 - 2 / (self.exp(2 * p) + 1)

        return _make(lower(pt(lower(x))), upper(pt(upper(x))))

    # ------------------------------------------------------------------ piecewise and others
    def abs(self, x) -> object:
        """|x|."""
        return abs(x)

    def intersect(self, x, y) -> object:
        """The intersection of two enclosures of the same value (x itself if they do not meet)."""
        a, b = _hi(lower(x), lower(y)), _lo(upper(x), upper(y))
        return _make(a, b) if lm.mpf_le(a, b) else x

    def max(self, *xs) -> object:
        """max of intervals (endpoint-wise)."""
        a, b = lower(xs[0]), upper(xs[0])
        for x in xs[1:]:
            a, b = _hi(a, lower(x)), _hi(b, upper(x))
        return _make(a, b)

    def min(self, *xs) -> object:
        """min of intervals (endpoint-wise)."""
        a, b = lower(xs[0]), upper(xs[0])
        for x in xs[1:]:
            a, b = _lo(a, lower(x)), _lo(b, upper(x))
        return _make(a, b)

    def sign(self, x) -> object:
        """sign x (−1, 0, 1) as an interval."""
        return _make(lm.from_int(lm.mpf_sign(lower(x))), lm.from_int(lm.mpf_sign(upper(x))))

    def heaviside(self, x) -> object:
        """Heaviside step with H(0) = 1/2 (sympy's convention)."""

        def h(v: MPF) -> MPF:
            s = lm.mpf_sign(v)
            return lm.fzero if s < 0 else lm.fone if s > 0 else lm.fhalf

        return _make(h(lower(x)), h(upper(x)))

    def sin(self, x) -> object:
        """sin x (mpmath's iv)."""
        return self._iv(iv.sin, x)

    def cos(self, x) -> object:
        """cos x (mpmath's iv)."""
        return self._iv(iv.cos, x)

    def gamma(self, x) -> object:
        """Γ(x) for x > 0 (mpmath's iv); Undefined near the poles."""
        if lm.mpf_sign(lower(x)) <= 0:
            raise Undefined("gamma of an interval reaching 0 or below")
        return self._iv(iv.gamma, x)

    def loggamma(self, x) -> object:
        """log Γ(x) for x > 0 (mpmath's iv)."""
        if lm.mpf_sign(lower(x)) <= 0:
            raise Undefined("loggamma of an interval reaching 0 or below")
        return self._iv(iv.loggamma, x)

    def _iv(self, f, x) -> object:
        old = iv.prec
        iv.prec = self.prec
        try:
            return f(x)
        finally:
            iv.prec = old
