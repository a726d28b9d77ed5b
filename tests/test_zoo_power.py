"""The zoo's adaptive full run, without the libraries: target from the true ε, budgets, power statements."""

from __future__ import annotations

import math

import numpy as np
import pytest

import privcheck
from privcheck.auditor.adaptive import FIRST_ROUND, Auto
from privcheck.catalogue import zoo
from privcheck.catalogue.zoo import Case, Entry, case_samples, of_true, run_entry
from privcheck.claims import RunContext


def _ctx(samples=None, quick=False, seed=0):
    return RunContext(seed=seed, seed_seq=np.random.SeedSequence(seed), samples=samples, quick=quick, confidence=0.95)


def _entry(cases, name="fake"):
    return Entry(
        f"zoo.fake.{name}", "fake", "numpy", ("numpy",), "fake.where", "fake is eps-DP", "direct", lambda: cases
    )


def test_target_is_a_fraction_of_the_true_eps_expressed_against_the_claim():
    c = Case("c", lambda: None, [0, 1], 2.0)
    a = case_samples(c, 1.0, None)
    assert isinstance(a, Auto) and a.target == pytest.approx(zoo.TARGET_OF_TRUE * 1.0 / 2.0)
    assert a.max_draws == zoo.CASE_MAX_DRAWS and a.max_seconds == zoo.CASE_MAX_SECONDS
    assert case_samples(c, None, None).target == zoo.TARGET_OF_TRUE  # no calculator: the claimed eps
    assert case_samples(c, 5.0, None).target == 1.0  # broken (true > claimed): capped, stops on refutation
    assert case_samples(c, math.inf, None).target == 1.0
    assert case_samples(c, 1.0, 777) == 777  # --samples / --quick: fixed
    d = case_samples(Case("d", lambda: None, [0, 1], 1.0, delta=1e-5), 1.0, None)  # (eps, delta): sequential too
    assert d.policy == "sequential" and d.target == zoo.TARGET_OF_TRUE
    assert case_samples(c, 1.0, None, first=10).first_size == 2000  # sequential: its first epoch
    assert case_samples(c, 1.0, None).policy == "sequential"


def test_of_true_basis():
    assert of_true(0.5, 1.0, 2.0) == {"certified_of_true": 0.5, "certified_basis": "true"}
    assert of_true(-0.1, None, 2.0) == {"certified_of_true": 0.0, "certified_basis": "claimed"}
    assert of_true(3.0, math.inf, 1.0)["certified_of_true"] is None
    assert of_true(None, 1.0, 1.0)["certified_of_true"] is None


def test_broken_fake_mechanism_refuted_by_the_adaptive_run():
    bad = privcheck.mechanism("de", m=4, eps=1.0, p=0.8)  # true eps = log(0.8 / (0.2/3)) = 2.48
    cases = [Case("p=0.8", lambda: bad, [0, 1], 1.0, true_eps=lambda: bad.exact_epsilon().eps, calculator="pmf")]
    out = run_entry(_entry(cases, "bad"), _ctx(), timeout=False)
    row = out.details["cases"][0]
    assert out.verdict == "refuted" and "power" not in row
    assert 1.0 < row["eps_lower"] <= row["eps_true"]
    assert row["adaptive"]["stopped"] == "claim refuted" and row["certified_basis"] == "true"
    assert out.details["sizing"].startswith("adaptive")


def test_correct_fake_mechanism_reaches_the_target_of_its_true_eps():
    """k-RR over 2 values at claimed eps 2 whose true eps is 1: the target is 0.95 of 1, not of 2."""
    rr = privcheck.mechanism("grr", d=2, eps=1.0)
    cases = [
        Case("eps=1 claimed 2", lambda: rr, [0, 1], 2.0, true_eps=lambda: rr.exact_epsilon().eps, calculator="pmf")
    ]
    out = run_entry(_entry(cases, "good"), _ctx(), timeout=False)
    row = out.details["cases"][0]
    assert row["verdict"] == "holds" and row["adaptive"]["stopped"] == "target reached"
    assert zoo.TARGET_OF_TRUE <= row["certified_of_true"] <= 1.0 and "power" not in row
    assert row["certified"] == pytest.approx(row["certified_of_true"] / 2)


def test_correct_fake_mechanism_under_budget_reports_the_power_statement(monkeypatch):
    """eps = 0.1 k-RR over 8 values cannot reach 0.95 of its eps in 3000 draws: the row says so in one line."""
    monkeypatch.setattr(zoo.engine, "CASE_MAX_DRAWS", 3000)
    rr = privcheck.mechanism("grr", d=8, eps=0.1)
    cases = [Case("eps=0.1", lambda: rr, [0, 1], 0.1, true_eps=lambda: rr.exact_epsilon().eps, calculator="pmf")]
    out = run_entry(_entry(cases, "weak"), _ctx(), timeout=False)
    row = out.details["cases"][0]
    assert row["verdict"] != "refuted" and row["certified_of_true"] < zoo.TARGET_OF_TRUE
    assert row["adaptive"]["stopped"] == "draws budget" and sum(row["adaptive"]["rounds"]) <= 3000
    assert row["power"].startswith("budget cannot reach the target") and "\n" not in row["power"]
    assert out.details["below_target"] == [f"eps=0.1: {row['power']}"]


def test_fixed_sizes_under_samples_and_quick():
    rr = privcheck.mechanism("grr", d=2, eps=1.0)
    cases = [Case("eps=1", lambda: rr, [0, 1], 1.0)]
    out = run_entry(_entry(cases, "fixed"), _ctx(samples=500), timeout=False)
    row = out.details["cases"][0]
    assert "adaptive" not in row and row["draws_per_input"] == 500 and out.details["sizing"].startswith("fixed 500")
    assert row["certified_basis"] == "claimed" and out.samples == 1000
    assert row["verdict"] == "holds" or row.get("power")  # below target at 500 draws: the reason is stated
    quick = run_entry(_entry(cases, "quick"), _ctx(quick=True), timeout=False)
    assert quick.details["cases"][0]["draws_per_input"] == zoo.QUICK_SAMPLES


def test_scorecard_shows_certified_of_true_and_power_statements():
    from privcheck.catalogue.zoo.scorecard import power_summary, scorecard_markdown
    from privcheck.claims import VerdictRecord

    good = {
        "case": "eps=1",
        "eps_claimed": 1.0,
        "eps_true": 1.0,
        "eps_lower": 0.97,
        "certified": 0.97,
        "certified_of_true": 0.97,
        "certified_basis": "true",
        "verdict": "holds",
        "draws_per_input": 262144,
    }
    weak = {
        "case": "eps=0.25",
        "eps_claimed": 0.24999999999999994,
        "eps_lower": 0.2,
        "certified": 0.8,
        "certified_of_true": 0.8,
        "certified_basis": "claimed",
        "verdict": "holds",
        "draws_per_input": 10**7,
        "power": "budget cannot reach the target: 10000000 draws/input in 5 rounds; about 2e7 draws/input would be needed",
    }
    broken = {
        "case": "eps=2",
        "eps_claimed": 2.0,
        "eps_true": 3.0,
        "eps_lower": 2.5,
        "certified_of_true": 2.5 / 3,
        "verdict": "refuted",
    }
    rec = VerdictRecord(
        "zoo.fake.mech",
        "fake",
        "privacy",
        "mc",
        "refuted",
        {},
        {},
        {"cases": [good, weak, broken], "library": "fake", "versions": {"fake": "1"}},
        0,
        1,
        3.0,
    )
    table = scorecard_markdown([rec])
    assert "| `mech` | eps=1 | 1 | 1 (documented) | 0.97 | 0.97 | holds | 0.97 | 2.62e+05 |" in table
    assert "| holds | 0.80* |" in table  # basis: the claimed eps (no calculator)
    assert f"- `mech` eps=0.25: {weak['power']}" in table
    line = power_summary([rec])
    assert line.startswith("Power: 1 of 2 correct cases") and "median 0.89" in line and "1 below target" in line
    assert "By ε: claimed ε = 0.25: 0 of 1, median 0.80; claimed ε = 1: 1 of 1, median 0.97." in line
    twin = dict(weak, eps_claimed=0.25, case="eps=0.25 (exact)")  # the same claimed eps, written differently
    rec2 = VerdictRecord(
        "zoo.fake.mech",
        "fake",
        "privacy",
        "mc",
        "holds",
        {},
        {},
        {"cases": [good, weak, twin], "library": "fake", "versions": {"fake": "1"}},
        0,
        1,
        3.0,
    )
    assert "By ε: claimed ε = 0.25: 0 of 2, median 0.80; claimed ε = 1: 1 of 1" in power_summary([rec2])


def test_delta_cases_of_the_full_run_use_the_entrys_fixed_size():
    """(ε, δ) claims are not adaptive: the full run gives them the entry's own fixed size, stated in sizing."""
    rr = privcheck.mechanism("grr", d=2, eps=1.0)
    cases = [Case("eps=1, delta=1e-6", lambda: rr, [0, 1], 1.0, delta=1e-6)]
    entry = _entry(cases, "delta")
    entry.samples = 400
    out = run_entry(entry, _ctx(), timeout=False)
    row = out.details["cases"][0]
    assert row["draws_per_input"] == 400 and "adaptive" not in row
    assert "(eps, delta) cases fixed 400" in out.details["sizing"]


def test_budget_from_the_environment(monkeypatch):
    c = Case("c", lambda: None, [0, 1], 1.0)
    monkeypatch.setenv(zoo.BUDGET_ENV, "seconds=900,draws=2e7")
    a = case_samples(c, 1.0, None)
    assert (a.max_seconds, a.max_draws, a.target) == (900.0, 20_000_000, zoo.TARGET_OF_TRUE)
    assert zoo.case_budget() == {"max_draws": 20_000_000, "max_seconds": 900.0, "first": None, "policy": "sequential"}
    monkeypatch.setenv(zoo.BUDGET_ENV, "policy=rounds")
    assert case_samples(c, 1.0, None, first=10).first == 1000  # rounds: round 1 from a slow call rate, floored
    assert case_samples(c, 1.0, None).first == FIRST_ROUND and case_samples(c, 1.0, None).policy == "rounds"
    monkeypatch.setenv(zoo.BUDGET_ENV, "draws=3000,first=1500")
    assert case_samples(c, 1.0, None, first=10_000).first == 1500  # the user's round 1 wins over the call rate's
    rr = privcheck.mechanism("grr", d=8, eps=0.1)
    out = run_entry(_entry([Case("eps=0.1", lambda: rr, [0, 1], 0.1)], "env"), _ctx(), timeout=False)
    assert "budget 3e+03 draws/input" in out.details["sizing"]  # the budget used, not the module default
    assert sum(out.details["cases"][0]["adaptive"]["rounds"]) <= 3000
    from privcheck.base.errors import PrivcheckUsageError

    for bad in ("seconds=abc", "target=0.5", "colour=red"):
        monkeypatch.setenv(zoo.BUDGET_ENV, bad)
        with pytest.raises(PrivcheckUsageError):
            case_samples(c, 1.0, None)
