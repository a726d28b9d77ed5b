"""Claims about trade-off curves for score audits: an accountant's certified curve as a lower table."""

from __future__ import annotations

import numpy as np

from privcheck.base.errors import PrivcheckUsageError
from privcheck.canaries.fdp import TableCurve

__all__ = ["curve_table", "table_lower", "grid", "table_from_function"]

_POINTS = 800


def curve_table(accountant, points: int = _POINTS) -> TableCurve:
    """The accountant's certified symmetric trade-off curve as a :class:`TableCurve` (lower ends).

    accountant: a composed :class:`accountants.pld.PLDAccountant` (anything with ``tradeoff(alpha)``
    returning an Interval of arrays), or a TableCurve (returned as is). The grid is log-spaced
    towards both ends of [0, 1]."""
    if isinstance(accountant, TableCurve):
        return accountant
    if not hasattr(accountant, "tradeoff"):
        raise PrivcheckUsageError(
            f"accountant must be a composed PLDAccountant (accountants.pld), got {type(accountant).__name__}"
        )
    x = grid(points)
    iv = accountant.tradeoff(x)
    lo = np.minimum.accumulate(np.clip(np.asarray(iv.lower, dtype=float), 0.0, 1.0))  # keep it non-increasing
    return TableCurve(tuple(x.tolist()), tuple(lo.tolist()), label=f"accountant curve [{iv.method}]")


def grid(points: int = _POINTS) -> np.ndarray:
    """Points in [0, 1] (0 and 1 included), log-spaced towards both ends, where curves are tabulated."""
    g = np.logspace(-15, 0, points)
    return np.unique(np.clip(np.concatenate([[0.0, 1.0], g, 1.0 - g, np.linspace(0, 1, points)]), 0.0, 1.0))


def table_from_function(f, points: int = _POINTS, label: str = "curve") -> TableCurve:
    """A TableCurve of a vectorised trade-off function ``f`` whose values are exact or lower bounds."""
    x = grid(points)
    lo = np.minimum.accumulate(np.clip(np.asarray(f(x), dtype=float), 0.0, 1.0))
    return TableCurve(tuple(x.tolist()), tuple(lo.tolist()), label=label)


def table_lower(curve: TableCurve):
    """Vectorised certified lower bound x ↦ f_lo(first grid point ≥ x) of a TableCurve (f non-increasing)."""
    xs = np.asarray(curve.x)
    fs = np.asarray(curve.f_lo)

    def f(x):
        x = np.asarray(x, dtype=float)
        return fs[np.minimum(np.searchsorted(xs, x, side="left"), xs.size - 1)]

    return f
