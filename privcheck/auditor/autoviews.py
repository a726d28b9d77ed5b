"""Views chosen by output type, without the user asking (issue 20 §2).

:func:`auto_view` draws a small *probe* of outputs for each audited input (its own seed stream,
disjoint from the selection and estimation draws), looks at their type, and returns an
:class:`AutoView` — the raw outputs' encoding *plus* derived columns — or ``None`` when nothing is
worth adding (then the audit is exactly the raw one). Derived columns:

- **sets and ordered containers** (lists, tuples, iterators of items, also of varying length):
  membership bits of every item seen in the probe (an ordered container therefore counts both as
  returned — its raw encoding stays — and as a set);
- **hashing and sketch reports** (``(value, seed)`` with optional key leaves such as a sketch row or an
  attribute index; a vector or value keyed by a hash index): when a support family of
  :mod:`privcheck.auditor.support_views` reproduces the probe's support structure (or for a built-in
  mechanism's own ``support``), the support bit of every audited input and their pattern, i.e. the
  events ``{x supported ∧ x' not}`` of Wang et al. 2017 Sec. 4.4; otherwise the pair stays an atom of
  the raw encoding;
- **floats**: the floating-point representation (Mironov 2012, CCS, "On significance of the least
  significant bits for differential privacy"): the exponent, the low byte of the mantissa and the
  number of trailing zero bits of the mantissa (which lattice 2^-k the value lies on). These are
  added only when the probe's representation histograms differ between inputs (a chi-square test
  at level :data:`GATE_ALPHA`), so ordinary continuous audits keep their raw coding.

- **bit vectors with categorical columns travelling with the report** (a cohort, a hash index, an
  attribute index: outputs like ``(bits, cohort)``): one column per (bit, categorical column) whose
  atoms are ``(category, bit)``, so the events ``{bit = b ∧ column ∈ C}`` compete with the rest —
  per-report hashing or cohorts cannot average a leak away from the per-bit marginals
  (:class:`BitConjunction`).

Outputs only one input produces (ε = ∞ events): integers and categories are atoms of the raw coding,
float values and whole rows the pilot repeats keep their own atoms too (:mod:`privcheck.auditor.coding`,
``MIN_REPEATS``), and the union of the atoms one input produced in the selection draws and the other never
did gets a reserved candidate slot (:func:`privcheck.auditor.selection.one_input_event`).

Every derived column has a human name for event descriptions (:meth:`AutoView.atom_labels`):
``exponent(out[0])=1019``, ``bit 3 of report[0]=1 ∧ report[1]=2``, ``x=1 supported``, ``item 9 ∈ output``.

Validity: the view is a fixed function of one output and public constants (the audited inputs,
the items and the hash range seen in the probe); the probe draws are independent of the
estimation draws, so choosing the view from them is like choosing events from the selection share.
All derived columns compete in the one selection stage under the one Bonferroni correction.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Callable, Sequence

import numpy as np

from privcheck.auditor.coding import to_matrix
from privcheck.auditor.support_views import (  # noqa: F401 - re-exported
    HASH_FAMILIES,
    HashSupport,
    Supports,
    chi2_homogeneity_p,
    support_families,
    support_labels,
)
from privcheck.base.packed import PackedBits

#: probe draws per audited input (audits of at most 16·PROBE draws per input; see :func:`probe_size`)
PROBE = 2048
#: larger audits probe with up to this many draws per input: at ε = 0.25 a 2048-draw probe cannot tell
#: pure-ldp's SketchResponse or CMS layout from noise, 8192 draws can (issue 20, measured on the zoo)
PROBE_MAX = 8192
#: at most this many items get a membership column
MAX_ITEMS = 64
#: the float-representation columns are added when some probe histogram differs at this level
GATE_ALPHA = 1e-3


def _materialise(outputs) -> Any:
    """Lists with one-shot iterators (zip, map, generators) turned into tuples; arrays unchanged;
    packed bit rows unpacked (the probe is small)."""
    if isinstance(outputs, np.ndarray):
        return outputs
    if isinstance(outputs, PackedBits):
        return outputs.unpack()
    return [tuple(o) if isinstance(o, Iterator) else o for o in outputs]


def _is_container(o) -> bool:
    return isinstance(o, (set, frozenset, list, tuple)) or (isinstance(o, np.ndarray) and o.ndim == 1)


def _hashable(v):
    return v.item() if isinstance(v, np.generic) else v


# ---------------------------------------------------------------- features
class Membership:
    """Feature: one bit per item, 1 when the item is in the output container."""

    def __init__(self, items: Sequence):
        self.items = list(items)
        self.name = f"membership of {len(self.items)} items"

    def labels(self) -> list:
        """Per column: ``(name, atom → text)`` for event descriptions (``item 9 ∈ output``)."""
        return [
            (f"item {it!r} ∈ output", lambda v, it=it: f"item {it!r} {'∈' if v else '∉'} output") for it in self.items
        ]

    def __call__(self, outputs, n: int) -> np.ndarray:
        index = {it: j for j, it in enumerate(self.items)}
        out = np.zeros((n, len(self.items)), dtype=np.uint8)
        for i, o in enumerate(outputs):
            cols = [
                index[v]
                for v in map(_hashable, np.ravel(o).tolist() if isinstance(o, np.ndarray) else o)
                if _safe_in(v, index)
            ]
            out[i, cols] = 1
        return out


def _safe_in(v, index: dict) -> bool:
    try:
        return v in index
    except TypeError:
        return False


class MechanismSupport:
    """Feature: a built-in local-hashing mechanism's own ``support(reports, domain)``."""

    def __init__(self, mech, domain: Sequence):
        self.mech, self.domain = mech, list(domain)
        self.name = f"hash support ({mech.hash_family}) of inputs {self.domain}"

    def __call__(self, outputs, n: int) -> np.ndarray:
        return self.mech.support(np.asarray(outputs), self.domain)

    def labels(self) -> list:
        """Per column: ``(name, atom → text)`` for event descriptions."""
        return support_labels(self.domain)


class BitConjunction:
    """Feature: for each bit ``b`` of the report's bit vectors and each categorical scalar ``c`` travelling
    with it, the column ``2·code(c) + b`` (``code``: index of the value among the probe's ``categories[c]``,
    unseen values one extra code). Its atoms are the conjunctions ``{bit = b ∧ c = v}``; unions of atoms
    give ``{bit = b ∧ c ∈ C}``.

    ``layout``: the report's layout from :func:`_report_layout` (per position: ``("bits", width, one)`` with
    ``one`` the value read as 1, or ``("cat", None, None)``); ``categories``: position → sorted values.
    """

    def __init__(self, layout: list, categories: dict):
        self.layout, self.categories = layout, {k: list(v) for k, v in categories.items()}
        self.bit_positions = [(p, w) for p, (kind, w, _) in enumerate(layout) if kind == "bits"]
        width = sum(w for _, w in self.bit_positions)
        self.name = f"bit × category conjunctions ({width} bits × {len(self.categories)} categorical columns)"

    def labels(self) -> list:
        """Per column, in :meth:`__call__`'s order: ``(name, atom → text)``, e.g. ``bit 3 of report[0]=1 ∧
        report[1]=2`` (positions in the report as the sampler returns it)."""
        labs = []
        for p, w in self.bit_positions:
            one = self.layout[p][2]
            for c, values in self.categories.items():
                for i in range(w):

                    def text(code, i=i, p=p, c=c, values=values, one=one):
                        k, b = divmod(int(code), 2)
                        cat = repr(values[k]) if k < len(values) else "a value unseen in the probe"
                        return f"bit {i} of report[{p}]{'=' if b else '≠'}{one!r} ∧ report[{c}]={cat}"

                    labs.append((f"bit {i} of report[{p}] × report[{c}]", text))
        return labs

    def __call__(self, outputs, n: int) -> np.ndarray:
        cols = []
        cats = {}
        for c, values in self.categories.items():
            index = {v: j for j, v in enumerate(values)}
            cats[c] = np.array([index.get(_hashable(o[c]), len(values)) for o in outputs], dtype=np.int64)
        for p, w in self.bit_positions:
            one = self.layout[p][2]
            bits = np.array([np.asarray(o[p]).ravel() == one for o in outputs], dtype=np.int64).reshape(n, w)
            for c in self.categories:
                cols.append(2 * cats[c][:, None] + bits)
        return np.concatenate(cols, axis=1).astype(np.int32)


#: a scalar column of a report is categorical when the probe shows at most this many values
MAX_CATEGORIES = 64


def _bit_values(o) -> tuple | None:
    """The sorted distinct values of a 1-D container when it holds at most two values (a bit vector)."""
    if not (isinstance(o, (list, tuple)) or (isinstance(o, np.ndarray) and o.ndim == 1)) or len(o) < 1:
        return None
    try:
        vals = {_hashable(v) for v in (o.tolist() if isinstance(o, np.ndarray) else o)}
    except TypeError:
        return None
    if len(vals) > 2 or not all(_is_int(v) or isinstance(v, (bool, np.bool_)) for v in vals):
        return None
    return tuple(sorted(vals))


def _report_layout(probe: dict):
    """``(layout, categories)`` when every output is a tuple/list of the same shape mixing bit vectors
    (fixed width, two values overall) and integer scalars, at least one of each, the scalars taking 2 to
    :data:`MAX_CATEGORIES` values; else None."""
    outs = [o for v in probe.values() for o in (v if not isinstance(v, np.ndarray) else [])]
    if not outs or not all(isinstance(o, (tuple, list)) and len(o) == len(outs[0]) >= 2 for o in outs):
        return None
    layout: list[tuple] = []
    categories: dict = {}
    for p in range(len(outs[0])):
        first = outs[0][p]
        if np.ndim(first) == 0:
            vals = {_hashable(o[p]) for o in outs if np.ndim(o[p]) == 0}
            if (
                len(vals) < 2
                or len(vals) > MAX_CATEGORIES
                or not all(_is_int(v) for v in vals)
                or any(np.ndim(o[p]) != 0 for o in outs)
            ):
                return None
            layout.append(("cat", None, None))
            categories[p] = sorted(vals)
            continue
        width, seen = len(first) if hasattr(first, "__len__") else -1, set[Any]()
        for o in outs:
            bv = _bit_values(o[p])
            if bv is None or len(o[p]) != width:
                return None
            seen.update(bv)
        if len(seen) > 2:
            return None
        layout.append(("bits", width, max(seen)))
    if not categories or len(categories) == len(layout):
        return None
    return layout, categories


def _conjunction_feature(probe: dict):
    """A :class:`BitConjunction` for reports made of bit vectors and categorical scalars, else None."""
    found = _report_layout(probe)
    return None if found is None else BitConjunction(*found)


class FloatRepresentation:
    """Feature: exponent, low mantissa byte and trailing zero bits of each float column (Mironov 2012)."""

    name = "float representation (exponent, low mantissa byte, trailing zeros)"

    def __init__(self, columns: Sequence[int]):
        self.columns = list(columns)

    def labels(self) -> list:
        """Per column: ``(name, atom → text)``, e.g. ``exponent(out[0])=1019``."""
        fields = ("exponent", "low mantissa byte", "mantissa trailing zeros")
        return [(f"{f}(out[{j}])", lambda v, f=f, j=j: f"{f}(out[{j}])={int(v)}") for j in self.columns for f in fields]

    def __call__(self, outputs, n: int) -> np.ndarray:
        m = to_matrix(outputs, n)
        return np.concatenate([float_bits(m[:, j]) for j in self.columns], axis=1)


def float_bits(col: np.ndarray) -> np.ndarray:
    """(n, 3) int16: biased exponent, mantissa & 0xFF, trailing zero bits of the mantissa (52 for 0)."""
    u = np.ascontiguousarray(col, dtype=np.float64).view(np.uint64)
    mant = u & np.uint64((1 << 52) - 1)
    low = mant & (~mant + np.uint64(1))  # lowest set bit
    tz = np.where(mant == 0, 52, np.bitwise_count(low - np.uint64(1)))
    return np.stack([(u >> np.uint64(52)) & np.uint64(0x7FF), mant & np.uint64(0xFF), tz], axis=1).astype(np.int16)


# ---------------------------------------------------------------- the view
class AutoView:
    """The view ``outputs -> [raw encoding | derived columns]`` (module-level: pickles for workers)."""

    def __init__(self, features: list):
        self.features = features
        self.__name__ = "auto_view"

    @property
    def description(self) -> str:
        """What was added, e.g. ``raw + membership of 12 items``."""
        return "raw + " + " + ".join(f.name for f in self.features)

    def atom_labels(self, width: int) -> list:
        """Per column of the viewed output (``width`` columns: the raw encoding's, then the features'):
        None for a raw column (described as ``out[j]``), else ``(name, atom → text)``."""
        derived = [lab for f in self.features for lab in f.labels()]
        return [None] * (width - len(derived)) + derived

    def __call__(self, outputs) -> np.ndarray:
        outputs = _materialise(outputs)
        n = len(outputs)
        raw = to_matrix(outputs, n)
        parts: list = [raw.astype(np.float64) if isinstance(raw, np.ndarray) and raw.dtype.kind == "f" else raw]
        parts += [f(outputs, n) for f in self.features]
        if any(p.dtype.kind == "f" for p in parts):
            parts = [np.asarray(p).astype(np.float64) for p in parts]
        return np.concatenate(parts, axis=1)

    def __repr__(self) -> str:
        return f"auto_view({self.description})"


def _seed_value(outputs, seed_col: int):
    if isinstance(outputs, np.ndarray):
        a = outputs.reshape(len(outputs), -1)
        return a[:, seed_col].astype(np.int64).tolist(), a[:, 1 - seed_col].astype(np.int64).tolist()
    pairs = [tuple(o) for o in outputs]
    return [int(p[seed_col]) for p in pairs], [int(p[1 - seed_col]) for p in pairs]


def _is_int(v) -> bool:
    if isinstance(v, (bool, np.bool_)):
        return False
    if isinstance(v, (int, np.integer)):
        return True
    return isinstance(v, (float, np.floating)) and float(v).is_integer()


def _pairs_of_ints(probe: dict) -> bool:
    for outs in probe.values():
        for o in outs if not isinstance(outs, np.ndarray) else outs.reshape(len(outs), -1):
            try:
                if len(o) != 2 or not all(_is_int(v) for v in o):
                    return False
            except TypeError:
                return False
    return True


def _seed_column(probe: dict) -> int | None:
    """The seed column of (value, seed) integer pairs (the one with mostly distinct values), else None."""
    if not _pairs_of_ints(probe):
        return None
    seeds = {}
    for col in (0, 1):
        vals = [v for outs in probe.values() for v in _seed_value(outs, col)[0]]
        seeds[col] = len(set(vals)) / max(1, len(vals))
    seed_col = max(seeds, key=lambda c: seeds[c])
    return seed_col if seeds[seed_col] >= 0.5 else None


def _hash_feature(sampler, probe: dict, inputs: list):
    """Support columns of hashing/sketch reports: a built-in mechanism's own ``support``, else the families
    of :mod:`privcheck.auditor.support_views` accepted on the probe (None when none is)."""
    if hasattr(sampler, "support") and hasattr(sampler, "hash_family"):
        return MechanismSupport(sampler, inputs)
    families = support_families(probe)
    return Supports(families) if families else None


def _membership_feature(probe: dict):
    items, seen = [], set()
    for outs in probe.values():
        if isinstance(outs, np.ndarray):
            return None
        for o in outs:
            if not _is_container(o):
                return None
            for v in np.ravel(o).tolist() if isinstance(o, np.ndarray) else o:
                v = _hashable(v)
                try:
                    if v not in seen:
                        seen.add(v)
                        items.append(v)
                except TypeError:
                    return None
    if not items or set(items) <= {0, 1}:  # bit vectors: the raw coding has per-bit events
        return None
    if any(isinstance(v, (float, np.floating)) and not float(v).is_integer() for v in items):
        return None  # vectors of real numbers are not collections of items
    try:
        items.sort()
    except TypeError:
        items.sort(key=repr)
    return Membership(items[:MAX_ITEMS])


def _float_feature(probe: dict, alpha: float = GATE_ALPHA):
    mats = {}
    for x, outs in probe.items():
        try:
            mats[x] = to_matrix(outs, len(outs))
        except Exception:  # noqa: BLE001 - not numeric: no float columns
            return None
    keys = list(mats)
    if any(mats[k].dtype.kind != "f" for k in keys) or len({mats[k].shape[1] for k in keys}) != 1:
        return None
    cols = []
    for j in range(mats[keys[0]].shape[1]):
        col = {k: mats[k][:, j] for k in keys}
        if all(np.all(np.isnan(c) | (c == np.round(c))) for c in col.values()):
            continue  # integer-valued floats: the raw coding has their atoms
        bits = {k: float_bits(c[np.isfinite(c)]) for k, c in col.items()}
        for f in range(3):
            table = []
            cats = np.unique(np.concatenate([b[:, f] for b in bits.values()]))
            if len(cats) < 2:
                continue
            for b in bits.values():
                table.append([(b[:, f] == c).sum() for c in cats])
            if chi2_homogeneity_p(np.array(table)) < alpha / (3 * max(1, len(keys))):
                cols.append(j)
                break
    return FloatRepresentation(cols) if cols else None


def _models_real_arithmetic(sampler) -> bool:
    """A built-in mechanism: its sampler models a real-valued mechanism whose exact ε is the claim, so its
    float artefacts are not audited (they are a property of this sampler, reported separately)."""
    from estimators.base import Mechanism

    return isinstance(sampler, Mechanism)


def probe_size(samples: int) -> int:
    """Probe draws per input for an audit of ``samples`` draws per input (≥ 20): a quarter of them for a
    small audit (at least 256, at most :data:`PROBE`), growing as samples/16 up to :data:`PROBE_MAX` — the
    probe stays a small share of the audit while large audits get the power to recognise weak layouts."""
    return int(min(max(256, samples // 4), max(PROBE, min(PROBE_MAX, samples // 16))))


def auto_view(
    sampler: Callable, inputs: Sequence, seed_seq: np.random.SeedSequence, probe: int = PROBE
) -> AutoView | None:
    """The :class:`AutoView` for ``sampler`` on the audited ``inputs``, or None (raw outputs suffice).

    Parameters: ``sampler(x, n, rng)``; ``inputs`` the audited inputs (≥ 2); ``seed_seq`` the probe's
    own SeedSequence (one child per input); ``probe`` draws per input (≥ 16).
    """
    keys = list(range(len(inputs)))
    children = seed_seq.spawn(len(keys))
    raw = {}
    for k, ss in zip(keys, children):
        raw[k] = _materialise(sampler(inputs[k], probe, np.random.default_rng(ss)))
    by_input: dict | None
    try:  # keyed by the input itself when hashable (the hash features need it)
        by_input = {inputs[k]: raw[k] for k in keys}
    except TypeError:
        by_input = None
    features = []
    if by_input is not None and len(by_input) == len(keys):
        h = _hash_feature(sampler, by_input, list(by_input))
        if h is not None:
            features.append(h)
    if not features and _seed_column(raw) is None:  # an unrecognised (value, seed) pair stays an atom
        m = _membership_feature(raw)
        if m is not None:
            features.append(m)
    c = _conjunction_feature(raw)
    if c is not None:
        features.append(c)
    f = None if _models_real_arithmetic(sampler) else _float_feature(raw)
    if f is not None:
        features.append(f)
    return AutoView(features) if features else None
