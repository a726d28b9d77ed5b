"""Training runs audited end to end: train once with canaries, score them, bound ε in one run.

:func:`audit_training` runs a :class:`estimators.training.TrainingConfig` (DP-SGD or DP-FedAvg in
numpy) once, with m canaries each included with probability ½, and audits the scores with
:func:`privcheck.canaries.audit_scores` against the run's *own* PLD accountant (built from the
claimed q, σ and steps): by default with the f-DP one-run recursion (Mahloujifar et al. 2025) on the
accountant's certified trade-off curve, which also gives the certified (ε, δ) lower bound; the
fraction ε_lower / ε_accountant is the share of the claimed ε the audit certifies.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

from estimators.training import TrainingConfig, run
from estimators.training.accounting import accountant
from privcheck.canaries.audit import ScoreAudit, audit_scores
from privcheck.canaries.curves import curve_table

__all__ = ["TrainingAudit", "audit_training", "claimed_curve"]


@functools.lru_cache(maxsize=16)
def claimed_curve(q: float, sigma: float, steps: int, delta: float):
    """(the accountant's certified ε at δ as an Interval, its certified curve table) for these claimed parameters."""
    acc = accountant(q, sigma, steps)
    return acc.epsilon(delta), curve_table(acc)


@dataclass(frozen=True)
class TrainingAudit:
    """One training run audited: the claimed ε (accountant, upper end), the certified bounds, the verdict."""

    config: TrainingConfig
    eps_claimed: float
    delta: float
    eps_lower: float
    fraction: float
    mu_lower: float | None
    verdict: str | None
    reason: str | None
    score: str
    canaries: int
    included: int
    accuracy: float
    audit: ScoreAudit
    seconds: dict

    def to_dict(self) -> dict:
        """JSON-ready record."""
        from dataclasses import asdict

        from privcheck.claims import _jsonable

        cfg = asdict(self.config)
        cfg.pop("extra", None)
        return _jsonable(
            {
                "config": cfg,
                "eps_claimed": self.eps_claimed,
                "delta": self.delta,
                "eps_lower": self.eps_lower,
                "fraction_certified": self.fraction,
                "mu_lower": self.mu_lower,
                "verdict": self.verdict,
                "reason": self.reason,
                "score": self.score,
                "canaries": self.canaries,
                "included": self.included,
                "accuracy": self.accuracy,
                "audit": self.audit.to_dict(),
                "seconds": self.seconds,
            }
        )


def audit_training(
    config: TrainingConfig,
    *,
    delta: float = 1e-5,
    confidence: float = 0.95,
    method: str = "one-run-fdp",
    thresholds="split",
    seed: int = 0,
    progress=None,
) -> TrainingAudit:
    """Train ``config`` once with its canaries and audit the run against its own accountant.

    delta in (0, 1): the δ of the claimed ε and of ``eps_lower``; confidence in (0, 1); method: an
    :func:`audit_scores` method; thresholds: its threshold rule — by default ``"split"``: the guess
    rule is chosen on half of the canaries and bounded on the other half at the full error level
    (with a Bonferroni division over ~300 rules at a family-wise level, τ = α/300 falls below
    δ·m/c and the δ terms of both one-run bounds leave ε_lower = 0: measured at m = 10⁴, α = 0.003);
    seed: the run's randomness (canary inclusion, sampling, noise) and the split's;
    progress(step, total): called after each training step."""
    t0 = time.perf_counter()
    eps_iv, curve = claimed_curve(config.q, config.sigma, config.steps, delta)
    t1 = time.perf_counter()
    res = run(config, seed, progress)
    t2 = time.perf_counter()
    aud = audit_scores(
        res.scores_in,
        res.scores_out,
        method=method,
        delta=delta,
        accountant=curve,
        confidence=confidence,
        thresholds=thresholds,
        seed=seed,
    )
    eps_claimed = float(eps_iv.upper)
    verdict, reason = aud.verdict, aud.reason
    if method == "one-run":  # the curve is only tested through ε at δ: decide against the accountant's ε
        verdict, reason = _eps_verdict(aud, eps_claimed)
    return TrainingAudit(
        config=config,
        eps_claimed=eps_claimed,
        delta=delta,
        eps_lower=aud.eps_lower,
        fraction=aud.eps_lower / eps_claimed if eps_claimed > 0 else 0.0,
        mu_lower=aud.mu_lower,
        verdict=verdict,
        reason=reason,
        score=res.score_name,
        canaries=config.canaries,
        included=int(res.included.sum()),
        accuracy=res.accuracy,
        audit=aud,
        seconds={"accountant": t1 - t0, "training": t2 - t1, "audit": aud.seconds, "total": time.perf_counter() - t0},
    )


def _eps_verdict(aud: ScoreAudit, eps_claimed: float) -> tuple[str, str | None]:
    if aud.eps_lower > eps_claimed:
        return "refuted", None
    if aud.eps_max <= eps_claimed:
        return "inconclusive", f"these canaries can certify at most eps {aud.eps_max:.4g} <= {eps_claimed:.4g}"
    if aud.eps_lower <= 0:
        return "inconclusive", "no guess rule separated in from out (eps_lower = 0)"
    return "holds", None
