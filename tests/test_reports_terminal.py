"""Terminal layout: one grep-able line per check at any width, findings, -q/-v, generic verdicts, JSON."""

from __future__ import annotations

import json
import math
import re

import pytest
from rich.console import Console

from privcheck.claims import VerdictRecord
from privcheck.reports.text import (
    check_lines,
    fmt_confidence,
    print_report,
    records_from_json,
    records_to_json,
    verdict_counts,
)

P0 = "000_55a5a0ab95d522af.txt"
P3 = "003_e5d52747d9985dd0.txt"
LONG = "biswas.gde.unbiased.under.a.very.long.user.scenario.name.that.exceeds.sixty.columns"


def _rec(
    id_, verdict, claimed=None, measured=None, details=None, method="mc", part="", source=f"{P3} Thm 3.4", expect=None
):
    return VerdictRecord(
        id_,
        source,
        "estimator",
        method,
        verdict,
        claimed,
        measured,
        details or {},
        0,
        1000,
        1.25,
        expect=expect,
        part=part,
    )


@pytest.fixture
def records():
    many = {f"d={d}, k=2, eps1=1.0": 1.0 + d / 1000 for d in range(5, 40)}
    return [
        _rec(
            "biswas.gde.unbiased",
            "holds",
            {"mean": 1.0},
            {"mean": 1.0012},
            {"interval": [0.99, 1.01], "confidence": 0.99875},
        ),
        _rec(LONG, "refuted", "x" * 150, "y" * 150),
        _rec("fedsel.pe.ldp", "refuted", {k: 1.0 for k in many}, many, method="exact", source=f"{P0} Alg. 3"),
        _rec("fedsel.pe.ldp", "inconclusive", 1.0, 0.9, part="ldp", source=f"{P0} Alg. 3"),
        _rec("calc.budget", "computed", None, 4.377, method="calculator", source="design card"),
        _rec("broken.one", "error", details={"error": "ValueError: bad\\nthing", "traceback": "tb"}),
    ]


def _out(records, width, **kw):
    console = Console(record=True, width=width, force_terminal=False, color_system=None)
    print_report(records, console=console, **kw)
    return console.export_text()


@pytest.mark.parametrize("width", [60, 80, 200])
def test_one_line_per_check_holds_full_id_method_and_verdict(records, width):
    text = _out(records, width)
    lines = text.split("findings (")[0].splitlines()  # the listing (the findings block repeats refuted ids)
    for r in records:
        key = f"{r.id} [{r.method}{':' + r.part if r.part else ''}]"
        hits = [ln for ln in lines if key in ln and ln.startswith(r.verdict)]
        assert len(hits) == 1, (key, width, text)  # exactly one line, starting with the verdict: grep-able
        assert re.match(rf"^{r.verdict}\s+{re.escape(key)}\s+1\.25 s", hits[0])
    # the long id is never cut or wrapped, even at 60 columns
    assert any(LONG in ln for ln in lines)
    # values that do not fit go on an indented second line, which stays within the width
    i = next(i for i, ln in enumerate(lines) if ln.startswith("refuted") and LONG in ln)
    if width < 200:
        assert lines[i + 1].startswith("    claimed ") and len(lines[i + 1]) <= width
    assert text.splitlines()[-1].startswith(
        "privcheck: 6 checks of 5 claims: 1 holds, 2 refuted, 1 inconclusive, 1 error, 1 computed"
    )


def test_findings_block_prints_refuted_values_in_full(records):
    text = _out(records, 80)
    block = text[text.index("findings (2 refuted):") :]
    assert "x" * 150 in block and "y" * 150 in block  # in full, never shortened
    assert "d=39, k=2, eps1=1.0: 1.039" in block  # every case of a dict, not a range summary
    assert "[000] FedSel (Liu et al.) Alg. 3" in block  # cited by paper, not by file name
    assert "inconclusive" not in block.split("\n", 1)[1].split("privcheck:")[0].splitlines()[0]


def test_quiet_prints_only_the_summary(records):
    text = _out(records, 80, verbosity=-1, seconds=2.0)
    assert text.strip().splitlines() == [
        "privcheck: 6 checks of 5 claims: 1 holds, 2 refuted, 1 inconclusive, 1 error, 1 computed (2.0 s)"
    ]


def test_verbose_prints_every_number(records):
    text = _out(records, 80, verbosity=1)
    assert "claimed: mean: 1" in text and "measured: mean: 1.0012" in text
    assert "interval: [0.99, 1.01] at 0.99875" in text  # confidence with its digits, not "100%"
    assert "d=39, k=2, eps1=1.0: 1.039" in text
    assert "samples: 1000" in text


def test_generic_verdicts_are_counted_and_styled(records):
    counts = verdict_counts(records)
    assert counts["computed"] == 1 and counts["holds"] == 1
    lines = check_lines(records[4], 80)
    assert lines[0].plain.startswith("computed") and "calc.budget [calculator]" in lines[0].plain
    assert any(span.style for span in lines[0].spans)  # a colour even for a verdict this module does not know


def test_quick_label_in_summary_and_json(records):
    for r in records:
        r.details["quick"] = True
    assert _out(records, 80, verbosity=-1).strip().endswith("[quick: reduced Monte Carlo power]")
    data = json.loads(records_to_json(records))
    assert isinstance(data, list) and all(d["quick"] is True for d in data)  # still a list of records
    back = records_from_json(records_to_json(records))
    assert [r.id for r in back] == [r.id for r in records] and back[0].details["quick"] is True
    assert json.loads(records_to_json(records[:1], quick=False))[0]["quick"] is False
    # the 0.1 format (no quick key) and a wrapped form are read as well
    plain = json.dumps([r.to_dict() for r in records[:2]])
    assert len(records_from_json(plain)) == 2
    assert len(records_from_json(json.dumps({"records": json.loads(plain)}))) == 2


@pytest.mark.parametrize(
    "c, text",
    [(0.95, "0.95"), (0.99875, "0.99875"), (1 - 0.05 / 48, "0.998958"), (0.9999999, "0.9999999"), (0.5, "0.5")],
)
def test_confidence_keeps_its_digits(c, text):
    assert fmt_confidence(c) == text
    assert float(fmt_confidence(c)) < 1.0 or math.isclose(c, 1.0)


def test_findings_section_cites_papers_and_counts_any_verdict(records):
    from privcheck.findings import render

    text = render(records, seed=0, seconds=3.0)
    assert "**[003] LDP sampling (Biswas et al.)** — 1 holds, 1 refuted, 1 error" in text
    assert f"- `{LONG}` [mc] **refuted** — claimed" in text  # one grep-able item per finding
    assert "- `fedsel.pe.ldp` [mc:ldp] **inconclusive**" in text
    assert "- calculator (computed as printed, not a confirmation): `calc.budget`" in text
    assert "Sources: [000] Ruixuan Liu, Yang Cao, Masatoshi Yoshikawa, Hong Chen, *FedSel:" in text
