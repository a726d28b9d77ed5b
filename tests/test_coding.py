"""The vectorised output coding against a slow, obviously-correct reference (so speed cannot change verdicts)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcheck.auditor.coding import OutputCoding, as_matrix
from privcheck.auditor.selection import Event, candidate_events, pair_columns
from privcheck.base.packed import column_sums


# ----------------------------------------------------------------------------- reference
def ref_code(coder, v) -> int:
    """The atom of one value, straight from the layout rules in privcheck/auditor/coding.py."""
    if coder.kind == "int":
        if isinstance(v, float) and (math.isnan(v) or v != math.floor(v)):
            return coder.size + 1
        if v < coder.lo:
            return coder.size
        if v >= coder.lo + coder.size:
            return coder.size + 1
        return int(v) - coder.lo
    values = list(coder.values)
    nv = len(values)
    if math.isnan(v):
        return coder.n_codes - 1
    for i, u in enumerate(values):
        if u == v:
            return i
    if coder.kind == "values":
        if nv and v < values[0]:
            return nv + 1
        if nv and v > values[-1]:
            return nv + 2
        return nv
    return nv + sum(1 for e in coder.edges if e <= v)


def ref_counts(coding: OutputCoding, data: np.ndarray) -> dict:
    """Atom counts of every family, one row at a time."""
    rows = [[ref_code(coding.columns[j], v.item()) for j, v in enumerate(r)] for r in data]
    out = {}
    for fam in coding.families():
        size = coding.family_size(fam)
        c = Counter()
        for r in rows:
            if fam == ():
                base = [c.size if c.kind == "int" else c.n_codes for c in coding.columns]
                key = sum(code * math.prod(base[j + 1 :]) for j, code in enumerate(r))
                if any(code >= b for code, b in zip(r, base)):
                    key = -1
                hits = np.flatnonzero(coding.rows == key)
                c[int(hits[0]) if hits.size else coding.rows.size] += 1
            elif len(fam) == 1:
                c[r[fam[0]]] += 1
            else:
                i, j = fam
                c[r[i] * int(coding.n_codes[j]) + r[j]] += 1
        arr = np.zeros(size, dtype=np.int64)
        for k, v in c.items():
            arr[k] = v
        out[fam] = arr
    return out


def _data(kind: str, n: int, d: int, rng: np.random.Generator, shift: int = 0) -> np.ndarray:
    if kind == "bits":
        return as_matrix(rng.random((n, d)) < rng.random(d), n)
    if kind == "ints":
        return as_matrix(rng.geometric(0.4, (n, d)) * rng.choice([-1, 1], (n, d)) + shift, n)
    if kind == "levels":
        a = rng.choice([-1.5, 0.0, 0.25, 3.0], (n, d)) + shift
        a[rng.random((n, d)) < 0.1] = np.nan
        return a
    a = rng.normal(shift, 1.0, (n, d))
    a[rng.random((n, d)) < 0.2] = 1.0  # a heavy atom
    a[rng.random((n, d)) < 0.05] = np.nan
    return a


@settings(max_examples=25, deadline=None)
@given(
    kind=st.sampled_from(["bits", "ints", "levels", "continuous"]),
    d=st.integers(1, 10),
    n_pilot=st.integers(5, 300),
    n=st.integers(0, 300),
    shift=st.integers(-2, 2),
    seed=st.integers(0, 2**32 - 1),
)
def test_chunk_counts_match_reference(kind, d, n_pilot, n, shift, seed):
    rng = np.random.default_rng(seed)
    pilot = _data(kind, n_pilot, d, rng)
    chunk = _data(kind, n, d, rng, shift)  # may leave the pilot's range
    coding = OutputCoding.fit(pilot)
    coding = coding.with_pair_columns(list(range(min(d, 5))))
    fast = coding.count_chunk(chunk)
    ref = ref_counts(coding, chunk)
    assert set(fast) == set(ref)
    for fam in ref:
        assert np.array_equal(fast[fam], ref[fam]), fam
        assert fast[fam].sum() == n
    # per-event counts of random events in every family agree with the reference
    events = []
    for fam in coding.families():
        mask = rng.random(coding.family_size(fam)) < 0.4
        events.append(Event((0, 1), fam, mask, 0.0, "test"))
    if n:
        got = coding.count_events(chunk, events)
        want = [int(ref[ev.family][ev.atoms].sum()) for ev in events]
        assert got.tolist() == want


@settings(max_examples=15, deadline=None)
@given(kind=st.sampled_from(["bits", "ints", "levels"]), d=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_events_from_fast_counts_equal_events_from_reference_counts(kind, d, seed):
    rng = np.random.default_rng(seed)
    pilot = [_data(kind, 200, d, rng), _data(kind, 200, d, rng, 1)]
    sel = [_data(kind, 400, d, rng), _data(kind, 400, d, rng, 1)]
    coding = OutputCoding.fit(np.concatenate(pilot))
    pairs = [(0, 1), (1, 0)]
    pc = pair_columns(coding, [coding.count_chunk(p) for p in pilot], [200, 200], pairs, 2000, 0.05 / 3)
    coding = coding.with_pair_columns(pc)
    fast = [coding.count_chunk(s) for s in sel]
    ref = [ref_counts(coding, s) for s in sel]
    e_fast = candidate_events(coding, fast, [400, 400], pairs, 2000, 0.05 / 3, max_events=3)
    e_ref = candidate_events(coding, ref, [400, 400], pairs, 2000, 0.05 / 3, max_events=3)
    assert [e.key() for e in e_fast] == [e.key() for e in e_ref]
    assert [e.description for e in e_fast] == [e.description for e in e_ref]


def test_chunked_counts_add_up_to_whole_counts():
    rng = np.random.default_rng(3)
    data = _data("bits", 5000, 12, rng)
    coding = OutputCoding.fit(data[:1000]).with_pair_columns([0, 3, 7])
    whole = coding.count_chunk(data)
    parts = [coding.count_chunk(data[i : i + 777]) for i in range(0, 5000, 777)]
    for fam, v in whole.items():
        assert np.array_equal(v, sum(p[fam] for p in parts))


@pytest.mark.parametrize("n", [1, 254, 255, 1019, 1020, 5000, 65_537])
def test_column_sums_exact(n):
    rng = np.random.default_rng(n)
    a = rng.random((n, 37)) < 0.9
    assert np.array_equal(column_sums(a), a.sum(axis=0))
    assert np.array_equal(column_sums(a.view(np.uint8)), a.sum(axis=0))


def test_tail_values_unseen_in_the_pilot_merge_into_tail_atoms():
    coding = OutputCoding.fit(np.array([[0], [1], [2], [3]], dtype=np.int8))
    counts = coding.count_chunk(np.array([[-50], [-1], [2], [9], [400]], dtype=np.int16))[(0,)]
    # atoms 0..3 are the values 0..3; then "below" and "above"
    assert counts.tolist() == [0, 0, 1, 0, 2, 2]
    assert coding.describe((0,), np.array([0, 0, 0, 0, 1, 0], bool)) == "{out<0}"


def test_binned_description_has_no_typo():
    rng = np.random.default_rng(0)
    coding = OutputCoding.fit(rng.normal(size=(5000, 1)))
    text = coding.describe((0,), np.eye(coding.family_size((0,)), dtype=bool)[3])
    assert text.startswith("{out in [") and "outin" not in text


@pytest.mark.parametrize("dist", ["normal", "cauchy", "rounded", "tiny", "huge"])
def test_grid_binning_equals_binary_search(dist):
    rng = np.random.default_rng(5)
    draw = {
        "normal": lambda n: rng.normal(size=n),
        "cauchy": lambda n: rng.standard_cauchy(n),
        "rounded": lambda n: rng.uniform(-4, 4, n).round(2),
        "tiny": lambda n: rng.normal(size=n) * 1e-300,
        "huge": lambda n: rng.normal(size=n) * 1e300,
    }[dist]
    coder = OutputCoding.fit(draw(20_000)[:, None]).columns[0]
    assert coder.kind == "binned" and coder.edges.size >= 8
    e = coder.edges
    x = np.concatenate(
        [draw(50_000), e, np.nextafter(e, -np.inf), np.nextafter(e, np.inf), [-np.inf, np.inf, -1e308, 1e308, 0.0]]
    )
    assert np.array_equal(coder._bins(x), np.searchsorted(e, x, side="right"))


def test_one_integer_column_shortcut_matches_reference():
    rng = np.random.default_rng(9)
    coding = OutputCoding.fit(rng.integers(0, 5, (300, 1)))
    for chunk in (
        rng.integers(0, 5, (500, 1)),
        rng.integers(0, 9, (500, 1)),
        rng.integers(-3, 9, (500, 1)),
        np.array([[0], [10**12]]),
    ):
        assert np.array_equal(coding.count_chunk(chunk)[(0,)], ref_counts(coding, chunk)[(0,)])
        mask = np.array([1, 0, 1, 0, 0, 1, 1], bool)[: coding.family_size((0,))]
        ev = Event((0, 1), (0,), mask, 0.0, "test")
        assert coding.count_events(chunk, [ev])[0] == ref_counts(coding, chunk)[(0,)][mask].sum()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), runs=st.integers(1, 3), nan=st.booleans())
def test_interval_events_counted_by_comparisons_match_reference(seed, runs, nan):
    rng = np.random.default_rng(seed)
    coding = OutputCoding.fit(rng.laplace(size=(3000, 1)))
    coder = coding.columns[0]
    assert coder.kind == "binned" and coder.values.size == 0
    x = np.concatenate([rng.laplace(size=2000) * 2, coder.edges, [-np.inf, np.inf]])
    if nan:
        x[rng.random(x.size) < 0.1] = np.nan
    chunk = x[:, None]
    nb = coder.edges.size + 1
    mask = np.zeros(coding.family_size((0,)), bool)
    cuts = np.sort(rng.choice(np.arange(nb + 1), 2 * runs, replace=False))
    for a, b in zip(cuts[::2], cuts[1::2]):
        mask[a:b] = True
    ev = Event((0, 1), (0,), mask, 0.0, "test")
    want = int(ref_counts(coding, chunk)[(0,)][mask].sum())
    assert coding.count_events(chunk, [ev])[0] == want
    fast = coder.count_interval_event(x, mask)
    assert fast is None or fast == want


def test_mixed_interval_and_scattered_events_on_one_float_column():
    rng = np.random.default_rng(11)
    coding = OutputCoding.fit(rng.normal(size=(4000, 1)))
    chunk = rng.normal(size=(3000, 1))
    size = coding.family_size((0,))
    interval = np.zeros(size, bool)
    interval[3:20] = True
    scattered = np.zeros(size, bool)
    scattered[1 : size - 1 : 3] = True
    events = [Event((0, 1), (0,), m, 0.0, "test") for m in (interval, scattered)]
    ref = ref_counts(coding, chunk)[(0,)]
    assert coding.count_events(chunk, events).tolist() == [int(ref[interval].sum()), int(ref[scattered].sum())]
