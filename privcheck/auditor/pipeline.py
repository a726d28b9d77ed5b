"""The auditor's pipeline: a test family (a strategy) run through the stages on one draw run.

Every Monte Carlo audit is ``draw → code → select → estimate → decide``
(:mod:`privcheck.auditor.stages`). The draw stage (:class:`~privcheck.auditor.stages.draw.DrawRun`) and the
decide stage are shared; what is coded, selected and estimated depends on the kind of test:

- :class:`privcheck.auditor.bound.EventStrategy` — output events and their likelihood ratios (ε, δ claims);
- :class:`privcheck.auditor.curves.bound.CurveStrategy` — thresholds of a one-dimensional score and their
  (type I, type II) error boxes (μ-GDP and accountant claims, ε at δ).

A new kind of test implements :class:`Strategy` and runs through :func:`run_strategy`;
its draws stay valid as long as ``estimate`` draws from stage names that ``code`` and ``select`` do not use.
"""

from __future__ import annotations

from typing import Any, Protocol

from privcheck.auditor.stages.draw import DrawRun


class Strategy(Protocol):
    """A strategy for the code, select and estimate stages: how one kind of test is chosen on selection draws
    and certified on fresh ones."""

    def code(self, run: DrawRun) -> Any:
        """Fit how outputs become test statistics (atoms, scores) on the first selection draws."""
        ...

    def select(self, run: DrawRun, coded: Any) -> Any:
        """Choose the tests from the selection draws only."""
        ...

    def estimate(self, run: DrawRun, selected: Any) -> Any:
        """Count the chosen tests on fresh draws and return the certified bound."""
        ...


def run_strategy(family: Strategy, run: DrawRun) -> Any:
    """``family``'s code, select and estimate stages on ``run``: its certified bound."""
    coded = family.code(run)
    selected = family.select(run, coded)
    return family.estimate(run, selected)
