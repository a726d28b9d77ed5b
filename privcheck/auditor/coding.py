"""Output coding: sampler outputs → small-integer atom codes, whole chunks at a time.

A coding is fitted once, on a small *pilot* of selection draws
(:meth:`OutputCoding.fit`), and then applied to every chunk of draws without
looking at more data, so counting streams in memory independent of the number
of draws. Each column gets a :class:`ColumnCoder`:

- ``int``: integer/boolean columns with a pilot range ``lo..hi`` of at most
  :data:`MAX_INT_RANGE` values: code ``v − lo`` (no copy for bits), plus the
  two tail atoms "below the pilot range" and "above it" (rare values the pilot
  never saw are merged into these, so they cannot win on noise);
- ``values``: float columns with at most :data:`MAX_EXACT_VALUES` distinct pilot
  values (⊥ codes, quantisation levels, selected indices): one atom per value,
  plus "other", "below", "above" and "none" (NaN);
- ``binned``: continuous columns: pilot values that repeat (:data:`MIN_REPEATS` times, or
  often when many values repeat: atoms of a mixed distribution, e.g. the Hybrid Mechanism's ±B,
  or a marker value one input emits) keep their own atom, the rest fall
  into :data:`BINS` quantile bins of the pilot, plus "none" (NaN).

Counting (:meth:`OutputCoding.count_chunk`, :meth:`OutputCoding.count_events`)
codes a whole chunk in one vectorised pass over all columns (ranges checked by
whole-array ``min``/``max`` reductions), counts the atoms of every column
(blocked one-byte column sums for bit columns, ``bincount`` otherwise), the joint
atoms of chosen column pairs (one matrix product of indicator columns for binary
columns, joint codes otherwise) and whole-row atoms (mixed-radix row keys over
the columns' value codes) when few distinct rows occur — else for the rows the pilot repeats
:data:`MIN_REPEATS` times. Continuous columns are
binned through an exact uniform-grid lookup. Each chunk is read O(1) times and
only counts leave the chunk function.

Packed bit rows (:class:`privcheck.base.packed.PackedBits`, ``ceil(d/8)`` bytes per row of
``d`` bits) are counted without unpacking them to one byte per bit: per-bit counts
from the bytes shifted and masked per bit position, summed per byte column
(:meth:`PackedBits.column_ones`), joint atoms of the chosen column pairs and the
events' columns from only those bits, whole-row atoms from the bytes as keys (a
per-byte table of each byte value's share of the mixed-radix row key). The coding
is fitted on the unpacked pilot, so the atoms, events and counts are the ones of the
unpacked ``(n, d)`` matrix.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from privcheck.auditor.matrix import as_matrix
from privcheck.base.packed import BIT_TABLE, PackedBits, column_sums

MAX_INT_RANGE = 4096
MAX_EXACT_VALUES = 64
BINS = 64
MAX_ROW_ATOMS = 4096
#: a float value or a whole row seen this often in the pilot keeps its own atom (issue 20 §2: an output only
#: one input produces is an ε = ∞ event, however continuous or varied the rest of the outputs)
MIN_REPEATS = 10
#: float columns are fitted on at most this many pilot values (an evenly strided subsample)
FIT_VALUES = 1 << 15

Family = tuple  # () rows, (j,) one column, (i, j) a column pair


def to_matrix(out, n: int) -> np.ndarray | PackedBits:
    """Any sampler output → numeric 2-D array: numeric arrays directly (:func:`as_matrix`),
    other output types through ``privcheck.auditor.outputs.encode_outputs`` when available.
    :class:`~privcheck.base.packed.PackedBits` stay packed (the coding counts them from their bytes)."""
    if isinstance(out, np.ndarray) and out.dtype.kind in "biuf":
        return as_matrix(out, n)
    if isinstance(out, PackedBits):
        if len(out) != n:
            raise ValueError(f"sampler returned PackedBits of {len(out)} rows, expected {n}")
        return out
    try:
        from privcheck.auditor.outputs import encode_outputs
    except ImportError:
        return as_matrix(out, n)
    return as_matrix(encode_outputs(out, n), n)


def _describe_value(v) -> str:
    """An output value as text: the label it codes for non-numeric outputs (see ``auditor.outputs``), else ``:g``."""
    from privcheck.auditor.outputs import describe_value

    return describe_value(v)


class _Columns:
    """Column codes of a chunk kept per column (``codes[:, j]`` indexing only)."""

    def __init__(self, cols: dict, n: int):
        self.cols = cols
        self.n = n

    def __getitem__(self, key):
        return self.cols[key[1]]

    def __len__(self):
        return self.n


def _small_int_dtype(n_codes: int):
    return np.int16 if n_codes < 2**15 else np.int32


@dataclass
class ColumnCoder:
    """Maps one output column to atom codes ``0 .. n_codes − 1`` (layouts in the module docstring)."""

    kind: str
    lo: int = 0
    size: int = 0  # int kind: number of values lo..lo+size-1
    values: np.ndarray = field(default_factory=lambda: np.empty(0))  # values kind: exact; binned: heavy
    edges: np.ndarray = field(default_factory=lambda: np.empty(0))  # binned: interior bin edges

    @classmethod
    def fit(cls, col: np.ndarray) -> "ColumnCoder":
        """Learn the coding of one column from pilot data."""
        if col.dtype.kind in "iub":
            lo, hi = (int(col.min()), int(col.max())) if col.size else (0, 0)
            if hi - lo < MAX_INT_RANGE:
                return cls("int", lo=lo, size=hi - lo + 1)
        col = col.astype(np.float64, copy=False)
        if col.size > FIT_VALUES:  # an evenly strided subsample of the pooled pilot is plenty for a coding
            col = col[:: -(-col.size // FIT_VALUES)]
        finite = col[~np.isnan(col)]
        uniq, counts = np.unique(finite, return_counts=True)
        if uniq.size <= MAX_EXACT_VALUES:
            return cls("values", values=uniq)
        repeated = counts >= MIN_REPEATS  # an exact value repeating in a continuous column is an atom
        heavy = uniq[repeated] if repeated.sum() <= MAX_EXACT_VALUES else uniq[counts >= max(10, 0.005 * finite.size)]
        rest = finite[~np.isin(finite, heavy)] if heavy.size else finite
        edges = np.unique(np.quantile(rest, np.linspace(0, 1, BINS + 1)[1:-1])) if rest.size else np.empty(0)
        return cls("binned", values=heavy, edges=edges)

    @property
    def n_codes(self) -> int:
        """Number of atoms of this column."""
        if self.kind == "int":
            return self.size + 2
        if self.kind == "values":
            return self.values.size + 4
        return self.values.size + self.edges.size + 2

    def transform(self, col: np.ndarray) -> np.ndarray:
        """Atom codes of one column (any integer dtype; for in-range bits the column itself)."""
        if self.kind == "int" and col.dtype.kind in "iub":
            lo, hi = (int(col.min()), int(col.max())) if col.size else (self.lo, self.lo)
            if lo >= self.lo and hi < self.lo + self.size:
                if self.lo == 0:
                    return col
                return (col.astype(np.int64) - self.lo).astype(_small_int_dtype(self.n_codes))
            c: np.ndarray = col.astype(np.int64) - self.lo
            c = np.where(c < 0, self.size, np.where(c >= self.size, self.size + 1, c))
            return c.astype(_small_int_dtype(self.n_codes))
        x = col.astype(np.float64, copy=False)
        nan = np.isnan(x)
        if self.kind == "int":  # integer coding met float data: integral in-range values keep their code
            c = x - self.lo
            out = np.where(c < 0, self.size, np.where(c >= self.size, self.size + 1, 0)).astype(np.int64)
            inr = (c >= 0) & (c < self.size)
            integral = inr & (c == np.floor(c))
            out[integral] = c[integral].astype(np.int64)
            out[inr & ~integral] = self.size + 1  # not an integer: no atom; merged with "above"
            out[nan] = self.size + 1
            return out.astype(_small_int_dtype(self.n_codes))
        nv = self.values.size
        out = np.empty(x.shape, dtype=np.int32)
        if self.kind == "values":
            if nv:
                pos = np.searchsorted(self.values, x)
                pc = np.minimum(pos, nv - 1)
                hit = self.values[pc] == x
                out[:] = nv  # other
                out[hit] = pc[hit]
                out[(pos == 0) & ~hit] = nv + 1  # below
                out[(pos == nv) & ~nan] = nv + 2  # above
            else:
                out[:] = nv
            out[nan] = nv + 3
            return out
        # binned
        has_nan = bool(nan.any())
        out = self._bins(np.where(nan, 0.0, x) if has_nan else x)
        if nv:
            out += nv
            if nv <= 8:
                for i, v in enumerate(self.values):
                    out[x == v] = i
            else:
                pos = np.minimum(np.searchsorted(self.values, x), nv - 1)
                hit = self.values[pos] == x
                out[hit] = pos[hit]
        if has_nan:
            out[nan] = self.n_codes - 1
        return out

    def _bins(self, x: np.ndarray) -> np.ndarray:
        """``searchsorted(edges, x, side="right")`` through a uniform grid lookup (exact).

        Grid cells with no edge within a small tolerance map to one bin via a
        table; values in the few cells near an edge fall back to a binary search.
        """
        e = self.edges
        if e.size < 8 or not np.isfinite(e[-1] - e[0]) or e[-1] <= e[0]:
            return np.searchsorted(e, x, side="right").astype(np.int32)
        grid = getattr(self, "_grid", None)
        if grid is None:
            cells = 8192
            lo, width = float(e[0]), float(e[-1] - e[0])
            scale = cells / (width * (1 + 2.0 / cells))  # the last edge lies inside the grid
            tol = 1e-9 * width
            starts = lo + np.arange(cells + 2, dtype=np.float64) / scale - 1.0 / scale  # cell k-1 starts here
            b_lo = np.searchsorted(e, starts - tol, side="right")
            b_hi = np.searchsorted(e, starts + 1.0 / scale + tol, side="right")
            table = b_lo.astype(np.int32)
            table[0], table[-1] = 0, e.size  # below the first edge / at or above the last one
            ambiguous = b_lo != b_hi
            ambiguous[0] = ambiguous[-1] = False
            grid = self._grid = (lo, scale, cells, table, ambiguous)
        lo, scale, cells, table, ambiguous = grid
        with np.errstate(over="ignore", invalid="ignore"):
            t = (x - lo) * scale
            np.floor(t, out=t)
            np.clip(t, -1, cells, out=t)
        k = t.astype(np.int32) + 1
        out = table[k]  # int32, a fresh array
        amb = np.flatnonzero(ambiguous[k])
        if amb.size:
            out[amb] = np.searchsorted(e, x[amb], side="right")
        return out

    def count_interval_event(self, x: np.ndarray, atoms: np.ndarray) -> int | None:
        """Rows of a float column in an event made of at most two runs of adjacent bins, counted by
        comparisons with the bin edges (no coding pass); ``None`` when the shortcut does not apply
        (heavy-value atoms exist, or the event holds the NaN atom or more runs)."""
        if self.kind != "binned" or self.values.size or atoms[-1]:
            return None
        bins = atoms[:-1]
        idx = np.flatnonzero(bins)
        if idx.size == 0:
            return 0
        starts = idx[np.r_[True, np.diff(idx) > 1]]
        ends = idx[np.r_[np.diff(idx) > 1, True]]
        if starts.size > 2:
            return None
        total = 0
        last = bins.size - 1
        for b0, b1 in zip(starts, ends):
            if b0 == 0 and b1 == last:
                total += int(np.count_nonzero(~np.isnan(x)))
            elif b0 == 0:
                total += int(np.count_nonzero(x < self.edges[b1]))
            elif b1 == last:
                total += int(np.count_nonzero(x >= self.edges[b0 - 1]))
            else:
                total += int(np.count_nonzero((x >= self.edges[b0 - 1]) & (x < self.edges[b1])))
        return total

    def order_keys(self) -> np.ndarray:
        """A value per code for threshold events (``NaN``: the code takes no part in them)."""
        keys = np.full(self.n_codes, np.nan)
        if self.kind == "int":
            keys[: self.size] = self.lo + np.arange(self.size)
            keys[self.size], keys[self.size + 1] = -np.inf, np.inf
        elif self.kind == "values":
            nv = self.values.size
            keys[:nv] = self.values
            keys[nv + 1], keys[nv + 2] = -np.inf, np.inf
        else:
            nv = self.values.size
            keys[:nv] = self.values
            keys[nv : nv + self.edges.size + 1] = np.concatenate([[-np.inf], self.edges])
        return keys

    def describe(self, code: int) -> str:
        """Human-readable description of atom ``code`` (``=v``, ``in [a, b)``, ``<v``, …)."""
        code = int(code)
        if self.kind == "int":
            if code < self.size:
                return f"={self.lo + code}"
            return f"<{self.lo}" if code == self.size else f">{self.lo + self.size - 1}"
        nv = self.values.size
        if code < nv:
            return "=" + _describe_value(self.values[code])
        if self.kind == "values":
            if code == nv:
                return " other"
            if code == nv + 1:
                return f"<{self.values[0]:g}" if nv else " other"
            if code == nv + 2:
                return f">{self.values[-1]:g}" if nv else " other"
            return "=none"
        if code == self.n_codes - 1:
            return "=none"
        b = code - nv
        lo = -np.inf if b == 0 else self.edges[b - 1]
        hi = np.inf if b == self.edges.size else self.edges[b]
        return f" in [{lo:.4g}, {hi:.4g})"


class OutputCoding:
    """The fitted coders of all columns, and whole-row atoms when few distinct rows occur.

    ``pair_columns``: the columns whose pairs get joint atoms (chosen by the
    caller from the pilot); ``rows``: sorted mixed-radix keys of the pilot's
    distinct rows (``None`` when rows are not a family).
    """

    def __init__(
        self,
        columns: list[ColumnCoder],
        rows: np.ndarray | None = None,
        row_examples: np.ndarray | None = None,
        pair_columns: tuple[int, ...] = (),
    ):
        self.columns = columns
        self.width = len(columns)
        self.n_codes = np.array([c.n_codes for c in columns], dtype=np.int64)
        self.rows = rows
        self.row_examples = row_examples
        self.pair_columns = tuple(pair_columns)
        ints = [c for c in columns if c.kind == "int"]
        self.all_int = len(ints) == len(columns)
        self.lo = np.array([c.lo for c in columns], dtype=np.int64)
        self.size = np.array([c.size for c in columns], dtype=np.int64)
        # row keys: mixed radix over each column's *value* codes (an integer column's tail atoms make a
        # row "unseen"), exact in float64 while the product of the bases stays below 2**53
        self.row_base = np.array([c.size if c.kind == "int" else c.n_codes for c in columns], dtype=np.int64)
        self.radix = np.cumprod(np.concatenate([[1], self.row_base[::-1][:-1]]))[::-1].astype(np.int64)

    @classmethod
    def fit(cls, pilot: np.ndarray) -> "OutputCoding":
        """Fit every column's coder (and the row atoms) on pooled pilot data ``(n, d)`` (packed rows unpacked)."""
        pilot = np.asarray(pilot) if isinstance(pilot, PackedBits) else pilot
        if pilot.dtype.kind in "iub" and len(pilot):
            cmin, cmax = pilot.min(axis=0).astype(np.int64), pilot.max(axis=0).astype(np.int64)
            cols = [
                ColumnCoder("int", lo=int(cmin[j]), size=int(cmax[j] - cmin[j] + 1))
                if cmax[j] - cmin[j] < MAX_INT_RANGE
                else ColumnCoder.fit(pilot[:, j])
                for j in range(pilot.shape[1])
            ]
        else:
            cols = [ColumnCoder.fit(pilot[:, j]) for j in range(pilot.shape[1])]
        coding = cls(cols)
        if coding.width > 1 and coding.row_keys_exact:
            keys = coding.row_keys(coding.codes_matrix(pilot))
            uniq, first, counts = np.unique(keys, return_index=True, return_counts=True)
            if uniq.size > MAX_ROW_ATOMS:  # too many rows: the repeated ones (a rare row one input emits)
                rep = np.flatnonzero(counts >= MIN_REPEATS)
                keep = np.sort(rep[np.argsort(-counts[rep], kind="stable")[:MAX_ROW_ATOMS]])
                uniq, first = uniq[keep], first[keep]
            if uniq.size:
                coding.rows, coding.row_examples = uniq, pilot[first]
        return coding

    @property
    def row_keys_exact(self) -> bool:
        """Whether mixed-radix row keys fit in float64 integers (product of the bases < 2**53)."""
        return float(np.prod(self.row_base.astype(np.float64))) < 2.0**53

    def with_pair_columns(self, columns) -> "OutputCoding":
        """The same coding with joint atoms on the pairs of ``columns``."""
        out = OutputCoding(self.columns, self.rows, self.row_examples, tuple(sorted(columns)))
        return out

    # ----------------------------------------------------------------- coding
    def codes_matrix(self, data: np.ndarray, cols: list[int] | None = None) -> np.ndarray:
        """Atom codes of every column of a chunk ``(n, d)`` (or of the chunk's columns ``cols``,
        given as ``data`` already restricted to them), vectorised over columns when possible."""
        cols = list(range(self.width)) if cols is None else list(cols)
        lo, size = self.lo[cols], self.size[cols]
        if self.all_int and data.dtype.kind in "iub":
            if not len(data):
                return data
            gmin, gmax = int(data.min()), int(data.max())  # whole-array reductions: one fast pass each
            inside = gmin >= int(lo.max()) and gmax < int((lo + size).min())
            if not inside:
                cmin = data.min(axis=0).astype(np.int64)
                cmax = data.max(axis=0).astype(np.int64)
                inside = bool(np.all(cmin >= lo) and np.all(cmax < lo + size))
            if inside and not lo.any():
                return data
            dt = _small_int_dtype(int(self.n_codes[cols].max()))
            c = data.astype(np.int64) - lo
            if not inside:
                c = np.where(c < 0, size, np.where(c >= size, size + 1, c))
            return c.astype(dt)
        if not cols:
            return np.empty((len(data), 0), np.int32)
        if len(cols) == 1:
            return self.columns[cols[0]].transform(data[:, 0])[:, None]
        return np.stack([self.columns[j].transform(data[:, k]) for k, j in enumerate(cols)], axis=1)

    def row_keys(self, codes: np.ndarray) -> np.ndarray:
        """Mixed-radix keys (float64, exact integers) of whole rows of codes; ``-1`` for a row with
        an integer column outside its pilot range (such rows are never pilot rows)."""
        if codes.shape[1] <= 16:
            key: np.ndarray = np.zeros(len(codes), dtype=np.int64)
            for j in range(codes.shape[1]):
                key += codes[:, j].astype(np.int64) * self.radix[j]
            key = key.astype(np.float64)
        else:
            key = codes.astype(np.float64) @ self.radix.astype(np.float64)
        if len(codes) and int(codes.max()) >= int(self.row_base.min()):
            outside = (codes >= self.row_base).any(axis=1)
            key[outside] = -1.0
        return key

    @property
    def row_table(self) -> np.ndarray:
        """The sorted row keys of the whole-row atoms (only for a coding with rows as a family)."""
        if self.rows is None:
            raise ValueError("this coding has no whole-row atoms")
        return self.rows

    def row_codes(self, codes: np.ndarray) -> np.ndarray:
        """Row atom of each row (pilot rows in key order; unseen rows get the last code)."""
        return self.row_atoms(self.row_keys(codes))

    def row_atoms(self, keys: np.ndarray) -> np.ndarray:
        """Row atom of each row key (:meth:`row_keys`): its pilot row's index, unseen rows the last code."""
        rows = self.row_table
        pos = np.minimum(np.searchsorted(rows, keys), rows.size - 1)
        hit = rows[pos] == keys
        return np.where(hit, pos, rows.size)

    def family_size(self, fam: Family) -> int:
        """Number of atoms of a family: rows ``()``, one column ``(j,)`` or a pair ``(i, j)``."""
        if fam == ():
            return int(self.row_table.size) + 1
        return int(np.prod([self.n_codes[j] for j in fam]))

    def families(self) -> list[Family]:
        """Every family this coding counts: rows, single columns, pairs of ``pair_columns``."""
        fams: list[Family] = [()] if self.rows is not None else []
        fams += [(j,) for j in range(self.width)]
        pc = self.pair_columns
        fams += [(pc[a], pc[b]) for a in range(len(pc)) for b in range(a + 1, len(pc))]
        return fams

    def family_codes(self, codes: "np.ndarray | _Columns", fam: Family) -> np.ndarray:
        """Atom codes of one family for a chunk of column codes."""
        if fam == ():
            if not isinstance(codes, np.ndarray):  # row atoms are counted from the whole codes matrix
                raise TypeError("row atoms need the codes of every column")
            return self.row_codes(codes)
        if len(fam) == 1:
            return codes[:, fam[0]]
        i, j = fam
        wide = np.int32 if self.family_size(fam) < 2**31 else np.int64
        return codes[:, i].astype(wide) * int(self.n_codes[j]) + codes[:, j]

    # -------------------------------------------------------------- counting
    def count_chunk(self, data: np.ndarray | PackedBits) -> dict:
        """Atom counts of every family on one chunk: ``{family: int64 array}`` (see :meth:`families`)."""
        n = len(data)
        if isinstance(data, PackedBits):
            if self.all_int:
                return self._count_packed(data)
            data = data.unpack()
        if self.width == 1 and self.rows is None:
            direct = self._direct_int_counts(data[:, 0], self.columns[0])
            if direct is not None:
                return {(0,): direct}
        codes = self.codes_matrix(data)
        out: dict = {}
        if self.rows is not None:
            out[()] = np.bincount(self.row_codes(codes), minlength=self.rows.size + 1)
        out.update(self._column_counts(codes, n))
        if len(self.pair_columns) >= 2:
            out.update(self._pair_counts(codes[:, list(self.pair_columns)], n))
        return out

    # ----------------------------------------------------------- packed rows
    def _count_packed(self, data: PackedBits) -> dict:
        """:meth:`count_chunk` of packed bit rows (every column an integer coder), from the bytes."""
        n = len(data)
        out: dict = {}
        if self.rows is not None:
            out[()] = np.bincount(self.row_atoms(self._packed_row_keys(data)), minlength=self.rows.size + 1)
        ones = data.column_ones()
        bit_codes = self.codes_matrix(np.array([[0] * self.width, [1] * self.width], dtype=np.uint8))
        for j in range(self.width):
            c = np.zeros(int(self.n_codes[j]), dtype=np.int64)
            c[int(bit_codes[0, j])] += n - ones[j]
            c[int(bit_codes[1, j])] += ones[j]
            out[(j,)] = c
        if len(self.pair_columns) >= 2:
            out.update(self._pair_counts(self._packed_codes(data, self.pair_columns), n))
        return out

    def _packed_codes(self, data: PackedBits, cols) -> np.ndarray:
        """Atom codes of the bit columns ``cols`` of packed rows, ``(n, len(cols))`` (only these bits are read)."""
        cols = list(cols)
        return self.codes_matrix(data.columns(cols), cols)

    def _packed_row_keys(self, data: PackedBits) -> np.ndarray:
        """:meth:`row_keys` of packed rows: the sum over byte columns of each byte value's share of the key
        (tables of 256 entries per byte column, from :meth:`codes_matrix` of the byte values' bits)."""
        tables = getattr(self, "_byte_tables", None)
        if tables is None:
            tables = []
            for b in range(data.data.shape[1]):
                cols = list(range(8 * b, min(8 * b + 8, self.width)))
                codes = self.codes_matrix(np.ascontiguousarray(BIT_TABLE[:, : len(cols)], dtype=np.uint8), cols)
                codes = codes.astype(np.int64)
                tables.append((codes @ self.radix[cols], (codes >= self.row_base[cols]).any(axis=1)))
            self._byte_tables = tables
        key = np.zeros(len(data), dtype=np.int64)
        outside = np.zeros(len(data), dtype=bool)
        for b, (share, off) in enumerate(tables):
            byte = data.data[:, b]
            key += share[byte]
            outside |= off[byte]
        key = key.astype(np.float64)
        key[outside] = -1.0
        return key

    @staticmethod
    def _direct_int_counts(col: np.ndarray, coder: ColumnCoder) -> np.ndarray | None:
        """Atom counts of an integer column coded from 0, straight from ``bincount`` (no coding
        pass); ``None`` when this shortcut does not apply (then the general path counts)."""
        if coder.kind != "int" or coder.lo != 0 or col.dtype.kind not in "iu":
            return None
        if col.size and int(col.max()) > 4 * coder.size + 1024:  # far tails: no huge bincount table
            return None
        try:
            c = np.bincount(col)
        except ValueError:  # negative values: "below" atoms, the general path handles them
            return None
        out = np.zeros(coder.n_codes, dtype=np.int64)
        m = min(c.size, coder.size)
        out[:m] = c[:m]
        out[coder.size + 1] = c[coder.size :].sum()
        return out

    def _column_counts(self, codes: np.ndarray, n: int) -> dict:
        d = self.width
        kmax = int(self.n_codes.max()) if d else 0
        if d >= 8 and kmax <= 16 and codes.dtype.kind in "iub":
            top = int(codes.max()) if n else 0
            table = np.zeros((kmax, d), dtype=np.int64)
            for v in range(1, top + 1):
                table[v] = column_sums(codes if (top == 1 and codes.dtype.itemsize == 1) else (codes == v))
            table[0] = n - table[1:].sum(axis=0)
            return {(j,): table[: self.n_codes[j], j].copy() for j in range(d)}
        return {
            (j,): np.bincount(codes[:, j], minlength=int(self.n_codes[j]))[: int(self.n_codes[j])] for j in range(d)
        }

    def _pair_counts(self, sub: np.ndarray, n: int) -> dict:
        """Joint atom counts of the pairs of :attr:`pair_columns` from their codes ``sub`` ``(n, len(pair_columns))``."""
        pc = self.pair_columns
        out = {}
        if sub.dtype.kind in "iub" and n and int(sub.max()) <= 1:
            # binary columns: N11 from one matrix product of the indicator columns, the rest by margins
            ft = np.float32 if n < 2**24 else np.float64
            b = sub.astype(ft)
            n11 = np.rint(b.T @ b).astype(np.int64)
            ones = np.diag(n11)
            for a in range(len(pc)):
                for c in range(a + 1, len(pc)):
                    i, j = pc[a], pc[c]
                    ki, kj = int(self.n_codes[i]), int(self.n_codes[j])
                    t = np.zeros((ki, kj), dtype=np.int64)
                    t[1, 1] = n11[a, c]
                    t[1, 0] = ones[a] - n11[a, c]
                    t[0, 1] = ones[c] - n11[a, c]
                    t[0, 0] = n - ones[a] - ones[c] + n11[a, c]
                    out[(i, j)] = t.ravel()
            return out
        cols = _Columns({j: sub[:, k] for k, j in enumerate(pc)}, n)
        for a in range(len(pc)):
            for c in range(a + 1, len(pc)):
                fam = (pc[a], pc[c])
                out[fam] = np.bincount(self.family_codes(cols, fam), minlength=self.family_size(fam))
        return out

    def count_events(self, data: np.ndarray | PackedBits, events) -> np.ndarray:
        """How many rows of a chunk fall in each event (events carry ``family`` and an atom mask)."""
        cache: dict = {}
        if isinstance(data, PackedBits):
            if not self.all_int:
                return self.count_events(data.unpack(), events)
            if any(ev.family == () for ev in events):
                cache[()] = np.bincount(self.row_atoms(self._packed_row_keys(data)), minlength=self.family_size(()))
            cols = sorted({j for ev in events for j in ev.family})
            sub = self._packed_codes(data, cols) if cols else np.empty((len(data), 0), np.int64)
            return self._count_from_codes(
                _Columns({j: sub[:, k] for k, j in enumerate(cols)}, len(data)), events, cache
            )
        if self.width == 1 and all(ev.family == (0,) for ev in events):
            direct = self._direct_int_counts(data[:, 0], self.columns[0])
            if direct is not None:
                return np.array([int(direct[ev.atoms].sum()) for ev in events], dtype=np.int64)
        if self.width == 1 and data.dtype.kind == "f" and all(ev.family == (0,) for ev in events):
            counts = [self.columns[0].count_interval_event(data[:, 0], ev.atoms) for ev in events]
            if any(c is None for c in counts):  # code the column once for the other events
                atoms = np.bincount(self.columns[0].transform(data[:, 0]), minlength=self.family_size((0,)))
                counts = [int(atoms[ev.atoms].sum()) if c is None else c for c, ev in zip(counts, events)]
            return np.array(counts, dtype=np.int64)
        codes: np.ndarray | _Columns
        if any(ev.family == () for ev in events):
            codes = self.codes_matrix(data)
        else:  # gather and code only the columns the events use
            cols = sorted({j for ev in events for j in ev.family})
            sub = self.codes_matrix(data if len(cols) == self.width else np.ascontiguousarray(data[:, cols]), cols)
            codes = _Columns({j: sub[:, k] for k, j in enumerate(cols)}, len(data))
        return self._count_from_codes(codes, events, cache)

    def event_members(self, data: np.ndarray | PackedBits, events) -> np.ndarray:
        """Whether each row of a chunk falls in each event: a boolean ``(n, len(events))`` matrix whose column
        sums are :meth:`count_events` (the sequential policy pairs rows of two inputs, so it needs the rows)."""
        out = np.zeros((len(data), len(events)), dtype=bool)
        if not events:
            return out
        cache: dict = {}
        codes: np.ndarray | _Columns
        if isinstance(data, PackedBits):
            if not self.all_int:
                return self.event_members(data.unpack(), events)
            if any(ev.family == () for ev in events):
                cache[()] = self.row_atoms(self._packed_row_keys(data))
            cols = sorted({j for ev in events for j in ev.family})
            sub = self._packed_codes(data, cols) if cols else np.empty((len(data), 0), np.int64)
            codes = _Columns({j: sub[:, k] for k, j in enumerate(cols)}, len(data))
        elif any(ev.family == () for ev in events):
            codes = self.codes_matrix(data)
        else:
            cols = sorted({j for ev in events for j in ev.family})
            sub = self.codes_matrix(data if len(cols) == self.width else np.ascontiguousarray(data[:, cols]), cols)
            codes = _Columns({j: sub[:, k] for k, j in enumerate(cols)}, len(data))
        for e, ev in enumerate(events):
            if ev.family not in cache:
                cache[ev.family] = self.family_codes(codes, ev.family)
            out[:, e] = ev.atoms[cache[ev.family]]
        return out

    def _count_from_codes(self, codes, events, cache: dict) -> np.ndarray:
        """Event counts from column codes (a matrix or :class:`_Columns`), one ``bincount`` per family."""
        out = np.zeros(len(events), dtype=np.int64)
        for e, ev in enumerate(events):
            if ev.family not in cache:
                cache[ev.family] = np.bincount(
                    self.family_codes(codes, ev.family), minlength=self.family_size(ev.family)
                )
            out[e] = int(cache[ev.family][ev.atoms].sum())
        return out

    # ------------------------------------------------------------ describing
    def describe(self, fam: Family, atoms: np.ndarray, limit: int = 6) -> str:
        """A short description of the union of ``atoms`` of family ``fam``."""
        idx = np.flatnonzero(atoms)
        parts = []
        for code in idx[:limit]:
            if fam == ():
                if code >= self.row_table.size:
                    parts.append("output unseen in the pilot")
                    continue
                row = np.asarray(self.row_examples)[code]
                vals = ", ".join(_describe_value(v) for v in row[:12])
                parts.append(f"output=({vals}{', …' if row.size > 12 else ''})")
                continue
            rem, pieces = int(code), []
            for j in reversed(fam):
                rem, c = divmod(rem, int(self.n_codes[j]))
                name = f"out[{j}]" if self.width > 1 else "out"
                pieces.append(name + self.columns[j].describe(c))
            parts.append(" ∧ ".join(reversed(pieces)))
        more = f" ∪ … ({idx.size} atoms)" if idx.size > limit else ""
        return " ∪ ".join(f"{{{p}}}" for p in parts) + more
