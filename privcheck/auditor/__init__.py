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

Chunked, seeded execution goes through the one scheduler, :mod:`privcheck.base.scheduler`.

The names below are exported lazily: importing a light submodule (e.g. ``privcheck.auditor.user_code``,
which every CLI command uses) does not import :mod:`privcheck.auditor.core` and its dependencies.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "DEFAULT_SAMPLES",
    "MAX_EVENTS",
    "SELECTION_SHARE",
    "AuditResult",
    "MonteCarloBound",
    "audit",
    "exact_verdict",
    "mc_decision",
    "mc_verdict",
    "monte_carlo_bound",
    "resolve_pairs",
]


def __getattr__(name: str) -> Any:
    """The exports of :mod:`privcheck.auditor.core`, imported on first use."""
    if name in __all__:
        value = getattr(importlib.import_module("privcheck.auditor.core"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'privcheck.auditor' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
