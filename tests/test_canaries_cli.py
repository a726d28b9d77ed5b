"""``privcheck audit-scores`` and ``privcheck audit dp-sgd --canaries``: outputs, exit codes, bad input."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from click.testing import CliRunner

from privcheck.cli import main


@pytest.fixture()
def files(tmp_path):
    rng = np.random.default_rng(0)
    np.save(tmp_path / "in.npy", rng.normal(2, 1, 1500))
    np.save(tmp_path / "out.npy", rng.normal(0, 1, 1500))
    np.savetxt(tmp_path / "in.txt", rng.normal(0, 1, 300))
    np.savetxt(tmp_path / "out.csv", rng.normal(0, 1, 300))
    (tmp_path / "words.txt").write_text("0.5\n1.5\nnot-a-number\n")
    (tmp_path / "nan.csv").write_text("0.5\nnan\n")
    np.save(tmp_path / "matrix.npy", np.zeros((4, 2)))
    np.save(tmp_path / "strings.npy", np.array(["a", "b"]))
    return tmp_path


def run(*args):
    return CliRunner().invoke(main, list(map(str, args)))


def test_refuted_claim_exits_1_and_writes_json_and_junit(files):
    junit = files / "r.xml"
    res = run(
        "audit-scores",
        files / "in.npy",
        files / "out.npy",
        "--eps",
        "1",
        "--delta",
        "1e-5",
        "--method",
        "one-run",
        "--junit",
        junit,
    )
    assert res.exit_code == 1, res.output
    assert "verdict: refuted" in res.output and "power:" in res.output
    assert ET.parse(junit).getroot().find(".//failure") is not None
    res = run("audit-scores", files / "in.npy", files / "out.npy", "--eps", "1", "--delta", "1e-5", "--json", "-")
    data = json.loads(res.output)
    assert res.exit_code == 1 and data["verdict"] == "refuted" and data["eps_lower"] > 1
    assert {"eps_lower", "mu_lower", "eps_if_gdp", "power", "rule", "chosen", "confidence"} <= set(data)


def test_null_scores_certify_nothing_and_exit_0(files):
    res = run("audit-scores", files / "in.txt", files / "out.csv", "--method", "cp", "--eps", "0.5", "--json", "-")
    data = json.loads(res.output)
    assert res.exit_code == 0 and data["eps_lower"] == 0.0 and data["verdict"] == "inconclusive"


@pytest.mark.parametrize(
    "args,match",
    [
        (["words.txt", "out.csv"], "words.txt:3"),
        (["nan.csv", "out.csv"], "must be finite"),
        (["matrix.npy", "out.npy"], "1-d"),
        (["strings.npy", "out.npy"], "numeric"),
        (["in.txt", "missing.txt"], "no such file"),
        (["in.txt", "out.csv", "--confidence", "1"], "confidence"),
        (["in.txt", "out.csv", "--eps", "1", "--mu", "1"], "one claim"),
        (["in.txt", "out.csv", "--thresholds", "split:0"], "split fraction"),
    ],
)
def test_bad_input_is_one_line_exit_2(files, args, match):
    res = run("audit-scores", *[files / a if a.endswith((".txt", ".csv", ".npy")) else a for a in args])
    assert res.exit_code == 2, res.output
    assert match in res.output and len(res.output.strip().splitlines()) == 1


def test_training_audit_from_the_cli():
    common = ["--param", "q=1", "--param", "steps=16", "--param", "n=200", "--seed", "1"]
    res = run("audit", "dp-sgd", "--canaries", "400", "--param", "sigma=4", *common, "--json", "-")
    data = json.loads(res.output)
    assert res.exit_code == 0 and data["verdict"] in ("holds", "inconclusive")
    assert data["eps_claimed"] > 0 and 0 <= data["fraction_certified"] <= 1
    res = run("audit", "dp-sgd", "--canaries", "400", "--param", "sigma=4", "--param", "bug=clip-escape", *common)
    assert res.exit_code == 1 and "verdict: refuted" in res.output
    res = run("audit", "dp-sgd", "--canaries", "400", "--param", "lr_typo=1")
    assert res.exit_code == 2 and "not a training parameter" in res.output
    res = run("audit", "fedsel-pe", "--canaries", "10")
    assert res.exit_code == 2 and "dp-sgd or dp-fedavg" in res.output


def test_scores_entries_in_a_claims_file(files):
    (files / "claims.toml").write_text(
        '[[scores]]\nid = "run.eps1"\nscores_in = "in.npy"\nscores_out = "out.npy"\neps = 1.0\ndelta = 1e-5\n'
        'method = "one-run"\nexpect = "refuted"\n\n'
        '[[scores]]\nid = "run.null"\nscores_in = "in.txt"\nscores_out = "out.csv"\nmethod = "cp"\neps = 0.5\n'
        'expect = "inconclusive"\n'
    )
    res = run("verify", "--file", files / "claims.toml", "run.*", "--json", files / "v.json")
    assert res.exit_code == 0, res.output
    verdicts = {r["id"]: r["verdict"] for r in json.loads((files / "v.json").read_text())}
    assert verdicts == {"run.eps1": "refuted", "run.null": "inconclusive"}
    (files / "bad.toml").write_text(
        '[[scores]]\nid = "x"\nscores_in = "words.txt"\nscores_out = "out.csv"\neps = 1.0\n'
    )
    res = run("verify", "--file", files / "bad.toml", "x")
    assert res.exit_code == 2 and "words.txt:3" in res.output
