"""Formula claims through their three routes (sympy, interval proof, counterexample search).

Every refutation is re-checked here without the engine: both sides are evaluated at the reported point
with mpmath at 60 digits. The example file examples/formula_inequalities.py (the textbook and paper
inequalities, the planted wrong versions, and two claims that cannot be settled) runs claim by claim.
"""

from __future__ import annotations

import os
from pathlib import Path

import mpmath
import pytest
import sympy as sp

from privcheck.base.errors import PrivcheckUsageError
from privcheck.claims import RunContext
from privcheck.pytest_plugin import load_claims_file
from proofs import formula
from proofs.counterexample import SearchPlan
from proofs.formula import combine, compare, make_symbols, outcome_from
from proofs.interval import ProofPlan
from proofs.routes import FormulaPlan

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "formula_inequalities.py"
FAST = FormulaPlan(proof=ProofPlan(max_boxes=3000, seconds=20, max_depth=40), search=SearchPlan(max_examples=120))
GAUSS = "(Phi(1/(2*s) - e*s) - exp(e)*Phi(-1/(2*s) - e*s))"


def _independent_violation(res, derived, printed, assumptions):
    """Both sides at the reported point, by mpmath at 60 digits (lambdify, not the engine's code)."""
    names, _ = make_symbols(assumptions)
    pt = {names[k]: sp.sympify(v) for k, v in res.counterexample["point"].items()}
    syms = sorted(pt, key=lambda s: s.name)
    with mpmath.workdps(60):
        args = [mpmath.mpmathify(sp.N(pt[s], 70)) for s in syms]
        a = sp.lambdify(syms, formula.parse(derived, names), "mpmath")(*args)
        b = sp.lambdify(syms, formula.parse(printed, names), "mpmath")(*args)
    return a, b, pt


def test_textbook_inequalities_hold_by_interval_proof_with_the_route_in_the_verdict():
    res = compare("t", "exp(eps) - 1", "eps", {"eps": "positive"}, relation=">=", plan=FAST)
    assert res.verdict == "holds" and res.route == "interval proof"
    assert res.verdict_text.startswith("holds (interval proof, ") and "margin ≥ 0" in res.verdict_text
    assert "touches 0 at eps = 0" in res.reason
    res = compare("t", "log(1 + x)", "x", {"x": "(-1,oo)"}, relation="<=", plan=FAST)
    assert res.verdict == "holds" and res.route == "interval proof"
    d = res.details()
    assert d["verdict_text"] == res.verdict_text and d["interval_proof"][0]["status"] == "proved"
    assert "\n" not in d["reason"] and not d["numeric_fallback"]


def test_gaussian_delta_is_decreasing_in_sigma():
    res = compare("t", f"diff({GAUSS}, s)", "0", {"e": "positive", "s": "positive"}, relation="<=", plan=FAST)
    assert res.verdict == "holds" and res.route in ("symbolic", "interval proof")
    assert res.verdict_text == "holds (symbolic)" or res.verdict_text.startswith("holds (interval proof")


def test_planted_constant_off_by_one_percent_is_refuted_with_a_true_counterexample():
    a_ = {"eps": "positive"}
    res = compare("t", "exp(eps) - 1", "1.01*eps", a_, relation=">=", plan=FAST)
    assert res.verdict == "refuted" and res.route == "counterexample search"
    a, b, pt = _independent_violation(res, "exp(eps) - 1", "101/100*eps", a_)
    assert a < b and 0 < pt[sp.Symbol("eps", positive=True)] < sp.Rational(2, 100)
    assert res.verdict_text.startswith("refuted (counterexample eps = ")


def test_flipped_sign_in_a_corner_is_refuted():
    a_ = {"p": "(0,1]", "eps": "(0,2)"}
    res = compare("t", "log(1 + p*(exp(eps) - 1))", "2*p*eps", a_, relation="<=", plan=FAST)
    assert res.verdict == "refuted"
    a, b, pt = _independent_violation(res, "log(1 + p*(exp(eps) - 1))", "2*p*eps", a_)
    assert a > b and pt[sp.Symbol("eps", positive=True)] > sp.Rational(5, 4)  # only eps > 1.2564 violates


def test_search_is_deterministic_and_writes_no_hypothesis_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = ("t", "x^3 - x", "0", {"x": "real"})
    r1 = compare(*args, relation=">=", plan=FAST, seed=7)
    r2 = compare(*args, relation=">=", plan=FAST, seed=7)
    assert r1.verdict == "refuted" and r1.counterexample == r2.counterexample
    assert r1.search["seed"] == r2.search["seed"]
    assert not (tmp_path / ".hypothesis").exists() and os.listdir(tmp_path) == []


def test_equality_within_a_stated_tolerance():
    a_ = {"x": "[0,1]"}
    res = compare("t", "sqrt(1 + x)", "1 + x/2", a_, tolerance="1/8", plan=FAST)
    assert res.verdict == "holds" and res.route == "interval proof" and res.details()["tolerance"] == "1/8"
    res = compare("t", "sqrt(1 + x)", "1 + x/2", a_, tolerance="1/100", plan=FAST)
    assert res.verdict == "refuted"
    a, b, _ = _independent_violation(res, "sqrt(1 + x)", "1 + x/2", a_)
    assert abs(a - b) > mpmath.mpf(1) / 100
    res = compare("t", "sqrt(1 + x)", "1 + x/2", a_, plan=FAST)  # no tolerance: '=' is exact
    assert res.verdict == "refuted"
    with pytest.raises(PrivcheckUsageError, match="tolerance"):
        compare("t", "x", "x", a_, tolerance="-1")
    with pytest.raises(PrivcheckUsageError, match="tolerance"):
        compare("t", "x", "x", a_, relation="<=", tolerance="1")


def test_what_cannot_be_evaluated_is_inconclusive_with_the_reason_never_holds():
    small = FormulaPlan(proof=ProofPlan(max_boxes=500, seconds=5, max_depth=16), search=SearchPlan(max_examples=60))
    res = compare("t", "LambertW(x)", "x", {"x": "positive"}, relation="<=", plan=small)  # true, but no LambertW
    assert res.verdict == "inconclusive" and "LambertW" in res.reason
    assert res.details()["numeric_fallback"] is True and res.details()["numeric"]["points"] > 0
    pinsker = "p*log(p/q) + (1 - p)*log((1 - p)/(1 - q))"
    res = compare("t", pinsker, "2*(p - q)^2", {"p": "(0,1)", "q": "(0,1)"}, relation=">=", plan=small)
    assert res.verdict == "inconclusive" and "interval proof stopped" in res.reason
    assert "no counterexample in 60 hypothesis examples" in res.reason


def test_outcome_carries_a_one_line_reason_for_single_and_combined_comparisons():
    r1 = compare("e^x", "exp(x) - 1", "x", {"x": "positive"}, relation=">=", plan=FAST)
    r2 = compare("poly", "x^2 + 1", "2*x", {"x": "positive"}, relation=">=", plan=FAST)
    r3 = compare("bad", "x", "2*x", {"x": "positive"}, relation=">=", plan=FAST)
    one = outcome_from(r1)
    assert one.details["reason"] == r1.reason and "\n" not in one.details["reason"]
    both = combine([r1, r2])
    assert both.verdict == "holds" and both.details["reason"].startswith("2 parts: ")
    bad = combine([r1, r3])
    assert bad.verdict == "refuted" and bad.details["reason"].startswith("bad: counterexample")


def _example_checks():
    reg = load_claims_file(EXAMPLE)
    return [(cid, c) for cid, checks in reg.checks.items() for c in checks]


EXAMPLE_CHECKS = _example_checks()


@pytest.mark.parametrize("cid,chk", EXAMPLE_CHECKS, ids=[c for c, _ in EXAMPLE_CHECKS])
def test_example_inequalities_meet_their_expectations(cid, chk, monkeypatch):
    monkeypatch.setattr(formula, "DEFAULT_PLAN", FAST)
    out = chk.fn(RunContext())
    assert out.verdict == chk.expect, (cid, out.details.get("reason"))
    if out.verdict == "refuted":
        ce = out.details["counterexample"]
        assert ce["exact"] or ce["evaluation"].startswith("certified interval evaluation")
    if chk.expect == "holds":
        assert out.details["route"] in ("symbolic", "interval proof")


def test_the_examples_cover_a_dozen_proved_inequalities_and_planted_errors():
    expects = [c.expect for _, c in EXAMPLE_CHECKS]
    assert expects.count("holds") >= 12 and expects.count("refuted") >= 5 and "inconclusive" in expects
