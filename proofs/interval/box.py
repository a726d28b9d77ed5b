"""Boxes of exact rational bounds for the interval prover, and how they are split.

A box gives every variable a closed span ``[lo, hi]`` of Fractions, ``None`` standing for ∓∞; the
declared (possibly open) domain is covered by its closure, which is sound for a proof (a claim proved
on a superset holds on the domain). Integer variables keep integer ends and split between
integers, so their single values are reached exactly.

Unbounded spans are split as if mapped to a bounded one by x = u/(1 − u) (u ∈ [0, 1), the
positive-variable rewriting of :mod:`proofs.formula`) and bisected in u: ``[a, ∞)`` with a >= 0
splits at 2a + 1 (the image of the u-midpoint), ``[a, ∞)`` with a < 0 at 0; ``(−∞, b]`` mirrors
that and ``(−∞, ∞)`` splits at 0. Every split point is an exact rational; nothing here uses floats.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

import sympy as sp

__all__ = ["Span", "span_of", "split_span", "u_width", "is_point", "span_text", "simplest_in", "bounds_text"]


@dataclass(frozen=True)
class Span:
    """A closed span [lo, hi] (None = −∞ / +∞) of one variable; ``integer`` spans hold integer ends."""

    lo: Fraction | None
    hi: Fraction | None
    integer: bool = False

    def point(self, v: Fraction) -> "Span":
        """The degenerate span [v, v]."""
        return Span(v, v, self.integer)


def _outer(v: sp.Expr, up: bool) -> Fraction:
    """An exact rational at or beyond the sympy number v (v itself when rational)."""
    if v.is_Rational:
        return Fraction(int(v.p), int(v.q))
    scale = 2**64
    k = sp.ceiling(v * scale) if up else sp.floor(v * scale)
    return Fraction(int(k), scale)


def span_of(dom) -> Span:
    """The closed span covering a :class:`proofs.formula.Domain` (irrational ends rounded outward)."""
    lo = None if not dom.lo.is_finite else _outer(dom.lo, up=False)
    hi = None if not dom.hi.is_finite else _outer(dom.hi, up=True)
    if dom.integer:
        lo = None if lo is None else Fraction(math.ceil(lo))
        hi = None if hi is None else Fraction(math.floor(hi))
    return Span(lo, hi, dom.integer)


def is_point(s: Span) -> bool:
    """Whether the span is a single value."""
    return s.lo is not None and s.lo == s.hi


def split_span(s: Span) -> tuple[Span, Span]:
    """Two spans covering ``s`` (see the module docstring for the split points)."""
    lo, hi = s.lo, s.hi
    if lo is not None and hi is not None:
        m = (lo + hi) / 2
    elif lo is not None:
        m = Fraction(0) if lo < 0 else 2 * lo + 1
    elif hi is not None:
        m = Fraction(0) if hi > 0 else 2 * hi - 1
    else:
        m = Fraction(0)
    if s.integer:
        m = Fraction(math.floor(m))
        if hi is not None and m >= hi:
            m = hi - 1
        return Span(lo, m, True), Span(m + 1, hi, True)
    return Span(lo, m), Span(m, hi)


def _u(v: Fraction | None, neg_inf: bool) -> Fraction:
    """x/(1 + |x|), the map of the real line onto (−1, 1) (±1 at ±∞)."""
    if v is None:
        return Fraction(-1 if neg_inf else 1)
    return v / (1 + abs(v))


def u_width(s: Span) -> Fraction:
    """Width of the span after mapping x to x/(1 + |x|) (2 for the whole line): how much is left to split."""
    return _u(s.hi, False) - _u(s.lo, True)


def span_text(s: Span) -> str:
    """``[lo, hi]`` with ``-oo``/``oo`` for infinite ends, or the single value."""
    if is_point(s):
        return str(s.lo)
    lo = "-oo" if s.lo is None else str(s.lo)
    hi = "oo" if s.hi is None else str(s.hi)
    return f"[{lo}, {hi}]"


def simplest_in(s: Span) -> Fraction:
    """The rational with the smallest denominator (then numerator) in the span's interior, or its value if a point.

    Used to name a candidate counterexample inside a box the prover found violated.
    """
    if is_point(s):
        return s.lo  # type: ignore[return-value]
    lo, hi = s.lo, s.hi
    if lo is None and hi is None:
        return Fraction(0)
    if lo is None:
        return Fraction(math.floor(hi) - 1)  # type: ignore[arg-type]
    if hi is None:
        return Fraction(math.floor(lo) + 1)
    if s.integer:
        return Fraction(math.floor(lo)) if lo == math.floor(lo) else Fraction(math.ceil(lo))
    return _stern_brocot(lo, hi)


def _stern_brocot(lo: Fraction, hi: Fraction) -> Fraction:
    """The simplest fraction strictly between lo < hi (continued-fraction descent of the Stern–Brocot tree)."""
    if lo < 0 < hi:
        return Fraction(0)
    if hi <= 0:
        return -_stern_brocot(-hi, -lo)
    fl = math.floor(lo)
    if fl + 1 < hi:
        return Fraction(fl + 1)
    a, b = lo - fl, hi - fl  # 0 <= a < b <= 1
    if a == 0:
        return fl + Fraction(1, math.floor(1 / b) + 1)
    return fl + 1 / _stern_brocot(1 / b, 1 / a)


def bounds_text(spans: Mapping[str, Span]) -> str:
    """``x ∈ [a, b], y = c`` for a box."""
    return ", ".join(f"{k} = {span_text(s)}" if is_point(s) else f"{k} ∈ {span_text(s)}" for k, s in spans.items())
