"""Comparing the two runs of a pair: divergences of the random calls, distances of locations and outputs.

The draws of the two runs are walked in order (:func:`compare_draws`). While they agree in method and
shape the two runs consumed the same stream, so the noise values are equal: the difference of two
*location* parameters (``loc`` of ``normal``/``laplace``, ``low`` of ``uniform`` …, broadcast to the shape
of the draw) is a difference of what the noise was added to, and the difference of the outputs is too when
the noise is added last — unless a scale or another parameter differed, which makes the noise itself
differ. At the first call that differs in method or shape
the streams part (``synced`` False): the calls before it still count, the outputs no longer do.

Equality of parameters is exact (NaN equal to NaN): a noise scale computed without the data is the same
float on both inputs, bit for bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from privcheck.tracing.coupling import short
from privcheck.tracing.recording import Draw
from privcheck.tracing.result import Divergence

NORMS = ("l1", "l2", "linf")
#: relative tolerance of the sensitivity comparison: refuted when a distance exceeds Δ·(1 + REL_TOL) plus the
#: float rounding of the compared values (:func:`rounding_slack`)
REL_TOL = 1e-9


@dataclass
class PairReading:
    """The comparison of one pair's two runs: divergences, the location differences (flattened), whether
    the streams stayed in step to the end (``synced``) and whether no other parameter differed (``additive``)."""

    divergences: list[Divergence] = field(default_factory=list)
    location: np.ndarray | None = None
    location_scale: float = 0.0
    synced: bool = True
    additive: bool = True


def equal(a: Any, b: Any) -> bool:
    """Exact equality of two parameter values (arrays elementwise, NaN equal to NaN)."""
    if a is b:
        return True
    try:
        A, B = np.asarray(a), np.asarray(b)
        if A.dtype.kind in "biufc" and B.dtype.kind in "biufc":
            return A.shape == B.shape and bool(np.array_equal(A, B, equal_nan=True))
    except Exception:  # noqa: BLE001 - ragged or exotic values: compared below
        pass
    try:
        res = a == b
        if isinstance(res, (bool, np.bool_)):
            return bool(res)
    except Exception:  # noqa: BLE001
        pass
    return repr(a) == repr(b)


def _numeric(v: Any) -> np.ndarray | None:
    try:
        arr = np.asarray(v)
    except Exception:  # noqa: BLE001
        return None
    if arr.dtype.kind not in "biuf":
        return None
    return arr.astype(float)


def compare_draws(da: list[Draw], db: list[Draw], pair: tuple, run: int, same_size: bool) -> PairReading:
    """Walk two runs' draws in order (see the module docstring); ``same_size``: the inputs have equal sizes,
    so a noise call made on one input only (or of another shape) is a finding."""
    out = PairReading()
    labels = (short(pair[0], 40), short(pair[1], 40))
    locs: list[np.ndarray] = []
    mags: list[float] = []

    def add(kind, method, param, site, va, vb, finding):
        out.divergences.append(Divergence(kind, method, param, site, va, vb, labels, run, bool(finding)))

    for ca, cb in zip(da, db):
        if ca.method != cb.method or ca.source != cb.source:
            add(
                "sequence",
                f"{ca.method}/{cb.method}",
                None,
                ca.site if ca.site == cb.site else f"{ca.site} / {cb.site}",
                f"{ca.source}.{ca.method}",
                f"{cb.source}.{cb.method}",
                (ca.is_noise or cb.is_noise) and same_size,
            )
            out.synced = False
            break
        if ca.shape != cb.shape:
            add("shape", ca.method, None, ca.site, f"shape {ca.shape}", f"shape {cb.shape}", ca.is_noise and same_size)
            out.synced = False
            break
        _compare_params(ca, cb, locs, mags, add, out)
    else:
        if len(da) != len(db):
            extra, where = (da[len(db)], "first") if len(da) > len(db) else (db[len(da)], "second")
            va, vb = (
                (f"{extra.source}.{extra.method}", "no call")
                if where == "first"
                else (
                    "no call",
                    f"{extra.source}.{extra.method}",
                )
            )
            add("sequence", extra.method, None, extra.site, va, vb, extra.is_noise and same_size)
            out.synced = False
    if locs:
        out.location = np.concatenate([v.ravel() for v in locs])
        out.location_scale = max(mags) if mags else 0.0
    return out


def _compare_params(ca: Draw, cb: Draw, locs: list, mags: list, add, out: PairReading) -> None:
    for name, va in ca.location().items():
        vb = cb.params.get(name)
        A, B = _numeric(va), _numeric(vb)
        if A is None or B is None:
            if not equal(va, vb):
                add("parameter", ca.method, name, ca.site, short(va, 40), short(vb, 40), False)
                out.additive = False
            continue
        try:
            shape = np.broadcast_shapes(A.shape, B.shape, ca.shape)
            d = np.broadcast_to(A - B, shape)
        except ValueError:
            add("parameter", ca.method, name, ca.site, short(va, 40), short(vb, 40), False)
            out.additive = False
            continue
        locs.append(d)
        with np.errstate(invalid="ignore"):
            mags.append(float(np.nanmax(np.abs(np.concatenate([A.ravel(), B.ravel()])), initial=0.0)))
    sb = cb.scales()
    for name, va in ca.scales().items():
        if not equal(va, sb.get(name)):
            add("scale", ca.method, name, ca.site, short(va, 40), short(sb.get(name), 40), True)
            out.additive = False  # unequal noise: the outputs no longer differ by what it was added to
    ob = cb.others()
    for name, va in ca.others().items():
        if not equal(va, ob.get(name)):
            add("parameter", ca.method, name, ca.site, short(va, 40), short(ob.get(name), 40), False)
            out.additive = False


def as_vector(out: Any) -> np.ndarray | None:
    """An output as a flat float vector (numbers, bools, arrays, rectangular lists/tuples, complex as
    real and imaginary parts), or None when it is not numeric (strings, sets, dicts, ragged lists)."""
    if isinstance(out, (str, bytes, dict, set, frozenset)) or out is None:
        return None
    try:
        arr = np.asarray(out)
    except Exception:  # noqa: BLE001
        return None
    if arr.dtype.kind == "c":
        return np.concatenate([arr.real.ravel(), arr.imag.ravel()]).astype(float)
    if arr.dtype.kind not in "biuf":
        return None
    return arr.astype(float).ravel()


def norm(v: np.ndarray, kind: str) -> float:
    """The ``l1``, ``l2`` or ``linf`` norm of a flat vector (0 for an empty one; NaN when it holds NaN)."""
    if v.size == 0:
        return 0.0
    a = np.abs(v)
    if kind == "l1":
        return float(np.sum(a))
    if kind == "linf":
        return float(np.max(a))
    m = float(np.max(a))
    if m == 0 or not math.isfinite(m):
        return m
    return m * float(np.sqrt(np.sum((a / m) ** 2)))  # scaled: no overflow


def rounding_slack(magnitude: float, size: int, kind: str) -> float:
    """The float rounding a distance between values of ``magnitude`` may carry: 8 units of 2⁻⁵² of the
    magnitude per component, summed as the norm sums components (``size`` components)."""
    per = 8.0 * 2.0**-52 * max(magnitude, 0.0)
    if kind == "l1":
        return per * size
    if kind == "l2":
        return per * math.sqrt(size)
    return per


def allowed(sensitivity: float, magnitude: float, size: int, kind: str) -> float:
    """The largest distance that does not refute Δ = ``sensitivity``: Δ(1 + :data:`REL_TOL`) plus the rounding slack."""
    return sensitivity * (1.0 + REL_TOL) + rounding_slack(magnitude, size, kind)
