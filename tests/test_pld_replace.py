"""Replace-one accounting of Poisson-subsampled Gaussian / Laplace events (issue 18 §5 bullet 3;
accountants/pld/replace.py): the profile against an independent mpmath quadrature of the mixture's
hockey-stick divergence, the certified interval against dp_accounting, the CLI and refusals."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from accountants.pld import GaussianEvent, LaplaceEvent, PLDAccountant, PoissonSampledEvent, RandomizedResponseEvent
from privcheck.base.errors import PrivcheckUsageError


def _hockey_stick(kind: str, d: float, q: float, x: float):
    """log ∫ (P − e^x Q)_+ for P = (1−q)μ + qμ(·+d), Q = (1−q)μ + qμ(·−d) by mpmath quadrature, the
    threshold found by bisection on the densities (no CDF formula used)."""
    with mpmath.workdps(30):
        pdf = mpmath.npdf if kind == "gaussian" else (lambda o: mpmath.exp(-abs(o)) / 2)
        P = lambda o: (1 - q) * pdf(o) + q * pdf(o + d)  # noqa: E731
        Q = lambda o: (1 - q) * pdf(o) + q * pdf(o - d)  # noqa: E731
        ex = mpmath.exp(x)
        a, b = mpmath.mpf(-d - 60), mpmath.mpf(d)
        for _ in range(200):
            m = (a + b) / 2
            a, b = (m, b) if P(m) > ex * Q(m) else (a, m)
        pts = sorted({p for p in (-d - 20, -d, 0, a - 1) if p < a}) + [a]
        return mpmath.log(mpmath.quad(lambda o: P(o) - ex * Q(o), [-mpmath.inf] + pts))


@pytest.mark.parametrize(
    "kind,d,q,x",
    [
        ("gaussian", 1 / 1.1, 0.01, 0.0),
        ("gaussian", 1 / 1.1, 0.01, 0.1),
        ("gaussian", 1.0, 0.2, 1.0),
        ("gaussian", 2.0, 0.05, 3.0),
        ("laplace", 0.7, 0.1, 0.01),
        ("laplace", 0.7, 0.1, 0.1),
        ("laplace", 2.0, 0.3, 1.0),
    ],
)
def test_profile_matches_quadrature(kind, d, q, x):
    ev = PoissonSampledEvent(GaussianEvent(1 / d) if kind == "gaussian" else LaplaceEvent(eps=d), q)
    rem, add = ev.profiles("replace_one")
    assert rem is add  # the pair is symmetric
    ours = float(rem.log_delta_at(np.array([x]))[0])
    ref = float(_hockey_stick(kind, d, q, x))
    assert abs(ours - ref) <= 1e-11 * max(1.0, abs(ref))


def test_laplace_replace_losses_bounded():
    ev = PoissonSampledEvent(LaplaceEvent(eps=0.7), 0.1)
    p, _ = ev.profiles("replace_one")
    top = math.log((0.9 + 0.1 * math.exp(0.7)) / (0.9 + 0.1 * math.exp(-0.7)))  # the loss on o <= −Δ
    assert abs(p.hi - top) < 1e-12 and p.bounded
    assert float(p.log_delta_at(np.array([top + 1e-9]))[0]) == -math.inf


@pytest.mark.parametrize("base", ["gaussian", "laplace"])
def test_interval_against_dp_accounting(base):
    """dp_accounting has REPLACE for the subsampled Gaussian only (its LaplacePrivacyLoss refuses it):
    the Laplace case checks the add/remove ordering and the group bound only."""
    pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as D
    from dp_accounting.pld import privacy_loss_mechanism as M

    ev = PoissonSampledEvent(GaussianEvent(1.0) if base == "gaussian" else LaplaceEvent(b=1.0), 0.1)
    iv = PLDAccountant("replace_one", grid_step=0.005).compose(ev, 10).epsilon(1e-5)
    ar = PLDAccountant("add_remove", grid_step=0.005).compose(ev, 10).epsilon(1e-5)
    assert iv.lower >= ar.lower  # replace-one costs at least add/remove at the same per-record bound
    if base == "laplace":  # and at most the 2-group bound of pure DP: each run is 2·log(1+q(e^1−1))-DP
        assert iv.upper <= 10 * 2 * math.log1p(0.1 * math.expm1(1.0))
        return
    loss = (
        M.GaussianPrivacyLoss(1.0, sensitivity=1.0, sampling_prob=0.1, adjacency_type=M.AdjacencyType.REPLACE)
        if base == "gaussian"
        else M.LaplacePrivacyLoss(1.0, sensitivity=1.0, sampling_prob=0.1, adjacency_type=M.AdjacencyType.REPLACE)
    )
    pmf = D._create_pld_pmf_from_monotone_privacy_loss(
        loss, pessimistic_estimate=True, value_discretization_interval=1e-4, use_connect_dots=True
    )
    e = D.PrivacyLossDistribution(pmf).self_compose(10).get_epsilon_for_delta(1e-5)
    assert iv.lower <= iv.upper and iv.width < 0.01 * iv.upper
    assert e >= iv.lower * (1 - 1e-9)  # their (pessimistic) value is inside or above our interval
    assert e <= iv.upper + 0.01 * iv.upper  # and close to it


def test_refusals():
    with pytest.raises(PrivcheckUsageError, match="gaussian and laplace"):
        PoissonSampledEvent(RandomizedResponseEvent(1.0), 0.1).profiles("replace_one")
    with pytest.raises(PrivcheckUsageError, match="q=1"):
        PoissonSampledEvent(GaussianEvent(1.0), 1.0).profiles("replace_one")


def test_cli_replace_one(capsys):
    from privcheck.cli import main

    with pytest.raises(SystemExit) as ex:
        main(
            [
                "budget",
                "pld",
                "--relation",
                "replace_one",
                "--event",
                "subsampled-gaussian:q=0.1,sigma=1x10",
                "--delta",
                "1e-5",
                "--grid-step",
                "0.01",
            ]
        )
    assert ex.value.code in (0, None)
    assert "replace_one" in capsys.readouterr().out
    with pytest.raises(SystemExit) as ex:
        main(
            ["budget", "pld", "--relation", "replace_one", "--event", "subsampled-rr:q=0.1,eps=1x10", "--delta", "1e-5"]
        )
    assert ex.value.code == 2
