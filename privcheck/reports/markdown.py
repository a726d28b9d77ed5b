"""Markdown report of a verification run: summary per paper, one table per paper, figures, details.

Figures (PNG) are written beside the report by :func:`privcheck.reports.plots.write_figures`
and linked relatively, so the report renders on GitHub and in CI artifact viewers.
"""
from __future__ import annotations

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


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _verdict_cell(r: VerdictRecord) -> str:
    v = f"**{r.verdict}**" if r.verdict in ("refuted", "error") else r.verdict
    if r.expect is not None:
        v += f" (expected {r.expect}{'' if r.met_expectation else ' — NOT MET'})"
    return v


def records_to_markdown(records: Sequence[VerdictRecord], figures: FigureSet | None = None,
                        title: str = "privcheck verification report") -> str:
    """The Markdown text of a report on ``records`` (figures linked by their relative file names)."""
    groups = group_by_paper(records)
    lines = [f"# {title}", ""]
    lines.append(f"{len(records)} checks of {len({r.id for r in records})} claims: {summary_line(records)}.")
    lines.append("")
    lines.append("| paper | verdicts |")
    lines.append("|---|---|")
    for paper, recs in groups.items():
        lines.append(f"| {_cell(paper)} | {_cell(summary_line(recs))} |")
    lines.append("")
    for paper, recs in groups.items():
        lines += [f"## {paper}", "", "| id | source | method | verdict | claimed | measured | interval | s |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in recs:
            lines.append("| " + " | ".join(_cell(x) for x in (
                f"`{r.id}`", short_source(r), method_label(r), _verdict_cell(r), short(r.claimed, 60),
                short(r.measured, 60), interval_text(r), f"{r.seconds:.2f}")) + " |")
        lines.append("")
    if figures and (figures.figures or figures.notes):
        lines += ["## Figures", ""]
        for f in figures.figures:
            lines += [f"### {f.title}", "", f"![{f.title}]({f.filename})", "", f.caption, ""]
        for n in figures.notes:
            lines.append(f"- note: {n}")
        lines.append("")
    notable = [r for r in records if r.verdict in ("refuted", "error", "inconclusive") or not r.met_expectation]
    if notable:
        lines += ["## Details of refuted, inconclusive and failed checks", ""]
        for r in notable:
            lines.append(f"### `{r.id}` [{method_label(r)}] — {r.verdict}")
            lines.append("")
            if r.verdict == "error":
                lines += [f"Error: `{_cell(error_message(r))}`", ""]
            d = {k: v for k, v in r.to_dict().items() if k in ("claimed", "measured", "details", "seed", "samples")}
            d.get("details", {}).pop("traceback", None)
            text = json.dumps(d, indent=1, ensure_ascii=False)
            if len(text) > 6000:
                text = text[:6000] + "\n… (truncated; see the JSON report)"
            lines += ["<details><summary>record</summary>", "", "```json", text, "```", "", "</details>", ""]
    return "\n".join(lines) + "\n"


def write_markdown(records: Iterable[VerdictRecord], path: str, *, figures: bool = True) -> FigureSet:
    """Write the Markdown report to ``path`` and its figures (PNG) beside it.

    figures: draw the figures the records support (K-slope, Figure 3,
    estimator intervals; the ε-against-samples curves are HTML-only since they
    need new audits). Returns the :class:`FigureSet` written.
    """
    records = list(records)
    directory = os.path.dirname(os.path.abspath(path))
    stem = os.path.splitext(os.path.basename(path))[0]
    figs = write_figures(records, directory, prefix=f"{stem}_") if figures else FigureSet()
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(records_to_markdown(records, figs))
    return figs
