"""The exact-ε result and its precision rules, without mpmath (issue 33: a closed form computed in
:mod:`decimal` need not load mpmath; :mod:`privcheck.base.exact` re-exports every name here).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from privcheck.base.errors import PrivcheckUsageError

__all__ = ["EXACT_EPS_MAX", "GUARD_DIGITS", "ExactEpsilon", "ExactRangeError", "check_exact_range", "digits_for"]

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
