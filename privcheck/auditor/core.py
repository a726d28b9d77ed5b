"""Compatibility names: the auditor's public API as it was importable from ``privcheck.auditor.core``.

The auditor is a pipeline now (see :mod:`privcheck.auditor` for the map): :func:`audit` lives in
:mod:`privcheck.auditor.api`, :func:`monte_carlo_bound` in :mod:`privcheck.auditor.bound`, the result types in
:mod:`privcheck.auditor.result`, the verdicts in :mod:`privcheck.auditor.stages.decide`. New code imports from
``privcheck.auditor`` (or those modules); this module only re-exports.
"""

from privcheck.auditor.api import audit
from privcheck.auditor.bound import choose_view, monte_carlo_bound
from privcheck.auditor.defaults import DEFAULT_SAMPLES, EXACT_REL_TOL, MAX_EVENTS, PILOT, PILOT_VALUES, SELECTION_SHARE
from privcheck.auditor.fresh_draws import NOT_REPRODUCIBLE, check_seeding
from privcheck.auditor.result import AuditResult, MonteCarloBound
from privcheck.auditor.stages.decide import (
    detectable_delta,
    exact_verdict,
    max_certifiable_delta,
    mc_decision,
    mc_verdict,
)
from privcheck.auditor.stages.draw import AuditShared, run_stage
from privcheck.auditor.target import Sampler, resolve_pairs

__all__ = [
    "DEFAULT_SAMPLES",
    "EXACT_REL_TOL",
    "MAX_EVENTS",
    "NOT_REPRODUCIBLE",
    "PILOT",
    "PILOT_VALUES",
    "SELECTION_SHARE",
    "AuditResult",
    "AuditShared",
    "MonteCarloBound",
    "Sampler",
    "audit",
    "check_seeding",
    "choose_view",
    "detectable_delta",
    "exact_verdict",
    "max_certifiable_delta",
    "mc_decision",
    "mc_verdict",
    "monte_carlo_bound",
    "resolve_pairs",
    "run_stage",
]
