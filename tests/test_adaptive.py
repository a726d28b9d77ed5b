"""Adaptive power (``samples="auto"``): target reached, refutation, budgets, alpha spending, reproducibility.

Both policies where the behaviour is common (target, refutation, reproducibility, error rate); the rounds'
own mechanics (alpha spending per round, round sizes, messages, probe) with ``policy=rounds``. The sequential
policy's own tests are in ``tests/test_sequential.py``.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import privcheck
from privcheck.auditor import adaptive, policy
from privcheck.auditor.adaptive import Auto, parse_samples, round_alpha
from privcheck.base.errors import PrivcheckUsageError
from privcheck.cli import main


def rr(eps: float, leak: float = 0.0):
    """Binary randomised response with true ε = ``eps``; with ``leak`` > 0, input 1 also emits the
    output 2 (never produced by input 0) with that probability, so the true ε is infinite."""
    p = math.exp(eps) / (1.0 + math.exp(eps))

    def sampler(x, n, rng):
        out = np.where(rng.random(n) < p, x, 1 - x)
        if leak:
            out = np.where((x == 1) & (rng.random(n) < leak), 2, out)
        return out

    return sampler


@pytest.mark.parametrize("policy_name", ["sequential", "rounds"])
def test_eps_quarter_reaches_target_within_budget(policy_name):
    """k-RR with m = 2 at ε = 0.25: both policies stop once ≥ 0.95 of ε is certified, well inside 10⁷."""
    res = privcheck.audit(privcheck.mechanism("de", m=2, eps=0.25), samples=f"auto:policy={policy_name}", seed=3)
    rec = res.details["adaptive"]
    assert rec["stopped"] == "target reached"
    assert res.certified_fraction >= 0.95
    assert res.eps_lower <= res.eps_exact  # a lower bound (at 95 %) of the exact ε
    assert res.verdict == "holds"
    assert res.samples == sum(r["samples"] for r in rec["rounds"]) <= Auto().max_draws
    assert rec["message"] is None
    assert "stopped: target reached" in res.summary()


@pytest.mark.parametrize("policy_name", ["sequential", "rounds"])
@pytest.mark.parametrize("sampler, claimed", [(rr(0.5), 0.25), (rr(0.25, leak=1e-3), 0.25), (rr(0.25), 0.0)])
def test_broken_mechanism_is_refuted_and_stops_early(sampler, claimed, policy_name):
    res = privcheck.audit(sampler, inputs=[0, 1], eps=claimed, samples=f"auto:policy={policy_name}", seed=1)
    rec = res.details["adaptive"]
    assert res.verdict == "refuted" and rec.get("policy", "rounds") == policy_name
    assert rec["stopped"] == "claim refuted"
    assert res.eps_lower > claimed
    assert res.samples < Auto(policy=policy_name).round_sizes()[-1]


def test_alpha_spending_and_fresh_draws_per_round(monkeypatch):
    """Each round runs at α·2^-r on its own seed stream; the levels sum to at most α."""
    calls = []
    real = policy.monte_carlo_bound

    def spy(sampler, inputs, samples, **kw):
        calls.append((samples, kw["confidence"], kw["seed"]))
        return real(sampler, inputs, samples, **kw)

    monkeypatch.setattr(policy, "monte_carlo_bound", spy)
    res = privcheck.audit(
        rr(0.25),
        inputs=[0, 1],
        eps=0.25,
        confidence=0.9,
        seed=5,
        samples=Auto(max_draws=60_000, first=4_000, growth=2, policy="rounds"),
    )
    rec = res.details["adaptive"]
    alphas = [1.0 - c for _, c, _ in calls]
    assert len(calls) == len(rec["rounds"]) >= 3
    assert sum(alphas) <= 0.1 + 1e-12
    assert alphas == pytest.approx([0.1 * 2.0**-r for r in range(1, len(calls) + 1)])
    assert [r["alpha"] for r in rec["rounds"]] == pytest.approx(alphas)
    assert rec["alpha_spent"] == pytest.approx(sum(alphas)) and rec["alpha"] == pytest.approx(0.1)
    seeds = [(s.entropy, tuple(s.spawn_key)) for _, _, s in calls]
    assert len(set(seeds)) == len(seeds)  # a fresh selection + estimation split of new draws every round
    assert [n for n, _, _ in calls] == [r["samples"] for r in rec["rounds"]]
    assert res.confidence == 0.9 and res.eps_lower == max(r["eps_lower"] for r in rec["rounds"])


@pytest.mark.parametrize("policy_name", ["sequential", "rounds"])
def test_reproducible_from_one_seed(policy_name):
    auto = f"auto:draws=100000,policy={policy_name}"
    runs = [privcheck.audit(rr(0.5), inputs=[0, 1], eps=0.5, samples=auto, seed=s) for s in (7, 7, 8)]
    strip = [[{k: v for k, v in r.items() if k != "seconds"} for r in x.details["adaptive"]["rounds"]] for x in runs]
    assert runs[0].eps_lower == runs[1].eps_lower and strip[0] == strip[1]
    assert runs[0].eps_lower != runs[2].eps_lower


def test_draws_budget_message_when_target_out_of_reach():
    res = privcheck.audit(privcheck.mechanism("de", m=2, eps=0.25), samples="auto:draws=20000,policy=rounds", seed=0)
    rec = res.details["adaptive"]
    assert rec["stopped"] == "draws budget"
    assert res.certified_fraction < 0.95 and res.samples == 20_000
    assert rec["message"].startswith("budget cannot reach the target: 20000 draws/input")
    assert rec["needed_draws"] is not None and rec["needed_draws"] > 20_000
    assert re.search(
        r"would be needed \(≈ [0-9.]+ (s|min|h|days) at this run's [0-9.e+]+ draws/input/s\)", rec["message"]
    )
    assert "\n" not in rec["message"] and rec["message"] in res.summary()


def test_budget_message_when_no_number_of_draws_can():
    """Claimed ε far above the true ε: the best event's log-ratio is below the target."""
    res = privcheck.audit(rr(0.25), inputs=[0, 1], eps=2.0, samples="auto:draws=50000,policy=rounds", seed=0)
    rec = res.details["adaptive"]
    assert rec["stopped"] == "draws budget" and rec["needed_draws"] is None
    m = re.search(
        r"the best event found has estimated log-ratio ([-0-9.e+]+), below the target eps ([0-9.]+): no "
        r"number of draws of this event can reach it",
        rec["message"],
    )
    assert m and float(m.group(1)) < float(m.group(2)) == pytest.approx(0.95 * 2.0)


def test_seconds_budget_and_its_reproduction_by_draws():
    auto = Auto(max_seconds=1e-6, first=20_000, policy="rounds")
    res = privcheck.audit(rr(0.25), inputs=[0, 1], eps=0.25, samples=auto, seed=2)
    rec = res.details["adaptive"]
    assert rec["stopped"] == "seconds budget" and len(rec["rounds"]) == 1
    assert rec["message"].startswith("budget cannot reach the target")
    again = privcheck.audit(
        rr(0.25), inputs=[0, 1], eps=0.25, samples=Auto(max_draws=res.samples, first=20_000, policy="rounds"), seed=2
    )
    assert again.eps_lower == res.eps_lower


@settings(max_examples=60, deadline=None)
@given(st.integers(1000, 10**9), st.integers(1000, 10**6), st.integers(2, 16), st.floats(1e-6, 0.999))
def test_rounds_fit_budget_and_spend_at_most_alpha(max_draws, first, growth, alpha):
    sizes = Auto(max_draws=max_draws, first=first, growth=growth).round_sizes()
    assert sizes and sum(sizes) <= max_draws and min(sizes) >= adaptive.MIN_ROUND
    assert sum(round_alpha(alpha, r) for r in range(1, len(sizes) + 1)) < alpha


@pytest.mark.parametrize(
    "text, msg",
    [
        ("auto:target=0", "target must be"),
        ("auto:target=1.5", "target must be"),
        ("auto:bogus=1", "bad setting"),
        ("auto:draws=abc", "needs a number"),
        ("auto:draws=10", "max_draws must be"),
        ("auto:seconds=0", "max_seconds"),
        ("auto:growth=1", "growth must be"),
        ("auto:policy=bogus", "policy must be one of sequential, rounds"),
        ("sometimes", "--samples must be an integer >= 20 or 'auto'"),
        ("5", "--samples must be an integer >= 20"),
    ],
)
def test_bad_settings_are_one_line_errors(text, msg):
    with pytest.raises(PrivcheckUsageError, match=msg.replace("(", r"\(")):
        parse_samples(text)
    out = CliRunner().invoke(main, ["audit", "de", "--param", "m=2", "--samples", text])
    assert out.exit_code == 2 and "Traceback" not in out.output and len(out.output.strip().splitlines()) == 1


def test_parse_samples_values():
    assert parse_samples("1e5") == 100_000 and parse_samples(None) is None
    assert parse_samples("auto") == Auto()
    assert parse_samples("auto:target=0.99,draws=2e6,seconds=30") == Auto(
        target=0.99, max_draws=2_000_000, max_seconds=30.0
    )
    assert parse_samples("auto:policy=rounds").policy == "rounds" and Auto().policy == "sequential"
    assert Auto().first_size == adaptive.FIRST_EPOCH and Auto(policy="rounds").first_size == adaptive.FIRST_ROUND


def test_delta_claim_is_refused_by_rounds_and_audited_by_sequential():
    with pytest.raises(PrivcheckUsageError, match="δ = 0.*samples='auto'"):
        privcheck.audit(rr(1.0), inputs=[0, 1], eps=1.0, delta=1e-6, samples="auto:policy=rounds")
    res = privcheck.audit(rr(1.0), inputs=[0, 1], eps=1.0, delta=1e-6, samples="auto:draws=4000", seed=1)
    assert res.verdict == "holds" and res.delta_lower == 0.0  # a correct 1-DP RR: no δ is certified


@pytest.mark.parametrize("text, policy_name", [("auto", "sequential"), ("auto:policy=rounds", "rounds")])
def test_cli_samples_auto_json(text, policy_name):
    out = CliRunner().invoke(
        main, ["audit", "de", "--param", "m=2", "--param", "eps=1", "--samples", text, "--json", "-"]
    )
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output[out.output.index("{") :])
    rec = doc["details"]["adaptive"]
    assert rec["stopped"] == "target reached" and doc["certified_fraction"] >= 0.95
    assert doc["samples"] == sum(r["samples"] for r in rec["rounds"])
    assert rec.get("policy", "rounds") == policy_name
    assert ("2^-r" in rec["spending"]) == (policy_name == "rounds")
    assert ("e-process" in rec["spending"]) == (policy_name == "sequential")


@pytest.mark.parametrize("policy_name", ["sequential", "rounds"])
def test_correct_mechanism_refuted_at_most_at_alpha_over_seeds(policy_name):
    """Coverage of the whole adaptive procedure (data-dependent stopping included): a correct RR audited
    against its true ε over 10 seeds at α = 0.2 is refuted no more often than Binomial(10, 0.2) allows (a
    procedure that tests at the point estimate refutes most seeds). The 40-seed run is
    benchmarks/adaptive_false_refutation.py."""
    from scipy.stats import binom

    auto = Auto(max_draws=30_000, first=1_000, growth=2, target=1.0, policy=policy_name)
    refuted = sum(
        privcheck.audit(rr(1.0), inputs=[0, 1], eps=1.0, samples=auto, seed=s, confidence=0.8).verdict == "refuted"
        for s in range(10)
    )
    assert refuted <= binom.ppf(0.999, 10, 0.2)


def test_duration_units():
    from privcheck.auditor.adaptive import _duration

    assert [_duration(s) for s in (45, 720, 3.4 * 3600, 2.1 * 86400)] == ["45 s", "12 min", "3.4 h", "2.1 days"]


def test_rounds_share_one_probe_sized_for_the_budget(monkeypatch):
    """The auto-view probe runs once per adaptive audit (not once per round), with the probe its first two
    rounds warrant (privcheck.auditor.autoviews.probe_size), and its view is the one every round audits."""
    import privcheck.auditor.bound as bound
    from privcheck.auditor.autoviews import PROBE, PROBE_MAX, probe_size

    assert [probe_size(n) for n in (20, 4000, 10_000, 65_536, 10**6, 10**7)] == [
        256,
        1000,
        2048,
        4096,
        PROBE_MAX,
        PROBE_MAX,
    ]
    assert all(probe_size(n) <= max(256, n // 4) for n in range(20, 40_000, 997)) and probe_size(10**4) == PROBE
    probes = []
    real = bound.auto_view

    def counting(sampler, inputs, seed_seq, probe):
        probes.append(probe)
        return real(sampler, inputs, seed_seq, probe=probe)

    monkeypatch.setattr(bound, "auto_view", counting)

    def rr(x, n, rng):  # randomised response at true eps 0.25, claimed 1: the target is out of reach
        keep = rng.random(n) < math.exp(0.25) / (1 + math.exp(0.25))
        return np.where(keep, x, 1 - x)

    res = privcheck.audit(rr, inputs=[0, 1], eps=1.0, samples="auto:draws=300000,first=20000,policy=rounds", seed=3)
    assert len(res.details["adaptive"]["rounds"]) >= 2 and res.verdict != "refuted"
    assert probes == [probe_size(80_000)] == [5000]  # sized for rounds 1-2 (20000 + 4 x 20000 draws)
    probes.clear()
    privcheck.audit(rr, inputs=[0, 1], eps=1.0, samples="auto:draws=1e6,policy=rounds", seed=3)
    assert probes == [PROBE_MAX]  # first round 65536: rounds 1-2 warrant the largest probe
