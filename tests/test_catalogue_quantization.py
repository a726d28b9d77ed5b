"""Tests of privcheck/catalogue/quantization.py: the sqSGD exact checks (run in --quick mode)."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from privcheck.catalogue import quantization as cq
from privcheck.claims import CATALOGUE, RunContext
from privcheck.runner import load_catalogue, verify

load_catalogue()  # registers claims and checks

IDS = [
    "sqsgd.privquant.unbiased",
    "sqsgd.privquant.m_appendix",
    "sqsgd.privquant.calibration",
    "sqsgd.quantize.unbiased.corrected",
]


def _ctx():
    return RunContext(seed=0, seed_seq=np.random.SeedSequence(0), quick=True)


def test_checks_registered():
    for cid in IDS:
        assert cid in CATALOGUE.claims
        assert any(c.method == "exact" for c in CATALOGUE.checks.get(cid, [])), cid


def test_unbiased_check():
    out = cq._privquant_unbiased_exact(_ctx())
    assert out.verdict == "refuted"
    d = out.details
    assert d["E[Z|Xhat]=Xhat"]["failures"] == 0 and d["E[Z|Xhat]=Xhat"]["cases"] > 500
    bad = d["E[Z|X]=X, quantiser as printed (eq. 6)"]
    assert bad["failures"] > 0 and bad["counterexample"]["K"] >= 3
    assert d["E[Z|X]=X, corrected quantiser (K-1)(X-B_k*)/(2U)"]["failures"] == 0


def test_unbiased_helper_catches_wrong_m():
    # with the appendix's m, E[Z | X̂] ≠ X̂: the enumeration would notice
    d, K, kappa, p, U = 2, 3, 0, Fraction(3, 4), Fraction(1)
    table = cq._expected_z_given_xhat(d, K, kappa, p, U)
    m = cq.normalising_factor_m(d, K, kappa, p, exact=True)
    m_app = cq.normalising_factor_m_appendix(d, K, kappa, p, exact=True)
    u = (2, 0)
    ez_app = tuple(e * m / m_app for e in table[u])
    lv = cq.grid_levels_exact(K, U)
    assert table[u] == (lv[2], lv[0])
    assert ez_app != (lv[2], lv[0])


def test_m_appendix_check():
    out = cq._m_appendix_exact(_ctx())
    assert out.verdict == "refuted"
    ce = out.details["counterexample"]
    assert Fraction(ce["m_alg1"]) != Fraction(ce["m_appendix"])
    truth = out.details["which_is_right"]
    assert truth["alg1_matches_enumeration"] == truth["cases"] > 0
    assert truth["appendix_matches_enumeration"] < truth["cases"]


def test_calibration_check():
    out = cq._calibration_exact(_ctx())
    assert out.verdict == "refuted"
    assert out.measured["violations"] == 0  # whenever the rule has a solution, exact eps <= 0.9 eps
    assert out.measured["infeasible"] > 0
    lenet16 = [r for r in out.details["paper_settings"] if r["d"] == 1024 and r["K"] == 16]
    assert lenet16 and all(not r["feasible"] and r["min_exact_eps_any_kappa_p"] > r["eps"] for r in lenet16)
    assert out.details["max_exact_eps_over_eps_when_feasible"] <= 0.9 + 1e-12


def test_corrected_quantiser_check():
    out = cq._quantize_corrected_exact(_ctx())
    assert out.verdict == "holds"
    pr = out.details["printed_rule_exact_means"]
    assert pr["biased_points"] > 0 and pr["example"]["K"] >= 3


def test_records_are_json():
    recs = verify(["sqsgd.quantize.unbiased.corrected"], jobs=1, quick=True, methods=["exact"])
    assert [r.verdict for r in recs] == ["holds"]
    json.dumps(recs[0].to_dict())


@pytest.mark.parametrize("r,d,expected", [(0.005, 119_850, 1024), (0.005, 1_722_224, 16384), (0.001, 1_722_224, 2048)])
def test_d_tilde(r, d, expected):
    assert cq._d_tilde(r, d) == expected
