"""Claimed trade-off curves: a μ-GDP claim's ``G_μ`` and an accountant's certified curve, rounded down."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from privcheck.auditor.curves.boxes import ROUND
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_positive

#: points of each of the two α grids on which an accountant's curve is queried
ALPHA_GRID = 1501
#: accountants' curves on the α grid, keyed by (type, composed events, settings); the last 8 kept
_CURVE_CACHE: dict = {}
_ACCOUNTANT_SETTINGS = ("relation", "grid_step", "method", "tail_mass", "target_fft_size", "max_fft_size")


@dataclass
class ClaimedCurve:
    """A claimed trade-off curve: ``lower(alpha)`` is a certified lower end of ``f(alpha)`` (vectorised).

    kind: ``"gdp"`` or ``"accountant"``; description: text for reports; mu: the claimed μ (gdp).
    """

    kind: str
    description: str
    lower: Callable[[np.ndarray], np.ndarray]
    mu: float | None = None


def mu_claim(mu: float) -> ClaimedCurve:
    """The claimed curve of a μ-GDP claim (μ > 0), rounded down by :data:`ROUND`."""
    from accountants.pld.tradeoff import gaussian_curve  # scipy.stats: imported only for a μ claim

    mu = check_positive("mu", mu)
    return ClaimedCurve("gdp", f"{mu:g}-GDP", lambda a: gaussian_curve(mu, a) * (1.0 - ROUND), mu)


def _cache_key(acc: Any) -> Any:
    """The cache key of an accountant's curve (None when it has no hashable composition)."""
    try:
        events = tuple(getattr(acc, "events", ()) or ())
        key = (type(acc), events, *(getattr(acc, k, None) for k in _ACCOUNTANT_SETTINGS)) if events else None
        hash(key)
    except TypeError:
        key = None
    return key


def accountant_claim(acc: Any) -> ClaimedCurve:
    """The claimed curve of an accountant: ``acc.tradeoff(alpha).lower`` (its certified lower end), queried
    once on a fixed grid of :data:`ALPHA_GRID` log- and :data:`ALPHA_GRID` linearly spaced α and read at
    the first grid point at or above each α (valid: trade-off functions are non-increasing)."""
    fn = getattr(acc, "tradeoff", None)
    if not callable(fn):
        raise PrivcheckUsageError(
            f"accountant= needs an accountant with tradeoff(alpha) (a composed PLDAccountant), got {type(acc).__name__}"
        )
    grid = np.unique(np.concatenate([[0.0], np.geomspace(1e-15, 1.0, ALPHA_GRID), np.linspace(0.0, 1.0, ALPHA_GRID)]))
    key = _cache_key(acc)

    def lower(alpha):
        values = _CURVE_CACHE.get(key) if key is not None else None
        if values is None:  # one accountant query per composition, on a fixed α grid
            lo = np.asarray(fn(grid).lower, dtype=np.float64).reshape(grid.shape)
            values = (None, np.clip(np.nan_to_num(lo, nan=0.0), 0.0, 1.0) * (1.0 - ROUND))
            if key is not None:
                while len(_CURVE_CACHE) >= 8:
                    _CURVE_CACHE.pop(next(iter(_CURVE_CACHE)))
                _CURVE_CACHE[key] = values
        a = np.clip(np.asarray(alpha, dtype=np.float64), 0.0, 1.0)
        # f is non-increasing: f(α) ≥ f(g) ≥ lower(g) at the first grid point g ≥ α
        return values[1][np.searchsorted(grid, a, side="left")]

    return ClaimedCurve("accountant", describe_accountant(acc), lower)


def describe_accountant(acc: Any) -> str:
    """One line naming an accountant's composed events (``acc.events``) and relation, else its repr."""
    events = getattr(acc, "events", None)
    if events:
        body = " + ".join(f"{e!r}x{c}" for e, c in events)
        return f"{getattr(acc, 'relation', '')}: {body}".strip(": ")
    return repr(acc)
