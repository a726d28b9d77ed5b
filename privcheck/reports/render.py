"""Shared rendering of record contents for the HTML and Markdown reports.

- :func:`formula_sides` — the printed (claimed) and derived expressions of a
  symbolic check, :func:`mathml` renders one as presentation MathML (sympy's
  printer; MathML is displayed natively by browsers, offline, no script or
  CDN) and :func:`latex` as LaTeX for Markdown's ``$$`` blocks;
- :func:`details_html` / :func:`details_markdown` — a record's details as
  readable nested tables / lists (numbers to 6 significant digits), not JSON.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import Any

from privcheck.base.numtext import as_float
from privcheck.claims import VerdictRecord
from privcheck.reports.text import fmt_number

#: expressions longer than this are shown as text (sympy parsing and printing stay fast)
MAX_FORMULA_CHARS = 1500
#: keys of details that the reports show elsewhere (formulas, the traceback)
_HIDDEN = {"traceback", "latex", "difference_latex"}
#: the papers' abbreviations of Greek letters, shown as the letters in formulas
_GREEK = {
    "eps": "epsilon",
    "eps1": "epsilon_1",
    "eps2": "epsilon_2",
    "eps_c": "epsilon_c",
    "lam": "lambda",
    "s2": "sigma^2",
}


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _side_text(side: Any) -> str | None:
    if isinstance(side, dict):
        for k in ("text", "expression"):
            if isinstance(side.get(k), str):
                return side[k]
        return None
    return side if isinstance(side, str) else None


def _sides_of(d: dict) -> list[tuple[str, str]]:
    out = []
    for label, key in (("claimed (as printed)", "printed"), ("derived", "derived")):
        t = _side_text(d.get(key))
        if t:
            out.append((label, t))
    if len(out) == 2 and isinstance(d.get("difference"), str):
        meaning = d.get("difference_meaning") if isinstance(d.get("difference_meaning"), str) else "derived − printed"
        out.append((meaning.replace(" - ", " − "), d["difference"]))
    return out if len(out) >= 2 else []


def formula_sides(record: VerdictRecord) -> list[tuple[str, str]]:
    """``[("claimed (as printed)", text), ("derived", text), …]`` of a one-part symbolic check, else ``[]``.

    Read from ``details["printed"]`` and ``details["derived"]`` (dicts with
    ``text``/``expression``, or plain strings) as written by
    :func:`proofs.formula.formula_claim` checks; the ``difference`` is added
    when present. Multi-part checks: :func:`formula_parts`.
    """
    d = record.details if isinstance(record.details, dict) else {}
    return _sides_of(d)


def formula_parts(record: VerdictRecord) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """``[(part name, part verdict, sides)]`` of a symbolic check (one entry for a one-part check).

    Multi-part checks keep their parts in ``details["parts"]``; when the
    record did not hold, only the parts that did not hold are returned (those
    are the finding).
    """
    d = record.details if isinstance(record.details, dict) else {}
    one = _sides_of(d)
    if one:
        return [(str(d.get("name", "")), str(d.get("verdict", record.verdict)), one)]
    parts = d.get("parts") if isinstance(d.get("parts"), list) else []
    out = []
    for p in parts:
        if isinstance(p, dict):
            sides = _sides_of(p)
            if sides:
                out.append((str(p.get("name", "")), str(p.get("verdict", "")), sides))
    if record.verdict != "holds" and any(v != "holds" for _, v, _ in out):
        out = [x for x in out if x[1] != "holds"]
    return out


@lru_cache(maxsize=512)
def _expr(text: str):
    if len(text) > MAX_FORMULA_CHARS:
        return None
    try:
        import sympy as sp

        expr = sp.sympify(text, evaluate=False)
        if not isinstance(expr, sp.Basic):
            return None
        greek = {
            s: sp.Symbol(_GREEK[s.name], **s.assumptions0)
            for s in expr.free_symbols
            if isinstance(s, sp.Symbol) and s.name in _GREEK
        }
        return expr.xreplace(greek) if greek else expr
    except Exception:  # not a sympy expression: shown as text
        return None


def mathml(text: str, display: bool = True) -> str | None:
    """Presentation MathML of a sympy expression string (``None`` when it does not parse)."""
    expr = _expr(text)
    if expr is None:
        return None
    try:
        from sympy.printing.mathml import mathml as _mathml

        body = _mathml(expr, printer="presentation").replace("&ExponentialE;", "e")  # the papers' plain e
    except Exception:
        return None
    mode = "block" if display else "inline"
    return f"<math xmlns='http://www.w3.org/1998/Math/MathML' display='{mode}'>{body}</math>"


def latex(text: str) -> str | None:
    """LaTeX of a sympy expression string (``None`` when it does not parse)."""
    expr = _expr(text)
    if expr is None:
        return None
    try:
        import sympy as sp

        return sp.latex(expr)
    except Exception:
        return None


def _scalar(v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if as_float(v) is not None:
        return fmt_number(v, 6)
    return " ".join(str(v).split())


def _is_scalar(v: Any) -> bool:
    return not isinstance(v, (dict, list, tuple))


#: a table cell holding a scalar this short is not wrapped (class ``nw``): numbers and short words stay whole
NOWRAP_CHARS = 32


def _cell(value: Any, depth: int) -> str:
    """One ``<td>`` of a details table: short scalars unwrapped, anything else as nested HTML."""
    inner = details_html(value, depth + 1)
    short = "<table" not in inner and len(html.unescape(re.sub(r"<[^>]+>", "", inner))) <= NOWRAP_CHARS
    return f"<td class='nw'>{inner}</td>" if short else f"<td>{inner}</td>"


def details_html(obj: Any, depth: int = 0) -> str:
    """Nested HTML tables of a details value: dicts as key/value rows, lists of dicts as tables."""
    if depth > 6:
        return f"<code>{_e(_scalar(obj))}</code>"
    if isinstance(obj, dict):
        rows = [f"<tr><th>{_e(k)}</th>{_cell(v, depth)}</tr>" for k, v in obj.items() if k not in _HIDDEN]
        return f"<table class='kv'>{''.join(rows)}</table>" if rows else "—"
    if isinstance(obj, (list, tuple)):
        if not obj:
            return "[]"
        if all(_is_scalar(v) for v in obj):
            items = [_scalar(v) for v in obj]
            if len(items) > 40:
                items = items[:30] + [f"… ({len(obj) - 35} more) …"] + items[-5:]
            return "<span class='list'>" + ", ".join(_e(i) for i in items) + "</span>"
        if all(isinstance(v, dict) for v in obj) and len(obj) <= 60:
            cols: list[str] = []
            for v in obj:
                cols += [k for k in v if k not in cols and k not in _HIDDEN]
            head = "".join(f"<th>{_e(c)}</th>" for c in cols)
            body = "".join("<tr>" + "".join(_cell(v.get(c), depth) for c in cols) + "</tr>" for v in obj)
            return f"<table class='grid'><tr>{head}</tr>{body}</table>"
        return "<ol>" + "".join(f"<li>{details_html(v, depth + 1)}</li>" for v in obj[:60]) + "</ol>"
    return _e(_scalar(obj))


def details_markdown(obj: Any, indent: int = 0, max_lines: int = 200) -> list[str]:
    """A details value as a nested Markdown list (numbers to 6 digits), at most ``max_lines`` lines."""
    lines: list[str] = []

    def walk(v: Any, ind: int, label: str | None) -> None:
        pad = "  " * ind
        head = f"{pad}- **{label}**" if label is not None else f"{pad}-"
        if isinstance(v, dict):
            shown = {k: x for k, x in v.items() if k not in _HIDDEN}
            if all(_is_scalar(x) for x in shown.values()) and len(shown) <= 6:
                lines.append(f"{head}: " + "; ".join(f"{k} = {_md(_scalar(x))}" for k, x in shown.items()))
                return
            lines.append(head + (":" if label is not None else ""))
            for k, x in shown.items():
                walk(x, ind + 1, str(k))
        elif isinstance(v, (list, tuple)) and not all(_is_scalar(x) for x in v):
            lines.append(head + (":" if label is not None else ""))
            for i, x in enumerate(v[:60]):
                walk(x, ind + 1, f"[{i}]")
        elif isinstance(v, (list, tuple)):
            items = [_scalar(x) for x in v]
            if len(items) > 40:
                items = items[:30] + [f"… ({len(v) - 35} more) …"] + items[-5:]
            lines.append(f"{head}: {_md(', '.join(items))}")
        else:
            lines.append(f"{head}: {_md(_scalar(v))}")

    if isinstance(obj, dict):
        for k, v in obj.items():
            if k not in _HIDDEN:
                walk(v, indent, str(k))
    else:
        walk(obj, indent, None)
    if len(lines) > max_lines:
        lines = lines[:max_lines] + ["  " * indent + f"- … ({len(lines) - max_lines} more lines; see the JSON report)"]
    return lines


def _md(text: str) -> str:
    """Markdown-safe inline text (pipes, asterisks, underscores and backticks escaped)."""
    out = str(text)
    for ch in ("\\", "`", "*", "_", "|", "<", ">"):
        out = out.replace(ch, "\\" + ch)
    return out
