"""Draw policies: how many draws an ε audit takes, and when it stops.

A policy turns the event strategy (draw → code → select → estimate on fresh draws) into the audit's Monte Carlo
bound:

- :class:`FixedDraws` — one run of ``samples`` draws per input (``samples=N``; Clopper–Pearson at the level);
- :class:`SequentialDraws` — the default of ``samples="auto"``: epochs of event selection and batches of fresh
  paired draws tested by one e-process, valid at every batch, stopping as soon as the claim is refuted or the
  target certified (:mod:`privcheck.auditor.sequential`);
- :class:`AdaptiveDraws` — ``samples="auto:policy=rounds"``: rounds of growing size, each a complete run on
  fresh draws at error level ``α·2^-r``, until the target is certified or a budget is spent
  (:func:`adaptive_bound`; settings and record in :mod:`privcheck.auditor.adaptive`).

A policy implements :class:`DrawPolicy` — ``planned`` (the most draws per input, for the memory and sample
checks) and ``bound(audit, eps)`` returning the bound and a JSON-ready record for ``details["adaptive"]`` —
and is chosen by :func:`draw_policy` from ``samples=``; the claim runners only call ``policy.bound``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Protocol, Sequence

import numpy as np

from privcheck.auditor.adaptive import (
    PREDICT_MARGIN,
    SPENDING_RULE,
    AdaptiveRecord,
    AdaptiveRound,
    Auto,
    auto_settings,
    budget_message,
    needed_draws,
    parse_samples,
    round_alpha,
)
from privcheck.auditor.bound import choose_view, monte_carlo_bound
from privcheck.auditor.result import MonteCarloBound
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.seeding import derive
from privcheck.base.validation import check_confidence, check_int


@dataclass
class EventAudit:
    """What every Monte Carlo run of one ε audit shares: the sampler at its inputs and the keywords of
    :func:`~privcheck.auditor.bound.monte_carlo_bound` (confidence, seed, view, pairs, …) except ``samples``."""

    sampler: Any
    inputs: list
    keywords: dict = field(default_factory=dict)
    delta: float = 0.0  # the claimed δ (the sequential policy tests it; the others bound δ at ``delta_eps``)
    mu: float | None = None  # the claimed μ of a μ-GDP claim (sequential policy only)

    def bound(self, samples: int, **overrides: Any) -> MonteCarloBound:
        """One complete run of ``samples`` draws per input (``overrides`` replace keywords, e.g. the seed)."""
        return monte_carlo_bound(self.sampler, self.inputs, samples, **{**self.keywords, **overrides})


class DrawPolicy(Protocol):
    """How an ε audit spends draws: ``planned`` draws per input at most; ``bound`` runs the audit's Monte Carlo
    part and returns its bound with a JSON-ready record for ``details`` (None when there is nothing to add)."""

    @property
    def planned(self) -> int:
        """The most draws per input the policy may take."""
        ...

    def bound(self, audit: EventAudit, eps: float) -> tuple[MonteCarloBound, dict | None]:
        """The Monte Carlo bound of the audit of claimed ``eps`` under this policy."""
        ...


@dataclass(frozen=True)
class FixedDraws:
    """``samples`` draws per input in one run."""

    samples: int

    @property
    def planned(self) -> int:
        """The draws per input the run takes."""
        return self.samples

    def bound(self, audit: EventAudit, eps: float) -> tuple[MonteCarloBound, dict | None]:
        """One run of :func:`~privcheck.auditor.bound.monte_carlo_bound`."""
        return audit.bound(self.samples), None


@dataclass(frozen=True)
class AdaptiveDraws:
    """Rounds until certified or a budget is spent (:class:`~privcheck.auditor.adaptive.Auto`)."""

    auto: Auto

    @property
    def planned(self) -> int:
        """The draws budget per input of all rounds together."""
        return self.auto.max_draws

    def bound(self, audit: EventAudit, eps: float) -> tuple[MonteCarloBound, dict | None]:
        """:func:`adaptive_bound` with the audit's keywords; the record as a dict."""
        return _auto_bound(adaptive_bound, self.auto, audit, eps)


@dataclass(frozen=True)
class SequentialDraws:
    """Batches tested by one e-process until refuted, certified or a budget is spent (``samples="auto"``)."""

    auto: Auto

    @property
    def planned(self) -> int:
        """The draws budget per input of all epochs together."""
        return self.auto.max_draws

    def bound(self, audit: EventAudit, eps: float) -> tuple[MonteCarloBound, dict | None]:
        """:func:`~privcheck.auditor.sequential.sequential_bound` with the audit's keywords; the record as a dict."""
        from privcheck.auditor.sequential import sequential_bound  # only for samples="auto" (start-up, issue 33)

        claim = {"delta": audit.delta} if audit.delta > 0 else {}
        if audit.mu is not None:
            claim = {"mu": audit.mu}
        return _auto_bound(sequential_bound, self.auto, audit, eps, **claim)


def _auto_bound(
    run: Callable[..., Any], auto: Auto, audit: EventAudit, eps: float, **claim: Any
) -> tuple[MonteCarloBound, dict]:
    """``run`` (:func:`adaptive_bound` or :func:`~privcheck.auditor.sequential.sequential_bound`) with the audit's
    keywords (and ``claim``: the sequential policy's ``delta=`` / ``mu=``); the record as a dict."""
    kw = dict(audit.keywords)
    confidence, seed, progress = kw.pop("confidence"), kw.pop("seed"), kw.pop("progress", None)
    b, record = run(
        audit.sampler, audit.inputs, auto, eps=eps, confidence=confidence, seed=seed, progress=progress, **kw, **claim
    )
    return b, record.to_dict()


#: the policies of ``samples="auto"`` (their records go to ``details["adaptive"]``)
AUTO_POLICIES = (SequentialDraws, AdaptiveDraws)


def draw_policy(samples: Any) -> FixedDraws | AdaptiveDraws | SequentialDraws:
    """The policy a ``samples=`` value asks for: an integer ≥ 20 (:class:`FixedDraws`), ``"auto"``,
    ``"auto:key=value,..."`` or an :class:`~privcheck.auditor.adaptive.Auto` (:class:`SequentialDraws`, or
    :class:`AdaptiveDraws` with ``policy=rounds``)."""
    if isinstance(samples, (str, Auto)):  # samples="auto" or Auto(...)
        auto = parse_samples(samples)
        if isinstance(auto, Auto):
            return SequentialDraws(auto) if auto.policy == "sequential" else AdaptiveDraws(auto)
        samples = auto
    return FixedDraws(check_int("samples", samples, minimum=20))


# ----------------------------------------------------------------------------- the adaptive rounds
@dataclass
class _Rounds:
    """The state of adaptive rounds: what ran, what each round certified, why they stopped."""

    auto: Auto
    eps: float
    alpha: float
    t0: float
    rounds: list[AdaptiveRound] = field(default_factory=list)
    bounds: list[MonteCarloBound] = field(default_factory=list)
    stopped: str = "draws budget"

    @property
    def goal(self) -> float | None:
        """The ε the target asks to certify (None for a claim of ε = 0 or ∞: only refutation stops early)."""
        return self.auto.target * self.eps if 0 < self.eps < math.inf else None

    @property
    def used(self) -> int:
        """Draws per input spent so far."""
        return sum(x.samples for x in self.rounds)

    def size(self, r: int, n: int) -> int:
        """Round ``r``'s nominal size ``n`` cut to what the best event so far predicts (with a margin), but never
        below twice the last round: the prediction is optimistic (the best event's counts are its luckiest)."""
        if self.goal is None or not self.bounds:
            return n
        best_b = max(self.bounds, key=lambda x: x.eps_lower)
        if best_b.counts is None:
            return n
        need = needed_draws(best_b.counts, self.goal, round_alpha(self.alpha, r) / max(1, len(best_b.candidates)))
        if need is None:
            return n
        return min(n, max(2 * self.rounds[-1].samples, math.ceil(PREDICT_MARGIN * need)))

    def over_time(self, n: int) -> bool:
        """Whether a round of ``n`` draws is predicted to overrun the seconds budget (at the rate so far)."""
        if self.auto.max_seconds is None or not self.rounds:
            return False
        elapsed = time.perf_counter() - self.t0
        return elapsed + elapsed / self.used * n > self.auto.max_seconds

    def add(self, r: int, n: int, a_r: float, b: MonteCarloBound, seconds: float) -> bool:
        """Record round ``r``; True when the rounds stop (claim refuted, target reached, seconds budget spent)."""
        self.bounds.append(b)
        self.rounds.append(AdaptiveRound(r, n, a_r, 1.0 - a_r, b.eps_lower, b.eps_max_certifiable, b.event, seconds))
        best = max(x.eps_lower for x in self.bounds)
        if best > self.eps:
            self.stopped = "claim refuted"
        elif self.goal is not None and best >= self.goal:
            self.stopped = "target reached"
        elif self.auto.max_seconds is not None and time.perf_counter() - self.t0 >= self.auto.max_seconds:
            self.stopped = "seconds budget"
        else:
            return False
        return True

    def result(self, confidence: float) -> tuple[MonteCarloBound, AdaptiveRecord]:
        """The best round's bound at the overall confidence (totals over rounds) and the record."""
        if not self.bounds:  # unreachable: Auto guarantees one round of at least MIN_ROUND draws
            raise PrivcheckUsageError("samples='auto': the budget allows no round")
        j = max(range(len(self.bounds)), key=lambda i: self.bounds[i].eps_lower)
        bound = replace(
            self.bounds[j],
            confidence=confidence,
            samples_per_input=self.used,
            eps_max_certifiable=max(x.eps_max_certifiable for x in self.bounds),
            draws=sum(x.draws for x in self.bounds),
        )
        a = self.auto
        spent = sum(x.alpha for x in self.rounds)
        best_round = j + 1 if bound.event is not None else None
        record = AdaptiveRecord(
            a.target,
            a.max_draws,
            a.max_seconds,
            SPENDING_RULE,
            self.alpha,
            spent,
            self.stopped,
            best_round,
            self.rounds,
        )
        if self.stopped in ("draws budget", "seconds budget"):
            need = None
            if self.goal is not None and bound.counts is not None:
                level = round_alpha(self.alpha, len(self.rounds) + 1) / max(1, len(bound.candidates))
                need = needed_draws(bound.counts, self.goal, level)
            record.needed_draws = need
            elapsed = time.perf_counter() - self.t0
            record.message = budget_message(a, self.eps, bound, self.rounds, self.stopped, need, elapsed)
        return bound, record


def _one_view(sampler: Any, inputs: Any, auto: Auto, ss: np.random.SeedSequence, mc_kwargs: dict) -> Any:
    """The view every round audits, by output type on one probe from ``derive(seed, "autoview")``: sized for
    the first two rounds (what any run of the budget starts with), not for max_draws — a slow sampler whose
    seconds budget allows one or two small rounds must not spend it on the probe."""
    first_two = min(auto.max_draws, auto.first_size * auto.growth)
    return choose_view(
        sampler,
        inputs,
        first_two,
        seed=derive(ss, "autoview"),
        pairs=mc_kwargs.get("pairs"),
        neighbours=mc_kwargs.get("neighbours"),
    )


def adaptive_bound(
    sampler: Any,
    inputs: Sequence | None,
    auto: Auto | str = "auto",
    *,
    eps: float,
    confidence: float = 0.95,
    seed: int | np.random.SeedSequence = 0,
    progress: Callable[[int], None] | None = None,
    **mc_kwargs: Any,
) -> tuple[MonteCarloBound, AdaptiveRecord]:
    """Monte Carlo lower bound on ε in rounds until ``auto.target`` of the claimed ``eps`` is certified.

    Parameters
    ----------
    sampler, inputs : as for :func:`privcheck.auditor.bound.monte_carlo_bound`.
    auto : ``"auto"`` (defaults) or an :class:`~privcheck.auditor.adaptive.Auto` with the target and budgets.
    eps : the claimed ε ≥ 0 the target refers to (for ε = 0 or ∞ only
        refutation or a budget stops the rounds).
    confidence : in (0, 1); the overall confidence, spent as ``α_r = α·2^{-r}``.
    seed : int or SeedSequence; round ``r`` draws from ``derive(seed, "adaptive", r)``.
    mc_kwargs : passed on to every round (jobs, client, pairs, neighbours, view,
        max_events, selection_share); δ claims are not audited by rounds (``delta_eps``
        must not be given).

    Returns ``(bound, record)``: a :class:`MonteCarloBound` whose ``eps_lower``
    is the best round's bound at the overall ``confidence``, ``samples_per_input``
    and ``draws`` the totals over rounds, ``eps_max_certifiable`` the largest any
    round could certify; and the :class:`~privcheck.auditor.adaptive.AdaptiveRecord`.
    """
    parsed = auto_settings(auto, mc_kwargs)
    confidence = check_confidence(confidence)
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(int(seed))
    state = _Rounds(parsed, eps, 1.0 - confidence, time.perf_counter())
    if mc_kwargs.get("view") is None:  # views by output type: one probe for all rounds
        mc_kwargs["view"] = _one_view(sampler, inputs, parsed, ss, mc_kwargs)
    r = 0
    while (n := parsed.next_size(r + 1, state.used)) is not None:
        r += 1
        n = state.size(r, n)
        if state.over_time(n):
            state.stopped = "seconds budget"
            break
        a_r = round_alpha(state.alpha, r)
        t_r = time.perf_counter()
        b = monte_carlo_bound(
            sampler, inputs, n, confidence=1.0 - a_r, seed=derive(ss, "adaptive", r), progress=progress, **mc_kwargs
        )
        if state.add(r, n, a_r, b, round(time.perf_counter() - t_r, 4)):
            break
    return state.result(confidence)
