"""Interval layer of the formula prover (proofs/interval): certified points, outward operations, compiler, boxes.

Every enclosure is checked against an independent 60-digit mpmath value; the flint backend (when python-flint
is installed) against the same values and against the mpmath backend.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import iv
from mpmath import libmp as lm

from proofs.interval.arith import Ops, Undefined, decimal_text, is_negative, is_nonnegative, lower, to_fraction, upper
from proofs.interval.box import Span, simplest_in, split_span, u_width
from proofs.interval.compile import Unsupported, compile_expr, erfcx, prepare, reciprocal_exp_form
from proofs.interval.points import ArbPoints, MpmathPoints, available_backends, backend, ivprec

POINTS = ["1e-9", "0.001", "0.5", "1", "2.5", "3.99", "4", "4.01", "7", "10", "30", "1e4", "-1e-9", "-0.3", "-4", "-9"]
REF = {"erf": mpmath.erf, "erfc": mpmath.erfc, "erfcx": lambda x: mpmath.exp(x * x) * mpmath.erfc(x)}
REF.update({"exp": mpmath.exp, "log": mpmath.log, "sqrt": mpmath.sqrt})


def _backends():
    out = [MpmathPoints()]
    try:
        out.append(ArbPoints())
    except ImportError:
        pass
    return out


@pytest.mark.parametrize("points", _backends(), ids=lambda b: b.name)
@pytest.mark.parametrize("fn", ["exp", "log", "sqrt", "erf", "erfc", "erfcx"])
def test_point_bounds_contain_60_digit_values_and_are_tight(points, fn):
    with mpmath.workdps(60):
        for v in POINTS:
            x = lm.from_str(v, 120, lm.round_nearest)
            if fn in ("log", "sqrt") and lm.mpf_sign(x) < 0:
                with pytest.raises(ValueError):
                    points.bounds(fn, x, 64)
                continue
            lo, hi = points.bounds(fn, x, 64)
            ref = REF[fn](mpmath.mpf(x))
            assert mpmath.mpf(lo) <= ref <= mpmath.mpf(hi), (fn, v)
            assert (mpmath.mpf(hi) - mpmath.mpf(lo)) <= abs(ref) * mpmath.mpf(2) ** -58, (fn, v)


def test_point_bounds_at_zero_and_infinity_are_exact():
    b = MpmathPoints()
    assert b.bounds("erf", lm.fzero, 64) == (lm.fzero, lm.fzero)
    assert b.bounds("erfc", lm.fzero, 64) == (lm.fone, lm.fone)
    assert b.bounds("exp", lm.fninf, 64) == (lm.fzero, lm.fzero)
    assert b.bounds("erfc", lm.finf, 64) == (lm.fzero, lm.fzero)
    assert b.bounds("erfcx", lm.fninf, 64) == (lm.finf, lm.finf)
    with pytest.raises(ValueError):
        b.bounds("log", lm.fninf, 64)


def test_backend_choice():
    assert "mpmath" in available_backends()
    assert backend("mpmath").name == "mpmath"
    assert backend("auto").name == available_backends()[0]
    with pytest.raises(ValueError):
        backend("quad")


def test_flint_and_mpmath_backends_agree():
    pytest.importorskip("flint")
    a, b = MpmathPoints(), ArbPoints()
    for v in POINTS:
        x = lm.from_str(v, 120, lm.round_nearest)
        for fn in ("erf", "erfc", "erfcx", "exp"):
            (l1, h1), (l2, h2) = a.bounds(fn, x, 80), b.bounds(fn, x, 80)
            assert lm.mpf_le(l1, h2) and lm.mpf_le(l2, h1), (fn, v)  # the enclosures overlap


def _ops():
    return Ops(MpmathPoints(), 64)


def test_operations_enclose_and_refuse_what_is_not_real():
    ops = _ops()
    with ivprec(64):
        x = ops.span(Fraction(-1), Fraction(2))
        assert to_fraction(lower(x**2)) == 0  # even power of an interval through 0
        with pytest.raises(Undefined):
            ops.log(x)
        with pytest.raises(Undefined):
            ops.sqrt(x)
        c = ops.cosh(x)
        assert to_fraction(lower(c)) == 1 and to_fraction(upper(c)) >= Fraction(376, 100)
        t = ops.tanh(ops.span(None, None))
        assert (to_fraction(lower(t)), to_fraction(upper(t))) == (-1, 1)
        third = ops.num(Fraction(1, 3))
        assert to_fraction(lower(third)) < Fraction(1, 3) < to_fraction(upper(third))
        assert is_nonnegative(ops.exp(ops.span(None, Fraction(0))))
        assert is_negative(ops.num(-1)) and not is_negative(ops.num(0))
        p = ops.power(ops.span(Fraction(0), Fraction(4)), ops.num(Fraction(3, 2)))
        assert to_fraction(lower(p)) == 0 and Fraction(7, 1) < to_fraction(upper(p)) <= Fraction(8000001, 1000000)


@settings(max_examples=60, deadline=None, database=None)
@given(st.fractions(min_value=-(10**9), max_value=10**9, max_denominator=10**6), st.integers(1, 8))
def test_decimal_text_rounds_in_the_stated_direction(q, digits):
    down, up = decimal_text(q, digits, down=True), decimal_text(q, digits, down=False)
    assert Fraction(down) <= q <= Fraction(up)


def test_compiler_rewrites_gaussian_tails_and_rejects_what_it_cannot_evaluate():
    x = sp.Symbol("x", real=True)
    phi_minus = (1 + sp.erf(-x / sp.sqrt(2))) / 2
    assert not prepare(phi_minus).has(sp.erf) and prepare(phi_minus).has(sp.erfc)
    f = compile_expr(phi_minus)
    ops = Ops(MpmathPoints(), 64)
    with ivprec(64):
        v = f({x: ops.num(40)}, ops)  # Φ(−40) ≈ 3.6e-350: no cancellation to [0, 2^-64]
    with mpmath.workdps(60):
        ref = mpmath.ncdf(-40)
        assert mpmath.mpf(lower(v)) <= ref <= mpmath.mpf(upper(v)) and mpmath.mpf(upper(v)) < 2 * ref
    k, n = sp.symbols("k n", integer=True)
    with pytest.raises(Unsupported, match="Sum"):
        compile_expr(sp.Sum(x**k, (k, 0, n)))
    with pytest.raises(Unsupported, match="LambertW"):
        compile_expr(sp.LambertW(x))
    assert sp.diff(erfcx(x), x) == 2 * x * erfcx(x) - 2 / sp.sqrt(sp.pi)


def test_reciprocal_form_is_equal_and_tight_in_the_tail():
    e = sp.Symbol("e", positive=True)
    expr = (sp.exp(e) + 1) / (sp.exp(e) - 1)
    other = reciprocal_exp_form(expr)
    assert other is not None and sp.simplify(other - expr) == 0
    ops = _ops()
    with ivprec(64):
        v = compile_expr(other)({e: ops.span(Fraction(40), None)}, ops)
    assert to_fraction(lower(v)) >= 1 and to_fraction(upper(v)) < Fraction(1000001, 1000000)


@settings(max_examples=80, deadline=None, database=None)
@given(
    st.fractions(min_value=-50, max_value=50, max_denominator=64),
    st.fractions(min_value=0, max_value=50, max_denominator=64),
    st.booleans(),
    st.booleans(),
)
def test_split_covers_the_span_and_shrinks_it(lo, width, open_lo, open_hi):
    s = Span(None if open_lo else lo, None if open_hi else lo + width)
    if s.lo is not None and s.hi is not None and s.lo == s.hi:
        return
    a, b = split_span(s)
    assert a.lo == s.lo and b.hi == s.hi and a.hi == b.lo  # no gap, no overlap beyond the split point
    assert u_width(a) < u_width(s) and u_width(b) < u_width(s)
    m = simplest_in(s)
    assert (s.lo is None or s.lo <= m) and (s.hi is None or m <= s.hi)


def test_integer_spans_split_between_integers():
    a, b = split_span(Span(Fraction(1), Fraction(4), True))
    assert (a.lo, a.hi, b.lo, b.hi) == (1, 2, 3, 4)
    a, b = split_span(Span(Fraction(3), None, True))
    assert (a.hi, b.lo, b.hi) == (7, 8, None)


def test_iv_precision_is_restored():
    old = iv.prec
    with ivprec(200):
        assert iv.prec == 200
    assert iv.prec == old
