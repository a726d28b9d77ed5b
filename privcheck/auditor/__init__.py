"""The black-box auditor: exact ε where computable, a valid Monte Carlo lower bound otherwise.

Entry point :func:`audit` (also ``privcheck.audit``). Modules:

- :mod:`privcheck.auditor.core` — :func:`audit`, :func:`monte_carlo_bound`, result types, verdicts;
- :mod:`privcheck.auditor.coding` — output coding into atoms, whole chunks at a time, and counting;
- :mod:`privcheck.auditor.selection` — candidate events chosen from selection counts;
- :mod:`privcheck.auditor.events` — compatibility re-exports of the two.
- :mod:`privcheck.auditor.outputs` — outputs of any type (strings, tuples, sets, complex…) as numbers;
- :mod:`privcheck.auditor.per_sample` — one-output code as a sampler (:func:`per_sample`);
- :mod:`privcheck.auditor.views` — post-processing views (``view=``), e.g. local-hashing support;
- :mod:`privcheck.auditor.curves` — trade-off-curve audits: μ-GDP claims (``mu=``), ``eps_lower_at_delta``,
  accountant claims (``accountant=``);
- :mod:`privcheck.auditor.scores` — one-dimensional statistics (projection, likelihood ratio) and thresholds.

Chunked, seeded execution goes through the one scheduler, :mod:`privcheck.scheduler`.
"""
from privcheck.auditor.core import (
    DEFAULT_SAMPLES,
    MAX_EVENTS,
    SELECTION_SHARE,
    AuditResult,
    MonteCarloBound,
    audit,
    exact_verdict,
    mc_decision,
    mc_verdict,
    monte_carlo_bound,
    resolve_pairs,
)

__all__ = [
    "DEFAULT_SAMPLES", "MAX_EVENTS", "SELECTION_SHARE", "AuditResult", "MonteCarloBound",
    "audit", "exact_verdict", "mc_decision", "mc_verdict", "monte_carlo_bound",
    "resolve_pairs",
]
