"""Score files: ``.npy`` (a 1-d numeric array), ``.csv`` / ``.txt`` (one number per line, blank lines ignored)."""

from __future__ import annotations

import os

import numpy as np

from privcheck.base.errors import PrivcheckUsageError

__all__ = ["read_scores"]

_EXTS = (".npy", ".csv", ".txt")


def read_scores(path: str) -> np.ndarray:
    """The scores in ``path`` as a 1-d float array; a one-line PrivcheckUsageError names what is wrong."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in _EXTS:
        raise PrivcheckUsageError(f"{path}: score files must be .npy, .csv or .txt (one score per line), got {ext!r}")
    if not os.path.isfile(path):
        raise PrivcheckUsageError(f"{path}: no such file")
    if ext == ".npy":
        try:
            arr = np.load(path, allow_pickle=False)
        except (ValueError, OSError, EOFError) as exc:
            raise PrivcheckUsageError(f"{path}: not a numeric .npy array ({str(exc).splitlines()[0]})") from None
        if arr.dtype.kind not in "iuf":
            raise PrivcheckUsageError(f"{path}: the array must be numeric, got dtype {arr.dtype}")
        if arr.ndim != 1:
            raise PrivcheckUsageError(f"{path}: the array must be 1-d (one score per canary), got shape {arr.shape}")
        return _finite(path, arr.astype(float), "index")
    values = []
    try:
        with open(path, encoding="utf-8") as fh:
            for no, line in enumerate(fh, 1):
                text = line.strip()
                if not text:
                    continue
                try:
                    values.append(float(text))
                except ValueError:
                    raise PrivcheckUsageError(
                        f"{path}:{no}: {text[:40]!r} is not a number (one score per line)"
                    ) from None
    except UnicodeDecodeError:
        raise PrivcheckUsageError(f"{path}: not a text file (one score per line)") from None
    return _finite(path, np.asarray(values, dtype=float), "score")


def _finite(path: str, arr, what: str):
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise PrivcheckUsageError(
            f"{path}: {what} {int(bad[0]) + (what == 'score')} is {arr[bad[0]]}; scores must be finite"
        )
    if arr.size == 0:
        raise PrivcheckUsageError(f"{path}: no scores")
    return arr
