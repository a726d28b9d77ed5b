"""Output events for likelihood-ratio audits, chosen from data.

The auditor never fixes its events in advance. On the *selection* samples it
learns a coding of the outputs into a small number of atoms and, for each
ordered pair of inputs, the union of atoms whose estimated likelihood ratio is
largest (the empirical Neyman–Pearson event). Those events are then evaluated
on *fresh* samples, so their counts are honest binomials.

Codings (:class:`ColumnCoder`, one per output column):

- ``exact``: few distinct values (integers, ⊥, bits, quantisation levels):
  one atom per value, plus an "unseen" atom;
- ``binned``: many distinct values (continuous outputs): values that repeat
  often (atoms of a mixed distribution such as the Hybrid Mechanism's ±B, or
  a NaN for "no value") keep their own atom, the rest fall into quantile bins
  of the pooled selection data.

Event families (:func:`candidate_events`):

- whole outputs, when few distinct output rows occur (:class:`RowCoder`);
- single columns (e.g. one bit of a unary encoding, a scalar output);
- pairs of columns, on the joint atoms of the most informative columns (e.g.
  ``{b_x = 1 ∧ b_x' = 0}`` for unary encoding, or (index, value) for FedSel).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from privcheck.stats import clopper_pearson


def describe_value(v) -> str:
    """Readable form of an output value (labels of encoded strings/objects; see auditor.outputs)."""
    from privcheck.auditor.outputs import describe_value as _describe

    return _describe(v)

MAX_EXACT_VALUES = 64
MAX_ROW_ATOMS = 4096
BINS = 64
TOP_COLUMNS = 4


def as_matrix(out, n: int) -> np.ndarray:
    """Standardise sampler output to a 2-D array ``(n, columns)``; raise on a wrong shape."""
    a = np.asarray(out)
    if a.dtype == object:
        raise ValueError("sampler output must be a numeric array (shape (n,) or (n, d)), got objects")
    if a.ndim == 0 or a.shape[0] != n:
        raise ValueError(f"sampler returned shape {a.shape}, expected ({n},) or ({n}, d)")
    if a.ndim == 1:
        a = a[:, None]
    elif a.ndim > 2:
        a = a.reshape(n, -1)
    if a.dtype == bool:
        return a.view(np.uint8)
    if np.issubdtype(a.dtype, np.integer):
        lo, hi = (int(a.min()), int(a.max())) if a.size else (0, 0)
        for t in (np.int8, np.int16, np.int32):
            info = np.iinfo(t)
            if info.min <= lo and hi <= info.max:
                return a.astype(t, copy=False)
        return a
    return a.astype(np.float64, copy=False)


@dataclass
class ColumnCoder:
    """Maps one output column to atom codes ``0 .. n_codes-1`` (the last code is "unseen")."""

    mode: str
    values: np.ndarray  # exact atoms (sorted, NaN excluded)
    edges: np.ndarray = field(default_factory=lambda: np.empty(0))  # bin edges (binned mode)
    has_nan: bool = False
    int_offset: int | None = None  # fast path: integer codes = value - offset

    @classmethod
    def fit(cls, column: np.ndarray) -> "ColumnCoder":
        """Learn the coding from pooled selection data of one column."""
        col = column
        if np.issubdtype(col.dtype, np.integer):
            lo, hi = int(col.min()), int(col.max())
            if hi - lo < MAX_EXACT_VALUES * 4096:
                present = np.flatnonzero(np.bincount(col.astype(np.int64) - lo)) + lo
                if present.size <= MAX_EXACT_VALUES * 4096:
                    return cls("exact", present.astype(np.float64), int_offset=lo)
        nan = np.isnan(col) if col.dtype.kind == "f" else np.zeros(col.shape, bool)
        finite = col[~nan]
        uniq, counts = np.unique(finite, return_counts=True)
        if uniq.size <= MAX_EXACT_VALUES:
            return cls("exact", uniq.astype(np.float64), has_nan=bool(nan.any()))
        heavy = uniq[counts >= max(10, 0.005 * finite.size)]
        rest = finite[~np.isin(finite, heavy)] if heavy.size else finite
        if rest.size:
            qs = np.quantile(rest, np.linspace(0, 1, BINS + 1)[1:-1])
            edges = np.unique(qs)
        else:
            edges = np.empty(0)
        return cls("binned", heavy.astype(np.float64), edges=edges, has_nan=bool(nan.any()))

    @property
    def n_codes(self) -> int:
        """Number of atoms, the "unseen" atom included."""
        n = self.values.size + (self.edges.size + 1 if self.mode == "binned" else 0)
        return n + int(self.has_nan) + 1  # + unseen

    def transform(self, column: np.ndarray) -> np.ndarray:
        """Atom codes (int32) of ``column``; values not seen in the fit map to the last code."""
        unseen = self.n_codes - 1
        if self.int_offset is not None and np.issubdtype(column.dtype, np.integer):
            # values are codes into the dense range; map the present ones to 0..k-1
            lut_size = int(self.values[-1]) - self.int_offset + 1
            lut = np.full(lut_size, unseen, dtype=np.int32)
            lut[self.values.astype(np.int64) - self.int_offset] = np.arange(self.values.size, dtype=np.int32)
            lo, hi = int(column.min()), int(column.max())
            if lo >= self.int_offset and hi - self.int_offset < lut_size:  # common case: no unseen values
                return lut[column - column.dtype.type(self.int_offset)] if self.int_offset else lut[column]
            idx = column.astype(np.int64) - self.int_offset
            ok = (idx >= 0) & (idx < lut_size)
            out = np.full(column.shape, unseen, dtype=np.int32)
            out[ok] = lut[idx[ok]]
            return out
        col = column.astype(np.float64, copy=False)
        out = np.full(col.shape, unseen, dtype=np.int32)
        nv = self.values.size
        if nv:
            pos = np.searchsorted(self.values, col)
            pos_c = np.minimum(pos, nv - 1)
            hit = self.values[pos_c] == col
            out[hit] = pos_c[hit]
        else:
            hit = np.zeros(col.shape, bool)
        if self.mode == "binned":
            rest = ~hit & ~np.isnan(col)
            out[rest] = nv + np.searchsorted(self.edges, col[rest], side="right")
        if self.has_nan:
            out[np.isnan(col)] = self.n_codes - 2
        return out

    def describe(self, code: int) -> str:
        """Human-readable description of atom ``code``."""
        nv = self.values.size
        if code < nv:
            return f"={describe_value(self.values[code])}"
        if self.mode == "binned" and code < nv + self.edges.size + 1:
            b = code - nv
            lo = -np.inf if b == 0 else self.edges[b - 1]
            hi = np.inf if b == self.edges.size else self.edges[b]
            return f"in [{lo:.4g}, {hi:.4g})"
        if self.has_nan and code == self.n_codes - 2:
            return "=none"
        return "unseen"


class RowCoder:
    """Whole output rows as atoms (used when few distinct rows occur)."""

    def __init__(self, rows: np.ndarray):
        self.width = rows.shape[1]
        keys = self._keys(rows)
        self.keys, first = np.unique(keys, return_index=True)
        self.examples = rows[first]

    def _keys(self, rows: np.ndarray) -> np.ndarray:
        r = np.ascontiguousarray(rows)
        return r.view(np.dtype((np.void, r.dtype.itemsize * r.shape[1]))).ravel()

    @property
    def n_codes(self) -> int:
        """Number of distinct rows seen, plus the "unseen" atom."""
        return self.keys.size + 1

    def transform(self, rows: np.ndarray) -> np.ndarray:
        """Atom codes of ``rows``; rows not seen in the fit map to the last code."""
        k = self._keys(rows.astype(self.examples.dtype, copy=False))
        pos = np.minimum(np.searchsorted(self.keys, k), self.keys.size - 1)
        hit = self.keys[pos] == k
        return np.where(hit, pos, self.keys.size).astype(np.int32)

    def describe(self, code: int) -> str:
        """Human-readable description of atom ``code``."""
        if code >= self.keys.size:
            return "unseen"
        row = self.examples[code]
        vals = ", ".join(describe_value(v) for v in row[:12])
        return f"output=({vals}{', …' if row.size > 12 else ''})"


@dataclass
class Event:
    """A data-chosen output event: a set of joint atoms of some columns (or of whole rows).

    ``columns`` is ``None`` for whole-row events. ``atoms`` is a boolean mask
    over the joint codes. ``pair`` are the indices of the inputs (x, x') for
    which the event was chosen (likelihood ratio ``P(E|x) / P(E|x')``).
    """

    pair: tuple[int, int]
    columns: tuple[int, ...] | None
    atoms: np.ndarray
    predicted: float
    description: str

    def key(self) -> tuple:
        """Identity used to drop duplicate candidates."""
        return (self.pair, self.columns, self.atoms.tobytes())


class OutputCoding:
    """The fitted coders of all columns (and of whole rows when few distinct rows occur)."""

    def __init__(self, pooled: np.ndarray):
        self.width = pooled.shape[1]
        self.columns = [ColumnCoder.fit(pooled[:, j]) for j in range(self.width)]
        self.rows: RowCoder | None = None
        if self.width > 1:
            probe = pooled[: min(len(pooled), 20000)]
            if np.unique(RowCoder(probe).keys).size <= MAX_ROW_ATOMS:
                rc = RowCoder(pooled)
                if rc.keys.size <= MAX_ROW_ATOMS:
                    self.rows = rc

    def codes(self, data: np.ndarray, columns: tuple[int, ...] | None) -> tuple[np.ndarray, int]:
        """Joint atom codes of ``columns`` (``None``: whole rows) and their number."""
        if columns is None:
            assert self.rows is not None
            return self.rows.transform(data), self.rows.n_codes
        if len(columns) == 1:
            c = self.columns[columns[0]]
            return c.transform(data[:, columns[0]]), c.n_codes
        code = np.zeros(len(data), dtype=np.int64)
        total = 1
        for j in columns:
            c = self.columns[j]
            code = code * c.n_codes + c.transform(data[:, j])
            total *= c.n_codes
        return code, total

    def describe(self, columns: tuple[int, ...] | None, atoms: np.ndarray, limit: int = 6) -> str:
        """A short description of an event."""
        idx = np.flatnonzero(atoms)
        if columns is None:
            parts = [self.rows.describe(int(i)) for i in idx[:limit]]
        else:
            parts = []
            for code in idx[:limit]:
                rem, pieces = int(code), []
                for j in reversed(columns):
                    n = self.columns[j].n_codes
                    rem, c = divmod(rem, n)
                    pieces.append(f"out[{j}]{self.columns[j].describe(c)}" if self.width > 1
                                  else f"out{self.columns[j].describe(c)}")
                parts.append(" ∧ ".join(reversed(pieces)))
        more = f" ∪ … ({idx.size} atoms)" if idx.size > limit else ""
        return " ∪ ".join(f"{{{p}}}" for p in parts) + more


def predicted_bound(k1: np.ndarray, n1: int, k0: np.ndarray, n0: int, n_est: int, alpha: float,
                    delta_eps: float | None = None) -> np.ndarray:
    """Predicted audit bound if the selection proportions held at ``n_est`` draws.

    The bound is ``log(CP_lo(p1) / CP_hi(p0))`` (an ε lower bound), or with
    ``delta_eps`` the δ lower bound ``CP_lo(p1) − e^ε·CP_hi(p0)`` at that ε.
    """
    p1 = np.rint(k1 / n1 * n_est)
    p0 = np.rint(k0 / n0 * n_est)
    lo = clopper_pearson(p1, n_est, alpha / 2, "lower")
    hi = clopper_pearson(p0, n_est, alpha / 2, "upper")
    if delta_eps is not None:
        return lo - np.exp(delta_eps) * hi
    with np.errstate(divide="ignore"):
        return np.where(lo > 0, np.log(np.maximum(lo, 1e-300) / hi), -np.inf)


def best_union(c1: np.ndarray, n1: int, c0: np.ndarray, n0: int, n_est: int, alpha: float,
               delta_eps: float | None = None):
    """The union of atoms (a prefix in decreasing estimated ratio) maximising the predicted bound.

    Returns ``(mask, predicted)``; ``predicted`` is ``-inf`` if no event helps.
    """
    keep = (c1 + c0) > 0
    idx = np.flatnonzero(keep)
    if idx.size == 0:
        return np.zeros(c1.size, bool), -np.inf
    ratio = ((c1[idx] + 0.5) / (n1 + 1)) / ((c0[idx] + 0.5) / (n0 + 1))
    order = idx[np.argsort(-ratio, kind="stable")]
    k1 = np.cumsum(c1[order])
    k0 = np.cumsum(c0[order])
    # only prefixes that end before a tie-break matter; evaluate all (vectorised)
    score = predicted_bound(k1, n1, k0, n0, n_est, alpha, delta_eps)
    j = int(np.argmax(score))
    mask = np.zeros(c1.size, bool)
    mask[order[: j + 1]] = True
    return mask, float(score[j])


def candidate_events(
    coding: OutputCoding,
    selection: list[np.ndarray],
    n_est: int,
    alpha: float,
    *,
    max_events: int,
    delta_eps: float | None = None,
    allowed_pairs: set | None = None,
) -> list[Event]:
    """Choose up to ``max_events`` events over all ordered input pairs, best predicted bound first.

    ``selection[i]`` holds the selection samples of input ``i`` (2-D). The
    events are chosen on these samples only; the caller must estimate their
    probabilities on fresh samples.
    """
    found: list[Event] = []
    L = len(selection)
    n_sel = [len(s) for s in selection]
    families: list[tuple[int, ...] | None] = []
    if coding.rows is not None:
        families.append(None)
    families.extend((j,) for j in range(coding.width))
    # codes and counts per family and input
    counts: dict = {}

    def count(fam, i):
        key = (fam, i)
        if key not in counts:
            codes, total = coding.codes(selection[i], fam)
            counts[key] = np.bincount(codes, minlength=total).astype(np.float64)
        return counts[key]

    for a in range(L):
        for b in range(L):
            if a == b or (allowed_pairs is not None and (a, b) not in allowed_pairs):
                continue
            col_scores = []
            for fam in families:
                mask, score = best_union(count(fam, a), n_sel[a], count(fam, b), n_sel[b], n_est, alpha, delta_eps)
                if np.isfinite(score) and (delta_eps is None or score > -np.inf):
                    found.append(Event((a, b), fam, mask, score, ""))
                    if fam is not None:
                        col_scores.append((score, fam[0]))
            if coding.width > 1 and coding.rows is None:
                # joint events on pairs of the most informative columns, plus each top column with
                # each other column when there are only a few columns (index, value outputs)
                top = [j for _, j in sorted(col_scores, reverse=True)[:TOP_COLUMNS]]
                if coding.width <= TOP_COLUMNS:
                    top = list(range(coding.width))
                for pair in combinations(sorted(top), 2):
                    mask, score = best_union(count(pair, a), n_sel[a], count(pair, b), n_sel[b], n_est, alpha, delta_eps)
                    if np.isfinite(score):
                        found.append(Event((a, b), pair, mask, score, ""))
    found.sort(key=lambda e: -e.predicted)
    chosen: list[Event] = []
    seen = set()
    for e in found:
        if e.key() in seen:
            continue
        seen.add(e.key())
        e.description = coding.describe(e.columns, e.atoms)
        chosen.append(e)
        if len(chosen) >= max_events:
            break
    return chosen
