"""Certified values of the monotone functions at exact binary points: the two backends of the interval prover.

An interval ``[a, b]`` is mapped through a monotone function by bounding the function at the two
endpoints (exact binary numbers, mpmath's raw ``mpf`` tuples): a lower bound at one end, an upper
bound at the other. The backends supply those point bounds:

- :class:`ArbPoints` (``"flint"``) — python-flint's arb balls (Johansson, *Arb: efficient
  arbitrary-precision midpoint-radius interval arithmetic*, IEEE Trans. Comput. 2017): every
  function value comes with a proved error radius. Used when python-flint is installed
  (``pip install python-flint``, the optional ``intervals`` extra).
- :class:`MpmathPoints` (``"mpmath"``, always available) — mpmath's directed rounding
  (``mpf_exp(x, prec, round_floor)`` and so on, the same primitives as mpmath's ``iv`` context)
  for exp, log and sqrt, and for erf, erfc and erfcx(x) = e^{x²} erfc x (which ``mpmath.iv`` lacks)
  a certified evaluation in
  ``iv`` arithmetic: the positive series erf x = (2/√π) e^{−x²} Σ 2ⁿ x^{2n+1}/(2n+1)!!
  (DLMF 7.6.2) with its geometric tail bound for |x| ≤ 4, and for x > 4 the Laplace continued
  fraction √π e^{x²} erfc x = 1/(x+ (1/2)/(x+ 1/(x+ (3/2)/(x+ …)))) (DLMF 7.9.2), whose successive
  approximants bracket the value (all its elements are positive).

Both return ``(lo, hi)`` raw mpf tuples with ``lo <= f(x) <= hi``, ``lo`` rounded down and ``hi``
rounded up to ``prec`` bits. No float is used anywhere.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Callable, Iterator

from mpmath import iv
from mpmath import libmp as lm

__all__ = ["ivprec", "MPF", "PointBounds", "MpmathPoints", "ArbPoints", "backend", "available_backends", "FUNCTIONS"]

MPF = tuple  # mpmath's raw (sign, mantissa, exponent, bitcount) tuple
#: the functions a backend bounds at points (all monotone on their domain, erfc decreasing)
FUNCTIONS = ("exp", "log", "sqrt", "erf", "erfc", "erfcx")
_F, _C = lm.round_floor, lm.round_ceiling
_INF, _NINF, _ZERO, _ONE, _TWO, _FOUR = lm.finf, lm.fninf, lm.fzero, lm.fone, lm.from_int(2), lm.from_int(4)
# values at the ends of the extended real line (x = -inf, x = +inf); log/sqrt are not real below 0
_AT_INF = {
    "exp": (_ZERO, _INF),
    "log": (None, _INF),
    "sqrt": (None, _INF),
    "erf": (lm.fnone, _ONE),
    "erfc": (_TWO, _ZERO),
    "erfcx": (_INF, _ZERO),
}


@contextlib.contextmanager
def ivprec(prec: int) -> Iterator[None]:
    """Run the block with ``mpmath.iv`` at ``prec`` bits (restored afterwards; mpmath's iv context is global)."""
    old = iv.prec
    iv.prec = prec
    try:
        yield
    finally:
        iv.prec = old


class PointBounds:
    """Base class: ``bounds(fn, x, prec) -> (lo, hi)`` for an exact point ``x`` (raw mpf, may be ±inf)."""

    name = "base"

    def bounds(self, fn: str, x: MPF, prec: int) -> tuple[MPF, MPF]:
        """Certified ``lo <= fn(x) <= hi`` (raw mpf tuples at ``prec`` bits); ValueError outside the domain."""
        if fn not in FUNCTIONS:
            raise ValueError(f"no point bounds for {fn!r}")
        if x in (_INF, _NINF):
            v = _AT_INF[fn][1 if x == _INF else 0]
            if v is None:
                raise ValueError(f"{fn} is not real at -inf")
            return v, v
        if fn in ("log", "sqrt") and lm.mpf_sign(x) < 0:
            raise ValueError(f"{fn} is not real at a negative point")
        if x == _ZERO:  # exact values at 0 (both backends agree; avoids a cancellation in erfc = 1 - erf)
            exact = {"exp": _ONE, "log": _NINF, "sqrt": _ZERO, "erf": _ZERO, "erfc": _ONE, "erfcx": _ONE}[fn]
            return exact, exact
        return self._bounds(fn, x, prec)

    def _bounds(self, fn: str, x: MPF, prec: int) -> tuple[MPF, MPF]:  # pragma: no cover - abstract
        raise NotImplementedError


class MpmathPoints(PointBounds):
    """Point bounds from mpmath's directed rounding and a certified erf/erfc (see the module docstring)."""

    name = "mpmath"

    def _bounds(self, fn: str, x: MPF, prec: int) -> tuple[MPF, MPF]:
        if fn == "exp":
            return lm.mpf_exp(x, prec, _F), lm.mpf_exp(x, prec, _C)
        if fn == "log":
            return lm.mpf_log(x, prec, _F), lm.mpf_log(x, prec, _C)
        if fn == "sqrt":
            return lm.mpf_sqrt(x, prec, _F), lm.mpf_sqrt(x, prec, _C)
        return _erf_family(fn, x, prec)


@functools.lru_cache(maxsize=65536)
def _erf_family(fn: str, x: MPF, prec: int) -> tuple[MPF, MPF]:
    """erf or erfc at the exact point x (nonzero, finite), certified, rounded outward to ``prec`` bits."""
    neg = lm.mpf_sign(x) < 0
    ax = lm.mpf_neg(x) if neg else x
    if fn == "erf":  # odd
        lo, hi = _erf_pos(ax, prec)
        return (lm.mpf_neg(hi), lm.mpf_neg(lo)) if neg else (lo, hi)
    if fn == "erfcx":
        lo, hi = _erfcx_pos(ax, prec)
        if not neg:
            return lo, hi
        # erfcx(-t) = 2 e^{t²} - erfcx(t)
        with ivprec(prec + 20):
            p = iv.make_mpf((ax, ax))
            return _round_out(2 * iv.exp(p * p) - iv.make_mpf((lo, hi)), prec)
    lo, hi = _erfc_pos(ax, prec)
    if not neg:
        return lo, hi
    # erfc(-t) = 2 - erfc(t)
    return lm.mpf_sub(_TWO, hi, prec, _F), lm.mpf_sub(_TWO, lo, prec, _C)


def _round_out(v, prec: int) -> tuple[MPF, MPF]:
    a, b = v._mpi_
    return lm.mpf_pos(a, prec, _F), lm.mpf_pos(b, prec, _C)


def _erf_pos(x: MPF, prec: int) -> tuple[MPF, MPF]:
    """erf(x) for x > 0: the series for x <= 4, 1 - erfc(x) above (no cancellation: erf x > 1/2 there)."""
    if lm.mpf_le(x, _FOUR):
        with ivprec(prec + 30):
            p = iv.make_mpf((x, x))
            return _round_out(2 / iv.sqrt(iv.pi) * iv.exp(-p * p) * _erf_sum(p), prec)
    lo, hi = _erfc_pos(x, prec + 10)
    return lm.mpf_sub(_ONE, hi, prec, _F), lm.mpf_sub(_ONE, lo, prec, _C)


def _erfc_pos(x: MPF, prec: int) -> tuple[MPF, MPF]:
    """erfc(x) for x > 0: 1 - erf by the series (guard bits for the cancellation) up to 4, continued fraction above."""
    if lm.mpf_le(x, _FOUR):
        with ivprec(prec + 64):  # erf x <= 1 - 2^-24 for x <= 4: at most 24 bits cancel in 1 - erf x
            p = iv.make_mpf((x, x))
            return _round_out(1 - 2 / iv.sqrt(iv.pi) * iv.exp(-p * p) * _erf_sum(p), prec)
    with ivprec(prec + 30):
        p = iv.make_mpf((x, x))
        return _round_out(_cf_value(p, prec + 10) * iv.exp(-p * p) / iv.sqrt(iv.pi), prec)


def _erfcx_pos(x: MPF, prec: int) -> tuple[MPF, MPF]:
    """erfcx(x) = e^{x²} erfc(x) for x > 0: e^{x²} − (2/√π)·(series sum) up to 4, the continued fraction / √π above."""
    with ivprec(prec + 64):  # e^{x²} <= e^16 against erfcx(4) ≈ 0.14: under 30 bits cancel
        p = iv.make_mpf((x, x))
        if lm.mpf_le(x, _FOUR):
            return _round_out(iv.exp(p * p) - 2 / iv.sqrt(iv.pi) * _erf_sum(p), prec)
        return _round_out(_cf_value(p, prec + 10) / iv.sqrt(iv.pi), prec)


def _erf_sum(x):
    """S(x) with erf x = (2/√π) e^{−x²} S(x), S = Σ t_n, t_0 = x, t_{n+1} = t_n 2x²/(2n+3) (DLMF 7.6.2); x > 0 a point.

    All terms are positive; once q_n = 2x²/(2n+3) <= 1/2 the tail Σ_{k>=n} t_k <= t_n/(1 − q_n) <= 2 t_n,
    so the enclosure adds [0, 2 t_n] to the partial sum.
    """
    x2 = x * x
    s, t, n = iv.mpf(0), x, 0
    stop = iv.mpf(2) ** (-(iv.prec + 4))
    while True:
        q = 2 * x2 / (2 * n + 3)
        if q.b <= iv.mpf(1) / 2 and (t.b <= (s.a * stop).a or n > 100000):
            break
        s = s + t
        t = t * q
        n += 1
    return s + iv.mpf([0, (2 * t).b])


def _cf_value(x, prec: int):
    """√π e^{x²} erfc(x) for x > 4 (a point interval), bracketed by two successive approximants of DLMF 7.9.2.

    √π e^{x²} erfc x = 1/(x + a_1/(x + a_2/(x + …))), a_k = k/2 > 0: for a continued fraction with positive
    elements the approximants alternate around its value (Lorentzen & Waadeland, *Continued Fractions*, Thm. 1.4),
    so the value lies between the n-th and (n+1)-th approximants. n doubles until their gap is below 2^-prec.
    """
    n = 8
    while True:
        f1, f2 = _cf_approximant(x, n), _cf_approximant(x, n + 1)
        lo = f1.a if f1.a <= f2.a else f2.a
        hi = f1.b if f1.b >= f2.b else f2.b
        hull = iv.mpf([lo, hi])
        if (hull.b - hull.a).b <= (hull.a * iv.mpf(2) ** (-prec)).a or n > 4096:
            return hull
        n *= 2


def _cf_approximant(x, n: int):
    """The n-th approximant 1/(x + (1/2)/(x + (2/2)/(… + (n/2)/x))), in interval arithmetic."""
    v = x
    for k in range(n, 0, -1):
        v = x + iv.mpf(k) / 2 / v
    return 1 / v


class ArbPoints(PointBounds):
    """Point bounds from python-flint's arb balls (each value with a proved radius)."""

    name = "flint"

    def __init__(self) -> None:
        import flint  # noqa: F401  (ImportError: the backend is not available)

        self._flint = flint

    def _bounds(self, fn: str, x: MPF, prec: int) -> tuple[MPF, MPF]:
        flint = self._flint
        sign, man, exp, bc = x
        old = flint.ctx.prec
        flint.ctx.prec = max(prec + 20, bc + 10)
        try:
            q = flint.fmpq(man << exp) if exp >= 0 else flint.fmpq(man, 1 << -exp)
            a = flint.arb(-q if sign else q)
            if not a.is_exact():  # pragma: no cover - the precision above holds every dyadic exactly
                raise ValueError("point not exact in arb")
            if fn == "erfcx":  # e^{x²} erfc(x): arb bounds both factors (any exponent range)
                flint.ctx.prec = max(prec + 40, bc + 10)
                ball = (a * a).exp() * a.erfc()
            else:
                ball = getattr(a, fn)()
            if not ball.is_finite():
                raise ValueError(f"arb could not bound {fn} at this point")
            lo_m, lo_e = ball.lower().man_exp()
            hi_m, hi_e = ball.upper().man_exp()
        finally:
            flint.ctx.prec = old
        return lm.from_man_exp(int(lo_m), int(lo_e), prec, _F), lm.from_man_exp(int(hi_m), int(hi_e), prec, _C)


_BACKENDS: dict[str, Callable[[], PointBounds]] = {"mpmath": MpmathPoints, "flint": ArbPoints}


def available_backends() -> list[str]:
    """Names of the backends usable here (``mpmath`` always; ``flint`` when python-flint imports)."""
    out = ["mpmath"]
    try:
        ArbPoints()
        out.insert(0, "flint")
    except ImportError:
        pass
    return out


def backend(name: str = "auto") -> PointBounds:
    """The point-bounds backend ``name`` (``auto``: flint when installed, else mpmath).

    Raises ValueError for an unknown name and ImportError when ``flint`` is asked for but missing.
    """
    if name == "auto":
        name = available_backends()[0]
    if name not in _BACKENDS:
        raise ValueError(f"interval backend must be auto, flint or mpmath; got {name!r}")
    return _BACKENDS[name]()
