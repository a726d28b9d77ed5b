"""Turn what a user hands :func:`privcheck.check_sampling` into a list of index arrays.

Accepted: an iterable of index arrays (lists, numpy arrays, tensors with ``.numpy()`` or ``.tolist()``); a
PyTorch-style data loader (its ``batch_sampler``, else its ``sampler`` grouped by ``batch_size``: the indices it
draws, not the data); a batch sampler (an iterable of index lists, such as Opacus's
``UniformWithReplacementSampler``). Iterating a loader or sampler once gives one epoch; ``epochs`` repeats it.
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from privcheck.base.errors import PrivcheckUsageError

#: at most this many batches are read (a generator without end must not hang the check)
MAX_BATCHES = 1_000_000


def _as_index_array(batch: Any, t: int) -> np.ndarray:
    if hasattr(batch, "detach"):  # a torch tensor
        batch = batch.detach().cpu().numpy()
    arr = np.asarray(batch)
    if arr.dtype == object or arr.ndim > 1:
        raise PrivcheckUsageError(
            f"batch {t}: expected a flat list of record indices, got an array of shape {arr.shape} "
            f"and dtype {arr.dtype} (a data loader's data? pass the loader itself or its batch_sampler)"
        )
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if not np.issubdtype(arr.dtype, np.integer):
        if not np.issubdtype(arr.dtype, np.floating) or not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise PrivcheckUsageError(f"batch {t}: record indices must be integers, got {arr.dtype} values")
        arr = arr.astype(np.int64)
    return arr.astype(np.int64).ravel()


def _source(obj: Any) -> Iterable:
    """The iterable of index batches behind ``obj`` (a loader's batch sampler, a sampler grouped, or obj)."""
    bs = getattr(obj, "batch_sampler", None)
    if bs is not None and hasattr(obj, "dataset"):
        return bs
    sampler, size = getattr(obj, "sampler", None), getattr(obj, "batch_size", None)
    if sampler is not None and hasattr(obj, "dataset") and isinstance(size, int) and size > 0:
        return _grouped(sampler, size, bool(getattr(obj, "drop_last", False)))
    return obj


def _grouped(sampler: Iterable, size: int, drop_last: bool):
    batch: list[int] = []
    for i in sampler:
        batch.append(int(i))
        if len(batch) == size:
            yield batch
            batch = []
    if batch and not drop_last:
        yield batch


def as_batches(obj: Any, n: int, epochs: int = 1) -> list[np.ndarray]:
    """The index batches of ``obj`` (see the module docstring), each an int64 array; indices in [0, n).

    epochs ≥ 1: iterate a re-iterable source (a loader, a sampler, a list) this many times (a one-shot
    iterator: once). Raises :class:`PrivcheckUsageError` (one line) for data instead of indices, indices
    outside [0, n), non-integer values, or no batch at all.
    """
    src = _source(obj)
    if isinstance(obj, (str, bytes)) or not hasattr(src, "__iter__"):
        raise PrivcheckUsageError(
            f"batches must be an iterable of index arrays, a data loader or a sampler, got {type(obj).__name__}"
        )
    out: list[np.ndarray] = []
    for _ in range(epochs):
        it = iter(src)
        for batch in it:
            out.append(_as_index_array(batch, len(out)))
            if len(out) > MAX_BATCHES:
                raise PrivcheckUsageError(f"more than {MAX_BATCHES} batches: pass a finite list (or fewer epochs)")
        if it is src:  # a one-shot iterator: a second pass would be empty
            break
    if not out:
        raise PrivcheckUsageError("no batches: the sampler yielded nothing")
    lo = min((int(b.min()) for b in out if b.size), default=0)
    hi = max((int(b.max()) for b in out if b.size), default=0)
    if lo < 0 or hi >= n:
        raise PrivcheckUsageError(f"record indices must lie in [0, n) = [0, {n}); found {lo if lo < 0 else hi}")
    return out
