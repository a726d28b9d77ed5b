"""The black-box auditor: exact ε where computable, a valid Monte Carlo lower bound otherwise.

Entry point :func:`audit` (also ``privcheck.audit``): it validates the call, builds an
:class:`~privcheck.auditor.plan.AuditPlan` and runs it through the stages
draw → code → select → estimate → decide. The map (docs/site/architecture.md has the picture):

- the facade and the plan: :mod:`~privcheck.auditor.api` (:func:`audit`, the runner of each claim kind),
  :mod:`~privcheck.auditor.plan` (validation, defaults), :mod:`~privcheck.auditor.target` (inputs, pairs);
- the small types: :mod:`~privcheck.auditor.claim` (ε; ε, δ; μ; an accountant's curve),
  :mod:`~privcheck.auditor.policy` (fixed, adaptive — and the seam for a sequential policy),
  :mod:`~privcheck.auditor.execution` (the backend), :mod:`~privcheck.auditor.result` (the records);
- the stages: :mod:`~privcheck.auditor.stages` (``draw``, ``code``, ``select``, ``estimate``, ``decide``);
  the strategies plugged into them: :mod:`~privcheck.auditor.bound` (events: ε and δ) and
  :mod:`~privcheck.auditor.curves` (trade-off points: μ, accountant curves, ε at δ);
  :mod:`~privcheck.auditor.pipeline` (the strategy protocol); :mod:`~privcheck.auditor.adaptive` (rounds);
- the claim runners: :mod:`~privcheck.auditor.eps_audit`, :mod:`~privcheck.auditor.curves.audit`;
- outputs and views: :mod:`~privcheck.auditor.matrix`, :mod:`~privcheck.auditor.outputs` (any output type as
  numbers), :mod:`~privcheck.auditor.coding` (atoms), :mod:`~privcheck.auditor.selection` (events from counts),
  :mod:`~privcheck.auditor.scores` (one-dimensional statistics), :mod:`~privcheck.auditor.views` (``view=``),
  :mod:`~privcheck.auditor.autoviews` and :mod:`~privcheck.auditor.support_views` (views by output type);
- user code: :mod:`~privcheck.auditor.user_code` (the guard), :mod:`~privcheck.auditor.per_sample`,
  :mod:`~privcheck.auditor.fresh_draws` (the fresh i.i.d. draws contract, checked);
- sizes: :mod:`~privcheck.auditor.defaults`, :mod:`~privcheck.auditor.sizing` (memory estimate);
- compatibility: :mod:`~privcheck.auditor.core`, :mod:`~privcheck.auditor.events` (older import paths).

Chunked, seeded execution goes through the one scheduler, :mod:`privcheck.base.scheduler`.

The names below are exported lazily: importing a light submodule (e.g. ``privcheck.auditor.user_code``,
which every CLI command uses) does not import the stages and their dependencies.
"""

from __future__ import annotations

import importlib
from typing import Any

#: exported name → the module defining it
_WHERE = {
    "DEFAULT_SAMPLES": "privcheck.auditor.defaults",
    "MAX_EVENTS": "privcheck.auditor.defaults",
    "SELECTION_SHARE": "privcheck.auditor.defaults",
    "AuditResult": "privcheck.auditor.result",
    "MonteCarloBound": "privcheck.auditor.result",
    "audit": "privcheck.auditor.api",
    "exact_verdict": "privcheck.auditor.stages.decide",
    "mc_decision": "privcheck.auditor.stages.decide",
    "mc_verdict": "privcheck.auditor.stages.decide",
    "monte_carlo_bound": "privcheck.auditor.bound",
    "resolve_pairs": "privcheck.auditor.target",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    """The exports of the auditor's modules (:data:`_WHERE`), imported on first use."""
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'privcheck.auditor' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
