"""Report writers on synthetic records: terminal table, JSON, JUnit, Markdown, HTML and figures."""

from __future__ import annotations

import json
import math
import os
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest
from rich.console import Console

from privcheck.claims import VerdictRecord
from privcheck.reports import (
    EpsCurve,
    eps_curve,
    print_table,
    records_to_json,
    write_figures,
    write_html,
    write_json,
    write_junit,
    write_markdown,
)
from privcheck.reports.plots import estimator_components, figure3_data, k_slope_data
from privcheck.reports.text import interval_text, paper_label, short, short_source, summary_line

P0 = "000_55a5a0ab95d522af.txt"
P3 = "003_e5d52747d9985dd0.txt"
P4 = "004_cc7ee25c83388ef6.txt"


def _rec(
    id_, source, kind, method, verdict, claimed=None, measured=None, details=None, expect=None, part="", seconds=0.5
):
    return VerdictRecord(
        id_, source, kind, method, verdict, claimed, measured, details or {}, 0, None, seconds, expect=expect, part=part
    )


def _estimator_record(scenario, bias_iv, var_iv, claimed_var):
    return {
        "scenario": scenario,
        "estimator": "c_hat",
        "replicates": 1000,
        "confidence": 0.975,
        "family": 2,
        "params": {},
        "components": {
            "mean": {"claimed": 1.0, "exact": 1.0, "simulated": 1.01, "interval": [0.98, 1.04]},
            "bias": {
                "simulated": 0.01,
                "interval": bias_iv,
                "p": 0.5,
                "tost_tolerance": 0.05,
                "tost_p": 0.01,
                "equivalent": True,
            },
            "variance": {
                "claimed": claimed_var,
                "exact": claimed_var,
                "simulated": var_iv[0] * 1.02,
                "interval": var_iv,
                "p": 0.4,
                "equivalent": True,
                "kurtosis": 3.0,
            },
        },
    }


@pytest.fixture
def records():
    Ks = [1e3, 1e4, 1e5, 1e6]
    return [
        _rec(
            "fedsel.pe.ldp",
            f"{P0} Alg. 3, Lemma 2",
            "privacy",
            "exact",
            "refuted",
            {f"case{i}": 1.0 for i in range(4)},
            {f"case{i}": 1.2 + i for i in range(4)},
        ),
        _rec(
            "fedsel.pe.ldp",
            f"{P0} Alg. 3, Lemma 2",
            "privacy",
            "mc",
            "holds",
            1.0,
            0.97,
            {"interval": [0.97, math.inf], "confidence": 0.95},
            part="ldp",
        ),
        _rec(
            "biswas.fig3",
            f"{P3} Sec. 4, Fig. 3",
            "estimator",
            "mc",
            "holds",
            "TV falls",
            None,
            {
                "figure3": [
                    {
                        "eps": 1.0,
                        "pi": [0.1, 0.5, 0.9],
                        "tv_chat_mean": [3.0, 1.5, 1.0],
                        "tv_chat_interval": [[2.9, 3.1], [1.4, 1.6], [0.9, 1.1]],
                        "tv_gde_mean": [3.1, 1.6, 1.05],
                        "tv_gde_interval": [[3, 3.2], [1.5, 1.7], [1, 1.1]],
                        "communication_cost_expected": [5000, 25000, 45000],
                        "communication_cost_simulated": [5001, 24990, 45010],
                    }
                ]
            },
        ),
        _rec(
            "biswas.chat.unbiased",
            f"{P3} Thm 3.4",
            "estimator",
            "mc",
            "holds",
            {"mean": 1.0},
            {"mean": 1.01},
            {
                "scenarios": [
                    _estimator_record("a", [-0.02, 0.04], [9.0, 11.0], 10.0),
                    _estimator_record("b", [-0.03, 0.01], [1.9, 2.2], 2.0),
                ],
                "interval": [0.98, 1.04],
                "confidence": 0.975,
            },
        ),
        _rec(
            "biswas.broken",
            f"{P3} Sec. 5",
            "estimator",
            "mc",
            "error",
            details={"error": "ValueError: something broke\nsecond line", "traceback": "Traceback ..."},
        ),
        _rec(
            "seif.lemma1.eps",
            f"{P4} Lemma 1, eq. 16",
            "bound",
            "scaling",
            "holds",
            {"slope": -0.75},
            {"slope": -0.76},
            {"Ks": Ks, "eps_c": [k**-0.75 for k in Ks], "slope": -0.75, "interval": [-0.76, -0.74], "confidence": 0.95},
        ),
        _rec("user.claim", "claims.toml privacy #1", "privacy", "exact", "holds", 1.0, 1.0, expect="refuted"),
        _rec("user.ok", "claims.toml accountant #1", "bound", "numeric", "refuted", 5.0, 5.85, expect="refuted"),
    ]


# --------------------------------------------------------------------------- formatting
def test_short_and_labels(records):
    assert short(None) == ""
    assert short(0.123456789) == "0.1235"
    assert short({"a": 1.0, "b": 2.0, "c": 3.0}) == "1…3 (3)"
    assert short({"a": 1.0, "b": 1.0, "c": 1.0}) == "1 (×3)"
    assert short({"slope": -0.75}) == "slope=-0.75"
    assert short({"d=5, eps=1": 1.2, "d=5, eps=2": 2.3}, 60) == "d=5, eps=1: 1.2; d=5, eps=2: 2.3"
    assert len(short("x" * 100, 20)) == 20
    assert short("a\nb") == "a b"
    assert paper_label(P0) == "000" and paper_label("claims.toml") == "claims.toml"
    assert short_source(records[0]) == "000 Alg. 3, Lemma 2"
    assert interval_text(records[1]) == "[0.97, inf] at 0.95"
    assert interval_text(records[0]) == ""
    assert summary_line(records[:2]) == "1 holds, 1 refuted"
    assert "expectations: 1 met, 1 not met" in summary_line(records[-2:])


@pytest.mark.parametrize("width", [80, 120, 200])
def test_report_groups_by_paper_and_lists_problems(records, width):
    console = Console(record=True, width=width, force_terminal=False, color_system=None)
    print_table(records, console=console)
    text = console.export_text()
    for label in ("000:", "003:", "004:", "claims.toml:"):
        assert any(line.startswith(label) for line in text.splitlines()), label
    assert "error biswas.broken[mc]: ValueError: something broke second line" in text
    assert "expectation not met user.claim[exact]: expected refuted, got holds" in text
    assert "fedsel.pe.ldp [mc:ldp]" in text
    assert text.splitlines()[-1].startswith("privcheck: 8 checks of 7 claims:")


# --------------------------------------------------------------------------- JSON / JUnit
def test_json_roundtrip(records, tmp_path):
    path = tmp_path / "r.json"
    write_json(records, str(path))
    data = json.loads(path.read_text())
    assert [d["id"] for d in data] == [r.id for r in records]
    assert set(data[0]) >= {
        "id",
        "source",
        "kind",
        "method",
        "verdict",
        "claimed",
        "measured",
        "details",
        "seed",
        "samples",
        "seconds",
    }
    assert data[1]["details"]["interval"][1] == "inf"  # JSON has no infinity
    assert json.loads(records_to_json(records)) == data


def test_junit_cases_errors_and_failures(records, tmp_path):
    path = tmp_path / "r.xml"
    write_junit(records, str(path))
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    cases = root.findall(".//testcase")
    assert len(cases) == len(records)
    names = [c.get("name") for c in cases]
    assert "fedsel.pe.ldp[mc:ldp]" in names and "fedsel.pe.ldp[exact]" in names
    by_name = {c.get("name"): c for c in cases}
    # a refuted built-in claim is a finding, not a CI failure
    refuted = by_name["fedsel.pe.ldp[exact]"]
    assert refuted.find("failure") is None and refuted.find("error") is None
    props = {p.get("name"): p.get("value") for p in refuted.iter("property")}
    assert props["verdict"] == "refuted"
    assert "verdict: refuted" in refuted.find("system-out").text
    assert by_name["biswas.broken[mc]"].find("error") is not None
    assert by_name["user.claim[exact]"].find("failure").get("message") == "expected refuted, got holds"
    assert by_name["user.ok[numeric]"].find("failure") is None
    assert root.get("failures") == "1" and root.get("errors") == "1"
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert set(suites) == {"privcheck.000", "privcheck.003", "privcheck.004", "privcheck.claims.toml"}
    assert suites["privcheck.003"].get("errors") == "1"


# --------------------------------------------------------------------------- figures
def test_plot_data_extraction(records):
    d, note = k_slope_data(records[5])
    assert note == "" and d["K"] == [1e3, 1e4, 1e5, 1e6] and d["slope"] == -0.75 and d["claimed_slope"] == -0.75
    curves, note = figure3_data(records[2])
    assert curves[0]["pi"] == [0.1, 0.5, 0.9] and set(curves[0]["tv"]) == {"chat", "gde"}
    rows = estimator_components(records[3])
    assert [r["label"] for r in rows] == ["a:c_hat", "b:c_hat"]
    assert rows[0]["variance_claimed"] == 10.0 and rows[1]["bias_interval"] == [-0.03, 0.01]
    # a record without the data is skipped with a note
    bare = _rec("seif.lemma1.eps", f"{P4} Lemma 1", "bound", "scaling", "holds")
    d, note = k_slope_data(bare)
    assert d is None and "skipped" in note
    d, note = figure3_data(_rec("biswas.fig3", P3, "estimator", "mc", "holds"))
    assert d is None and "skipped" in note


def test_k_slope_from_parameters_only():
    rec = _rec(
        "seif.lemma1.eps",
        f"{P4} Lemma 1",
        "bound",
        "scaling",
        "holds",
        {"slope": -0.75},
        None,
        {"parameters": {"c": 2.9, "delta_prime": 1e-4}, "interval": [-0.77, -0.75]},
    )
    d, note = k_slope_data(rec)
    assert d is not None and len(d["K"]) == len(d["eps"]) > 10 and "eq. 16" in note
    assert d["eps"][0] > d["eps"][-1]


def test_write_figures_and_markdown(records, tmp_path):
    figs = write_figures(records, str(tmp_path / "figs"))
    names = {f.filename for f in figs.figures}
    assert names == {
        "seif.lemma1.eps_scaling.png",
        "biswas.fig3_mc.png",
        "biswas.chat.unbiased_mc.png",
        "fedsel.pe.ldp_exact.png",
        "user.ok_numeric.png",
    }  # the last two: refuted comparisons
    for n in names:
        data = (tmp_path / "figs" / n).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    md = tmp_path / "out" / "report.md"
    md.parent.mkdir()
    write_markdown(records, str(md))
    text = md.read_text()
    assert "## [000] FedSel (Liu et al.)" in text and "## [003]" in text and "| `fedsel.pe.ldp` |" in text
    assert "## Sources" in text and "Sayan Biswas, Graham Cormode, Carsten Maple" in text
    assert "```json" not in text  # details are nested lists, not JSON dumps
    assert "(expected refuted — NOT MET)" in text
    for f in ("report_seif.lemma1.eps_scaling.png", "report_biswas.fig3_mc.png"):
        assert f"]({f})" in text and (md.parent / f).exists()
    assert "ValueError: something broke" in text


class _Images(HTMLParser):
    def __init__(self):
        super().__init__()
        self.srcs: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.srcs.append(a.get("src", ""))
        if tag in ("link", "script") or (tag == "a" and not a.get("href", "#").startswith("#")):
            self.links.append(a.get("href") or a.get("src") or "")


def test_write_html_is_self_contained(records, tmp_path):
    curve = EpsCurve("de test", "de", {"m": 2, "eps": 1.0}, 1.0, 1.0, [100, 1000], [0.2, float("-inf")], [3, 5])
    path = tmp_path / "sub" / "report.html"
    path.parent.mkdir()
    figs = write_html(records, str(path), curves=[curve])
    html = path.read_text()
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert os.listdir(path.parent) == ["report.html"]  # nothing beside it
    parser = _Images()
    parser.feed(html)
    assert len(parser.srcs) == len(figs.figures) == 6  # curves, K-slope, Fig. 3, estimator, 2 refuted comparisons
    assert all(src.startswith("data:image/png;base64,") for src in parser.srcs)
    assert parser.links == []  # no stylesheet, script or external link
    assert "class='verdict v-refuted'" in html and "not met" in html
    assert "<script" not in html and "http" not in html.replace("http://www.w3.org/1998/Math/MathML", "")
    assert "Sayan Biswas" in html and "[000] FedSel (Liu et al.)" in html and ".txt" not in html
    # values are escaped
    rec = _rec("x.y", "claims.toml x", "privacy", "exact", "holds", "<b>&", None)
    write_html([rec], str(tmp_path / "esc.html"), curves=False)
    assert "&lt;b&gt;&amp;" in (tmp_path / "esc.html").read_text()


def test_formulas_render_as_mathml_side_by_side(tmp_path):
    rec = _rec(
        "sqsgd.quantize.unbiased",
        "001_30a1c1c8dca8a50f.txt eq. 5-6",
        "formula",
        "symbolic",
        "refuted",
        "E[X] = X",
        "E[X] = U*(K - 1)",
        {
            "printed": {"text": "U*(2*k - 2)/(K - 1)"},
            "derived": {"text": "U*(-K**2 + 2*K*k)/(K - 1)**2"},
            "difference": "2*U*theta",
        },
    )
    write_html([rec], str(tmp_path / "f.html"), curves=False)
    html = (tmp_path / "f.html").read_text()
    assert html.count("<math xmlns='http://www.w3.org/1998/Math/MathML'") >= 3
    assert "claimed (as printed)" in html and "derived" in html and "<msup>" in html
    md = tmp_path / "f.md"
    write_markdown([rec], str(md))
    assert "$$\n\\frac{U \\left(2 k - 2\\right)}{K - 1}\n$$" in md.read_text()


def test_report_draws_only_the_curves_of_its_claims(monkeypatch):
    from privcheck.reports import curves

    calls = []
    monkeypatch.setattr(curves, "eps_curve", lambda name, *a, **k: calls.append(name) or name)
    assert curves.curves_for({"fedsel.pe.ldp", "biswas.T.unbiased"}) == ["fedsel-pe"]
    assert curves.curves_for({"gdp.gaussian"}) == []


def test_eps_curve_small():
    c = eps_curve("de", {"m": 2, "eps": 1.0}, sizes=(200, 2000), seed=1)
    assert c.samples == [200, 2000] and c.eps_exact == pytest.approx(1.0) and c.eps_claimed == 1.0
    assert all(v <= 1.0 + 1e-9 or not math.isfinite(v) for v in c.eps_lower)
    assert c.eps_max_certifiable[1] > c.eps_max_certifiable[0]
    again = eps_curve("de", {"m": 2, "eps": 1.0}, sizes=(200, 2000), seed=1)
    assert again.eps_lower == c.eps_lower  # reproducible from the seed
    with pytest.raises(ValueError):
        eps_curve("de", {"m": 2, "eps": 1.0}, sizes=(5,))


def test_comparison_data_puts_claim_and_measurements_on_one_axis():
    from privcheck.reports.plots import comparison_data

    per_case = _rec("a.b", P0, "privacy", "exact", "refuted", {"d=5": 1.0, "d=20": 0.5}, {"d=5": 1.2, "d=20": 0.53})
    cases, series = comparison_data(per_case)
    assert cases == ["d=5", "d=20"] and series == [("claimed", [1.0, 0.5]), ("measured", [1.2, 0.53])]
    # the same claimed number for every case
    cases, series = comparison_data(_rec("a.c", P0, "privacy", "mc", "refuted", 1.0, {"x": 1.1, "y": 1.3}))
    assert series[0] == ("claimed", [1.0, 1.0])
    # measured lists (simulated, exact, the paper's values) with claimed values of the same length
    rec = _rec(
        "b.T",
        P3,
        "estimator",
        "mc",
        "refuted",
        {"E[T]": "n f_i", "values": [500, 500]},
        {"simulated": [501.0, 1399.0], "exact": [500, 1400], "intervals": [[498, 503], [1395, 1402]]},
    )
    cases, series = comparison_data(rec)
    assert cases == ["case 1", "case 2"] and [n for n, _ in series] == ["claimed", "simulated", "exact"]
    # nothing numeric to compare
    assert comparison_data(_rec("c.d", P3, "formula", "symbolic", "refuted", "E[X] = X", "E[X] = X/d")) is None
