"""The sequential policy of ``samples="auto"``: the e-process's parts (payoff, bets, grid, lower bound), the
supermartingale property checked exactly, fresh draws per batch, early refutation and budgets."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import privcheck
from privcheck.auditor.sequential import pairs as seq_pairs
from privcheck.auditor.sequential.final import FINAL_SHARE, final_bound, pool_key, split_alpha
from privcheck.auditor.sequential.run import epoch_batches
from privcheck.auditor.sequential.wealth import C_MAX, EProcess, kelly_bet, log_factor, null_payoffs, theta_grid
from privcheck.base.stats import clopper_pearson


def rr(eps: float):
    """Binary randomised response with true ε = ``eps``."""
    p = math.exp(eps) / (1.0 + math.exp(eps))

    def sampler(x, n, rng):
        return np.where(rng.random(n) < p, x, 1 - x)

    return sampler


@settings(max_examples=200, deadline=None)
@given(
    theta=st.floats(0.0, 5.0),
    p0=st.floats(0.0, 1.0),
    share=st.floats(0.0, 1.0),
    q1=st.floats(0.0, 1.0),
    q0=st.floats(0.0, 1.0),
)
def test_one_pair_factor_has_mean_at_most_one_under_the_claim(theta, p0, share, q1, q0):
    """Under ``p1 ≤ e^θ p0`` the expected factor of one pair, for any bet a plug-in gives, is ≤ 1 (exact
    enumeration of the four outcomes): the wealth is a supermartingale, which Ville's inequality needs."""
    p1 = min(1.0, share * math.exp(theta) * p0)
    th = np.array([theta])
    c = kelly_bet(q1, q0, th)
    assert 0.0 <= c[0] <= C_MAX
    probs = {(1, 0, 0, 0): p1 * p0, (0, 1, 0, 0): p1 * (1 - p0), (0, 0, 1, 0): (1 - p1) * p0}
    mean = 1.0 - sum(probs.values())  # (0, 0) pays 0: factor 1
    for counts, pr in probs.items():
        mean += pr * math.exp(float(log_factor(counts, c, th)[0]))
    assert mean <= 1.0 + 1e-12


def test_kelly_bet_is_zero_without_edge_and_positive_with_it():
    th = np.array([0.0, 1.0, 2.0])
    assert np.all(kelly_bet(0.3, 0.3, th) == 0.0)  # mean e^-θ q1 − q0 ≤ 0 everywhere
    c = kelly_bet(0.9, 0.1, th)
    assert np.all(c > 0) and c[0] >= c[1] >= c[2]
    g11, g10, g01, g00 = null_payoffs(np.array([1.0]))
    assert g10[0] == pytest.approx(math.exp(-1)) and g01[0] == -1.0 and g11[0] == pytest.approx(math.exp(-1) - 1)
    assert g00[0] == 0.0  # δ = 0: the (0, 0) pairs pay nothing


def test_grid_keeps_the_claim_off_it_and_rises():
    for eps in (0.0, 0.25, 1.0, math.inf):
        g = theta_grid(eps)
        assert g[0] == 0.0 and np.all(np.diff(g) > 0) and g[-1] >= 49.0
        if 0 < eps < math.inf:
            assert eps not in g and g[np.searchsorted(g, eps)] > eps


def test_lower_bound_is_the_rejected_prefix():
    proc = EProcess(theta_grid(1.0), slots=1, alpha=0.05)
    assert proc.lower_bound() == -math.inf and proc.max_certifiable() == -math.inf
    proc.rejected[:5] = True
    proc.rejected[7] = True  # a gap: the bound stops before it
    assert proc.lower_bound() == proc.theta[4]


def test_epoch_batches_sum_to_the_estimation_share():
    for n in (700, 2800, 10_000_000):
        b = epoch_batches(n)
        assert sum(b) == n and max(b) <= 1 << 20 and b[0] <= b[-1]


def test_gross_violation_refuted_within_its_first_epoch():
    """RR with true ε = 0.75 claimed at 0.25 (3×): refuted at the stated level after a few hundred draws per
    input, where the rounds policy's first round alone is 65 536."""
    for seed in range(3):
        res = privcheck.audit(rr(0.75), inputs=[0, 1], eps=0.25, samples="auto", seed=seed)
        rec = res.details["adaptive"]
        assert res.verdict == "refuted" and rec["stopped"] == "claim refuted" and rec["policy"] == "sequential"
        assert res.samples <= 1200 and res.eps_lower > 0.25
        assert "e-process" in rec["spending"] and rec["alpha_final"] == pytest.approx(0.0375)
        assert rec["log_threshold"] == pytest.approx(math.log(1 / 0.0125)) and rec["final_eps_lower"] is None


def test_refutation_of_a_zero_claim_and_the_summary():
    res = privcheck.audit(rr(0.5), inputs=[0, 1], eps=0.0, samples="auto", seed=4)
    assert res.verdict == "refuted" and res.eps_lower > 0
    assert "sequential" in res.summary() and "Ville" in res.summary()


def test_every_batch_draws_fresh_streams(monkeypatch):
    """Each batch of an epoch counts on stage names no other stage uses; epochs draw below their own seeds."""
    names = []
    real = seq_pairs.batch_counts

    def spy(run, coding, events, n, name):
        names.append((run.seed.spawn_key, name))
        return real(run, coding, events, n, name)

    monkeypatch.setattr("privcheck.auditor.sequential.run.batch_counts", spy)
    privcheck.audit(rr(1.0), inputs=[0, 1], eps=1.0, samples="auto:draws=30000,target=1", seed=2)
    assert len(names) == len(set(names)) > 4
    assert all(name.startswith("estimation-") for _, name in names)
    assert len({key for key, _ in names}) >= 2  # more than one epoch, each below its own seed


def test_draws_budget_line_and_power_statement():
    res = privcheck.audit(rr(0.25), inputs=[0, 1], eps=0.25, samples="auto:draws=5000", seed=0)
    rec = res.details["adaptive"]
    assert rec["stopped"] == "draws budget" and res.samples <= 5000 and res.verdict != "refuted"
    assert rec["message"].startswith("budget cannot reach the target")
    assert res.eps_max_certifiable > 0.25  # the power statement: what these pairs could certify


def test_seconds_budget_stops():
    res = privcheck.audit(rr(0.25), inputs=[0, 1], eps=0.25, samples="auto:seconds=1e-6", seed=0)
    assert res.details["adaptive"]["stopped"] == "seconds budget"


def laplace(eps: float):
    """The Laplace mechanism on inputs 0 and 1 (sensitivity 1) with true ε = ``eps``."""

    def sampler(x, n, rng):
        return x + rng.laplace(0.0, 1.0 / eps, n)

    return sampler


@pytest.mark.parametrize("view", [None, False])
def test_laplace_three_times_its_claim_refuted_in_the_first_epoch(view):
    """The reserved half-line slot: Laplace ε = 3 claimed 1 refuted within 1200 draws per input (before the
    slot, the auto view's fitted unions of float atoms took up to 4400), with the float view and on raw outputs."""
    kw = {} if view is None else {"view": view}
    for seed in (0, 4):
        res = privcheck.audit(laplace(3.0), inputs=[0.0, 1.0], eps=1.0, samples="auto", seed=seed, **kw)
        assert res.verdict == "refuted" and res.samples <= 1200, (seed, res.samples)


def test_split_and_final_bound_are_bonferroni_clopper_pearson():
    """α_e + α_f = α; the final look's bound is the best event's log(CP lower / CP upper) at α_f/(2m) each."""
    a_e, a_f = split_alpha(0.05)
    assert a_e + a_f == pytest.approx(0.05) and a_f == pytest.approx(FINAL_SHARE * 0.05)
    counts = [(700, 300, 1000), (650, 200, 1000)]
    want = max(
        math.log(clopper_pearson(k1, n, a_f / 4, "lower") / clopper_pearson(k0, n, a_f / 4, "upper"))
        for k1, k0, n in counts
    )
    assert final_bound(counts, a_f) == pytest.approx(want, rel=1e-12)
    assert final_bound([], a_f) == -math.inf and final_bound([(0, 5, 100)], a_f) == -math.inf


def test_final_look_pools_every_epoch_of_the_same_event():
    """A correct RR audited to its budget: the final look runs at α_f on the last epoch and pools the first
    epoch's pairs of the same event ({out=1} under one integer coding): 1600 + 6400 pairs at 10⁴ draws."""
    res = privcheck.audit(rr(1.0), inputs=[0, 1], eps=1.0, samples="auto:draws=10000,target=1", seed=1)
    rec = res.details["adaptive"]
    assert rec["stopped"] == "draws budget" and rec["final_eps_lower"] is not None
    assert rec["final_pairs"] == 8000 and res.eps_lower >= rec["final_eps_lower"]
    assert res.verdict == "holds" and "final look" in res.summary()


def test_pool_key_needs_the_same_coding():
    """Events are pooled only when their column is coded identically (bins fitted on different pilots differ)."""
    from privcheck.auditor.coding import ColumnCoder
    from privcheck.auditor.selection import Event

    class Coding:
        def __init__(self, col):
            self.columns = [col]

    atoms = np.array([True, False, True])
    ev = Event((0, 1), (0,), atoms, 1.0, "threshold")
    a = Coding(ColumnCoder("binned", edges=np.array([0.1, 0.5])))
    b = Coding(ColumnCoder("binned", edges=np.array([0.1, 0.6])))
    assert pool_key(a, ev) == pool_key(Coding(ColumnCoder("binned", edges=np.array([0.1, 0.5]))), ev)
    assert pool_key(a, ev) != pool_key(b, ev)
    assert pool_key(a, Event((0, 1), (), atoms, 1.0, "rows")) is None


def test_zoo_rows_name_the_policy_that_ran():
    """A zoo row's adaptive summary says which policy ran (and the sequential final look's level and bound)."""
    from privcheck.catalogue.zoo.engine import _adaptive_summary

    seq = privcheck.audit(rr(1.0), inputs=[0, 1], eps=1.0, samples="auto:draws=4000,target=1", seed=0)
    rounds = privcheck.audit(rr(1.0), inputs=[0, 1], eps=1.0, samples="auto:draws=4000,policy=rounds", seed=0)
    s, r = _adaptive_summary(seq.details["adaptive"]), _adaptive_summary(rounds.details["adaptive"])
    assert s["policy"] == "sequential" and s["alpha_final"] == pytest.approx(0.0375) and s["final_eps_lower"] > 0
    assert r["policy"] == "rounds" and "alpha_final" not in r
