"""The auditor's records, pinned: a fixed set of small audits covering every branch gives bit-identical records.

The fixture ``tests/data/auditor_pipeline_records.json`` was written by the auditor *before* it was reshaped into
stages (issue 28 part 1); every later change to the auditor's code must leave these records exactly equal (floats
included) unless a change of statistic is intended and argued. Timing fields (``seconds``, ``draws_per_second``,
the adaptive rounds' seconds and the clock part of a budget message) are dropped; adaptive audits use a draws
budget, never a seconds budget, so their rounds do not depend on the clock.

Regenerate (only for an intended change of statistic): ``python tests/test_auditor_pipeline_records.py --write``.
"""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest

FIXTURE = Path(__file__).parent / "data" / "auditor_pipeline_records.json"
TIMING = {"seconds", "draws_per_second"}


# ------------------------------------------------------------------ samplers (plain functions, fixed laws)
def laplace(scale):
    def f(x, n, rng):
        return np.asarray(x, float) + rng.laplace(0.0, scale, n)

    f.__name__ = f"laplace_{scale}"
    return f


def gauss(sigma):
    def g(x, n, rng):
        return np.asarray(x, float) + sigma * rng.standard_normal(n)

    g.__name__ = f"gauss_{sigma}"
    return g


def rr(eps):
    def f(x, n, rng):
        keep = rng.random(n) < math.exp(eps) / (1 + math.exp(eps))
        return np.where(keep, x, 1 - x)

    f.__name__ = f"rr_{eps}"
    return f


def sets(x, n, rng):
    """2-subsets of {0..5} as frozensets (x in it more often): an auto Membership view."""
    out = []
    for _ in range(n):
        rest = [v for v in range(6) if v != x]
        if rng.random() < 2 * math.e / (2 * math.e + 4):
            s = {x, int(rng.choice(rest))}
        else:
            s = set(int(v) for v in rng.choice(rest, 2, replace=False))
        out.append(frozenset(s))
    return out


def cohort_bits(x, n, rng):
    """(8 bits, cohort) reports: bit c of cohort c carries x by randomised response (an auto bit × cohort view)."""
    cohorts = rng.integers(0, 4, n)
    bits = rng.integers(0, 2, (n, 8))
    rows = np.arange(n)
    bits[rows, cohorts] = np.where(rng.random(n) < math.e / (1 + math.e), x, 1 - x)
    return [(bits[i].tolist(), int(cohorts[i])) for i in range(n)]


def vectors(x, n, rng):
    """Two-column outputs (a 2-D matrix): column pairs and whole-row atoms."""
    a = rng.integers(0, 3, (n, 2))
    a[:, 0] = np.where(rng.random(n) < 0.6, x, a[:, 0])
    return a


class GDPAccountant:
    """Stand-in of PLDAccountant.tradeoff: the G_mu closed form inside a certified interval."""

    def __init__(self, mu):
        self.mu = mu

    def tradeoff(self, alpha):
        from accountants.pld import Interval
        from accountants.pld.tradeoff import gaussian_curve

        b = gaussian_curve(self.mu, alpha)
        return Interval(b * (1 - 1e-9), np.minimum(b * (1 + 1e-9), 1.0))

    def __repr__(self):
        return f"GDPAccountant({self.mu})"


# ------------------------------------------------------------------ the cases
def _cases():
    import privcheck
    from privcheck.auditor import monte_carlo_bound, views
    from privcheck.auditor.curves import curve_bound, mu_claim
    from privcheck.base.scheduler import get_backend

    A = privcheck.audit
    yield "builtin_exact_laplace", lambda: A(privcheck.mechanism("laplace", eps=1.0), samples=4000, seed=1)
    yield "builtin_exact_grr", lambda: A(privcheck.mechanism("grr", eps=1.0, d=4), eps=0.9, samples=4000, seed=2)
    yield "builtin_exact_only", lambda: A(privcheck.mechanism("oue", eps=1.0, d=4), monte_carlo=False)
    yield "builtin_gaussian_eps_delta", lambda: A(privcheck.mechanism("gaussian", eps=1.0, delta=1e-3), samples=4000)
    yield (
        "builtin_gaussian_holds",
        lambda: A(privcheck.mechanism("gaussian", eps=1.0, delta=1e-3, sigma=4.0), delta=1e-2, samples=2000, seed=1),
    )
    yield "builtin_own_accountant", lambda: A(privcheck.mechanism("dp-sgd", q=0.5, T=2, d=1), samples=1000, seed=1)
    yield (
        "builtin_pairs_no_exact",
        lambda: A(privcheck.mechanism("oue", eps=1.0, d=3), pairs=[(0, 1)], samples=3000, seed=2),
    )
    yield "sampler_holds", lambda: A(rr(1.0), inputs=[0, 1], eps=1.0, samples=20_000, seed=3)
    yield "sampler_refuted", lambda: A(laplace(0.5), inputs=[0.0, 1.0], eps=1.0, samples=20_000, seed=4)
    yield "sampler_inconclusive", lambda: A(rr(0.5), inputs=[0, 1], eps=8.0, samples=400, seed=5)
    yield "eps_zero_claim", lambda: A(rr(0.2), inputs=[0, 1], eps=0, samples=5000, seed=6)
    yield "pairs", lambda: A(laplace(1.0), inputs=[0.0, 1.0, 3.0], pairs=[(0.0, 1.0)], eps=1.0, samples=8000)
    yield (
        "neighbours",
        lambda: A(
            laplace(1.0),
            inputs=[0.0, 1.0, 2.0],
            neighbours=lambda a, b: abs(a - b) <= 1,
            eps=1.0,
            samples=6000,
            seed=7,
        ),
    )
    yield (
        "explicit_view",
        lambda: A(sets, inputs=[0, 1], eps=1.0, samples=3000, seed=8, view=views.membership(range(6))),
    )
    yield "auto_view_sets", lambda: A(sets, inputs=[0, 1], eps=1.0, samples=3000, seed=9)
    yield "auto_view_bits", lambda: A(cohort_bits, inputs=[0, 1], eps=1.0, samples=4000, seed=10)
    yield "auto_view_floats", lambda: A(laplace(1.0), inputs=[0.0, 1.0], eps=1.0, samples=30_000, seed=11)
    yield "raw_view_false", lambda: A(laplace(1.0), inputs=[0.0, 1.0], eps=1.0, samples=30_000, seed=11, view=False)
    yield "columns", lambda: A(vectors, inputs=[0, 1, 2], eps=1.0, samples=6000, seed=12, max_events=4)
    yield "eps_delta_curve", lambda: A(gauss(1.0), inputs=[0.0, 1.0], eps=4.0, delta=1e-3, samples=20_000, seed=13)
    yield (
        "eps_delta_curve_raw",
        lambda: A(gauss(1.0), inputs=[0.0, 1.0], eps=4.0, delta=1e-3, samples=20_000, seed=13, view=False),
    )
    yield "mu_claim", lambda: A(gauss(1.0), inputs=[0.0, 1.0], mu=1.0, samples=20_000, seed=14)
    yield "mu_refuted", lambda: A(gauss(0.5), inputs=[0.0, 1.0], mu=1.0, samples=20_000, seed=15)
    yield (
        "accountant_claim",
        lambda: A(gauss(1.0), inputs=[0.0, 1.0], accountant=GDPAccountant(1.0), delta=1e-4, samples=20_000, seed=16),
    )
    yield (
        "adaptive_target",
        lambda: A(
            rr(1.0),
            inputs=[0, 1],
            eps=1.0,
            samples="auto:target=0.97,draws=80000,first=4000,growth=2,policy=rounds",
            seed=17,
        ),
    )
    yield (
        "adaptive_budget",
        lambda: A(rr(0.3), inputs=[0, 1], eps=1.0, samples="auto:draws=30000,first=4000,policy=rounds", seed=18),
    )
    yield (
        "adaptive_budget_prediction",
        lambda: A(
            rr(0.9), inputs=[0, 1], eps=1.0, samples="auto:target=0.89,draws=20000,first=4000,policy=rounds", seed=23
        ),
    )
    yield (
        "adaptive_refuted",
        lambda: A(
            rr(1.0), inputs=[0, 1], eps=0.7, samples="auto:draws=60000,first=4000,growth=2,policy=rounds", seed=17
        ),
    )
    yield (
        "per_sample",
        lambda: A(
            privcheck.per_sample(lambda x, rng: x + int(rng.random() < 0.3)),
            inputs=[0, 1],
            eps=1.0,
            samples=3000,
            seed=22,
        ),
    )
    yield "jobs2", lambda: A(laplace(1.0), inputs=[0.0, 1.0], eps=1.0, samples=20_000, seed=3, jobs=2)
    yield (
        "threads_backend",
        lambda: A(vectors, inputs=[0, 1], eps=1.0, samples=6000, seed=19, client=get_backend(jobs=2)),
    )
    yield (
        "mc_bound_delta",
        lambda: asdict(monte_carlo_bound(gauss(0.5), [0.0, 1.0], 10_000, seed=20, delta_eps=1.0, selection_share=0.3)),
    )
    yield "curve_bound", lambda: asdict(curve_bound(gauss(1.0), [0.0, 1.0], 5000, claim=mu_claim(1.0), seed=21))


def _strip(obj):
    """The record without its clock-dependent parts, as JSON would hold it."""
    if isinstance(obj, dict):
        return {k: _strip(v) for k, v in obj.items() if k not in TIMING}
    if isinstance(obj, list):
        return [_strip(v) for v in obj]
    if isinstance(obj, str):
        return re.sub(r" \(≈ [^)]*\)", "", obj)  # an adaptive budget message's duration at this run's rate
    return obj


def record(fn) -> dict:
    from privcheck.claims import _jsonable

    out = fn()
    return json.loads(json.dumps(_strip(_jsonable(out if isinstance(out, dict) else out.to_dict()))))


def _records() -> dict:
    return {name: record(fn) for name, fn in _cases()}


CASES = [name for name, _ in _cases()]


@pytest.fixture(scope="module")
def pinned():
    return json.loads(FIXTURE.read_text())


def test_the_fixture_covers_every_case(pinned):
    assert sorted(pinned) == sorted(CASES)
    verdicts = {pinned[c]["verdict"] for c in CASES if "verdict" in pinned[c]}
    assert verdicts == {"holds", "refuted", "inconclusive"}


@pytest.mark.parametrize("name", CASES)
def test_records_are_bit_identical(pinned, name):
    fn = dict(_cases())[name]
    assert record(fn) == pinned[name]


if __name__ == "__main__":
    if "--write" not in sys.argv:
        sys.exit("usage: python tests/test_auditor_pipeline_records.py --write")
    FIXTURE.parent.mkdir(exist_ok=True)
    FIXTURE.write_text(json.dumps(_records(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {FIXTURE}")
