"""The runner: family-wise confidence over random checks, seeds, errors become records."""

from __future__ import annotations

import pytest

from privcheck.claims import CATALOGUE, Check, Claim, Outcome
from privcheck.runner import RunOptions, run


@pytest.fixture
def temp_claims():
    added = []

    def add(cid, method, fn):
        if cid not in CATALOGUE.claims:
            CATALOGUE.add_claim(Claim(cid, "user", "", "estimator", "test claim", (method,)))
            added.append(cid)
        chk = Check(cid, method, fn)
        CATALOGUE.add_check(chk)
        return chk

    yield add
    for cid in added:
        CATALOGUE.claims.pop(cid, None)
        CATALOGUE.checks.pop(cid, None)


def test_random_checks_share_the_run_confidence(temp_claims):
    seen = {}

    def fn(ctx):
        seen[ctx.family] = ctx.confidence
        return Outcome("holds", measured=ctx.confidence)

    checks = [temp_claims(f"tmp.mc{i}", "mc", fn) for i in range(4)]
    checks.append(temp_claims("tmp.num", "numeric", lambda ctx: Outcome("holds", measured=ctx.confidence)))
    recs = run(checks, RunOptions(jobs=1, confidence=0.95))
    assert [r.measured for r in recs[:4]] == [pytest.approx(1 - 0.05 / 4)] * 4
    assert recs[4].measured == pytest.approx(0.95)  # deterministic checks are not corrected
    assert recs[0].details["run_confidence"]["random_checks"] == 4


def test_a_crashing_check_is_an_error_record(temp_claims):
    def boom(ctx):
        raise RuntimeError("kaput")

    rec = run([temp_claims("tmp.boom", "numeric", boom)], RunOptions(jobs=1))[0]
    assert rec.verdict == "error" and "kaput" in rec.details["error"] and not rec.met_expectation


def test_seeds_differ_between_checks_and_repeat_across_runs(temp_claims):
    def draw(ctx):
        return Outcome("holds", measured=float(ctx.rng("x").random()))

    a = temp_claims("tmp.s1", "mc", draw)
    b = temp_claims("tmp.s2", "mc", draw)
    r1 = run([a, b], RunOptions(jobs=1, seed=3))
    r2 = run([a, b], RunOptions(jobs=1, seed=3))
    assert r1[0].measured == r2[0].measured and r1[0].measured != r1[1].measured
