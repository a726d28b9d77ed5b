"""Reports say exactly what happened (issue 18 §4): verdicts are never shown as "not run", reasons are
shown at default verbosity, (ε, δ) audits read the same however δ is given, no internal file names."""

from __future__ import annotations

import json
import re

import numpy as np

import privcheck
from privcheck.claims import VerdictRecord
from privcheck.findings import render
from privcheck.reports.text import check_lines, not_run_reason, reason_text, records_to_json

_HASHED = re.compile(r"\d{3}_[0-9a-f]{8,}\.txt")


def _record(verdict, details, **kw):
    base = dict(
        id="x.claim",
        source="001_30a1c1c8dca8a50f.txt Thm 1",
        kind="unbiased",
        method="exact",
        verdict=verdict,
        claimed="E[Z] = X",
        measured={"E[Z|X]=X": "fails"},
        details=details,
        seed=0,
        samples=None,
        seconds=0.5,
    )
    base.update(kw)
    return VerdictRecord(**base)


def test_a_refuted_check_with_skipped_subcases_is_not_shown_as_skipped():
    rec = _record("refuted", {"skipped": [{"d": 1, "reason": "m = 0"}]})
    assert not_run_reason(rec) is None
    text = render([rec], seed=0, seconds=1.0)
    assert "skipped" not in text and "**refuted** — claimed E[Z] = X; measured" in text


def test_a_check_that_did_not_run_shows_its_reason_at_default_verbosity():
    hint = "dp_accounting not installed: pip install 'privcheck[peers]'"
    rec = _record("inconclusive", {"skipped": True, "reason": hint}, id="peers.dp_accounting.pld", source="peers")
    assert not_run_reason(rec) == hint
    line = " ".join(t.plain for t in check_lines(rec, width=200, verbosity=0))
    assert "skipped: " + hint in line
    assert f"skipped: {hint}" in render([rec], seed=0, seconds=1.0)


def test_an_inconclusive_check_carries_its_reason():
    rec = _record("inconclusive", {"reason": "no event separated the inputs"}, method="mc")
    assert reason_text(rec) == "no event separated the inputs"
    assert any("reason: no event separated" in t.plain for t in check_lines(rec, width=200))
    assert reason_text(_record("holds", {"reason": "x"})) == ""


def test_delta_mode_without_a_separating_event_is_inconclusive():
    res = privcheck.audit(
        lambda x, n, rng: rng.integers(0, 2, n), inputs=[0, 1], eps=1.0, delta=1e-5, samples=20_000, seed=0
    )
    assert res.verdict == "inconclusive" and "no event separated" in res.reason
    assert (
        privcheck.audit(lambda x, n, rng: rng.integers(0, 2, n), inputs=[0, 1], eps=1.0, samples=20_000, seed=0).verdict
        == "inconclusive"
    )


def test_delta_given_as_option_or_parameter_audits_the_same_claim():
    a = privcheck.audit(privcheck.mechanism("gaussian", sigma=1.0), eps=3.0, delta=1e-5, samples=20_000, seed=0)
    b = privcheck.audit(privcheck.mechanism("gaussian", sigma=1.0, delta=1e-5), eps=3.0, samples=20_000, seed=0)
    assert a.eps_exact == b.eps_exact and np.isfinite(a.eps_exact)
    strip = lambda s: re.sub(r"\(\d+\.\d+ s\)", "", s)  # noqa: E731
    assert strip(a.summary()) == strip(b.summary())


def test_certified_share_is_shown_only_when_it_is_a_share_of_a_pure_claim():
    refuted = privcheck.audit(privcheck.mechanism("de", m=2, eps=2.0), eps=1.0, samples=20_000, seed=0, exact=False)
    assert refuted.verdict == "refuted" and refuted.certified_fraction > 1
    assert "certified" not in refuted.summary()
    held = privcheck.audit(privcheck.mechanism("de", m=2, eps=1.0), eps=1.0, samples=20_000, seed=0, exact=False)
    assert held.certified_fraction <= 1 and "certified" in held.summary()
    wide = privcheck.audit(privcheck.mechanism("gaussian", sigma=0.3, delta=0.5), eps=0.5, samples=20_000, seed=0)
    assert "certified" not in wide.summary()
    if wide.eps_lower > 0.5:
        assert "its verdict is on delta" in wide.summary()


def test_json_and_junit_cite_papers_not_internal_files(tmp_path):
    from privcheck.reports.junit import write_junit

    recs = privcheck.verify(["fedsel.pe.ldp"], methods=["exact"], seed=0)
    text = records_to_json(recs)
    assert not _HASHED.search(text) and "REFERENCE.md" not in text and "CLAIMS.md" not in text
    assert json.loads(text)[0]["source"].startswith("[000] FedSel")
    write_junit(recs, str(tmp_path / "j.xml"))
    assert not _HASHED.search((tmp_path / "j.xml").read_text(encoding="utf-8"))
    from privcheck.reports.text import records_from_json

    assert render(records_from_json(text), seed=0, seconds=1.0).count("**[000] FedSel") == 1


def test_event_count_in_exponent_form_is_a_count():
    import pytest

    from privcheck.base.errors import PrivcheckUsageError
    from privcheck.cli.budget import parse_pld_event

    assert parse_pld_event("rr:eps=1x1e3")[1] == 1000 == parse_pld_event("rr:eps=1x1_000")[1]
    for bad in ("rr:eps=1x1.5", "rr:eps=1x1e-3", "rr:eps=1x0"):
        with pytest.raises(PrivcheckUsageError, match="count after 'x' must be a whole number"):
            parse_pld_event(bad)
