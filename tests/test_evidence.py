"""Every verdict is evidence: calculators say "computed", strengthened checks can fail (issue 15).

Each strengthened catalogue check is run on the real code (expected verdict) and on a deliberately
broken variant (monkeypatched) that must flip its verdict.
"""

from __future__ import annotations

import io
import json
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from rich.console import Console

from privcheck.auditor.result import MonteCarloBound
from privcheck.auditor.stages.decide import detectable_delta, max_certifiable_delta, mc_verdict
from privcheck.base.stats import clopper_pearson
from privcheck.claims import (
    CATALOGUE,
    METHODS,
    VERDICTS,
    Check,
    Claim,
    Outcome,
    VerdictRecord,
    verdict_for_method,
)
from privcheck.runner import RunOptions, load_catalogue, run


# --------------------------------------------------------------------------- the calculator label
def test_calculator_method_and_computed_verdict_are_part_of_the_model():
    assert "calculator" in METHODS and "computed" in VERDICTS
    assert Outcome("computed").verdict == "computed"
    with pytest.raises(ValueError):
        Outcome("confirmed")
    assert verdict_for_method("calculator", "computed") == "computed"
    assert verdict_for_method("calculator", "refuted") == "refuted"
    with pytest.raises(ValueError, match="cannot return 'holds'"):
        verdict_for_method("calculator", "holds")
    with pytest.raises(ValueError, match="only calculator"):
        verdict_for_method("numeric", "computed")


@pytest.fixture
def temp_claim():
    added = []

    def add(cid, method, fn, expect=None):
        CATALOGUE.add_claim(Claim(cid, "user", "", "formula", "test claim", (method,)))
        added.append(cid)
        chk = Check(cid, method, fn, expect=expect)
        CATALOGUE.add_check(chk)
        return chk

    yield add
    for cid in added:
        CATALOGUE.claims.pop(cid, None)
        CATALOGUE.checks.pop(cid, None)


def test_runner_treats_computed_as_passing_and_a_holding_calculator_as_an_error(temp_claim):
    ok = temp_claim("tmp.calc.ok", "calculator", lambda ctx: Outcome("computed", measured=1.0), expect="holds")
    bad = temp_claim("tmp.calc.bad", "calculator", lambda ctx: Outcome("holds"))
    wrong = temp_claim("tmp.num.computed", "numeric", lambda ctx: Outcome("computed"))
    r_ok, r_bad, r_wrong = run([ok, bad, wrong], RunOptions(jobs=1))
    assert r_ok.verdict == "computed" and r_ok.met_expectation  # like holds: not a failure
    assert r_bad.verdict == "error" and "cannot return 'holds'" in r_bad.details["error"]
    assert r_wrong.verdict == "error" and not r_wrong.met_expectation
    refuted = VerdictRecord(
        "x", "user", "formula", "calculator", "computed", None, None, {}, 0, None, 0.0, expect="refuted"
    )
    assert not refuted.met_expectation


def _records():
    base = dict(
        source="004_cc7ee25c83388ef6.txt Thm 1",
        kind="bound",
        claimed="eq. 13",
        measured={"a": 1.0},
        details={"x": 1},
        seed=0,
        samples=None,
        seconds=0.1,
    )
    return [
        VerdictRecord(id="seif.thm1", method="calculator", verdict="computed", **base),
        VerdictRecord(id="seif.taylor", method="numeric", verdict="holds", **base),
        VerdictRecord(id="seif.thm1.mechanism", method="exact", verdict="refuted", **base),
    ]


def test_every_writer_handles_computed(tmp_path):
    from privcheck import findings
    from privcheck.reports import print_table, records_to_html, records_to_json, records_to_junit, records_to_markdown

    recs = _records()
    assert json.loads(records_to_json(recs))[0]["verdict"] == "computed"
    tree = records_to_junit(recs)
    calc = [
        c
        for c in tree.getroot().iter("testcase")
        if "seif.thm1" in c.get("name", "") and "mechanism" not in c.get("name", "")
    ]
    assert len(calc) == 1 and calc[0].find("failure") is None and calc[0].find("error") is None
    assert "computed" in ET.tostring(tree.getroot(), encoding="unicode")
    md = records_to_markdown(recs)
    assert "computed" in md and "1 computed" in md
    assert "computed" in records_to_html(recs)
    buf = io.StringIO()
    print_table(recs, Console(file=buf, width=200))
    assert "computed" in buf.getvalue()
    text = findings.render(recs, seed=0, seconds=1.0)
    calc_line = [ln for ln in text.splitlines() if ln.startswith("- calculator")]
    assert calc_line and "`seif.thm1`" in calc_line[0]
    held = [ln for ln in text.splitlines() if ln.startswith("- holds on every method")]
    assert held and "seif.thm1`" not in held[0].replace("`seif.thm1.mechanism`", "")


def test_catalogue_calculators_are_labelled():
    reg = load_catalogue()
    for cid in ("seif.thm1", "sqsgd.reconstruction.omega"):
        assert reg.claims[cid].methods == ("calculator",)
    # a claim described as a calculator must be checked as one (and never "hold")
    for c in reg.claims.values():
        if "calculator" in c.statement:
            assert "calculator" in c.methods, c.id
    assert "seif.thm1.mechanism" in reg.claims["seif.thm1"].statement  # the two read unambiguously


def _run_one(cid, method, **opts):
    from privcheck.runner import select

    chk = [c for c in select([cid]) if c.method == method]
    assert len(chk) == 1
    return run(chk, RunOptions(jobs=1, **opts))[0]


def test_calculators_compute_and_refute_a_broken_monotonicity(monkeypatch):
    from accountants import wireless as wl

    rec = _run_one("seif.thm1", "calculator")
    assert rec.verdict == "computed" and rec.measured["monotonicity_failures"] == 0
    assert "seif.thm1.mechanism" in rec.details["what_computed_means"]
    assert _run_one("sqsgd.reconstruction.omega", "calculator").verdict == "computed"
    real = wl.central_nonuniform

    def min_p(p, c, delta_prime, delta_l):  # ε_c governed by the smallest p_k: contradicts the paper's text
        g = real(p, c, delta_prime, delta_l)
        pm = float(np.min(p))
        eps = math.log1p(pm / (1 - delta_prime) * math.expm1(c / math.sqrt(g.mu_K - g.beta * g.K)))
        return type(g)(eps, g.delta, g.K, g.mu_K, g.beta, pm, c, delta_prime, delta_l, g.equation)

    monkeypatch.setattr(wl, "central_nonuniform", min_p)
    assert _run_one("seif.thm1", "calculator").verdict == "refuted"

    def off_by_constant(p, c, delta_prime, delta_l):  # a wrong constant: the 40-digit evaluation disagrees
        g = real(p, c * 1.001, delta_prime, delta_l)
        return g

    monkeypatch.setattr(wl, "central_nonuniform", off_by_constant)
    assert _run_one("seif.thm1", "calculator").verdict == "error"


# --------------------------------------------------------------------------- seif.taylor
def test_taylor_remainder_bound_has_third_order():
    from privcheck.catalogue.estimation.seif import taylor_remainder

    for K, p in ((200, 0.5), (1000, 0.3), (1000, 0.9)):
        t = taylor_remainder(np.full(K, p))
        assert t.ok24 and t.ok25
        # the bound is one order below the second-order term it certifies (O(μ⁻³) against σ²/μ³ ~ μ⁻²)
        assert t.bound24 * t.mu**3 < 10 and t.bound25 * t.mu**4 < 60
        assert t.bound24 < 0.05 * t.second24 and t.bound25 < 0.05 * t.second25


@pytest.mark.parametrize(
    "coef,verdict",
    [((1, 3), "holds"), ((2, 5), "refuted"), ((0.2, 1), "refuted"), ((1, 5), "refuted"), ((1.1, 3), "refuted")],
)
def test_taylor_check_refutes_wrong_coefficients(monkeypatch, coef, verdict):
    from estimators import wireless as wl

    a, b = coef
    monkeypatch.setattr(wl, "taylor_inverse", lambda mu, var: (1 / mu + a * var / mu**3, 1 / mu**2 + b * var / mu**4))
    assert _run_one("seif.taylor", "numeric").verdict == verdict


def test_taylor_inverse_coefficients_are_pinned():
    from estimators import wireless as wl

    assert wl.taylor_inverse(10.0, 2.0) == pytest.approx((0.1 + 2.0 / 1000, 0.01 + 6.0 / 10_000), rel=1e-15)


# --------------------------------------------------------------------------- other strengthened checks
def test_composition_exact_uses_independent_values(monkeypatch):
    from accountants import composition as comp

    assert _run_one("composition.advanced", "exact", quick=True).verdict == "holds"
    real = comp.drv_composition
    monkeypatch.setattr(
        comp,
        "drv_composition",
        lambda eps, steps, dt, delta=0.0: type(real(eps, steps, dt, delta))(
            "drv", real(eps, steps, dt, delta).eps * (1 + 1e-6), real(eps, steps, dt, delta).delta, steps
        ),
    )
    assert _run_one("composition.advanced", "exact", quick=True).verdict == "refuted"


def test_optimal_pi_is_inconclusive_without_a_successful_optimiser_run(monkeypatch):
    from scipy import optimize

    class Failed:
        success = False
        x = np.zeros(1)

    monkeypatch.setattr(optimize, "minimize", lambda *a, **k: Failed())
    rec = _run_one("biswas.optimal_pi", "numeric", quick=True)
    assert rec.verdict == "inconclusive" and len(rec.details["cases_without_a_successful_optimiser_run"]) == 3


def test_pe_sparsity_uses_the_fedsel_sampler(monkeypatch):
    from estimators.fedsel_selection import FedSelPE

    assert _run_one("fedsel.pe.sparsity", "mc", samples=20_000).verdict == "holds"
    real = FedSelPE.perturbed_counts

    def flipped(self, n, rng):  # Top-k bits kept with 1 − p instead of p: a wrong sampler probability
        a, b = real(self, n, rng)
        return self.k - a, b

    monkeypatch.setattr(FedSelPE, "perturbed_counts", flipped)
    assert _run_one("fedsel.pe.sparsity", "mc", samples=20_000).verdict == "refuted"


# --------------------------------------------------------------------------- δ-mode power statement
def _bound(n_est, delta_lower, eps=1.0, m=2, confidence=0.95):
    cands = [{}] * m
    return MonteCarloBound(
        eps_lower=0.1,
        confidence=confidence,
        samples_per_input=n_est + 10,
        selection_samples=10,
        estimation_samples=n_est,
        eps_max_certifiable=5.0,
        worst_pair=None,
        event=None,
        counts=None,
        candidates=cands,
        delta_eps=eps,
        delta_lower=delta_lower,
    )


def test_delta_mode_is_inconclusive_without_power():
    small = _bound(30, 0.0)
    a = 0.05 / 2 / 2
    expect = clopper_pearson(30, 30, a, "lower") - math.e * clopper_pearson(0, 30, a, "upper")
    assert max_certifiable_delta(small) == pytest.approx(expect, rel=1e-12)
    assert mc_verdict(small, 1.0, 0.5) == "inconclusive"  # no count of 30 draws certifies δ > 0.5
    assert detectable_delta(small, 0.5) is None
    big = _bound(100_000, 0.0)
    assert mc_verdict(big, 1.0, 0.5) == "holds"  # powerful enough; δ lower bound 0 is what a correct mechanism gives
    d = detectable_delta(big, 1e-3)
    assert 1e-3 < d < 2e-3  # with 1e5 draws a violation twice the claimed 1e-3 is detectable
    k = round(d * 100_000)
    a = 0.05 / 2 / 2
    hi = math.e * clopper_pearson(0, 100_000, a, "upper")
    assert clopper_pearson(k, 100_000, a, "lower") - hi > 1e-3 >= clopper_pearson(k - 1, 100_000, a, "lower") - hi
    assert mc_verdict(_bound(100_000, 2e-3), 1.0, 1e-3) == "refuted"
    assert mc_verdict(_bound(30, 0.6), 1.0, 0.5) == "refuted"  # a refutation needs no power statement


def test_delta_mode_audit_reports_its_power():
    from privcheck.auditor import audit

    def sampler(x, n, rng):
        return (rng.random(n) < (0.7 if x else 0.3)).astype(float)

    res = audit(sampler, [0, 1], eps=1.0, delta=0.6, samples=40, seed=1)
    assert res.verdict_mc == "inconclusive" and res.details["delta_max_certifiable"] <= 0.6
    assert res.details["delta_detectable"] is None
    res = audit(sampler, [0, 1], eps=1.0, delta=0.01, samples=4000, seed=1)
    assert res.verdict_mc == "holds" and res.details["delta_detectable"] > 0.01


def test_count_pmf_and_inverse_moments_against_enumeration():
    """|K| law by brute force over all 2^K participation sets; the conditional inverse moments from it."""
    import itertools

    from estimators import wireless as wl

    p = np.array([0.1, 0.35, 0.3, 0.05, 0.4, 0.2])
    pmf = np.zeros(p.size + 1)
    for bits in itertools.product([0, 1], repeat=p.size):
        pmf[sum(bits)] += math.prod(pk if b else 1 - pk for pk, b in zip(p, bits))
    assert wl.count_pmf(p) == pytest.approx(pmf, rel=1e-12, abs=1e-15)
    assert wl.count_pmf([0.5, 0.5]).tolist() == [0.25, 0.5, 0.25]
    im = wl.inverse_moments_exact(p)
    j = np.arange(1, p.size + 1)
    tail = 1 - pmf[0]  # noticeably below 1 here: conditioning on |K| ≥ 1 matters
    assert tail < 0.9
    assert im.mu == pytest.approx(p.sum(), rel=1e-15) and im.var == pytest.approx((p * (1 - p)).sum(), rel=1e-15)
    assert im.p_empty == pytest.approx(pmf[0], rel=1e-12)
    assert im.e_inv == pytest.approx((pmf[1:] / j).sum() / tail, rel=1e-12)
    assert im.e_inv2 == pytest.approx((pmf[1:] / j**2).sum() / tail, rel=1e-12)
    assert (im.taylor_inv, im.taylor_inv2) == wl.taylor_inverse(im.mu, im.var)
    assert im.rel_err_inv == pytest.approx(abs(im.taylor_inv - im.e_inv) / im.e_inv, rel=1e-14)
    assert im.rel_err_inv2 == pytest.approx(abs(im.taylor_inv2 - im.e_inv2) / im.e_inv2, rel=1e-14)
    assert wl.inverse_moments_exact([1, 1, 0]).e_inv == 0.5  # integer input: exactly two participants


def test_de_probabilities_rejects_a_one_value_domain():
    from estimators.direct_encoding import de_probabilities
    from privcheck.base.errors import PrivcheckUsageError

    with pytest.raises(PrivcheckUsageError, match=r"^m must be an integer >= 2"):
        de_probabilities(1.0, 1)
    with pytest.raises(PrivcheckUsageError, match=r"^m must be"):
        de_probabilities(1.0, 2.5)
    assert de_probabilities(1.0, 2) == pytest.approx((math.e / (math.e + 1), 1 / (math.e + 1)), rel=1e-15)
