"""HTML report of a verification run: one self-contained file (inline CSS, figures as data URIs, no script).

Sections: the run summary (and a *quick run* banner for ``--quick``), a verdict
count per paper, the findings (every refuted check with claimed and measured
side by side, formulas rendered as MathML), one table per paper, the figures,
the papers cited (authors, title, venue) and each record's details as tables.
Nothing is loaded from the network: the file can be mailed or archived as is.

Besides the figures drawn from the records, the report draws the ε lower bound
against the number of samples for the catalogue mechanisms whose claims it
contains (:mod:`privcheck.reports.curves`; a few seconds; ``curves=False`` skips it).
"""

from __future__ import annotations

import base64
import html
import os
import tempfile
from typing import Iterable, Sequence

from privcheck.claims import VerdictRecord
from privcheck.reports.plots import FigureSet, _record_anchor, write_figures
from privcheck.reports.render import details_html, formula_parts, mathml
from privcheck.reports.sources import PAPERS, papers_for
from privcheck.reports.text import (
    FINDING_VERDICTS,
    QUICK_NOTE,
    cited_source,
    error_message,
    full,
    group_by_paper,
    interval_text,
    is_quick,
    method_label,
    reason_text,
    run_summary,
    short,
    summary_line,
    verdict_counts,
)

_CSS = """
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;padding:1.2em;max-width:1280px;
 color:#1d1d1f;line-height:1.45;font-size:15px}
h1{font-size:1.6em;margin:0.2em 0 0.4em} h2{font-size:1.3em;margin-top:1.8em;border-bottom:1px solid #ddd}
h3{font-size:1.05em;margin:0.2em 0}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:0.4em 0 1em 0;font-size:0.9em}
th,td{border:1px solid #d0d0d0;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f2f3f5;font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
code{font-size:0.92em;overflow-wrap:break-word}
td code.id,h3 code.id{overflow-wrap:normal;word-break:normal}
.verdict{font-weight:700;color:#1f4e79;white-space:nowrap}
.v-holds{color:#17692b}.v-refuted{color:#b00020}.v-inconclusive{color:#8a5a00}.v-error{color:#8a008a}
.v-computed{color:#1f4e79}
tr.unmet{background:#ffe3e3}
.banner{padding:0.6em 0.9em;border-radius:6px;margin:0.6em 0}
.quick{background:#fff4d6;border:1px solid #e6c200}
.note{color:#555;font-size:0.92em}
.reason{color:#5a3d00;font-size:0.92em;margin:0.3em 0}
.finding{border:1px solid #e3b5bd;border-left:5px solid #b00020;border-radius:6px;padding:0.6em 0.9em;margin:0.8em 0}
.sides{display:flex;flex-wrap:wrap;gap:0.8em}
.side{flex:1 1 440px;min-width:0;background:#fafafa;border:1px solid #e4e4e4;border-radius:5px;padding:0.4em 0.7em}
.side .label{font-size:0.8em;text-transform:uppercase;letter-spacing:0.04em;color:#666}
.side .value{overflow-x:auto;overflow-wrap:break-word}
.part{margin:0.5em 0 0.2em}
details.src{border:none;padding:0;margin:0}
math{font-size:1.1em}
figure{margin:1em 0} figure img{max-width:100%;height:auto;border:1px solid #ddd}
figcaption{font-size:0.9em;color:#444}
details{margin:0.3em 0;border:1px solid #e4e4e4;border-radius:5px;padding:0.3em 0.6em}
summary{cursor:pointer}
table.kv,table.grid{font-size:0.85em;margin:0.2em 0}
table.kv th{background:#f7f7f9;white-space:nowrap}
table.kv td,table.grid td{min-width:3em} td.nw{white-space:nowrap}
.list{overflow-wrap:break-word}
table.records td.claim{min-width:11em}
table.records td.values{min-width:12em;max-width:28em;overflow-wrap:break-word}
pre{background:#f6f6f6;padding:0.6em;overflow-x:auto;font-size:0.8em}
ol.papers li{margin-bottom:0.4em}
@media (max-width:720px){
 body{padding:0.6em;font-size:14px} th,td{padding:2px 4px}
 table.counts th.v{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;vertical-align:bottom}
 table.records,table.records tbody,table.records tr,table.records td{display:block;width:100%;max-width:none}
 table.records thead{display:none}
 table.records tr{border:1px solid #d0d0d0;border-radius:5px;margin:0 0 0.6em;padding:0.3em 0.5em}
 table.records td{border:none;padding:1px 0;min-width:0;text-align:left} table.records td:empty{display:none}
 table.records td[data-label]::before{content:attr(data-label) ": ";font-weight:600;color:#555}
 table.kv,table.kv>tbody,table.kv>tbody>tr,table.kv>tbody>tr>th,table.kv>tbody>tr>td{display:block;width:auto}
 table.kv{border:none} table.kv>tbody>tr>th{border:none;background:none;padding:2px 0 0;white-space:normal}
 table.kv>tbody>tr>td{border:none;border-left:2px solid #e0e0e0;padding:0 0 2px 6px;min-width:0}
 .fig{overflow-x:auto} .fig img{max-width:none;width:680px}}
"""


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _verdict(v: str) -> str:
    cls = "".join(ch if ch.isalnum() else "-" for ch in v)
    return f"<span class='verdict v-{cls}'>{_e(v)}</span>"


def _where(r: VerdictRecord) -> str:
    """The place in the paper (``Alg. 3, Lemma 2``): the section heading already names the paper."""
    from privcheck.reports.sources import paper_of

    return (r.source or "").partition(" ")[2] if paper_of(r.source) else cited_source(r)


def _id(claim_id: str) -> str:
    """A claim id in ``<code>`` that may wrap only after its dots (narrow screens)."""
    return (
        "<code class='id'>"
        + "<wbr>".join(_e(p) + "." for p in claim_id.split(".")[:-1])
        + (("<wbr>" if "." in claim_id else "") + _e(claim_id.split(".")[-1])).lstrip()
        + "</code>"
    )


def _anchor(r: VerdictRecord) -> str:
    return _record_anchor(r)


def _value_html(value, formula: str | None = None) -> str:
    if formula:
        m = mathml(formula)
        if not m:
            return f"<code>{_e(formula)}</code>"
        if len(formula) <= 12:
            return m
        if m:
            return (
                f"{m}<details class='src'><summary class='note'>as text</summary><code>{_e(formula)}</code></details>"
            )
    if isinstance(value, (dict, list)):
        return details_html(value)
    return f"<code>{_e(full(value))}</code>" if value is not None else "—"


def _side_boxes(cells: list[tuple[str, str]]) -> str:
    return (
        "<div class='sides'>"
        + "".join(
            f"<div class='side'><div class='label'>{_e(k)}</div><div class='value'>{v}</div></div>" for k, v in cells
        )
        + "</div>"
    )


def _sides(r: VerdictRecord) -> str:
    """Claimed and measured side by side; for symbolic checks the printed and derived formulas (MathML)."""
    parts = formula_parts(r)
    out = ""
    if parts:
        for name, verdict, sides in parts:
            if name or len(parts) > 1:
                out += f"<p class='part'>{_verdict(verdict) if verdict else ''} {_e(name)}</p>"
            out += _side_boxes([(label, _value_html(None, text)) for label, text in sides])
    else:
        out = _side_boxes([("claimed", _value_html(r.claimed)), ("measured", _value_html(r.measured))])
    iv = interval_text(r)
    if iv:
        out += f"<p class='note'>interval {_e(iv)}</p>"
    return out


_COLUMNS = ("claim", "method", "verdict", "claimed", "measured", "interval", "s")


def _paper_table(recs: Sequence[VerdictRecord]) -> str:
    """One paper's records as a table; below 720 px wide each row is a card of labelled lines (no cut columns)."""
    rows = []
    for r in recs:
        unmet = r.expect is not None and not r.met_expectation
        verdict = _verdict(r.verdict)
        if r.expect is not None:
            verdict += f" <small>(expected {_e(r.expect)}{'' if r.met_expectation else ' — not met'})</small>"
        reason = reason_text(r)
        measured = _e(short(r.measured, 80)) + (f"<div class='reason'>{_e(reason)}</div>" if reason else "")
        cells = (
            ("claim", f"<a href='#{_e(_anchor(r))}'>{_id(r.id)}</a><div class='note'>{_e(_where(r))}</div>"),
            ("method", _e(method_label(r))),
            ("verdict", verdict),
            ("claimed", _e(short(r.claimed, 80))),
            ("measured", measured),
            ("interval", _e(interval_text(r))),
            ("s", f"{r.seconds:.2f}"),
        )
        tds = "".join(
            f"<td class='{_CELL_CLASS[k]}'>{v}</td>"
            if k == "claim"
            else f"<td class='{_CELL_CLASS[k]}' data-label='{k}'>{v}</td>"
            for k, v in cells
        )
        rows.append(f"<tr{' class=unmet' if unmet else ''}>{tds}</tr>")
    head = "".join(f"<th>{c}</th>" for c in _COLUMNS)
    return f"<div class='scroll'><table class='records'><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"


_CELL_CLASS = {
    "claim": "claim",
    "method": "method",
    "verdict": "verdict-cell",
    "claimed": "values",
    "measured": "values",
    "interval": "values",
    "s": "num",
}


def records_to_html(
    records: Sequence[VerdictRecord],
    figures: FigureSet | None = None,
    title: str = "privcheck verification report",
    images: dict[str, str] | None = None,
    fail_on: Sequence[str] = (),
    quick: bool | None = None,
) -> str:
    """The HTML text of a report on ``records``.

    images: figure file name → ``data:`` URI (what :func:`write_html` passes,
    so the file is self-contained); without it figures are referenced by
    their relative file names. fail_on: verdicts the run treats as failures
    (stated in the header). quick: label the report as a ``--quick`` run
    (detected from the records when None).
    """
    records = list(records)
    quick = is_quick(records) if quick is None else quick
    groups = group_by_paper(records)
    names = [v for v, n in verdict_counts(records).items() if n]
    out = [
        "<!DOCTYPE html>",
        "<html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{_e(title)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f"<p>{_e(run_summary(records, quick=False))}.</p>",
    ]
    if quick:
        out.append(
            f"<p class='banner quick'><b>{_e(QUICK_NOTE)}.</b> Monte Carlo checks ran with smaller "
            "samples: a refutation still holds at the stated confidence, but fewer violations are detected.</p>"
        )
    out.append(
        "<p class='note'>Built-in claims expect no verdict: a <b>refuted</b> published claim is a finding "
        "about the paper, not a failure of the run"
        + (f"; this run fails on: {_e(', '.join(fail_on))}" if fail_on else "")
        + ". Monte Carlo <b>holds</b> means no violation detected.</p>"
    )
    found = [r for r in records if r.verdict in FINDING_VERDICTS or r.verdict == "error" or not r.met_expectation]
    cited = papers_for(r.source for r in records)
    nav = [("findings", f"Findings ({len(found)})")] if found else []
    nav += [("figures", "Figures")] if figures and figures.figures else []
    nav += [("sources", "Sources")] if cited else []
    nav += [("records", "Records")]
    out.append("<nav class='note'>" + " · ".join(f"<a href='#{a}'>{_e(t)}</a>" for a, t in nav) + "</nav>")
    out.append(
        "<div class='scroll'><table class='counts'><tr><th>paper</th>"
        + "".join(f"<th class='v'>{_e(v)}</th>" for v in names)
        + "</tr>"
    )
    for paper, recs in groups.items():
        counts = verdict_counts(recs)
        label = PAPERS[paper].label() if paper in PAPERS else paper
        out.append(
            f"<tr><td><a href='#paper-{_e(paper)}'>{_e(label)}</a></td>"
            + "".join(f"<td class='num'>{counts.get(v, 0) or ''}</td>" for v in names)
            + "</tr>"
        )
    out.append("</table></div>")
    if found:
        out.append("<h2 id='findings'>Findings</h2>")
        for r in found:
            out.append(
                f"<div class='finding'><h3>{_verdict(r.verdict)} <a href='#{_e(_anchor(r))}'>"
                f"<code>{_e(r.id)}</code></a> [{_e(method_label(r))}]</h3>"
                f"<div class='note'>{_e(cited_source(r))}</div>"
            )
            figs_of = [f for f in (figures.figures if figures else []) if f.record == _anchor(r)]
            if figs_of:
                out.append(
                    "<div class='note'>"
                    + ", ".join(f"<a href='#fig-{_e(f.filename)}'>figure: {_e(f.title)}</a>" for f in figs_of)
                    + "</div>"
                )
            if r.verdict == "error":
                out.append(f"<p><code>{_e(error_message(r))}</code></p>")
            else:
                if r.expect is not None and not r.met_expectation:
                    out.append(f"<p><b>expected {_e(r.expect)}</b></p>")
                out.append(_sides(r))
            if reason_text(r):
                out.append(f"<p class='reason'>reason: {_e(reason_text(r))}</p>")
            out.append("</div>")
    for paper, recs in groups.items():
        head = PAPERS[paper].label() if paper in PAPERS else paper
        out.append(f"<h2 id='paper-{_e(paper)}'>{_e(head)} <small class='note'>{_e(summary_line(recs))}</small></h2>")
        out.append(_paper_table(recs))
    if figures and (figures.figures or figures.notes):
        out.append("<h2 id='figures'>Figures</h2>")
        for f in figures.figures:
            src = (images or {}).get(f.filename, f.filename)
            out.append(
                f"<figure id='fig-{_e(f.filename)}'><div class='fig'><img src='{_e(src)}' alt='{_e(f.title)}'>"
                f"</div><figcaption><b>{_e(f.title)}.</b> {_e(f.caption)}</figcaption></figure>"
            )
        for n in figures.notes:
            out.append(f"<p class='note'>Note: {_e(n)}</p>")
    if cited:
        out.append("<h2 id='sources'>Sources</h2><ol class='papers'>")
        for p in cited:
            out.append(f"<li><b>[{_e(p.key)}]</b> {_e(p.authors)}. <i>{_e(p.title)}</i>. {_e(p.venue)}.</li>")
        out.append("</ol>")
    out.append("<h2 id='records'>Records</h2>")
    for r in records:
        head = f"{_verdict(r.verdict)} <code>{_e(r.id)}</code> [{_e(method_label(r))}]"
        if r.verdict == "error":
            head += f": {_e(error_message(r))}"
        meta = {"source": cited_source(r), "seed": r.seed, "samples": r.samples, "seconds": r.seconds}
        if r.expect is not None:
            meta["expect"] = r.expect
        body = [details_html(meta), _sides(r)]
        if isinstance(r.details, dict) and r.details:
            body.append("<h3>details</h3>" + details_html(r.details))
            if r.verdict == "error" and r.details.get("traceback"):
                body.append(f"<pre>{_e(r.details['traceback'])}</pre>")
        out.append(
            f"<details id='{_e(_anchor(r))}'><summary>{head}</summary>"
            f"<div class='scroll'>{''.join(body)}</div></details>"
        )
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write_html(
    records: Iterable[VerdictRecord],
    path: str,
    *,
    curves: bool | Sequence = True,
    figures: bool = True,
    fail_on: Sequence[str] = (),
    quick: bool | None = None,
) -> FigureSet:
    """Write the self-contained HTML report to ``path`` (figures embedded as ``data:`` URIs; nothing beside it).

    curves: True draws the ε-against-samples figure for the catalogue
    mechanisms whose claims are among ``records``
    (:func:`privcheck.reports.curves.curves_for`), a list of
    :class:`~privcheck.reports.curves.EpsCurve` draws those, False skips it
    (``--quick`` runs skip the largest sample size). figures: False writes
    the tables only. Returns the figures drawn.
    """
    records = list(records)
    figs = FigureSet()
    images: dict[str, str] = {}
    if figures:
        curve_list = None
        if curves is True:
            from privcheck.reports.curves import DEFAULT_SIZES, curves_for

            seed = records[0].seed if records else 0
            quick_run = is_quick(records) if quick is None else quick
            sizes = DEFAULT_SIZES[:-1] if quick_run else DEFAULT_SIZES  # --quick: skip the largest audits
            curve_list = curves_for({r.id for r in records}, sizes=sizes, seed=seed) or None
        elif curves:
            curve_list = list(curves)
        with tempfile.TemporaryDirectory(prefix="privcheck-figs-") as tmp:
            figs = write_figures(records, tmp, curves=curve_list)
            for f in figs.figures:
                with open(os.path.join(tmp, f.filename), "rb") as fh:
                    images[f.filename] = "data:image/png;base64," + base64.b64encode(fh.read()).decode("ascii")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(records_to_html(records, figs, images=images, fail_on=fail_on, quick=quick))
    return figs
