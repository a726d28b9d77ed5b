"""`privcheck verify` end to end: user claim files, reports, exit codes 0 / 1 / 2."""

from __future__ import annotations

import json
import os
import textwrap
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from privcheck.claimsfile import unload_user_file
from privcheck.cli import main

EXAMPLE = os.path.join(os.path.dirname(__file__), os.pardir, "examples", "claims.toml")


def _invoke(*args):
    return CliRunner().invoke(main, ["verify", "--jobs", "1", *args], catch_exceptions=False)


def test_example_file_meets_every_expectation(tmp_path):
    junit = tmp_path / "r.xml"
    js = tmp_path / "r.json"
    md = tmp_path / "r.md"
    res = _invoke("--file", EXAMPLE, "--junit", str(junit), "--json", str(js), "--markdown", str(md))
    assert res.exit_code == 0, res.output
    assert "claims.toml:" in res.output and "expectations: 9 met, 0 not met" in " ".join(res.output.split())
    records = json.loads(js.read_text())
    assert {r["id"] for r in records} == {
        "example.krr.ldp",
        "example.krr.too_strong",
        "example.duchi.mc",
        "example.gdp.eps",
        "example.drv.too_optimistic",
        "example.optimal.composition",
        "example.pm.variance",
        "example.gde.variance",
        "example.dpsgd.budget",
    }
    assert all(r["verdict"] == r["expect"] for r in records)
    root = ET.parse(junit).getroot()
    assert len(root.findall(".//testcase")) == 9 and root.get("failures") == "0"
    assert "# privcheck verification report" in md.read_text()


def test_unmet_expectation_exits_1(tmp_path):
    p = tmp_path / "unmet.toml"
    p.write_text(
        textwrap.dedent("""
        [[accountant]]
        id = "cli.unmet"
        query = "compose.drv"
        params = { eps = 0.1, steps = 100, delta_tilde = 1e-5 }
        bound = 5.0
        expect = "holds"

        [[accountant]]
        id = "cli.met"
        query = "gdp.eps"
        params = { mu = 1.0, delta = 1e-5 }
        bound = 4.38
    """)
    )
    junit = tmp_path / "u.xml"
    try:
        res = _invoke("--file", str(p), "--junit", str(junit))
        assert res.exit_code == 1, res.output
        assert "expectation not met" in res.output and "cli.unmet" in res.output
        root = ET.parse(junit).getroot()
        assert root.get("failures") == "1"
        # selecting only the met claim exits 0
        assert _invoke("--file", str(p), "cli.met").exit_code == 0
    finally:
        unload_user_file(str(p))


@pytest.mark.parametrize(
    "args,needle",
    [
        (["no.such.claim"], "no claim matches 'no.such.claim'"),
        (["nomatch.*"], "no claim matches 'nomatch.*'"),
        (["--file", "does/not/exist.toml"], "does/not/exist.toml: no such file"),
        (["--samples", "0", "biswas.de.ldp"], "--samples must be an integer >= 20"),
        (["--method", "magic", "biswas.de.ldp"], "unknown method 'magic'"),
        (["--confidence", "nan", "biswas.de.ldp"], "confidence"),
    ],
)
def test_bad_usage_exits_2(args, needle):
    res = _invoke(*args)
    assert res.exit_code == 2, res.output
    assert needle in res.output
    assert "Traceback" not in res.output


@pytest.mark.parametrize(
    "text,needle",
    [
        ("[[privacy]\n", "malformed TOML"),
        (
            '[[privacy]]\nid = "cli.bad"\nmechanism = "de"\nparams = { m = 2, eps = nan }\n',
            "params.eps must be a finite",
        ),
        ('[[privacy]]\nid = "cli.bad"\nmechanism = "de"\nparams = { m = 2, eps = -1.0 }\n', "eps must be a positive"),
        ('[[privacy]]\nid = "cli.bad"\nmechanism = "de"\nsamples = 0\n', "samples must be an integer >= 20"),
        ('[[privacy]]\nid = "cli.bad"\nmechanism = "zzz"\n', "unknown mechanism 'zzz'"),
    ],
)
def test_bad_claims_file_exits_2_with_one_line(tmp_path, text, needle):
    p = tmp_path / "bad.toml"
    p.write_text(text)
    res = _invoke("--file", str(p))
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("privcheck: error: ") and needle in lines[0], res.output


def test_example_python_file():
    path = os.path.join(os.path.dirname(__file__), os.pardir, "examples", "claims.py")
    res = _invoke("--file", path, "--quick")
    assert res.exit_code == 0, res.output
    assert "expectations: 2 met, 0 not met" in " ".join(res.output.split())
