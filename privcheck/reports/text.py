"""Terminal output and JSON of verdict records, and the formatting shared by every report.

The terminal layout follows pytest and ruff (:func:`print_report`):

- one line per check that always holds the verdict, the full claim id and
  the method (``refuted  fedsel.pe.ldp [exact]  0.03 s``) and is never
  wrapped, so ``grep fedsel.pe.ldp`` on a CI log finds it at any width; the
  claimed and measured values follow on the same line when they fit, else on
  a second, indented line (``-v`` prints them in full with every number of
  the details);
- a *findings* block with claimed against measured, in full, for every
  refuted check; errors and unmet expectations;
- one summary line (``-q`` prints only that).

:func:`check_lines` is also what the CLI prints per finished check in CI logs
(no terminal, no progress bar). Verdicts are rendered generically: any
verdict string (``computed`` of calculator checks, say) is counted and shown,
with a default colour.
"""

from __future__ import annotations

import math
import re
import sys
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from privcheck.base.numtext import as_float, fmt_confidence

if TYPE_CHECKING:  # privcheck.claims loads where a record is built or the verdicts listed (start-up)
    from privcheck.claims import VerdictRecord

_STYLE = {
    "holds": "green",
    "refuted": "bold red",
    "inconclusive": "yellow",
    "error": "bold magenta",
    "computed": "cyan",
}
_DEFAULT_STYLE = "cyan"
_PAPER_FILE = re.compile(r"^(\d{3})_[0-9a-f]+\.txt$")
#: verdicts that are listed in the findings block (claimed against measured in full)
FINDING_VERDICTS: tuple[str, ...] = ("refuted",)


# --------------------------------------------------------------------------- formatting helpers
def fmt_number(x: Any, digits: int = 4) -> str:
    """A number with ``digits`` significant digits (``inf``/``nan`` spelled out); other values as str."""
    if isinstance(x, bool) or x is None:
        return "" if x is None else str(x)
    if isinstance(x, (int,)) and abs(x) < 10**7:
        return str(x)
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isnan(f) or math.isinf(f):
        return str(f)
    return f"{f:.{digits}g}"


def short(value: Any, width: int = 40) -> str:
    """A compact one-line rendering of a claimed/measured value, at most ``width`` characters.

    Numbers get 4 significant digits; a dict (or list) whose values are all
    numbers and which has more than two entries is summarised as
    ``lo…hi (n)`` (its range and size); other dicts as ``k=v, …`` (or
    ``label: v; …`` when the keys are case labels containing ``=``).
    """
    if value is None:
        return ""
    f = as_float(value)
    if f is not None:
        text = fmt_number(value)
    elif isinstance(value, dict):
        nums = [as_float(v) for v in value.values()]
        if len(value) > 2 and all(n is not None for n in nums):
            text = _range_text(nums)
        else:
            # keys that are case labels ("d=5, k=2") read better as "label: value"
            text = (
                "; ".join(f"{k}: {short(v, width)}" for k, v in value.items())
                if any("=" in str(k) for k in value)
                else ", ".join(f"{k}={short(v, width)}" for k, v in value.items())
            )
    elif isinstance(value, (list, tuple)):
        nums = [as_float(v) for v in value]
        if len(value) > 3 and all(n is not None for n in nums):
            text = _range_text(nums)
        else:
            text = "[" + ", ".join(short(v, width) for v in value) + "]"
    else:
        text = " ".join(str(value).split())
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def full(value: Any, digits: int = 10) -> str:
    """Every number of a claimed/measured value on one line (``-v`` and the findings block).

    Numbers keep ``digits`` significant digits; dicts print as ``k: v; …``,
    lists as ``[a, b, …]``; nothing is summarised or cut.
    """
    if value is None:
        return "—"
    if as_float(value) is not None:
        return fmt_number(value, digits)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {full(v, digits)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(full(v, digits) for v in value) + "]"
    return " ".join(str(value).split())


def _range_text(nums: list[float]) -> str:
    lo, hi = min(nums), max(nums)
    if lo == hi:
        return f"{fmt_number(lo)} (×{len(nums)})"
    return f"{fmt_number(lo)}…{fmt_number(hi)} ({len(nums)})"


def interval_text(record: VerdictRecord) -> str:
    """``[lo, hi]`` from ``details["interval"]`` (with the confidence when stated), else ``""``."""
    iv = record.details.get("interval") if isinstance(record.details, dict) else None
    if not isinstance(iv, (list, tuple)) or len(iv) != 2:
        return ""
    text = f"[{fmt_number(iv[0])}, {fmt_number(iv[1])}]"
    c = as_float(record.details.get("confidence"))
    if c is not None and 0 < c < 1:
        text += f" at {fmt_confidence(c)}"
    return text


def paper_label(paper: str) -> str:
    """``000`` for ``000_55a5a0ab95d522af.txt``; other paper names unchanged."""
    m = _PAPER_FILE.match(paper or "")
    return m.group(1) if m else (paper or "?")


def short_source(record: VerdictRecord) -> str:
    """The source with the paper file shortened: ``000 Alg. 3, Lemma 2``."""
    src = record.source or ""
    head, _, rest = src.partition(" ")
    return f"{paper_label(head)} {rest}".strip()


def cited_source(record: VerdictRecord) -> str:
    """The source with the paper cited by name: ``[000] FedSel (Liu et al.) Alg. 3, Lemma 2``."""
    from privcheck.reports.sources import cite_source

    return cite_source(record.source or "")


def method_label(record: VerdictRecord) -> str:
    """``mc`` or ``mc:ldp`` when the check has a part label."""
    return f"{record.method}:{record.part}" if record.part else record.method


def group_by_paper(records: Iterable[VerdictRecord]) -> dict[str, list[VerdictRecord]]:
    """Records grouped by paper label, in first-seen order."""
    out: dict[str, list[VerdictRecord]] = {}
    for r in records:
        out.setdefault(paper_label(r.paper), []).append(r)
    return out


def verdict_names(records: Iterable[VerdictRecord]) -> list[str]:
    """The four standard verdicts, then any other verdict string seen (``computed`` …), in first-seen order."""
    from privcheck.claims import VERDICTS

    names = list(VERDICTS)
    for r in records:
        if r.verdict not in names:
            names.append(r.verdict)
    return names


def verdict_style(verdict: str) -> str:
    """The terminal style of a verdict (a default colour for verdicts this module does not know)."""
    return _STYLE.get(verdict, _DEFAULT_STYLE)


def verdict_counts(records: Iterable[VerdictRecord]) -> dict[str, int]:
    """Number of records per verdict: the four standard verdicts (zeros included) and any other seen."""
    recs = list(records)
    return {v: sum(r.verdict == v for r in recs) for v in verdict_names(recs)}


def summary_line(records: Sequence[VerdictRecord]) -> str:
    """``12 holds, 1 refuted`` (+ ``; expectations: …``) for a group of records."""
    counts = verdict_counts(records)
    text = ", ".join(f"{n} {v}" for v, n in counts.items() if n) or "no checks"
    expected = [r for r in records if r.expect is not None]
    if expected:
        unmet = sum(not r.met_expectation for r in expected)
        text += f"; expectations: {len(expected) - unmet} met, {unmet} not met"
    return text


def is_quick(records: Iterable[VerdictRecord]) -> bool:
    """True when the records come from a ``--quick`` run (reduced Monte Carlo power)."""
    return any(isinstance(r.details, dict) and r.details.get("quick") for r in records)


QUICK_NOTE = "quick run (--quick): reduced Monte Carlo power; verdicts are labelled quick"


def error_message(record: VerdictRecord) -> str:
    """The one-line error of an ``error`` record (empty otherwise)."""
    if record.verdict != "error" or not isinstance(record.details, dict):
        return ""
    return " ".join(str(record.details.get("error", "")).split())


def not_run_reason(record: VerdictRecord) -> str | None:
    """Why a check was not run (``details["skipped"] is True``, e.g. a peer library not installed), else None.

    Only an ``inconclusive`` record can be "not run": a check with a verdict (holds, refuted, computed,
    error) ran, even when its details list skipped sub-cases (``details["skipped"]`` as a list).
    """
    d = record.details if isinstance(record.details, dict) else {}
    if record.verdict == "inconclusive" and d.get("skipped") is True:
        return str(d.get("reason") or "no reason recorded")
    return None


def reason_text(record: VerdictRecord) -> str:
    """The one-line reason shown beside an inconclusive (or not run) check at every verbosity; '' if none."""
    skipped = not_run_reason(record)
    if skipped is not None:
        return f"skipped: {skipped}"
    d = record.details if isinstance(record.details, dict) else {}
    if record.verdict == "inconclusive" and isinstance(d.get("reason"), str) and d["reason"]:
        return " ".join(d["reason"].split())
    if record.verdict == "inconclusive":
        return _formula_reason(d)
    if record.verdict == "refuted" and d.get("quick"):
        from privcheck.claims import RANDOM_METHODS

        if record.method in RANDOM_METHODS:
            return quick_refutation_note(record)
    return ""


def _formula_reason(details: dict) -> str:
    """Why a formula check is inconclusive: the numeric fallback's note and its evidence (of the first
    undecided part of a multi-part check); '' when the details say nothing."""
    parts = details.get("parts") if isinstance(details.get("parts"), list) else [details]
    for part in parts:
        num = part.get("numeric") if isinstance(part, dict) else None
        if isinstance(num, dict) and num.get("note"):
            name = f"{part['name']}: " if len(parts) > 1 and part.get("name") else ""
            evidence = f"{num['points']} points" if num.get("points") is not None else ""
            if num.get("max_abs_gap") is not None:
                evidence += f", largest |derived − printed| {num['max_abs_gap']}"
            return f"{name}{num['note']}" + (f" ({evidence})" if evidence else "")
    return ""


def quick_refutation_note(record: VerdictRecord) -> str:
    """Why a ``--quick`` Monte Carlo refutation needs confirming, in one line: the check's reason, its
    smallest multiplicity-adjusted p-value, the reduced size it ran at, and how to confirm it.

    A Monte Carlo refutation at family-wise level α is a false alarm in at most α of the runs of a true
    claim; a quick run has less power, not a larger error rate, but one seed at reduced size is what a
    user types first, so the line says how to confirm it: another ``--seed`` (fresh draws) or the full
    size (no ``--quick``).
    """
    d = record.details if isinstance(record.details, dict) else {}
    parts = []
    if isinstance(d.get("reason"), str) and d["reason"]:
        parts.append(" ".join(d["reason"].split()))
    adjusted = d.get("adjusted_p")
    if isinstance(adjusted, dict) and adjusted:
        name, p = min(adjusted.items(), key=lambda kv: float(kv[1]))
        p_text = f"{float(p):.3g}" if float(p) > 0 else "< 1e-300"
        parts.append(f"smallest adjusted p = {p_text} ({name})")
    size = d.get("quick_size")
    if isinstance(size, dict) and size.get("full"):
        wider = math.sqrt(size["full"] / max(1, size["used"]))
        parts.append(
            f"quick run: {size['used']:,} of {size['full']:,} draws (reduced power: intervals {wider:.1f}× wider)"
        )
    else:
        parts.append("quick run (reduced power)")
    run = d.get("run_confidence")
    alpha = 1.0 - float(run["family_wise"]) if isinstance(run, dict) and "family_wise" in run else None
    level = f"{alpha:.0%} " if alpha is not None else ""
    parts.append(
        f"a true claim is refuted by chance in up to {level}of runs: confirm with another --seed or without --quick"
    )
    return "; ".join(parts)


def verdict_line(record: VerdictRecord) -> str:
    """One record as one line of text: verdict, id [method], an unmet expectation, claimed → measured, the
    interval, and the reason or the error (what a failing pytest item or a CI log shows)."""
    head = f"{record.verdict} {record.id} [{method_label(record)}]"
    if record.expect is not None and not record.met_expectation:
        head += f", expected {record.expect}"
    if record.verdict == "error":
        return f"{head}: {error_message(record) or 'no error message recorded'}"
    c, m = short(record.claimed, 120), short(record.measured, 120)
    values = " → ".join(x for x in (c and f"claimed {c}", m and f"measured {m}") if x)
    iv = interval_text(record)
    if iv:
        values = f"{values} {iv}" if values else iv
    line = f"{head}: {values}" if values else head
    ce = record.details.get("counterexample") if isinstance(record.details, dict) else None
    if isinstance(ce, dict):  # a formula check's point where the two sides differ
        line += f"; counterexample {ce.get('point')}: derived {ce.get('derived')} vs printed {ce.get('printed')}"
    reason = reason_text(record)
    return f"{line}; {reason}" if reason else line


def record_key(record: VerdictRecord) -> str:
    """``id[method:part]``, the unique name of a record in a run."""
    return f"{record.id}[{method_label(record)}]"


def flat_numbers(obj: Any, prefix: str = "", depth: int = 0) -> list[tuple[str, str]]:
    """(dotted key, value) pairs for every scalar in a details dict (``-v``); long lists are kept whole."""
    out: list[tuple[str, str]] = []
    if depth > 6:
        return [(prefix, full(obj))]
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "traceback":
                continue
            out += flat_numbers(v, f"{prefix}.{k}" if prefix else str(k), depth + 1)
    elif isinstance(obj, (list, tuple)) and any(isinstance(v, (dict, list, tuple)) for v in obj) and len(obj) <= 50:
        for i, v in enumerate(obj):
            out += flat_numbers(v, f"{prefix}[{i}]", depth + 1)
    else:
        out.append((prefix, full(obj)))
    return out


# --------------------------------------------------------------------------- terminal lines
def _verdict_width(records: Iterable[VerdictRecord]) -> int:
    return max([7] + [len(r.verdict) for r in records])


def check_lines(record: VerdictRecord, width: int = 80, verbosity: int = 0, verdict_width: int = 12):
    """The terminal lines (rich ``Text``) of one check.

    The first line always holds the verdict, the full id and the method (and
    part), then the seconds; it is never cut. At verbosity 0 the claimed and
    measured values follow on it when the line stays within ``width``, else
    on a second line indented by four spaces and shortened to ``width``. At
    verbosity ≥ 1 the source, claimed, measured, interval and every number of
    the details follow on indented lines, in full.
    """
    from rich.text import Text

    head = Text()
    # a check that did not run (its library missing) keeps the verdict inconclusive in the JSON record
    # (the DESIGN.md vocabulary) but reads "skipped" here, with its install hint beside it
    label = "skipped" if not_run_reason(record) is not None else record.verdict
    head.append(label.ljust(verdict_width), style=verdict_style(record.verdict))
    head.append(f" {record.id} [{method_label(record)}]")
    if record.expect is not None and not record.met_expectation:
        head.append(f" (expected {record.expect})", style="bold red")
    head.append(f"  {record.seconds:.2f} s", style="dim")
    lines = [head]
    if verbosity >= 1:
        indent = "    "
        rows = [
            ("source", cited_source(record)),
            ("claimed", full(record.claimed) if record.claimed is not None else ""),
            ("measured", full(record.measured) if record.measured is not None else ""),
            ("interval", interval_text(record)),
        ]
        if record.samples is not None:
            rows.append(("samples", str(record.samples)))
        if record.verdict == "error":
            rows.append(("error", error_message(record)))
        for k, v in rows:
            if v:
                lines.append(Text(f"{indent}{k}: {v}"))
        if isinstance(record.details, dict):
            for k, v in flat_numbers({k: v for k, v in record.details.items() if k not in ("interval", "error")}):
                lines.append(Text(f"{indent}  {k} = {v}", style="dim"))
        return lines
    reason = reason_text(record)
    if not_run_reason(record) is not None:
        head.append("  " + reason)  # a check that did not run: its reason is all there is to say
        return lines
    if reason:
        lines.append(Text(f"    reason: {reason}"))
    if record.verdict == "error":
        values = error_message(record)
    else:
        c, m = short(record.claimed, 200), short(record.measured, 200)
        values = " → ".join(x for x in (c and f"claimed {c}", m and f"measured {m}") if x)
        iv = interval_text(record)
        if iv:
            values += f"  {iv}" if values else iv
    if not values:
        return lines
    if len(head.plain) + 2 + len(values) <= width:
        head.append("  " + values)
    else:
        indent = " " * 4
        room = max(20, width - len(indent))
        if record.verdict == "error":
            text = values if len(values) <= room else values[: room - 1] + "…"
        else:
            c, m = short(record.claimed, 200), short(record.measured, 200)
            budget = max(16, room - len("claimed  → measured "))
            if len(c) + len(m) > budget:  # shorten the longer side first, never below half the room
                if len(c) <= len(m):
                    c = short(record.claimed, max(8, min(len(c), budget // 2)))
                    m = short(record.measured, max(8, budget - len(c)))
                else:
                    m = short(record.measured, max(8, min(len(m), budget // 2)))
                    c = short(record.claimed, max(8, budget - len(m)))
            text = " → ".join(x for x in (c and f"claimed {c}", m and f"measured {m}") if x)
            if len(text) > room:
                text = text[: room - 1] + "…"
        lines.append(Text(indent + text, style="dim"))
    return lines


def print_check(record: VerdictRecord, console=None, verbosity: int = 0, verdict_width: int = 12) -> None:
    """Print :func:`check_lines` of one record (the CLI calls it per finished check in CI logs)."""
    from rich.console import Console

    console = console or Console()
    for line in check_lines(record, console.width or 80, verbosity, verdict_width):
        console.print(line, soft_wrap=True, highlight=False)


def print_findings(records: Sequence[VerdictRecord], console=None, verdicts: Sequence[str] = FINDING_VERDICTS) -> None:
    """The findings block: for every refuted check, its source and claimed against measured, in full."""
    from rich.console import Console
    from rich.text import Text

    console = console or Console()
    found = [r for r in records if r.verdict in verdicts]
    if not found:
        return
    console.print(Text(f"findings ({len(found)} {'/'.join(verdicts)}):", style="bold"), highlight=False)
    for r in found:
        head = Text(r.verdict, style=verdict_style(r.verdict))
        head.append(f" {r.id} [{method_label(r)}]  — {cited_source(r)}")
        console.print(head, soft_wrap=True, highlight=False)
        rows = (("claimed", full(r.claimed)), ("measured", full(r.measured)), ("interval", interval_text(r)))
        for k, v in rows + (("reason", reason_text(r)),):
            if v and v != "—":
                console.print(Text(f"    {k:<9}{v}"), soft_wrap=True, highlight=False)


def run_summary(records: Sequence[VerdictRecord], seconds: float | None = None, quick: bool | None = None) -> str:
    """The one summary line: ``privcheck: 100 checks of 48 claims: 70 holds, 24 refuted (51.2 s)``."""
    quick = is_quick(records) if quick is None else quick
    text = f"privcheck: {len(records)} checks of {len({r.id for r in records})} claims: {summary_line(records)}"
    if seconds is not None:
        text += f" ({seconds:.1f} s)"
    if quick:
        text += " [quick: reduced Monte Carlo power]"
    return text


def print_report(
    records: Sequence[VerdictRecord],
    console=None,
    *,
    verbosity: int = 0,
    listed: bool = True,
    seconds: float | None = None,
    quick: bool | None = None,
) -> None:
    """Print a run: one line per check (grouped by paper), the findings block, errors, one summary line.

    verbosity: −1 prints the summary line only (``-q``), 0 the default layout,
    ≥ 1 every number (``-v``). listed: False skips the per-check lines (the
    CLI already printed them as checks finished, in CI logs).
    """
    from rich.console import Console
    from rich.markup import escape

    console = console or Console()
    if verbosity >= 0:
        vw = _verdict_width(records)
        groups = group_by_paper(records)
        if listed:
            for paper, recs in groups.items():
                from privcheck.reports.sources import PAPERS

                title = PAPERS[paper].label() if paper in PAPERS else paper
                console.print(f"[bold]{escape(title)}[/]", soft_wrap=True, highlight=False)
                for r in recs:
                    print_check(r, console, verbosity, vw)
        print_findings(records, console)
        for paper, recs in groups.items():
            console.print(f"{escape(paper)}: {escape(summary_line(recs))}", soft_wrap=True, highlight=False)
        for r in records:
            if r.verdict == "error":
                console.print(
                    f"[bold magenta]error[/] {escape(record_key(r))}: {escape(error_message(r))}",
                    soft_wrap=True,
                    highlight=False,
                )
            elif r.expect is not None and not r.met_expectation:
                console.print(
                    f"[bold red]expectation not met[/] {escape(record_key(r))}: expected {r.expect}, got {r.verdict}",
                    soft_wrap=True,
                    highlight=False,
                )
    console.print(escape(run_summary(records, seconds, quick)), soft_wrap=True, highlight=False)


def print_table(records: Sequence[VerdictRecord], console=None, verbosity: int = 0) -> None:
    """Former name of :func:`print_report` (kept for callers of the 0.1 API)."""
    print_report(records, console, verbosity=verbosity)


# --------------------------------------------------------------------------- JSON
def records_to_json(records: Iterable[VerdictRecord], quick: bool | None = None) -> str:
    """The records as a JSON list (DESIGN.md field names), each with a top-level ``quick`` flag.

    ``quick`` (true for ``--quick`` runs, detected from the records when None)
    is added to every record rather than wrapping the list, so the list format
    of ``--json`` stays as DESIGN.md specifies; :func:`records_from_json`
    reads both this and the plain 0.1 format.
    """
    from privcheck.reports.sources import cite_all

    records = list(records)
    quick = is_quick(records) if quick is None else bool(quick)
    rows = []
    for r in records:
        d = cite_all(r.to_dict())
        d["quick"] = quick
        rows.append(d)
    import json

    return json.dumps(rows, indent=2, ensure_ascii=False)


def records_from_json(text: str) -> list[VerdictRecord]:
    """Verdict records from :func:`records_to_json` text (a list, or ``{"records": [...]}``).

    Unknown keys (``quick``, keys of later versions) are ignored; a ``quick``
    flag is kept in ``details["quick"]``.
    """
    import dataclasses
    import json

    from privcheck.claims import VerdictRecord

    data = json.loads(text)
    if isinstance(data, dict):
        data = data.get("records", [])
    names = {f.name for f in dataclasses.fields(VerdictRecord)}
    out = []
    for row in data:
        rec = VerdictRecord(**{k: v for k, v in row.items() if k in names})
        if row.get("quick") and isinstance(rec.details, dict):
            rec.details.setdefault("quick", True)
        out.append(rec)
    return out


def write_json(records: Iterable[VerdictRecord], path: str, quick: bool | None = None) -> None:
    """Write :func:`records_to_json` to ``path`` (``-`` for standard output)."""
    text = records_to_json(records, quick)
    if path == "-":
        sys.stdout.write(text + "\n")
    else:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
