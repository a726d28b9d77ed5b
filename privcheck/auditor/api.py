"""The auditor's entry point: :func:`audit` validates a call, builds its plan and runs it.

``audit(...)`` → :func:`~privcheck.auditor.plan.build_plan` (validation, defaults: target, claim, draw policy,
backend) → the claim kind's runner from :data:`RUNNERS` (:func:`~privcheck.auditor.eps_audit.run_eps_audit`,
:func:`~privcheck.auditor.curves.audit.run_curve_audit`), which runs the stages
(:mod:`privcheck.auditor.stages`) and returns an :class:`~privcheck.auditor.result.AuditResult`.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

from privcheck.auditor.claim import EpsClaim
from privcheck.auditor.curves.claimed import ClaimedCurve
from privcheck.auditor.defaults import DEFAULT_SAMPLES, MAX_EVENTS, SELECTION_SHARE
from privcheck.auditor.eps_audit import run_eps_audit
from privcheck.auditor.plan import AuditPlan, AuditRequest, build_plan
from privcheck.auditor.result import AuditResult
from privcheck.base.scheduler import one_backend_per_call


def run_curve_audit(plan: AuditPlan, started: float) -> AuditResult:
    """:func:`privcheck.auditor.curves.audit.run_curve_audit`, imported when a curve is audited (start-up, issue 33)."""
    from privcheck.auditor.curves.audit import run_curve_audit as run

    return run(plan, started)


#: the runner of each claim kind (a new claim kind: its type, its runner, one line here)
RUNNERS: dict[type, Callable[[AuditPlan, float], AuditResult]] = {
    EpsClaim: run_eps_audit,
    ClaimedCurve: run_curve_audit,
}


def run_plan(plan: AuditPlan, started: float | None = None) -> AuditResult:
    """Run a validated plan with its claim kind's runner (``started``: the call's ``time.perf_counter()``)."""
    return RUNNERS[type(plan.claim)](plan, time.perf_counter() if started is None else started)


@one_backend_per_call
def audit(
    mech: Any,
    inputs: Sequence | None = None,
    eps: float | None = None,
    samples: Any = DEFAULT_SAMPLES,
    *,
    pairs: Any = None,
    neighbours: Callable | None = None,
    view: Callable | None = None,
    seed: int = 0,
    confidence: float = 0.95,
    exact: bool | None = None,
    monte_carlo: bool = True,
    delta: float | None = None,
    jobs: int | None = None,
    client: Any = None,
    max_events: int = MAX_EVENTS,
    selection_share: float = SELECTION_SHARE,
    progress: Callable[[int], None] | None = None,
    mu: float | None = None,
    accountant: Any = None,
    curve: bool = True,
    family: str | None = None,
) -> AuditResult:
    """Audit the ε (and δ) of a mechanism or of a plain sampler, or its μ-GDP or accountant curve.

    Parameters
    ----------
    mech : a built-in mechanism (``privcheck.mechanism(...)``) or a callable ``f(x, n, rng) -> n outputs``
        (fresh i.i.d. draws from ``rng``: :mod:`privcheck.auditor.fresh_draws`).
    inputs : candidate inputs (default: ``mech.inputs()``, or the elements of ``pairs``; required for a callable
        otherwise). Alone, all ordered pairs are audited (local DP).
    pairs : ``[(x, x'), ...]`` neighbouring inputs (central DP), both orders audited, no other pair;
        neighbours : ``neighbours(x, x') -> bool`` selects them from ``inputs`` instead (either order).
    view : audit ``view(outputs)`` (post-processing, applied to every chunk before coding); None: chosen by
        output type (:mod:`privcheck.auditor.autoviews`); False: raw outputs only.
    eps : claimed ε ≥ 0 (0 claims perfect privacy; default: the mechanism's nominal ε; required for a callable).
    samples : draws per input (≥ 20), or ``"auto"`` / ``"auto:key=value,..."`` /
        :class:`~privcheck.auditor.adaptive.Auto`: batches of fresh draws tested by one anytime-valid e-process
        (:mod:`privcheck.auditor.sequential`), stopping at the first batch that refutes the claim or certifies
        95 % of it, or when 10⁷ draws per input are spent; ``"auto:policy=rounds"``: complete audits of growing
        size with alpha spending across rounds (:mod:`privcheck.auditor.policy`).
    seed : integer ≥ 0; all randomness derives from it. confidence : in (0, 1).
    exact : compute the exact ε (default: when the mechanism provides it; ``True`` without one is an error).
    monte_carlo : run the Monte Carlo lower bound.
    delta : claimed δ in [0, 1) (default: the mechanism's nominal δ); with δ > 0 the Monte Carlo part bounds δ at
        the claimed ε, and (``curve=True``, ≥ 100 samples) ``eps_lower_at_delta`` is certified from trade-off
        points on draws of their own (at ``confidence`` by itself; the verdict stays the δ test's).
    mu : a μ-GDP claim (μ > 0) instead of ``eps``: refuted when an empirical (α, β) box lies below ``G_μ``; the
        result has ``mu_lower`` (:mod:`privcheck.auditor.curves`).
    accountant : an accountant with ``tradeoff(alpha)`` (a composed ``PLDAccountant``) instead of ``eps``: refuted
        when a box lies below its certified curve's lower end. A mechanism with ``accountant()`` and no finite ε
        claim (``dp-sgd``) is audited against it by default. With a curve claim, ``delta`` (in [0, 1)) adds
        ``eps_lower_at_delta`` from the same points (the verdict stays the curve's).
    family : ``"gaussian"`` declares the mechanism Gaussian-additive: the (ε, δ) claim (δ > 0) is audited as the
        μ-GDP claim it implies (``mu = gdp_mu(eps, delta)``), a stronger test where δ at ε has no power; the
        verdict is conditional on the declared family (``reason``, ``details["family"]``;
        :mod:`privcheck.auditor.family`).
    jobs, client : workers of the chunk backend (threads by default; a Dask client or ``"local"``; see
        :func:`privcheck.base.scheduler.get_backend`). One client serves every stage, round and curve draw of the
        audit (a ``"local"`` cluster starts at the first draw and is closed when the audit returns or raises);
        pass a backend from ``get_backend(client=...)`` to reuse one across audits.

    Returns an :class:`~privcheck.auditor.result.AuditResult`: ``verdict`` ``refuted`` when the exact ε or a valid
    lower bound exceeds the claim, ``holds`` when the exact ε meets it (or, without one, when an audit that
    separated the inputs detected no violation), ``inconclusive`` otherwise (``reason`` says why);
    ``certified_fraction``: how much of the claim was certified.
    """
    request = AuditRequest(**locals())  # the call's keywords, as given (nothing else is defined yet)
    started = time.perf_counter()
    if family is not None:  # the μ the (ε, δ) claim implies for the declared family, verdict conditional on it
        from privcheck.auditor.family import conditional, implied_request  # only with family= (start-up)

        mu_request, declared = implied_request(request)
        return conditional(run_plan(build_plan(mu_request), started), declared)
    return run_plan(build_plan(request), started)
