"""A declared mechanism family: audit the μ an (ε, δ) claim implies instead of δ at ε (issue 30 §2).

An (ε, δ) audit of sampled outputs bounds δ at the claimed ε from event counts; a violation that lives in a tail
no affordable sample reaches (a Gaussian mechanism under-noised for δ = 10⁻⁶) leaves it without power: it
reports ``holds`` while detecting only δ violations far above the claim (``details["delta_detectable"]``, and
the summary says so). When the mechanism is *declared* Gaussian-additive (``family="gaussian"``), the claim
means more: a Gaussian-additive mechanism (output = f(x) + N(0, σ²I), any sensitivity) is (ε, δ)-DP exactly
when it is μ-GDP with ``μ ≤ gdp_mu(ε, δ)`` (its trade-off curve is G_μ with μ = Δ/σ; Dong, Roth & Su 2019,
"Gaussian differential privacy", Cor. 2.13 gives δ_μ(ε), increasing in μ; :func:`implied_mu` solves
δ_μ(ε) = δ and rounds *up*, so that the μ audited is implied by the claim and a refutation is on the safe side).
So the audit tests the μ-GDP claim with that μ (a trade-off-curve audit whose
power reaches the bulk of the outputs, :mod:`privcheck.auditor.curves`), and the verdict holds *conditional on
the declared family*: a refutation says "not μ-GDP at the implied μ", which contradicts the (ε, δ) claim only if
the mechanism is Gaussian-additive. The result says so (``reason``, ``details["family"]``, the summary's verdict
line).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_eps, check_probability

#: the families a claim can be declared to belong to
FAMILIES = ("gaussian",)


@dataclass(frozen=True)
class DeclaredFamily:
    """The family an audit's (ε, δ) claim was declared to belong to and the μ it implies."""

    family: str
    eps: float
    delta: float
    mu: float

    @property
    def text(self) -> str:
        """The verdict's condition in words."""
        return (
            f"conditional on the declared family {self.family!r}: a Gaussian-additive mechanism is "
            f"(eps={self.eps:g}, delta={self.delta:g})-DP exactly when it is mu-GDP with mu <= {self.mu:.6g} "
            "(Dong, Roth & Su 2019, Cor. 2.13); that mu-GDP claim was audited"
        )

    def to_dict(self) -> dict:
        """JSON-ready record (``details["family"]``)."""
        return {"family": self.family, "eps": self.eps, "delta": self.delta, "mu_implied": self.mu, "note": self.text}


def check_family(family: Any) -> str:
    """``family`` as one of :data:`FAMILIES`, else :class:`PrivcheckUsageError` (one line)."""
    if not isinstance(family, str) or family.strip().lower() not in FAMILIES:
        raise PrivcheckUsageError(f"family must be one of {', '.join(FAMILIES)}, got {family!r}")
    return family.strip().lower()


#: relative margin on log δ by which the audited μ must exceed the root of δ_μ(ε) = δ (float error of
#: :func:`accountants.gdp.gdp_log_delta` is far below it)
LOG_DELTA_MARGIN = 1e-9


def implied_mu(eps: float, delta: float) -> float:
    """The μ an (ε, δ) claim implies for a Gaussian-additive mechanism, rounded up: a μ with
    ``δ_μ(ε) > δ`` by the relative margin :data:`LOG_DELTA_MARGIN` on log δ, within a relative 10⁻⁶ of the root
    (every Gaussian-additive (ε, δ)-DP mechanism is μ-GDP for this μ: Dong, Roth & Su 2019, Cor. 2.13).
    eps > 0 finite, delta in (0, 1)."""
    from accountants.gdp import gdp_log_delta, gdp_mu

    root = gdp_mu(eps, delta)  # ≤ the exact root (rounded down)
    target = math.log(delta)
    for step in (1e-9, 1e-8, 1e-7, 1e-6):
        mu = root * (1.0 + step)
        if gdp_log_delta(mu, eps) > target + LOG_DELTA_MARGIN * max(1.0, abs(target)):
            return mu
    raise PrivcheckUsageError(f"(eps={eps:g}, delta={delta:g}): the implied mu could not be bracketed")


def implied_request(req: Any) -> tuple[Any, DeclaredFamily]:
    """The μ-GDP audit request an (ε, δ) request with ``family`` implies, and the declared family.

    req: a :class:`~privcheck.auditor.plan.AuditRequest` (not imported: the summary imports this module).

    The claim's ε and δ are the request's (a built-in mechanism's nominal ones when not given); δ must be in
    (0, 1) and no ``mu``/``accountant`` may be given. The μ request keeps every other keyword and passes δ on,
    so ``eps_lower_at_delta`` is certified from the same curve points.
    """
    family = check_family(req.family)
    if req.mu is not None or req.accountant is not None:
        raise PrivcheckUsageError("family= declares the family of an (eps, delta) claim; drop mu=/accountant=")
    eps = req.eps if req.eps is not None else getattr(req.mech, "eps_nominal", None)
    delta = req.delta if req.delta is not None else getattr(req.mech, "delta_nominal", None)
    if eps is None:
        raise PrivcheckUsageError("family= needs the claimed eps=... (and delta=...)")
    eps = check_eps(eps)
    if not delta:
        raise PrivcheckUsageError(
            f"family={family!r} audits the mu an (eps, delta) claim with delta > 0 implies; give delta=..."
        )
    delta = check_probability("delta", delta, open_low=True, open_high=True)
    declared = DeclaredFamily(family, float(eps), float(delta), implied_mu(eps, delta))
    return replace(req, eps=None, mu=declared.mu, family=None), declared


def conditional(result: Any, declared: DeclaredFamily) -> Any:
    """The μ audit's result reported as the (ε, δ) claim's, conditional on the declared family: the claim's ε
    and δ, the implied μ in ``mu_claimed``, the condition in ``reason`` (after the μ audit's own reason) and
    ``details["family"]``."""
    result.eps_claimed, result.delta_claimed = declared.eps, declared.delta
    result.reason = declared.text if not result.reason else f"{result.reason}; {declared.text}"
    result.details["family"] = declared.to_dict()
    return result
