"""JUnit XML report: one test case per claim and method (and part), so CI systems show verdicts natively.

Mapping. Built-in claims expect nothing: a ``refuted`` built-in claim is a
*finding* about the paper, not a CI failure, and its test case passes (its
``finding`` property says so). Failures are:

- ``error`` → ``<error>`` with the exception line;
- a verdict differing from a user claim's declared ``expect`` → ``<failure>``;
- with ``fail_on`` (``--fail-on refuted``), any check with one of those
  verdicts → ``<failure>`` as well, matching the CLI's exit code.

Every test case carries ``properties`` (verdict, outcome, finding, expect,
claimed, measured, interval, confidence, seed, samples, source, citation,
quick) and a ``system-out`` with the same numbers. The ``<testsuites>`` root
carries a ``quick`` property (``--quick`` runs are labelled in every format).
One ``<testsuite>`` per paper.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Iterable, Sequence

from privcheck.base.numtext import fmt_confidence
from privcheck.claims import VerdictRecord
from privcheck.reports.text import (
    cited_source,
    error_message,
    full,
    group_by_paper,
    interval_text,
    is_quick,
    method_label,
    short,
)


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def outcome(record: VerdictRecord, fail_on: Sequence[str] = ()) -> str:
    """``error``, ``failure`` or ``passed``: how a record counts in CI (see the module docstring)."""
    if record.verdict == "error":
        return "error"
    if not record.met_expectation or record.verdict in fail_on:
        return "failure"
    return "passed"


def _finding_note(record: VerdictRecord, fail_on: Sequence[str]) -> str:
    if record.expect is not None:
        return f"user claim: the verdict must be {record.expect}"
    if record.verdict in fail_on:
        return f"{record.verdict} fails this run (--fail-on {record.verdict})"
    if record.verdict == "refuted":
        return "finding: the published claim is refuted; built-in claims expect nothing, so this is not a test failure"
    return "built-in claim: only an error fails"


def records_to_junit(
    records: Iterable[VerdictRecord], fail_on: Sequence[str] = (), quick: bool | None = None
) -> ET.ElementTree:
    """The JUnit ``ElementTree`` of ``records`` (``fail_on``: verdicts that become failures)."""
    records = list(records)
    fail_on = tuple(fail_on or ())
    quick = is_quick(records) if quick is None else bool(quick)
    root = ET.Element("testsuites", name="privcheck", tests=str(len(records)))
    rprops = ET.SubElement(root, "properties")
    ET.SubElement(rprops, "property", name="quick", value=str(quick).lower())
    ET.SubElement(rprops, "property", name="fail_on", value=",".join(fail_on) or "error")
    n_fail = n_err = 0
    total_time = 0.0
    for paper, recs in group_by_paper(records).items():
        s_fail, s_err, s_time = _suite(root, paper, recs, fail_on, quick)
        n_fail += s_fail
        n_err += s_err
        total_time += s_time
    root.set("failures", str(n_fail))
    root.set("errors", str(n_err))
    root.set("time", f"{total_time:.4f}")
    return ET.ElementTree(root)


def _suite(
    root: ET.Element, paper: str, recs: list[VerdictRecord], fail_on: tuple[str, ...], quick: bool
) -> tuple[int, int, float]:
    """Add one paper's test suite to ``root``; its (failures, errors, seconds)."""
    suite = ET.SubElement(root, "testsuite", name=f"privcheck.{paper}", tests=str(len(recs)))
    s_fail = s_err = 0
    s_time = 0.0
    for r in recs:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"privcheck.{paper}.{r.id}",
            name=f"{r.id}[{method_label(r)}]",
            time=f"{r.seconds:.4f}",
        )
        res = outcome(r, fail_on)
        _case_properties(ET.SubElement(case, "properties"), r, res, fail_on, quick)
        out = _case_output(r, fail_on, quick)
        if res == "error":
            s_err += 1
            err = ET.SubElement(case, "error", message=error_message(r)[:500] or "error", type="error")
            err.text = str(r.details.get("traceback", error_message(r))) if isinstance(r.details, dict) else ""
        elif res == "failure":
            s_fail += 1
            _failure(case, r).text = "\n".join(out)
        ET.SubElement(case, "system-out").text = "\n".join(out)
        s_time += r.seconds
    suite.set("failures", str(s_fail))
    suite.set("errors", str(s_err))
    suite.set("skipped", "0")
    suite.set("time", f"{s_time:.4f}")
    return s_fail, s_err, s_time


def _case_properties(props: ET.Element, r: VerdictRecord, res: str, fail_on: tuple[str, ...], quick: bool) -> None:
    """The test case's properties: verdict, outcome, source, claimed, measured... (empty ones left out)."""
    conf = r.details.get("confidence") if isinstance(r.details, dict) else None
    for key, val in (
        ("verdict", r.verdict),
        ("outcome", res),
        ("finding", _finding_note(r, fail_on)),
        ("expect", r.expect),
        ("source", cited_source(r)),
        ("citation", cited_source(r)),
        ("kind", r.kind),
        ("method", method_label(r)),
        ("claimed", short(r.claimed, 200)),
        ("measured", short(r.measured, 200)),
        ("interval", interval_text(r)),
        ("confidence", fmt_confidence(conf) if conf is not None else None),
        ("seed", r.seed),
        ("samples", r.samples),
        ("quick", str(quick).lower()),
    ):
        if val not in (None, ""):
            ET.SubElement(props, "property", name=key, value=_text(val))


def _case_output(r: VerdictRecord, fail_on: tuple[str, ...], quick: bool) -> list[str]:
    """The lines of a test case's output: verdict, note, source, both sides, interval and details."""
    out = [
        f"verdict: {r.verdict}" + (f" (expected {r.expect})" if r.expect else ""),
        f"{_finding_note(r, fail_on)}",
        f"source: {cited_source(r)}",
        f"claimed: {full(r.claimed)}",
        f"measured: {full(r.measured)}",
    ]
    if interval_text(r):
        out.append(f"interval: {interval_text(r)}")
    if quick:
        out.append("quick run: reduced Monte Carlo power")
    details = dict(r.to_dict()["details"])
    details.pop("traceback", None)
    out.append(f"details: {_text(details)[:4000]}")
    return out


def _failure(case: ET.Element, r: VerdictRecord) -> ET.Element:
    """The ``failure`` element of a failed case: an unmet expectation, or a --fail-on verdict."""
    if r.expect is not None and not r.met_expectation:
        return ET.SubElement(case, "failure", type="expectation", message=f"expected {r.expect}, got {r.verdict}")
    return ET.SubElement(
        case,
        "failure",
        type=f"fail-on-{r.verdict}",
        message=f"{r.verdict}: claimed {short(r.claimed, 120)}; measured {short(r.measured, 120)}",
    )


def write_junit(
    records: Iterable[VerdictRecord], path: str, fail_on: Sequence[str] = (), quick: bool | None = None
) -> None:
    """Write the JUnit XML of ``records`` to ``path`` (UTF-8, with an XML declaration)."""
    tree = records_to_junit(records, fail_on, quick)
    ET.indent(tree, space="  ")
    tree.write(path, encoding="utf-8", xml_declaration=True)
