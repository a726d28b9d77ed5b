"""The runner of an (ε, δ) claim: exact part, Monte Carlo part (under the plan's draw policy), curve part,
decision.

- **exact**: a built-in mechanism's exact ε (:meth:`~estimators.base.Mechanism.exact_epsilon`; for δ > 0
  its exact δ at the claimed ε where it has ``delta_at``), unless ``pairs=``/``neighbours=``/``view=``
  restrict what is audited;
- **Monte Carlo**: the event strategy's lower bound on ε (on δ at the claimed ε when δ > 0), one run or
  adaptive rounds (:mod:`privcheck.auditor.policy`);
- **curve** (δ > 0, fixed samples ≥ 100, ``curve=True``): ``eps_lower_at_delta`` from trade-off points on
  draws of their own (:mod:`privcheck.auditor.curves`; reported at its own confidence, no effect on the verdict);
- **decide**: :func:`privcheck.auditor.stages.decide.combine`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from privcheck.auditor.claim import EpsClaim
from privcheck.auditor.fresh_draws import NOT_REPRODUCIBLE
from privcheck.auditor.plan import AuditPlan
from privcheck.auditor.policy import EventAudit
from privcheck.auditor.result import AuditResult, MonteCarloBound
from privcheck.auditor.stages.decide import (
    certified_fraction,
    combine,
    detectable_delta,
    exact_delta_verdict,
    exact_verdict,
    max_certifiable_delta,
    mc_decision,
)
from privcheck.auditor.target import plain, plain_pair
from privcheck.base.errors import PrivcheckUsageError

if TYPE_CHECKING:  # mpmath and the curve auditor load only when used (start-up, issue 33)
    from privcheck.base.exact import ExactEpsilon


@dataclass
class ExactPart:
    """The exact part of an ε audit: the mechanism's exact ε (None: not computed), exact δ and their verdict."""

    ex: ExactEpsilon | None = None
    delta_exact: float | None = None
    verdict: str | None = None


@dataclass
class MonteCarloPart:
    """The Monte Carlo part of an ε audit: the bound, its verdict and the reason when not plain."""

    bound: MonteCarloBound | None = None
    verdict: str | None = None
    reason: str | None = None


def exact_part(plan: AuditPlan, claim: EpsClaim, details: dict) -> ExactPart:
    """The exact ε (and δ) of a built-in mechanism, when asked for or available; its details recorded."""
    if plan.exact is False or not plan.is_mechanism:
        return ExactPart()
    ex = plan.mech.exact_epsilon()
    if ex is None:
        if plan.exact:
            raise PrivcheckUsageError(f"mechanism {plan.name!r} has no exact output distribution; use --no-exact")
        return ExactPart()
    details.update(
        exact_pair=plain_pair(ex.worst_pair),
        exact_output=plain(ex.worst_output),
        exact_method=ex.method,
        exact_note=ex.note,
    )
    if claim.delta > 0 and hasattr(plan.mech, "delta_at"):
        delta_exact = float(plan.mech.delta_at(claim.eps))
        return ExactPart(ex, delta_exact, exact_delta_verdict(delta_exact, claim.delta))
    return ExactPart(ex, None, exact_verdict(ex.eps, claim.eps))


def event_audit(plan: AuditPlan, claim: EpsClaim) -> EventAudit:
    """The shared settings of the plan's Monte Carlo runs (δ bounded at the claimed ε when δ > 0)."""
    keywords = plan.event_keywords()
    keywords["delta_eps"] = claim.eps if claim.delta > 0 else None
    return EventAudit(plan.mech, plan.inputs, keywords, delta=claim.delta)


def monte_carlo_part(plan: AuditPlan, claim: EpsClaim, details: dict) -> MonteCarloPart:
    """The Monte Carlo bound under the plan's draw policy, its decision and its details."""
    if plan.policy is None:
        return MonteCarloPart()
    t_mc = time.perf_counter()
    bound, record = plan.policy.bound(event_audit(plan, claim), claim.eps)
    t_mc = time.perf_counter() - t_mc
    if record is not None:
        details["adaptive"] = record
    details["draws"] = bound.draws
    details["draws_per_second"] = round(bound.draws / t_mc, 1) if t_mc > 0 else None
    verdict, reason = mc_decision(bound, claim.eps, claim.delta)
    if bound.delta_eps is not None:
        details["delta_max_certifiable"] = max_certifiable_delta(bound)
        details["delta_detectable"] = detectable_delta(bound, claim.delta)
    details["candidates"] = bound.candidates
    details["selection_samples"] = bound.selection_samples
    details["estimation_samples"] = bound.estimation_samples
    details["pilot_samples"] = bound.pilot_samples
    details["pairs_audited"] = bound.pairs_audited
    if bound.view:
        details["auto_view"] = bound.view
    if not bound.reproducible:
        details["reproducibility"] = NOT_REPRODUCIBLE
    return MonteCarloPart(bound, verdict, reason)


def run_eps_audit(plan: AuditPlan, started: float) -> AuditResult:
    """Audit the plan's (ε, δ) claim (``started``: ``time.perf_counter()`` at the call, for ``seconds``)."""
    claim = plan.claim
    assert isinstance(claim, EpsClaim)
    details = dict(plan.details)
    ex = exact_part(plan, claim, details)
    mc = monte_carlo_part(plan, claim, details)
    extra: dict[str, Any] = {}
    if plan.curve and claim.delta > 0:  # the curve part (its module loads only here)
        from privcheck.auditor.curves.audit import curve_part

        extra = curve_part(plan, claim, details)
    decision = combine(ex.verdict, mc.verdict, mc.reason)
    if decision.warning:
        details["warning"] = decision.warning
    b = mc.bound
    return AuditResult(
        mechanism=repr(plan.mech) if plan.is_mechanism else plan.name,
        eps_claimed=claim.eps,
        eps_exact=None if ex.ex is None else ex.ex.eps,
        eps_exact_text=None if ex.ex is None else ex.ex.eps_text,
        eps_lower=None if b is None else b.eps_lower,
        confidence=plan.confidence,
        samples=b.samples_per_input if b is not None else 0,
        seconds=round(time.perf_counter() - started, 4),
        verdict=decision.verdict,
        verdict_exact=ex.verdict,
        verdict_mc=mc.verdict,
        worst_pair=None if b is None else b.worst_pair,
        event=None if b is None else b.event,
        eps_max_certifiable=None if b is None else b.eps_max_certifiable,
        delta_claimed=claim.delta,
        delta_exact=ex.delta_exact,
        delta_lower=None if b is None else b.delta_lower,
        reproducible=True if b is None else b.reproducible,
        details=details,
        certified_fraction=certified_fraction(b, claim.eps),
        reason=decision.reason,
        **extra,
    )
