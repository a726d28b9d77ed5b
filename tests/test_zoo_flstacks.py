"""The FL-stack zoo without the libraries (CI has none): the code's exact calculators for Flower (classic
calibration, FedAvg's weighted sensitivity), true-value labels (code vs documented), skipped checks and the
exit code of a run where nothing ran, the scorecard pins and their one-line mismatch."""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner

from accountants.gdp import gdp_delta
from privcheck.catalogue.zoo import calculators_flwr as cf
from privcheck.catalogue.zoo.engine import Case, true_basis
from privcheck.catalogue.zoo.pins import SCORECARD_VERSIONS, differs


def test_classic_calibration_exact_values():
    # sigma = Δ sqrt(2 ln(1.25/δ))/ε: at ε = 1, δ = 1e-5, Δ = 1: sqrt(2 ln 125000) = 4.8448...
    assert cf.classic_sigma(1.0, 1.0, 1e-5) == pytest.approx(math.sqrt(2 * math.log(125000)), rel=1e-15)
    # with sensitivity = 2C (the distance two clipped clients can have) the release is (ε, δ) up to about ε = 4
    # and not beyond: the exact Gaussian δ at the claimed ε crosses 1e-5 between 4 and 10
    for eps, ok in ((0.5, True), (1.0, True), (4.0, True), (10.0, False), (50.0, False)):
        mu = cf.localdp_mu(1.0, 2.0, eps, 1e-5)
        assert (gdp_delta(mu, eps) <= 1e-5) is ok
        assert (cf.localdp_eps(1.0, 2.0, eps, 1e-5) <= eps) is ok
    # sensitivity = clipping_norm understates the 2C between two clients: exceeded already at ε = 0.5
    assert cf.localdp_eps(1.0, 1.0, 0.5, 1e-5) > 0.5
    # at ε = 50 the code's σ gives δ(50) ≈ 0.6, not 1e-5
    assert gdp_delta(cf.localdp_mu(1.0, 2.0, 50.0, 1e-5), 50.0) > 0.5


def test_fedavg_weighted_sensitivity():
    # equal weights, no dropout: the documented mu = 1/z (up to the 1e-6 tiny update)
    assert cf.fedavg_mu(1.0, 100, (100,) * 9, 10) == pytest.approx(1.0, rel=1e-5)
    # one client with 10x the examples: weight 1000/1900 of the mean, sigma still zC/10
    assert cf.fedavg_mu(1.0, 1000, (100,) * 9, 10) == pytest.approx(10 * 1000 / 1900, rel=1e-5)
    # a dropped client: 9 results averaged, sigma for 10
    assert cf.fedavg_mu(2.0, 100, (100,) * 8, 10) == pytest.approx(10 / 9 / 2, rel=1e-5)


def test_true_basis_labels():
    mk = lambda label, basis="": Case("c", lambda: None, [0, 1], 1.0, calculator=label, true_basis=basis)  # noqa: E731
    assert true_basis(mk("documented probabilities")) == "documented"
    assert true_basis(mk("exact Gaussian curve: eps at delta")) == "documented"
    assert true_basis(mk("exact Gaussian curve at the library's calibrated sigma: eps at delta")) == "code"
    assert true_basis(mk("anything", "code")) == "code"


def test_scorecard_reads_code_and_documented():
    from privcheck.catalogue.zoo.scorecard import findings_markdown, scorecard_markdown
    from privcheck.claims import VerdictRecord

    row = {
        "case": "10 clients, target num_examples 10x the others",
        "eps_claimed": 4.38,
        "mu_claimed": 1.0,
        "mu_true": 5.26,
        "eps_true": 35.6,
        "true_basis": "code",
        "mu_lower": 4.83,
        "verdict": "refuted",
        "exact_finding": "the code's exact mu 5.26 exceeds the claimed 1",
    }
    det = {"cases": [row], "library": "Flower", "versions": {"flwr": "1.42.0"}}
    rec = VerdictRecord("zoo.flwr.server_fixed", "Flower", "privacy", "mc", "refuted", {}, {}, det, 0, None, 1.0)
    table, found = scorecard_markdown([rec]), findings_markdown([rec])
    assert "μ 5.26 (code)" in table and "certified mu >= 4.83" in found and "exact)" in found
    skipped = VerdictRecord(
        "zoo.flwr.localdp_mod", "Flower", "privacy", "mc", "inconclusive", "", None, {"skipped": True}, 0, None, 0.0
    )
    assert "| skipped |" in scorecard_markdown([skipped])


def test_pins_and_mismatch_line():
    assert SCORECARD_VERSIONS["pure-ldp"] == "1.1.2" and SCORECARD_VERSIONS["flwr"] == "1.42.0"
    assert differs("pure-ldp", "1.1.2") is None and differs("pure-ldp", None) is None
    assert differs("torch", "2.13.0+cpu") is None  # local version labels are the same release
    line = differs("pure-ldp", "1.2.0")
    assert line and "\n" not in line and "1.1.2" in line and "privcheck[zoo]" in line


def test_pyproject_pins_match_the_scorecard_table():
    import re
    from pathlib import Path

    text = Path(__file__).resolve().parents[1].joinpath("pyproject.toml").read_text()
    zoo = re.search(r"^zoo = \[(.*?)\]", text, re.S | re.M).group(1)
    for dist in ("pure-ldp", "multi-freq-ldpy", "diffprivlib", "opendp", "python-dp", "flwr", "scikit-learn"):
        assert f'"{dist}=={SCORECARD_VERSIONS[dist]}"' in zoo
    torch = re.search(r"^torch = \[(.*?)\]", text, re.S | re.M).group(1)
    assert f'"opacus=={SCORECARD_VERSIONS["opacus"]}"' in torch
    # torch is left to the user (the canary adapter shares the extra); a different one gets the one-line notice
    assert '"torch' in torch and differs("torch", "2.14.1") is not None


def test_skipped_checks_read_skipped_and_nothing_ran_exits_1(monkeypatch):
    from privcheck.catalogue import peers
    from privcheck.cli import main

    monkeypatch.setattr(peers, "missing", lambda *m: m[0])  # as if no zoo library were installed
    r = CliRunner().invoke(main, ["verify", "zoo.pydp.count", "zoo.flwr.localdp_mod"])
    assert r.exit_code == 1, r.output
    lines = [ln for ln in r.output.splitlines() if ln.startswith("skipped")]
    assert len(lines) == 2 and "pip install 'privcheck[zoo]'" in lines[0]
    assert "nothing ran" in r.output


def test_opacus_absent_is_one_line(monkeypatch):
    from privcheck.catalogue import peers
    from privcheck.catalogue.zoo import opacus
    from privcheck.claims import RunContext

    monkeypatch.setattr(peers, "missing", lambda *m: m[0])
    ctx = RunContext(seed=0, seed_seq=np.random.SeedSequence(0), samples=None, confidence=0.95)
    for fn in (opacus._calibration, opacus._data_loader):
        out = fn(ctx)
        assert out.verdict == "inconclusive" and out.details["skipped"] and "privcheck[torch]" in out.details["reason"]
