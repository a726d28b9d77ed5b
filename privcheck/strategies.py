"""Hypothesis strategies of neighbouring inputs, for ``privcheck.trace(fn, neighbours=...)`` (and for tests).

Every strategy here draws *pairs* ``(x, x2)`` that are neighbours under a stated relation:

- :func:`datasets` — datasets of bounded records (1-D, or rows of ``dim`` values) with one record added or
  removed (``relation="add_remove"``), replaced (``"replace_one"``) or either (``"any"``); the record that
  differs may lie outside the declared bounds (``outside=True``) or be NaN/±inf (``nonfinite=True``), which is
  where glue code fails (a clip after the sum, ``np.clip`` letting NaN through);
- :func:`vectors` — pairs of vectors at distance exactly ``radius`` in the ``l1``, ``l2`` or ``linf`` norm (a
  vector on the norm sphere added to a centre), for mechanisms whose neighbours are defined by a norm ball;
- :func:`values` — single values in ``[lower, upper]``, optionally outside it or non-finite;
- :func:`pairs_of` — any two draws of a strategy (local DP: any two clients' values).

Arrays are float64 numpy arrays. Hypothesis shrinks towards small datasets, zeros and the first index, so a
refuting pair comes back in a simple form.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import strategies as st

from privcheck.base.errors import PrivcheckUsageError

__all__ = ["values", "datasets", "vectors", "pairs_of", "RELATIONS", "NORMS"]

RELATIONS = ("add_remove", "replace_one", "any")
NORMS = ("l1", "l2", "linf")
#: how far outside the bounds an out-of-bounds value may lie, in widths of [lower, upper]
OUTSIDE_WIDTHS = 1e3


def _bounds(lower: float, upper: float) -> tuple[float, float]:
    lo, hi = float(lower), float(upper)
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise PrivcheckUsageError(f"bounds must be finite numbers with lower < upper, got ({lower!r}, {upper!r})")
    return lo, hi


def values(
    lower: float = 0.0, upper: float = 1.0, *, outside: bool = False, nonfinite: bool = False
) -> st.SearchStrategy[float]:
    """Floats in ``[lower, upper]``; with ``outside`` also up to 1000 widths beyond either bound; with
    ``nonfinite`` also NaN, +inf and −inf."""
    lo, hi = _bounds(lower, upper)
    parts = [st.floats(lo, hi, allow_nan=False, allow_infinity=False)]
    if outside:
        far = OUTSIDE_WIDTHS * (hi - lo)
        parts.append(st.floats(hi, hi + far, exclude_min=True, allow_nan=False, allow_infinity=False))
        parts.append(st.floats(lo - far, lo, exclude_max=True, allow_nan=False, allow_infinity=False))
    if nonfinite:
        parts.append(st.sampled_from([math.nan, math.inf, -math.inf]))
    return st.one_of(*parts)


def _records(n_min: int, n_max: int, dim: int | None, lo: float, hi: float) -> st.SearchStrategy[np.ndarray]:
    rec = st.floats(lo, hi, allow_nan=False, allow_infinity=False)

    def shape_of(n: int) -> tuple[int, ...]:
        return (n,) if dim is None else (n, dim)

    def filled(s: tuple[int, ...]) -> st.SearchStrategy[np.ndarray]:
        size = int(np.prod(s))
        return st.lists(rec, min_size=size, max_size=size).map(lambda v: np.asarray(v, dtype=float).reshape(s))

    return st.integers(n_min, n_max).map(shape_of).flatmap(filled)


def _record(dim: int | None, lo: float, hi: float, outside: bool, nonfinite: bool) -> st.SearchStrategy[Any]:
    one = values(lo, hi, outside=outside, nonfinite=nonfinite)
    if dim is None:
        return one
    return st.lists(one, min_size=dim, max_size=dim).map(lambda v: np.asarray(v, dtype=float))


def datasets(
    min_size: int = 1,
    max_size: int = 20,
    lower: float = 0.0,
    upper: float = 1.0,
    *,
    dim: int | None = None,
    relation: str = "add_remove",
    outside: bool = False,
    nonfinite: bool = False,
) -> st.SearchStrategy[tuple[np.ndarray, np.ndarray]]:
    """Pairs of neighbouring datasets of records in ``[lower, upper]``.

    min_size/max_size: records in the smaller dataset (0 ≤ min_size ≤ max_size; ``replace_one`` needs
    min_size ≥ 1, raised to 1); dim: None for 1-D datasets of numbers, else rows of ``dim`` values;
    relation: ``add_remove`` (the pair differs by one record present in one dataset only, in either order),
    ``replace_one`` (one record replaced), ``any``; outside/nonfinite: the differing record may lie outside
    the bounds / be NaN or ±inf (the other records stay inside the bounds).
    """
    lo, hi = _bounds(lower, upper)
    if relation not in RELATIONS:
        raise PrivcheckUsageError(f"relation must be one of {', '.join(RELATIONS)}, got {relation!r}")
    if not (isinstance(min_size, int) and isinstance(max_size, int) and 0 <= min_size <= max_size):
        raise PrivcheckUsageError(f"need integers 0 <= min_size <= max_size, got {min_size!r}, {max_size!r}")
    if dim is not None and not (isinstance(dim, int) and dim >= 1):
        raise PrivcheckUsageError(f"dim must be None or an integer >= 1, got {dim!r}")
    ops = {"add_remove": ("add", "remove"), "replace_one": ("replace",), "any": ("add", "remove", "replace")}[relation]
    rec = _record(dim, lo, hi, outside, nonfinite)

    @st.composite
    def pair(draw) -> tuple[np.ndarray, np.ndarray]:
        op = draw(st.sampled_from(ops))
        base = draw(_records(max(min_size, 1) if op == "replace" else min_size, max_size, dim, lo, hi))
        r = draw(rec)
        n = base.shape[0]
        i = draw(st.integers(0, n if op != "replace" else n - 1))
        if op == "replace":
            other = base.copy()
            other[i] = r
            return base, other
        bigger = np.insert(base, i, r, axis=0)
        return (bigger, base) if op == "remove" else (base, bigger)

    return pair()


def vectors(
    dim: int, radius: float = 1.0, *, norm: str = "l2", bound: float = 10.0
) -> st.SearchStrategy[tuple[np.ndarray, np.ndarray]]:
    """Pairs ``(c, c + v)`` of ``dim``-vectors with ``‖v‖ = radius`` in ``norm`` (v on the norm sphere, up to
    float rounding) and the centre c in ``[-bound, bound]^dim``."""
    if not (isinstance(dim, int) and dim >= 1):
        raise PrivcheckUsageError(f"dim must be an integer >= 1, got {dim!r}")
    if norm not in NORMS:
        raise PrivcheckUsageError(f"norm must be one of {', '.join(NORMS)}, got {norm!r}")
    if not (isinstance(radius, (int, float)) and math.isfinite(radius) and radius > 0):
        raise PrivcheckUsageError(f"radius must be a finite number > 0, got {radius!r}")
    if not (isinstance(bound, (int, float)) and math.isfinite(bound) and bound >= 0):
        raise PrivcheckUsageError(f"bound must be a finite number >= 0, got {bound!r}")
    comp = st.floats(-1.0, 1.0, allow_nan=False)
    direction = (
        st.lists(comp, min_size=dim, max_size=dim).map(np.asarray).filter(lambda u: float(np.max(np.abs(u))) > 1e-6)
    )
    centre = st.lists(st.floats(-bound, bound, allow_nan=False), min_size=dim, max_size=dim).map(np.asarray)
    order = {"l1": 1, "l2": 2, "linf": np.inf}[norm]

    def build(cu) -> tuple[np.ndarray, np.ndarray]:
        c, u = (np.asarray(a, dtype=float) for a in cu)
        v = u * (float(radius) / float(np.linalg.norm(u, ord=order)))
        return c, c + v

    return st.tuples(centre, direction).map(build)


def pairs_of(strategy: st.SearchStrategy) -> st.SearchStrategy[tuple[Any, Any]]:
    """Any two draws of ``strategy`` as a pair (local DP: every two inputs are neighbours)."""
    if not isinstance(strategy, st.SearchStrategy):
        raise PrivcheckUsageError(f"pairs_of needs a hypothesis strategy, got {type(strategy).__name__}")
    return st.tuples(strategy, strategy)
