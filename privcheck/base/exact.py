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
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Hashable, Iterator, Mapping

import mpmath

from privcheck.base.errors import PrivcheckUsageError

mpmath.mp.dps = max(mpmath.mp.dps, 50)

#: the largest ε for which exact ε is computed (the arithmetic needs about ε/ln 10 digits)
EXACT_EPS_MAX = 10_000.0
#: significant digits kept beyond what the size of ε requires
GUARD_DIGITS = 50


@dataclass(frozen=True)
class ExactEpsilon:
    """The exact worst-case log-likelihood ratio of a mechanism.

    eps: the value as a float (``inf`` if some output is possible under one
    input and impossible under another); eps_text: the same to at least 30
    significant digits (from rational or mpmath arithmetic); worst_pair: the
    maximising inputs ``(x, x')``; worst_output: the maximising output (or a
    description of the output event); method: ``"closed form"``,
    ``"enumeration"`` or ``"symmetry"`` with a short explanation in ``note``.
    """

    eps: float
    eps_text: str
    worst_pair: tuple
    worst_output: Any
    method: str
    note: str = ""
    delta: float = 0.0
    extra: dict = field(default_factory=dict)


class ExactRangeError(PrivcheckUsageError):
    """The exact ε is not computed for parameters this far out (one line; use ``--no-exact``)."""


def digits_for(*eps_values: float, large: bool = True) -> int:
    """Decimal digits that resolve ``e^{±ε}`` next to 1 and ``1 + ε`` for every ε given.

    A probability such as ``1 − e^ε/(e^ε + m − 1)`` loses ``ε/ln 10`` digits to
    cancellation and a ratio ``1 + ε`` needs ``−log10 ε`` digits to be told from 1,
    so the working precision is ``GUARD_DIGITS`` plus the worst of both over all
    ε (infinite or non-positive values are ignored). ``large=False`` counts only
    the small-ε need, for formulas written without the ``1 − e^ε/(…)`` cancellation.
    """
    need = 0.0
    for e in eps_values:
        try:
            e = float(e)
        except (TypeError, ValueError):
            continue
        if not (e > 0) or math.isinf(e):
            continue
        need = max(need, e / math.log(10) if large else 0.0, -math.log10(e))
    return GUARD_DIGITS + int(math.ceil(need))


def check_exact_range(*eps_values: float) -> None:
    """Raise :class:`ExactRangeError` when some ε exceeds :data:`EXACT_EPS_MAX`."""
    for e in eps_values:
        try:
            e = float(e)
        except (TypeError, ValueError):
            continue
        if e > EXACT_EPS_MAX and not math.isinf(e):
            raise ExactRangeError(
                f"exact eps is computed for eps <= {EXACT_EPS_MAX:g} (it needs about eps/2.3 digits), "
                f"got {e:g}; run without the exact part (--no-exact)"
            )


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
