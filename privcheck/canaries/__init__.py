"""Canary scores and training runs audited: certified ε / μ lower bounds from canary scores.

Public names: :func:`audit_scores` (also ``privcheck.audit_scores``) and :func:`one_run_bound`
(``privcheck.one_run_bound``), with their results :class:`ScoreAudit` and :class:`OneRunBound`.
Modules: :mod:`~privcheck.canaries.rules` (scores, candidate rules, threshold rules),
:mod:`~privcheck.canaries.binary` (Clopper–Pearson and μ-GDP over thresholds),
:mod:`~privcheck.canaries.steinke` (the one-run bound), :mod:`~privcheck.canaries.fdp` (the f-DP
one-run recursion), :mod:`~privcheck.canaries.guessing` (one-run methods over candidates),
:mod:`~privcheck.canaries.audit` (the facade), :mod:`~privcheck.canaries.reference` (the published
formulas in mpmath, for comparisons), :mod:`~privcheck.canaries.training` (training runs audited).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["audit_scores", "one_run_bound", "ScoreAudit", "OneRunBound", "audit_training", "TrainingAudit"]

_WHERE = {
    "audit_scores": "privcheck.canaries.audit",
    "ScoreAudit": "privcheck.canaries.audit",
    "one_run_bound": "privcheck.canaries.steinke",
    "OneRunBound": "privcheck.canaries.steinke",
    "audit_training": "privcheck.canaries.training",
    "TrainingAudit": "privcheck.canaries.training",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'privcheck.canaries' has no attribute {name!r}")
