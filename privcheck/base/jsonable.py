"""JSON-ready copies of result fields: one rule for the result objects' ``to_dict`` (trace, calibrator)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def plain(obj: Any) -> Any:
    """``obj`` with dict keys as strings, tuples as lists, numpy scalars as Python numbers, non-finite floats as
    strings (``"inf"``, ``"nan"``) and anything else that JSON cannot hold as its ``repr``."""
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if isinstance(obj, np.generic):
        return plain(obj.item())
    return repr(obj)
