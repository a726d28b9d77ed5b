"""Compile a sympy expression into an interval evaluator (see :mod:`proofs.interval.arith`).

:func:`compile_expr` walks the expression once and returns a function ``f(env, ops)`` that evaluates
it on intervals (``env`` maps each Symbol to an interval). Supported: numbers (rationals exactly, π, e,
Floats as the exact binary value they hold), + − × ÷, integer / rational / real powers, exp, log,
sqrt, erf, erfc, erfcx, sinh, cosh, tanh, sin, cos, Abs, Max, Min, sign, Heaviside, gamma, loggamma,
factorial and binomial (through gamma). Anything else (Sum, Integral, Piecewise, Lambert W, …) raises
:class:`Unsupported` naming it: the caller reports ``inconclusive`` with that reason.

:func:`prepare` rewrites before compiling: ``K + K·erf(z)`` becomes ``K·erfc(−z)`` and ``K·erf(z) − K``
becomes ``−K·erfc(z)`` (so a normal CDF far in its tail, e.g. Φ(−ε/μ − μ/2) at large ε, keeps its
relative accuracy instead of cancelling to [0, 2^−prec]).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Mapping

import sympy as sp

from proofs.interval.arith import Ops, Undefined

__all__ = [
    "Unsupported",
    "Evaluator",
    "compile_expr",
    "compile_both",
    "reciprocal_exp_form",
    "prepare",
    "unsupported_reason",
    "erfcx",
]

Evaluator = Callable[[Mapping[sp.Symbol, Any], Ops], Any]


class erfcx(sp.Function):  # noqa: N801 - the function's usual name
    """The scaled complementary error function erfcx(x) = e^{x²} erfc(x) (DLMF 7.2.3 calls it w-related; decreasing).

    Used by :mod:`proofs.interval.scaling` to write a Gaussian tail erfc(z) = e^{−z²}·erfcx(z), so that the
    exponential factors of several terms can be merged and divided out before interval evaluation.
    """

    @classmethod
    def eval(cls, x):
        if x.is_zero:
            return sp.S.One
        return None

    def fdiff(self, argindex=1):
        x = self.args[0]
        return 2 * x * erfcx(x) - 2 / sp.sqrt(sp.pi)

    def _eval_rewrite_as_erfc(self, x, **kwargs):
        return sp.exp(x**2) * sp.erfc(x)

    def _eval_is_real(self):
        return self.args[0].is_real

    def _eval_is_positive(self):
        return True if self.args[0].is_real else None


class Unsupported(ValueError):
    """Interval arithmetic cannot evaluate this expression (the message names the function)."""


def prepare(expr: sp.Expr) -> sp.Expr:
    """``expr`` with Floats made exact rationals and erf pairs rewritten as erfc (see the module docstring)."""
    expr = expr.xreplace({f: sp.Rational(f) for f in expr.atoms(sp.Float)})
    return _erfc_pairs(expr)


def _erfc_pairs(e: sp.Expr) -> sp.Expr:
    if e.is_Atom:
        return e
    args = tuple(_erfc_pairs(a) for a in e.args)
    if args != e.args:
        e = e.func(*args)
    if not e.is_Add:
        return e
    terms = list(e.args)
    changed = True
    while changed:
        changed = False
        for i, t in enumerate(terms):
            erfs = [f for f in sp.Mul.make_args(t) if isinstance(f, sp.erf)]
            if len(erfs) != 1:
                continue
            z = erfs[0].args[0]
            K = sp.Mul(*[f for f in sp.Mul.make_args(t) if f is not erfs[0]])
            for j, u in enumerate(terms):
                if j == i:
                    continue
                if u == K:
                    new = K * sp.erfc(-z, evaluate=False)
                elif u == -K:
                    new = -K * sp.erfc(z, evaluate=False)
                else:
                    continue
                terms = [v for k, v in enumerate(terms) if k not in (i, j)] + [new]
                changed = True
                break
            if changed:
                break
    return sp.Add(*terms)


def unsupported_reason(expr: sp.Expr) -> str | None:
    """Why ``expr`` cannot be compiled (the first unsupported part), or None if it can."""
    try:
        compile_expr(expr)
    except Unsupported as exc:
        return str(exc)
    return None


def _frac(r: sp.Rational) -> Fraction:
    return Fraction(int(r.p), int(r.q))


def compile_expr(expr: sp.Expr) -> Evaluator:
    """An interval evaluator for ``prepare(expr)``; raises :class:`Unsupported` (with the reason)."""
    return _compile(prepare(sp.sympify(expr)), {})


def reciprocal_exp_form(expr: sp.Expr, max_ops: int = 150) -> sp.Expr | None:
    """``expr`` with every exp(a) written 1/exp(−a) and the fraction cancelled, or None if nothing changes.

    (e^ε + 1)/(e^ε − 1) becomes (1 + e^{−ε})/(1 − e^{−ε}): as ε → ∞ the first form's interval value is
    [0, ∞] (inf/inf), the second's is [1, 1 + e^{−X}]/[1 − e^{−X}, 1]. Both forms are equal where defined.
    """
    atoms = [f for f in expr.atoms(sp.exp) if f.args[0].free_symbols]
    if not atoms or sp.count_ops(expr) > max_ops:
        return None
    zs = {f: sp.Dummy("z") for f in atoms}
    try:
        e1 = sp.cancel(sp.together(expr.xreplace({f: 1 / z for f, z in zs.items()})))
        e2 = e1.xreplace({z: sp.exp(-f.args[0]) for f, z in zs.items()})
    except Exception:  # a rewrite sympy cannot do: no second form
        return None
    return None if e2 == expr or e2.has(sp.Dummy) else e2


def compile_both(expr: sp.Expr) -> Evaluator:
    """An evaluator returning the intersection of the enclosures of ``expr`` and of its
    :func:`reciprocal_exp_form` (both valid, so their intersection is too); just ``expr``'s when there is none."""
    f1 = compile_expr(expr)
    other = reciprocal_exp_form(expr)
    if other is None:
        return f1
    try:
        f2 = compile_expr(other)
    except Unsupported:
        return f1

    def both(env, ops):
        a = _try(f1, env, ops)
        b = _try(f2, env, ops)
        if a is None and b is None:
            raise Undefined("not defined on this box")
        if a is None or b is None:
            return a if b is None else b
        return ops.intersect(a, b)

    return both


def _try(f: Evaluator, env, ops):
    try:
        return f(env, ops)
    except (Undefined, ZeroDivisionError):
        return None


_UNARY: dict[type, str] = {
    sp.exp: "exp",
    sp.log: "log",
    sp.erf: "erf",
    sp.erfc: "erfc",
    erfcx: "erfcx",
    sp.sinh: "sinh",
    sp.cosh: "cosh",
    sp.tanh: "tanh",
    sp.sin: "sin",
    sp.cos: "cos",
    sp.Abs: "abs",
    sp.sign: "sign",
    sp.gamma: "gamma",
    sp.loggamma: "loggamma",
}


def _compile(e: sp.Expr, memo: dict) -> Evaluator:
    got = memo.get(e)
    if got is None:
        got = _node(e, memo)
        memo[e] = got
    return got


def _node(e: sp.Expr, memo: dict) -> Evaluator:  # noqa: C901 - one branch per node type
    if e.is_Symbol:
        return lambda env, ops: env[e]
    if e.is_Rational:
        r = _frac(e)
        return lambda env, ops: ops.num(r)
    if e is sp.pi:
        return lambda env, ops: ops.pi()
    if e is sp.E:
        return lambda env, ops: ops.e()
    if e.is_Float:  # prepare() removes them; kept for direct callers
        r = _frac(sp.Rational(e))
        return lambda env, ops: ops.num(r)
    if e.is_Number or e.is_infinite or e.has(sp.zoo, sp.nan):
        raise Unsupported(f"the constant {sp.sstr(e)} is not a finite real number")
    if e.is_Add:
        parts = [_compile(a, memo) for a in e.args]

        def add(env, ops):
            acc = parts[0](env, ops)
            for p in parts[1:]:
                acc = acc + p(env, ops)
            return acc

        return add
    if e.is_Mul:
        parts = [_compile(a, memo) for a in e.args]

        def mul(env, ops):
            acc = parts[0](env, ops)
            for p in parts[1:]:
                acc = acc * p(env, ops)
            return acc

        return mul
    if e.is_Pow:
        return _pow(e, memo)
    if isinstance(e, (sp.Max, sp.Min)):
        parts = [_compile(a, memo) for a in e.args]
        name = "max" if isinstance(e, sp.Max) else "min"
        return lambda env, ops: getattr(ops, name)(*[p(env, ops) for p in parts])
    if isinstance(e, sp.Heaviside):
        if len(e.args) > 1 and e.args[1] != sp.S.Half:
            raise Unsupported("Heaviside with H(0) other than 1/2")
        arg = _compile(e.args[0], memo)
        return lambda env, ops: ops.heaviside(arg(env, ops))
    if isinstance(e, sp.factorial):
        arg = _compile(e.args[0] + 1, memo)
        return lambda env, ops: ops.gamma(arg(env, ops))
    if isinstance(e, sp.binomial):
        n, k = e.args
        return _compile(sp.gamma(n + 1) / (sp.gamma(k + 1) * sp.gamma(n - k + 1)), memo)
    name = _UNARY.get(type(e))
    if name is not None and len(e.args) == 1:
        arg = _compile(e.args[0], memo)
        return lambda env, ops: getattr(ops, name)(arg(env, ops))
    raise Unsupported(f"interval arithmetic cannot evaluate {type(e).__name__} (in {_short(e)})")


def _pow(e: sp.Pow, memo: dict) -> Evaluator:
    base, ex = e.args
    if base is sp.E:
        arg = _compile(ex, memo)
        return lambda env, ops: ops.exp(arg(env, ops))
    b = _compile(base, memo)
    if ex.is_Integer:
        n = int(ex)
        if n >= 0:
            return lambda env, ops: b(env, ops) ** n
        return lambda env, ops: 1 / (b(env, ops) ** (-n))
    if ex == sp.S.Half:
        return lambda env, ops: ops.sqrt(b(env, ops))
    if ex == -sp.S.Half:
        return lambda env, ops: 1 / ops.sqrt(b(env, ops))
    x = _compile(ex, memo)
    return lambda env, ops: ops.power(b(env, ops), x(env, ops))


def _short(e: sp.Expr, n: int = 60) -> str:
    s = sp.sstr(e)
    return s if len(s) <= n else s[: n - 1] + "…"
