"""``check_sampling``: does a training pipeline sample records the way its accountant assumes?

DP-SGD accountants (Opacus, dp_accounting, TF Privacy, Flower's) assume Poisson sampling at rate q: every record
joins every step independently with probability q. Loaders often draw fixed-size shuffled batches instead (TF
Privacy issue #483: no tight accounting is known for shuffling), or weight records (Opacus issue #813: a weighted
sampler makes the declared rate wrong), and jax_privacy warns when the pipeline is not Poisson (PR #272). This
check tests the declared scheme on the batches actually drawn, with exact tests and Holm's correction over the
tests it tried, and says what the observed scheme means for the accountant.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.seeding import generator
from privcheck.base.stats import adjust_pvalues, clopper_pearson
from privcheck.base.validation import check_confidence, check_int, check_probability
from privcheck.sampling import tests as st
from privcheck.sampling.batches import as_batches
from privcheck.sampling.structure import Structure, structure, top_rate

SCHEMES = ("poisson", "fixed", "shuffle")

ACCOUNTING = {
    "poisson": "Poisson sampling: the Poisson-subsampled accountant applies at the observed rate (add/remove relation)",
    "fixed": "fixed-size batches: use sampling-without-replacement accounting (replace-one relation, e.g. "
    "dp_accounting SampledWithoutReplacementDpEvent); the Poisson accountant's eps does not apply",
    "shuffle": "shuffled epochs (each record once per epoch): no tight accounting is known (TF Privacy issue #483); "
    "the Poisson accountant's eps does not apply; account without amplification, or switch the loader to Poisson",
    "with-replacement": "batches with repeated records (sampling with replacement): neither the Poisson nor the "
    "without-replacement accountant applies; a record can contribute several gradients to one step",
    "weighted": "non-uniform inclusion (a weighted sampler): records join at different rates, so a single q "
    "understates the most-sampled record's exposure (Opacus issue #813); account with q at least the largest "
    "rate's upper bound, or sample uniformly",
    "rate": "Poisson-like, but at a rate other than the declared q: account at the observed rate's upper bound",
    "dependent": "batches are not independent across steps: no subsampling accountant applies as stated",
}


@dataclass
class SamplingResult:
    """Verdict of :func:`check_sampling`: ``holds`` (no departure detected at this power), ``refuted`` (the
    batches contradict the declared scheme), ``inconclusive`` (too little to test). ``observed``: what the
    batches look like; ``accounting``: what that means for the accountant; ``evidence``: the tests with raw
    and Holm-adjusted p-values; ``violations``: deterministic contradictions (no p-value needed)."""

    verdict: str
    scheme: str
    n: int
    q: float | None
    steps: int
    observed: str
    accounting: str
    evidence: list[st.Evidence]
    violations: list[str] = field(default_factory=list)
    q_observed: tuple[float, float, float] | None = None
    top_record: dict | None = None
    confidence: float = 0.95
    seed: int = 0
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "scheme": self.scheme,
            "n": self.n,
            "q": self.q,
            "steps": self.steps,
            "observed": self.observed,
            "accounting": self.accounting,
            "evidence": [e.to_dict() for e in self.evidence],
            "violations": list(self.violations),
            "q_observed": None if self.q_observed is None else list(self.q_observed),
            "top_record": self.top_record,
            "confidence": self.confidence,
            "correction": "holm",
            "seed": self.seed,
            "reason": self.reason,
        }

    def summary(self) -> str:
        """Human-readable lines: verdict, observed scheme, accounting consequence, evidence."""
        lines = [f"{self.verdict}: declared {self.scheme}" + (f" at q = {self.q:g}" if self.q is not None else "")]
        lines.append(f"observed   {self.observed}")
        lines.append(f"accounting {self.accounting}")
        if self.q_observed is not None:
            q, lo, hi = self.q_observed
            lines.append(f"rate       q observed {q:.6g}, interval [{lo:.6g}, {hi:.6g}] (Clopper-Pearson)")
        for v in self.violations:
            lines.append(f"violation  {v}")
        for e in self.evidence:
            lines.append(f"test       {e.test}: p = {e.pvalue:.3g} (Holm {e.p_adjusted:.3g}): {e.detail}")
        if self.reason:
            lines.append(f"note       {self.reason}")
        return "\n".join(lines)


def _violations(s: Structure, scheme: str, q: float | None) -> list[str]:
    out = []
    if s.duplicates:
        out.append(f"{len(s.duplicates)} batches repeat a record (first: batch {s.duplicates[0]}): with replacement")
    if scheme == "fixed":
        if not s.constant_size:
            out.append(f"batch sizes vary ({int(s.sizes.min())}..{int(s.sizes.max())}): not fixed-size")
        elif q is not None and abs(int(s.sizes[0]) - q * s.n) >= 1:
            out.append(f"batch size {int(s.sizes[0])} is not q*n = {q * s.n:.6g}")
    if scheme == "shuffle" and not s.epoch_partition:
        out.append("records repeat within an epoch or epochs leave records out: not shuffled epochs")
    return out


def _tests(batches: list[np.ndarray], s: Structure, scheme: str, q: float | None, seed: int) -> list[st.Evidence]:
    rng = lambda k: generator(seed, "check_sampling", k)  # noqa: E731 - one independent stream per test
    ev: list[st.Evidence] = []
    if scheme == "poisson":
        if q is not None:
            ev.append(st.total_test(s.S, s.n, s.T, q))
        if s.T >= 2:
            ev.append(st.batch_size_test(s.sizes, s.n, rng("sizes")))
    if scheme in ("poisson", "fixed") and s.T >= 2 and s.S > 0:
        ev.append(st.inclusion_test(s.counts, s.sizes, s.n, rng("rates"), poisson=scheme == "poisson"))
        ev.append(st.overlap_test(batches, s.n, rng("overlap")))
    if scheme == "shuffle" and s.complete_epochs >= 2:
        ev.append(st.reshuffle_test(s.epochs[: s.complete_epochs], rng("reshuffle")))
    return ev


def _observed(s: Structure, ev: dict[str, st.Evidence], alpha: float, q: float | None, qiv) -> str:
    """The scheme the batches look like (a key of :data:`ACCOUNTING`)."""
    if s.duplicates:
        return "with-replacement"
    if s.epoch_partition and s.complete_epochs >= 1 and s.T >= 2:
        return "shuffle"
    if s.constant_size:
        return "fixed"
    rates = ev.get("inclusion_rates")
    if rates is not None and rates.p_adjusted is not None and rates.p_adjusted < alpha and rates.tail == "high":
        return "weighted"
    dep = ev.get("independence")
    if dep is not None and dep.p_adjusted is not None and dep.p_adjusted < alpha:
        return "dependent"
    if q is not None and qiv is not None and not (qiv[1] <= q <= qiv[2]):
        return "rate"
    return "poisson"


def check_sampling(
    batches: Any,
    *,
    n: int,
    q: float | None = None,
    scheme: str = "poisson",
    confidence: float = 0.95,
    seed: int = 0,
    epochs: int = 1,
) -> SamplingResult:
    """Test whether ``batches`` were drawn by the declared sampling ``scheme`` over ``n`` records.

    batches: an iterable of index arrays, a data loader or a batch sampler (:mod:`privcheck.sampling.batches`);
    n ≥ 1 records; q in (0, 1]: the declared sampling rate (Poisson: each record's probability per step;
    fixed: batch size / n; None: not tested, the rate is estimated); scheme: ``"poisson"`` (independent
    inclusion at rate q per step), ``"fixed"`` (independent uniform subsets of one size), ``"shuffle"`` (each
    epoch a fresh uniform permutation cut into batches); confidence in (0, 1): family-wise over the tests tried
    (Holm); seed ≥ 0: the Monte Carlo nulls; epochs ≥ 1: passes over a re-iterable loader or sampler.

    Tests (:mod:`privcheck.sampling.tests`): the total count (exact binomial), batch-size dispersion and
    per-record inclusion dispersion (exact conditional Monte Carlo), overlap of consecutive batches
    (independence), and, for shuffling, the reshuffle between epochs; plus deterministic contradictions
    (repeated records in a batch, varying sizes for ``fixed``, records repeated within an epoch for
    ``shuffle``). The rate of the most-sampled record is estimated on steps not used to select it.
    """
    if scheme not in SCHEMES:
        raise PrivcheckUsageError(f"scheme must be one of {', '.join(SCHEMES)}, got {scheme!r}")
    n = check_int("n", n, minimum=1)
    if q is not None:
        q = check_probability("q", q, open_low=True)
    confidence = check_confidence(confidence)
    seed = check_int("seed", seed, minimum=0)
    epochs = check_int("epochs", epochs, minimum=1)
    alpha = 1 - confidence
    b = as_batches(batches, n, epochs)
    s = structure(b, n)
    ev = _tests(b, s, scheme, q, seed)
    if ev:
        _, adj = adjust_pvalues([e.pvalue for e in ev], alpha, "holm")
        for e, p in zip(ev, adj):
            e.p_adjusted = float(p)
    viol = _violations(s, scheme, q)
    qiv = None
    if s.S <= s.n * s.T:
        lo, hi = clopper_pearson(s.S, s.n * s.T, alpha)
        qiv = (s.S / (s.n * s.T), float(lo), float(hi))
    key = _observed(s, {e.test: e for e in ev}, alpha, q, qiv)
    rejected = [e for e in ev if e.p_adjusted is not None and e.p_adjusted < alpha]
    reason = ""
    if viol or rejected:
        verdict = "refuted"
    elif not ev or (scheme == "shuffle" and s.complete_epochs < 2):
        verdict = "inconclusive"
        reason = "too few steps to test" + (" (shuffle: two complete epochs needed)" if scheme == "shuffle" else "")
    else:
        verdict = "holds"
        reason = "no departure from the declared scheme detected at this power (a test can refute, never prove)"
    accounting = ACCOUNTING[key]
    if key == "weighted":
        top = top_rate(b, n, confidence)
        if top is not None:
            accounting += (
                f" (most-sampled record {top['record']}: rate in [{top['rate_lower']:.4g}, {top['rate_upper']:.4g}])"
            )
    if key == "rate" and qiv is not None:
        accounting += f" (observed q in [{qiv[1]:.6g}, {qiv[2]:.6g}], declared {q:g})"
    return SamplingResult(
        verdict,
        scheme,
        n,
        q,
        s.T,
        _describe(key, s),
        accounting,
        ev,
        viol,
        qiv,
        top_rate(b, n, confidence),
        confidence,
        seed,
        reason,
    )


def _describe(key: str, s: Structure) -> str:
    base = {
        "poisson": "independent inclusion at one rate (Poisson-like)",
        "fixed": f"fixed-size batches of {int(s.sizes[0]) if s.T else 0}",
        "shuffle": f"shuffled epochs: {s.complete_epochs} complete, each record once per epoch",
        "with-replacement": "records repeated within batches (sampling with replacement)",
        "weighted": "non-uniform inclusion rates (weighted sampling)",
        "rate": "independent inclusion at a rate other than the declared q",
        "dependent": "batches dependent across steps",
    }[key]
    return f"{base}; {s.T} steps, {s.S} inclusions of {s.n} records"
