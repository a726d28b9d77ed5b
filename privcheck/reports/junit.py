"""JUnit XML report: one test case per claim and method (and part), so CI systems show verdicts natively.

Mapping (built-in claims expect nothing, so a ``refuted`` finding is a result,
not a CI failure):

- ``error`` → ``<error>`` with the exception line;
- a verdict differing from a user claim's declared ``expect`` → ``<failure>``;
- anything else passes. Every test case carries ``properties`` (verdict,
  expect, claimed, measured, interval, seed, samples, source) and a
  ``system-out`` with the same numbers, so the verdict is visible in the CI UI.

One ``<testsuite>`` per paper inside ``<testsuites>``.
"""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Iterable

from privcheck.claims import VerdictRecord
from privcheck.reports.text import error_message, group_by_paper, interval_text, method_label, short


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def records_to_junit(records: Iterable[VerdictRecord]) -> ET.ElementTree:
    """The JUnit ``ElementTree`` of ``records``."""
    records = list(records)
    root = ET.Element("testsuites", name="privcheck", tests=str(len(records)))
    n_fail = n_err = 0
    total_time = 0.0
    for paper, recs in group_by_paper(records).items():
        suite = ET.SubElement(root, "testsuite", name=f"privcheck.{paper}", tests=str(len(recs)))
        s_fail = s_err = 0
        s_time = 0.0
        for r in recs:
            case = ET.SubElement(suite, "testcase", classname=f"privcheck.{paper}.{r.id}",
                                 name=f"{r.id}[{method_label(r)}]", time=f"{r.seconds:.4f}")
            props = ET.SubElement(case, "properties")
            d = r.to_dict()
            for key, val in (("verdict", r.verdict), ("expect", r.expect), ("source", r.source), ("kind", r.kind),
                             ("method", method_label(r)), ("claimed", short(r.claimed, 200)),
                             ("measured", short(r.measured, 200)), ("interval", interval_text(r)),
                             ("seed", r.seed), ("samples", r.samples)):
                if val not in (None, ""):
                    ET.SubElement(props, "property", name=key, value=_text(val))
            out = [f"verdict: {r.verdict}" + (f" (expected {r.expect})" if r.expect else ""),
                   f"source: {r.source}", f"claimed: {_text(d['claimed'])}", f"measured: {_text(d['measured'])}"]
            if interval_text(r):
                out.append(f"interval: {interval_text(r)}")
            details = dict(d["details"])
            details.pop("traceback", None)
            out.append(f"details: {_text(details)[:4000]}")
            if r.verdict == "error":
                s_err += 1
                err = ET.SubElement(case, "error", message=error_message(r)[:500] or "error", type="error")
                err.text = str(r.details.get("traceback", error_message(r))) if isinstance(r.details, dict) else ""
            elif not r.met_expectation:
                s_fail += 1
                fail = ET.SubElement(case, "failure", type="expectation",
                                     message=f"expected {r.expect}, got {r.verdict}")
                fail.text = "\n".join(out)
            ET.SubElement(case, "system-out").text = "\n".join(out)
            s_time += r.seconds
        suite.set("failures", str(s_fail))
        suite.set("errors", str(s_err))
        suite.set("skipped", "0")
        suite.set("time", f"{s_time:.4f}")
        n_fail += s_fail
        n_err += s_err
        total_time += s_time
    root.set("failures", str(n_fail))
    root.set("errors", str(n_err))
    root.set("time", f"{total_time:.4f}")
    return ET.ElementTree(root)


def write_junit(records: Iterable[VerdictRecord], path: str) -> None:
    """Write the JUnit XML of ``records`` to ``path`` (UTF-8, with an XML declaration)."""
    tree = records_to_junit(records)
    ET.indent(tree, space="  ")
    tree.write(path, encoding="utf-8", xml_declaration=True)
