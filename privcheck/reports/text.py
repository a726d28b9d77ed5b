"""Terminal table and JSON output of verdict records, and the formatting shared by every report.

The terminal table (:func:`print_table`) is built to stay readable from 80 to
200 columns and in CI logs (no terminal): a short source (``000 Alg. 3``),
compact claimed/measured values (a dict of per-case numbers is shown as its
range and count), the interval from ``details["interval"]`` when the check
reports one, rows grouped by paper, and one summary line per paper.
"""
from __future__ import annotations

import json
import math
import re
import sys
from typing import Any, Iterable, Sequence

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from privcheck.claims import VERDICTS, VerdictRecord

_STYLE = {"holds": "green", "refuted": "bold red", "inconclusive": "yellow", "error": "bold magenta", "computed": "cyan"}
_PAPER_FILE = re.compile(r"^(\d{3})_[0-9a-f]+\.txt$")


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


def _as_float(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str) and v in ("inf", "-inf", "nan"):
        return float(v)
    try:
        import numpy as np

        if isinstance(v, np.generic) and np.issubdtype(type(v), np.number):
            return float(v)
    except ImportError:  # pragma: no cover
        pass
    return None


def short(value: Any, width: int = 40) -> str:
    """A compact one-line rendering of a claimed/measured value, at most ``width`` characters.

    Numbers get 4 significant digits; a dict (or list) whose values are all
    numbers and which has more than two entries is summarised as
    ``lo…hi (n)`` (its range and size); other dicts as ``k=v, …`` (or
    ``label: v; …`` when the keys are case labels containing ``=``).
    """
    if value is None:
        return ""
    f = _as_float(value)
    if f is not None:
        text = fmt_number(value)
    elif isinstance(value, dict):
        nums = [_as_float(v) for v in value.values()]
        if len(value) > 2 and all(n is not None for n in nums):
            text = _range_text(nums)
        else:
            # keys that are case labels ("d=5, k=2") read better as "label: value"
            text = "; ".join(f"{k}: {short(v, width)}" for k, v in value.items()) if any(
                "=" in str(k) for k in value) else ", ".join(f"{k}={short(v, width)}" for k, v in value.items())
    elif isinstance(value, (list, tuple)):
        nums = [_as_float(v) for v in value]
        if len(value) > 3 and all(n is not None for n in nums):
            text = _range_text(nums)
        else:
            text = "[" + ", ".join(short(v, width) for v in value) + "]"
    else:
        text = " ".join(str(value).split())
    return text if len(text) <= width else text[: width - 1] + "…"


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
    conf = record.details.get("confidence")
    c = _as_float(conf)
    if c is not None and 0 < c < 1:
        text += f" {c:.0%}"
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


def method_label(record: VerdictRecord) -> str:
    """``mc`` or ``mc:ldp`` when the check has a part label."""
    return f"{record.method}:{record.part}" if record.part else record.method


def group_by_paper(records: Iterable[VerdictRecord]) -> dict[str, list[VerdictRecord]]:
    """Records grouped by paper label, in first-seen order."""
    out: dict[str, list[VerdictRecord]] = {}
    for r in records:
        out.setdefault(paper_label(r.paper), []).append(r)
    return out


def verdict_counts(records: Iterable[VerdictRecord]) -> dict[str, int]:
    """Number of records per verdict (every verdict of :data:`VERDICTS`, zeros included)."""
    recs = list(records)
    return {v: sum(r.verdict == v for r in recs) for v in VERDICTS}


def summary_line(records: Sequence[VerdictRecord]) -> str:
    """``12 holds, 1 refuted`` (+ ``; 1 expectation not met``) for a group of records."""
    counts = verdict_counts(records)
    text = ", ".join(f"{n} {v}" for v, n in counts.items() if n) or "no checks"
    expected = [r for r in records if r.expect is not None]
    if expected:
        unmet = sum(not r.met_expectation for r in expected)
        text += f"; expectations: {len(expected) - unmet} met, {unmet} not met"
    return text


def error_message(record: VerdictRecord) -> str:
    """The one-line error of an ``error`` record (empty otherwise)."""
    if record.verdict != "error" or not isinstance(record.details, dict):
        return ""
    return " ".join(str(record.details.get("error", "")).split())


def record_key(record: VerdictRecord) -> str:
    """``id[method:part]``, the unique name of a record in a run."""
    return f"{record.id}[{method_label(record)}]"


# --------------------------------------------------------------------------- terminal table
def print_table(records: Sequence[VerdictRecord], console: Console | None = None) -> None:
    """Print records as a table grouped by paper, then a verdict count per paper.

    Columns: id, source (short), method, verdict (with the expectation when
    one was declared and not met), claimed, measured, interval, seconds. Below
    the table: one summary line per paper, a total, and one line per error or
    unmet expectation.
    """
    console = console or Console()
    width = console.width or 80
    narrow = width < 120
    val_w = 12 if narrow else (22 if width < 160 else 30)
    table = Table(show_lines=False, header_style="bold", pad_edge=False, box=box.SIMPLE_HEAD, collapse_padding=True)
    if narrow:  # the source goes under the id (dimmed), claimed and measured share a column
        table.add_column("claim / source", overflow="fold", min_width=min(30, max(16, width - 62)))
        table.add_column("method", no_wrap=True)
        table.add_column("verdict", no_wrap=True)
        table.add_column("claimed → measured", overflow="fold")
        table.add_column("interval", overflow="fold")
    else:
        table.add_column("id", overflow="fold", ratio=3)
        table.add_column("source", overflow="fold", ratio=2)
        table.add_column("method", no_wrap=True)
        table.add_column("verdict", no_wrap=True)
        table.add_column("claimed", no_wrap=True)
        table.add_column("measured", no_wrap=True)
        table.add_column("interval", no_wrap=True)
        table.add_column("s", justify="right", no_wrap=True)
    groups = group_by_paper(records)
    for paper, recs in groups.items():
        for r in recs:
            verdict = Text(r.verdict, style=_STYLE.get(r.verdict, ""))
            if r.expect is not None and not r.met_expectation:
                verdict.append(f" ≠{r.expect}", style="bold red")
            iv = interval_text(r)
            if narrow:
                iv = iv.rsplit(" ", 1)[0] if iv.endswith("%") else iv
                row = [Text(r.id).append("\n" + short_source(r), style="dim"), method_label(r), verdict,
                       f"{short(r.claimed, val_w)} → {short(r.measured, val_w)}", iv]
            else:
                row = [r.id, short_source(r), method_label(r), verdict, short(r.claimed, val_w),
                       short(r.measured, val_w), iv, f"{r.seconds:.1f}"]
            table.add_row(*row)
        table.add_section()
    console.print(table)
    for paper, recs in groups.items():
        console.print(f"{escape(paper)}: {summary_line(recs)}", highlight=False)
    if len(groups) > 1:
        console.print(f"total: {summary_line(records)}", highlight=False)
    for r in records:
        if r.verdict == "error":
            console.print(f"[bold magenta]error[/] {escape(record_key(r))}: {escape(error_message(r))}", highlight=False)
        elif r.expect is not None and not r.met_expectation:
            console.print(f"[bold red]expectation not met[/] {escape(record_key(r))}: expected {r.expect}, got {r.verdict}",
                          highlight=False)


# --------------------------------------------------------------------------- JSON
def records_to_json(records: Iterable[VerdictRecord]) -> str:
    """The records as a JSON list (DESIGN.md field names)."""
    return json.dumps([r.to_dict() for r in records], indent=2, ensure_ascii=False)


def write_json(records: Iterable[VerdictRecord], path: str) -> None:
    """Write :func:`records_to_json` to ``path`` (``-`` for standard output)."""
    text = records_to_json(records)
    if path == "-":
        sys.stdout.write(text + "\n")
    else:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
