"""Adaptive power: ``audit(..., samples="auto")`` draws in rounds until the bound is good enough.

Round r (r = 1, 2, ...) is a complete audit on *fresh* draws (its own seed stream) with
``samples_r = START · 2^(r−1)`` draws per input, at error level ``α_r = α · 2^(−r)`` (alpha spending:
Σ α_r < α). Stop when the certified fraction reaches ``target`` of the claimed ε, when the claim is
refuted, or before a round would exceed the draw budget ``max_samples`` (per input, summed over
rounds) or the time budget ``max_seconds``.

Validity: every round's bound holds with probability ≥ 1 − α_r whatever happened in earlier rounds
(its draws are independent of them, the stopping rule only decides whether it runs), so by the union
bound all rounds' bounds hold together with probability ≥ 1 − Σ α_r ≥ 1 − α, and the best of them —
the one reported — is a valid lower bound at confidence 1 − α. The record states the rounds, each
round's level and the spending rule.
"""
from __future__ import annotations

import math
import time
from typing import Any

from privcheck.validation import check_confidence, check_int, check_probability

#: draws per input of the first round
START = 50_000
#: default budget: draws per input over all rounds
MAX_SAMPLES = 10_000_000
#: default target: certified fraction of the claimed ε
TARGET = 0.95


def audit_auto(mech, *, confidence: float = 0.95, seed: int = 0, target: float = TARGET,
               max_samples: int = MAX_SAMPLES, max_seconds: float | None = None, start: int = START,
               **kwargs: Any):
    """:func:`privcheck.auditor.audit` in rounds of doubling size (see the module docstring).

    Parameters: ``mech`` and ``kwargs`` as for ``audit`` (not ``samples``); ``confidence`` in (0, 1) for
    all rounds together; ``target`` in (0, 1]: stop once ``certified_fraction ≥ target``; ``max_samples``
    ≥ ``start`` ≥ 20: draws per input over all rounds; ``max_seconds``: stop before a round when this
    much time has passed (None: no limit). Returns the best round's :class:`AuditResult` with
    ``details["adaptive"]`` listing every round and a one-line ``reason`` when the budget stopped it short.
    """
    from privcheck.auditor.core import audit

    confidence = check_confidence(confidence)
    target = check_probability("target", target, open_low=True)
    start = check_int("start", start, minimum=20)
    max_samples = check_int("max_samples", max_samples, minimum=start)
    seed = check_int("seed", seed, minimum=0)
    alpha = 1.0 - confidence
    t0 = time.perf_counter()
    rounds, best, used, n, r = [], None, 0, start, 1
    reason = None
    while True:
        a_r = alpha * 2.0 ** (-r)
        res = audit(mech, samples=n, seed=seed * 1009 + r, confidence=1.0 - a_r, **kwargs)
        used += n
        rounds.append({"round": r, "samples_per_input": n, "alpha": a_r, "eps_lower": res.eps_lower,
                       "certified_fraction": res.certified_fraction, "verdict": res.verdict})
        if best is None or (res.eps_lower or -math.inf) > (best.eps_lower or -math.inf):
            best = res
        frac = res.certified_fraction
        if res.verdict == "refuted" or res.eps_lower is None or (frac is not None and frac >= target):
            break
        n *= 2
        if used + n > max_samples:
            reason = (f"budget of {max_samples} draws per input spent after {r} rounds: certified "
                      f"{(best.certified_fraction or 0):.1%} < target {target:.0%}")
            break
        if max_seconds is not None and time.perf_counter() - t0 > max_seconds:
            reason = f"time budget of {max_seconds:g} s spent after {r} rounds"
            break
        r += 1
    best.details["adaptive"] = {"rounds": rounds, "target": target, "samples_used_per_input": used,
                                "alpha_spending": "round r at alpha * 2^-r (sum < alpha); reported: best round",
                                "stopped": reason or "target reached or refuted"}
    best.confidence = confidence
    best.samples = used
    best.seconds = round(time.perf_counter() - t0, 4)
    if reason and best.verdict != "refuted":
        best.reason = reason if best.reason is None else f"{best.reason}; {reason}"
    return best
