"""Divide a common exponential factor out of a target before interval evaluation.

Gaussian tails make every term of a DP inequality exponentially small together: at c = 100 the three
terms of the Gaussian-mechanism bound Φ(ε/2c − c) − e^ε Φ(−ε/2c − c) <= (5/4) e^{−c²/2} are all about
e^{−5000}, and an interval box of any width in c spreads each one over many orders of magnitude, so
their difference cannot be signed. :func:`scale_out` writes each tail erfc(z) = e^{−z²}·erfcx(z)
(erfcx bounded, decreasing), merges the exponentials of every term, finds the part of the exponent
shared by all terms (here −c²/2) and divides it out: the target's sign is unchanged (e^g > 0) and the
scaled terms are of moderate size (here 5/4 − erfcx(…)e^{ε/2 − ε²/8c²}/2 + …).
"""

from __future__ import annotations

import sympy as sp

from proofs.interval.compile import erfcx, prepare

__all__ = ["scale_out", "MAX_SCALE_OPS"]

#: larger expressions are not rewritten (expand's cost grows fast)
MAX_SCALE_OPS = 300


def _exponent(term: sp.Expr) -> sp.Expr:
    """The total exponent of the exp(...) factors of one product term (expanded), 0 if none."""
    parts = [f.args[0] for f in sp.Mul.make_args(term) if isinstance(f, sp.exp)]
    return sp.expand(sp.Add(*parts)) if parts else sp.S.Zero


def scale_out(expr: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
    """(expr·e^{−g}, g) for the exponent g common to all terms, or None when there is none (see the module docstring).

    expr·e^{−g} has the sign of expr everywhere, so proving it >= 0 proves expr >= 0.
    """
    e = prepare(expr)
    if not e.has(sp.erfc) and not e.has(sp.exp):
        return None
    if sp.count_ops(e) > MAX_SCALE_OPS:
        return None
    try:
        e = e.replace(sp.erfc, lambda z: sp.exp(-(z**2)) * erfcx(z))
        e = sp.powsimp(sp.expand(e))
        terms = sp.Add.make_args(e)
        if len(terms) < 2:
            return None
        monomials = [set(sp.Add.make_args(_exponent(t))) - {sp.S.Zero} for t in terms]
        common = set.intersection(*monomials)
        if not common:
            return None
        g = sp.Add(*sorted(common, key=sp.default_sort_key))
        scaled = sp.powsimp(sp.expand(e * sp.exp(-g)))
    except Exception:  # a rewrite sympy cannot do is just no scaling
        return None
    if sp.count_ops(scaled) > 2 * MAX_SCALE_OPS or scaled.has(sp.nan, sp.zoo):
        return None
    return scaled, g
