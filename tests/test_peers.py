"""The peers.* claims: judging other libraries' accountants against privcheck's certified intervals.

Library-free tests use fake "libraries" (queries whose answers we choose) against the exact
oracles; tests with the real libraries skip cleanly when a library is absent; the not-installed
path is tested by making the imports fail.
"""

from __future__ import annotations

import math
import sys

import mpmath
import pytest

from privcheck.catalogue import peers as P
from privcheck.claims import CATALOGUE, RunContext
from privcheck.runner import load_catalogue, run_check, select

QUICK = RunContext(quick=True)
DPSGD_100 = (P.gaussian(10.0, count=100),)  # exact ε(1e-5) = 4.377178096 (μ = 1 GDP)


def fake(value, role="upper", events=DPSGD_100, target="eps", at=1e-5, **kw) -> P.Query:
    """A query to a fake library that answers ``value`` (or raises it, if it is an exception)."""

    def ask():
        if isinstance(value, Exception):
            raise value
        return value

    return P.Query(
        label=f"fake {value}",
        relation="add_remove",
        target=target,
        at=at,
        role=role,
        ask=ask,
        code=f"answer = {value!r}  # fake library",
        events=events,
        **kw,
    )


def one_row(q: P.Query) -> tuple[str, dict]:
    out = P.audit_queries([q], "fake", ["fake-lib"], "fake statement")
    return out.verdict, out.details["rows"][0]


# ---------------------------------------------------------------- the judgement, with fake libraries
def test_upper_bound_below_certified_lower_end_is_refuted_with_reproducer():
    verdict, row = one_row(fake(4.0))
    assert verdict == "refuted" and row["status"] == "refuted"
    lo, up = row["certified"]
    assert lo <= 4.377178096 <= up and up - lo < 1e-8
    assert row["below_certified_lower_by"] == pytest.approx(lo - 4.0)
    assert "answer = 4.0" in row["reproducer"] and "gdp_eps" in row["reproducer"]
    ns: dict = {}
    exec(row["reproducer"].split("# privcheck")[0] + "\n", ns)  # the reproducer runs
    assert ns["answer"] == 4.0


def test_upper_bound_above_holds_with_its_slack_and_inside_is_undecided():
    verdict, row = one_row(fake(4.5))
    assert verdict == "holds" and row["slack"] == pytest.approx(4.5 - 4.377178096, abs=1e-8)
    assert row["slack_rel"] > 0
    _, row = one_row(fake(4.377178096))  # at the upper end of a tight interval, within the float allowance
    assert row["status"] == "holds"
    lo, up = row["certified"]
    assert one_row(fake((lo + up) / 2))[1]["status"] == "holds"  # an exact closed form's interval is a point
    wide = lambda *args: P.Certified(4.0, 5.0, "fake", "# fake interval")  # noqa: E731
    for value, status in ((4.5, "undecided"), (5.0, "holds"), (5.5, "holds"), (3.9, "refuted")):
        out = P.audit_queries([fake(value)], "fake", ["fake-lib"], "fake statement", certify=wide)
        assert out.details["rows"][0]["status"] == status, value
    out = P.audit_queries([fake(4.5)], "fake", ["fake-lib"], "fake statement", certify=wide)
    assert out.verdict == "inconclusive" and "undecided" in out.details["rows"][0]["reason"]
    assert "undecided" in out.details["reason"] and "undecided" in out.measured
    for value, status in ((4.5, "undecided"), (4.0, "holds"), (3.0, "holds"), (5.1, "refuted")):
        out = P.audit_queries([fake(value, role="lower")], "fake", ["fake-lib"], "fake statement", certify=wide)
        assert out.details["rows"][0]["status"] == status, value


def test_float_allowance_is_relative_and_tiny():
    exact = 4.377178096
    assert one_row(fake(exact * (1 - 1e-12)))[1]["status"] == "holds"
    assert one_row(fake(exact * (1 - 1e-7)))[1]["status"] == "refuted"


def test_inf_is_vacuous_not_refuted_and_nan_or_raise_is_no_answer():
    v, row = one_row(fake(math.inf))
    assert v == "holds" and row["status"] == "vacuous" and "vacuous" in row["note"]
    v, row = one_row(fake(float("nan")))
    assert v == "inconclusive" and row["status"] == "no_answer"
    v, row = one_row(fake(OverflowError("math range error")))
    assert v == "inconclusive" and row["status"] == "no_answer" and "OverflowError" in row["error"]


def test_negative_eps_is_below_the_truth():
    assert one_row(fake(-0.1))[1]["status"] == "refuted"


def test_lower_bound_above_certified_upper_end_is_refuted():
    assert one_row(fake(4.5, role="lower"))[1]["status"] == "refuted"
    assert one_row(fake(4.3, role="lower"))[1]["status"] == "holds"


def test_approximation_is_labelled_never_counted_as_holds_and_its_miss_refutes():
    """Issue 29: the 'approximation' label explains a miss, it does not turn it into holds."""
    out = P.audit_queries([fake(4.0, role="approximation")], "fake", [], "s")
    row = out.details["rows"][0]
    assert out.verdict == "refuted"  # below the truth: a miss, whatever the label
    assert row["status"] == "miss" and row["position"] == "below" and "not a bound" in row["note"]
    assert "explains the miss" in row["note"] and "reproducer" in row
    assert out.details["approximations_below_truth"] == 1 and "unsafe side of the truth" in out.measured
    above = P.audit_queries([fake(4.5, role="approximation")], "fake", [], "s")
    assert above.details["rows"][0]["status"] == "approximation" and above.details["rows"][0]["position"] == "above"
    assert above.verdict == "inconclusive"  # labelled, never counted as holds
    both = P.audit_queries([fake(4.0, role="approximation"), fake(4.5)], "fake", [], "s")
    assert both.verdict == "refuted"  # a holding bound does not hide the approximation's miss


def test_delta_direction():
    # μ = 1 GDP at ε = 1: δ = 0.126936737...
    v, row = one_row(fake(0.1, target="delta", at=1.0, events=(P.gaussian(1.0),)))
    assert v == "refuted"
    v, row = one_row(fake(0.2, target="delta", at=1.0, events=(P.gaussian(1.0),)))
    assert v == "holds" and row["slack"] == pytest.approx(0.2 - 0.12693673750, abs=1e-9)


def test_calibration_refuted_when_the_parameter_is_too_small():
    # σ for (1, 1e-5) with one Gaussian query is ≈ 3.7306; a fake helper returning 3.0 under-noises
    mk = dict(role="calibration", events=(), claim_eps=1.0, events_for=lambda s: (P.gaussian(s),))
    v, row = one_row(fake(3.0, **mk))
    assert v == "refuted" and row["excess"] > 0.2 and "reproducer" in row
    v, row = one_row(fake(4.0, **mk))
    assert v == "holds" and row["budget_unused"] > 0
    # within a documented tolerance: holds, and says so
    v, row = one_row(fake(3.7, tolerance=0.05, **mk))
    assert v == "holds" and row["within_documented_tolerance"]["excess"] > 0
    # an approximate calibration that misses the target: a miss (refuted), the label explaining it
    v, row = one_row(fake(3.0, approximate=True, **mk))
    assert row["status"] == "miss" and row["position"] == "below" and v == "refuted"
    assert "target ε is NOT achieved" in row["note"]
    v, row = one_row(fake(4.0, approximate=True, **mk))
    assert row["status"] == "approximation" and v == "inconclusive"


def test_events_without_certified_interval_are_undecided():
    certify = lambda *a: None  # noqa: E731
    out = P.audit_queries([fake(1.0)], "fake", [], "s", certify=certify)
    assert out.verdict == "inconclusive" and out.details["rows"][0]["status"] == "undecided"

    def failing(*a):
        raise FloatingPointError("grid overflow")

    out = P.audit_queries([fake(1.0), fake(4.5)], "fake", [], "s", certify=failing)
    assert out.verdict == "inconclusive" and "FloatingPointError" in out.details["rows"][0]["reason"]


def test_one_refuted_row_refutes_the_claim_and_versions_are_recorded():
    out = P.audit_queries([fake(4.5), fake(4.0), fake(math.inf)], "fake", ["numpy"], "s")
    assert out.verdict == "refuted" and out.details["counts"]["refuted"] == 1 and out.details["counts"]["holds"] == 1
    assert out.measured.startswith("fake 4.0: 4;") and out.details["interval"][0] > 4.37
    assert out.details["versions"]["numpy"]


# ---------------------------------------------------------------- the exact oracles behind the interim adapter
def test_exact_oracles_against_independent_computations():
    c = P.certified((P.gaussian(2.0, count=10), P.gaussian(5.0, count=50)), "add_remove", "eps", 1e-6)
    assert c.lower <= 11.81115994 <= c.upper  # μ² = 10/4 + 50/25 = 4.5
    # Laplace b = 1 profile against mpmath quadrature of the hockey-stick divergence at ε = 0.5
    f = lambda x: max(0, 0.5 * mpmath.e ** (-abs(x)) - mpmath.e**0.5 * 0.5 * mpmath.e ** (-abs(x - 1)))  # noqa: E731
    hs = float(mpmath.quad(f, [-mpmath.inf, 0, 0.25, 1, mpmath.inf]))  # the crossing is at x = 1/4
    c = P.certified((P.laplace(1.0),), "add_remove", "delta", 0.5)
    assert c.lower <= hs <= c.upper
    # 400 × RR ε = 0.1 (REFERENCE: exact optimum 9.936810)
    c = P.certified((P.rr(0.1, 2, 400),), "replace_one", "eps", 1e-5)
    assert c.lower <= 9.9368100 <= c.upper + 1e-6
    assert P.certified((P.approx(0.1, 0.0, 400),), "add_remove", "eps", 1e-5).lower == pytest.approx(c.lower)


# ---------------------------------------------------------------- the catalogue and the not-installed path
def test_peers_claims_are_registered():
    load_catalogue()
    ids = {c.claim_id for c in select(["peers.*"])}
    assert {
        "peers.dp_accounting.pld",
        "peers.prv_accountant.prv",
        "peers.autodp.rdp",
        "peers.opacus.accountants",
    } <= ids
    assert all(CATALOGUE.claims[i].kind == "bound" for i in ids)


@pytest.mark.parametrize(
    "claim_id",
    [
        "peers.dp_accounting.pld",
        "peers.dp_accounting.calibration",
        "peers.prv_accountant.prv",
        "peers.autodp.rdp",
        "peers.opacus.calibration",
    ],
)
def test_library_not_installed_gives_a_skip_note_not_an_error(monkeypatch, claim_id):
    for mod in ("dp_accounting", "prv_accountant", "autodp", "opacus"):
        monkeypatch.setitem(sys.modules, mod, None)  # import raises ImportError
    load_catalogue()
    (chk,) = [c for c in select([claim_id])]
    rec = run_check(chk, QUICK)
    assert rec.verdict == "inconclusive", rec.details
    assert rec.details["skipped"] is True and "not installed: pip install" in rec.details["reason"]
    assert "versions" in rec.details


# ---------------------------------------------------------------- the real libraries (skip when absent)
def _rows(queries, labels):
    return {q.label: P.judge(q) for q in queries if q.label in labels}


def _consistent(row):
    """A row's status follows from its numbers (the judgement is not hard-coded)."""
    lo, up = row["certified"]
    a = float(row["answer"])
    if row["role"] == "upper":
        assert (row["status"] == "refuted") == (a < lo * (1 - P.REL_FLOAT)), row
    elif row["role"] == "lower":
        assert (row["status"] == "refuted") == (a > up * (1 + P.REL_FLOAT)), row


def test_dp_accounting_pld_rows():
    pytest.importorskip("dp_accounting")
    qs = P.dp_accounting_pld_queries(QUICK)
    rows = _rows(
        qs,
        {
            "100 × Gaussian σ=10",
            "Gaussian σ=1 at δ=1e-50",
            "replace-one: 400 × RR ε=0.1",
            "replace-one: 400 × RR ε=0.1, composed one by one",
            "Laplace b=1",
            "replace-one: 20 × 4-RR ε=1",
        },
    )
    g = rows["100 × Gaussian σ=10"]
    assert g["status"] == "holds" and g["answer"] == pytest.approx(4.377178100, abs=1e-8)  # REFERENCE value
    assert rows["Gaussian σ=1 at δ=1e-50"]["status"] in ("vacuous", "holds")
    loop = rows["replace-one: 400 × RR ε=0.1, composed one by one"]
    assert loop["status"] == "holds" and 0 < loop["slack"] < 0.1  # pessimistic 9.9619 vs exact 9.9368
    kr = rows["replace-one: 20 × 4-RR ε=1"]  # certified by privcheck's PLD accountant (k-RR atoms)
    if "certified" in kr:
        assert kr["certified"][0] <= kr["certified"][1] and "PLD" in kr["certified_by"]
    for r in rows.values():
        if "certified" in r:
            _consistent(r)
        if r["status"] == "refuted":  # the reproducer alone gives the library's answer again
            ns: dict = {}
            exec(r["reproducer"].split("# privcheck")[0].replace("print(answer)", ""), ns)
            assert ns["answer"] == pytest.approx(float(r["answer"]), rel=1e-12)


def test_prv_rows_lower_estimate_upper():
    pytest.importorskip("prv_accountant")
    qs = [q for q in P.prv_queries(QUICK) if q.label.startswith("100 × Gaussian σ=10")]
    rows = [P.judge(q) for q in qs]
    assert [r["role"] for r in rows] == ["lower", "approximation", "upper"]
    assert rows[0]["status"] == "holds" and rows[2]["status"] == "holds"
    assert rows[1]["status"] == "approximation" and rows[1]["position"] in ("below", "inside", "above")
    assert float(rows[0]["answer"]) <= 4.3771781 <= float(rows[2]["answer"])


def test_autodp_gaussian_claim_end_to_end():
    pytest.importorskip("autodp")
    load_catalogue()
    (chk,) = select(["peers.autodp.gaussian"])
    rec = run_check(chk, QUICK)
    assert rec.verdict == "holds", rec.details
    assert rec.details["versions"]["autodp"]
    delta_rows = [r for r in rec.details["rows"] if "eps" in r and r["status"] == "holds"]
    assert delta_rows and all(r["slack"] > 0 for r in delta_rows)  # get_approx_delta overstates δ (RDP fall-back)
    for r in rec.details["rows"]:
        _consistent(r)


def test_pld_adapter_maps_events_to_the_accountant_api(monkeypatch):
    """The adapter speaks accountants.pld's API (a stand-in module records the calls)."""
    import types
    from dataclasses import dataclass as dc

    calls = []
    mod = types.ModuleType("accountants.pld")
    for name in ("GaussianEvent", "LaplaceEvent", "DiscreteLaplaceEvent", "RandomizedResponseEvent", "PureDPEvent"):
        setattr(mod, name, (lambda n: lambda **kw: (n, kw))(name))
    mod.PoissonSampledEvent = lambda ev, q: ("PoissonSampledEvent", ev, q)

    @dc
    class Interval:
        lower: float
        upper: float

    class Acc:
        def __init__(self, relation):
            calls.append(("relation", relation))

        def compose(self, ev, count=1):
            calls.append(("compose", ev, count))

        def epsilon(self, delta):
            calls.append(("epsilon", delta))
            return Interval(1.0, 2.0)

        def delta(self, eps):
            return Interval(1e-6, 2e-6)

    mod.PLDAccountant = Acc
    monkeypatch.setitem(sys.modules, "accountants.pld", mod)
    evs = (P.subsampled_gaussian(0.01, 1.1, 7), P.laplace(2.0, 3), P.rr(1.0, 4))
    c = P._pld_oracle(evs, "add_remove", "eps", 1e-5)
    assert (c.lower, c.upper) == (1.0, 2.0) and "PLDAccountant(relation='add_remove')" in c.code
    assert calls[0] == ("relation", "add_remove")
    assert calls[1] == (
        "compose",
        ("PoissonSampledEvent", ("GaussianEvent", {"sigma": 1.1, "sensitivity": 1.0}), 0.01),
        7,
    )
    assert calls[2] == ("compose", ("LaplaceEvent", {"b": 2.0}), 3)
    assert calls[3] == ("compose", ("RandomizedResponseEvent", {"eps": 1.0, "k": 4}), 1)
    assert calls[4] == ("epsilon", 1e-5)
    assert P._pld_oracle((P.approx(0.5, 1e-6, 3),), "add_remove", "eps", 1e-5) is None  # not an accountant event


def test_cli_verify_peers_json(tmp_path):
    """`privcheck verify 'peers.autodp.*' --json` writes records with versions and computed rows; exit 0."""
    import json

    from click.testing import CliRunner

    from privcheck.cli import main

    pytest.importorskip("autodp")
    js = tmp_path / "p.json"
    res = CliRunner().invoke(
        main, ["verify", "peers.autodp.gaussian", "--quick", "--jobs", "1", "--json", str(js)], catch_exceptions=False
    )
    assert res.exit_code == 0, res.output
    (rec,) = json.loads(js.read_text())
    assert rec["id"] == "peers.autodp.gaussian" and rec["verdict"] == "holds"
    assert rec["details"]["versions"]["autodp"] and all("certified" in r for r in rec["details"]["rows"])


@pytest.mark.slow  # importing torch takes ~10 s; CI does not install opacus
def test_opacus_rows_when_installed():
    """opacus (optional, pulls torch): RDP is judged as a bound, the GDP accountant only labelled."""
    pytest.importorskip("opacus")
    ev = (P.subsampled_gaussian(0.05, 0.8, 100),)
    rdp = P.judge(P._op("RDP", "RDPAccountant", [(0.8, 0.05, 100)], ev))
    gdp = P.judge(P._op("GDP", "GaussianAccountant", [(0.8, 0.05, 100)], ev, role="approximation"))
    assert rdp["status"] == "holds" and rdp["slack"] > 0
    _consistent(rdp)
    assert gdp["status"] == "approximation" and gdp["position"] in ("below", "inside", "above")
    assert "not a bound" in gdp["note"]


def test_full_grids_sweep_large_eps_long_runs_and_several_calibration_targets():
    """Issue 18 §5: q up to 0.5, σ down to 0.5, T up to 10⁵, calibration at several targets (queries only, not run)."""
    full, quick = type("Ctx", (), {"quick": False})(), type("Ctx", (), {"quick": True})()
    for build in (
        P.dp_accounting_pld_queries,
        P.dp_accounting_rdp_queries,
        P.prv_queries,
        P.autodp_rdp_queries,
        P.opacus_queries,
    ):
        evs = [e for q in build(full) for e in q.events if e.kind == "subsampled_gaussian"]
        params = [(dict(e.params)["q"], dict(e.params)["sigma"], e.count) for e in evs]
        assert max(p[0] for p in params) >= 0.5 and min(p[1] for p in params) <= 0.5, build.__name__
        if build is P.dp_accounting_pld_queries:
            assert max(p[2] for p in params) >= 100_000
        assert len(build(quick)) < len(build(full))  # the heavy rows stay out of --quick
    for build in (P.dp_accounting_calibration_queries, P.prv_calibration_queries, P.opacus_calibration_queries):
        targets = {q.claim_eps for q in build(full) if q.role == "calibration"}
        assert len(targets) >= 3 and max(targets) >= 8.0, build.__name__


def test_library_logging_goes_to_the_record_not_the_terminal(capsys):
    import logging

    def ask():
        logging.getLogger("absl").warning("failed to converge")
        return 4.5

    row = P.judge(
        P.Query(
            label="logs", relation="add_remove", target="eps", at=1e-5, role="upper", ask=ask, code="", events=DPSGD_100
        )
    )
    assert row["library_log"] == ["WARNING: failed to converge"]
    assert "failed to converge" not in capsys.readouterr().err


# ---------------------------------------------------------------- issue 29: tails, impossible values, grids
def test_impossible_curve_values_are_named_before_any_interval():
    """β(α) ≤ 1 − α (TPR ≥ FPR), advantage in [0, 1], μ ≥ 0 for every mechanism; a few ulps of allowance."""
    from privcheck.catalogue.peers.curves import IMPOSSIBLE_ABS, impossible

    # riskcal 1.5.1 / gdpnum 0.1.2 at σ=1.1, q=0.01, T=10⁴, α=1e-10 (see peers.riskcal)
    assert "TPR" in impossible("beta", 0.9999999999995757, 1e-10)
    assert impossible("beta", 1.0 - 1e-10, 1e-10) is None
    assert impossible("beta", 1.0 - 1e-10 + IMPOSSIBLE_ABS / 2, 1e-10) is None
    assert impossible("beta", -1e-12, 0.5) is not None and impossible("beta", 0.0, 0.5) is None
    assert impossible("advantage", 1.0000028440550712, None) is not None  # riskcal at σ=0.5, q=0.5, T=100
    assert impossible("advantage", 1.0, None) is None and impossible("mu", -0.1, None) is not None


def test_an_impossible_beta_refutes_even_inside_a_wide_interval():
    import privcheck.catalogue.peers.curves as pc
    from accountants.pld import Interval

    wide = lambda *a: Interval(0.0, 1.0, "fake")  # noqa: E731 - an interval too wide to judge anything
    row = pc.CurveRow("beta(1e-10)", "beta", 1.1, 0.01, 10_000, 1e-10, lambda: 0.9999999999995757, "lib.call()")
    judged = pc.judge_curve_row(row, wide)
    assert judged["status"] == "impossible" and "1 - alpha" in judged["reason"] and "reproducer" in judged
    ok = pc.judge_curve_row(pc.CurveRow("b", "beta", 1.1, 0.01, 10, 0.1, lambda: 0.5, "c"), wide)
    assert ok["status"] == "undecided"
    out = pc.fold([judged, ok], "lib", (), "claim")
    assert out.verdict == "refuted" and out.details["counts"]["impossible"] == 1
    assert "TPR" in out.measured and out.details["first_refuted"]["query"] == "beta(1e-10)"


def test_curve_grids_reach_long_horizons_large_eps_and_tiny_alpha():
    import privcheck.catalogue.peers.curves as pc

    full, quick = type("Ctx", (), {"quick": False})(), type("Ctx", (), {"quick": True})()
    for grid in (pc.FULL_GRID, pc.QUICK_GRID):
        assert max(T for (_, _, T), _ in grid) >= 10_000 and min(min(a) for _, a in grid) <= 1e-10
    assert max(q for (_, q, _), _ in pc.FULL_GRID if q < 1) >= 0.5 and min(min(a) for _, a in pc.FULL_GRID) <= 1e-12
    for build in (pc.gdpnum_rows, pc.riskcal_rows):
        assert len(build(quick)) < len(build(full))


def test_riskcal_betas_of_one_composition_come_from_one_call_equal_to_the_scalar_calls():
    pytest.importorskip("riskcal")
    from riskcal.calibration.dpsgd import get_beta_for_dpsgd

    import privcheck.catalogue.peers.curves as pc

    alphas = (1e-6, 1e-3, 0.3)
    got = [pc._riskcal_beta(1.0, 0.01, 1, a, alphas) for a in alphas]
    assert got == [get_beta_for_dpsgd(1.0, 0.01, 1, alpha=a) for a in alphas]


def test_full_grids_reach_long_horizons_tiny_delta_and_large_eps_for_every_accountant():
    full = type("Ctx", (), {"quick": False})()
    for build in (P.dp_accounting_rdp_queries, P.autodp_rdp_queries, P.prv_queries):
        qs = build(full)
        counts = [e.count for q in qs for e in q.events]
        assert max(counts) >= 100_000 and min(q.at for q in qs if q.target == "eps") <= 1e-12, build.__name__
        assert any("large ε" in q.label for q in qs), build.__name__


def test_an_answer_strictly_inside_a_pld_interval_is_judged_on_a_finer_grid(monkeypatch):
    """An answer strictly inside the default interval is judged on the finer grid. Since the knots-based
    discretisation the default grid resolves 100 x Laplace b=0.5 as finely as the finer one, so the default
    interval is widened here (its lower end moved down by 1: still a valid interval) to put the answer inside."""
    import dataclasses

    from privcheck.catalogue.peers import core
    from privcheck.catalogue.peers.certify import certified, certified_finer

    ev = (P.laplace(0.5, 100),)
    coarse, fine = certified(ev, "add_remove", "eps", 1e-5), certified_finer(ev, "add_remove", "eps", 1e-5)
    assert coarse.lower <= fine.lower <= fine.upper <= coarse.upper * (1 + 1e-12) and "finer grid" in fine.method

    def widened(events, relation, target, at):
        iv = certified(events, relation, target, at)
        return dataclasses.replace(iv, lower=iv.lower - 1.0)

    monkeypatch.setattr(core, "certified", widened)
    inside = fine.lower - 0.5  # undecided on the widened interval, below the finer one
    row = core.judge(P.Query("lap", "add_remove", "eps", 1e-5, "lower", lambda: inside, "", events=ev))
    assert row["status"] == "holds" and "finer grid" in row["certified_by"]
    # without the finer grid the same answer is undecided (the refinement is what decides it)
    monkeypatch.setattr(core, "_finer", lambda *a: None)
    row = core.judge(P.Query("lap", "add_remove", "eps", 1e-5, "lower", lambda: inside, "", events=ev))
    assert row["status"] != "holds" and "finer grid" not in row["certified_by"]


def test_refining_is_asked_only_well_inside_a_pld_interval():
    from privcheck.catalogue.peers.certify import Certified
    from privcheck.catalogue.peers.core import _worth_refining

    pld = Certified(1.0, 2.0, "privcheck PLD accountant (certified interval)", "")
    assert _worth_refining(pld, 1.5) and not _worth_refining(pld, 1.01) and not _worth_refining(pld, 2.5)
    assert not _worth_refining(Certified(1.0, 2.0, "exact GDP", ""), 1.5)  # closed forms are not refined
