"""Gray-box zoo entries: traces (:func:`privcheck.trace`) and calibrator audits (:func:`privcheck.audit_calibrator`)
of third-party libraries, as catalogue claims beside the black-box ones.

A :class:`GrayEntry` is ``zoo.<library>.trace.<name>`` (a :class:`TraceCase` per configuration: the library's
documented sensitivity under its documented neighbouring relation, the pairs that express that relation,
how the library takes randomness) or ``zoo.<library>.calibrator.<name>`` (a :class:`CalibratorCase`: the
library's own calibration called as shipped, on the default grid or a stated one). Each case runs in a
child process under :data:`CASE_TIMEOUT` seconds; its row holds the verdict, the one-line summary, the
measured numbers and the findings. The claim is ``refuted`` when a case is, ``holds`` when every case
holds (a library that refuses an input is no failure: refused points and inputs are counted), else
``inconclusive`` (e.g. numba clients whose randomness cannot be coupled) — with one line per problem.
Method ``numeric``: coupled runs and certified curves, no statistics. Opt-in like the whole zoo.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from privcheck.claims import CATALOGUE, Claim, Outcome, RunContext, check

#: seconds one case may run
CASE_TIMEOUT = 300.0
#: runs per trace case (``--quick``: QUICK_RUNS)
RUNS, QUICK_RUNS = 10, 3
INSTALL_HINT = "not installed: pip install 'privcheck[zoo]'"


@dataclass
class TraceCase:
    """One traced configuration: ``build() -> fn`` (``fn(x, rng)`` / ``fn(x)``), ``pairs`` or ``inputs``, the
    documented ``sensitivity`` (None: invariance only) in ``norm``, the ``relation`` the pairs express (text),
    ``rng_type``, ``nonfinite`` (trace NaN/±inf neighbours: where the library documents clipping to bounds)."""

    label: str
    build: Callable[[], Callable]
    pairs: list | None = None
    inputs: list | None = None
    sensitivity: float | None = None
    norm: str = "l1"
    relation: str = ""
    rng_type: str = "generator"
    nonfinite: bool = False


@dataclass
class CalibratorCase:
    """One calibrator: ``build() -> fn(eps=, delta=, sensitivity=) -> scale`` (the library's own), its ``mechanism``,
    the grid (None: the default) and the sensitivity."""

    label: str
    build: Callable[[], Callable]
    mechanism: str
    eps: list | None = None
    delta: list | None = None
    sensitivity: float = 1.0


@dataclass
class GrayEntry:
    """A gray-box claim: id, library, distribution, modules it needs, where the code lives, statement, cases."""

    claim_id: str
    library: str
    dist: str
    modules: tuple
    where: str
    statement: str
    cases: Callable[[], list]
    extra_dists: tuple = field(default_factory=tuple)


GRAY_ENTRIES: list[GrayEntry] = []


def register_gray(entry: GrayEntry) -> GrayEntry:
    """Add ``entry`` to the catalogue: a ``privacy`` claim with one ``numeric`` check (:func:`run_gray`)."""
    CATALOGUE.add_claim(Claim(entry.claim_id, entry.library, entry.where, "privacy", entry.statement, ("numeric",)))
    check(entry.claim_id, "numeric")(lambda ctx, _e=entry: run_gray(_e, ctx))
    GRAY_ENTRIES.append(entry)
    return entry


def _trace_row(case: TraceCase, seed: int, runs: int) -> dict:
    from privcheck.tracing.core import trace

    res = trace(
        case.build(),
        pairs=case.pairs,
        inputs=case.inputs,
        sensitivity=case.sensitivity,
        norm=case.norm,
        runs=runs,
        seed=seed,
        rng_type=case.rng_type,
        nonfinite=case.nonfinite,
        timeout=CASE_TIMEOUT,
        name=case.label,
    )
    return {
        "case": case.label,
        "relation": case.relation,
        "verdict": res.verdict,
        "summary": res.summary,
        "sensitivity": case.sensitivity,
        "norm": case.norm,
        "sensitivity_lower": res.sensitivity_lower,
        "findings": res.findings[:10],
        "no_finding_divergences": sum(1 for d in res.divergences if not d.finding),
        "coupling": res.coupling,
        "calls": res.calls,
        "seconds": res.seconds,
    }


def _calibrator_row(case: CalibratorCase) -> dict:
    from privcheck.calibration.audit import audit_calibrator

    res = audit_calibrator(
        case.build(),
        mechanism=case.mechanism,
        eps=case.eps,
        delta=case.delta,
        sensitivity=case.sensitivity,
        timeout=CASE_TIMEOUT,
        name=case.label,
    )
    bad = [p.line() for p in res.points if p.verdict == "refuted"]
    return {
        "case": case.label,
        "mechanism": case.mechanism,
        "verdict": res.verdict,
        "summary": res.summary,
        "points": len(res.points),
        "refused": res.refused,
        "refuted_points": bad[:20],
        "worst": res.worst.line() if res.worst is not None else None,
        "most_wasted": res.most_wasted.line() if res.most_wasted is not None else None,
        "seconds": res.seconds,
    }


def _row(case: Any, seed: int, runs: int) -> dict:
    try:
        if isinstance(case, TraceCase):
            return _trace_row(case, seed, runs)
        return _calibrator_row(case)
    except Exception as exc:  # noqa: BLE001 - a case that cannot even start is one line, the rest runs
        return {"case": case.label, "verdict": "error", "summary": f"error: {type(exc).__name__}: {exc}"[:300]}


def run_gray(entry: GrayEntry, ctx: RunContext) -> Outcome:
    """Run every case of ``entry`` and add the rows up (see the module docstring)."""
    from privcheck.catalogue.peers import missing, versions

    vers = versions(entry.dist, *entry.extra_dists)
    absent = missing(*entry.modules)
    if absent is not None:
        return Outcome(
            "inconclusive",
            claimed=entry.statement,
            details={"skipped": True, "reason": f"{entry.dist} {INSTALL_HINT}", "versions": vers},
        )
    try:
        cases = entry.cases()
    except Exception as exc:  # noqa: BLE001
        return Outcome("inconclusive", claimed=entry.statement, details={"reason": f"building the cases failed: {exc}"})
    base = int(ctx.seed_seq.generate_state(1)[0])
    runs = QUICK_RUNS if ctx.quick else RUNS
    rows = [_row(c, (base + i) % (2**31), runs) for i, c in enumerate(cases)]
    verdicts = [r["verdict"] for r in rows]
    if "refuted" in verdicts:
        verdict = "refuted"
    elif verdicts and all(v == "holds" for v in verdicts):
        verdict = "holds"
    else:
        verdict = "inconclusive"
    from privcheck.catalogue.zoo.engine import reproduce_command

    details: dict = {
        "cases": rows,
        "library": entry.library,
        "versions": vers,
        "reproduce": reproduce_command(entry.claim_id, ctx),
    }
    problems = [f"{r['case']}: {r['summary']}" for r in rows if r["verdict"] in ("error", "inconclusive")]
    if problems:
        details["problems"] = problems
    found = [f"{r['case']}: {r['summary']}" for r in rows if r["verdict"] == "refuted"]
    if found:
        details["findings"] = found
    claimed = {r["case"]: r.get("sensitivity", r.get("mechanism")) for r in rows}
    measured = {r["case"]: r.get("sensitivity_lower", r.get("worst")) for r in rows}
    return Outcome(verdict, claimed=claimed, measured=measured, details=details)
