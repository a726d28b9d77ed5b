"""Flower's gray-box and deterministic zoo checks: the pure parts (Andrew et al.'s rule, the trajectory and noise
verdicts, the zero-update row, reading a recorded noise scale) run everywhere; the checks on Flower itself run
where flwr is installed (never in CI: skipped with one line)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privcheck.catalogue.zoo import flwr_rounds as fr
from privcheck.claims import RunContext


def _ctx() -> RunContext:
    return RunContext(seed=0, seed_seq=np.random.SeedSequence(0), samples=None, confidence=0.95)


def test_andrew_rule_grows_below_and_shrinks_above():
    # norms 1 clipped at 0.1: the unclipped fraction is 0, so C grows by exp(0.2 * 0.5) each round until it passes 1
    up = fr.expected_norms(0.1, 20)
    assert up[20] == pytest.approx(0.1 * math.exp(2.0), rel=1e-14)
    down = fr.expected_norms(10.0, 20)
    assert down[20] == pytest.approx(10.0 * math.exp(-2.0), rel=1e-14)
    # past the quantile it turns back: from 0.95 one step up to 0.95 e^0.1 > 1, then down again
    assert fr.expected_norms(0.95, 2)[2] == pytest.approx(0.95, rel=1e-14)


def test_trajectory_verdicts():
    want = fr.expected_norms(0.1, 20)
    assert fr.compare_trajectory("ok", list(want), want)["verdict"] == "holds"
    reversed_rule = [0.1 * math.exp(-0.1 * t) for t in range(21)]  # Flower's: the clipped fraction in Andrew's place
    row = fr.compare_trajectory("flower", reversed_rule, want)
    assert row["verdict"] == "refuted" and "from round 1" in row["summary"] and "wrong way" in row["summary"]
    assert row["measured_norms"][20] == pytest.approx(0.0135335, rel=1e-5)
    # a deviation that does not change the direction is reported without "wrong way"
    slow = [0.1 * math.exp(0.05 * t) for t in range(21)]
    row = fr.compare_trajectory("slow", slow, want)
    assert row["verdict"] == "refuted" and "wrong way" not in row["summary"]


def test_noise_verdict():
    ok = fr.noise_verdict(1.0 * 0.1 / 10, 1.0, 0.1, 0.09)
    assert ok["verdict"] == "holds" and ok["ratio"] == pytest.approx(1.0)
    bad = fr.noise_verdict(2.0 * 0.09 / 10, 2.0, 0.1, 0.09)  # scaled to the norm after the update
    assert bad["verdict"] == "refuted" and "after this round's update" in bad["summary"]
    assert bad["ratio"] == pytest.approx(0.9) and bad["mu_model_given_count"] == pytest.approx(1 / 1.8)
    assert "(under-noised)" in bad["summary"]
    over = fr.noise_verdict(0.02, 1.0, 0.1, 0.3)
    assert over["verdict"] == "refuted" and "(over-noised)" in over["summary"] and "after this" not in over["summary"]


def test_zero_row():
    def crash():
        return 1.0 / 0.0

    row = fr.zero_row("crash", crash)
    assert row["verdict"] == "refuted" and row["error"].startswith("ZeroDivisionError")
    assert row["raised_at"].endswith(f":{crash.__code__.co_firstlineno + 1}")
    assert fr.zero_row("fine", lambda: np.zeros(2))["verdict"] == "holds"
    assert fr.zero_row("nan", lambda: np.array([np.nan, 0.0]))["verdict"] == "refuted"


def test_recorded_scale_reads_the_normal_call():
    from privcheck.catalogue.zoo.trace_flwr import recorded_scale

    def release(x):
        np.random.laplace(0.0, 3.0)
        return x + np.random.normal(0.0, 0.7, 2)

    assert recorded_scale(release, 0.0) == 0.7
    with pytest.raises(RuntimeError, match="no normal draw"):
        recorded_scale(lambda x: x + np.random.laplace(0.0, 1.0), 0.0)


def test_skipped_without_flower(monkeypatch):
    from privcheck.catalogue import peers
    from privcheck.catalogue.zoo.graybox import GRAY_ENTRIES, run_gray

    monkeypatch.setattr(peers, "missing", lambda *m: m[0])
    for fn in (fr._adaptive, fr._zero):
        out = fn(_ctx())
        assert out.verdict == "inconclusive" and out.details["skipped"] and "privcheck[zoo]" in out.details["reason"]
    flower = [e for e in GRAY_ENTRIES if e.claim_id.startswith("zoo.flwr.")]
    assert {e.claim_id for e in flower} >= {
        "zoo.flwr.trace.localdp_mod",
        "zoo.flwr.trace.server_fixed",
        "zoo.flwr.trace.client_adaptive",
        "zoo.flwr.calibrator.localdp_mod",
        "zoo.flwr.calibrator.wrappers_rdp",
    }
    assert run_gray(flower[0], _ctx()).details["skipped"]


# ------------------------------------------------------------------ on Flower itself (not in CI)
def _gray_row(claim_id: str, label_start: str) -> dict:
    from privcheck.catalogue.zoo.graybox import GRAY_ENTRIES, _row

    entry = next(e for e in GRAY_ENTRIES if e.claim_id == claim_id)
    case = next(c for c in entry.cases() if c.label.startswith(label_start))
    return _row(case, 0, 2)


def test_flower_traces():
    pytest.importorskip("flwr")
    row = _gray_row("zoo.flwr.trace.server_fixed", "10 clients, equal")
    assert row["verdict"] == "holds" and row["sensitivity_lower"] <= 0.1 * (1 + 1e-9)
    row = _gray_row("zoo.flwr.trace.server_fixed", "10 clients, target num_examples 10x")
    assert row["verdict"] == "refuted" and row["sensitivity_lower"] == pytest.approx(1000 / 1900, rel=1e-5)
    row = _gray_row("zoo.flwr.trace.localdp_mod", "sensitivity=clipping_norm")
    assert row["verdict"] == "refuted" and row["sensitivity_lower"] == pytest.approx(2.0, rel=1e-12)
    row = _gray_row("zoo.flwr.trace.client_adaptive", "10 clients, initial")
    assert row["verdict"] == "refuted" and "noise scale depends on the data" in row["summary"]


def test_flower_rounds():
    pytest.importorskip("flwr")
    out = fr._adaptive(_ctx())
    assert out.verdict == "refuted"
    assert all(r["verdict"] == "refuted" for r in out.details["cases"])
    assert out.details["cases"][0]["measured_norms"][20] == pytest.approx(0.1 * math.exp(-2.0), rel=1e-12)
    zero = fr._zero(_ctx())
    assert zero.verdict == "refuted" and all("ZeroDivisionError" in r["error"] for r in zero.details["cases"])


def test_scorecard_numeric_rows_and_findings():
    from privcheck.catalogue.zoo.scorecard import findings_markdown, scorecard_markdown
    from privcheck.claims import VerdictRecord

    gray = {
        "case": "10 clients, target num_examples 10x",
        "verdict": "refuted",
        "summary": "refuted: sensitivity >= 0.526",
    }
    calib = {
        "case": "gdp: eps=5",
        "eps_claimed": 5.0,
        "eps_true": 5.1237,
        "eps_true_lower": 5.1236,
        "true_basis": "code",
        "calculator": "certified PLD",
        "verdict": "refuted",
    }
    contrast = {"case": "plain loader", "verdict": "refuted", "expected": "refuted", "observed": "shuffled epochs"}
    recs = [
        VerdictRecord(
            "zoo.flwr.trace.server_fixed",
            "Flower",
            "privacy",
            "numeric",
            "refuted",
            {},
            {},
            {"cases": [gray]},
            0,
            0,
            1.0,
        ),
        VerdictRecord(
            "zoo.opacus.calibration",
            "Opacus",
            "privacy",
            "calculator",
            "refuted",
            {},
            {},
            {"cases": [calib]},
            0,
            0,
            1.0,
        ),
        VerdictRecord(
            "zoo.opacus.data_loader", "Opacus", "privacy", "exact", "holds", {}, {}, {"cases": [contrast]}, 0, 0, 1.0
        ),
    ]
    table, found = scorecard_markdown(recs), findings_markdown(recs)
    assert "| `trace.server_fixed` | 10 clients, target num_examples 10x | refuted | sensitivity >= 0.526 |" in table
    assert "| `calibration` | gdp: eps=5 | 5 | 5.12 (code) |" in table
    assert "sensitivity >= 0.526. Reproduce: `privcheck verify 'zoo.flwr.trace.server_fixed' --seed 0`" in found
    assert "true (code) eps in [5.1236, 5.1237]" in found and "exact)" in found
    assert "plain loader" not in found  # a contrast row that must be refuted is no finding
