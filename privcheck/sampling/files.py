"""Saved batches for ``privcheck check-sampling FILE`` and ``[[sampling]]`` entries.

Formats (by extension): ``.json`` a list of index lists; ``.txt`` one batch per line, indices separated by
spaces or commas (an empty line is an empty batch; ``#`` starts a comment line); ``.npy`` a 2-D integer array
(one batch per row) or a 2-D boolean mask (``mask[t, i]``: record i is in step t); ``.npz`` one array per batch
in file order (``np.savez(path, *batches)``) or a single 2-D array as in ``.npy``.
"""

from __future__ import annotations

import json
import os

import numpy as np

from privcheck.base.errors import PrivcheckUsageError

FORMATS = (".json", ".txt", ".npy", ".npz")


def _rows(arr: np.ndarray, path: str) -> list[np.ndarray]:
    if arr.ndim != 2:
        raise PrivcheckUsageError(
            f"{path}: expected a 2-D array (one batch per row, or a boolean mask), got {arr.ndim}-D"
        )
    if arr.dtype == bool:
        return [np.flatnonzero(r) for r in arr]
    if not np.issubdtype(arr.dtype, np.integer):
        raise PrivcheckUsageError(f"{path}: expected integer indices or a boolean mask, got {arr.dtype}")
    return [r.astype(np.int64) for r in arr]


def load_batches(path: str) -> list:
    """The batches saved in ``path`` (see the module docstring); one-line usage errors for anything else."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in FORMATS:
        raise PrivcheckUsageError(f"{path}: unknown format {ext or '(none)'}; allowed: {', '.join(FORMATS)}")
    if not os.path.isfile(path):
        raise PrivcheckUsageError(f"{path}: no such file")
    try:
        if ext == ".json":
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
            if not isinstance(data, list) or not all(isinstance(b, list) for b in data):
                raise PrivcheckUsageError(f"{path}: expected a JSON list of index lists")
            return data
        if ext == ".txt":
            with open(path, encoding="utf-8") as fh:
                lines = [ln.strip() for ln in fh if not ln.lstrip().startswith("#")]
            return [[int(v) for v in ln.replace(",", " ").split()] for ln in lines]
        if ext == ".npy":
            return _rows(np.load(path, allow_pickle=False), path)
        with np.load(path, allow_pickle=False) as z:
            names = list(z.files)
            if len(names) == 1 and z[names[0]].ndim == 2:
                return _rows(z[names[0]], path)
            keyed = sorted(names, key=lambda k: int(k[4:]) if k.startswith("arr_") and k[4:].isdigit() else 10**12)
            return [z[k] for k in keyed]
    except PrivcheckUsageError:
        raise
    except (ValueError, OSError) as exc:
        raise PrivcheckUsageError(f"{path}: cannot read batches: {' '.join(str(exc).split())[:200]}") from None
