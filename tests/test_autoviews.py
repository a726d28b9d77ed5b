"""Views chosen by output type (privcheck/auditor/autoviews.py): broken samplers only an auto-view catches."""

from __future__ import annotations

import math

import numpy as np
import pytest

import privcheck
from privcheck.auditor.autoviews import AutoView, BitConjunction, Membership, auto_view, float_bits


def _textbook_laplace(x, n, rng):
    """Textbook floating-point Laplace: x + b·(−log u)·sign; the sum's rounding depends on x (Mironov 2012)."""
    return x + rng.laplace(0.0, 1.0, n)


def _set_leak(x, n, rng):
    """A 2-subset of {0..5} as a Python set: x is in it w.p. e^1·2/(e^1·2 + 4) — but x = 1 also adds item 9
    with probability 1/4 (a leak only membership events see, the whole-set atoms being many and rare)."""
    out = []
    for _ in range(n):
        rest = [v for v in range(6) if v != x]
        if rng.random() < 2 * math.e / (2 * math.e + 4):
            s = {x, int(rng.choice(rest))}
        else:
            s = set(int(v) for v in rng.choice(rest, 2, replace=False))
        if x == 1 and rng.random() < 0.25:
            s.add(9)
        out.append(frozenset(s))
    return out


def test_float_bits_fields():
    b = float_bits(np.array([1.0, 1.5, 0.0, -(2.0**-3)]))
    assert b[:, 0].tolist() == [1023, 1023, 0, 1020]  # biased exponents
    assert b[:, 2].tolist() == [52, 51, 52, 52]  # trailing zeros of the mantissa


def test_textbook_float_laplace_refuted_only_with_auto_view():
    raw = privcheck.audit(_textbook_laplace, inputs=[0.0, 1.0], eps=1.0, samples=100_000, seed=1, view=False)
    auto = privcheck.audit(_textbook_laplace, inputs=[0.0, 1.0], eps=1.0, samples=100_000, seed=1)
    assert raw.verdict == "holds"  # the value alone: the real-valued law is 1-DP
    assert auto.verdict == "refuted" and auto.eps_lower > 3
    assert "float representation" in auto.details["auto_view"]
    assert any(f"{f}(out[0])=" in auto.event for f in ("exponent", "low mantissa byte", "mantissa trailing zeros"))


def test_lattice_snapped_output_leaks_through_trailing_zeros():
    """x = 1 snaps its output to the lattice 2^-20 (values identical in distribution up to 1e-6)."""

    def snapped(x, n, rng):
        y = rng.normal(0.0, 4.0, n)
        return np.round(y * 2.0**20) / 2.0**20 if x else y

    res = privcheck.audit(snapped, inputs=[0, 1], eps=1.0, samples=50_000, seed=2)
    assert res.verdict == "refuted"


def test_set_outputs_get_membership_events():
    view = auto_view(_set_leak, [0, 1], np.random.SeedSequence(0), probe=256)
    assert isinstance(view, AutoView) and isinstance(view.features[0], Membership)
    assert 9 in view.features[0].items
    res = privcheck.audit(_set_leak, inputs=[0, 1], eps=1.0, samples=40_000, seed=3)
    assert res.verdict == "refuted" and res.eps_lower > 2  # item 9 only ever comes from x = 1


def test_ordered_outputs_kept_as_returned_and_as_set():
    def ordered(x, n, rng):
        return [(x, int(v)) if rng.random() < 0.5 else (int(v), x) for v in rng.integers(2, 5, n)]

    view = auto_view(ordered, [0, 1], np.random.SeedSequence(1), probe=128)
    out = view(ordered(0, 10, np.random.default_rng(0)))
    assert out.shape[1] == 2 + len(view.features[0].items)  # two positions + membership bits


def test_recognised_hash_support_for_xxhash_reports():
    xxhash = pytest.importorskip("xxhash")
    g = 4
    p = math.e / (math.e + g - 1)

    def olh(x, n, rng):  # (value, seed) like pure-ldp: xxh32(str(x), seed) mod g, then GRR over [g]
        out = []
        for _ in range(n):
            seed = int(rng.integers(0, 2**31))
            h = xxhash.xxh32(str(x), seed=seed).intdigest() % g
            v = h if rng.random() < p else int(rng.choice([u for u in range(g) if u != h]))
            out.append((v, seed))
        return out

    view = auto_view(olh, [0, 1], np.random.SeedSequence(2), probe=512)
    assert "hash support" in view.description and "xxh32(str(item), seed)" in view.description
    res = privcheck.audit(olh, inputs=[0, 1], eps=1.0, samples=30_000, seed=4)
    raw = privcheck.audit(olh, inputs=[0, 1], eps=1.0, samples=30_000, seed=4, view=False)
    assert res.eps_lower > 0.5 > raw.eps_lower  # raw reports: a fresh seed each time, no power


def test_unrecognised_pairs_stay_atoms_and_numeric_outputs_unchanged():
    def pairs(x, n, rng):
        return [(int(v), int(s)) for v, s in zip(rng.integers(0, 3, n), rng.integers(0, 2**40, n))]

    assert auto_view(pairs, [0, 1], np.random.SeedSequence(3), probe=128) is None
    oue = privcheck.mechanism("oue", d=8, eps=1.0)
    assert auto_view(oue, [0, 1], np.random.SeedSequence(4), probe=256) is None  # bit vectors: raw per-bit events


def test_builtin_mechanisms_not_audited_on_float_artefacts():
    lap = privcheck.mechanism("laplace", eps=1.0)
    assert auto_view(lap, lap.inputs(), np.random.SeedSequence(5), probe=512) is None


def test_explicit_view_wins():
    res = privcheck.audit(
        _textbook_laplace, inputs=[0.0, 1.0], eps=1.0, samples=20_000, seed=6, view=lambda o: np.asarray(o) > 0.5
    )
    assert "auto_view" not in res.details


BITS, COHORTS = 16, 8


def _cohort_report(x, n, rng, leak: bool = False):
    """(16 bits, cohort) reports, cohort uniform on 0..7 and independent of x: bit c of cohort c is x through
    binary RR with keep probability e/(1+e), every other bit a fair coin (1-DP: the cohort is public).
    ``leak``: bit 8 also carries x unrandomised in cohort 0 and 1 − x in cohort 1 (ε = ∞: {bit 8 = 1 ∧
    cohort 0} is impossible under x = 0), while bit 8's marginal stays exactly 1/2 under both inputs."""
    cohorts = rng.integers(0, COHORTS, n)
    bits = rng.integers(0, 2, (n, BITS))
    rows = np.arange(n)
    bits[rows, cohorts] = np.where(rng.random(n) < math.e / (1 + math.e), x, 1 - x)
    if leak:
        bits[:, 8] = np.where(cohorts == 0, x, np.where(cohorts == 1, 1 - x, bits[:, 8]))
    return [(bits[i].tolist(), int(cohorts[i])) for i in range(n)]


def _leaky_cohort_report(x, n, rng):
    return _cohort_report(x, n, rng, leak=True)


def test_bit_vector_with_cohort_gets_conjunction_columns():
    view = auto_view(_cohort_report, [0, 1], np.random.SeedSequence(4), probe=256)
    conj = [f for f in view.features if isinstance(f, BitConjunction)]
    assert len(conj) == 1 and conj[0].categories == {1: list(range(COHORTS))}
    outs = [([1, 0, 1], 2), ([0, 0, 1], 0)]
    col = BitConjunction([("bits", 3, 1), ("cat", None, None)], {1: [0, 2]})(outs, 2)
    assert col.tolist() == [[3, 2, 3], [0, 0, 1]]  # 2·code(cohort) + bit


def test_cohort_leak_caught_only_by_the_conjunction_view():
    """A leak hidden from every per-bit marginal by the cohort mixture: the raw coding misses it,
    the bit × cohort conjunctions find ε = ∞ ({bit 8 = 1 ∧ cohort 0} has probability 0 under x = 0)."""
    raw = privcheck.audit(_leaky_cohort_report, inputs=[0, 1], eps=1.0, samples=20_000, seed=5, view=False)
    auto = privcheck.audit(_leaky_cohort_report, inputs=[0, 1], eps=1.0, samples=20_000, seed=5)
    assert raw.verdict != "refuted"
    assert auto.verdict == "refuted" and auto.eps_lower > 2
    assert "bit × category" in auto.details["auto_view"]
    assert "bit 8 of report[0]" in auto.event and "out[" not in auto.event  # readable, not column codes


def test_correct_cohort_report_not_refuted_by_the_conjunction_view():
    res = privcheck.audit(_cohort_report, inputs=[0, 1], eps=1.0, samples=20_000, seed=6)
    assert "bit × category" in res.details["auto_view"]
    assert res.verdict != "refuted" and res.eps_lower <= 1.0
