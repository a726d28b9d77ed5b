"""Readable event descriptions for derived auto-view columns (issue 20 §2): no bare ``out[22]`` codes."""

from __future__ import annotations

import numpy as np

from privcheck.auditor.autoviews import AutoView, BitConjunction, FloatRepresentation, Membership
from privcheck.auditor.selection import label_columns
from privcheck.auditor.support_views import HashSupport, Supports


def _lab(text):
    return ("name", text)


def test_label_columns_rewrites_only_derived_columns():
    labels = [None, ("exponent(out[0])", lambda v: f"exponent(out[0])={v}")]
    d = "{out[0] in [-1, 2) ∧ out[1]=1019} ∪ {out[0]=3 ∧ out[1]>1020}"
    assert label_columns(d, labels) == (
        "{out[0] in [-1, 2) ∧ exponent(out[0])=1019} ∪ {out[0]=3 ∧ exponent(out[0])>1020}"
    )
    assert label_columns("{out[12]=-1}", [None] * 12 + [_lab(lambda v: f"v{v}")]) == "{v-1}"
    assert label_columns("{out[1]=2.5}", [None, _lab(lambda v: "no")]) == "{name=2.5}"  # not an integer atom
    assert label_columns(d, None) == d


def test_float_representation_names():
    labs = FloatRepresentation([0]).labels()
    assert [lab[1](v) for lab, v in zip(labs, (1019, 0, 52))] == [
        "exponent(out[0])=1019",
        "low mantissa byte(out[0])=0",
        "mantissa trailing zeros(out[0])=52",
    ]


def test_bit_conjunction_names_follow_the_column_order():
    conj = BitConjunction([("bits", 3, 1), ("cat", None, None)], {1: [0, 2]})
    outs = [([1, 0, 1], 2), ([0, 0, 1], 0)]
    cols = conj(outs, 2)
    labs = conj.labels()
    assert len(labs) == cols.shape[1] == 3
    assert labs[0][1](cols[0, 0]) == "bit 0 of report[0]=1 ∧ report[1]=2"
    assert labs[1][1](cols[1, 1]) == "bit 1 of report[0]≠1 ∧ report[1]=0"
    assert "unseen" in labs[2][1](5)


def test_support_and_membership_names():
    h = HashSupport(lambda u, s: u, [1, 2], 2, 0, 1, [], [], [[0], [1]], "item")
    sup = Supports([h])
    labs = sup.labels()
    assert [lab[1](1) for lab in labs[:2]] == ["x=1 supported", "x=2 supported"]
    assert labs[2][1](0b01) == "support pattern: x=1 supported, x=2 not supported"
    assert Membership([9]).labels()[0][1](0) == "item 9 ∉ output"


def test_auto_view_labels_align_with_its_columns():
    batch = np.array([[0.5], [1.25]])
    view = AutoView([FloatRepresentation([0])])
    cols = view(batch)
    labels = view.atom_labels(cols.shape[1])
    assert labels[0] is None and len(labels) == cols.shape[1] == 4
    assert labels[1][1](int(cols[0, 1])) == "exponent(out[0])=1022"
