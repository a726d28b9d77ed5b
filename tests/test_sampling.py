"""check_sampling: correct samplers pass, deliberately wrong ones are caught (fixed-size, shuffled, weighted,
wrong rate, with replacement), the p-values are valid under the null, bad input is one line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import privcheck
from privcheck.base.errors import PrivcheckUsageError
from privcheck.sampling import check_sampling

N, Q, T = 400, 0.05, 120


def poisson(rng, q=Q, n=N, t=T):
    return [np.flatnonzero(rng.random(n) < q) for _ in range(t)]


def fixed(rng, b=20):
    return [rng.choice(N, b, replace=False) for _ in range(T)]


def shuffled(rng, b=20, epochs=6):
    out = []
    for _ in range(epochs):
        p = rng.permutation(N)
        out += [p[i : i + b] for i in range(0, N, b)]
    return out


def test_correct_poisson_passes():
    res = check_sampling(poisson(np.random.default_rng(0)), n=N, q=Q, seed=1)
    assert res.verdict == "holds"
    assert res.observed.startswith("independent inclusion")
    assert {e.test for e in res.evidence} == {"total", "batch_sizes", "inclusion_rates", "independence"}
    q, lo, hi = res.q_observed
    assert lo <= Q <= hi


@pytest.mark.parametrize(
    "make, observed, refuting",
    [
        (fixed, "fixed-size", "batch_sizes"),
        (shuffled, "shuffled epochs", "independence"),
    ],
)
def test_wrong_schemes_are_caught(make, observed, refuting):
    res = check_sampling(make(np.random.default_rng(2)), n=N, q=Q)
    assert res.verdict == "refuted"
    assert res.observed.startswith(observed)
    ev = {e.test: e for e in res.evidence}
    assert ev[refuting].p_adjusted < 0.05 and ev[refuting].tail == "low"
    assert "Poisson accountant's eps does not apply" in res.accounting


def test_weighted_sampler_is_caught_with_a_valid_top_rate():
    rng = np.random.default_rng(3)
    w = np.where(np.arange(N) < 20, 8.0, 1.0)
    rates = np.minimum(1, Q * N * w / w.sum())
    batches = [np.flatnonzero(rng.random(N) < rates) for _ in range(T)]
    res = check_sampling(batches, n=N, q=Q)
    assert res.verdict == "refuted" and res.observed.startswith("non-uniform")
    assert "Opacus issue #813" in res.accounting
    top = res.top_record
    assert top["record"] < 20  # selected on the first half: one of the heavy records
    assert top["rate_lower"] <= rates[top["record"]] <= top["rate_upper"]


def test_wrong_rate_and_replacement_are_caught():
    res = check_sampling(poisson(np.random.default_rng(4), q=0.07), n=N, q=Q)
    assert res.verdict == "refuted" and res.observed.startswith("independent inclusion at a rate other")
    rng = np.random.default_rng(5)
    res = check_sampling([rng.integers(0, N, 20) for _ in range(T)], n=N, q=Q)
    assert res.verdict == "refuted" and res.violations and "with replacement" in res.violations[0]


def test_declared_fixed_and_shuffle_hold_on_their_own_samplers():
    assert check_sampling(fixed(np.random.default_rng(6)), n=N, q=20 / N, scheme="fixed").verdict == "holds"
    # a correct shuffler holds at its 5 % error rate (seed 7 happens to give p = 0.022: a false alarm, as 1 in 20 do)
    assert check_sampling(shuffled(np.random.default_rng(13)), n=N, scheme="shuffle").verdict == "holds"
    same = shuffled(np.random.default_rng(8), epochs=1) * 5  # never reshuffled
    res = check_sampling(same, n=N, scheme="shuffle")
    assert res.verdict == "refuted" and {e.test: e for e in res.evidence}["reshuffle"].tail == "high"
    res = check_sampling(poisson(np.random.default_rng(9)), n=N, q=Q, scheme="fixed")
    assert res.verdict == "refuted" and "not fixed-size" in res.violations[0]


def test_null_pvalues_are_not_anticonservative():
    # 12 correct Poisson pipelines: each raw p-value is valid; far fewer than 12 * 0.1 below 0.1 per test.
    # A p-value below 0.1 three times as often as it should exceeds the bound most of the time; the sharp
    # version (200 pipelines, binomial tails per test and level) is benchmarks/sampling_null.py.
    rng = np.random.default_rng(10)
    low = 0
    for s in range(12):
        res = check_sampling(poisson(rng, n=100, t=30), n=100, q=Q, seed=s)
        low += sum(e.pvalue < 0.1 for e in res.evidence)
    assert low <= 4 * 12 * 0.1 + 3 * np.sqrt(4 * 12 * 0.1)


def test_loaders_and_samplers_are_read():
    class Loader:  # a DataLoader-like object: indices from its batch_sampler, not its data
        dataset = list(range(N))

        def __init__(self, rng):
            self.batch_sampler = poisson(rng)

    res = privcheck.check_sampling(Loader(np.random.default_rng(11)), n=N, q=Q)
    assert res.verdict == "holds" and res.steps == T


@pytest.mark.parametrize(
    "bad, kwargs, msg",
    [
        ([[0, 1], [5000]], {}, "[0, n)"),
        ([[0.5]], {}, "integers"),
        ([], {}, "no batches"),
        ("abc", {}, "iterable"),
        ([[0, 1]], {"scheme": "bootstrap"}, "scheme must be"),
        ([[0, 1]], {"q": 1.5}, "q"),
    ],
)
def test_bad_input_is_one_line(bad, kwargs, msg):
    with pytest.raises(PrivcheckUsageError, match=None) as err:
        check_sampling(bad, n=N, **kwargs)
    assert msg in str(err.value) and "\n" not in str(err.value)


def test_cli_and_claims_file(tmp_path):
    from privcheck.cli import main

    rng = np.random.default_rng(12)
    f = tmp_path / "b.json"
    f.write_text(json.dumps([b.tolist() for b in fixed(rng)]))
    r = CliRunner().invoke(main, ["check-sampling", str(f), "--n", str(N), "--q", str(Q)])
    assert r.exit_code == 1 and "fixed-size batches: use sampling-without-replacement accounting" in r.output
    np.save(tmp_path / "m.npy", rng.random((T, N)) < Q)
    r = CliRunner().invoke(main, ["check-sampling", str(tmp_path / "m.npy"), "--n", str(N), "--q", str(Q)])
    assert r.exit_code == 0 and r.output.startswith("holds")
    r = CliRunner().invoke(main, ["check-sampling", str(tmp_path / "m.csv"), "--n", "5"])
    assert r.exit_code == 2
    toml = tmp_path / "c.toml"
    toml.write_text(f'[[sampling]]\nid = "t.s"\nfile = "b.json"\nn = {N}\nq = {Q}\nexpect = "refuted"\n')
    r = CliRunner().invoke(main, ["verify", "--file", str(toml)])
    assert r.exit_code == 0 and "refuted" in r.output
