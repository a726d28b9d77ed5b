"""Numeric sampler output as a 2-D matrix ``(n, columns)``: the one standard shape every stage codes.

Kept apart from :mod:`privcheck.auditor.coding` (which codes the matrix into atoms) and
:mod:`privcheck.auditor.outputs` (which turns other output types into numbers first), so that both can use it
without importing each other.
"""

from __future__ import annotations

import numpy as np


def as_matrix(out, n: int) -> np.ndarray:
    """Standardise numeric sampler output to a 2-D array ``(n, columns)``; raise on a wrong shape.

    Booleans become ``uint8`` (a view), integers stay as they are (no copy),
    everything else becomes ``float64``.
    """
    a = np.asarray(out)
    if a.dtype == object or a.dtype.kind in "USVMmc":
        raise ValueError(f"sampler output must be a numeric array (shape (n,) or (n, d)), got dtype {a.dtype}")
    if a.ndim == 0 or a.shape[0] != n:
        raise ValueError(f"sampler returned shape {a.shape}, expected ({n},) or ({n}, d)")
    if a.ndim == 1:
        a = a[:, None]
    elif a.ndim > 2:
        a = a.reshape(n, -1)
    if a.dtype == bool:
        return a.view(np.uint8)
    if a.dtype.kind in "iu":
        if a.dtype == np.uint64 and a.size and int(a.max()) > np.iinfo(np.int64).max:
            return a.astype(np.float64)
        return a  # integers are coded as they are (no narrowing pass)
    return a.astype(np.float64, copy=False)
