"""The zoo's engine: cases, entries, their registration as claims, and the per-case audit (see :mod:`privcheck.catalogue.zoo`)."""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from privcheck.claims import CATALOGUE, Claim, Outcome, RunContext, check

__all__ = [
    "BUDGET_ENV",
    "CASE_MAX_DRAWS",
    "CASE_MAX_SECONDS",
    "CASE_TIMEOUT",
    "Case",
    "DEFAULT_SAMPLES",
    "ENTRIES",
    "EPS_GRID",
    "Entry",
    "FIRST_ROUND_SHARE",
    "INSTALL_HINT",
    "PREFIX",
    "QUICK_SAMPLES",
    "TARGET_OF_TRUE",
    "WARM_UP_TIMEOUT",
    "audit_case",
    "reproduce_command",
    "case_budget",
    "case_samples",
    "grid",
    "of_true",
    "power_statement",
    "register",
    "run_entry",
]

#: the ε grid of every LDP claim
EPS_GRID = (0.25, 1.0, 4.0)
#: draws per input per case of a fixed-size run: (ε, δ) cases of the full run, which the adaptive rounds
#: do not cover (``--quick``: :data:`QUICK_SAMPLES`; ``--samples N`` forces N for every case)
DEFAULT_SAMPLES = 50_000
#: --quick: fixed draws per input. Measured (benchmarks/zoo_quick_sizing.py, seed 0, table in docs/site/zoo.md):
#: at 10^4 every Bloom-filter finding (pure-ldp RAPPOR, from 2000) and 16 of the 37 float-representation findings
#: show; the other 21 are not refuted at any size up to 10^4 (the full run finds them with 1.5e4 .. 1e5 draws)
QUICK_SAMPLES = 10_000
#: the full run's adaptive target: certified fraction of the *true* ε (the calculator's; the claimed ε
#: where there is none) at which a case stops drawing
TARGET_OF_TRUE = 0.95
#: per-case budget of the adaptive full run: draws per input over all rounds (10⁷: the issue's
#: "10⁶–10⁷ draws suffice" at ε = 0.25 for the k-RR/unary family), and seconds. 120 s keeps the
#: worst case of the 356-case zoo at 356 × 120 s ≈ 12 h on one worker (≈ 1.5 h on 8 Dask workers),
#: while a numpy-speed library (≥ 10⁵ draws/s) still reaches 10⁷ draws where it needs them
CASE_MAX_DRAWS = 10_000_000
CASE_MAX_SECONDS = 120.0
#: environment variable overriding the per-case budget of the adaptive full run, in ``--samples auto:``
#: syntax without the prefix, e.g. ``PRIVCHECK_ZOO_BUDGET="seconds=900,draws=2e7"`` (keys draws, seconds, first,
#: policy: ``sequential``, the default, or ``rounds``)
BUDGET_ENV = "PRIVCHECK_ZOO_BUDGET"
#: with ``policy=rounds``: round 1 of an adaptive case takes at most 1/FIRST_ROUND_SHARE of CASE_MAX_SECONDS at
#: the library's measured call rate (a library at a few hundred calls/s would otherwise spend minutes on round 1);
#: the sequential policy (the default) starts with 2000 draws per input and may stop after any batch
FIRST_ROUND_SHARE = 8
#: seconds one case may run before it is stopped (one line in its row); above CASE_MAX_SECONDS, whose
#: last round may overrun its prediction
CASE_TIMEOUT = 600.0
#: seconds the one-off warm-up call of a claim may take (it runs in a daemon thread)
WARM_UP_TIMEOUT = 120.0
INSTALL_HINT = "not installed: pip install 'privcheck[zoo]'"
#: claim-id prefix the default catalogue run leaves out (see privcheck.runner.select)
PREFIX = "zoo."


@dataclass
class Case:
    """One audited configuration of a library mechanism.

    label: e.g. ``eps=1, d=4``; build: ``() -> sampler f(x, n, rng)`` (called once, in the check);
    inputs: candidate inputs (all ordered pairs: local DP) or, with ``pairs``, neighbouring inputs
    (central DP, the library's relation); eps/delta: the documented guarantee; true_eps: calculator
    ``() -> float`` of the exact ε of the documented probabilities (None: not computable);
    calculator: its label; outside: the case feeds an input outside the documented domain.
    """

    label: str
    build: Callable[[], Callable]
    inputs: list
    eps: float
    delta: float = 0.0
    pairs: list | None = None
    true_eps: Callable[[], float] | None = None
    calculator: str = ""
    outside: bool = False
    #: a μ-GDP claim instead of ε (audited from trade-off points at a fixed size; ``eps`` is then ε(δ) of μ, for
    #: the table) and the calculator of the code's exact μ
    mu: float | None = None
    mu_true: Callable[[], float] | None = None
    #: a post-processing view for the auditor (None: chosen by output type); e.g. the projection of a Gaussian
    #: vector on the direction the neighbours differ in (its likelihood-ratio statistic)
    view: Callable | None = None
    #: the calculators derive the true values from the code's own parameters (not only from its documentation):
    #: a true ε (or μ) above the claim refutes the case exactly, whatever the Monte Carlo bound (exact beats sampled)
    exact_refutes: bool = False
    #: what the true value is computed from: ``"code"`` (the code's own parameters and probabilities) or
    #: ``"documented"`` (the documented law; it restates the documentation); "" = from the calculator label
    true_basis: str = ""
    #: a note for the row (e.g. which layer of the library the adapter drives)
    note: str = ""


@dataclass
class Entry:
    """A library mechanism: claim id ``zoo.<library>.<mechanism>``, where it lives, and its cases."""

    claim_id: str
    library: str
    dist: str
    modules: tuple
    where: str
    statement: str
    adapter: str
    cases: Callable[[], list[Case]]
    extra_dists: tuple = field(default_factory=tuple)
    #: draws per input per case of the default run (None: DEFAULT_SAMPLES); for libraries whose per-call
    #: rate (a few hundred outputs/s) would make the default run take many minutes; --samples overrides it
    samples: int | None = None
    #: the install line of a missing library (default :data:`INSTALL_HINT`)
    install_hint: str = ""


ENTRIES: list[Entry] = []


def register(entry: Entry) -> Entry:
    """Add ``entry`` to the catalogue: a ``privacy`` claim with one ``mc`` check (:func:`run_entry`)."""
    CATALOGUE.add_claim(Claim(entry.claim_id, entry.library, entry.where, "privacy", entry.statement, ("mc",)))
    check(entry.claim_id, "mc")(lambda ctx, _e=entry: run_entry(_e, ctx))
    ENTRIES.append(entry)
    return entry


def selection_lines(claim_ids) -> list[str]:
    """One line per library behind the selected ``zoo.*`` claim ids whose installed version differs from the
    scorecard's (:func:`privcheck.catalogue.zoo.pins.mismatch_lines`). A claim that is not a sampled entry (a
    gray-box trace, a calibrator, Opacus's calibration and data loader) counts with the entries of its library
    (the ``zoo.<library>.`` part of its id)."""
    from privcheck.catalogue.zoo.pins import mismatch_lines

    ids = set(claim_ids)
    libs = {i.split(".")[1] for i in ids if i.startswith(PREFIX) and i.count(".") >= 2}
    return mismatch_lines(
        d for e in ENTRIES if e.claim_id in ids or e.claim_id.split(".")[1] in libs for d in (e.dist, *e.extra_dists)
    )


def grid(make: Callable[..., Case | None], eps_grid=EPS_GRID, **axes) -> Callable[[], list[Case]]:
    """Cases ``make(eps=e, **one value per axis)`` over ``eps_grid`` × the axes (None results dropped)."""
    import itertools

    def build() -> list[Case]:
        names = list(axes)
        out = []
        for e in eps_grid:
            for combo in itertools.product(*(axes[n] for n in names)):
                c = make(eps=e, **dict(zip(names, combo)))
                if c is not None:
                    out.append(c)
        return out

    return build


def _one_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip().splitlines()
    return text[0][:200] if text else type(exc).__name__


def _call_rate(sampler, x, n: int = 2000) -> float | None:
    """The library's own call rate (outputs/s) on one input, from a short timed batch."""
    import numpy as np

    t0 = time.perf_counter()
    try:
        sampler(x, n, np.random.default_rng(0))
    except Exception:  # noqa: BLE001 - the audit reports the failure
        return None
    dt = time.perf_counter() - t0
    return round(n / dt, 1) if dt > 0 else None


def audit_case(case: Case, samples, seed: int, confidence: float, call_rate: bool = True) -> dict:
    """Audit one case and return its row (see the module docstring for the fields).

    samples: draws per input (int ≥ 20), an :class:`~privcheck.auditor.adaptive.Auto`, or None for the
    adaptive full run (:func:`case_samples`: target from the true ε, per-case budget, round 1 sized from
    the measured call rate); seed ≥ 0; confidence in (0, 1) for this case; call_rate: also time the
    library's own call rate on 2000 draws (off in repeated runs such as the false-refutation benchmark).
    """
    import privcheck

    row = _case_head(case)
    t0 = time.perf_counter()
    try:
        sampler = case.build()
        x0 = case.pairs[0][0] if case.pairs else case.inputs[0]
        rate = _call_rate(sampler, x0) if call_rate or samples is None else None
        if call_rate:
            row["library_calls_per_second"] = rate
        if samples is None:
            n_inputs = 2 * len(case.pairs) if case.pairs else len(case.inputs)
            first = rate * case_budget()["max_seconds"] / (FIRST_ROUND_SHARE * n_inputs) if rate else None
            samples = case_samples(case, row.get("eps_true"), None, first)
        res = privcheck.audit(
            sampler,
            inputs=None if case.pairs else case.inputs,
            pairs=case.pairs,
            eps=None if case.mu is not None else case.eps,
            mu=case.mu,
            view=case.view,
            delta=(case.delta or None) if case.mu is not None else case.delta,
            samples=samples,
            seed=seed,
            confidence=confidence,
            jobs=1,
        )
    except Exception as exc:  # noqa: BLE001 - a raising mechanism is one line, the rest runs
        msg = _one_line(exc)
        row.update(
            verdict="refuses input" if case.outside else "error", error=msg, seconds=round(time.perf_counter() - t0, 2)
        )
        return row
    row.update(_audit_fields(res, round(time.perf_counter() - t0, 2)))
    row.update(of_true(res.eps_lower, row.get("eps_true"), case.eps))
    if case.exact_refutes and row["verdict"] != "refuted":
        over = _exact_excess(row, case)
        if over:
            row.update(verdict="refuted", verdict_basis="exact", exact_finding=over)
    adaptive = res.details.get("adaptive")
    if adaptive is not None:
        row["adaptive"] = _adaptive_summary(adaptive)
    power = power_statement(row, adaptive)
    if power:
        row["power"] = power
    return row


def _adaptive_summary(adaptive: dict) -> dict[str, Any]:
    """What a row keeps of the auditor's adaptive record: the policy that ran (``sequential`` or ``rounds``),
    target, budget, why it stopped, the round (or batch) sizes, and the sequential policy's final look."""
    out = {
        "policy": adaptive.get("policy", "rounds"),
        "target": adaptive["target"],
        "max_draws": adaptive["max_draws"],
        "max_seconds": adaptive["max_seconds"],
        "stopped": adaptive["stopped"],
        "rounds": [r["samples"] for r in adaptive["rounds"]],
        "alpha_spent": adaptive["alpha_spent"],
        "needed_draws": adaptive["needed_draws"],
    }
    if "alpha_final" in adaptive:
        out |= {"alpha_final": adaptive["alpha_final"], "final_eps_lower": adaptive["final_eps_lower"]}
    return out


def _case_head(case: Case) -> dict[str, Any]:
    """A row's first fields: the case, its claim, its inputs, the calculator's true values (or why not)."""
    row: dict[str, Any] = {
        "case": case.label,
        "eps_claimed": case.eps,
        "delta_claimed": case.delta,
        "inputs": [str(v) for v in case.inputs],
        "outside_domain": case.outside,
    }
    if case.true_eps is not None or case.mu_true is not None:
        row["true_basis"] = true_basis(case)
    if case.mu is not None:
        row["mu_claimed"] = case.mu
    if case.note:
        row["note"] = case.note
    if case.mu_true is not None:
        try:
            row["mu_true"] = float(case.mu_true())
        except Exception as exc:  # noqa: BLE001
            row["mu_true"], row["calculator"] = None, f"calculator failed: {_one_line(exc)}"
    if case.true_eps is not None:
        try:
            row["eps_true"] = float(case.true_eps())
            row["calculator"] = case.calculator
        except Exception as exc:  # noqa: BLE001
            row["eps_true"], row["calculator"] = None, f"calculator failed: {_one_line(exc)}"
    return row


def _audit_fields(res, seconds: float) -> dict[str, Any]:
    """The row's fields from the auditor's result ``res`` (verdict, bounds, event, sizes) and the seconds taken."""
    return dict(
        verdict=res.verdict,
        eps_lower=res.eps_lower,
        certified=res.certified_fraction,
        worst_pair=_plain(res.worst_pair),
        event=_short(res.event),
        reproducible=res.reproducible,
        auto_view=res.details.get("auto_view"),
        delta_lower=res.delta_lower,
        draws_per_second=res.details.get("draws_per_second"),
        reason=res.reason,
        mu_lower=res.mu_lower,
        eps_lower_at_delta=res.eps_lower_at_delta,
        eps_max_certifiable=res.eps_max_certifiable,
        draws_per_input=res.samples,
        seconds=seconds,
    )


def true_basis(case: Case) -> str:
    """``"code"`` when the calculator derives the true value from the code's own parameters or probabilities
    (its label says "code's", "library's" or "calibrated sigma"), else ``"documented"``: the scorecard then
    labels the value "documented", never "true"."""
    if case.true_basis:
        return case.true_basis
    label = case.calculator.lower()
    return "code" if any(w in label for w in ("code's", "library's", "calibrated sigma")) else "documented"


def _exact_excess(row: dict, case: Case) -> str | None:
    """The sentence saying the code's exact value exceeds the claim (None when it does not)."""
    mu_true, eps_true = row.get("mu_true"), row.get("eps_true")
    if case.mu is not None and mu_true is not None and mu_true > case.mu * (1 + 1e-9):
        return f"the code's exact mu {mu_true:.6g} exceeds the claimed {case.mu:.6g}"
    if case.mu is None and eps_true is not None and eps_true > case.eps * (1 + 1e-9):
        at = f" at delta {case.delta:g}" if case.delta else ""
        return f"the code's exact eps{at} {eps_true:.6g} exceeds the claimed {case.eps:.6g}"
    return None


def of_true(eps_lower: float | None, eps_true: float | None, eps_claimed: float) -> dict:
    """``certified_of_true`` = max(eps_lower, 0) / ε_true and its ``basis``: ``"true"`` (the calculator's ε),
    or ``"claimed"`` when there is no calculator (or it gives 0 or failed). With ε_true = ∞ the fraction is
    None (no finite bound is a fraction of ∞; the basis says so). eps_lower None (no audit): fraction None.
    """
    if eps_true is not None and eps_true > 0:
        if math.isinf(eps_true):
            return {"certified_of_true": None, "certified_basis": "true (infinite)"}
        ref, basis = eps_true, "true"
    elif eps_claimed > 0 and math.isfinite(eps_claimed):
        ref, basis = eps_claimed, "claimed"
    else:
        return {"certified_of_true": None, "certified_basis": "none"}
    frac = None if eps_lower is None else max(float(eps_lower), 0.0) / ref
    return {"certified_of_true": frac, "certified_basis": basis}


def power_statement(row: dict, adaptive: dict | None) -> str | None:
    """One line saying why a case that is not refuted stays below :data:`TARGET_OF_TRUE` of its true ε:
    the adaptive record's budget message (draws needed, a prediction) or, for a fixed-size audit, the
    auditor's reason or its most certifiable ε. None when refuted or at target."""
    if row.get("verdict") == "refuted":
        return None
    frac = row.get("certified_of_true")
    if frac is not None and frac >= TARGET_OF_TRUE:
        return None
    if adaptive is not None and adaptive.get("message"):
        return adaptive["message"]
    if row.get("reason"):
        return row["reason"]
    if frac is None:
        return None
    return (
        f"fixed size {row.get('draws_per_input')} draws/input certified {frac:.3f} of the {row['certified_basis']} eps "
        f"(at most eps {row.get('eps_max_certifiable', float('nan')):.4g} certifiable at this size)"
    )


def case_budget() -> dict:
    """The per-case budget of the adaptive full run: ``{"max_draws", "max_seconds", "first", "policy"}`` from
    :data:`CASE_MAX_DRAWS` / :data:`CASE_MAX_SECONDS` (``first`` None: the policy's first size; ``policy``
    ``"sequential"``: anytime-valid batches, :mod:`privcheck.auditor.sequential`), each overridden by
    :data:`BUDGET_ENV` (``--samples auto:`` syntax without the prefix; keys draws, seconds, first, policy —
    the target always comes from each case's true ε). One place, so the rows, round 1's sizing and
    the claim's ``sizing`` line all state the budget actually used.
    """
    from privcheck.auditor.adaptive import Auto, parse_samples
    from privcheck.base.errors import PrivcheckUsageError

    budget = {"max_draws": CASE_MAX_DRAWS, "max_seconds": CASE_MAX_SECONDS, "first": None, "policy": Auto().policy}
    env = os.environ.get(BUDGET_ENV, "").strip()
    if env:
        if "target" in env:
            raise PrivcheckUsageError(
                f"{BUDGET_ENV}={env!r}: the target comes from each case's true eps; set draws, seconds or first"
            )
        user, default = parse_samples(f"auto:{env}"), Auto()
        budget.update({k: getattr(user, k) for k in budget if getattr(user, k) != getattr(default, k)})
    return budget


def case_samples(case: Case, eps_true: float | None, n_fixed: int | None, first: int | None = None):
    """What one case is audited with: ``n_fixed`` draws per input when given (``--samples``, ``--quick``)
    or when the case claims μ, or δ > 0 under ``policy=rounds`` (then :data:`DEFAULT_SAMPLES`: the rounds cover ε
    claims only; a μ case keeps the fixed curve audit of its values, whose scope the scorecard states — the
    sequential μ audit's auto view also tests the outputs' float bits, a different claim); the sequential policy
    takes (ε, δ) claims, target a share of the claimed δ;
    else an :class:`~privcheck.auditor.adaptive.Auto` whose target is :data:`TARGET_OF_TRUE` of the true ε
    expressed as a fraction of the claimed ε (the only target ``Auto`` takes), capped at 1 (a broken case
    stops on refutation), with the per-case budget and policy of :func:`case_budget`. The sequential policy (the
    default) starts from its own first epoch (2000 draws per input: a gross violation of a slow library is
    refuted after a few hundred calls); ``policy=rounds`` takes ``first`` draws per input in round 1 (default
    the auditor's, cut to the call rate's ``first``). A ``first`` set in :data:`BUDGET_ENV` wins either way.
    """
    from privcheck.auditor.adaptive import FIRST_ROUND, MIN_ROUND, Auto

    if n_fixed is not None:
        return int(n_fixed)
    budget = case_budget()
    policy = budget["policy"]
    if case.mu is not None or (case.delta > 0 and policy != "sequential"):  # the rounds take ε claims only
        return DEFAULT_SAMPLES  # μ: the curve audit of the values (sequential μ also sees float bits: docs)
    target = TARGET_OF_TRUE  # (ε, δ) claims: of the claimed δ
    if case.delta == 0 and case.mu is None and eps_true is not None and 0 < eps_true and 0 < case.eps < math.inf:
        target = min(1.0, TARGET_OF_TRUE * eps_true / case.eps) if math.isfinite(eps_true) else 1.0
    if budget["first"] is not None:  # set by the user: taken as given
        first = int(budget["first"])
    elif policy == "sequential":  # its first epoch: batches from a few hundred draws on, no call-rate sizing
        first = None
    else:
        first = FIRST_ROUND if first is None else max(MIN_ROUND, min(FIRST_ROUND, int(first)))
    return Auto(
        target=target, max_draws=budget["max_draws"], max_seconds=budget["max_seconds"], first=first, policy=policy
    )


def _timed_case(case: Case, samples, seed: int, confidence: float, call_rate: bool = True) -> dict:
    from privcheck.base.resources import CheckTimeout, call_with_timeout

    try:
        return call_with_timeout(audit_case, (case, samples, seed, confidence, call_rate), CASE_TIMEOUT)
    except CheckTimeout:
        return {
            "case": case.label,
            "eps_claimed": case.eps,
            "verdict": "timeout",
            "error": f"stopped after {CASE_TIMEOUT:g} s (per-case timeout)",
            "seconds": CASE_TIMEOUT,
        }
    except RuntimeError as exc:  # the child could not return its row (e.g. an unpicklable output)
        return {"case": case.label, "eps_claimed": case.eps, "verdict": "error", "error": _one_line(exc)}


def _warm_up(cases: list[Case]) -> None:
    """Import and JIT-compile the library here once (numba clients compile per process), so that every
    case forked from this process inherits it instead of compiling again. Failures are left to the cases."""
    import threading

    import numpy as np

    def call(c: Case) -> None:
        try:
            c.build()(c.pairs[0][0] if c.pairs else c.inputs[0], 2, np.random.default_rng(0))
        except Exception:  # noqa: BLE001
            pass

    for c in cases[:1]:  # in a daemon thread: a library that hangs here cannot stop the run
        t = threading.Thread(target=call, args=(c,), daemon=True)
        t.start()
        t.join(WARM_UP_TIMEOUT)


def run_entry(entry: Entry, ctx: RunContext, timeout: bool = True) -> Outcome:
    """Run every case of ``entry``: family-wise ``ctx.confidence`` over the cases (Bonferroni)."""
    from privcheck.catalogue.peers import missing, versions
    from privcheck.catalogue.zoo.pins import SCORECARD_VERSIONS

    vers = versions(entry.dist, *entry.extra_dists)
    pinned = {d: SCORECARD_VERSIONS[d] for d in vers if d in SCORECARD_VERSIONS}
    absent = missing(*entry.modules)
    if absent is not None:
        return Outcome(
            "inconclusive",
            claimed=entry.statement,
            measured=None,
            details={
                "skipped": True,
                "reason": f"{entry.dist} {entry.install_hint or INSTALL_HINT}",
                "library": entry.library,
                "versions": vers,
                "scorecard_versions": pinned,
            },
        )
    try:
        cases = entry.cases()
    except Exception as exc:  # noqa: BLE001
        return Outcome(
            "inconclusive",
            claimed=entry.statement,
            details={"reason": f"building the cases failed: {_one_line(exc)}", "versions": vers},
        )
    default = entry.samples or DEFAULT_SAMPLES
    # --samples N and --quick: a fixed size for every case; the full run: adaptive per case (None)
    n = ctx.n(default, min(QUICK_SAMPLES, default)) if ctx.samples is not None or ctx.quick else None
    conf = 1.0 - (1.0 - ctx.confidence) / max(1, len(cases))
    if timeout:
        _warm_up(cases)
    base = int(ctx.seed_seq.generate_state(1)[0])
    run = _timed_case if timeout else audit_case
    # (ε, δ) cases are not adaptive: the entry's fixed default (slow libraries set a smaller one)
    rows = [
        run(c, default if n is None and (c.delta > 0 or c.mu is not None) else n, (base + i) % (2**31), conf)
        for i, c in enumerate(cases)
    ]
    for r in rows:
        r["version"] = vers.get(entry.dist)
        r["adapter"] = entry.adapter
    # mu claims read mu claimed -> mu_lower; the others eps claimed -> eps_lower
    measured = {r["case"]: r.get("mu_lower") if "mu_claimed" in r else r.get("eps_lower") for r in rows}
    claimed = {r["case"]: r.get("mu_claimed", r["eps_claimed"]) for r in rows}
    return Outcome(
        _entry_verdict([r["verdict"] for r in rows]),
        claimed=claimed,
        measured=measured,
        details=_entry_details(entry, ctx, rows, vers, pinned, _sizing(n, default)),
        samples=sum((r.get("draws_per_input") or 0) * len(c.inputs) for r, c in zip(rows, cases)),
    )


def _entry_verdict(verdicts: list[str]) -> str:
    """Refuted if a case is; holds if every case holds or refuses its input (one at least holding); else
    inconclusive."""
    if "refuted" in verdicts:
        return "refuted"
    if verdicts and all(v in ("holds", "refuses input") for v in verdicts) and "holds" in verdicts:
        return "holds"
    return "inconclusive"


def _sizing(n: int | None, default: int) -> str:
    """The line saying how the cases were sized: fixed ``n`` draws per input, or adaptive (``n`` None)."""
    if n is not None:
        return f"fixed {n} draws/input per case"
    budget = case_budget()
    return (
        f"adaptive per case: target {TARGET_OF_TRUE:g} of the true eps (claimed where no "
        f"calculator), budget {budget['max_draws']:.0e} draws/input and "
        f"{budget['max_seconds']:g} s, {budget['policy']} policy; (eps, delta) cases fixed {default} draws/input"
    )


def _entry_details(
    entry: Entry, ctx: RunContext, rows: list[dict], vers: dict, pinned: dict, sizing: str
) -> dict[str, Any]:
    """The claim's details: the case rows, versions, reproducibility, problems, how to rerun, the sizing."""
    from privcheck.catalogue.zoo.pins import differs

    mismatch = [line for d, v in vers.items() if (line := differs(d, v))]
    problems = [
        f"{r['case']}: {r['verdict']} ({r['error']})"
        for r in rows
        if r.get("error") and r["verdict"] != "refuses input"
    ]
    not_repro = any(r.get("reproducible") is False for r in rows)
    details: dict[str, Any] = {
        "cases": rows,
        "library": entry.library,
        "versions": vers,
        "scorecard_versions": pinned,
        "adapter": entry.adapter,
        "confidence": ctx.confidence,
        "reproducible": not not_repro,
        "note": "Monte Carlo can refute a privacy claim, never prove it: 'holds' means no violation "
        "detected at this power",
    }
    if not_repro:
        details["reproducibility"] = (
            f"{entry.library} ignores numpy seeding: these results are valid but not reproducible from the seed"
        )
    if problems:
        details["problems"] = problems
    details["reproduce"] = reproduce_command(entry.claim_id, ctx)
    if mismatch:
        details["version_mismatch"] = mismatch
    details["sizing"] = sizing
    below = [f"{r['case']}: {r['power']}" for r in rows if r.get("power")]
    if below:
        details["below_target"] = below
    return details


def reproduce_command(claim_id: str, ctx: RunContext) -> str:
    """The ``privcheck verify`` line that reruns a zoo claim as ``ctx`` ran it (seed, --quick, --samples); rows of an
    adaptive full run are rerun at their own size with ``--samples`` their ``draws_per_input``."""
    flags = " --quick" if ctx.quick else ""
    if ctx.samples is not None:
        flags += f" --samples {ctx.samples}"
    return f"privcheck verify '{claim_id}' --seed {ctx.seed}{flags}"


def _plain(v):
    if v is None:
        return None
    return [str(a) for a in v]


def _short(v, width: int = 160):
    if v is None:
        return None
    text = str(v)
    return text if len(text) <= width else text[: width - 1] + "…"
