"""privcheck.trace and audit_calibrator everywhere users work: CLI (exit codes, JSON, one-line errors), TOML
claims files ([[trace]], [[calibrator]]) in every report format, the pytest plugin's assert_trace, the zoo."""

from __future__ import annotations

import json
import sys
import textwrap

import numpy as np
import pytest
from click.testing import CliRunner

from privcheck.base.errors import PrivcheckUsageError
from privcheck.cli import main

PIPE = """
import math
import numpy as np

def noisy_sum(data, rng):
    x = np.clip(np.nan_to_num(np.asarray(data, float), nan=0.0), 0.0, 1.0)
    return float(x.sum() + rng.laplace(0.0, 1.0))

def unclipped_sum(data, rng):
    return float(np.sum(data) + rng.laplace(0.0, 1.0))

def classic(eps, delta, sensitivity):
    return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / eps

def hang(x, rng):
    while True:
        pass

def neighbours():
    from privcheck import strategies
    return strategies.datasets(lower=0.0, upper=1.0, outside=True)
"""


@pytest.fixture
def pipe(tmp_path, monkeypatch):
    name = f"pipe_{abs(hash(str(tmp_path))) % 10**8}"
    (tmp_path / f"{name}.py").write_text(PIPE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    yield name
    sys.modules.pop(name, None)


def run(*args):
    return CliRunner().invoke(main, list(args))


PAIRS = ("--pair", "[0.2, 0.9],[0.2]", "--pair", "[0.2, 0.9],[0.2, 0.9, 5.0]")


def test_cli_trace_holds_and_refutes(pipe):
    ok = run("trace", f"{pipe}:noisy_sum", *PAIRS, "--sensitivity", "1", "--norm", "l1", "--runs", "3")
    assert ok.exit_code == 0, ok.output
    assert ok.output.startswith("holds: largest distance 1 <= declared sensitivity 1 (l1)")
    bad = run("trace", f"{pipe}:unclipped_sum", *PAIRS, "--sensitivity", "1", "--norm", "l1", "--json", "-")
    assert bad.exit_code == 1
    data = json.loads(bad.output)
    assert data["verdict"] == "refuted" and data["sensitivity_lower"] == pytest.approx(5.0)
    assert data["worst_pair"] == ["[0.2, 0.9]", "[0.2, 0.9, 5.0]"] and data["findings"]


def test_cli_trace_neighbours_search(pipe):
    r = run(
        "trace",
        f"{pipe}:unclipped_sum",
        "--neighbours",
        f"{pipe}:neighbours",
        "--sensitivity",
        "1",
        "--norm",
        "l1",
        "--examples",
        "30",
        "--json",
        "-",
    )
    assert r.exit_code == 1, r.output
    data = json.loads(r.output)
    assert data["verdict"] == "refuted" and data["details"]["shrunk_pair"] and data["details"]["search"]["examples"]


@pytest.mark.parametrize(
    "args, words",
    [
        (("--input", "0"), "at least two"),
        (("--pair", "0,1", "--sensitivity", "0"), "sensitivity"),
        (("--pair", "0,'a'"), "different types"),
        (("--pair", "0,1", "--input", "2"), "not both"),
        ((), "needs --pair"),
    ],
)
def test_cli_trace_bad_input_exit_2(pipe, args, words):
    r = run("trace", f"{pipe}:noisy_sum", *args)
    assert r.exit_code == 2 and words in r.output and r.output.count("\n") == 1


def test_cli_trace_missing_function_and_hang(pipe):
    r = run("trace", f"{pipe}:nope", "--pair", "0,1")
    assert r.exit_code == 2 and "has no attribute" in r.output
    h = run("trace", f"{pipe}:hang", "--pair", "0.0,1.0", "--timeout", "1", "--json", "-")
    assert h.exit_code == 1 and json.loads(h.output)["verdict"] == "error"


def test_cli_audit_calibrator(pipe):
    r = run("audit-calibrator", f"{pipe}:classic", "--mechanism", "gaussian", "--delta", "1e-5", "--json", "-")
    assert r.exit_code == 1
    data = json.loads(r.output)
    assert data["verdict"] == "refuted" and data["worst"]["eps"] == 50.0 and len(data["points"]) == 17
    ok = run("audit-calibrator", f"{pipe}:classic", "--eps", "0.5", "--eps", "1", "--delta", "1e-5")
    assert ok.exit_code == 0 and ok.output.startswith("holds: 2 of 2 points")
    bad = run("audit-calibrator", f"{pipe}:classic", "--delta", "0")
    assert bad.exit_code == 2 and "delta = 0" in bad.output


TOML = """
[[trace]]
id = "t.trace.ok"
function = "{m}:noisy_sum"
pairs = [[[0.2, 0.9], [0.2]], [[0.2, 0.9], [0.2, 0.9, 5.0]]]
sensitivity = 1.0
norm = "l1"
runs = 3

[[trace]]
id = "t.trace.bug"
function = "{m}:unclipped_sum"
pairs = [[[0.2, 0.9], [0.2, 0.9, 5.0]]]
sensitivity = 1.0
norm = "l1"
expect = "refuted"

[[calibrator]]
id = "t.calibrator.classic"
function = "{m}:classic"
delta = [1e-5]
expect = "refuted"
"""


def test_claims_file_entries_in_every_report(pipe, tmp_path):
    path = tmp_path / "claims.toml"
    path.write_text(TOML.format(m=pipe), encoding="utf-8")
    out = {k: tmp_path / f"r.{k}" for k in ("json", "xml", "md", "html")}
    r = CliRunner().invoke(
        main,
        [
            "verify",
            "--jobs",
            "1",
            "--file",
            str(path),
            "--json",
            str(out["json"]),
            "--junit",
            str(out["xml"]),
            "--markdown",
            str(out["md"]),
            "--html",
            str(out["html"]),
        ],
    )
    assert r.exit_code == 0, r.output  # every verdict as expected
    data = json.loads(out["json"].read_text())
    recs = {x["id"]: x for x in (data["records"] if isinstance(data, dict) else data)}
    assert recs["t.trace.ok"]["verdict"] == "holds" and recs["t.trace.bug"]["verdict"] == "refuted"
    assert recs["t.trace.bug"]["measured"]["sensitivity_lower"] == pytest.approx(5.0)
    assert recs["t.calibrator.classic"]["verdict"] == "refuted"
    for k in ("xml", "md", "html"):
        assert "t.trace.bug" in out[k].read_text()
    from privcheck.claimsfile import unload_user_file

    unload_user_file(str(path))


def test_claims_file_bad_entry_is_one_line(pipe, tmp_path):
    from privcheck.claimsfile import load_user_file

    path = tmp_path / "bad.toml"
    path.write_text(
        textwrap.dedent(f"""
        [[trace]]
        id = "t.bad"
        function = "{pipe}:noisy_sum"
        pairs = [[0.0, 1.0]]
        norm = "l7"
    """),
        encoding="utf-8",
    )
    with pytest.raises(PrivcheckUsageError, match=r"\[\[trace\]\] #1 .*norm must be one of"):
        load_user_file(str(path))


def test_assert_trace():
    from privcheck.pytest_plugin import ClaimsMismatch, assert_trace

    def release(x, rng):
        return float(np.clip(x, 0.0, 1.0) + rng.laplace(0.0, 1.0)) if np.isfinite(x) else rng.laplace(0.0, 1.0)

    res = assert_trace(release, pairs=[(0.0, 1.0), (0.0, 7.0)], sensitivity=1.0, timeout=None)
    assert res.sensitivity_lower == pytest.approx(1.0)
    with pytest.raises(ClaimsMismatch, match="sensitivity >= 7"):
        assert_trace(lambda x, rng: x + rng.laplace(0.0, 1.0), pairs=[(0.0, 7.0)], sensitivity=1.0, nonfinite=False)


def test_zoo_gray_entries_registered_and_run():
    from privcheck.catalogue import load_all
    from privcheck.catalogue.zoo.graybox import GRAY_ENTRIES, run_gray
    from privcheck.claims import CATALOGUE, RunContext

    load_all()
    ids = {e.claim_id for e in GRAY_ENTRIES}
    assert {"zoo.diffprivlib.trace.tools.sum", "zoo.diffprivlib.calibrator.gaussian_analytic"} <= ids
    assert all(CATALOGUE.claims[i].methods == ("numeric",) for i in ids)
    pytest.importorskip("diffprivlib")
    entry = next(e for e in GRAY_ENTRIES if e.claim_id == "zoo.diffprivlib.trace.laplace")
    out = run_gray(entry, RunContext(quick=True))
    assert out.verdict == "holds" and out.details["cases"][0]["sensitivity_lower"] == pytest.approx(1.0)


def test_zoo_analytic_gaussian_finding_cross_checked():
    """diffprivlib's GaussianAnalytic under-noises at large eps and small delta: the sigma it returns gives a true
    delta above the claim, by the certified curve and by the accountants' independent float closed form."""
    pytest.importorskip("diffprivlib")
    from diffprivlib.mechanisms import GaussianAnalytic

    from accountants.gdp import gdp_delta
    from privcheck.calibration import audit_calibrator

    sigma = GaussianAnalytic(epsilon=20.0, delta=1e-9, sensitivity=1.0)._scale
    assert gdp_delta(1.0 / sigma, 20.0) > 9e-9  # claimed 1e-9
    res = audit_calibrator(
        lambda eps, delta, sensitivity: GaussianAnalytic(epsilon=eps, delta=delta, sensitivity=sensitivity)._scale,
        eps=[10.0, 20.0],
        delta=[1e-9],
    )
    assert [p.verdict for p in res.points] == ["holds", "refuted"]
    assert res.points[1].delta_true[0] > 9e-9
