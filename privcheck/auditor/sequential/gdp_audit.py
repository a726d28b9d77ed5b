"""A μ-GDP claim audited by the sequential policy (``audit(..., mu=μ, samples="auto")``).

The e-process bounds μ itself (:class:`~privcheck.auditor.sequential.nulls.Gdp`: each grid point μ' bets on the
(e, δ_μ'(e)) tangent of the Gaussian trade-off curve at the batch's plug-in, δ rounded up); the claim is refuted
when the lower bound on μ — valid at every batch at once, plus the final look's Clopper–Pearson bound at its
share of α — exceeds the claimed μ. An accountant's curve is not sequential (refused when the plan is built).
"""

from __future__ import annotations

from privcheck.auditor.curves.claimed import ClaimedCurve
from privcheck.auditor.plan import AuditPlan
from privcheck.auditor.policy import EventAudit
from privcheck.auditor.result import AuditResult, curve_result
from privcheck.auditor.stages.decide import NO_POINT


def gdp_decision(mu_lower: float, mu_top: float | None, mu: float, pairs: int) -> tuple[str, str | None]:
    """``refuted`` when ``mu_lower`` > ``mu``; ``inconclusive`` when no event separated the inputs (``mu_lower``
    ≤ 0) or these pairs could not certify more than ``mu`` (``mu_top``, the power statement); else ``holds``
    (no violation detected)."""
    if mu_lower > mu:
        return "refuted", None
    if not mu_lower > 0:
        return "inconclusive", NO_POINT
    if mu_top is None or not mu_top > mu:
        return (
            "inconclusive",
            f"{pairs} estimation pairs per input can certify at most mu {mu_top}, not more than {mu:g}",
        )
    return "holds", None


def run_sequential_gdp(plan: AuditPlan, started: float) -> AuditResult:
    """Audit the plan's μ-GDP claim under its sequential policy (``started``: ``time.perf_counter()`` at the
    call): :func:`gdp_decision` of the e-process's μ bound; ``details["adaptive"]`` is the sequential record."""
    claim = plan.claim
    assert isinstance(claim, ClaimedCurve) and claim.mu is not None
    assert plan.policy is not None
    audit = EventAudit(plan.mech, plan.inputs, plan.event_keywords(), mu=claim.mu)
    bound, record = plan.policy.bound(audit, 0.0)
    assert record is not None
    mu_lower = record["mu_lower"]
    verdict, reason = gdp_decision(mu_lower, record["mu_max_certifiable"], claim.mu, bound.estimation_samples)
    details = {"adaptive": record, "draws": bound.draws, "candidates": bound.candidates}
    return curve_result(
        plan.mechanism_name,
        started,
        verdict,
        confidence=plan.confidence,
        samples=bound.samples_per_input,
        worst_pair=bound.worst_pair,
        event=bound.event,
        reproducible=bound.reproducible,
        details=details,
        reason=reason,
        mu_claimed=claim.mu,
        mu_lower=max(0.0, mu_lower),
    )
