"""The formula-claim engine and user API (proofs/formula.py) and the pytest plugin."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp

from privcheck.base.errors import PrivcheckUsageError
from privcheck.claims import Registry, RunContext
from privcheck.pytest_plugin import ClaimsMismatch, assert_claims, load_claims_file
from proofs import formula
from proofs.formula import collecting, compare, formula_claim, make_symbols

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "formula_claims.py"


def _check_counterexample(res, derived, printed, assumptions):
    """Substitute the reported point into both sides independently: they must differ as reported."""
    names, _ = make_symbols(assumptions)
    ce = res.counterexample
    assert ce is not None
    pt = {names[k]: sp.sympify(v) for k, v in ce["point"].items()}
    a = formula.parse(derived, names).xreplace(pt)
    b = formula.parse(printed, names).xreplace(pt)
    assert sp.simplify(a - sp.sympify(ce["derived"])) == 0
    assert sp.simplify(b - sp.sympify(ce["printed"])) == 0
    return a, b


@pytest.mark.parametrize(
    "derived,printed,assumptions",
    [
        ("k*p + (d-k)*(1-p)", "k*p + (d-k)*(1-p)", {"k": "integer>=1", "d": "integer>=1", "p": "(0,1)"}),
        ("P/(1-P)", "exp(eps)", {"P": "(0,1)", "eps": "positive"}),
        ("exp(eps)/(exp(eps)+1) / (1/(exp(eps)+1))", "exp(eps)", {"eps": "positive"}),
        ("(x*p + (1-x)*(1-p) - (1-p))/(2*p-1)", "x", {"x": "[0,1]", "p": "(1/2,1)"}),
    ],
)
def test_right_formulas_hold(derived, printed, assumptions):
    if "P" in assumptions:
        derived = derived.replace("P", "(exp(eps)/(exp(eps)+1))")
        assumptions = {"eps": "positive"}
    res = compare("t", derived, printed, assumptions)
    assert res.verdict == "holds"
    assert res.counterexample is None and not res.numeric_fallback


@pytest.mark.parametrize(
    "kind,derived,printed,assumptions",
    [
        ("dropped factor", "n*p*(1-p)", "p*(1-p)", {"n": "integer>=1", "p": "(0,1)"}),
        ("wrong exponent", "p*(1-p)/(2*p-1)^2", "p*(1-p)/(2*p-1)", {"p": "(1/2,1)"}),
        (
            "sign error",
            "Phi(-e/m + m/2) - exp(e)*Phi(-e/m - m/2)",
            "Phi(-e/m + m/2) + exp(e)*Phi(-e/m - m/2)",
            {"e": "nonnegative", "m": "positive"},
        ),
        ("sign error (inequality)", "a - b", "a + b", {"a": "positive", "b": "positive"}),
    ],
)
def test_planted_wrong_formulas_are_refuted_with_a_true_counterexample(kind, derived, printed, assumptions):
    res = compare(kind, derived, printed, assumptions)
    assert res.verdict == "refuted", kind
    a, b = _check_counterexample(res, derived, printed, assumptions)
    assert abs(sp.N(a - b, 30)) > 1e-20
    assert res.corrected is not None  # for "=", the derived side is reported as the corrected form


def test_inequality_direction_and_counterexample():
    assumptions = {"a": "(0,1)"}
    assert compare("sq", "a^2", "a", assumptions, relation="<=").verdict == "holds"
    res = compare("sq>", "a^2", "a", assumptions, relation=">=")
    assert res.verdict == "refuted"
    a, b = _check_counterexample(res, "a^2", "a", assumptions)
    assert a < b


def test_assumptions_matter():
    assert compare("abs", "sqrt(x^2)", "x", {"x": "positive"}).verdict == "holds"
    res = compare("abs", "sqrt(x^2)", "x", {"x": "real"})
    assert res.verdict == "refuted"
    assert sp.sympify(res.counterexample["point"]["x"]) < 0
    # an inequality that needs alpha < 1
    assert compare("acc", "alpha^2*V", "V", {"alpha": "(0,1)", "V": "positive"}, relation="<=").verdict == "holds"
    res = compare("acc", "alpha^2*V", "V", {"alpha": "positive", "V": "positive"}, relation="<=")
    assert res.verdict == "refuted" and sp.sympify(res.counterexample["point"]["alpha"]) > 1


def test_inconclusive_is_labelled_numeric_and_never_holds(monkeypatch):
    monkeypatch.setattr(formula, "SIMPLIFY_MAX_OPS", 0)  # deny blind simplify: sin^2+cos^2 = 1 is then undecided
    x = sp.Symbol("x", real=True)
    res = compare("trig", sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(1), {"x": "real"}, names={"x": x})
    assert res.verdict == "inconclusive"
    d = res.details()
    assert d["numeric_fallback"] is True and d["numeric"]["points"] > 0
    # a false one is still refuted without simplify
    res = compare("trig", sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(2), {"x": "real"}, names={"x": x})
    assert res.verdict == "refuted"


def test_record_details_show_both_sides_in_text_and_latex():
    res = compare("drop", "n*p", "p", {"n": "integer>=1", "p": "(0,1)"})
    d = res.details()
    for side in ("printed", "derived"):
        assert d[side]["text"] and d[side]["latex"]
    assert d["difference"] is not None and d["assumptions"] == {"n": "integer>=1", "p": "(0,1)"}
    assert d["counterexample"]["exact"] is True


def test_grid_is_reproducible():
    a = compare("r", "p + q/1000", "p", {"p": "(0,1)", "q": "(0,1)"}, seed=3)
    b = compare("r", "p + q/1000", "p", {"p": "(0,1)", "q": "(0,1)"}, seed=3)
    assert a.counterexample == b.counterexample


@pytest.mark.parametrize(
    "kwargs,msg",
    [
        ({"assumptions": {"p": "between 0 and 1"}}, "assumption"),
        ({"assumptions": {"p": "(0,1)"}, "printed": "p + q"}, "undeclared"),
        ({"assumptions": {"p": "(0,1)"}, "relation": "<"}, "relation"),
        ({"assumptions": {"p": "(0,1)"}, "expect": "passes"}, "expect"),
        ({"assumptions": {}}, "assumptions"),
    ],
)
def test_bad_input_raises_usage_error(kwargs, msg):
    args = {"derived": "p", "printed": "p", "register": False}
    args.update(kwargs)
    with pytest.raises(PrivcheckUsageError, match=msg):
        formula_claim("user.bad", **args)


def test_formula_claim_registers_claim_and_check_with_expect():
    reg = Registry()
    fc = formula_claim(
        "user.var",
        derived="p - p^2",
        printed="p*(1-p)",
        assumptions={"p": "(0,1)"},
        expect="holds",
        source="notes",
        where="eq. 3",
        registry=reg,
    )
    assert reg.claims["user.var"].methods == ("symbolic",)
    (chk,) = reg.checks["user.var"]
    assert chk.method == "symbolic" and chk.expect == "holds"
    out = chk.fn(RunContext())
    assert out.verdict == "holds" and out.claimed == "p*(1 - p)"
    assert fc.evaluate().verdict == "holds"
    # re-declaring the same id (a re-executed file) replaces it
    formula_claim("user.var", derived="p", printed="p", assumptions={"p": "(0,1)"}, registry=reg)
    assert len(reg.checks["user.var"]) == 1


def test_substitutions_and_collecting():
    reg = Registry()
    with collecting(reg):
        formula_claim(
            "user.ratio",
            derived="P/(1-P)",
            printed="exp(eps)",
            assumptions={"P": "(0,1)", "eps": "positive"},
            substitutions={"P": "exp(eps)/(exp(eps)+1)"},
        )
    assert "user.ratio" in reg.claims
    assert reg.checks["user.ratio"][0].fn(RunContext()).verdict == "holds"


def test_plugin_runs_the_example_file():
    records = assert_claims(EXAMPLE)
    assert {r.verdict for r in records} == {"holds", "refuted"}
    assert all(r.met_expectation for r in records)
    # loading twice is harmless (private registries)
    assert len(load_claims_file(EXAMPLE).claims) == len(records)


def test_plugin_fails_on_a_wrong_expectation(tmp_path):
    f = tmp_path / "mine.py"
    f.write_text(
        "from proofs.formula import formula_claim\n"
        'formula_claim("mine.wrong", derived="2*p", printed="p", assumptions={"p": "(0,1)"}, expect="holds")\n'
    )
    with pytest.raises(ClaimsMismatch, match="mine.wrong.*counterexample"):
        assert_claims(f)
    with pytest.raises(PrivcheckUsageError):
        assert_claims(tmp_path / "missing.py")


def test_fixture(privcheck_claims):
    records = privcheck_claims(["fedsel.ps.ratio"])
    assert [r.verdict for r in records if r.method == "symbolic"] == ["holds"]
