"""Trade-off figures in the reports: μ-GDP audits (points with boxes over G_μ) and certified curves.

The reports must contain the figure (its file / embedded image and caption), not its pixels.
"""

from __future__ import annotations

import numpy as np

from privcheck.claims import RunContext, VerdictRecord
from privcheck.reports import write_figures, write_html, write_markdown
from privcheck.reports.plots import audit_curve_data, tradeoff_data

P002 = "002_x.txt"


def _record(id_: str, outcome, method: str = "mc") -> VerdictRecord:
    return VerdictRecord(
        id_,
        f"{P002} Alg. 1",
        "privacy",
        method,
        outcome.verdict,
        outcome.claimed,
        outcome.measured,
        outcome.details,
        0,
        outcome.samples,
        0.1,
    )


def _broken_noisysmpc():
    """The catalogue's NoisySMPC case claimed at half its μ: an audit that must refute."""
    from privcheck.catalogue import curves as cc

    label, mu, sampler = cc._noisysmpc_case(5, 2, 1.0, 1.5)
    return cc._curve_outcome(RunContext(samples=20_000), [(label, mu / 2, sampler)], [0, 1], 20_000, 20_000)


def test_catalogue_gdp_records_carry_points_and_get_an_audit_figure(tmp_path):
    out = _broken_noisysmpc()
    assert out.verdict == "refuted"
    rec = _record("spriFed.noisysmpc.gdp_audit", out)
    audits = audit_curve_data(rec)
    assert len(audits) == 1 and audits[0]["mu_claimed"] == out.details["cases"][0]["mu_claimed"]
    assert any(p.get("below_claim") for p in audits[0]["curve_points"])  # the refuting box is drawn red
    md = tmp_path / "r.md"
    figs = write_markdown([rec], str(md))
    [fig] = figs.figures
    assert fig.filename == "r_spriFed.noisysmpc.gdp_audit_mc_audit1.png" and (tmp_path / fig.filename).exists()
    text = md.read_text()
    assert f"]({fig.filename})" in text and "trade-off audit" in text and "G_μ, μ = " in text
    html = tmp_path / "r.html"
    hfigs = write_html([rec], str(html), curves=False)
    page = html.read_text()
    assert len(hfigs.figures) == 1 and "data:image/png;base64," in page and "trade-off audit" in page


def test_records_with_their_own_curve_points_and_with_a_certified_curve(tmp_path):
    import privcheck
    from accountants.pld import GaussianEvent, PLDAccountant

    def gauss(x, size, rng):
        return x + rng.normal(0.0, 1.0, size)

    res = privcheck.audit(gauss, inputs=[0.0, 1.0], mu=1.0, samples=4000, seed=1).to_dict()
    own = VerdictRecord(
        "user.gauss", "claims.toml privacy #1", "privacy", "mc", res["verdict"], 1.0, res["mu_lower"], res, 0, 4000, 0.1
    )
    assert [a["mu_claimed"] for a in audit_curve_data(own)] == [1.0]
    iv = PLDAccountant().compose(GaussianEvent(sigma=1.0), 1).tradeoff(np.linspace(0, 1, 21))
    band = {"alpha": np.linspace(0, 1, 21).tolist(), "beta_lower": iv.lower.tolist(), "beta_upper": iv.upper.tolist()}
    both = VerdictRecord(
        "user.acc",
        "claims.toml privacy #2",
        "privacy",
        "mc",
        "holds",
        None,
        None,
        {"tradeoff": band, "curve_points": res["curve_points"]},
        0,
        4000,
        0.1,
    )
    assert tradeoff_data(both)["alpha"] == band["alpha"]
    bad = VerdictRecord(
        "user.bad",
        "x",
        "privacy",
        "mc",
        "holds",
        None,
        None,
        {"alpha": [0.1, 0.2], "beta_lower": [0.5], "beta_upper": [0.6, 0.7], "curve_points": [{"alpha": "x"}]},
        0,
        1,
        0.1,
    )
    assert tradeoff_data(bad) is None and audit_curve_data(bad) == []
    figs = write_figures([own, both, bad], str(tmp_path))
    assert [f.filename for f in figs.figures] == ["user.gauss_mc_audit1.png", "user.acc_mc_tradeoff.png"]
    assert "empirical confidence boxes" in figs.figures[1].caption
    for f in figs.figures:
        assert (tmp_path / f.filename).read_bytes()[:4] == b"\x89PNG"
