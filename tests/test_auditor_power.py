"""Auditor power and honesty (issue 11), neighbouring pairs and views (DESIGN.md wave 2), bounded memory (issue 12)."""

from __future__ import annotations

import json
import math
import tracemalloc

import numpy as np
import pytest

import privcheck
from privcheck.auditor import monte_carlo_bound, resolve_pairs
from privcheck.base.errors import PrivcheckUsageError


def buggy_sue(d: int, eps: float):
    """Symmetric unary encoding whose true bit is kept with p + q − pq instead of p (true ε 1.68 at ε = 1)."""
    p = math.exp(eps / 2) / (math.exp(eps / 2) + 1)
    q = 1 - p
    keep = p + q - p * q

    def sampler(x, n, rng):
        bits = rng.random((n, d)) < q
        bits[:, x] = rng.random(n) < keep
        return bits

    return sampler, math.log(keep * (1 - q) / (q * (1 - keep)))


def two_sided_geometric(eps: float, sensitivity: int = 1):
    """x + Z with P(Z = k) ∝ exp(−ε|k|/sensitivity): unbounded, long-tailed integer outputs."""
    a = math.exp(-eps / sensitivity)

    def sampler(x, n, rng):
        return x + rng.geometric(1 - a, n) - rng.geometric(1 - a, n)

    return sampler


def test_unary_encoding_bug_refuted_at_small_samples():
    sampler, true_eps = buggy_sue(10, 1.0)
    assert true_eps == pytest.approx(1.68, abs=0.01)
    res = privcheck.audit(sampler, inputs=[0, 1], eps=1.0, samples=200_000, seed=0)
    assert res.verdict == "refuted"
    assert 1.55 <= res.eps_lower <= true_eps
    kinds = {c["kind"] for c in res.details["candidates"]}
    assert {"rows", "pair"} <= kinds  # both whole-row atoms and coordinate pairs reached estimation


@pytest.mark.parametrize("d", [8, 12])
def test_unary_encoding_with_few_distinct_rows_certifies_most_of_eps(d):
    # d = 8..12: whole rows are few enough to be atoms, and coordinate pairs are searched as well
    q = 1.0 / (math.exp(2.0) + 1.0)

    def oue(x, n, rng):
        bits = rng.random((n, d)) < q
        bits[:, x] = rng.random(n) < 0.5
        return bits

    res = privcheck.audit(oue, inputs=[0, 1], eps=2.0, samples=200_000, seed=3)
    assert res.verdict == "holds"
    assert 0.95 <= res.certified_fraction <= 1.0


def test_long_tailed_geometric_certifies_most_of_eps():
    res = privcheck.audit(two_sided_geometric(0.25), inputs=[0, 1], eps=0.25, samples=200_000, seed=0)
    assert 0.2 <= res.eps_lower <= 0.25
    assert res.verdict == "holds"
    assert res.certified_fraction == pytest.approx(res.eps_lower / 0.25)


def test_geometric_sensitivity_misuse_refuted():
    # inputs 0 and 2 at sensitivity 1: the true ε is 0.5, twice the claim
    res = privcheck.audit(two_sided_geometric(0.25), inputs=[0, 2], eps=0.25, samples=200_000, seed=1)
    assert res.verdict == "refuted"
    assert 0.25 < res.eps_lower <= 0.5


def test_no_separating_event_is_inconclusive_with_reason():
    res = privcheck.audit(lambda x, n, rng: rng.integers(0, 4, n), inputs=[0, 1], eps=1.0, samples=20_000, seed=0)
    assert res.eps_lower <= 0
    assert res.verdict == "inconclusive"
    assert "no event separated" in res.reason
    assert res.certified_fraction == 0.0
    d = json.loads(json.dumps(res.to_dict()))
    assert d["certified_fraction"] == 0.0 and d["reason"] and d["verdict"] == "inconclusive"
    for name in ("eps_claimed", "eps_exact", "eps_lower", "confidence", "samples", "seconds", "verdict"):
        assert name in d


def test_eps_zero_claim_is_accepted_and_audited():
    leak = privcheck.audit(
        lambda x, n, rng: rng.random(n) < (0.6 if x else 0.4), inputs=[0, 1], eps=0, samples=20_000, seed=0
    )
    assert leak.eps_claimed == 0.0 and leak.verdict == "refuted" and leak.eps_lower > 0
    assert leak.certified_fraction is None
    fair = privcheck.audit(lambda x, n, rng: rng.random(n) < 0.5, inputs=[0, 1], eps=0.0, samples=20_000, seed=0)
    assert fair.verdict == "inconclusive"
    with pytest.raises(PrivcheckUsageError, match="eps"):
        privcheck.audit(lambda x, n, rng: rng.random(n), inputs=[0, 1], eps=-0.5)


def bounded_geometric(eps: float, lo: int = 0, hi: int = 5):
    """The geometric mechanism clamped to [lo, hi] (ε-DP for neighbouring inputs |x − x'| ≤ 1)."""
    g = two_sided_geometric(eps)

    def sampler(x, n, rng):
        return np.clip(g(x, n, rng), lo, hi)

    return sampler


def test_pairs_exclude_non_neighbours():
    s = bounded_geometric(1.0)
    everything = privcheck.audit(s, inputs=[0, 1, 5], eps=1.0, samples=50_000, seed=0)
    assert everything.verdict == "refuted"  # through the non-neighbouring pair (0, 5)
    ok = privcheck.audit(s, inputs=[0, 1, 5], pairs=[(0, 1)], eps=1.0, samples=50_000, seed=0)
    assert ok.verdict == "holds" and ok.eps_lower <= 1.0
    assert all(sorted(c["pair"]) == [0, 1] for c in ok.details["candidates"])
    assert ok.details["pairs_audited"] == 2  # both orders of the pair
    nb = privcheck.audit(s, inputs=[0, 1, 5], neighbours=lambda a, b: abs(a - b) <= 1, eps=1.0, samples=50_000, seed=0)
    assert nb.verdict == "holds"
    assert nb.eps_lower == ok.eps_lower
    # inputs default to the pairs' elements
    alone = privcheck.audit(s, pairs=[(0, 1)], eps=1.0, samples=50_000, seed=0)
    assert alone.eps_lower == ok.eps_lower


def test_pair_resolution_errors():
    assert resolve_pairs([0, 1, 5], [(1, 5)])[1] == [(1, 2), (2, 1)]
    with pytest.raises(PrivcheckUsageError, match="not one of the inputs"):
        resolve_pairs([0, 1], [(0, 7)])
    with pytest.raises(PrivcheckUsageError, match="itself"):
        resolve_pairs([0, 1], [(1, 1)])
    with pytest.raises(PrivcheckUsageError, match="not both"):
        resolve_pairs([0, 1], [(0, 1)], lambda a, b: True)
    with pytest.raises(PrivcheckUsageError, match="no pair"):
        resolve_pairs([0, 1], None, lambda a, b: False)


def test_view_audits_the_post_processed_output():
    def leaky(x, n, rng):
        noisy = rng.random(n) < (0.6 if x else 0.4)  # ε = log 1.5
        return np.stack([noisy, np.full(n, x, dtype=bool)], axis=1)  # column 1 leaks x

    raw = privcheck.audit(leaky, inputs=[0, 1], eps=1.0, samples=20_000, seed=0)
    assert raw.verdict == "refuted"
    viewed = privcheck.audit(leaky, inputs=[0, 1], eps=1.0, samples=20_000, seed=0, view=lambda out: out[:, 0])
    assert viewed.verdict == "holds" and viewed.eps_lower <= math.log(1.5)


def test_bit_vector_audit_memory_is_flat_in_samples():
    """Peak traced memory of a streamed audit does not grow with the number of draws."""

    def bits(x, n, rng):  # a cheap 8-bit vector sampler: one random byte per draw
        b = rng.integers(0, 256, n, dtype=np.uint8)
        b[: n // 3] = x
        return np.unpackbits(b[:, None], axis=1)

    def peak(samples):
        tracemalloc.start()
        try:
            monte_carlo_bound(bits, [0, 255], samples, seed=0, jobs=1)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, large = peak(1_000_000), peak(10_000_000)
    assert small > 1_000_000  # numpy's buffers are traced (the measurement can see a leak)
    assert large < 64 * 2**20  # fixed bound: chunks of 2^18 draws and a 2^16-draw pilot
    assert large < 1.25 * small + 2**20  # flat: ten times the draws, (about) the same memory


def test_exact_is_skipped_when_pairs_or_view_restrict_the_audit():
    mech = privcheck.mechanism("de", m=4, eps=1.0, p=0.9)  # exact ε 3.3 over all pairs
    res = privcheck.audit(mech, pairs=[(0, 1)], eps=1.0, samples=20_000, seed=0)
    assert res.eps_exact is None and "skipped" in res.details["exact_note"]
    with pytest.raises(PrivcheckUsageError, match="exact"):
        privcheck.audit(mech, pairs=[(0, 1)], exact=True, samples=20_000)


def test_coverage_on_a_long_tailed_output():
    """The streamed selection keeps validity: over 100 small audits of a two-sided geometric the bound
    exceeds the true ε (= the claimed 0.5) in at most about 5 % of runs."""
    from scipy import stats

    s = two_sided_geometric(0.5)
    runs = 100
    exceed = sum(
        monte_carlo_bound(s, [0, 1], 4000, seed=child, jobs=1).eps_lower > 0.5
        for child in np.random.SeedSequence(77).spawn(runs)
    )
    assert exceed <= stats.binom.ppf(0.999, runs, 0.05)


def test_audit_imports_no_statsmodels_or_pandas():
    import subprocess
    import sys

    code = (
        "import sys, privcheck; privcheck.audit(lambda x, n, rng: rng.random(n) < (0.6 if x else 0.4), "
        "inputs=[0, 1], eps=1.0, samples=20000); "
        "print(sorted(m for m in ('statsmodels', 'pandas', 'scipy.stats') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_non_numeric_outputs_go_through_encode_outputs(monkeypatch):
    """The auditor hands anything that is not a numeric array to privcheck.auditor.outputs.encode_outputs."""
    import sys
    import types
    import zlib

    calls = []

    def encode_outputs(raw, n):
        calls.append(n)
        return np.array([zlib.crc32(str(v).encode()) for v in raw], dtype=np.int64)

    fake = types.ModuleType("privcheck.auditor.outputs")
    fake.encode_outputs = encode_outputs
    fake.describe_value = lambda v: f"{v:g}"
    monkeypatch.setitem(sys.modules, "privcheck.auditor.outputs", fake)

    def words(x, n, rng):
        return np.where(rng.random(n) < (0.75 if x else 0.25), "yes", "no").astype(object)

    def bits(x, n, rng):
        return (rng.random(n) < (0.75 if x else 0.25)).astype(np.int64)

    as_text = privcheck.audit(words, inputs=[0, 1], eps=1.0, samples=20_000, seed=0)
    as_bits = privcheck.audit(bits, inputs=[0, 1], eps=1.0, samples=20_000, seed=0)
    assert calls
    assert as_text.eps_lower == as_bits.eps_lower and as_text.verdict == as_bits.verdict == "refuted"
