"""The branch-and-bound interval prover (proofs.interval.prover): proofs, refutations, limits and bounds.

The soundness test draws random quadratics and compares every verdict with the exact minimum.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs.formula import Phi
from proofs.interval import ProofPlan, prove_nonnegative
from proofs.interval.box import Span, simplest_in

PLAN = ProofPlan(max_boxes=4000, seconds=30, max_depth=40)
x = sp.Symbol("x", real=True)
eps = sp.Symbol("eps", positive=True)
p, q = sp.symbols("p q", positive=True)
POS = Span(Fraction(0), None)


@pytest.mark.parametrize(
    "name,expr,spans",
    [
        ("e^eps - 1 - eps", sp.exp(eps) - 1 - eps, {eps: POS}),
        ("x - log(1 + x) on (-1, oo)", x - sp.log(1 + x), {x: Span(Fraction(-1), None)}),
        ("cosh x - 1 - x^2/2 on R (touching of order 4)", sp.cosh(x) - 1 - x**2 / 2, {x: Span(None, None)}),
        ("Mills ratio", sp.exp(-(x**2) / 2) / (sp.sqrt(2 * sp.pi) * x) - Phi(-x), {x: POS}),
        ("Chernoff", sp.exp(-(x**2) / 2) / 2 - Phi(-x), {x: POS}),
        ("eps^2/2 - eps tanh(eps/2)", eps**2 / 2 - eps * sp.tanh(eps / 2), {eps: POS}),
    ],
)
def test_textbook_inequalities_are_proved(name, expr, spans):
    res = prove_nonnegative(expr, spans, plan=PLAN)
    assert res.proved, (name, res.reason)
    assert res.margin is not None and res.margin >= 0 and res.boxes >= 1
    assert res.summary().startswith("interval proof, ")


def test_touching_point_and_limit_are_reported():
    # the public route proves it on the target divided by exp(-x^2/2) (tried first); the unscaled route is
    # where the touching point x = 0 and the limit at oo are met and reported
    import time

    from proofs.interval.prover import _prove_one

    assert prove_nonnegative(sp.exp(-(x**2) / 2) / 2 - Phi(-x), {x: POS}, plan=PLAN).proved
    res = _prove_one(sp.exp(-(x**2) / 2) / 2 - Phi(-x), {x: POS}, (), PLAN, time.perf_counter())
    assert res.proved and res.margin == 0
    assert any("x = 0" in t for t in res.touching) and any("oo" in t for t in res.touching)
    assert res.stats["limits"] >= 1


def test_a_planted_violation_is_located():
    res = prove_nonnegative(sp.exp(eps) - 1 - sp.Rational(101, 100) * eps, {eps: POS}, plan=PLAN)
    assert res.status == "violated" and res.witness is not None
    v = simplest_in(res.witness["eps"])
    assert sp.exp(sp.Rational(v)) - 1 - sp.Rational(101, 100) * sp.Rational(v) < 0


def test_conditions_restrict_the_region():
    target = p - q - sp.Rational(1, 10)
    spans = {p: Span(Fraction(0), Fraction(1)), q: Span(Fraction(0), Fraction(1))}
    assert prove_nonnegative(target, spans, plan=PLAN).status == "violated"
    res = prove_nonnegative(target, spans, [p > q + sp.Rational(1, 5)], plan=PLAN)
    assert res.proved and res.stats["discarded_by_conditions"] > 0


def test_unsupported_function_and_budgets_are_reported_never_proved():
    n, k = sp.Symbol("n", integer=True), sp.Symbol("k", integer=True)
    res = prove_nonnegative(sp.Sum(x**k, (k, 0, n)), {x: POS, n: Span(Fraction(0), None, True)}, plan=PLAN)
    assert res.status == "unsupported" and "Sum" in res.reason
    pinsker = p * sp.log(p / q) + (1 - p) * sp.log((1 - p) / (1 - q)) - 2 * (p - q) ** 2
    unit = Span(Fraction(0), Fraction(1))
    res = prove_nonnegative(pinsker, {p: unit, q: unit}, plan=ProofPlan(max_depth=10, max_boxes=3000))
    assert res.status == "stopped" and "10 bisections" in res.reason
    res = prove_nonnegative(pinsker, {p: unit, q: unit}, plan=ProofPlan(max_boxes=50))
    assert res.status == "stopped" and "budget" in res.reason and res.exhausted


def test_integer_variables_reach_exact_values():
    n = sp.Symbol("n", integer=True, positive=True)
    res = prove_nonnegative(n**2 - 3 * n + 2, {n: Span(Fraction(1), None, True)}, plan=PLAN)  # (n-1)(n-2): 0 at 1, 2
    assert res.proved and res.margin == 0
    res = prove_nonnegative(n**2 - 3 * n + 2, {n: Span(Fraction(1), None, False)}, plan=PLAN)  # real n: -1/4 at 3/2
    assert res.status == "violated"


def test_common_gaussian_factor_is_divided_out():
    e, c = sp.Symbol("e", positive=True), sp.Symbol("c", positive=True)
    lhs = Phi(e / (2 * c) - c) - sp.exp(e) * Phi(-e / (2 * c) - c)
    spans = {e: Span(Fraction(0), Fraction(1)), c: Span(Fraction(668, 1000), None)}
    res = prove_nonnegative(sp.Rational(5, 4) * sp.exp(-(c**2) / 2) - lhs, spans, plan=PLAN)
    assert res.proved and res.scaled_by == "-c**2/2"
    assert res.margin > Fraction(1, 4)  # of the scaled target: (5/4 - ...)·e^{c²/2} stays above 0.36


@settings(max_examples=40, deadline=None, database=None)
@given(
    st.fractions(-4, 4, max_denominator=8),
    st.fractions(-4, 4, max_denominator=8),
    st.fractions(-4, 4, max_denominator=8),
    st.fractions(-3, 3, max_denominator=4),
    st.fractions(0, 3, max_denominator=4),
)
def test_verdicts_agree_with_the_exact_minimum_of_a_quadratic(a, b, c, lo, width):
    hi = lo + width
    expr = sp.Rational(a) * x**2 + sp.Rational(b) * x + sp.Rational(c)
    cands = [lo, hi] + ([-b / (2 * a)] if a != 0 and lo <= -b / (2 * a) <= hi else [])
    exact_min = min(a * v * v + b * v + c for v in cands)
    res = prove_nonnegative(expr, {x: Span(lo, hi)}, plan=ProofPlan(max_boxes=600, max_depth=30, seconds=20))
    if res.proved:
        assert exact_min >= 0 and res.margin <= exact_min
    if res.status == "violated":
        assert exact_min < 0
    if exact_min > 0:
        assert res.proved  # a strict inequality on a bounded box must be provable within the budget
