"""CLI output and exit codes: streaming lines in CI, -q/-v, --fail-on, audit exit 1, labels, list/papers, start-up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from privcheck.claims import VerdictRecord
from privcheck.cli import main

FAST_REFUTED = ["sqsgd.rotation.orthogonal", "--method", "numeric"]  # deterministic, well under a second


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("PRIVCHECK_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "privcheck-cache"))


def _invoke(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_ci_log_prints_a_line_per_check_as_it_finishes(monkeypatch):
    import privcheck.runner as runner

    seen_before_next: list[str] = []

    def fake_run(checks, opts, progress=None):
        recs = []
        for i, c in enumerate(checks[:2]):
            rec = VerdictRecord(
                c.claim_id, "x.toml a", "formula", c.method, "holds", 1, 1, {}, 0, None, 0.1, part=c.part
            )
            progress(rec)
            sys.stdout.flush()
            seen_before_next.append(sys.stdout.buffer.getvalue().decode())  # what the log shows so far
            recs.append(rec)
        return recs

    monkeypatch.setattr(runner, "run", fake_run)
    res = _invoke("verify", "fedsel.pe.ldp", "--jobs", "1")
    assert res.exit_code == 0, res.output
    assert "fedsel.pe.ldp [exact]" in seen_before_next[0]  # printed before the second check ran
    assert "fedsel.pe.ldp [mc]" not in seen_before_next[0]
    lines = res.output.splitlines()
    assert sum("fedsel.pe.ldp [exact]" in ln for ln in lines) == 1  # not listed a second time at the end
    assert lines[-1].startswith("privcheck: 2 checks of 1 claims: 2 holds")


def test_verify_quiet_verbose_and_fail_on(tmp_path):
    res = _invoke("verify", *FAST_REFUTED, "--jobs", "1", "-q")
    assert res.exit_code == 0  # a refuted built-in claim is a finding, not a failure
    assert res.output.strip().splitlines() == [res.output.strip()] and "1 refuted" in res.output
    res = _invoke("verify", *FAST_REFUTED, "--jobs", "1", "-v")
    assert "claimed: R = (1/d)·H·A is orthogonal" in res.output and "paper_max_error: " in res.output
    junit = tmp_path / "j.xml"
    res = _invoke("verify", *FAST_REFUTED, "--jobs", "1", "--fail-on", "refuted", "--junit", str(junit))
    assert res.exit_code == 1 and "findings (1 refuted):" in res.output
    root = ET.parse(junit).getroot()
    case = root.find(".//testcase")
    assert root.get("failures") == "1" and case.find("failure").get("type") == "fail-on-refuted"
    _invoke("verify", *FAST_REFUTED, "--jobs", "1", "--junit", str(junit))
    case = ET.parse(junit).getroot().find(".//testcase")
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert case.find("failure") is None and props["outcome"] == "passed"
    assert props["finding"].startswith("finding: the published claim is refuted")
    assert _invoke("verify", *FAST_REFUTED, "-q", "-v").exit_code == 2


def test_quick_runs_are_labelled_in_every_format(tmp_path):
    paths = {k: tmp_path / f"r.{k}" for k in ("json", "md", "xml", "html")}
    res = _invoke(
        "verify",
        *FAST_REFUTED,
        "--jobs",
        "1",
        "--quick",
        "--json",
        str(paths["json"]),
        "--markdown",
        str(paths["md"]),
        "--junit",
        str(paths["xml"]),
        "--html",
        str(paths["html"]),
    )
    assert res.exit_code == 0, res.output
    assert all(r["quick"] is True for r in json.loads(paths["json"].read_text()))
    assert "quick run" in paths["md"].read_text()
    assert "quick run" in paths["html"].read_text()
    root = ET.parse(paths["xml"]).getroot()
    assert root.find("properties/property[@name='quick']").get("value") == "true"
    assert root.find(".//testcase/properties/property[@name='quick']").get("value") == "true"
    _invoke("verify", *FAST_REFUTED, "--jobs", "1", "--json", str(paths["json"]), "--markdown", str(paths["md"]))
    assert all(r["quick"] is False for r in json.loads(paths["json"].read_text()))
    assert "quick run" not in paths["md"].read_text()


def test_audit_exit_code_follows_the_verdict():
    res = _invoke("audit", "fedsel-pe", "--no-mc")  # exact ε 1.2038 > claimed 1
    assert res.exit_code == 1 and "refuted" in res.output
    res = _invoke("audit", "de", "--no-mc")
    assert res.exit_code == 0 and "holds" in res.output
    res = _invoke("audit", "fedsel-pe", "--no-mc", "--json", "-")
    assert res.exit_code == 1 and json.loads(res.output)["verdict"] == "refuted"


def test_audit_without_an_eps_claim_reports_the_delta_curve():
    res = _invoke("audit", "gaussian", "--param", "sigma=1")
    assert res.exit_code == 0, res.output
    assert "holds" not in res.output and "inf" not in res.output
    assert "ε=1: 0.126937" in res.output and "--eps" in res.output
    data = json.loads(_invoke("audit", "gaussian", "--param", "sigma=1", "--json", "-").output)
    assert data["eps_claimed"] is None and data["delta_of_eps"][2] == {"eps": 1.0, "delta": pytest.approx(0.1269367)}
    res = _invoke("audit", "quantizer")
    assert res.exit_code == 2 and "--eps" in res.output


def test_audit_help_lists_mechanisms_with_defaults():
    from privcheck.auditor import DEFAULT_SAMPLES

    text = _invoke("audit", "--help").output
    assert f"[default: {DEFAULT_SAMPLES}]" in text  # the help states the auditor's real default
    assert "[default: 0.95]" in text and "Mechanisms (parameters=defaults)" in text
    for line in ("fedsel-pe", "d=5, k=2, eps=1.0"), ("gaussian", "sigma=1.0"):
        assert any(all(x in ln for x in line) for ln in text.splitlines()), line
    assert "Exit codes: 0 holds or inconclusive, 1 refuted" in text


def test_list_filters_by_glob_and_cites_papers():
    res = _invoke("list", "fedsel.pe.*", "de")
    lines = res.output.splitlines()
    assert any(ln.split()[0] == "fedsel.pe.ldp" for ln in lines if ln.strip())
    assert not any("biswas." in ln for ln in lines)
    assert any(ln.split()[:1] == ["de"] for ln in lines) and not any(ln.split()[:1] == ["pm"] for ln in lines)
    assert "[000] FedSel (Liu et al.) Alg. 3, Lemma 2" in res.output
    assert ".txt" not in _invoke("list").output and "CLAIMS.md" not in _invoke("list").output
    assert _invoke("list", "no.such.*").exit_code == 2
    data = json.loads(_invoke("list", "fedsel.pe.ldp", "--json", "-").output)
    assert [c["id"] for c in data["claims"]] == ["fedsel.pe.ldp"] and data["claims"][0]["citation"].startswith("[000]")
    papers = _invoke("papers").output
    assert "Sayan Biswas, Graham Cormode, Carsten Maple. Impact of Sampling on Locally Differentially" in papers
    assert "[004] Mohamed Seif Eldin Mohamed" in papers


@pytest.mark.parametrize(
    "argv", [["--help"], ["list"], ["budget", "gdp", "--sigma", "10", "--steps", "100", "--delta", "1e-5"]]
)
def test_fast_commands_do_not_import_heavy_libraries(argv, tmp_path_factory):
    code = textwrap.dedent(f"""
        import sys
        from privcheck.cli import main
        try:
            main({argv!r})
        except SystemExit:
            pass
        heavy = sorted(m for m in ("sympy", "statsmodels", "matplotlib") if m in sys.modules)
        print("HEAVY", heavy)
    """)
    env = dict(os.environ, PRIVCHECK_CACHE_DIR=str(tmp_path_factory.getbasetemp() / "privcheck-cache"))
    if argv == ["list"]:  # warm the cache first: the first listing after an install loads the catalogue
        subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert "HEAVY []" in out, out


def test_assert_claims_accepts_toml(tmp_path):
    from privcheck.claimsfile import unload_user_file
    from privcheck.pytest_plugin import ClaimsMismatch, assert_claims

    good = tmp_path / "ok.toml"
    good.write_text(
        textwrap.dedent("""
        [[accountant]]
        id = "t.gdp.ok"
        query = "gdp.eps"
        params = { mu = 1.0, delta = 1e-5 }
        bound = 4.5
        expect = "holds"
    """)
    )
    bad = tmp_path / "bad.toml"
    bad.write_text(good.read_text().replace("t.gdp.ok", "t.gdp.bad").replace("4.5", "4.0"))
    try:
        recs = assert_claims(str(good))
        assert [r.id for r in recs] == ["t.gdp.ok"] and recs[0].verdict == "holds"
        with pytest.raises(ClaimsMismatch, match="t.gdp.bad"):
            assert_claims(str(bad))
    finally:
        unload_user_file(str(good))
        unload_user_file(str(bad))
