"""Exact ε from enumerated output distributions, in high precision.

:func:`worst_case_ratio` takes the output probabilities of each input (as
``fractions.Fraction`` or ``mpmath.mpf``) and returns the worst-case
log-likelihood ratio with the maximising input pair and output. Mechanisms
whose domains are too large to enumerate use symmetry to reduce themselves to
a small table first and then call this routine.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from fractions import Fraction
from typing import Any, Callable, Hashable, Iterator, Mapping

import mpmath

from privcheck.base.exact_eps import (  # noqa: F401  (re-exported: the names' historical home)
    EXACT_EPS_MAX,
    GUARD_DIGITS,
    ExactEpsilon,
    ExactRangeError,
    check_exact_range,
    digits_for,
)

mpmath.mp.dps = max(mpmath.mp.dps, 50)


@contextlib.contextmanager
def precision_for(*eps_values: float) -> Iterator[int]:
    """Run the block at the mpmath precision :func:`digits_for` gives (never lower than the current one)."""
    check_exact_range(*eps_values)
    dps = max(mpmath.mp.dps, digits_for(*eps_values))
    with mpmath.workdps(dps):
        yield dps


def with_precision(*names: str) -> Callable:
    """Decorator: evaluate the function at the precision its ε arguments ``names`` need.

    Arguments missing or ``None`` are ignored. The result is unchanged (an
    :class:`ExactEpsilon` holds floats and strings, not mpf numbers).
    """

    def deco(fn: Callable) -> Callable:
        sig = inspect.signature(fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            bound = sig.bind_partial(*args, **kwargs)
            vals = [bound.arguments.get(n) for n in names]
            with precision_for(*[v for v in vals if v is not None]):
                return fn(*args, **kwargs)

        return wrapper

    return deco


def _mp(v) -> mpmath.mpf:
    if isinstance(v, Fraction):
        return mpmath.mpf(v.numerator) / mpmath.mpf(v.denominator)
    return mpmath.mpf(v)


def log_text(value) -> str:
    """``log(value)`` as a 40-significant-digit string (``inf`` for infinity)."""
    v = _mp(value)
    if mpmath.isinf(v):
        return "inf"
    return mpmath.nstr(mpmath.log(v), 40)


def worst_case_ratio(
    table: Mapping[Hashable, Mapping[Hashable, Any]],
    *,
    method: str = "enumeration",
    note: str = "",
) -> ExactEpsilon:
    """Worst case of ``log P(o | x) / P(o | x')`` over inputs ``x, x'`` and outputs ``o``.

    Parameters
    ----------
    table : mapping input -> (mapping output -> probability)
        Each inner mapping is a full output distribution (missing outputs have
        probability 0). Probabilities should be exact (``Fraction``) or
        high precision (``mpmath.mpf``); floats are accepted as given.

    Returns an :class:`ExactEpsilon`; ε is ``inf`` when an output has positive
    probability under one input and zero under another.
    """
    inputs = list(table)
    if len(inputs) < 2:
        raise ValueError("need at least two inputs to compute a likelihood ratio")
    outputs: list = []
    seen = set()
    for x in inputs:
        for o in table[x]:
            if o not in seen:
                seen.add(o)
                outputs.append(o)
    best = None
    for o in outputs:
        probs = [(_mp(table[x].get(o, 0)), x) for x in inputs]
        hi, xh = max(probs, key=lambda t: t[0])
        lo, xl = min(probs, key=lambda t: t[0])
        if hi <= 0:
            continue
        ratio = mpmath.inf if lo <= 0 else hi / lo
        if best is None or ratio > best[0]:
            best = (ratio, (xh, xl), o)
    if best is None:
        raise ValueError("every output has probability 0 under every input: not a distribution table")
    ratio, pair, out = best
    eps = float(mpmath.log(ratio)) if not mpmath.isinf(ratio) else float("inf")
    return ExactEpsilon(eps=eps, eps_text=log_text(ratio), worst_pair=pair, worst_output=out, method=method, note=note)
