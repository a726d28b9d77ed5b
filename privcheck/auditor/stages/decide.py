"""Stage 5, decide: verdicts from exact values and certified bounds, for every claim kind.

A verdict is ``refuted`` when an exact value or a bound valid at the stated confidence exceeds the claim,
``holds`` when the exact value meets it (or, without one, when an audit that *could* have detected a violation
of the claimed size detected none), ``inconclusive`` otherwise, with the reason. Sampling can refute a claim,
never prove it: a Monte Carlo ``holds`` means *no violation detected*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from privcheck.auditor.defaults import EXACT_REL_TOL
from privcheck.auditor.result import MonteCarloBound
from privcheck.auditor.selection import delta_gap
from privcheck.base.stats import clopper_pearson

NO_EVENT = "no event separated the inputs (eps_lower <= 0): the audit had no power"
NO_POINT = "no threshold separated the inputs (mu_lower = 0): the audit had no power"
DISAGREE = "the Monte Carlo bound exceeds the exact ε: a (1 − confidence) event or a bug"


def exact_verdict(eps_exact: float, eps_claimed: float) -> str:
    """``holds`` when the exact ε does not exceed the claim (up to rounding), else ``refuted``."""
    return "holds" if eps_exact <= eps_claimed * (1 + EXACT_REL_TOL) + EXACT_REL_TOL else "refuted"


def exact_delta_verdict(delta_exact: float, delta_claimed: float) -> str:
    """``holds`` when the exact δ at the claimed ε does not exceed the claimed δ (relative slack 1e-9)."""
    return "holds" if delta_exact <= delta_claimed * (1 + 1e-9) else "refuted"


def _per_candidate_level(bound: MonteCarloBound) -> float:
    """Each one-sided Clopper–Pearson limit's level, as the estimate stage used it (α/m split in two)."""
    return (1.0 - bound.confidence) / max(1, len(bound.candidates)) / 2


def max_certifiable_delta(bound: MonteCarloBound) -> float:
    """The largest δ lower bound (at ``bound.delta_eps``) these estimation sample sizes could certify.

    The δ-mode power statement, like ``eps_max_certifiable`` for ε: attained when an event occurs in
    every estimation draw of one input and in none of the other's, with the same per-candidate
    error level (α/m, split between the two Clopper–Pearson bounds) as :func:`monte_carlo_bound`.
    Returns 0 when no δ bound was requested.
    """
    if bound.delta_eps is None:
        return 0.0
    n = bound.estimation_samples
    level = _per_candidate_level(bound)
    lo = clopper_pearson(n, n, level, "lower")
    hi = clopper_pearson(0, n, level, "upper")
    return max(0.0, delta_gap(lo, hi, bound.delta_eps))


def detectable_delta(bound: MonteCarloBound, delta_claimed: float) -> float | None:
    """The smallest δ violation these samples would detect: the least k/n whose counts (k of n, and 0 of n
    for the other input) give a δ lower bound above ``delta_claimed``; None when no count can.

    A power statement for the δ mode (same per-candidate error level as :func:`monte_carlo_bound`).
    """
    if bound.delta_eps is None:
        return None
    n, eps = bound.estimation_samples, bound.delta_eps
    level = _per_candidate_level(bound)
    hi = clopper_pearson(0, n, level, "upper")
    if delta_gap(clopper_pearson(n, n, level, "lower"), hi, eps) <= delta_claimed:
        return None
    lo_k, hi_k = 0, n  # invariant: count hi_k detects, lo_k does not
    while hi_k - lo_k > 1:
        mid = (lo_k + hi_k) // 2
        if delta_gap(clopper_pearson(mid, n, level, "lower"), hi, eps) > delta_claimed:
            hi_k = mid
        else:
            lo_k = mid
    return hi_k / n


def mc_decision(bound: MonteCarloBound, eps_claimed: float, delta_claimed: float = 0.0) -> tuple[str, str | None]:
    """Verdict of a Monte Carlo audit against a claimed (ε, δ), with the reason when not plain.

    ``refuted`` when the lower bound exceeds the claim (valid at the bound's
    confidence). ``inconclusive`` when these sample sizes could not certify
    more than the claimed ε, or when no event separated the inputs
    (``eps_lower ≤ 0``): then the audit had no power and "holds" would not be
    evidence (in both modes). With a claimed δ > 0 the power statement is about δ: inconclusive
    when no event separated the inputs, or when these samples could not certify a δ above the claimed δ at the
    claimed ε (:func:`max_certifiable_delta`; a correct mechanism's δ lower
    bound is 0 there, which is no reason to doubt it). Otherwise ``holds``,
    meaning *no violation detected*: sampling can refute a claim, never prove it.
    """
    if bound.delta_lower is not None and delta_claimed > 0:
        return _delta_decision(bound, delta_claimed)
    if bound.eps_lower > eps_claimed:
        return "refuted", None
    if bound.eps_max_certifiable <= eps_claimed:
        return "inconclusive", (
            f"{bound.estimation_samples} estimation draws per input can certify at most "
            f"eps {bound.eps_max_certifiable:.4g}, not more than the claimed {eps_claimed:g}"
        )
    if not bound.eps_lower > 0:
        return "inconclusive", NO_EVENT
    return "holds", None


def _delta_decision(bound: MonteCarloBound, delta_claimed: float) -> tuple[str, str | None]:
    """:func:`mc_decision` for a claimed δ > 0: the verdict is on δ at the claimed ε."""
    assert bound.delta_lower is not None and bound.delta_eps is not None
    if bound.delta_lower > delta_claimed:
        return "refuted", None
    if not bound.eps_lower > 0:
        return "inconclusive", NO_EVENT
    top = max_certifiable_delta(bound)
    if top <= delta_claimed:
        return "inconclusive", (
            f"{bound.estimation_samples} estimation draws per input can certify at most "
            f"delta {top:.4g} at eps {bound.delta_eps:g}, not more than the claimed {delta_claimed:g}"
        )
    return "holds", None  # no violation detected by an audit that could detect one of the claimed size


def mc_verdict(bound: MonteCarloBound, eps_claimed: float, delta_claimed: float = 0.0) -> str:
    """The verdict of :func:`mc_decision` alone."""
    return mc_decision(bound, eps_claimed, delta_claimed)[0]


def curve_decision(bound: Any, claim: Any = None) -> tuple[str, str | None]:
    """Verdict of a curve audit (a :class:`~privcheck.auditor.curves.CurveBound`): ``refuted`` when a point's
    box lies below the claimed curve; ``inconclusive`` when no point separated the inputs (``mu_lower`` = 0: no
    power); else ``holds`` (no violation detected — sampling can refute a curve, never prove it)."""
    if bound.refuting:
        return "refuted", None
    if not bound.mu_lower > 0:
        return "inconclusive", NO_POINT
    return "holds", None


@dataclass(frozen=True)
class Decision:
    """The combined verdict of an ε audit's exact and Monte Carlo parts, its reason and any warning."""

    verdict: str
    reason: str | None
    warning: str | None = None


def combine(v_exact: str | None, v_mc: str | None, reason: str | None) -> Decision:
    """One verdict from the exact part's and the Monte Carlo part's: refuted if either refutes; holds if the
    exact part holds (or, without one, the Monte Carlo part does); else inconclusive with the Monte Carlo reason.
    A Monte Carlo refutation of an exact ``holds`` is kept, with a warning (a (1 − confidence) event or a bug)."""
    warning = DISAGREE if v_exact == "holds" and v_mc == "refuted" else None
    if "refuted" in (v_exact, v_mc):
        return Decision("refuted", None, warning)
    if v_exact == "holds" or (v_exact is None and v_mc == "holds"):
        return Decision("holds", None, warning)
    return Decision("inconclusive", reason, warning)


def certified_fraction(bound: MonteCarloBound | None, eps: float) -> float | None:
    """``max(eps_lower, 0) / eps``: how much of a finite positive claimed ε the bound certified (else None)."""
    if bound is None or not (eps > 0 and math.isfinite(eps)):
        return None
    return max(bound.eps_lower, 0.0) / eps
