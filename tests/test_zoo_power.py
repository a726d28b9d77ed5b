"""The zoo's adaptive full run, without the libraries: target from the true ε, budgets, power statements."""
from __future__ import annotations

import math

import numpy as np
import pytest

import privcheck
from privcheck.auditor.adaptive import Auto
from privcheck.catalogue import zoo
from privcheck.catalogue.zoo import Case, Entry, case_samples, of_true, run_entry
from privcheck.claims import RunContext


def _ctx(samples=None, quick=False, seed=0):
    return RunContext(seed=seed, seed_seq=np.random.SeedSequence(seed), samples=samples, quick=quick,
                      confidence=0.95)


def _entry(cases, name="fake"):
    return Entry(f"zoo.fake.{name}", "fake", "numpy", ("numpy",), "fake.where", "fake is eps-DP", "direct",
                 lambda: cases)


def test_target_is_a_fraction_of_the_true_eps_expressed_against_the_claim():
    c = Case("c", lambda: None, [0, 1], 2.0)
    a = case_samples(c, 1.0, None)
    assert isinstance(a, Auto) and a.target == pytest.approx(zoo.TARGET_OF_TRUE * 1.0 / 2.0)
    assert a.max_draws == zoo.CASE_MAX_DRAWS and a.max_seconds == zoo.CASE_MAX_SECONDS
    assert case_samples(c, None, None).target == zoo.TARGET_OF_TRUE  # no calculator: the claimed eps
    assert case_samples(c, 5.0, None).target == 1.0  # broken (true > claimed): capped, stops on refutation
    assert case_samples(c, math.inf, None).target == 1.0
    assert case_samples(c, 1.0, 777) == 777  # --samples / --quick: fixed
    assert case_samples(Case("d", lambda: None, [0, 1], 1.0, delta=1e-5), 1.0, None) == zoo.DEFAULT_SAMPLES
    assert case_samples(c, 1.0, None, first=10).first == 1000  # round 1 from a slow call rate, floored


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
    cases = [Case("eps=1 claimed 2", lambda: rr, [0, 1], 2.0, true_eps=lambda: rr.exact_epsilon().eps,
                  calculator="pmf")]
    out = run_entry(_entry(cases, "good"), _ctx(), timeout=False)
    row = out.details["cases"][0]
    assert row["verdict"] == "holds" and row["adaptive"]["stopped"] == "target reached"
    assert zoo.TARGET_OF_TRUE <= row["certified_of_true"] <= 1.0 and "power" not in row
    assert row["certified"] == pytest.approx(row["certified_of_true"] / 2)


def test_correct_fake_mechanism_under_budget_reports_the_power_statement(monkeypatch):
    """eps = 0.1 k-RR over 8 values cannot reach 0.95 of its eps in 3000 draws: the row says so in one line."""
    monkeypatch.setattr(zoo, "CASE_MAX_DRAWS", 3000)
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
