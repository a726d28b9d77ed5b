"""``family="gaussian"``: an (ε, δ) claim of a declared Gaussian-additive mechanism audited as the μ it implies
(issue 30 §2): the plain δ-at-ε audit has no power against a tail violation and says so; the family audit
refutes an under-noised Gaussian and never a correct one; the implied μ is on the safe side; bad input is one line.
"""

from __future__ import annotations

import itertools
import json
import math
import textwrap

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.optimize import brentq
from scipy.stats import norm

import privcheck
from accountants.gdp import gdp_delta, gdp_mu
from privcheck.auditor.family import implied_mu
from privcheck.base.errors import PrivcheckUsageError
from privcheck.claimsfile import load_user_file, unload_user_file
from privcheck.cli import main
from privcheck.runner import RunOptions, run, select

EPS, DELTA = 4.0, 1e-6


def gauss(sigma: float):
    """The Gaussian mechanism on inputs 0 and 1 (sensitivity 1): μ = 1/σ."""

    def sampler(x, n, rng):
        return x + sigma * rng.standard_normal(n)

    return sampler


def scipy_mu(eps: float, delta: float) -> float:
    """The root of δ_μ(ε) = δ by scipy (an independent route)."""

    def f(mu):
        return norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2) - delta

    return brentq(f, 1e-3, 50.0, xtol=1e-14, rtol=1e-14)


@pytest.mark.parametrize("eps, delta", [(4.0, 1e-6), (1.0, 1e-5), (0.5, 1e-3), (8.0, 1e-10)])
def test_implied_mu_is_the_root_rounded_up(eps, delta):
    mu = implied_mu(eps, delta)
    assert gdp_delta(mu, eps) > delta  # the claim implies μ-GDP at this μ: refuting it is on the safe side
    assert gdp_mu(eps, delta) < mu <= gdp_mu(eps, delta) * (1 + 1e-6)
    assert mu == pytest.approx(scipy_mu(eps, delta), rel=1e-6)


def test_under_noised_gaussian_refuted_only_with_the_family():
    """σ = 0.746 (μ = 1.34) claimed (4, 1e-6)-DP (needs μ ≤ 0.838): δ at ε = 4 is 3e-3, in a tail 20 000
    draws do not reach; the plain audit does not refute and says it has no power, the family audit refutes."""
    mech = gauss(1 / 1.34)
    plain = privcheck.audit(mech, inputs=[0.0, 1.0], eps=EPS, delta=DELTA, samples=20_000, seed=0, view=False)
    assert plain.verdict != "refuted"
    assert plain.details["delta_detectable"] is None or plain.details["delta_detectable"] > 1e3 * DELTA
    assert "no power at the claimed delta" in plain.summary() and "family='gaussian'" in plain.summary()
    fam = privcheck.audit(mech, inputs=[0.0, 1.0], eps=EPS, delta=DELTA, samples=20_000, seed=0, family="gaussian")
    assert fam.verdict == "refuted" and fam.mu_lower > implied_mu(EPS, DELTA)
    assert fam.eps_claimed == EPS and fam.delta_claimed == DELTA and fam.mu_claimed == implied_mu(EPS, DELTA)
    assert fam.reason.startswith("conditional on the declared family 'gaussian'")
    assert fam.details["family"]["mu_implied"] == fam.mu_claimed
    assert "conditional on the declared family 'gaussian'" in fam.summary().splitlines()[-1]
    json.dumps(fam.to_dict())


@pytest.mark.parametrize("seed", range(4))
def test_correct_gaussian_never_refuted(seed):
    """σ exactly at the implied μ (the tightest correct mechanism): holds or inconclusive, never refuted."""
    mech = gauss(1 / gdp_mu(EPS, DELTA))
    res = privcheck.audit(mech, inputs=[0.0, 1.0], eps=EPS, delta=DELTA, samples=20_000, seed=seed, family="gaussian")
    assert res.verdict in ("holds", "inconclusive")


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"family": "laplace"}, "family must be one of gaussian"),
        ({"family": "gaussian", "delta": 0.0}, "give delta"),
        ({"family": "gaussian", "mu": 1.0, "eps": None}, "drop mu="),
    ],
)
def test_bad_family_requests_are_one_line(kw, message):
    args = {"inputs": [0.0, 1.0], "eps": 1.0, "delta": 1e-5, "samples": 1000} | kw
    with pytest.raises(PrivcheckUsageError, match=message):
        privcheck.audit(gauss(1.0), **args)


def test_cli_family_flag_on_the_builtin_gaussian():
    out = CliRunner().invoke(
        main,
        ["audit", "gaussian", "--param", "sigma=0.746", "--eps", "4", "--delta", "1e-6", "--samples", "20000"]
        + ["--family", "gaussian", "--json", "-"],
    )
    assert out.exit_code == 1, out.output  # refuted
    doc = json.loads(out.output[out.output.index("{") :])
    assert doc["verdict"] == "refuted" and doc["details"]["family"]["family"] == "gaussian"
    bad = CliRunner().invoke(main, ["audit", "gaussian", "--family", "laplace"])
    assert bad.exit_code == 2


_n = itertools.count()


def test_claims_file_family_key(tmp_path):
    path = tmp_path / f"family{next(_n)}.toml"
    path.write_text(
        textwrap.dedent("""
        [[privacy]]
        id = "fam.under"
        mechanism = "gaussian"
        params = { sigma = 0.746 }
        eps = 4.0
        delta = 1e-6
        family = "gaussian"
        samples = 20000
        expect = "refuted"

        [[privacy]]
        id = "fam.bad"
        mechanism = "gaussian"
        params = { sigma = 1.0 }
        mu = 1.0
        family = "gaussian"
        """),
        encoding="utf-8",
    )
    with pytest.raises(PrivcheckUsageError, match="family declares the family of an"):
        load_user_file(str(path))
    unload_user_file(str(path))
    text = path.read_text().split('[[privacy]]\nid = "fam.bad"')[0]
    path.write_text(text, encoding="utf-8")
    try:
        ids = load_user_file(str(path))
        (rec,) = run(select(ids), RunOptions(seed=0, jobs=1))
    finally:
        unload_user_file(str(path))
    assert rec.verdict == "refuted"
    assert rec.claimed == {"eps": 4.0, "delta": 1e-6, "family": "gaussian"}
    assert rec.measured["mu_lower"] > rec.measured["mu_implied"]
    np.testing.assert_allclose(rec.measured["mu_implied"], implied_mu(4.0, 1e-6))
