"""privcheck.strategies: every pair is a neighbour under its stated relation (hypothesis property tests)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcheck import strategies as S
from privcheck.base.errors import PrivcheckUsageError

FAST = settings(max_examples=60, deadline=None, database=None)


def _differing_records(a: np.ndarray, b: np.ndarray) -> int:
    return int(np.sum(np.any(np.atleast_2d((a != b) & ~(np.isnan(a) & np.isnan(b))).reshape(len(a), -1), axis=1)))


@FAST
@given(S.datasets(min_size=0, max_size=8, lower=-1.0, upper=2.0, relation="add_remove"))
def test_add_remove_pairs_differ_by_one_record(pair):
    a, b = pair
    big, small = (a, b) if len(a) > len(b) else (b, a)
    assert len(big) == len(small) + 1
    # removing one record of the bigger dataset gives the smaller one
    assert any(np.array_equal(np.delete(big, i, axis=0), small) for i in range(len(big)))
    assert np.all((small >= -1.0) & (small <= 2.0)) and np.all((big >= -1.0) & (big <= 2.0))


@FAST
@given(S.datasets(min_size=1, max_size=6, dim=3, relation="replace_one", outside=True, nonfinite=True))
def test_replace_one_pairs_differ_in_one_row(pair):
    a, b = pair
    assert a.shape == b.shape and a.shape[1] == 3
    assert _differing_records(a, b) <= 1
    assert np.all(np.isfinite(a)) and np.all((a >= 0) & (a <= 1))  # only the replacement may leave the bounds


@FAST
@given(S.values(0.0, 1.0, outside=True, nonfinite=True))
def test_values_are_floats_inside_or_flagged_outside(v):
    assert isinstance(v, float)
    assert math.isnan(v) or -1000.0 <= v <= 1001.0 or math.isinf(v)


@FAST
@given(st.sampled_from(["l1", "l2", "linf"]).flatmap(lambda n: st.tuples(st.just(n), S.vectors(4, 2.5, norm=n))))
def test_vectors_lie_on_the_norm_sphere(arg):
    norm, (c, d) = arg
    order = {"l1": 1, "l2": 2, "linf": np.inf}[norm]
    assert np.linalg.norm(d - c, ord=order) == pytest.approx(2.5, rel=1e-9, abs=1e-12)


def test_strategy_arguments_are_checked():
    for bad in (
        lambda: S.datasets(lower=1.0, upper=0.0),
        lambda: S.datasets(relation="swap"),
        lambda: S.datasets(min_size=3, max_size=2),
        lambda: S.vectors(0),
        lambda: S.vectors(2, norm="l3"),
        lambda: S.vectors(2, radius=0.0),
        lambda: S.pairs_of(3),
    ):
        with pytest.raises(PrivcheckUsageError):
            bad()
