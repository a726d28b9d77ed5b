"""The black-box auditor: exact ε where computable, a valid Monte Carlo lower bound otherwise.

Entry point :func:`audit` (also ``privcheck.audit``). Modules:

- :mod:`privcheck.auditor.core` — :func:`audit`, :func:`monte_carlo_bound`, result types, verdicts;
- :mod:`privcheck.auditor.events` — output coding and data-chosen candidate events.

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
    mc_verdict,
    monte_carlo_bound,
)

__all__ = [
    "DEFAULT_SAMPLES", "MAX_EVENTS", "SELECTION_SHARE", "AuditResult", "MonteCarloBound",
    "audit", "exact_verdict", "mc_verdict", "monte_carlo_bound",
]
