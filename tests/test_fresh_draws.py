"""The fresh-draws contract (privcheck/auditor/fresh_draws.py) and the stages' use of fresh draws.

- A sampler that resamples a fixed pool of continuous values is refused (it would get a correct mechanism
  refuted: its audit is of the pool's empirical law); correct continuous, float32, lattice and data-record
  samplers are not.
- A sampler that returns one fixed sample shuffled is refused; correct discrete samplers are not.
- The estimation stage draws fresh: a sampler that records the seed streams it is called with shows every
  stage drawing from streams of its own, the estimation draws disjoint from the pilot and selection draws,
  in exactly the numbers the record states (for the event and the curve strategies).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import privcheck
from privcheck.auditor.curves import curve_bound, mu_claim
from privcheck.auditor.fresh_draws import check_seeding, pool_reason
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.seeding import derive


def laplace(x, n, rng):
    return x + rng.laplace(0.0, 1.0, n)


def pool_sampler(size: int, seed: int = 1):
    """A correct Laplace mechanism's outputs drawn once per input (a fixed pool), then resampled."""
    g = np.random.default_rng(seed)
    pool = {x: x + g.laplace(0.0, 1.0, size) for x in (0.0, 1.0)}

    def pooled(x, n, rng):
        return rng.choice(pool[float(x)], n)

    return pooled


# ------------------------------------------------------------------ (a) resampled pools
@pytest.mark.parametrize("size", [500, 5000, 20_000])
def test_a_resampled_pool_is_refused(size):
    with pytest.raises(PrivcheckUsageError, match="resamples a fixed pool") as err:
        privcheck.audit(pool_sampler(size), inputs=[0.0, 1.0], eps=1.0, samples=200_000, seed=0, view=False)
    assert "fresh i.i.d. draws" in str(err.value) and "\n" not in str(err.value)


def test_a_resampled_pool_is_refused_by_curve_audits_and_auto_views():
    with pytest.raises(PrivcheckUsageError, match="resamples a fixed pool"):
        privcheck.audit(pool_sampler(1000), inputs=[0.0, 1.0], mu=1.0, samples=20_000, seed=0)
    with pytest.raises(PrivcheckUsageError, match="resamples a fixed pool"):
        privcheck.audit(pool_sampler(1000), inputs=[0.0, 1.0], eps=1.0, samples=20_000, seed=0)


def test_an_explicit_view_states_the_values_are_the_mechanisms():
    """With an explicit view the pool's values are audited as the mechanism's finite output set (and refuted:
    the two pools share no value, so that mechanism's ε is infinite)."""
    view = privcheck.auditor.views.per_output(float)
    res = privcheck.audit(pool_sampler(1000), inputs=[0.0, 1.0], eps=1.0, samples=20_000, seed=0, view=view)
    assert res.verdict == "refuted"


def float32_laplace(x, n, rng):
    return (x + rng.laplace(0.0, 1.0, n)).astype(np.float32)


def lattice_laplace(x, n, rng):  # a discrete mechanism on a decimal lattice: repeated values, shared by inputs
    return np.round(x + rng.laplace(0.0, 1.0, n), 1)


def one_record(x, n, rng):  # returns a record of the data set: a real leak (x' has one record x has not)
    data = (
        np.linspace(0.0, 1.0, 101)[1:] * math.pi if x == 0 else np.r_[np.linspace(0.0, 1.0, 101)[1:-1] * math.pi, 7.5]
    )
    return rng.choice(data, n)


@pytest.mark.parametrize("sampler", [laplace, float32_laplace, lattice_laplace])
def test_correct_samplers_pass_the_pool_check(sampler):
    res = privcheck.audit(sampler, inputs=[0.0, 1.0], eps=1.0, samples=100_000, seed=2, view=False)
    assert res.verdict in ("holds", "inconclusive", "refuted")  # audited, not refused


def test_a_finite_law_shared_by_the_inputs_is_audited_not_refused():
    """Data records resampled are a mechanism's law (shared by both inputs but one record): its leak is found."""
    res = privcheck.audit(one_record, inputs=[0, 1], eps=1.0, samples=100_000, seed=3, view=False)
    assert res.verdict == "refuted"


def test_pool_reason_never_fires_on_fresh_continuous_draws():
    for seed in range(30):
        rng = np.random.default_rng(seed)
        draws = {0: rng.laplace(0, 1, (65_536, 1)), 1: 1 + rng.standard_normal((65_536, 1)).astype(np.float32)}
        assert pool_reason({0: draws[0], 1: draws[1].astype(np.float64)}, [(0, 1), (1, 0)], [0.0, 1.0]) is None


# ------------------------------------------------------------------ (a) a fixed sample, shuffled
def shuffled_sample(x, n, rng):
    fixed = np.random.default_rng(7)  # seeds itself for the values, then shuffles with the rng it was given
    keep = math.exp(1.0) / (1 + math.exp(1.0))
    return rng.permutation(np.where(fixed.random(n) < keep, x, 1 - x))


def randomised_response(x, n, rng):
    keep = math.exp(1.0) / (1 + math.exp(1.0))
    return np.where(rng.random(n) < keep, x, 1 - x)


def test_a_fixed_sample_shuffled_is_refused():
    with pytest.raises(PrivcheckUsageError, match="fixed sample shuffled"):
        privcheck.audit(shuffled_sample, inputs=[0, 1], eps=1.0, samples=20_000)


@pytest.mark.parametrize("p", [0.5, 0.2, 0.9])
def test_correct_discrete_samplers_pass_the_seeding_probe(p):
    def coin(x, n, rng):
        return (rng.random(n) < p).astype(np.int64) + x

    assert check_seeding(coin, 0) == (True, 1)
    assert check_seeding(randomised_response, 1) == (True, 1)


# ------------------------------------------------------------------ (b) estimation never reuses selection draws
class Recorder:
    """A sampler recording, for every call, the input, the number of draws and the seed stream it drew from."""

    def __init__(self, inner):
        self.inner = inner
        self.calls: list[tuple] = []
        self.__name__ = "recorder"

    def __call__(self, x, n, rng):
        ss = rng.bit_generator.seed_seq
        self.calls.append((x, n, ss.entropy, tuple(ss.spawn_key)))
        return self.inner(x, n, rng)


def _stage_draws(calls, seed, prefix, name, inputs):
    """{input: draws} of the calls whose stream lies below ``derive(seed, *prefix, name, i)``."""
    out = {}
    for i, x in enumerate(inputs):
        key = tuple(derive(np.random.SeedSequence(seed), *prefix, name, i).spawn_key)
        out[x] = sum(n for cx, n, ent, sk in calls if ent == seed and sk[:-1] == key and cx == x)
    return out


def _assert_fresh(calls):
    streams = [(ent, sk) for _, _, ent, sk in calls if sk]  # the seeding probe's fixed seeds have no spawn key
    assert len(streams) == len(set(streams)), "two calls drew from the same stream: draws were reused"


def test_estimation_draws_are_fresh_in_the_event_strategy():
    rec = Recorder(randomised_response)
    res = privcheck.audit(rec, inputs=[0, 1], eps=1.0, samples=30_000, seed=11, view=False)
    _assert_fresh(rec.calls)
    d = res.details
    pilot = _stage_draws(rec.calls, 11, (), "pilot", [0, 1])
    selection = _stage_draws(rec.calls, 11, (), "selection", [0, 1])
    estimation = _stage_draws(rec.calls, 11, (), "estimation", [0, 1])
    assert pilot == {0: d["pilot_samples"], 1: d["pilot_samples"]}
    assert {x: pilot[x] + selection[x] for x in (0, 1)} == {0: d["selection_samples"], 1: d["selection_samples"]}
    assert estimation == {0: d["estimation_samples"], 1: d["estimation_samples"]} and d["estimation_samples"] > 0
    assert sum(n for _, n, _, sk in rec.calls if sk) == res.details["draws"]  # nothing else drawn (no auto view)


def test_estimation_draws_are_fresh_in_the_curve_strategy():
    rec = Recorder(lambda x, n, rng: x + rng.standard_normal(n))
    b = curve_bound(rec, [0.0, 1.0], 20_000, claim=mu_claim(1.0), seed=12)
    _assert_fresh(rec.calls)
    est = _stage_draws(rec.calls, 12, ("curve",), "estimation", [0.0, 1.0])
    sel = {
        x: sum(_stage_draws(rec.calls, 12, ("curve",), s, [0.0, 1.0])[x] for s in ("direction", "threshold"))
        for x in (0.0, 1.0)
    }
    assert est == {0.0: b.estimation_samples, 1.0: b.estimation_samples}
    assert sel == {0.0: b.selection_samples, 1.0: b.selection_samples}
