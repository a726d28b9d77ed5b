"""Packed bit rows (privcheck/base/packed.py), the auditor's packed coding and the packed unary samplers (issue 23).

- PackedBits: layout of np.packbits, validation, numpy reads it unpacked.
- Coding: the same counts (every family: rows, columns, column pairs, events) from packed and unpacked rows
  of the same draws, and the same audit (same seed → identical candidates and eps_lower).
- Samplers: the law of estimators.packed.sample_unary_packed is the unary-encoding law, checked against the
  exact pmf of all 2^d patterns (chi-square and per-cell exact binomial tests, d ≤ 4) and against the
  straightforward float-per-bit sampler; marginals over (d, eps, x) by hypothesis (derandomized, fixed seeds).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

import privcheck
from estimators import oracles
from estimators.packed import bernoulli_bits, bernoulli_words, binary_digits, sample_unary_packed
from privcheck.auditor.bound import monte_carlo_bound
from privcheck.auditor.coding import OutputCoding
from privcheck.auditor.selection import Event
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.packed import PackedBits

LEVEL = 1e-6  # fixed seeds; a wrong law at these sizes fails by orders of magnitude


# ----------------------------------------------------------------- PackedBits
@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 40), d=st.integers(1, 30), seed=st.integers(0, 2**32 - 1))
def test_pack_roundtrip_and_column_ones(n, d, seed):
    bits = np.random.default_rng(seed).integers(0, 2, (n, d)).astype(np.uint8)
    pb = PackedBits.pack(bits)
    assert pb.shape == (n, d) and len(pb) == n and pb.dtype == np.uint8
    assert np.array_equal(np.asarray(pb), bits)
    assert np.array_equal(pb.column_ones(), bits.sum(axis=0))
    for j in range(d):
        assert np.array_equal(pb.column(j), bits[:, j])
    assert np.array_equal(np.asarray(pb[1:3]), bits[1:3])
    if n:
        assert np.array_equal(pb[0], bits[0])
    assert np.array_equal(pb.data, np.packbits(bits, axis=1))  # the documented layout


def test_packed_bits_bad_input_is_one_line():
    with pytest.raises(PrivcheckUsageError, match="shape"):
        PackedBits(np.zeros((3, 2), np.uint8), 20)
    with pytest.raises(PrivcheckUsageError, match="uint8"):
        PackedBits(np.zeros((3, 2), np.int64), 16)
    with pytest.raises(PrivcheckUsageError, match="padding"):
        PackedBits(np.full((3, 1), 0xFF, np.uint8), 5)
    with pytest.raises(PrivcheckUsageError, match="d must be"):
        PackedBits(np.zeros((3, 1), np.uint8), 0)


def test_packed_sampler_output_is_counted_as_its_matrix_by_encode_outputs():
    from privcheck.auditor.outputs import encode_outputs

    bits = np.random.default_rng(0).integers(0, 2, (5, 11)).astype(np.uint8)
    assert np.array_equal(encode_outputs(PackedBits.pack(bits), 5), bits)
    with pytest.raises(PrivcheckUsageError):
        encode_outputs(PackedBits.pack(bits), 6)


# ----------------------------------------------------------------- coding: same counts
def _bit_draws(rng, n, d, constant=()):
    """Random bits with column-dependent rates; columns in ``constant`` are all 0 in the pilot (tail atoms)."""
    rates = rng.uniform(0.05, 0.95, d)
    return (rng.random((n, d)) < rates).astype(np.uint8)


def _events_for(coding, rng, count=12):
    events = []
    for fam in coding.families():
        for _ in range(2):
            atoms = rng.random(coding.family_size(fam)) < 0.5
            events.append(Event(pair=(0, 1), family=fam, atoms=atoms, description="", kind="union", predicted=0.0))
    rng.shuffle(events)
    return events[:count]


@pytest.mark.parametrize("d,pairs", [(1, ()), (3, (0, 2)), (9, (1, 4, 8)), (13, (0, 5, 12)), (100, (3, 50, 97, 99))])
def test_packed_counts_equal_unpacked_counts(d, pairs):
    rng = np.random.default_rng(d)
    pilot = _bit_draws(rng, 3000, d)
    if d > 2:  # a column constant in the pilot: its other value lands in a tail atom
        pilot[:, 1] = 0
    coding = OutputCoding.fit(pilot)
    if pairs:
        coding = coding.with_pair_columns(pairs)
    chunk = _bit_draws(rng, 5000, d)
    packed = PackedBits.pack(chunk)
    a, b = coding.count_chunk(chunk), coding.count_chunk(packed)
    assert a.keys() == b.keys()
    if d <= 13:
        assert () in a or d == 1  # rows are a family on small d
    for k in a:
        assert np.array_equal(a[k], b[k]), k
    events = _events_for(coding, rng)
    assert np.array_equal(coding.count_events(chunk, events), coding.count_events(packed, events))
    for fam in coding.families():  # events of one family alone (e.g. rows only: no column is read)
        one = [ev for ev in events if ev.family == fam]
        if one:
            assert np.array_equal(coding.count_events(chunk, one), coding.count_events(packed, one))


def test_packed_tail_atoms_counted():
    """A column all 1 in the pilot (lo = 1): its zeros are "below" atoms, counted alike packed and unpacked."""
    pilot = np.ones((100, 10), np.uint8)
    coding = OutputCoding.fit(pilot)
    chunk = np.ones((50, 10), np.uint8)
    chunk[:7, 3] = 0
    counts = coding.count_chunk(PackedBits.pack(chunk))
    assert counts[(3,)].tolist() == [43, 7, 0]
    assert counts[()].tolist() == [43, 7]  # the pilot's one row, and rows it never saw


# ----------------------------------------------------------------- coding: same audit
def _unary_sampler(d, p, q, packed):
    def sampler(x, n, rng):
        out = sample_unary_packed(x, n, d, p, q, rng)
        return out if packed else out.unpack()

    return sampler


@pytest.mark.parametrize("d", [4, 100])
def test_audit_identical_packed_and_unpacked(d, monkeypatch):
    p, q = 0.5, 1 / (math.e + 1)
    calls = []
    packed_count = OutputCoding._count_packed
    monkeypatch.setattr(OutputCoding, "_count_packed", lambda self, data: calls.append(1) or packed_count(self, data))
    runs = [
        monte_carlo_bound(_unary_sampler(d, p, q, packed), [0, 1], 20_000, seed=3, jobs=1) for packed in (True, False)
    ]
    assert calls  # the packed rows were counted from their bytes
    assert runs[0].eps_lower == runs[1].eps_lower
    assert runs[0].candidates == runs[1].candidates
    assert runs[0].event == runs[1].event


def test_audit_of_builtin_oue_certifies_and_broken_one_is_caught():
    res = privcheck.audit(privcheck.mechanism("oue", d=100, eps=1.0), samples=100_000, seed=0)
    assert res.verdict == "holds" and res.eps_lower > 0.7
    q = 1 / (math.e + 1)  # OUE's q, but the own bit set w.p. 0.9: true ε = log(0.9 (1 − q) / (0.1 q))
    broken = _unary_sampler(100, 0.9, q, True)
    res = privcheck.audit(broken, inputs=[0, 1], eps=1.0, samples=50_000, seed=0)
    assert res.verdict == "refuted" and res.eps_lower > 1.0


# ----------------------------------------------------------------- samplers: exact law
def test_binary_digits_exact():
    for q in (0.5, 0.375, 1 / (math.e + 1), 1e-300, 1 - 2**-53, 5e-324):
        digits = binary_digits(q)
        assert sum(Fraction(b, 2 ** (i + 1)) for i, b in enumerate(digits)) == Fraction(q)
        assert digits[-1] == 1
    with pytest.raises(ValueError):
        binary_digits(1.0)


def test_bernoulli_words_edge_probabilities():
    rng = np.random.default_rng(0)
    assert not bernoulli_words(0.0, 10, rng).any()
    assert (bernoulli_words(1.0, 10, rng) == np.uint64(2**64 - 1)).all()
    assert not bernoulli_words(1e-300, 10_000, rng).any()  # terminates; P(any 1) ≈ 6e-296
    assert bernoulli_bits(0.5, 13, rng).shape == (13,)


@pytest.mark.parametrize("q", [0.5, 0.375, 1 / (math.e + 1), 0.001])
def test_bernoulli_rate_exact_binomial(q):
    n = 64 * 20_000
    ones = int(np.unpackbits(bernoulli_words(q, n // 64, np.random.default_rng(7)).view(np.uint8)).sum())
    assert scipy.stats.binomtest(ones, n, q).pvalue > LEVEL


def _pattern_probs(d, x, p, q):
    probs = {}
    for pat in itertools.product((0, 1), repeat=d):
        probs[pat] = math.prod((p if j == x else q) if b else 1 - (p if j == x else q) for j, b in enumerate(pat))
    return probs


def _pattern_counts(rows: np.ndarray, d) -> np.ndarray:
    keys = rows.astype(np.int64) @ (1 << np.arange(d - 1, -1, -1))
    return np.bincount(keys, minlength=2**d)


@pytest.mark.parametrize("name,d,x", [("oue", 1 + 1, 0), ("oue", 3, 2), ("sue", 4, 1), ("the", 4, 3), ("oue", 4, 0)])
def test_joint_law_every_pattern(name, d, x):
    """All 2^d patterns: chi-square goodness of fit and exact binomial per cell (Bonferroni) against the exact pmf,
    and homogeneity with the straightforward float-per-bit sampler."""
    m = privcheck.mechanism(name, d=d, eps=1.0)
    n = 40_000
    rows = np.asarray(m.sample(x, n, np.random.default_rng(11)))
    counts = _pattern_counts(rows, d)
    probs = np.array(list(_pattern_probs(d, x, m.p, m.q).values()))
    assert scipy.stats.chisquare(counts, probs * n).pvalue > LEVEL
    for k, pr in zip(counts, probs):
        assert scipy.stats.binomtest(int(k), n, pr).pvalue > LEVEL / 2**d
    ref = _pattern_counts(oracles.sample_unary(x, n, d, m.p, m.q, np.random.default_rng(12)), d)
    keep = (counts + ref) > 0
    assert scipy.stats.chi2_contingency(np.stack([counts[keep], ref[keep]]))[1] > LEVEL


def test_joint_law_test_has_power():
    """The same goodness-of-fit test rejects a sampler whose q is 5 % off."""
    m = privcheck.mechanism("oue", d=3, eps=1.0)
    n = 40_000
    rows = sample_unary_packed(0, n, 3, m.p, m.q * 1.05, np.random.default_rng(11)).unpack()
    probs = np.array(list(_pattern_probs(3, 0, m.p, m.q).values()))
    assert scipy.stats.chisquare(_pattern_counts(rows, 3), probs * n).pvalue < LEVEL


@settings(max_examples=30, deadline=None, derandomize=True)
@given(d=st.integers(2, 70), eps=st.floats(0.05, 8.0), x=st.integers(0, 69), name=st.sampled_from(["oue", "sue"]))
def test_marginals_match(d, eps, x, name):
    """Per-bit counts: bit x ~ Binomial(n, p), the others ~ Binomial(n, q) (exact tests, Bonferroni over d bits)."""
    x %= d
    m = privcheck.mechanism(name, d=d, eps=eps)
    n = 4000
    out = m.sample(x, n, np.random.default_rng([d, x, int(eps * 1000)]))
    assert isinstance(out, PackedBits) and out.shape == (n, d)
    ones = out.column_ones()
    for j in range(d):
        assert scipy.stats.binomtest(int(ones[j]), n, m.p if j == x else m.q).pvalue > LEVEL / d


def test_exact_eps_is_the_samplers_parameters():
    """The exact ε is the one of the (p, q) the packed sampler draws with."""
    for name in ("oue", "sue", "the"):
        m = privcheck.mechanism(name, d=5, eps=1.3)
        assert m.exact_epsilon().eps == pytest.approx(math.log(m.p * (1 - m.q) / ((1 - m.p) * m.q)), rel=1e-12)
