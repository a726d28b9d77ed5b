"""The float auto-view (privcheck/auditor/autoviews.py, Mironov 2012), pinned: its low-mantissa column and its gate.

The leak used: a Laplace sample whose value law is the same under both inputs, except that under x = 1 a share
``q`` of the draws get bit 7 of the mantissa set where a lower bit is already set — the value moves by at most
2^-45 of itself, the exponent and the trailing zero bits keep their laws, and only the low mantissa byte tells the
inputs apart (its upper half is more likely under x = 1). With ``q = 1`` the event {low byte < 128} has probability
about 1/2 under x = 0 and about 1/256 under x = 1; with ``q = 0.3`` the true ε is about log(1/0.7) = 0.36.
"""

from __future__ import annotations

import numpy as np
import pytest

import privcheck
from privcheck.auditor.autoviews import GATE_ALPHA, PROBE, PROBE_MAX, AutoView, FloatRepresentation, auto_view


def low_byte_leak(q: float):
    def f(x, n, rng):
        v = rng.laplace(0.0, 1.0, n)
        if x == 1:
            u = v.view(np.uint64)
            below = (u & np.uint64(0x7F)) != 0  # a set bit below bit 7: setting bit 7 keeps the trailing zeros
            u[below & (rng.random(n) < q)] |= np.uint64(0x80)
        return v

    f.__name__ = f"low_byte_leak_{q}"
    return f


def test_the_low_mantissa_byte_column_finds_a_leak_only_it_sees():
    view = auto_view(low_byte_leak(1.0), [0, 1], np.random.SeedSequence(5), probe=PROBE)
    (feature,) = view.features
    assert isinstance(feature, FloatRepresentation) and feature.columns == [0]
    assert [name for name, _ in view.atom_labels(4)[1:]] == [
        "exponent(out[0])",
        "low mantissa byte(out[0])",
        "mantissa trailing zeros(out[0])",
    ]
    auto = privcheck.audit(low_byte_leak(1.0), inputs=[0, 1], eps=1.0, samples=50_000, seed=1)
    raw = privcheck.audit(low_byte_leak(1.0), inputs=[0, 1], eps=1.0, samples=50_000, seed=1, view=False)
    assert auto.verdict == "refuted" and auto.eps_lower > 4 and "low mantissa byte(out[0])" in auto.event
    assert "trailing zeros" not in auto.event.split("∪")[0]  # the leak is in the byte, not the lattice
    assert raw.verdict != "refuted" and raw.eps_lower < 0.05


def test_a_leak_near_the_gate():
    """q = 0.3 sits at the gate of a 2048-draw probe (chi-square at GATE_ALPHA / 6 over three fields and two
    inputs): it opens for 3 of 8 probe seeds; a 8192-draw probe (audits of ≥ 131072 samples) opens it for every
    seed, even at q = 0.2, which the small probe never sees."""
    assert GATE_ALPHA == 1e-3 and (PROBE, PROBE_MAX) == (2048, 8192)

    def opens(q, probe):
        return [
            auto_view(low_byte_leak(q), [0, 1], np.random.SeedSequence(s), probe=probe) is not None for s in range(8)
        ]

    assert opens(0.3, PROBE) == [False, False, True, True, False, True, False, False]
    assert opens(0.2, PROBE) == [False] * 8
    assert opens(0.2, PROBE_MAX) == [True] * 8


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_below_the_gate_a_small_audit_misses_the_leak_that_the_view_would_find(seed):
    """The gate is the float view's blind spot: a 30 000-sample audit (2048-draw probe) of q = 0.2 (true ε about
    0.22 > the claimed 0.1) keeps the raw coding and does not refute; the same audit told to use the view, or a
    larger audit whose probe opens the gate, does."""
    leak = low_byte_leak(0.2)
    small = privcheck.audit(leak, inputs=[0, 1], eps=0.1, samples=30_000, seed=seed)
    assert "auto_view" not in small.details and small.verdict != "refuted"
    told = AutoView([FloatRepresentation([0])])
    big = privcheck.audit(leak, inputs=[0, 1], eps=0.1, samples=200_000, seed=seed, view=told)
    assert big.verdict == "refuted" and "low mantissa byte(out[0])" in big.event


def test_a_large_audit_opens_the_gate_itself():
    res = privcheck.audit(low_byte_leak(0.2), inputs=[0, 1], eps=0.1, samples=200_000, seed=1)
    assert "float representation" in res.details["auto_view"] and res.verdict == "refuted"
