"""Support families of LH-family and sketch reports (privcheck/auditor/support_views.py), recognised on the
auto-view probe from small re-implementations of the libraries' layouts (no library needed)."""

from __future__ import annotations

import numpy as np
import pytest
from lh_layouts import EPS, broken_cms, cms, fastlh, hcms, sketch_response, smp_lh, spl_lh

import privcheck
from privcheck.auditor.autoviews import auto_view
from privcheck.auditor.support_views import HashSupport, SignatureSupport, Supports, flatten


def _families(view):
    sup = [f for f in view.features if isinstance(f, Supports)]
    assert len(sup) == 1, view
    return sup[0].families


def test_flatten_walks_nested_reports():
    leaves = flatten([((3, 13), 0), ((1, 56), 2)])
    assert [c.tolist() for c in leaves] == [[3, 1], [13, 56], [0, 2]]
    vec = flatten([(np.array([1, -1]), 0), (np.array([-1, -1]), 1)])
    assert vec[0].shape == (2, 2) and vec[1].tolist() == [0, 1]
    assert flatten([(1, 2), (1, 2, 3)]) is None  # no common layout


@pytest.mark.parametrize(
    "sampler, inputs, family, rule",
    [
        (fastlh, [1, 2], HashSupport, "item-1"),
        (sketch_response, [1, 2], HashSupport, "learned per cell"),
        (smp_lh, [(0, 1), (1, 0)], HashSupport, "learned per cell"),
        (cms, [1, 2], SignatureSupport, "vector leaf 0 keyed by leaves [1]"),
        (hcms, [1, 2], SignatureSupport, "value leaf 0 keyed by leaves [1, 2]"),
    ],
)
def test_layouts_recognised(sampler, inputs, family, rule):
    view = auto_view(sampler, inputs, np.random.SeedSequence(1), probe=2048)
    fams = _families(view)
    assert isinstance(fams[0], family) and rule in fams[0].name


def test_spl_gets_one_family_per_pair():
    fams = _families(auto_view(spl_lh, [(0, 0), (1, 1)], np.random.SeedSequence(2), probe=2048))
    assert len(fams) == 2 and {(f.value, f.seed) for f in fams} == {(0, 1), (2, 3)}


def test_unhashed_pairs_and_keyless_vectors_get_no_support_family():
    def pairs(x, n, rng):  # a value unrelated to the seed: no family reproduces a support structure
        return [(int(v), int(s)) for v, s in zip(rng.integers(0, 3, n), rng.integers(0, 64, n))]

    def rr_and_noise(x, n, rng):  # a value that depends on x, beside an unrelated "seed": no hashing either
        bit = np.where(rng.random(n) < 0.9, x, 1 - x)
        return [(int(b), int(s)) for b, s in zip(bit, rng.integers(0, 50, n))]

    for fn in (pairs, rr_and_noise):
        for seed in range(3):
            view = auto_view(fn, [0, 1], np.random.SeedSequence(seed), probe=2048)
            assert view is None or not any(isinstance(f, Supports) for f in view.features), (fn, view)


@pytest.mark.parametrize("sampler, vs_raw", [(fastlh, None), (sketch_response, None), (cms, 0.1), (hcms, None)])
def test_sketch_and_lh_reports_certified_near_claimed(sampler, vs_raw):
    """True ε is 1 for each layout; the support events must certify most of it from 2·10⁴ draws, and on
    the sketches clearly more than the raw reports (rows mixing the support away) do."""
    if sampler in (fastlh, sketch_response):
        pytest.importorskip("xxhash")
    auto = privcheck.audit(sampler, inputs=[1, 2], eps=EPS, samples=20_000, seed=4)
    assert auto.verdict == "holds" and auto.eps_lower > 0.8
    if vs_raw is not None:  # few seeds/rows: the raw whole-row atoms are few enough to count, no gap
        raw = privcheck.audit(sampler, inputs=[1, 2], eps=EPS, samples=20_000, seed=4, view=False)
        assert auto.eps_lower > raw.eps_lower + vs_raw, (auto.eps_lower, raw.eps_lower)


def test_broken_sketch_refuted_through_the_signature():
    res = privcheck.audit(broken_cms, inputs=[1, 2], eps=EPS, samples=20_000, seed=5)
    assert res.verdict == "refuted" and res.eps_lower > 2
