"""HTML report of a verification run: summary per paper, verdict tables, figures, per-record details.

A single self-contained HTML file (inline CSS, no scripts) with the PNG figures
written beside it (:func:`privcheck.reports.plots.write_figures`). Besides the
figures drawn from the records, the report draws the ε lower bound against the
number of samples for a few catalogue mechanisms (:mod:`privcheck.reports.curves`;
about 6–8 s; ``curves=False`` skips it).
"""
from __future__ import annotations

import html
import json
import os
from typing import Iterable, Sequence

from privcheck.claims import VerdictRecord
from privcheck.reports.plots import FigureSet, write_figures
from privcheck.reports.text import (
    error_message,
    group_by_paper,
    interval_text,
    method_label,
    short,
    short_source,
    summary_line,
)

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em;max-width:1200px;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em 0;font-size:0.9em}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f3f3f3} code{font-size:0.95em}
.holds{color:#17692b;font-weight:600}.computed{color:#0b6e8a}.refuted{color:#b00020;font-weight:700}
.inconclusive{color:#a66a00;font-weight:600}.error{color:#8a008a;font-weight:700}
.unmet{background:#ffe3e3} figure{margin:1em 0} figure img{max-width:100%;border:1px solid #ddd}
figcaption{font-size:0.9em;color:#555} pre{background:#f8f8f8;padding:0.6em;overflow-x:auto;font-size:0.8em}
.note{color:#555;font-style:italic}
"""


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def records_to_html(records: Sequence[VerdictRecord], figures: FigureSet | None = None,
                    title: str = "privcheck verification report") -> str:
    """The HTML text of a report on ``records`` (figures referenced by relative file names)."""
    groups = group_by_paper(records)
    out = ["<!DOCTYPE html>", "<html lang='en'><head><meta charset='utf-8'>", f"<title>{_e(title)}</title>",
           f"<style>{_CSS}</style></head><body>", f"<h1>{_e(title)}</h1>",
           f"<p>{len(records)} checks of {len({r.id for r in records})} claims: {_e(summary_line(records))}.</p>",
           "<table><tr><th>paper</th><th>verdicts</th></tr>"]
    for paper, recs in groups.items():
        out.append(f"<tr><td><a href='#paper-{_e(paper)}'>{_e(paper)}</a></td><td>{_e(summary_line(recs))}</td></tr>")
    out.append("</table>")
    for paper, recs in groups.items():
        out.append(f"<h2 id='paper-{_e(paper)}'>{_e(paper)}</h2>")
        out.append("<table><tr><th>id</th><th>source</th><th>method</th><th>verdict</th><th>claimed</th>"
                   "<th>measured</th><th>interval</th><th>s</th></tr>")
        for r in recs:
            unmet = r.expect is not None and not r.met_expectation
            verdict = f"<span class='{_e(r.verdict)}'>{_e(r.verdict)}</span>"
            if r.expect is not None:
                verdict += f" <small>(expected {_e(r.expect)}{'' if r.met_expectation else ' — not met'})</small>"
            out.append(
                f"<tr{' class=unmet' if unmet else ''}><td><a href='#{_e(_anchor(r))}'><code>{_e(r.id)}</code></a></td>"
                f"<td>{_e(short_source(r))}</td><td>{_e(method_label(r))}</td><td>{verdict}</td>"
                f"<td>{_e(short(r.claimed, 60))}</td><td>{_e(short(r.measured, 60))}</td>"
                f"<td>{_e(interval_text(r))}</td><td>{r.seconds:.2f}</td></tr>")
        out.append("</table>")
    if figures and (figures.figures or figures.notes):
        out.append("<h2>Figures</h2>")
        for f in figures.figures:
            out.append(f"<figure><img src='{_e(f.filename)}' alt='{_e(f.title)}'>"
                       f"<figcaption><b>{_e(f.title)}.</b> {_e(f.caption)}</figcaption></figure>")
        for n in figures.notes:
            out.append(f"<p class='note'>Note: {_e(n)}</p>")
    out.append("<h2>Records</h2>")
    for r in records:
        d = r.to_dict()
        d.get("details", {}).pop("traceback", None) if r.verdict != "error" else None
        text = json.dumps(d, indent=1, ensure_ascii=False)
        if len(text) > 20000:
            text = text[:20000] + "\n… (truncated; see the JSON report)"
        head = f"<code>{_e(r.id)}</code> [{_e(method_label(r))}] — <span class='{_e(r.verdict)}'>{_e(r.verdict)}</span>"
        if r.verdict == "error":
            head += f": {_e(error_message(r))}"
        out.append(f"<details id='{_e(_anchor(r))}'><summary>{head}</summary><pre>{_e(text)}</pre></details>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _anchor(r: VerdictRecord) -> str:
    return f"rec-{r.id}-{method_label(r)}".replace(":", "-")


def write_html(records: Iterable[VerdictRecord], path: str, *, curves: bool | Sequence = True,
               figures: bool = True) -> FigureSet:
    """Write the HTML report to ``path`` and its PNG figures beside it.

    curves: True draws the ε-against-samples figure for
    :data:`privcheck.reports.curves.DEFAULT_CURVES` (new audits, about 6–8 s),
    a list of :class:`~privcheck.reports.curves.EpsCurve` draws those, False
    skips it. figures: False writes the tables only. Returns the figures written.
    """
    records = list(records)
    directory = os.path.dirname(os.path.abspath(path))
    stem = os.path.splitext(os.path.basename(path))[0]
    figs = FigureSet()
    if figures:
        curve_list = None
        if curves is True:
            from privcheck.reports.curves import default_curves

            seed = records[0].seed if records else 0
            curve_list = default_curves(seed=seed)
        elif curves:
            curve_list = list(curves)
        figs = write_figures(records, directory, curves=curve_list, prefix=f"{stem}_")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(records_to_html(records, figs))
    return figs
