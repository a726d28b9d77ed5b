"""Numbers as text where a rounding could mislead: shared by the auditor's summaries and the reports.

Foundation layer: imports nothing of privcheck.
"""

from __future__ import annotations

from typing import Any


def fmt_confidence(c: Any) -> str:
    """A confidence level with enough digits never to round up to 1 (``0.99875``, not ``100%``)."""
    f = as_float(c)
    if f is None:
        return str(c)
    for digits in range(2, 16):
        text = f"{f:.{digits}g}"
        if float(text) != 1.0 or f == 1.0:
            if abs(float(text) - f) <= 1e-12 * max(1.0, abs(f)) or digits >= 6:
                return text
    return repr(f)


def as_float(v: Any) -> float | None:
    """``v`` as a float when it is a number (Python or numpy, or the strings inf, -inf, nan), else None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str) and v in ("inf", "-inf", "nan"):
        return float(v)
    try:
        import numpy as np

        if isinstance(v, np.generic) and np.issubdtype(type(v), np.number):
            return float(v)
    except ImportError:  # pragma: no cover
        pass
    return None
