"""The zoo machinery without the libraries: discovery, calculators, the missing-library path, robustness."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

import privcheck
from privcheck.catalogue import zoo
from privcheck.catalogue.zoo import Case, Entry, calculators, run_entry
from privcheck.claims import RunContext
from privcheck.runner import load_catalogue, select


def _ctx(samples=4000):
    return RunContext(seed=0, seed_seq=np.random.SeedSequence(0), samples=samples, confidence=0.95)


def test_zoo_claims_registered_and_opt_in():
    reg = load_catalogue()
    ids = [c for c in reg.claims if c.startswith("zoo.")]
    assert len(ids) >= 90
    libraries = {i.split(".")[1] for i in ids}
    assert libraries == {"pure_ldp", "multi_freq_ldpy", "diffprivlib", "opendp", "pydp", "flwr", "opacus"}
    assert not any(chk.claim_id.startswith("zoo.") for chk in select(None))  # not in the default run
    assert {chk.claim_id for chk in select(["zoo.*"])} == set(ids)


def test_every_entry_documents_its_guarantee():
    for e in zoo.ENTRIES:
        assert e.claim_id.startswith("zoo.") and e.statement and e.adapter and e.where and e.dist


def test_calculators_reuse_the_oracles():
    assert calculators.sue(1.0) == pytest.approx(1.0, rel=1e-12)
    assert calculators.oue(0.25) == pytest.approx(0.25, rel=1e-12)
    assert calculators.local_hashing(2.0, 8) == pytest.approx(2.0, rel=1e-12)
    assert calculators.grr(4.0, 8) == pytest.approx(4.0, rel=1e-12)
    assert calculators.subset(1.0, 8, 2) == pytest.approx(1.0, rel=1e-12)


def test_pure_ldp_112_unary_law_calculator():
    """pure-ldp 1.1.2 sets the own bit with p *on top of* a q-draw: P(bit_x = 1) = p + (1 − p) q.
    At claimed ε = 1 (SUE) its exact ε is 1.68 (issue 20), computed from the two-bit table."""
    e = math.exp(0.5)
    p, q = e / (e + 1), 1 / (e + 1)
    assert calculators.unary(p + (1 - p) * q, q) == pytest.approx(1.68, abs=0.005)


def test_missing_library_is_inconclusive_with_install_hint():
    entry = Entry(
        "zoo.fake.missing",
        "fake",
        "fake-dist",
        ("no_such_module_xyz",),
        "fake.where",
        "fake is 1-DP",
        "none",
        lambda: [],
    )
    out = run_entry(entry, _ctx())
    assert out.verdict == "inconclusive"
    assert "pip install 'privcheck[zoo]'" in out.details["reason"] and out.details["skipped"]


def _raising(x, n, rng):
    raise RuntimeError("library exploded")


def _refusing(x, n, rng):
    if x > 3:
        raise ValueError("input outside [0, 3]")
    return privcheck.mechanism("grr", d=4, eps=1.0).sample(x, n, rng)


def _hanging(x, n, rng):
    time.sleep(3600)


def _odd_type(x, n, rng):
    return [object() for _ in range(n)]


def test_one_line_per_broken_case_and_the_rest_runs(monkeypatch):
    monkeypatch.setattr(zoo.engine, "CASE_TIMEOUT", 5.0)
    monkeypatch.setattr(zoo.engine, "WARM_UP_TIMEOUT", 1.0)
    grr = privcheck.mechanism("grr", d=4, eps=1.0)
    cases = [
        Case("hangs first", lambda: _hanging, [0, 1], 1.0),
        Case("good", lambda: grr, [0, 1], 1.0, true_eps=lambda: calculators.grr(1.0, 4), calculator="documented"),
        Case("raises", lambda: _raising, [0, 1], 1.0),
        Case("outside", lambda: _refusing, [0, 4], 1.0, outside=True),
        Case("hangs", lambda: _hanging, [0, 1], 1.0),
        Case("odd type", lambda: _odd_type, [0, 1], 1.0),
    ]
    entry = Entry("zoo.fake.robust", "fake", "numpy", ("numpy",), "fake.where", "fake is 1-DP", "direct", lambda: cases)
    out = run_entry(entry, _ctx(20_000))
    rows = {r["case"]: r for r in out.details["cases"]}
    assert rows["good"]["verdict"] == "holds" and rows["good"]["eps_true"] == pytest.approx(1.0)
    assert rows["good"]["certified"] > 0.5 and rows["good"]["version"]
    assert rows["raises"]["verdict"] == "error" and "library exploded" in rows["raises"]["error"]
    assert rows["outside"]["verdict"] == "refuses input"
    assert rows["hangs"]["verdict"] == rows["hangs first"]["verdict"] == "timeout"
    assert rows["odd type"]["verdict"] in ("error", "holds", "inconclusive")  # one row, whatever it is
    assert all("\n" not in str(r.get("error", "")) for r in rows.values())
    assert out.verdict == "inconclusive" and len(out.details["problems"]) >= 2


def test_broken_library_mechanism_refuted():
    """A library-like sampler whose keep probability is too high is refuted, with claimed/true/certified."""
    bad = privcheck.mechanism("de", m=4, eps=1.0, p=0.8)  # true eps = log(0.8 / (0.2/3)) = 2.48
    cases = [Case("p=0.8", lambda: bad, [0, 1], 1.0, true_eps=lambda: bad.exact_epsilon().eps, calculator="pmf")]
    entry = Entry("zoo.fake.bad", "fake", "numpy", ("numpy",), "fake.where", "fake is 1-DP", "direct", lambda: cases)
    out = run_entry(entry, _ctx(20_000), timeout=False)
    row = out.details["cases"][0]
    assert out.verdict == "refuted"
    assert 1.0 < row["eps_lower"] <= row["eps_true"]


@pytest.mark.parametrize("claim,expect", [("zoo.multi_freq_ldpy.ss", "refuted")])
def test_known_bug_multi_freq_ldpy_ss_order(claim, expect):
    pytest.importorskip("multi_freq_ldpy")
    rec = privcheck.verify([claim], seed=0, samples=20_000)[0]
    assert rec.verdict == expect, rec.details.get("cases")
    verdicts = {c["case"]: c.get("verdict") for c in rec.details["cases"]}
    assert verdicts["eps=0.25, k=8"] == verdicts["eps=1, k=8"] == "refuted", verdicts


def test_known_bug_pure_ldp_112_unary_encoding():
    pytest.importorskip("pure_ldp")
    from importlib import metadata

    if metadata.version("pure-ldp") != "1.1.2":
        pytest.skip("the unary-encoding bug is in pure-ldp 1.1.2")
    rec = privcheck.verify(["zoo.pure_ldp.sue"], seed=0, samples=20_000)[0]
    assert rec.verdict == "refuted"
    row = next(r for r in rec.details["cases"] if r["case"].startswith("eps=1,"))
    assert row["eps_lower"] > 1.2 and row["eps_true"] == pytest.approx(1.0)


def test_scorecard_tables_and_findings_from_records():
    from privcheck.catalogue.zoo.scorecard import findings_markdown, scorecard_markdown
    from privcheck.claims import VerdictRecord

    row = {
        "case": "eps=1, d=8",
        "eps_claimed": 1.0,
        "eps_true": 1.0,
        "eps_lower": 1.43,
        "certified": 1.43,
        "verdict": "refuted",
        "seconds": 3.0,
        "draws_per_second": 3000.0,
        "library_calls_per_second": 7000.0,
        "worst_pair": ["1", "2"],
        "event": "{out[0]=1 ∧ out[1]=0}",
        "reproducible": True,
    }
    rec = VerdictRecord(
        "zoo.pure_ldp.sue",
        "pure-ldp x",
        "privacy",
        "mc",
        "refuted",
        {},
        {},
        {"cases": [row], "library": "pure-ldp", "versions": {"pure-ldp": "1.1.2"}},
        0,
        1,
        3.0,
    )
    other = VerdictRecord("fedsel.pe.ldp", "p", "privacy", "exact", "holds", 1, 1, {}, 0, None, 0.1)
    table = scorecard_markdown([rec, other])
    assert (
        "### pure-ldp (pure-ldp 1.1.2)" in table
        and "| `sue` | eps=1, d=8 | 1 | 1 (documented) | 1.43 | 1.43 | refuted |" in table
    )
    assert "fedsel" not in table
    found = findings_markdown([rec])
    assert "privcheck verify 'zoo.pure_ldp.sue' --seed 0`" in found
    assert scorecard_markdown([other]) == "" and findings_markdown([other]) == ""
    # a case refuted by the adaptive full run (round sizes depend on the clock): a fixed-size reproducer
    adaptive = dict(row, draws_per_input=65536, adaptive={"stopped": "claim refuted", "rounds": [65536]})
    rec2 = VerdictRecord(
        "zoo.pure_ldp.sue",
        "pure-ldp x",
        "privacy",
        "mc",
        "refuted",
        {},
        {},
        {"cases": [adaptive], "library": "pure-ldp", "versions": {"pure-ldp": "1.1.2"}},
        0,
        1,
        3.0,
    )
    assert "privcheck verify 'zoo.pure_ldp.sue' --seed 0 --samples 65536`" in findings_markdown([rec2])
    quick = VerdictRecord(
        "zoo.pure_ldp.sue",
        "pure-ldp x",
        "privacy",
        "mc",
        "refuted",
        {},
        {},
        {"cases": [row], "quick": True, "library": "pure-ldp", "versions": {"pure-ldp": "1.1.2"}},
        0,
        1,
        3.0,
    )
    assert "--seed 0 --quick`" in findings_markdown([quick])


def test_false_refutation_summary_counts_only_cases_not_known_broken():
    from privcheck.catalogue.zoo.scorecard import false_refutation_summary

    rows = [
        {
            "claim": "zoo.a.x",
            "case": "eps=1",
            "seeds": 20,
            "alpha_case": 0.0125,
            "refuted": 1,
            "known_broken": None,
            "validity_failure": False,
        },
        {
            "claim": "zoo.a.x",
            "case": "eps=4",
            "seeds": 20,
            "alpha_case": 0.0125,
            "refuted": 20,
            "known_broken": "true eps 5 > claimed 4",
            "validity_failure": False,
        },
        {
            "claim": "zoo.b.y",
            "case": "eps=1",
            "seeds": 20,
            "alpha_case": 0.05,
            "refuted": 9,
            "known_broken": None,
            "validity_failure": True,
        },
    ]
    s = false_refutation_summary(rows)
    assert (s["cases"], s["claims"], s["known_broken"], s["refuted"], s["audits"]) == (3, 2, 1, 10, 40)
    assert s["expected_at_most"] == pytest.approx(20 * 0.0125 + 20 * 0.05)
    assert s["validity_failures"] == ["`zoo.b.y` eps=1"]


def test_multidimensional_calculators_compose_the_single_attribute_ones():
    """SPL (ε/d per attribute, inputs differing in every attribute): exact ε of the product of d GRR tables,
    enumerated, equals the calculator's sum; SMP (a public uniform attribute choice): the single ε."""
    from privcheck.catalogue.zoo.multi_freq_ldpy import _SINGLE, MDIM_D, _smp, _spl

    eps, k, d = 1.0, 4, MDIM_D
    e = math.exp(eps / d)
    p, q = e / (e + k - 1), 1 / (e + k - 1)
    grr = np.full((k, k), q) + np.eye(k) * (p - q)  # grr[x, y] = P(y | x)
    worst = 0.0
    for x in np.ndindex(*(k,) * d):
        for x2 in np.ndindex(*(k,) * d):
            for y in np.ndindex(*(k,) * d):
                worst = max(worst, sum(math.log(grr[a, b] / grr[a2, b]) for a, a2, b in zip(x, x2, y)))
    assert _spl(_SINGLE["GRR"])(eps, k, d) == pytest.approx(worst, rel=1e-9)
    assert _smp(_SINGLE["GRR"])(eps, k, d) == pytest.approx(calculators.grr(eps, k), rel=1e-12)


def test_pure_ldp_server_hashes_are_the_same_in_every_process():
    pytest.importorskip("pure_ldp")
    from privcheck.catalogue.zoo.pure_ldp import server_hashes

    kw = dict(f=0.5, m=16, k=1, d=8, num_of_cohorts=4)
    a, b = server_hashes("RAPPORServer", **kw), server_hashes("RAPPORServer", **kw)
    assert [[h("3") for h in c] for c in a] == [[h("3") for h in c] for c in b]


def test_known_bug_pure_ldp_112_rappor_never_clears_a_bloom_bit():
    """pure-ldp 1.1.2 RAPPORClient._perturb sets bits to 1 with the documented probabilities but never clears
    a set bit: {bit h_c(x) = 0 ∧ cohort c} is impossible under x (ε = ∞ at every claimed ε). The report is
    (Bloom bits, cohort): the audit's views see the bit × cohort conjunctions."""
    pytest.importorskip("pure_ldp")
    from importlib import metadata

    if metadata.version("pure-ldp") != "1.1.2":
        pytest.skip("the RAPPOR perturbation bug is in pure-ldp 1.1.2")
    entry = next(e for e in zoo.ENTRIES if e.claim_id == "zoo.pure_ldp.rappor")
    case = next(c for c in entry.cases() if c.label.startswith("eps=1,") and not c.outside)
    row = zoo.audit_case(case, samples=5000, seed=0, confidence=0.95)
    assert row["verdict"] == "refuted" and row["eps_lower"] > 2 * row["eps_true"]
    assert "bit × category" in (row["auto_view"] or "")
