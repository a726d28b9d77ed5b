"""μ-GDP claims of the FL seeds, audited black-box as trade-off curves (:mod:`privcheck.auditor.curves`).

- ``spriFed.noisysmpc.gdp_audit`` — 002 (SPriFed-OMP) Alg. 1: n clients each add N(0, σ²/n) to
  their contribution and the server sees only the secure-aggregated sum; one client's contribution
  changing by Δ (ℓ2) makes the sum μ-GDP with μ = Δ/σ (Gaussian mechanism, Dong, Roth & Su 2019
  Thm 2.7). Sampled with :func:`estimators.noisysmpc.noisy_smpc` (every client's noise drawn).
- ``seif.ota.gdp_audit`` — 004 (Seif, Chang, Tandon) Sec. II, eq. 6–8: one over-the-air
  aggregation step with channel inversion, artificial noise σ² per participant and receiver noise
  N0, all K users participating (p_k = 1): replacing user k's gradient (‖g_k‖ ≤ L, so a change of
  at most 2L) is the Gaussian mechanism with noise variance Kσ² + N0 per coordinate, μ-GDP with
  μ = 2L/√(Kσ² + N0). Sampled with :func:`estimators.wireless.draw` (Rayleigh channels drawn).

Each case is audited against its claimed μ (refuted when an empirical (α, β) box lies below
G_μ); the family-wise confidence ``ctx.confidence`` is split over the cases (Bonferroni).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from estimators import noisysmpc, wireless
from privcheck.auditor import audit
from privcheck.claims import CATALOGUE, Claim, Outcome, RunContext, check

P002 = noisysmpc.SOURCE
P004 = wireless.SOURCE

CATALOGUE.add_claim(
    Claim(
        "spriFed.noisysmpc.gdp_audit",
        P002,
        "Alg. 1",
        "privacy",
        "the NoisySMPC sum (n clients each adding N(0, σ²/n)) is μ-GDP with μ = Δ/σ for a change Δ of one "
        "client's contribution; audited black-box as a trade-off curve",
        ("mc",),
    )
)
CATALOGUE.add_claim(
    Claim(
        "seif.ota.gdp_audit",
        P004,
        "Sec. II, eq. 6–8",
        "privacy",
        "one over-the-air aggregation step (channel inversion, artificial noise σ² per user, receiver noise N0, "
        "all K users participating) is μ-GDP with μ = 2L/√(Kσ² + N0) when one user's gradient (‖g‖ ≤ L) is "
        "replaced; audited black-box as a trade-off curve",
        ("mc",),
    )
)

Case = tuple[str, float, Callable]


def _noisysmpc_case(n: int, d: int, sigma: float, delta: float) -> Case:
    def sampler(x, size, rng):
        values = np.zeros((n, d))
        values[0, 0] = x * delta  # client 0's contribution: 0 or Δ·e1
        return noisysmpc.noisy_smpc(values, sigma, rng, size)

    return f"n={n}, d={d}, sigma={sigma:g}, Delta={delta:g}", noisysmpc.gdp_mu(delta, sigma), sampler


def _seif_case(K: int, d: int, sigma2: float, N0: float, L: float) -> Case:
    def sampler(x, size, rng):
        grads = np.zeros((K, d))
        grads[0, 0] = x * L  # user 0's gradient: ±L·e1 (a replacement moves it by 2L)
        s = wireless.setup(grads, D=1.0, p=1.0, sigma=math.sqrt(sigma2), N0=N0)
        return wireless.draw(s, rng, size)[1]

    mu = 2 * L / math.sqrt(K * sigma2 + N0)
    return f"K={K}, d={d}, sigma2={sigma2:g}, N0={N0:g}, L={L:g}", mu, sampler


def _curve_outcome(ctx: RunContext, cases: list[Case], inputs: list, default: int, quick: int) -> Outcome:
    """Audit every case's μ claim; ``refuted`` when any case is, ``holds`` when all hold."""
    n = ctx.n(default, quick)
    conf = 1.0 - (1.0 - ctx.confidence) / len(cases)
    base = int(ctx.seed_seq.generate_state(1)[0])
    rows, verdicts = [], []
    for i, (label, mu, sampler) in enumerate(cases):
        res = audit(sampler, inputs=inputs, mu=mu, samples=n, seed=base + i, confidence=conf, jobs=ctx.jobs)
        verdicts.append(res.verdict)
        rows.append(
            {
                "case": label,
                "mu_claimed": mu,
                "mu_lower": res.mu_lower,
                "verdict": res.verdict,
                "confidence": conf,
                "samples_per_input": n,
                "points": len(res.curve_points or []),
                "curve_points": res.curve_points or [],
            }
        )  # drawn in the reports (plots.audit_curve_data)
    verdict = "refuted" if "refuted" in verdicts else "holds" if all(v == "holds" for v in verdicts) else "inconclusive"
    return Outcome(
        verdict,
        claimed={r["case"]: r["mu_claimed"] for r in rows},
        measured={r["case"]: r["mu_lower"] for r in rows},
        details={
            "cases": rows,
            "note": "mu_lower: certified lower bound on the mechanism's mu; "
            "'holds' means no violation detected at this power",
        },
        samples=n * len(inputs) * len(cases),
    )


@check("spriFed.noisysmpc.gdp_audit", "mc")
def _noisysmpc_gdp(ctx: RunContext) -> Outcome:
    cases = [_noisysmpc_case(10, 3, 2.0, 1.0), _noisysmpc_case(5, 2, 1.0, 1.5)]
    return _curve_outcome(ctx, cases, [0, 1], 400_000, 50_000)


@check("seif.ota.gdp_audit", "mc")
def _seif_gdp(ctx: RunContext) -> Outcome:
    cases = [_seif_case(10, 2, 0.1, 1.0, 1.0), _seif_case(20, 2, 0.1, 0.0, 0.5)]
    return _curve_outcome(ctx, cases, [-1, 1], 400_000, 50_000)
