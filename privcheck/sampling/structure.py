"""Deterministic structure of a list of batches: duplicates, epochs, constant sizes, the rate of the most
frequent record (selected on the first half of the steps, estimated on the second: a valid interval)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from privcheck.base.stats import clopper_pearson


@dataclass
class Structure:
    """What the batches show without a test: sizes, duplicates within batches, epochs (each record at most
    once, split where a record would repeat or all n were seen), and whether the epochs are complete."""

    T: int
    n: int
    sizes: np.ndarray
    counts: np.ndarray
    duplicates: list[int] = field(default_factory=list)
    epochs: list[np.ndarray] = field(default_factory=list)
    complete_epochs: int = 0
    epoch_partition: bool = False

    @property
    def S(self) -> int:
        return int(self.sizes.sum())

    @property
    def constant_size(self) -> bool:
        return bool(self.T >= 2 and np.all(self.sizes[:-1] == self.sizes[0]))


def structure(batches: list[np.ndarray], n: int) -> Structure:
    """The :class:`Structure` of ``batches`` (indices already checked to lie in [0, n))."""
    sizes = np.array([b.size for b in batches], dtype=np.int64)
    flat = np.concatenate(batches) if batches else np.zeros(0, dtype=np.int64)
    st = Structure(len(batches), n, sizes, np.bincount(flat, minlength=n))
    st.duplicates = [t for t, b in enumerate(batches) if np.unique(b).size != b.size]
    seen = np.zeros(n, dtype=bool)
    cur: list[np.ndarray] = []
    size0 = int(sizes[0]) if sizes.size else 0
    for b in batches:
        if cur and (seen[b].any() or seen.sum() + b.size > n):
            st.epochs.append(np.concatenate(cur))
            seen[:], cur = False, []
        seen[b] = True
        cur.append(b)
    if cur:
        st.epochs.append(np.concatenate(cur))
    # an epoch is complete when it covers n records, or all but fewer than one batch (drop_last)
    full = [e for e in st.epochs if e.size >= n - max(size0 - 1, 0) and np.unique(e).size == e.size]
    st.complete_epochs = len(full)
    st.epoch_partition = len(st.epochs) >= 1 and all(np.unique(e).size == e.size for e in st.epochs[:-1])
    st.epoch_partition = st.epoch_partition and st.complete_epochs >= max(1, len(st.epochs) - 1) and not st.duplicates
    return st


def top_rate(batches: list[np.ndarray], n: int, confidence: float) -> dict | None:
    """The most frequent record of the first half of the steps and its inclusion rate on the second half:
    Clopper–Pearson interval at ``confidence`` (selection and estimate on disjoint steps). None below 4 steps."""
    T = len(batches)
    if T < 4:
        return None
    half = T // 2
    first = np.bincount(np.concatenate(batches[:half]), minlength=n) if half else np.zeros(n, int)
    rec = int(np.argmax(first))
    k = sum(int(np.any(b == rec)) for b in batches[half:])
    m = T - half
    lo, hi = clopper_pearson(k, m, 1 - confidence)
    return {"record": rec, "included": k, "steps": m, "rate": k / m, "rate_lower": float(lo), "rate_upper": float(hi)}
