"""The zoo scorecard: one Markdown table per library from ``zoo.*`` verdict records, plus the findings.

:func:`scorecard_markdown` renders rows "mechanism | params | claimed | true | certified | verdict | s |
draws/s | library calls/s"; :func:`findings_markdown` lists every refuted case with a one-line reproducer
(``privcheck verify 'CLAIM' --seed S``) and the interval behind it. ``privcheck verify 'zoo.*' --markdown``
appends both (privcheck.reports.markdown); ``benchmarks/zoo_scorecard.py`` writes them into README.md.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

from privcheck.catalogue.zoo import PREFIX


def _num(v: Any, fmt: str = ".3g") -> str:
    if v is None:
        return "—"
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isinf(f):
        return "∞" if f > 0 else "−∞"
    return format(f, fmt)


def _field(rec, name: str, default=None):
    return rec.get(name, default) if isinstance(rec, dict) else getattr(rec, name, default)


def zoo_records(records: Sequence) -> list:
    """The records of ``zoo.*`` claims (objects or their JSON dicts)."""
    return [r for r in records if str(_field(r, "id", "")).startswith(PREFIX)]


def _library(rec) -> str:
    det = _field(rec, "details") or {}
    return det.get("library") or str(_field(rec, "id")).split(".")[1]


def _version(rec) -> str:
    det = _field(rec, "details") or {}
    vers = det.get("versions") or {}
    return ", ".join(f"{k} {v}" for k, v in vers.items() if v) or "not installed"


def scorecard_markdown(records: Sequence, heading: str = "##") -> str:
    """One table per library over the cases of the ``zoo.*`` records ("" when there are none)."""
    recs = zoo_records(records)
    if not recs:
        return ""
    by_lib: dict[str, list] = {}
    for r in recs:
        by_lib.setdefault(_library(r), []).append(r)
    out = [f"{heading} Zoo scorecard", "",
           "claimed = the library's documented ε; true = exact ε of the documented probabilities (calculator, "
           "'—' where none); certified = Monte Carlo lower bound / claimed at the stated confidence. "
           "*holds* = no violation detected.", ""]
    for lib, rs in by_lib.items():
        out += [f"{heading}# {lib} ({_version(rs[0])})", "",
                "| mechanism | params | claimed | true | eps_lower | certified | verdict | s | draws/s | lib calls/s |",
                "|---|---|---|---|---|---|---|---|---|---|"]
        for r in rs:
            det = _field(r, "details") or {}
            mech = str(_field(r, "id"))[len(PREFIX) + len(str(_field(r, "id")).split(".")[1]) + 1:]
            cases = det.get("cases") or []
            if not cases:
                out.append(f"| `{mech}` | — | — | — | — | — | {_field(r, 'verdict')} | {_num(_field(r, 'seconds'), '.1f')} "
                           f"| — | — |")
                continue
            for c in cases:
                verdict = c.get("verdict", "")
                if c.get("error"):
                    verdict += f": {str(c['error'])[:60]}"
                if c.get("reproducible") is False:
                    verdict += " (not reproducible)"
                out.append("| " + " | ".join([
                    f"`{mech}`", str(c.get("case", "")).replace("|", "/"), _num(c.get("eps_claimed")),
                    _num(c.get("eps_true")), _num(c.get("eps_lower")), _num(c.get("certified"), ".2f"),
                    verdict.replace("|", "/"), _num(c.get("seconds"), ".1f"), _num(c.get("draws_per_second"), ".0f"),
                    _num(c.get("library_calls_per_second"), ".0f")]) + " |")
        out.append("")
    skipped = [str(_field(r, "id")) for r in recs if (_field(r, "details") or {}).get("skipped")]
    if skipped:
        out += [f"Not run (library missing, `pip install 'privcheck[zoo]'`): {len(skipped)} claims.", ""]
    return "\n".join(out)


def findings_markdown(records: Sequence, heading: str = "##") -> str:
    """Every refuted zoo case with claimed/true/certified, its event and a one-line reproducer."""
    lines = []
    for r in zoo_records(records):
        det = _field(r, "details") or {}
        for c in det.get("cases") or []:
            if c.get("verdict") != "refuted":
                continue
            lines.append(
                f"- `{_field(r, 'id')}` {c.get('case')} ({_version(r)}): claimed {_num(c.get('eps_claimed'))}, "
                f"true (documented) {_num(c.get('eps_true'))}, certified eps >= {_num(c.get('eps_lower'))} "
                f"for inputs {c.get('worst_pair')} on `{str(c.get('event'))[:90]}`"
                + (f" [{c['auto_view']}]" if c.get("auto_view") else "")
                + f". Reproduce: `privcheck verify '{_field(r, 'id')}' --seed {_field(r, 'seed', 0)}"
                + (" --quick" if det.get("quick") else "") + "`")
    if not lines:
        return ""
    return "\n".join([f"{heading} Zoo findings", ""] + lines + [""])
