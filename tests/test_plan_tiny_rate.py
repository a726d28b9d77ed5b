"""`budget plan sigma` at sampling rates so small that no noise is needed (q·T below δ), and the PLD
knots at losses beyond exp's range (issue 33): each answers in seconds instead of searching σ → 0."""

from __future__ import annotations

import json
import math
import time

import pytest
from click.testing import CliRunner

from accountants import planners as pl
from accountants.pld import GaussianEvent, PLDAccountant, PoissonSampledEvent
from privcheck.cli import main


@pytest.mark.parametrize("q", [1e-320, 5e-324, 1e-300, 1e-7])
def test_plan_sigma_no_noise_needed(q):
    t = time.perf_counter()
    res = CliRunner().invoke(
        main, ["budget", "plan", "sigma", "--eps", "1", "--steps", "100", "--q", repr(q), "--json", "-"]
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["answer"] == 0.0 and out["achieved_eps"] == 0.0 and "no noise needed" in out["method"]
    assert out["details"]["p_ever_sampled"] <= 1e-5
    assert time.perf_counter() - t < 10


def test_no_noise_rule_is_exact_at_the_edge():
    # 1 − (1 − q)^T against δ: q = 1e-7, T = 100 gives 9.999995e-6 <= 1e-5 (no noise needed); a rate
    # whose P(sampled) exceeds δ must still be searched
    assert pl._no_noise_needed(1e-7, 100, 1e-5)
    assert not pl._no_noise_needed(1.0001e-7, 100, 1e-5)
    assert not pl._no_noise_needed(1e-3, 1, 1e-5)
    # the rule is what the certified accountant says: ε(δ) = 0 at any noise when P(sampled) <= δ
    iv = PLDAccountant().compose(PoissonSampledEvent(GaussianEvent(0.5), 1e-9), 100).epsilon(1e-5)
    assert iv.lower == 0.0 and iv.upper <= 1e-300


def test_knots_at_losses_beyond_exp_range():
    # σ = 0.02: losses up to ~1/(2σ²) + … > 709, where e^{ih} overflows; the chord test used to give NaN
    # and refine every lattice block to single steps (minutes); now a few seconds, and still certified
    t = time.perf_counter()
    iv = PLDAccountant().compose(PoissonSampledEvent(GaussianEvent(0.02), 1e-320), 100).epsilon(1e-5)
    assert iv.lower == 0.0 and 0.0 <= iv.upper <= 1e-300
    assert time.perf_counter() - t < 20
    assert math.isfinite(iv.upper)


def test_large_loss_compositions_fall_back_to_one_stage():
    """Laplace ε0 = 10 (b = 0.1) x 200 / x 1000: the block composition's losses leave the float range (an
    OverflowError, or 'could not coarsen' at 200); the one-stage composition answers, and its interval meets
    the one the earlier accountant certified at wave start (x 1000: [9202.883, 9219.277])."""
    from accountants.pld import LaplaceEvent, PLDAccountant

    iv = PLDAccountant().compose(LaplaceEvent(b=0.1), count=1000).epsilon(1e-5)
    assert iv.lower <= 9219.277 and iv.upper >= 9202.883 and iv.upper - iv.lower < 1.0
    iv = PLDAccountant().compose(LaplaceEvent(b=0.1), count=200).epsilon(1e-5)
    assert 0 < iv.lower <= iv.upper < 2000
