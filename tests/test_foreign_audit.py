"""Auditing foreign code: any output type, per-sample functions, neighbouring pairs, views."""

from __future__ import annotations

import math
import pickle
import random

import numpy as np
import pytest

import privcheck
from privcheck.auditor import audit, views
from privcheck.auditor.per_sample import PerSample
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.scheduler import map_chunks
from privcheck.base.seeding import derive

EPS = 1.0
P = math.exp(EPS) / (1 + math.exp(EPS))
K = 4  # k-RR over 4 values
PK = math.exp(EPS) / (math.exp(EPS) + K - 1)
LABELS = np.array(["red", "green", "blue", "black"])


def krr(x, n, rng):
    """Numeric twin: k-RR over {0..3} at ε = 1."""
    keep = rng.random(n) < PK
    other = (x + 1 + rng.integers(0, K - 1, n)) % K
    return np.where(keep, x, other)


def krr_strings(x, n, rng):
    return LABELS[krr(x, n, rng)]


def krr_string_list(x, n, rng):
    return [str(v) for v in LABELS[krr(x, n, rng)]]


def krr_tuples(x, n, rng):
    return [(int(v), "tag", 0.5) for v in krr(x, n, rng)]


def krr_tuples_twin(x, n, rng):
    v = krr(x, n, rng)
    return np.column_stack([v, np.full(n, 7), np.full(n, 0.5)])


def krr_sets(x, n, rng):
    sets = [frozenset(), frozenset({"a"}), frozenset({"a", "b"}), frozenset({"c", "b", "a"})]
    return [set(sets[v]) for v in krr(x, n, rng)]


def krr_complex(x, n, rng):
    return krr(x, n, rng) * 1j - 0.25


def krr_complex_twin(x, n, rng):
    return np.column_stack([np.full(n, -0.25), krr(x, n, rng)])


def _mc(sampler, **kw):
    kw.setdefault("inputs", [0, 1, 2])
    return audit(sampler, eps=EPS, samples=6000, seed=11, jobs=1, **kw)


@pytest.mark.parametrize(
    "other, twin",
    [
        (krr_strings, krr),
        (krr_string_list, krr),
        (krr_sets, krr),
        (krr_tuples, krr_tuples_twin),
        (krr_complex, krr_complex_twin),
    ],
)
def test_non_numeric_outputs_audit_like_their_numeric_twin(other, twin):
    a, b = _mc(other), _mc(twin)
    # Same draws, same atoms up to their labels: today the same events and the same bound, bit for
    # bit. Atom *order* differs (labels sort by hash, numbers by value), so a selection rule that
    # breaks ties or merges neighbouring atoms by value may pick another event; the documented
    # allowance is 0.1, about three standard deviations of this bound at 4800 estimation draws.
    assert a.verdict == b.verdict == "holds"
    assert a.eps_lower == pytest.approx(b.eps_lower, abs=0.1)
    assert 0.5 < a.eps_lower <= EPS


def test_string_event_is_described_by_its_label():
    res = _mc(krr_strings)
    assert "'" in res.event and any(lab in res.event for lab in LABELS)


def test_leaky_string_mechanism_is_refuted():
    def leaky(x, n, rng):  # keeps the true label with probability 0.9 (ε = log(0.9 / (0.1/3)) ≈ 3.3)
        keep = rng.random(n) < 0.9
        return np.where(keep, LABELS[x], LABELS[(x + 1 + rng.integers(0, K - 1, n)) % K])

    res = audit(leaky, inputs=[0, 1], eps=EPS, samples=6000, seed=1, jobs=1)
    assert res.verdict == "refuted" and res.eps_lower > 2.5


# --------------------------------------------------------------------------- per_sample
def rr_one(x, rng):
    return x if rng.random() < P else 1 - x


def rr_global(x):
    return x if np.random.random() < P and random.random() < 2 else 1 - x


def test_per_sample_detects_signatures():
    assert PerSample(rr_one).takes_rng and not PerSample(rr_global).takes_rng
    assert PerSample(lambda x, rng=None: x).takes_rng
    assert not PerSample(lambda x, eps=1.0: x).takes_rng
    with pytest.raises(PrivcheckUsageError, match="requires 3 arguments"):
        privcheck.per_sample(lambda x, rng, eps: x)
    with pytest.raises(PrivcheckUsageError, match="rng_type"):
        privcheck.per_sample(rr_one, rng_type="mersenne")
    with pytest.raises(PrivcheckUsageError, match="callable"):
        privcheck.per_sample(3)


@pytest.mark.parametrize(
    "kw, fn",
    [
        ({}, rr_one),
        ({"seed_global": True}, rr_global),
        ({"rng_type": "random_state"}, lambda x, rs: x if rs.random_sample() < P else 1 - x),
    ],
)
def test_per_sample_chunks_are_identical_for_any_jobs(kw, fn):
    sampler = privcheck.per_sample(fn, **kw)
    ss = derive(5, "test")
    one = map_chunks(lambda rng, size: sampler(1, size, rng), 2000, ss, jobs=1, chunk=250)
    two = map_chunks(lambda rng, size: sampler(1, size, rng), 2000, ss, jobs=2, chunk=250)
    assert len(one) == len(two) == 8 and all(np.array_equal(a, b) for a, b in zip(one, two))
    assert 0.6 < np.mean(np.concatenate(one)) < 0.85  # P ≈ 0.73


def test_per_sample_batches_of_plain_numbers_become_one_array():
    from privcheck.auditor.per_sample import as_scalar_array

    assert as_scalar_array([1, 0, 1]).dtype == np.int64 and as_scalar_array([0.5, 1.0]).dtype == np.float64
    for keep in ([True, False], [1, 2.0], [2**70, 1], ["a"], [np.float64(1.0)], [(1, 2)]):
        assert as_scalar_array(keep) is keep  # bools, mixed types, big ints, strings, numpy scalars, tuples


@pytest.mark.parametrize("fn", [rr_one, lambda x, rng: float(x + rng.laplace(scale=2.0))])
def test_per_sample_array_batches_audit_like_lists(fn, monkeypatch):
    # the array is a speed-up only: the same events, bound and verdict as the list it replaces
    import privcheck.auditor.per_sample as ps_module

    fast = audit(privcheck.per_sample(fn), inputs=[0, 1], eps=EPS, samples=6000, seed=3, jobs=1)
    monkeypatch.setattr(ps_module, "as_scalar_array", lambda out: out)
    slow = audit(privcheck.per_sample(fn), inputs=[0, 1], eps=EPS, samples=6000, seed=3, jobs=1)
    assert (fast.verdict, fast.eps_lower, fast.details.get("event")) == (
        slow.verdict,
        slow.eps_lower,
        slow.details.get("event"),
    )


def test_per_sample_audit_identical_for_jobs_1_and_2():
    runs = []
    for jobs in (1, 2):
        res = audit(privcheck.per_sample(rr_one), inputs=[0, 1], eps=EPS, samples=4000, seed=2, jobs=jobs)
        d = res.to_dict()
        for k in ("seconds",):
            d.pop(k)
        d["details"].pop("draws_per_second")
        runs.append(d)
    assert runs[0] == runs[1]
    assert runs[0]["reproducible"] and 0.5 < runs[0]["eps_lower"] <= EPS


def test_per_sample_reports_throughput_and_flags_global_rng():
    ps = privcheck.per_sample(rr_global)  # global RNG, not seeded: valid but not reproducible
    res = audit(ps, inputs=[0, 1], eps=EPS, samples=3000, seed=0, jobs=1)
    assert res.details["draws_per_second"] > 0 and res.details["draws"] >= 6000
    assert ps.throughput() > 0 and ps.draws >= 6000
    assert res.reproducible is False
    seeded = audit(
        privcheck.per_sample(rr_global, seed_global=True), inputs=[0, 1], eps=EPS, samples=3000, seed=0, jobs=1
    )
    assert seeded.reproducible is True


def test_per_sample_pickles_for_worker_processes():
    ps = privcheck.per_sample(rr_one)
    assert ps.prefers_processes is True
    back = pickle.loads(pickle.dumps(ps))
    assert np.array_equal(back(1, 5, np.random.default_rng(3)), ps(1, 5, np.random.default_rng(3)))
    cloudpickle = pytest.importorskip("cloudpickle")
    lam = privcheck.per_sample(lambda x, rng: (x, rng.integers(2)), seed_global=True)
    back = cloudpickle.loads(cloudpickle.dumps(views.apply_view(lam, views.as_atom)))
    assert back.prefers_processes and back(0, 4, np.random.default_rng(1)).shape == (4,)


# --------------------------------------------------------------------------- pairs
def clipped_geometric(x, n, rng):
    """x + two-sided geometric noise (ε = 1 per unit of x), clipped to [-20, 25]."""
    a = math.exp(-EPS)
    noise = rng.geometric(1 - a, n) - rng.geometric(1 - a, n)
    return np.clip(x + noise, -20, 25)


def test_pairs_restrict_the_search_to_neighbours():
    everything = audit(clipped_geometric, inputs=[0, 1, 5], eps=EPS, samples=6000, seed=0, jobs=1)
    assert everything.verdict == "refuted"  # through the non-neighbouring pair (0, 5)
    neigh = audit(clipped_geometric, inputs=[0, 1, 5], pairs=[(0, 1)], eps=EPS, samples=6000, seed=0, jobs=1)
    assert neigh.verdict == "holds" and set(neigh.worst_pair) == {0, 1}
    assert all(set(c["pair"]) == {0, 1} for c in neigh.details["candidates"])
    implicit = audit(clipped_geometric, pairs=[(0, 1), (1, 2)], eps=EPS, samples=6000, seed=0, jobs=1)
    assert implicit.verdict == "holds"
    by_fn = audit(
        clipped_geometric,
        inputs=[0, 1, 5],
        neighbours=lambda a, b: abs(a - b) <= 1,
        eps=EPS,
        samples=6000,
        seed=0,
        jobs=1,
    )
    assert by_fn.to_dict()["eps_lower"] == neigh.to_dict()["eps_lower"]
    with pytest.raises(PrivcheckUsageError, match="not one of the inputs"):
        audit(clipped_geometric, inputs=[0, 1], pairs=[(0, 3)], eps=EPS, samples=100)


# --------------------------------------------------------------------------- views
G = 4
PH = math.exp(EPS) / (math.exp(EPS) + G - 1)


def toy_hash(x, seed):
    """A public hash family H_seed: int → [0, 2^32) (vectorised over seeds)."""
    with np.errstate(over="ignore"):
        h = np.asarray(seed, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(x * 0x632BE5AB + 1)
        h ^= h >> np.uint64(29)
        h *= np.uint64(0xBF58476D1CE4E5B9)
    return (h >> np.uint64(32)).astype(np.int64)


def olh(x, n, rng):
    """Optimised local hashing, ε = 1, g = 4: a fresh seed per report and k-RR of H_seed(x) over [g]."""
    seeds = rng.integers(0, 2**31, n)
    hx = toy_hash(x, seeds) % G
    keep = rng.random(n) < PH
    v = np.where(keep, hx, (hx + 1 + rng.integers(0, G - 1, n)) % G)
    return np.column_stack([seeds, v])


def test_local_hashing_view_turns_a_vacuous_audit_into_a_meaningful_one():
    raw = audit(olh, inputs=[0, 1, 2], eps=EPS, samples=8000, seed=4, jobs=1)
    assert not raw.eps_lower > 0.2  # raw reports: every seed is new, nothing separates the inputs
    view = views.local_hashing_support(toy_hash, domain=[0, 1, 2], g=G, vectorised=True)
    viewed = audit(olh, inputs=[0, 1, 2], eps=EPS, samples=8000, seed=4, jobs=1, view=view)
    assert viewed.verdict == "holds" and 0.6 < viewed.eps_lower <= EPS
    # the same view fed per report (a non-vectorised hash, reports as tuples) gives the same bound
    slow = views.local_hashing_support(lambda x, s: int(toy_hash(x, s)), domain=[0, 1, 2], g=G)
    tuples = views.per_output(tuple)
    viewed2 = audit(views.apply_view(olh, tuples), inputs=[0, 1, 2], eps=EPS, samples=8000, seed=4, jobs=1, view=slow)
    assert viewed2.eps_lower == viewed.eps_lower


def test_local_hashing_view_catches_a_leaky_olh():
    def leaky(x, n, rng):  # reports the true hash with probability 0.9: ε = log(0.9 · 3 / 0.1) ≈ 3.3
        seeds = rng.integers(0, 2**31, n)
        hx = toy_hash(x, seeds) % G
        v = np.where(rng.random(n) < 0.9, hx, (hx + 1 + rng.integers(0, G - 1, n)) % G)
        return np.column_stack([seeds, v])

    view = views.local_hashing_support(toy_hash, domain=[0, 1], g=G, vectorised=True)
    res = audit(leaky, inputs=[0, 1], eps=EPS, samples=8000, seed=0, jobs=1, view=view)
    assert res.verdict == "refuted" and res.eps_lower > 2.0


def test_as_atom_view_handles_outputs_of_changing_length():
    def variable(x, n, rng):  # a report of random length: x repeated, or a short noise list
        k = rng.integers(1, 3, n)
        flip = rng.random(n) < P
        return [[x] * int(kk) if f else [1 - x] * int(kk) for kk, f in zip(k, flip)]

    res = audit(variable, inputs=[0, 1], eps=EPS, samples=4000, seed=0, jobs=1, view=views.as_atom)
    assert res.verdict == "holds" and res.eps_lower > 0.5

    def by_input(x, n, rng):  # equal-length tuples whose length depends on the input
        return [(x,) * (x + 1)] * n

    with pytest.raises(PrivcheckUsageError, match="different widths for different inputs.*as_atom"):
        audit(by_input, inputs=[0, 1], eps=EPS, samples=100, seed=0, jobs=1)


def test_membership_view_finds_item_events_in_subset_outputs():
    d, k = 12, 3

    def k_subset(x, n, rng):
        """Report a k-subset of [d]: with the true item w.p. ~ e^ε-weighted (ε = 1 subset selection)."""
        w_in = math.exp(EPS) * math.comb(d - 1, k - 1)
        p_in = w_in / (w_in + math.comb(d - 1, k))
        out = []
        for has in rng.random(n) < p_in:
            others = [v for v in range(d) if v != x]
            pick = rng.choice(others, size=k - 1 if has else k, replace=False).tolist()
            out.append(frozenset(pick + ([x] if has else [])))
        return out

    bits = audit(k_subset, inputs=[0, 1], eps=EPS, samples=3000, seed=0, jobs=1, view=views.membership(range(d)))
    assert bits.verdict == "holds" and 0.4 < bits.eps_lower <= EPS
    m = views.membership(["a", "b", "c"])([{"a"}, ("c", "b", "z"), np.array(["b"]), []])
    assert m.tolist() == [[1, 0, 0], [0, 1, 1], [0, 1, 0], [0, 0, 0]]
    assert views.chain(views.per_output(sorted), views.membership([0, 1]))([{1}, {0, 1}]).tolist() == [[0, 1], [1, 1]]


def test_bad_views_and_reports_are_one_line():
    with pytest.raises(PrivcheckUsageError, match="view must be a callable"):
        audit(olh, inputs=[0, 1], eps=EPS, samples=100, view=3)
    with pytest.raises(PrivcheckUsageError, match=r"\(seed, value\) pairs"):
        views.local_hashing_support(toy_hash, [0, 1])(np.zeros((3, 3)))
    with pytest.raises(PrivcheckUsageError, match="g .* integer >= 2"):
        views.local_hashing_support(toy_hash, [0, 1], g=1)
