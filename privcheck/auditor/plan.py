"""The audit plan: the validated, resolved form of an :func:`~privcheck.auditor.api.audit` call.

:class:`AuditRequest` holds the call's keywords as given; :func:`build_plan` validates them (one clear
:class:`~privcheck.base.errors.PrivcheckUsageError` for bad input, before any draw) and resolves the defaults —
the inputs and the pairs compared (:mod:`privcheck.auditor.target`), the claim (:mod:`privcheck.auditor.claim`),
the draw policy (:mod:`privcheck.auditor.policy`), the backend (:mod:`privcheck.auditor.execution`) — into an
:class:`AuditPlan`, which the claim kind's runner executes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from estimators.base import Mechanism
from privcheck.auditor.claim import Claim, EpsClaim, check_claimed_eps, resolve_claim
from privcheck.auditor.curves.claimed import ClaimedCurve
from privcheck.auditor.defaults import DEFAULT_SAMPLES, MAX_EVENTS, SELECTION_SHARE
from privcheck.auditor.execution import Execution
from privcheck.auditor.policy import AUTO_POLICIES, DrawPolicy, draw_policy
from privcheck.auditor.sizing import check_audit_request
from privcheck.auditor.target import resolve_pairs
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.resources import check_samples
from privcheck.base.validation import check_int, check_probability

RESTRICTED_NOTE = "exact ε skipped: pairs=/neighbours=/view= restrict what is audited"


@dataclass
class AuditRequest:
    """The keywords of an :func:`~privcheck.auditor.api.audit` call, as given (see its docstring)."""

    mech: Any
    inputs: Any = None
    eps: Any = None
    samples: Any = DEFAULT_SAMPLES
    pairs: Any = None
    neighbours: Callable | None = None
    view: Any = None
    seed: Any = 0
    confidence: float = 0.95
    exact: bool | None = None
    monte_carlo: bool = True
    delta: Any = None
    jobs: int | None = None
    client: Any = None
    max_events: int = MAX_EVENTS
    selection_share: float = SELECTION_SHARE
    progress: Callable[[int], None] | None = None
    mu: Any = None
    accountant: Any = None
    curve: bool = True
    family: Any = None


@dataclass
class AuditPlan:
    """A validated audit: the mechanism or sampler (``mech``, named ``name``) at ``inputs`` (compared as
    ``pairs``/``neighbours`` say, through ``view``), the ``claim``, the draw ``policy`` (None: no Monte Carlo
    part), the ``execution`` (backend), the ``seed`` and ``confidence``, the event strategy's ``max_events`` and
    ``selection_share``, ``exact`` (compute the exact ε: None = when available), ``curve`` (ε at δ from trade-off
    points for δ > 0), ``delta_at`` (a curve claim's δ for ε at δ; None: not asked) and ``details`` known before any draw (e.g. why the exact part is skipped)."""

    mech: Any
    name: str
    inputs: list
    claim: Claim
    policy: DrawPolicy | None
    execution: Execution
    seed: int
    confidence: float
    pairs: Any = None
    neighbours: Callable | None = None
    view: Any = None
    exact: bool | None = None
    curve: bool = True
    max_events: int = MAX_EVENTS
    selection_share: float = SELECTION_SHARE
    delta_at: Any = None
    details: dict = field(default_factory=dict)

    @property
    def is_mechanism(self) -> bool:
        """Whether ``mech`` is a built-in mechanism (with known probabilities) rather than a plain sampler."""
        return isinstance(self.mech, Mechanism)

    @property
    def samples(self) -> int:
        """The draws per input of a fixed policy (0 without a Monte Carlo part; the budget of an adaptive one)."""
        return 0 if self.policy is None else self.policy.planned

    @property
    def mechanism_name(self) -> str:
        """How results name the audited object: a built-in mechanism's repr, else the plan's name."""
        return repr(self.mech) if hasattr(self.mech, "exact_epsilon") else self.name

    def event_keywords(self) -> dict[str, Any]:
        """The keywords every Monte Carlo run of this plan shares (confidence, seed, execution, events, view)."""
        ex = self.execution
        return dict(
            confidence=self.confidence,
            seed=self.seed,
            jobs=ex.jobs,
            max_events=self.max_events,
            selection_share=self.selection_share,
            progress=ex.progress,
            pairs=self.pairs,
            neighbours=self.neighbours,
            view=self.view,
            client=ex.client,
        )


def _policy(req: AuditRequest, is_mech: bool) -> DrawPolicy | None:
    """The draw policy of the request, refused when its draws would not fit (memory, sample limits)."""
    policy = draw_policy(req.samples) if req.monte_carlo else None
    planned = 0 if policy is None else policy.planned  # the most draws per input this audit may take
    if is_mech:  # refused from the parameters before the inputs are built (d = 10^9 would exhaust memory)
        check_audit_request(
            req.mech, planned, jobs=req.jobs, monte_carlo=req.monte_carlo, distributed=req.client is not None
        )
    elif req.monte_carlo:
        check_samples(planned, "samples", distributed=req.client is not None)
    return policy


def build_plan(req: AuditRequest) -> AuditPlan:
    """Validate ``req`` and resolve its defaults into an :class:`AuditPlan` (see the module docstring)."""
    mech, is_mech = req.mech, isinstance(req.mech, Mechanism)
    name = mech.name if is_mech else getattr(mech, "__name__", type(mech).__name__)
    if not callable(mech):
        raise PrivcheckUsageError("audit needs a mechanism or a callable f(x, n, rng)")
    policy = _policy(req, is_mech)
    inputs = req.inputs
    if inputs is None and req.pairs is None:
        if not is_mech:
            raise PrivcheckUsageError("audit of a plain callable needs inputs=[x0, x1, ...] (or pairs=[(x0, x1), ...])")
        inputs = mech.inputs()
    inputs, _ = resolve_pairs(inputs, req.pairs, req.neighbours)
    curve = resolve_claim(mech, req.mu, req.accountant, req.eps)
    plan = AuditPlan(
        mech=mech,
        name=name,
        inputs=inputs,
        claim=EpsClaim(0.0),  # resolved below
        policy=policy,
        execution=Execution(req.jobs, req.client, req.progress),
        seed=0,  # validated below, after the claim (as the messages' order has it)
        confidence=req.confidence,
        pairs=req.pairs,
        neighbours=req.neighbours,
        view=req.view,
        exact=req.exact,
        curve=req.curve,
        max_events=req.max_events,
        selection_share=req.selection_share,
    )
    if curve is not None:
        return _curve_plan(plan, curve, req)
    return _eps_plan(plan, req)


def _curve_plan(plan: AuditPlan, claim: ClaimedCurve, req: AuditRequest) -> AuditPlan:
    """The plan of a μ-GDP or accountant claim: audited from a fixed number of samples only."""
    if isinstance(plan.policy, AUTO_POLICIES) and (claim.kind != "gdp" or plan.policy.auto.policy != "sequential"):
        raise PrivcheckUsageError(
            "samples='auto' is for eps, (eps, delta) and mu-GDP claims (sequential policy); "
            "an accountant claim (or policy=rounds with mu=) takes a number of samples"
        )
    if not req.monte_carlo or req.exact:
        raise PrivcheckUsageError(
            "a mu= or accountant= claim is audited from samples: it takes neither "
            "monte_carlo=False nor exact=True (exact ε is for ε claims)"
        )
    plan.claim = claim
    plan.delta_at = req.delta  # validated by the curve strategy
    plan.seed = check_int("seed", req.seed, minimum=0)
    return plan


def _eps_plan(plan: AuditPlan, req: AuditRequest) -> AuditPlan:
    """The plan of an (ε, δ) claim: the claim's defaults from the mechanism, the exact part's settings."""
    eps = req.eps
    if eps is None:
        if not plan.is_mechanism:
            raise PrivcheckUsageError("audit of a plain callable needs the claimed eps=...")
        eps = plan.mech.eps_nominal
    delta = req.delta
    if delta is None:
        delta = plan.mech.delta_nominal if plan.is_mechanism else 0.0
    plan.claim = EpsClaim(check_claimed_eps(eps), check_probability("delta", delta, open_high=True))
    plan.seed = check_int("seed", req.seed, minimum=0)
    restricted = req.pairs is not None or req.neighbours is not None or (req.view is not None and req.view is not False)
    if restricted and plan.is_mechanism:
        if req.exact:
            raise PrivcheckUsageError(
                "exact ε covers the raw outputs of all input pairs; it cannot be combined "
                "with pairs=, neighbours= or view= (use exact=False)"
            )
        plan.exact = False
        plan.details["exact_note"] = RESTRICTED_NOTE
    mech, d = plan.mech, plan.claim.delta
    if plan.is_mechanism and d > 0 and d != mech.delta_nominal and hasattr(mech, "with_delta"):
        plan.mech = mech.with_delta(d)  # --delta D audits the same (ε, δ) claim as --param delta=D
    if req.exact and not plan.is_mechanism:
        raise PrivcheckUsageError("exact ε needs a built-in mechanism with known probabilities")
    return plan
