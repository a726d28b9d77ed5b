"""The zoo scorecard: one Markdown table per library from ``zoo.*`` verdict records, plus the findings.

:func:`scorecard_markdown` renders rows "mechanism | params | claimed | true | certified | verdict | s |
draws/s | library calls/s"; :func:`findings_markdown` lists every refuted case with a one-line reproducer
(``privcheck verify 'CLAIM' --seed S``) and the interval behind it. ``privcheck verify 'zoo.*' --markdown``
appends both (privcheck.reports.markdown); each table shows ``certified_of_true`` ("of true") and the draws
per input, and lists the power statement of every case below the target; :func:`power_summary` gives the
one-line count of correct cases at ≥ 0.95 of their true ε; ``benchmarks/zoo_scorecard.py`` writes them into README.md.
"""

from __future__ import annotations

import math
from statistics import median
from typing import Any, Sequence

from privcheck.catalogue.zoo.engine import PREFIX, TARGET_OF_TRUE


def projection(seconds: Sequence[float], workers: int) -> float:
    """Lower bound on the wall time of independent tasks of ``seconds`` (each ≥ 0) on ``workers`` ≥ 1
    workers: max(longest task, total / workers) (no schedule can beat either)."""
    return max(max(seconds, default=0.0), sum(seconds) / workers)


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
    out = [
        f"{heading} Zoo scorecard",
        "",
        "claimed = the library's documented ε (μ for μ-GDP claims); true = exact ε computed from the code's own "
        "parameters and probabilities (marked 'code'); where the calculator only restates the documented law it "
        "is marked 'documented' and is not the code's true ε ('—' where none); certified = Monte Carlo lower bound / claimed at the stated confidence. "
        "*holds* = no violation detected; of true = eps_lower / true (/ claimed where no calculator, marked *); "
        "draws = draws per input the audit took (adaptive full run: until 0.95 of the true ε or the case's "
        "budget).",
        "",
    ]
    summary = power_summary(recs)
    if summary:
        out += [summary, ""]
    for lib, rs in by_lib.items():
        out += [f"{heading}# {lib} ({_version(rs[0])})", ""]
        main, numeric, below = [], [], []
        for r in rs:
            det = _field(r, "details") or {}
            mech = str(_field(r, "id"))[len(PREFIX) + len(str(_field(r, "id")).split(".")[1]) + 1 :]
            cases = det.get("cases") or []
            if not cases:
                label = "skipped" if det.get("skipped") else _field(r, "verdict")
                main.append(
                    f"| `{mech}` | — | — | — | — | — | {label} | — | — | {_num(_field(r, 'seconds'), '.1f')} | — | — |"
                )
                continue
            for c in cases:
                if numeric_row(c):
                    numeric.append(_numeric_line(mech, c))
                    continue
                main.append(_main_line(mech, c))
                if c.get("power"):
                    below.append(f"- `{mech}` {c.get('case')}: {c['power']}")
        if main:
            out += [
                "| mechanism | params | claimed | true | eps_lower | certified | verdict | of true | draws | s | draws/s "
                "| lib calls/s |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|",
                *main,
                "",
            ]
        if numeric:
            out += [
                "Gray-box and deterministic checks (no sampling: coupled runs, recorded noise parameters, certified "
                "curves, fixed inputs against an exact expectation):",
                "",
                "| check | case | verdict | measured | s |",
                "|---|---|---|---|---|",
                *numeric,
                "",
            ]
        if below:
            out += [f"Below {TARGET_OF_TRUE:g} of the true ε (power statements):", ""] + below + [""]
    skipped = [str(_field(r, "id")) for r in recs if (_field(r, "details") or {}).get("skipped")]
    if skipped:
        out += [
            f"Skipped (library missing, `pip install 'privcheck[zoo]'` / `'privcheck[torch]'`): {len(skipped)} claims.",
            "",
        ]
    return "\n".join(out)


def numeric_row(c: dict) -> bool:
    """Whether a case row is a gray-box or deterministic one (a summary line, or a sampling check's observation)
    rather than a Monte Carlo audit with claimed / true / certified ε."""
    return c.get("summary") is not None or c.get("observed") is not None


def _measured_text(c: dict, width: int = 260) -> str:
    text = str(c.get("summary") or "; ".join(str(c[k]) for k in ("observed", "accounting") if c.get(k)))
    for v in ("holds: ", "refuted: ", "inconclusive: ", "error: "):
        if text.startswith(v):
            text = text[len(v) :]
    text = text.replace("|", "/").replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def _numeric_line(mech: str, c: dict) -> str:
    return (
        f"| `{mech}` | {str(c.get('case', '')).replace('|', '/')} | {c.get('verdict', '')} | {_measured_text(c)} | "
        f"{_num(c.get('seconds'), '.1f')} |"
    )


def _main_line(mech: str, c: dict) -> str:
    verdict = c.get("verdict", "")
    if c.get("error"):
        verdict += f": {str(c['error'])[:60]}"
    if c.get("reproducible") is False:
        verdict += " (not reproducible)"
    cells = [
        f"`{mech}`",
        str(c.get("case", "")).replace("|", "/"),
        _num(c.get("eps_claimed")),
        _true(c),
        _num(c.get("eps_lower")),
        _num(c.get("certified"), ".2f"),
        verdict.replace("|", "/"),
        _of_true(c),
        _num(c.get("draws_per_input"), ".3g"),
        _num(c.get("seconds"), ".1f"),
        _num(c.get("draws_per_second"), ".0f"),
        _num(c.get("library_calls_per_second"), ".0f"),
    ]
    return "| " + " | ".join(cells) + " |"


def _true(c: dict) -> str:
    """The true-value cell: the value and its basis ('code' or 'documented'); μ cells read "μ ..."."""
    if c.get("eps_true") is None and c.get("mu_true") is None:
        return "—"
    basis = c.get("true_basis") or "documented"
    if c.get("mu_true") is not None and "mu_claimed" in c:
        return f"μ {_num(c['mu_true'])} ({basis})"
    return f"{_num(c.get('eps_true'))} ({basis})"


def _of_true(c: dict) -> str:
    frac = c.get("certified_of_true")
    if frac is None:
        return "—"
    return _num(frac, ".2f") + ("*" if c.get("certified_basis") == "claimed" else "")


def correct_case(c: dict) -> bool:
    """A case the zoo has no evidence against: audited (no error), not refuted, and its calculator (if
    any) does not exceed the claim — the cases the acceptance "≥ 0.95 of the true ε" is about."""
    true = c.get("eps_true")
    return (
        c.get("verdict") in ("holds", "inconclusive")
        and not c.get("error")
        and not (true is not None and true > float(c.get("eps_claimed") or 0) * (1 + 1e-9))
    )


def power_summary(records: Sequence) -> str:
    """One line over the correct cases of ``records``: how many reach :data:`TARGET_OF_TRUE` of the true ε
    (in all and per claimed ε), the median ``certified_of_true``, and how many are exceptions with a power
    statement ("" when none)."""
    cases = [
        c
        for r in zoo_records(records)
        for c in (_field(r, "details") or {}).get("cases") or []
        if correct_case(c) and c.get("certified_of_true") is not None
    ]
    if not cases:
        return ""
    fracs = sorted(c["certified_of_true"] for c in cases)
    reach = sum(f >= TARGET_OF_TRUE for f in fracs)
    stated = sum(1 for c in cases if c.get("power"))
    by_eps: dict[float, list[float]] = {}
    for c in cases:
        # grouped at 3 significant digits: OpenDP's scales give claims like 0.24999999999999994
        by_eps.setdefault(float(f"{float(c.get('eps_claimed') or 0.0):.3g}"), []).append(c["certified_of_true"])
    per = "; ".join(
        f"claimed ε = {e:g}: {sum(f >= TARGET_OF_TRUE for f in fs)} of {len(fs)}, median {median(fs):.2f}"
        for e, fs in sorted(by_eps.items())
    )
    return (
        f"Power: {reach} of {len(fracs)} correct cases (not refuted, no error, calculator within the claim) "
        f"certified ≥ {TARGET_OF_TRUE:g} of their true ε (claimed where no calculator); median "
        f"{median(fracs):.2f}; {stated} below target carry a power statement. By ε: {per}."
    )


def _size_option(details: dict, case: dict) -> str:
    """The verify option that reruns a refuted case at its size: ``--quick`` for a quick run; for the
    adaptive full run (whose rounds depend on the measured call rate and clock) ``--samples N`` with the
    draws per input the case took — the same audit size, a fixed one, so the reproducer is deterministic."""
    if details.get("quick"):
        return " --quick"
    if case.get("adaptive") and case.get("draws_per_input"):
        return f" --samples {int(case['draws_per_input'])}"
    return ""


def false_refutation_summary(rows: Sequence[dict]) -> dict:
    """Summary of the 20-seed false-refutation rows (``benchmarks/zoo_false_refutation.py`` JSONL): cases,
    known-broken cases, refutations and audits of the other cases, the count expected at most if each of
    them is correct (Σ seeds · α_case), and the validity failures (cases whose binomial tail is below the
    flag level)."""
    correct = [r for r in rows if not r.get("known_broken")]
    return {
        "cases": len(rows),
        "claims": len({r["claim"] for r in rows}),
        "known_broken": len(rows) - len(correct),
        "refuted": sum(r["refuted"] for r in correct),
        "audits": sum(r["seeds"] for r in correct),
        "expected_at_most": sum(r["seeds"] * r["alpha_case"] for r in correct),
        "validity_failures": [f"`{r['claim']}` {r['case']}" for r in rows if r.get("validity_failure")],
    }


def findings_markdown(records: Sequence, heading: str = "##") -> str:
    """Every refuted zoo case with claimed/true/certified, its event and a one-line reproducer."""
    lines = []
    for r in zoo_records(records):
        det = _field(r, "details") or {}
        for c in det.get("cases") or []:
            if c.get("verdict") != "refuted" or c.get("expected") == "refuted":  # expected: a contrast row
                continue
            reproduce = f"privcheck verify '{_field(r, 'id')}' --seed {_field(r, 'seed', 0)}" + _size_option(det, c)
            if numeric_row(c):
                lines.append(
                    f"- `{_field(r, 'id')}` {c.get('case')} ({_version(r)}): {_measured_text(c, 400)}. "
                    f"Reproduce: `{reproduce}`"
                )
                continue
            if c.get("eps_true_lower") is not None and c.get("eps_lower") is None:  # an exact calculator, no sampling
                lines.append(
                    f"- `{_field(r, 'id')}` {c.get('case')} ({_version(r)}): claimed {_num(c.get('eps_claimed'))}, "
                    f"true ({c.get('true_basis') or 'documented'}) eps in [{c['eps_true_lower']:.6g}, "
                    f"{_num(c.get('eps_true'), '.6g')}] ({c.get('calculator', 'calculator')}; exact). "
                    f"Reproduce: `{reproduce}`"
                )
                continue
            if "mu_claimed" in c:
                sampled = f"certified mu >= {_num(c.get('mu_lower'))}"
                claim = f"claimed mu {_num(c['mu_claimed'])}"
            else:
                sampled = f"certified eps >= {_num(c.get('eps_lower'))}"
                claim = f"claimed {_num(c.get('eps_claimed'))}"
            lines.append(
                f"- `{_field(r, 'id')}` {c.get('case')} ({_version(r)}): {claim}, {_true(c)} true, {sampled}"
                + (f" ({c['exact_finding']}; exact)" if c.get("exact_finding") else "")
                + (f" for inputs {c.get('worst_pair')} on `{str(c.get('event'))[:90]}`" if c.get("event") else "")
                + (f" [{c['auto_view']}]" if c.get("auto_view") else "")
                + f". Reproduce: `{reproduce}`"
            )
    if not lines:
        return ""
    return "\n".join([f"{heading} Zoo findings", ""] + lines + [""])
