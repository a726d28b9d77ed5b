"""Exact ε from the probabilities the samplers draws with (``Mechanism.sampler_exact_epsilon``).

The catalogue's exact checks (privcheck.catalogue.ldp) compute each case's exact ε twice: from the documented
law re-derived from the nominal ε, and from the floats the sampler itself holds (read exactly). The two routes
are independent (mpmath closed forms against the sampler's float parameters), so they must agree to rounding
on every catalogue case; and a deliberately broken sampler — drawing with a wrong probability while the
documented law is right — must now be refuted by the exact check, as the Monte Carlo audit of its draws confirms.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from estimators.direct_encoding import DirectEncoding
from estimators.registry import mechanism
from privcheck.auditor import audit
from privcheck.catalogue.ldp import _exact_outcome

CASES = [
    ("de", dict(m=2, eps=0.5)),
    ("de", dict(m=100, eps=4.0)),
    ("grr", dict(d=8, eps=2.0)),
    ("sue", dict(d=5, eps=1.0)),
    ("oue", dict(d=5, eps=3.0)),
    ("the", dict(d=5, eps=1.0)),
    ("blh", dict(d=5, eps=1.0)),
    ("olh", dict(d=50, eps=2.0)),
    ("hr", dict(d=5, eps=1.0)),
    ("hr", dict(d=20, eps=1.0)),
    ("ss", dict(d=6, eps=1.0)),
    ("ss", dict(d=30, eps=1.0)),
    ("fedsel-exp", dict(d=100_000, k=100, eps=1.0)),
    ("fedsel-pe", dict(d=20, k=5, eps=0.5)),
    ("fedsel-ps", dict(d=100, k=10, eps=2.0)),
    ("pm", dict(eps=0.5)),
    ("pm", dict(eps=4.0)),
    ("duchi", dict(eps=1.0)),
    ("hm", dict(eps=0.3)),
    ("hm", dict(eps=2.0)),
    ("pm-multidim", dict(d=4, eps=5.0)),
    ("laplace", dict(sensitivity=2.0, eps=0.7)),
]


@pytest.mark.parametrize("name,params", CASES, ids=[f"{n}-{p}" for n, p in CASES])
def test_sampler_law_agrees_with_the_documented_law(name, params):
    mech = mechanism(name, **params)
    doc, own = mech.exact_epsilon(), mech.sampler_exact_epsilon()
    assert own is not None
    # the sampler's floats are the documented probabilities rounded once (or a few times): ε agrees to ~1e-15
    assert abs(mpmath.mpf(own.eps_text) - mpmath.mpf(doc.eps_text)) <= 1e-13 * max(1.0, doc.eps), (own, doc)


class OffByOneKRR(DirectEncoding):
    """k-RR whose sampler keeps the input w.p. e^ε/(e^ε + m − 2) — an off-by-one in the denominator — while its
    documented law (exact_epsilon, from the nominal ε) is the paper's e^ε/(e^ε + m − 1)."""

    def __init__(self, m: int = 4, eps: float = 1.0):
        super().__init__(m=m, eps=eps)
        self.p = math.exp(eps) / (math.exp(eps) + m - 2)
        self.q = (1.0 - self.p) / (m - 1)


def test_an_off_by_one_sampler_is_refuted_by_the_exact_check():
    mech = OffByOneKRR(m=4, eps=1.0)
    assert mech.exact_epsilon().eps == pytest.approx(1.0)  # the documented law alone would say "holds"
    true_eps = math.log(mech.p / mech.q)  # = log(3e/2) ≈ 1.405
    assert mech.sampler_exact_epsilon().eps == pytest.approx(true_eps, rel=1e-14)
    out = _exact_outcome([("m=4, eps=1", lambda: OffByOneKRR(m=4, eps=1.0))])
    row = out.details["cases"][0]
    assert out.verdict == "refuted" and row["verdict_documented_law"] == "holds" and row["verdict_sampler"] == "refuted"
    assert out.measured["m=4, eps=1"] == pytest.approx(true_eps, rel=1e-14)
    # what the sampler draws is that law: the Monte Carlo audit of its draws refutes ε = 1 as well
    res = audit(mech, eps=1.0, samples=40_000, seed=0, exact=False)
    assert res.verdict == "refuted" and 1.0 < res.eps_lower <= true_eps


def test_a_mistyped_pm_scale_flips_the_exact_check(monkeypatch):
    """PM's sampler with P_low = 1/(1 + e^ε) (ε for ε/2) in its low-region scale: sample_pm and the sampler's
    exact ε read the same scales, so the exact check of fedsel.pm.ldp's cases turns refuted."""
    import estimators.piecewise as pw

    case = [("eps=1", lambda: mechanism("pm", eps=1.0))]
    assert _exact_outcome(case).verdict == "holds"
    right = pw.pm_sampler_scales

    def mistyped(t, eps, shift=0.0):
        k = right(t, eps, shift)
        return dict(k, s_low=k["s_low"] * (1.0 + math.exp(eps)) / (1.0 + math.exp(eps / 2)))

    monkeypatch.setattr(pw, "pm_sampler_scales", mistyped)
    out = _exact_outcome(case)
    row = out.details["cases"][0]
    assert out.verdict == "refuted" and row["verdict_documented_law"] == "holds"
    expected = 1.0 + math.log((1 + math.exp(1.0)) / (1 + math.exp(0.5)))  # the low density shrinks by this factor
    assert out.measured["eps=1"] == pytest.approx(expected, rel=1e-12)
    ys = pw.sample_pm(0.0, 1.0, 200_000, np.random.default_rng(0))
    assert np.mean(np.abs(ys) > pw.pm_constants(1.0)[0]) > 0.05  # the broken scale really is what is drawn


def test_a_typo_in_the_exp_probabilities_flips_the_exact_check(monkeypatch):
    import estimators.fedsel_selection as fs

    case = [("d=5, eps1=1", lambda: mechanism("fedsel-exp", d=5, k=2, eps=1.0))]
    assert _exact_outcome(case).verdict == "holds"

    def typo(z, eps1):  # exp(ε1 z_j/(d − 2)): the sampler's array with a mistyped denominator
        z = np.asarray(z, dtype=np.float64)
        w = np.exp(eps1 * (z - z.size) / (z.size - 2))
        return w / w.sum()

    monkeypatch.setattr(fs, "exp_probabilities", typo)
    out = _exact_outcome(case)
    assert out.verdict == "refuted" and out.measured["d=5, eps1=1"] == pytest.approx(4 / 3, rel=1e-12)
    assert out.details["cases"][0]["verdict_documented_law"] == "holds"


def test_details_say_what_each_case_covered():
    out = _exact_outcome(
        [("de", lambda: mechanism("de", m=3, eps=1.0)), ("gauss", lambda: mechanism("gaussian", sigma=1.0, eps=1.0))]
    )
    de, gauss = out.details["cases"]
    assert "eps_sampler" in de and de["sampler_note"].startswith("the sampler's float p")
    assert "eps_sampler" not in gauss
    assert out.details["coverage"] == "1 of 2 cases also from the sampler's own probabilities"
