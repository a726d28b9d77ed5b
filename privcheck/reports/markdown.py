"""Markdown report of a verification run: summary, findings, one table per paper, figures, sources, details.

Figures (PNG) are written beside the report by :func:`privcheck.reports.plots.write_figures`
as ``<stem>_<figure>.png`` and linked relatively, so the report renders on GitHub and in
CI artifact viewers — upload ``<stem>*`` (the report and its figures) together. Formulas
of symbolic checks are shown as ``$$…$$`` LaTeX (rendered by GitHub), claimed and
derived one after the other; details are nested lists, not JSON.
"""

from __future__ import annotations

import os
from typing import Iterable, Sequence

from privcheck.claims import VerdictRecord
from privcheck.reports.plots import FigureSet, write_figures
from privcheck.reports.render import _md, details_markdown, formula_parts, latex
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
)


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _verdict_cell(r: VerdictRecord) -> str:
    v = f"**{r.verdict}**" if r.verdict in ("refuted", "error") else r.verdict
    if r.expect is not None:
        v += f" (expected {r.expect}{'' if r.met_expectation else ' — NOT MET'})"
    return v


def _sides(r: VerdictRecord) -> list[str]:
    parts = formula_parts(r)
    lines: list[str] = []
    if parts:
        for name, verdict, sides in parts:
            if name or len(parts) > 1:
                lines += [f"**{_md(name)}** — {verdict}", ""]
            for label, text in sides:
                tex = latex(text)
                lines += [f"*{label}*", ""] + (["$$", tex, "$$"] if tex else [f"`{text}`"]) + [""]
    else:
        for label, value in (("claimed", r.claimed), ("measured", r.measured)):
            if isinstance(value, (dict, list)):
                lines += [f"*{label}*:", ""] + details_markdown(value, max_lines=60) + [""]
            else:
                lines += [f"*{label}*: `{_cell(full(value))}`", ""]
    if interval_text(r):
        lines += [f"*interval*: {interval_text(r)}", ""]
    return lines


def records_to_markdown(
    records: Sequence[VerdictRecord],
    figures: FigureSet | None = None,
    title: str = "privcheck verification report",
    fail_on: Sequence[str] = (),
    quick: bool | None = None,
) -> str:
    """The Markdown text of a report on ``records`` (figures linked by their relative file names)."""
    records = list(records)
    quick = is_quick(records) if quick is None else quick
    groups = group_by_paper(records)
    lines = [f"# {title}", ""]
    if quick:
        lines += [f"> **{QUICK_NOTE}.** Monte Carlo checks ran with smaller samples.", ""]
    lines += [
        run_summary(records, quick=False) + ".",
        "",
        "Built-in claims expect no verdict: a **refuted** published claim is a finding about the paper, "
        "not a failure of the run"
        + (f"; this run fails on: {', '.join(fail_on)}" if fail_on else "")
        + ". Monte Carlo *holds* means no violation detected.",
        "",
    ]
    lines.append("| paper | verdicts |")
    lines.append("|---|---|")
    for paper, recs in groups.items():
        label = PAPERS[paper].label() if paper in PAPERS else paper
        lines.append(f"| {_cell(label)} | {_cell(summary_line(recs))} |")
    lines.append("")
    found = [r for r in records if r.verdict in FINDING_VERDICTS or r.verdict == "error" or not r.met_expectation]
    if found:
        lines += ["## Findings", ""]
        for r in found:
            lines += [f"### `{r.id}` [{method_label(r)}] — {r.verdict}", "", f"{_md(cited_source(r))}", ""]
            if r.verdict == "error":
                lines += [f"Error: `{_cell(error_message(r))}`", ""]
            else:
                if r.expect is not None and not r.met_expectation:
                    lines += [f"**expected {r.expect}**", ""]
                lines += _sides(r)
            if reason_text(r):
                lines += [f"Reason: {_md(reason_text(r))}", ""]
    for paper, recs in groups.items():
        head = PAPERS[paper].label() if paper in PAPERS else paper
        lines += [
            f"## {head}",
            "",
            "| claim | method | verdict | claimed | measured | interval | s |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in recs:
            lines.append(
                "| "
                + " | ".join(
                    _cell(x)
                    for x in (
                        f"`{r.id}`",
                        method_label(r),
                        _verdict_cell(r),
                        short(r.claimed, 60),
                        short(r.measured, 60),
                        interval_text(r),
                        f"{r.seconds:.2f}",
                    )
                )
                + " |"
            )
        lines.append("")
    if figures and (figures.figures or figures.notes):
        lines += ["## Figures", ""]
        for f in figures.figures:
            lines += [f"### {f.title}", "", f"![{f.title}]({f.filename})", "", f.caption, ""]
        for n in figures.notes:
            lines.append(f"- note: {n}")
        lines.append("")
    from privcheck.catalogue.zoo.scorecard import findings_markdown, scorecard_markdown

    lines += [t for t in (scorecard_markdown(records), findings_markdown(records)) if t]  # zoo.* records only
    cited = papers_for(r.source for r in records)
    if cited:
        lines += ["## Sources", ""]
        lines += [f"- **[{p.key}]** {p.authors}. *{p.title}*. {p.venue}." for p in cited]
        lines.append("")
    notable = [r for r in records if r.verdict != "holds" or not r.met_expectation]
    if notable:
        lines += ["## Details of the checks that did not hold", ""]
        for r in notable:
            lines += [f"<details><summary><code>{r.id}</code> [{method_label(r)}] — {r.verdict}</summary>", ""]
            meta = {"source": cited_source(r), "seed": r.seed, "samples": r.samples, "seconds": r.seconds}
            lines += details_markdown(meta)
            if isinstance(r.details, dict) and r.details:
                lines += ["- **details**:"] + details_markdown(r.details, indent=1)
            lines += ["", "</details>", ""]
    return "\n".join(lines) + "\n"


def write_markdown(
    records: Iterable[VerdictRecord],
    path: str,
    *,
    figures: bool = True,
    fail_on: Sequence[str] = (),
    quick: bool | None = None,
) -> FigureSet:
    """Write the Markdown report to ``path`` and its figures (``<stem>_*.png``) beside it.

    figures: draw the figures the records support (K-slope, Figure 3,
    estimator intervals, refuted comparisons; the ε-against-samples curves are
    HTML-only since they need new audits). Returns the :class:`FigureSet` written.
    """
    records = list(records)
    directory = os.path.dirname(os.path.abspath(path))
    stem = os.path.splitext(os.path.basename(path))[0]
    figs = write_figures(records, directory, prefix=f"{stem}_") if figures else FigureSet()
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(records_to_markdown(records, figs, fail_on=fail_on, quick=quick))
    return figs
