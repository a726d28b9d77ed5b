"""Audits against trade-off curves: μ-GDP claims, ε at a claimed δ, and an accountant's curve (a package).

A mechanism is ``f``-DP (Dong, Roth & Su 2019, 002_53ad70670a94e98a.txt Def. 2.3) when every test
between ``M(x)`` and ``M(x')`` (neighbours) has type II error ``β ≥ f(α)`` at type I error ``α``;
μ-GDP is ``f = G_μ``, ``G_μ(α) = Φ(Φ⁻¹(1 − α) − μ)`` (ibid. Def. 2.6). This module audits such a
claim black-box, from samples alone (:func:`curve_bound`):

1. **selection** (a share of the draws, its own seed streams): for every ordered input pair
   ``(x, x')`` a one-dimensional statistic (:mod:`privcheck.auditor.scores`: the mechanism's or
   view's likelihood ratio, else Fisher's projection fitted on the first selection draws) and
   candidate thresholds; each ``(pair, threshold)`` is a test ``{s ≥ t}`` with a predicted
   confidence box. :data:`CURVE_POINTS` points are kept: the best one for each question asked
   (the claim's margin, μ, ε at δ) and the rest spread along the best pair's curve (the trace).
2. **estimation** (fresh draws, disjoint seed streams): each point's counts ``k_α`` of ``x`` in
   ``{s ≥ t}`` and ``k_β`` of ``x'`` in ``{s < t}``; one-sided Clopper–Pearson upper limits
   ``α_hi``, ``β_hi`` (:func:`privcheck.base.stats.clopper_pearson`) at level ``(1 − confidence)/(2m)``
   each, Bonferroni over the ``m`` points and their two coordinates.

With probability ≥ ``confidence`` every point's true ``(α, β)`` lies in its box
``{α ≤ α_hi, β ≤ β_hi}`` simultaneously (the points are functions of the selection draws only).
Trade-off functions are non-increasing, so a box lying entirely below a claimed curve ``f``
(``β_hi < f(α_hi)``) refutes it, and:

- ``mu_lower = max(0, max over points of Φ⁻¹(1 − α_hi) − Φ⁻¹(β_hi))``: the mechanism is not
  μ-GDP for any smaller μ (its curve lies below ``G_μ`` at that point);
- ``eps_lower_at_delta = max over points of log((1 − δ − β_hi)/α_hi)`` and the symmetric
  ``log((1 − δ − α_hi)/β_hi)`` (an (ε, δ)-DP mechanism has ``1 − β ≤ e^ε α + δ`` and
  ``1 − α ≤ e^ε β + δ``, Dong et al. Prop. 2.4/2.5);
- an accountant's claim (``acc.tradeoff(alpha).lower``, its certified lower end) is refuted only
  when a box lies below that *lower* end: accounting slack never refutes a correct mechanism.

Every reported bound is rounded down by a relative :data:`ROUND`; a claimed curve is rounded down
likewise before comparing, so floating-point error never makes a refutation.

Modules: :mod:`~privcheck.auditor.curves.claimed` (claimed curves), :mod:`~privcheck.auditor.curves.boxes`
(bounds from boxes), the strategy's stages :mod:`~privcheck.auditor.curves.code` (scores),
:mod:`~privcheck.auditor.curves.select` (thresholds, points), :mod:`~privcheck.auditor.curves.estimate`
(boxes on fresh draws), :mod:`~privcheck.auditor.curves.bound` (:func:`curve_bound`) and
:mod:`~privcheck.auditor.curves.audit` (the runner of a curve claim; the curve part of an (ε, δ) audit).
"""

from __future__ import annotations

import importlib
from typing import Any

#: exported name → the module defining it (lazy: the package's modules import each other, never this package)
_WHERE = {
    "ALPHA_GRID": "privcheck.auditor.curves.claimed",
    "CURVE_POINTS": "privcheck.auditor.curves.settings",
    "DIRECTION_DRAWS": "privcheck.auditor.curves.settings",
    "MAX_CURVE_PAIRS": "privcheck.auditor.curves.code",
    "MIN_SAMPLES": "privcheck.auditor.curves.settings",
    "ROUND": "privcheck.auditor.curves.boxes",
    "SELECTION_SHARE": "privcheck.auditor.curves.settings",
    "ClaimedCurve": "privcheck.auditor.curves.claimed",
    "CurveBound": "privcheck.auditor.curves.estimate",
    "CurveStrategy": "privcheck.auditor.curves.bound",
    "accountant_claim": "privcheck.auditor.curves.claimed",
    "curve_bound": "privcheck.auditor.curves.bound",
    "curve_decision": "privcheck.auditor.stages.decide",
    "curve_details": "privcheck.auditor.curves.audit",
    "curve_fields": "privcheck.auditor.curves.audit",
    "describe_accountant": "privcheck.auditor.curves.claimed",
    "eps_from_box": "privcheck.auditor.curves.boxes",
    "mu_claim": "privcheck.auditor.curves.claimed",
    "mu_from_box": "privcheck.auditor.curves.boxes",
    "resolve_claim": "privcheck.auditor.claim",
    "run_curve_audit": "privcheck.auditor.curves.audit",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    """The exports of the package's modules (:data:`_WHERE`), imported on first use."""
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'privcheck.auditor.curves' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
