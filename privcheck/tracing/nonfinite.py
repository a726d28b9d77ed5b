"""Non-finite neighbours: an input with one value replaced by NaN, +inf or −inf.

``np.clip`` lets NaN through, ``min``/``max`` clipping written with comparisons keeps it too, and one
NaN record turns a sum, its noise scale or the whole released vector into NaN: the output then tells a
NaN record apart from any other with certainty. :func:`variants` builds, for an input of floats (a float, or
an array/list holding floats; integers are read as items or counts, whose domain has no NaN), the three neighbours whose first value (in flat order) is NaN, +inf and −inf.
The trace runs each against its clean input with the same stream: a non-finite output (where the clean
input's is finite), or a noise scale that differs, is a finding; a function that *refuses* the input
(raises) answers correctly.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

#: the replacement values
BAD = (math.nan, math.inf, -math.inf)


def variants(x: Any) -> list[Any]:
    """The NaN/+inf/−inf neighbours of an input of floats (empty for other inputs, or one already non-finite)."""
    if isinstance(x, (bool, np.bool_, numbers.Integral)):
        return []
    if isinstance(x, (float, np.floating)):
        return [] if not math.isfinite(float(x)) else [float(b) for b in BAD]
    if isinstance(x, np.ndarray):
        if x.dtype.kind != "f" or x.size == 0 or not np.all(np.isfinite(x)):
            return []
        out = []
        for b in BAD:
            y = x.astype(float, copy=True)
            y.flat[0] = b
            out.append(y)
        return out
    if isinstance(x, (list, tuple)):
        if not any(isinstance(v, (float, np.floating)) for v in x):
            return []
        try:
            arr = np.asarray(x, dtype=float)
        except (TypeError, ValueError):
            return []
        if arr.size == 0 or arr.ndim != 1 or not np.all(np.isfinite(arr)):
            return []
        return [type(x)([b, *list(x)[1:]]) for b in BAD]
    return []
