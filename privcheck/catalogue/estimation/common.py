"""Helpers shared by the estimator checks of the catalogue (see the package docstring)."""

from __future__ import annotations

from privcheck.claims import RunContext

TOST_FRACTION = 0.05
TOST_NOTE = (
    "unbiased within ±5% of the estimator's standard deviation (TOST, statsmodels): such a bias "
    "changes the mean squared error by at most 0.25%"
)
VAR_NOTE = "variance shown equal to the claim when its Bonett interval lies inside [v/1.1, 1.1·v]"


def seed_for(ctx: RunContext, *keys):
    """The SeedSequence for ``keys`` below the check's own seed."""
    from privcheck.base.seeding import derive

    return derive(ctx.seed_seq, *keys)


def records(results) -> list[dict]:
    """The JSON records of a list of estimator-check results."""
    return [r.record() for r in results]


def first(results, attr):
    """Attribute ``attr`` of the first component of each result."""
    return [getattr(r.components[0], attr) for r in results]
