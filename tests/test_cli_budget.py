"""``privcheck budget`` through click's CliRunner."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from privcheck.cli import main


@pytest.fixture()
def run():
    r = CliRunner()
    return lambda *args: r.invoke(main, ["budget", *args])


def test_gdp_text_and_json(run):
    res = run("gdp", "--sigma", "10", "--steps", "100", "--delta", "1e-5")
    assert res.exit_code == 0 and "4.37718" in res.output
    res = run("gdp", "--mu", "1", "--json", "-")
    data = json.loads(res.output)
    assert data["eps"] == pytest.approx(4.377178096, abs=1e-8)


def test_gdp_heterogeneous_and_eps(run):
    res = run("gdp", "--mus", "0.6,0.8", "--eps", "1", "--json", "-")
    data = json.loads(res.output)
    assert data["mu"] == pytest.approx(1.0)


def test_advanced(run):
    res = run("advanced", "--eps", "0.1", "--steps", "400", "--json", "-")
    data = json.loads(res.output)
    assert data["drv"]["eps"] == pytest.approx(13.803889, abs=1e-6)
    assert data["optimal"]["eps"] == pytest.approx(9.93681, abs=1e-5)


def test_compose_amplify_wireless_spriFed_plan(run, tmp_path):
    assert run("compose", "--eps", "0.1,0.2", "--delta", "1e-6").exit_code == 0
    res = run("amplify", "--q", "0.01", "--eps", "1", "--delta", "1e-6", "--json", "-")
    assert json.loads(res.output)["delta"] == pytest.approx(1e-8)
    out = tmp_path / "w.json"
    res = run(
        "wireless",
        "--K",
        "200",
        "--p",
        "0.3",
        "--L",
        "0.1",
        "--sigma",
        "0.316227766",
        "--steps",
        "10",
        "--json",
        str(out),
    )
    assert res.exit_code == 0 and "Lemma 1 p*" in res.output
    assert json.loads(out.read_text())["central"]["eps"] == pytest.approx(0.2258, abs=1e-4)
    res = run("spriFed", "-s", "10", "--mu1", "0.3", "--mu2", "0.1", "--clients", "100", "--json", "-")
    assert json.loads(res.output)["budget"]["mu_total"] == pytest.approx(1.0)
    res = run("plan", "sigma", "--eps", "1", "--steps", "1000", "--json", "-")
    assert json.loads(res.output)["achieved_eps"] == pytest.approx(1.0)
    res = run("plan", "sampling", "--K", "200", "--c", "2.9")
    assert res.exit_code == 0


@pytest.mark.parametrize(
    "args",
    [
        ("gdp", "--mu", "-1"),
        ("gdp", "--mu", "1", "--sigma", "2"),
        ("gdp", "--mus", "a,b"),
        ("advanced", "--eps", "0.1", "--steps", "0"),
        ("amplify", "--q", "2", "--eps", "1"),
        ("wireless", "--K", "200", "--p", "0.1", "--c", "3", "--delta-prime", "1e-5"),
        ("plan", "sigma", "--eps", "1"),
    ],
)
def test_bad_input_exits_2(run, args):
    res = run(*args)
    assert res.exit_code == 2
    assert "error" in res.output and "Traceback" not in res.output
