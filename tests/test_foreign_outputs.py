"""Outputs of any type become atoms: a stateless, deterministic encoding (privcheck.auditor.outputs)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcheck.auditor.matrix import as_matrix
from privcheck.auditor.outputs import CODE_BASE, encode_outputs
from privcheck.base.errors import PrivcheckUsageError


def codes(values):
    return encode_outputs(values, len(values))


@pytest.mark.parametrize(
    "arr",
    [
        np.array([0, 1, 1, 0]),
        np.array([True, False, True, True]),
        np.array([0.5, -1.25, np.nan, 3.0]),
        np.arange(12).reshape(4, 3),
        np.zeros((4, 2, 2), dtype=np.int64) + 7,
    ],
)
def test_numeric_arrays_take_the_existing_fast_path(arr):
    out = encode_outputs(arr, len(arr))
    ref = as_matrix(arr, len(arr))
    assert out.dtype == ref.dtype and np.array_equal(out, ref, equal_nan=True)


def test_numeric_lists_equal_their_arrays():
    assert np.array_equal(codes([1, 0, 1]).astype(float), as_matrix(np.array([1, 0, 1]), 3).astype(float))
    assert np.array_equal(codes([(1, 2.5), (3, 4.0)]), np.array([[1, 2.5], [3, 4.0]]))


def test_strings_are_labels_independent_of_container_and_width():
    a = codes(["yes", "no", "yes"])
    b = encode_outputs(np.array(["yes", "no", "yes"]), 3)
    c = encode_outputs(np.array(["yes", "no", "yes"], dtype=object), 3)
    wide = encode_outputs(np.array(["yes", "a much longer label", "no"]), 3)
    assert a.shape == (3, 1)
    assert np.array_equal(a, b) and np.array_equal(a, c)
    assert a[0, 0] == a[2, 0] != a[1, 0]
    assert wide[0, 0] == a[0, 0] and wide[2, 0] == a[1, 0]
    assert (a >= CODE_BASE).all()
    # bytes are labels too, distinct from the equal-looking string
    bts = codes([b"yes", b"no"])
    assert bts[0, 0] != bts[1, 0] and bts[0, 0] != a[0, 0]


def test_many_distinct_labels_do_not_collide():
    labels = [f"label-{i}" for i in range(20000)] + [str(i) for i in range(20000)]
    assert np.unique(codes(labels)).size == len(labels)


def test_tuples_are_positional_columns_with_exact_floats():
    out = codes([("a", 0.1, 3), ("b", 0.1 + 1e-16, 3), ("a", 0.30000000000000004, -2)])
    assert out.shape == (3, 3)
    assert out[0, 0] == out[2, 0] != out[1, 0]
    assert out[0, 1] == 0.1 and out[2, 1] == 0.30000000000000004 and out[1, 1] != out[2, 1]
    assert list(out[:, 2]) == [3, 3, -2]


def test_nested_records_expand_into_columns():
    out = codes([([1, 0, 1], 2), ([0, 0, 1], 3)])  # RAPPOR-like (bits, cohort)
    assert out.tolist() == [[1, 0, 1, 2], [0, 0, 1, 3]]
    mixed = codes([([1, 0], 2), ([0, 0, 1], 3)])  # ragged inner lists: one code for that position
    assert mixed.shape == (2, 2) and mixed[:, 1].tolist() == [2, 3] and mixed[0, 0] != mixed[1, 0]


def test_ragged_lists_are_whole_atoms():
    out = codes([[1, 2], [1, 2, 3], (1, 2), [3]])
    assert out.shape == (4, 1)
    assert out[0, 0] == out[2, 0]  # a list and a tuple with equal items
    assert len({out[0, 0], out[1, 0], out[3, 0]}) == 3


def test_sets_are_order_free():
    out = codes([{1, 2}, frozenset({2, 1}), {2, 1}, {1, 3}, {"b", "a"}, frozenset({"a", "b"})])
    assert out.shape == (6, 1)
    assert out[0, 0] == out[1, 0] == out[2, 0] != out[3, 0]
    assert out[4, 0] == out[5, 0] != out[0, 0]


def test_complex_numbers_keep_the_imaginary_part():
    arr = encode_outputs(np.array([1 + 2j, 1 + 3j, -0.5j]), 3)
    lst = codes([1 + 2j, 1 + 3j, -0.5j])
    assert arr.shape == (3, 2) and np.array_equal(arr, lst)
    assert arr[0].tolist() == [1.0, 2.0] and arr[1].tolist() == [1.0, 3.0] and arr[2].tolist() == [0.0, -0.5]
    vec = encode_outputs(np.array([[1j, 2], [3, 4j]]), 2)
    assert vec.shape == (2, 4) and vec[1].tolist() == [3, 0, 0, 4]


def test_none_is_no_value_and_numbers_are_equal_by_value():
    out = codes([None, 1, 2.5, True])
    assert np.isnan(out[0, 0]) and out[1:, 0].tolist() == [1.0, 2.5, 1.0]
    nested = codes([(1, (1, "x")), (1, (1.0, "x")), (1, (True, "x")), (1, (2, "x"))])
    assert nested[0, 1] == nested[1, 1] == nested[2, 1] != nested[3, 1]
    big = codes([2**80, 2**80 + 1, 2**80])  # beyond float precision: still exact labels
    assert big[0, 0] == big[2, 0] != big[1, 0]


def test_generators_and_iterator_outputs():
    gen = encode_outputs((s for s in ["a", "b", "a"]), 3)
    assert np.array_equal(gen, codes(["a", "b", "a"]))
    zipped = codes([zip([1, 2], [0, 1]), zip([1, 2], [0, 1]), zip([3], [1])])  # one-shot iterators per output
    assert zipped.shape == (3, 1) and zipped[0, 0] == zipped[1, 0] != zipped[2, 0]
    with pytest.raises(PrivcheckUsageError, match="returned 2 outputs for n=3"):
        encode_outputs(iter([1, 2]), 3)


def test_mixed_columns_and_dicts():
    out = codes([("x", None), (2, "y"), ({"k": 1, "j": 2}, 1.5), ({"j": 2, "k": 1}, 1.5)])
    assert out.shape == (4, 2)
    assert out[2, 0] == out[3, 0] and np.isnan(out[0, 1])


@pytest.mark.parametrize(
    "raw, n, fragment",
    [
        ([object(), object()], 2, "cannot be compared"),
        ([1, 2], 3, "returned 2 outputs for n=3"),
        (np.zeros(4), 5, "expected (5,)"),
        ("yes", 1, "one str"),
        (7, 1, "one int"),
    ],
)
def test_what_cannot_be_compared_is_one_clear_line(raw, n, fragment):
    with pytest.raises(PrivcheckUsageError) as err:
        encode_outputs(raw, n)
    msg = str(err.value)
    assert fragment in msg and "\n" not in msg
    if "compared" in fragment:
        assert "object" in msg and "allowed" in msg


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.one_of(st.text(max_size=6), st.integers(-5, 5).map(str)), min_size=2, max_size=40), st.integers(1, 39)
)
def test_encoding_is_chunk_independent(values, cut):
    cut = min(cut, len(values) - 1)
    whole = codes(values)
    parts = np.concatenate([codes(values[:cut]), codes(values[cut:])])
    assert np.array_equal(whole, parts)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", "ccc"]), st.integers(0, 3), st.frozensets(st.integers(0, 4), max_size=3)),
        min_size=2,
        max_size=30,
    )
)
def test_tuples_with_sets_are_chunk_independent(values):
    cut = len(values) // 2
    assert np.array_equal(codes(values), np.concatenate([codes(values[:cut]), codes(values[cut:])]))


def test_codes_are_the_same_in_another_process():
    values = ["yes", "no", b"raw", (1, "a"), frozenset({"x", "y"}), 2**70, 1 + 2j]
    here = [
        codes(values[:3]).tolist(),
        codes([values[3]]).tolist(),
        codes([values[4]]).tolist(),
        codes([values[5]]).tolist(),
        codes([values[6]]).tolist(),
    ]
    prog = (
        "from privcheck.auditor.outputs import encode_outputs as e\n"
        "v = ['yes', 'no', b'raw', (1, 'a'), frozenset({'x', 'y'}), 2**70, 1 + 2j]\n"
        "print(repr([e(v[:3], 3).tolist(), e([v[3]], 1).tolist(), e([v[4]], 1).tolist(), "
        "e([v[5]], 1).tolist(), e([v[6]], 1).tolist()]))\n"
    )
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, env=env, check=True)
    assert eval(out.stdout) == here  # noqa: S307 - our own repr of floats
