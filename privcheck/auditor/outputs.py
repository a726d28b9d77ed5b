"""Sampler outputs of any type, encoded as a numeric matrix the auditor codes into atoms.

:func:`encode_outputs` turns what a sampler returned for ``n`` draws into a
float (or, on the numeric fast path, integer) array of shape ``(n, columns)``.
The encoding is a fixed function of each output value alone — no state, no
dictionary built from the data — so every chunk, thread, process and machine
encodes the same value to the same number, and the selection and estimation
draws of an audit are coded alike.

Validity: the auditor bounds ε of ``encode(M(x))``; encoding is a
deterministic function of the output, so by post-processing any lower bound
it certifies is a lower bound for ``M`` itself. A hash collision (two distinct
labels sharing a code, probability about ``k² / 2⁵³`` for ``k`` labels) can
only merge atoms, i.e. lose power, never validity.

What each output type becomes:

=========================  ==========================================================
numbers, booleans          their value (numeric arrays take :func:`as_matrix` as is)
``PackedBits``             the unpacked ``(n, d)`` 0/1 matrix (the auditor's coding
                           reads them packed: :mod:`privcheck.base.packed`)
``None``, ``NaN``          ``NaN`` ("no value", one atom)
complex numbers            two columns, real and imaginary part (never truncated)
strings, bytes             one column of label codes (a 64-bit hash of the code
                           points / bytes, vectorised over numpy string arrays)
tuples / lists / arrays    of equal length (also one-shot iterators such as ``zip``):
                           one column per position, each encoded as above; a
                           position holding equal-length sequences is expanded
                           likewise (3 levels deep); of different lengths
                           (ragged): one column, a code of the whole sequence
sets, frozensets, dicts    one code of the whole value, independent of order
nested values              one code per value: blake2b of a canonical encoding in
                           which numbers are exact (``1 == 1.0 == True``), sets
                           are sorted and floats keep all their bits
=========================  ==========================================================

Label codes are floats in ``[2⁶², 2⁶³)`` on a grid of ``2¹⁰`` (exactly
representable), far from the values numeric outputs take in practice.

Width caveat: the number of columns is decided per chunk from the outputs'
shape (positions of equal-length sequences; a complex column takes two). A
sampler whose outputs are *sometimes* of different lengths, or *sometimes*
complex, can produce chunks of different widths; wrap it with the view
:func:`privcheck.auditor.views.as_atom` (each output becomes one code).
"""

from __future__ import annotations

import hashlib
import math
import numbers
import struct
from collections.abc import Iterator
from operator import itemgetter
from typing import Any

import numpy as np

from privcheck.auditor.matrix import as_matrix
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.packed import PackedBits

CODE_BASE = float(2**62)
CODE_STEP = float(2**10)
_MASK64 = (1 << 64) - 1
_EXACT_INT = 2**53

ALLOWED = (
    "numbers, booleans, None, complex numbers, strings, bytes, tuples/lists/arrays of these, sets, frozensets, dicts"
)

_LABELS: dict[float, str] = {}  # code -> a readable label, for event descriptions only (never for results)
_MAX_LABELS = 100_000
_LABEL_PROBE = 64

_REAL_TYPES = (bool, int, float, np.bool_, np.integer, np.floating)
_COMPLEX_TYPES = (complex, np.complexfloating)


def encode_outputs(raw: Any, n: int) -> np.ndarray:
    """Encode ``n`` sampler outputs as a numeric 2-D array ``(n, columns)``.

    Parameters
    ----------
    raw : what a sampler returned for ``n`` draws: a numpy array of any dtype
        (numeric, bool, complex, string, bytes, object) with first axis ``n``
        (or anything ``np.asarray`` reads so, e.g. a pandas Series), or a
        list/tuple/generator of ``n`` outputs, each a number, bool, ``None``,
        complex, string, bytes, a tuple/list/array of these, a set, frozenset
        or dict.
    n : the number of draws (≥ 0); the first axis must have this length.

    Numeric and boolean arrays go through :func:`privcheck.auditor.matrix.as_matrix`
    unchanged (the auditor's fast path). Everything else becomes ``float64``
    (see the module docstring for the mapping). Raises
    :class:`~privcheck.base.errors.PrivcheckUsageError` (one line) for a wrong
    length or a value that cannot be compared (e.g. an arbitrary object).
    """
    if isinstance(raw, np.ndarray):
        return _encode_array(raw, n)
    if isinstance(raw, PackedBits):
        return _encode_array(raw.unpack(), n)
    if isinstance(raw, (list, tuple)):
        if len(raw) != n:
            raise PrivcheckUsageError(f"sampler returned {len(raw)} outputs for n={n} draws; it must return exactly n")
        return _encode_sequence_of_outputs(raw, n)
    if isinstance(raw, Iterator):  # a generator of the n outputs
        raw = list(raw)
        if len(raw) != n:
            raise PrivcheckUsageError(f"sampler returned {len(raw)} outputs for n={n} draws; it must return exactly n")
        return _encode_sequence_of_outputs(raw, n)
    if isinstance(raw, (str, bytes, set, frozenset, dict)) or raw is None or np.isscalar(raw):
        raise PrivcheckUsageError(
            f"sampler returned one {type(raw).__name__} for n={n} draws; it must return n outputs "
            "(a list or an array whose first axis is n); wrap one-output code with privcheck.per_sample(fn)"
        )
    try:
        arr = np.asarray(raw)
    except Exception:  # noqa: BLE001 - any container numpy cannot read is a usage error
        arr = None
    if arr is None or arr.ndim == 0:
        raise PrivcheckUsageError(f"sampler output of type {type(raw).__name__} is not a list or array of n outputs")
    return _encode_array(arr, n)


# --------------------------------------------------------------------------- arrays
def _encode_array(a: np.ndarray, n: int) -> np.ndarray:
    if a.ndim == 0 or a.shape[0] != n:
        raise PrivcheckUsageError(f"sampler returned shape {a.shape}, expected ({n},) or ({n}, d)")
    kind = a.dtype.kind
    if kind in "biuf":
        try:
            return as_matrix(a, n)
        except ValueError as exc:  # pragma: no cover - as_matrix only rejects shapes checked above
            raise PrivcheckUsageError(str(exc)) from None
    flat = a.reshape(n, -1)
    if kind == "c":
        c = np.ascontiguousarray(flat, dtype=np.complex128)
        return c.view(np.float64).reshape(n, 2 * c.shape[1])
    if kind in "US":
        return _label_codes(flat.ravel()).reshape(flat.shape)
    if kind == "O":
        if a.ndim == 1:
            return _encode_sequence_of_outputs(a, n)
        cols = [_encode_column(list(flat[:, j])) for j in range(flat.shape[1])]
        return _stack([c for group in cols for c in group], n)
    if kind in "mM":  # datetimes / timedeltas: their integer ticks
        return as_matrix(flat.view(np.int64), n)
    raise PrivcheckUsageError(f"sampler outputs of numpy dtype {a.dtype} cannot be compared; allowed: {ALLOWED}")


def _stack(columns: list[np.ndarray], n: int) -> np.ndarray:
    if not columns:
        return np.zeros((n, 0), dtype=np.float64)
    return np.column_stack(columns).astype(np.float64, copy=False).reshape(n, len(columns))


# --------------------------------------------------------------------------- lists of outputs
_MAX_NEST = 3


def _uniform_sequences(values: list) -> bool:
    """All values are tuples/lists/arrays of one common length ≥ 1 (no strings)."""
    types = set(map(type, values))
    if not types or not all(issubclass(t, (list, tuple, np.ndarray)) for t in types):
        return False
    lengths = set(map(_length, values))
    return len(lengths) == 1 and lengths.pop() > 0


def _encode_sequence_of_outputs(items, n: int, depth: int = 0) -> np.ndarray:
    if n == 0:
        return np.zeros((0, 1), dtype=np.float64)
    types = set(map(type, items))
    if any(issubclass(t, Iterator) for t in types):  # zip/map/generator outputs: their items, once
        items = [tuple(v) if isinstance(v, Iterator) else v for v in items]
        types = set(map(type, items))
    if all(issubclass(t, (list, tuple, np.ndarray)) for t in types):
        if not any(issubclass(t, np.ndarray) for t in types):
            fast = _numeric_rows(items)
            if fast is not None:
                return as_matrix(fast, n)
            lengths = set(map(len, items))
        else:
            lengths = set(map(_length, items))
        if len(lengths) == 1:
            width = lengths.pop()
            if width == 0:
                return np.zeros((n, 1), dtype=np.float64)
            if types == {np.ndarray} and _numeric_arrays(items):
                try:
                    return _encode_array(np.stack([np.ravel(v) for v in items]), n)
                except PrivcheckUsageError:
                    pass
            rows = items if not any(issubclass(t, np.ndarray) for t in types) else [_flat_items(v) for v in items]
            cols: list[np.ndarray] = []
            for j in range(width):
                values = list(map(itemgetter(j), rows))
                if depth < _MAX_NEST and _uniform_sequences(values):  # nested records: their positions too
                    sub = _encode_sequence_of_outputs(values, n, depth + 1)
                    cols.extend(sub[:, k] for k in range(sub.shape[1]))
                else:
                    cols.extend(_encode_column(values))
            return _stack(cols, n)
        return _stack([_object_codes(items)], n)
    return _stack(_encode_column(list(items)), n)


def _numeric_rows(items) -> np.ndarray | None:
    """Equal-length tuples/lists of plain numbers as one numeric array (fast path), else None."""
    if not all(isinstance(v, _REAL_TYPES) for v in items[0]):
        return None  # mixed rows: numpy would turn numbers into strings
    try:
        arr = np.array(items)
    except (ValueError, TypeError):  # ragged or nested
        return None
    if arr.ndim >= 2 and arr.dtype.kind in "biuf":
        if arr.dtype.kind in "iu" and arr.size and (np.abs(arr.astype(np.float64)) > _EXACT_INT).any():
            return None
        return arr
    return None


def _object_codes(values) -> np.ndarray:
    """Codes of whole values; equal values are encoded once per call (Python equality matches ours)."""
    memo: dict = {}
    out = np.empty(len(values))
    for i, v in enumerate(values):
        key = tuple(v) if isinstance(v, list) else v
        try:
            c = memo.get(key)
            if c is None:
                c = memo[key] = _object_code(v)
                if len(memo) <= _LABEL_PROBE and len(_LABELS) < _MAX_LABELS:
                    _LABELS.setdefault(c, _short(v))
        except TypeError:  # unhashable (arrays, sets, nested lists)
            c = _object_code(v)
            if i < _LABEL_PROBE and len(_LABELS) < _MAX_LABELS:
                _LABELS.setdefault(c, _short(v))
        out[i] = c
    return out


def _length(v) -> int:
    return int(np.size(v)) if isinstance(v, np.ndarray) else len(v)


def _flat_items(v):
    return list(np.ravel(v)) if isinstance(v, np.ndarray) else v


def _numeric_arrays(items) -> bool:
    kinds = {v.dtype.kind for v in items}
    return len(kinds) == 1 and kinds.pop() in "biufcUS"


def _encode_column(values: list) -> list[np.ndarray]:
    """One position of the outputs: one float column, or two (real, imaginary) when complex."""
    types = set(map(type, values))
    if all(issubclass(t, _REAL_TYPES) for t in types):
        return [_real_column(values)]
    if types == {str} or types == {np.str_}:
        return [_label_codes(np.array(values, dtype=str))]
    if types <= {bytes, np.bytes_}:
        return [_label_codes(np.array(values, dtype=bytes))]
    if any(issubclass(t, _COMPLEX_TYPES) for t in types):
        re = np.empty(len(values))
        im = np.zeros(len(values))
        for i, v in enumerate(values):
            if isinstance(v, _COMPLEX_TYPES):
                re[i], im[i] = v.real, v.imag
            else:
                re[i] = _scalar_code(v)
        return [re, im]
    out = np.empty(len(values))
    str_idx, obj_idx = [], []
    for i, v in enumerate(values):
        if isinstance(v, (str, bytes)):
            str_idx.append(i)
        elif isinstance(v, (list, tuple, set, frozenset, dict, np.ndarray)):
            obj_idx.append(i)
        else:
            out[i] = _scalar_code(v)
    if obj_idx:
        out[obj_idx] = _object_codes([values[i] for i in obj_idx])
    if str_idx:  # strings keep the vectorised label code, whatever else is in the column
        for typ in (str, bytes):
            idx = [i for i in str_idx if isinstance(values[i], typ)]
            if idx:
                out[idx] = _label_codes(np.array([values[i] for i in idx], dtype=typ))
    return [out]


def _real_column(values: list) -> np.ndarray:
    arr = np.array(values)
    if arr.dtype.kind in "fb" or (arr.dtype.kind in "iu" and not (np.abs(arr.astype(np.float64)) > _EXACT_INT).any()):
        return arr.astype(np.float64)
    return np.array([_scalar_code(v) for v in values], dtype=np.float64)  # huge integers: exact codes


# --------------------------------------------------------------------------- label codes
def describe_value(v: float) -> str:
    """A readable form of an encoded value: the label it codes (when this process has seen it) or the number."""
    if isinstance(v, (float, np.floating)) and v >= CODE_BASE and not math.isnan(v):
        lab = _LABELS.get(float(v))
        return lab if lab is not None else f"label#{int((v - CODE_BASE) / CODE_STEP):x}"
    return f"{v:g}"


def _remember(codes: np.ndarray, values) -> None:
    """Keep labels of the first few values (descriptions only; bounded, process-local)."""
    if len(_LABELS) >= _MAX_LABELS:
        return
    for c, v in zip(codes[:_LABEL_PROBE].tolist(), list(values[:_LABEL_PROBE])):
        if c not in _LABELS:
            _LABELS[c] = _short(v)


def _short(v) -> str:
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, (set, frozenset)):
        text = "{" + ", ".join(sorted(repr(x) for x in v)) + "}"
    else:
        text = repr(v)
    return text if len(text) <= 40 else text[:39] + "…"


def _to_code(h: np.ndarray) -> np.ndarray:
    """64-bit hashes → floats in [2^62, 2^63) on a grid of 2^10 (52 bits of the hash kept)."""
    return CODE_BASE + (h >> np.uint64(12)).astype(np.float64) * CODE_STEP


def _position_keys(width: int) -> np.ndarray:
    """Odd 64-bit constants K_0 .. K_{width-1} (splitmix64 of the position; fixed forever)."""
    j = np.arange(1, width + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    return _mix(j) | np.uint64(1)


def _mix(h: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser (full avalanche of a 64-bit value)."""
    with np.errstate(over="ignore"):
        h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return h ^ (h >> np.uint64(31))


def _label_codes(a: np.ndarray) -> np.ndarray:
    """Label codes of a 1-D numpy string (``U``) or bytes (``S``) array, vectorised.

    A position-keyed linear hash ``Σ_j unit_j · K_j (mod 2⁶⁴)`` over the code
    points (bytes), ``K_j`` fixed odd constants, then the splitmix64
    finaliser: NUL padding adds nothing, so the code is independent of the
    array's itemsize, of byte order and of the other values. (numpy strips
    trailing NUL characters, so ``"a"`` and ``"a\\x00"`` share a code.)
    """
    a = np.ascontiguousarray(a.ravel())
    m = a.size
    if a.dtype.kind == "U":
        width = max(a.dtype.itemsize // 4, 1)
        units = a.astype(f"<U{width}").view("<u4").reshape(m, width) if m else np.zeros((0, width), "<u4")
        tag = np.uint64(0x5354)  # "ST"
    else:
        width = max(a.dtype.itemsize, 1)
        units = a.view(np.uint8).reshape(m, a.dtype.itemsize) if m and a.dtype.itemsize else np.zeros((m, 1), np.uint8)
        tag = np.uint64(0x4259)  # "BY"
    keys = _position_keys(units.shape[1])
    with np.errstate(over="ignore"):
        h = (units.astype(np.uint64) * keys).sum(axis=1, dtype=np.uint64) + tag
    codes = _to_code(_mix(h))
    _remember(codes, a)
    return codes


# --------------------------------------------------------------------------- single values
def _scalar_code(v) -> float:
    """The float a single output value (at one position) encodes to."""
    if v is None:
        return math.nan
    if isinstance(v, (bool, np.bool_)):
        return float(v)
    if isinstance(v, (int, np.integer)):
        return float(v) if abs(int(v)) <= _EXACT_INT else _object_code(v)
    if isinstance(v, (float, np.floating)):
        return float(v)
    if isinstance(v, (str, bytes)):
        return float(_label_codes(np.array([v]))[0])
    if isinstance(v, numbers.Real):  # Fraction, Decimal: exact value when a float holds it
        f = float(v)
        return f if (math.isfinite(f) and v == f) else _object_code(v)
    return _object_code(v)


def _object_code(v) -> float:
    """Code of a whole value (nested sequences, sets, dicts, big integers): blake2b of its canonical bytes."""
    h = int.from_bytes(hashlib.blake2b(_canonical(v), digest_size=8).digest(), "little")
    return CODE_BASE + float(h >> 12) * CODE_STEP


def _canonical(v, depth: int = 0) -> bytes:
    """A byte string equal for equal values and different for different ones (order-free for sets)."""
    if depth > 50:
        raise PrivcheckUsageError("sampler output is nested more than 50 levels deep; allowed: " + ALLOWED)
    if v is None:
        return b"N"
    if isinstance(v, (bool, np.bool_, int, np.integer)):
        return _canonical_real(int(v))
    if isinstance(v, (float, np.floating)):
        return _canonical_real(float(v))
    if isinstance(v, _COMPLEX_TYPES):
        if v.imag == 0:  # 1+0j == 1 in Python: one encoding
            return _canonical_real(float(v.real))
        return b"C" + _canonical_real(float(v.real)) + _canonical_real(float(v.imag))
    if isinstance(v, numbers.Real):
        return _canonical_real(v)
    if isinstance(v, str):
        return b"S" + struct.pack("<Q", len(v.encode("utf-8", "surrogatepass"))) + v.encode("utf-8", "surrogatepass")
    if isinstance(v, (bytes, bytearray, memoryview)):
        b = bytes(v)
        return b"B" + struct.pack("<Q", len(b)) + b
    if isinstance(v, np.ndarray):
        if v.dtype == object or v.dtype.kind in "US":
            items = list(v.ravel())
        else:
            items = v.ravel().tolist()
        return b"A" + struct.pack("<Q", v.ndim) + b"".join(struct.pack("<Q", s) for s in v.shape) + _seq(items, depth)
    if isinstance(v, (list, tuple)):
        return b"L" + _seq(v, depth)
    if isinstance(v, (set, frozenset)):
        parts = sorted(_canonical(x, depth + 1) for x in v)
        return b"E" + struct.pack("<Q", len(parts)) + b"".join(struct.pack("<Q", len(p)) + p for p in parts)
    if isinstance(v, dict):
        parts = sorted(_canonical(k, depth + 1) + b"=" + _canonical(x, depth + 1) for k, x in v.items())
        return b"D" + struct.pack("<Q", len(parts)) + b"".join(struct.pack("<Q", len(p)) + p for p in parts)
    raise PrivcheckUsageError(
        f"sampler outputs of type {type(v).__module__}.{type(v).__qualname__} cannot be compared; "
        f"allowed: {ALLOWED} (or give a view= that maps them to one of these)"
    )


def _seq(items, depth: int) -> bytes:
    parts = [_canonical(x, depth + 1) for x in items]
    return struct.pack("<Q", len(parts)) + b"".join(struct.pack("<Q", len(p)) + p for p in parts)


def _canonical_real(v) -> bytes:
    """Exact numbers: equal values (``1``, ``1.0``, ``True``, ``Fraction(1)``) share one encoding."""
    if isinstance(v, float):
        if math.isnan(v):
            return b"R" + b"nan"
        if math.isinf(v):
            return b"R" + (b"+inf" if v > 0 else b"-inf")
        num, den = v.as_integer_ratio()
    elif isinstance(v, int):
        num, den = v, 1
    else:  # Fraction, Decimal, other exact reals
        try:
            num, den = v.as_integer_ratio()
        except (AttributeError, ValueError, OverflowError):
            f = float(v)
            return _canonical_real(f)
    return b"R" + str(num).encode() + b"/" + str(den).encode()
