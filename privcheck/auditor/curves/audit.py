"""The runner of a curve claim (μ-GDP, an accountant's curve), and the curve part of an (ε, δ) audit.

Both run the curve strategy (:func:`~privcheck.auditor.curves.bound.curve_bound`) on the plan's sampler and
inputs; a curve claim is decided by :func:`~privcheck.auditor.stages.decide.curve_decision`, while the curve
part of an (ε, δ) audit only adds ``eps_lower_at_delta`` (its verdict stays the δ test's).
"""

from __future__ import annotations

from typing import Any

from privcheck.auditor.claim import EpsClaim
from privcheck.auditor.curves.bound import curve_bound
from privcheck.auditor.curves.claimed import ClaimedCurve
from privcheck.auditor.curves.estimate import CurveBound
from privcheck.auditor.curves.settings import MIN_SAMPLES
from privcheck.auditor.plan import AuditPlan
from privcheck.auditor.policy import FixedDraws
from privcheck.auditor.result import AuditResult, curve_result
from privcheck.auditor.stages.decide import curve_decision

CURVE_NOTE = (
    "points' boxes {alpha <= alpha_upper, beta <= beta_upper} hold simultaneously at the "
    "stated confidence (one-sided Clopper-Pearson, Bonferroni over 2 x points)"
)


def curve_fields(bound: CurveBound) -> dict:
    """The :class:`~privcheck.auditor.result.AuditResult` fields a curve bound fills (``mu_lower``,
    ``eps_lower_at_delta``, ``curve_points``)."""
    return {"mu_lower": bound.mu_lower, "eps_lower_at_delta": bound.eps_lower_at_delta, "curve_points": bound.points}


def curve_details(bound: CurveBound) -> dict:
    """Sample sizes and the error level of a curve audit, for ``AuditResult.details``."""
    return {
        "curve_selection_samples": bound.selection_samples,
        "curve_estimation_samples": bound.estimation_samples,
        "curve_pairs_audited": bound.pairs_audited,
        "curve_draws": bound.draws,
        "curve_refuting_points": bound.refuting,
        "curve_note": CURVE_NOTE,
    }


def _bound(plan: AuditPlan, samples: int, claim: ClaimedCurve | None, delta: float | None) -> CurveBound:
    """:func:`curve_bound` of the plan's sampler, inputs, pairs, view, seed and backend."""
    ex = plan.execution
    return curve_bound(
        plan.mech,
        plan.inputs,
        samples,
        claim=claim,
        delta=delta,
        confidence=plan.confidence,
        seed=plan.seed,
        jobs=ex.jobs,
        pairs=plan.pairs,
        neighbours=plan.neighbours,
        view=plan.view,
        client=ex.client,
        progress=ex.progress,
    )


def curve_part(plan: AuditPlan, claim: EpsClaim, details: dict) -> dict[str, Any]:
    """The curve part of an (ε, δ) audit (δ > 0, ``curve=True``, a fixed number of samples ≥ 100):
    ``eps_lower_at_delta`` from trade-off points on draws of their own; the fields it fills (else none)."""
    policy = plan.policy
    if not (plan.curve and claim.delta > 0 and isinstance(policy, FixedDraws) and policy.samples >= MIN_SAMPLES):
        return {}
    cb = _bound(plan, policy.samples, None, claim.delta)
    details.update(curve_details(cb))
    return curve_fields(cb)


def run_curve_audit(plan: AuditPlan, started: float) -> AuditResult:
    """Audit the plan's curve claim (``started``: ``time.perf_counter()`` at the call): refuted when a point's
    box lies below the claimed curve; ``delta`` (None or in [0, 1)) only adds ``eps_lower_at_delta``."""
    claim = plan.claim
    if not isinstance(plan.policy, FixedDraws):  # samples="auto" with mu=: the sequential audit of μ
        from privcheck.auditor.sequential.gdp_audit import run_sequential_gdp

        return run_sequential_gdp(plan, started)
    assert isinstance(claim, ClaimedCurve)
    samples = plan.policy.samples
    bound = _bound(plan, samples, claim, plan.delta_at)
    verdict, reason = curve_decision(bound, claim)
    best = max(bound.points, key=lambda p: p["mu_lower"]) if bound.points else None
    return curve_result(
        plan.mechanism_name,
        started,
        verdict,
        confidence=bound.confidence,
        samples=samples,
        worst_pair=None if best is None else best["pair"],
        event=None if best is None else f"{best['score']} >= {best['threshold']:.6g}",
        reproducible=bound.reproducible,
        details=curve_details(bound),
        reason=reason,
        mu_claimed=claim.mu,
        accountant=claim.description if claim.kind == "accountant" else None,
        delta_claimed=bound.delta,
        **curve_fields(bound),
    )
