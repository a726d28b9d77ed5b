"""What an audit tests: the claim kinds.

- :class:`EpsClaim` — (ε, δ)-DP: ε ≥ 0 (0 claims perfect privacy, ∞ nothing), δ in [0, 1). Audited by the
  exact part where the mechanism provides one, the event strategy's Monte Carlo bound (on δ at the claimed ε
  when δ > 0) and, for δ > 0, ε at δ from trade-off points (:mod:`privcheck.auditor.eps_audit`).
- :class:`~privcheck.auditor.curves.claimed.ClaimedCurve` — a trade-off curve: μ-GDP (``mu=``) or an
  accountant's certified curve (``accountant=``), audited by the curve strategy
  (:mod:`privcheck.auditor.curves.audit`).

A new claim kind is a type here, a runner ``run(plan) -> AuditResult`` and one line in
:data:`privcheck.auditor.api.RUNNERS`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Union

from privcheck.auditor.curves.claimed import ClaimedCurve, accountant_claim, mu_claim
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_eps


@dataclass(frozen=True)
class EpsClaim:
    """An (ε, δ)-DP claim: ``eps`` ≥ 0 (``inf`` allowed), ``delta`` in [0, 1)."""

    eps: float
    delta: float = 0.0


#: every claim kind an audit accepts
Claim = Union[EpsClaim, ClaimedCurve]


def check_claimed_eps(eps: Any) -> float:
    """A claimed ε as a float: ``inf``, 0 (a perfect-privacy claim, audited like any other) or a valid ε > 0."""
    if isinstance(eps, float) and math.isinf(eps) and eps > 0:
        return eps
    try:
        if not isinstance(eps, bool) and float(eps) == 0.0:
            return 0.0  # a perfect-privacy claim: audited like any other
    except (TypeError, ValueError):
        pass
    return check_eps(eps)


def resolve_claim(mech: Any, mu: float | None, accountant: Any, eps: float | None) -> ClaimedCurve | None:
    """The curve claim of an audit: ``mu=`` or ``accountant=`` (exclusive with each other and with ``eps=``);
    without any claim, a mechanism's own ``accountant()`` (e.g. ``dp-sgd``) when it has no finite ε claim.
    ``None`` when the audit is an ε audit."""
    given = [n for n, v in (("eps", eps), ("mu", mu), ("accountant", accountant)) if v is not None]
    if len(given) > 1:
        raise PrivcheckUsageError(f"give one claim: eps=..., mu=... or accountant=... (got {', '.join(given)})")
    if mu is not None:
        return mu_claim(mu)
    if accountant is not None:
        return accountant_claim(accountant)
    own = getattr(mech, "accountant", None)
    if eps is None and callable(own) and not math.isfinite(float(getattr(mech, "eps_nominal", math.inf))):
        return accountant_claim(own())
    return None
