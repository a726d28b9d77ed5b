"""sqSGD's randomised rotation — 001, Sec. 3.3, eq. 10.

R = (1/d)·H·A with H the (unnormalised, ±1) Walsh–Hadamard matrix of order
d = 2^m (eq. 10) and A a diagonal of i.i.d. Rademacher signs; before the
rotation X is projected onto the ℓ2 ball of radius U. As printed,
R Rᵀ = (1/d²)·H Hᵀ = I/d, so R is orthogonal only after rescaling by √d
(``normalisation='orthonormal'`` gives (1/√d)·H·A).
"""

from __future__ import annotations

import numpy as np

from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_int, check_positive

SOURCE = "001_30a1c1c8dca8a50f.txt"


def _check_pow2(d) -> int:
    d = check_int("d", d, minimum=2)
    if d & (d - 1):
        raise PrivcheckUsageError(f"d must be a power of two (Walsh–Hadamard order), got {d}")
    return d


def walsh_hadamard(d: int) -> np.ndarray:
    """H(d) of eq. 10 (entries ±1; Sylvester construction, same as the recursion)."""
    from scipy.linalg import hadamard

    return hadamard(_check_pow2(d)).astype(float)


def rademacher(d: int, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
    """Diagonal(s) of A: i.i.d. ±1 with probability 1/2 each (shape (d,) or (size, d))."""
    shape = (d,) if size is None else (size, d)
    return rng.choice(np.array([-1.0, 1.0]), size=shape)


def rotation_matrix(d: int, signs, normalisation: str = "paper") -> np.ndarray:
    """R = c·H·diag(signs): c = 1/d as printed ('paper') or 1/√d ('orthonormal')."""
    d = _check_pow2(d)
    s = np.asarray(signs, dtype=float)
    if s.shape != (d,) or not np.all(np.abs(s) == 1):
        raise PrivcheckUsageError(f"signs must be d={d} values in {{-1, +1}}")
    c = {"paper": 1.0 / d, "orthonormal": 1.0 / np.sqrt(d)}.get(normalisation)
    if c is None:
        raise PrivcheckUsageError(f"normalisation must be 'paper' or 'orthonormal', got {normalisation!r}")
    return c * walsh_hadamard(d) * s[None, :]


def fwht(x) -> np.ndarray:
    """Fast Walsh–Hadamard transform H·x along the last axis (vectorised over leading axes), O(d log d)."""
    a = np.array(x, dtype=float, copy=True)
    d = _check_pow2(a.shape[-1])
    h = 1
    lead = a.shape[:-1]
    while h < d:
        a = a.reshape(*lead, d // (2 * h), 2, h)
        u, v = a[..., 0, :].copy(), a[..., 1, :].copy()
        a[..., 0, :], a[..., 1, :] = u + v, u - v
        a = a.reshape(*lead, d)
        h *= 2
    return a


def rotate(x, signs, normalisation: str = "paper") -> np.ndarray:
    """R·x for rows of ``x`` (shape (..., d)) with per-row or shared ``signs``, via :func:`fwht`."""
    x = np.asarray(x, dtype=float)
    d = _check_pow2(x.shape[-1])
    c = {"paper": 1.0 / d, "orthonormal": 1.0 / np.sqrt(d)}.get(normalisation)
    if c is None:
        raise PrivcheckUsageError(f"normalisation must be 'paper' or 'orthonormal', got {normalisation!r}")
    return c * fwht(x * np.asarray(signs, dtype=float))


def project_l2(x, U: float) -> np.ndarray:
    """Euclidean projection of each row of ``x`` onto the ℓ2 ball of radius U > 0."""
    U = check_positive("U", U)
    x = np.asarray(x, dtype=float)
    nrm = np.linalg.norm(x, axis=-1, keepdims=True)
    return x * np.minimum(1.0, U / np.maximum(nrm, np.finfo(float).tiny))
