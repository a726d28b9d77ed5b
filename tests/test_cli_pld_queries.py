"""``privcheck budget pld`` with several queries: one build of the composition answers them all (issue 33 §2)."""

from __future__ import annotations

import json

from click.testing import CliRunner

import accountants.pld.accountant as acc_mod
from privcheck.cli.app import main


def test_one_command_one_build_four_queries(monkeypatch):
    builds = []
    real = acc_mod.discretise
    monkeypatch.setattr(acc_mod, "discretise", lambda *a, **k: builds.append(1) or real(*a, **k))
    args = ["budget", "pld", "--event", "subsampled-gaussian:sigma=1.0,q=0.01x300"]
    args += ["--delta", "1e-5", "--eps", "1.0", "--gdp", "--tradeoff", "--alpha", "0.01", "--risk", "--fpr", "0.01"]
    res = CliRunner().invoke(main, args + ["--json", "-"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.output)
    assert set(d) >= {"epsilon", "delta", "tradeoff", "gdp", "risk"}
    assert 0 < d["epsilon"]["eps_lower"] <= d["epsilon"]["eps_upper"]
    assert d["delta"]["delta_lower"] <= d["delta"]["delta_upper"] < 1
    assert d["tradeoff"]["beta_lower"][0] <= d["tradeoff"]["beta_upper"][0]
    assert d["gdp"]["mu_lower"] <= d["gdp"]["mu_upper"] and not d["gdp"]["vacuous"]
    assert d["risk"]["tpr_upper"][0] >= 0.01
    assert len(builds) == 2  # remove and add directions, discretised once
    text = CliRunner().invoke(main, args).output
    assert "(5 queries from one build of the composition)" in text


def test_single_query_keeps_its_flat_json():
    res = CliRunner().invoke(main, ["budget", "pld", "--event", "gaussian:sigma=2", "--delta", "1e-5", "--json", "-"])
    d = json.loads(res.output)
    assert d["eps_lower"] <= d["eps_upper"] and d["method"] == "exact GDP"
