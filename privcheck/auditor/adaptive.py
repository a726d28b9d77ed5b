"""Adaptive power: ``samples="auto"`` draws until the claim is refuted, a target is certified or a budget is spent.

This module holds the settings of ``samples="auto"`` (:class:`Auto`, ``--samples`` parsing) and the record and
messages of the *rounds* policy. Two policies read them (``Auto.policy``):

- ``"sequential"`` (the default): batches of fresh draws tested by one anytime-valid e-process, which may stop
  at any batch (:mod:`privcheck.auditor.sequential`);
- ``"rounds"`` (``samples="auto:policy=rounds"``): complete audits of growing size, described below.

The rounds themselves are the adaptive draw policy :func:`privcheck.auditor.policy.adaptive_bound`. It runs
:func:`privcheck.auditor.bound.monte_carlo_bound` in rounds ``r = 1, 2, …`` of growing size (``first``, ``growth·first``, …;
the last round takes all the draws budget leaves, see :meth:`Auto.next_size`),
each cut to :data:`PREDICT_MARGIN` times the draws the best event of the
earlier rounds predicts the target needs (:func:`needed_draws`), but not below
twice the previous round (the best event's counts are its luckiest, so the
prediction is optimistic). A round's size
depends on earlier rounds only, never on its own draws, so it cannot bias it. Each round is a complete,
independent audit: its own pilot, selection and *fresh* estimation draws from
its own child SeedSequence (``derive(seed, "adaptive", r)``); no draw of one
round is reused by another, so events are never estimated on the draws that
chose them.

Alpha spending: round ``r`` runs at error level ``α_r = α · 2^{-r}``
(confidence ``1 − α_r``), so ``Σ_r α_r < α`` however many rounds run. Each
round's bound is valid at its own level; by the union bound, with probability
at least ``1 − α`` *every* round's bound is ≤ the true ε, hence so is their
maximum, which is the reported bound (valid whatever the data-dependent
stopping time, since the guarantee holds simultaneously for all rounds).

Stopping rule, checked after every round: the claim is refuted (the best bound
exceeds the claimed ε), or the certified fraction ``best/ε_claimed`` reaches
``target``; else the draws budget (``max_draws`` per input, all rounds
together) or the seconds budget (``max_seconds``; a round predicted to overrun
it is not started) is spent. The record (:class:`AdaptiveRecord`) states the
spending rule, every round's draws, level and bound, and why it stopped; when
a budget stopped it short of the target, ``message`` says so in one line with
the draws per input the best event would need (a prediction, labelled so).

Reproducibility: the round sizes are a function of the earlier rounds, so the
result is a function of the seed, the target and the draws budget; where the
seconds budget stopped the rounds, the record lists the rounds run (the same
seed and settings repeat them; only where it stops depends on timing).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from privcheck.auditor.defaults import SELECTION_SHARE
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.stats import log_ratio_lower_bound
from privcheck.base.validation import check_int, check_positive, check_probability

#: default target: the certified fraction of the claimed ε at which the rounds stop
DEFAULT_TARGET = 0.95
#: default draws budget per input (all rounds together)
DEFAULT_MAX_DRAWS = 10_000_000
#: draws per input of the rounds policy's first round, and the growth factor of the next ones (or epochs)
FIRST_ROUND = 1 << 16
GROWTH = 4
#: draws per input of the sequential policy's first epoch (selection and its first batches)
FIRST_EPOCH = 2000
#: the policies ``samples="auto"`` can run (the first is the default)
POLICIES = ("sequential", "rounds")
#: a round is cut to this multiple of the draws the best event so far predicts it needs
PREDICT_MARGIN = 1.5
#: a round smaller than this (what a budget leaves) is not run
MIN_ROUND = 1000
SPENDING_RULE = "alpha_r = alpha * 2^-r for round r = 1, 2, ... (sum < alpha); bound = max over rounds (union bound)"


@dataclass(frozen=True)
class Auto:
    """``samples=Auto(...)`` (or ``samples="auto"``): draw until refuted, certified or a budget is spent.

    target: certified fraction of the claimed ε at which to stop, in (0, 1]
    (default 0.95). max_draws: draws per input over all batches or rounds, ≥ 1000
    (default 10⁷). max_seconds: optional wall-clock budget in seconds (> 0).
    first: draws per input of the first epoch (sequential) or round (rounds), ≥ 1000; None: the policy's
    default (:data:`FIRST_EPOCH`, :data:`FIRST_ROUND`). growth: size factor between epochs or rounds
    (integer ≥ 2). policy: ``"sequential"`` (default; :mod:`privcheck.auditor.sequential`) or ``"rounds"``.
    """

    target: float = DEFAULT_TARGET
    max_draws: int = DEFAULT_MAX_DRAWS
    max_seconds: float | None = None
    first: int | None = None
    growth: int = GROWTH
    policy: str = POLICIES[0]

    def __post_init__(self):
        object.__setattr__(self, "target", check_probability("target", self.target, open_low=True))
        object.__setattr__(self, "max_draws", check_int("max_draws", self.max_draws, minimum=MIN_ROUND))
        if self.max_seconds is not None:
            object.__setattr__(self, "max_seconds", check_positive("max_seconds", self.max_seconds))
        if self.first is not None:
            object.__setattr__(self, "first", check_int("first", self.first, minimum=MIN_ROUND))
        object.__setattr__(self, "growth", check_int("growth", self.growth, minimum=2))
        if self.policy not in POLICIES:
            raise PrivcheckUsageError(
                f"samples='auto': policy must be one of {', '.join(POLICIES)}, got {self.policy!r}"
            )

    @property
    def first_size(self) -> int:
        """Draws per input of the first epoch or round: ``first``, else the policy's default."""
        if self.first is not None:
            return self.first
        return FIRST_EPOCH if self.policy == "sequential" else FIRST_ROUND

    def next_size(self, r: int, used: int) -> int | None:
        """Nominal draws per input of round ``r ≥ 1`` when ``used`` draws per input are spent (None: budget spent).

        ``first · growth^{r-1}``, cut to the rest of the budget; a round after which
        the rest would be smaller than the next round's size takes that rest too
        (so the last round is the largest the budget allows, not a leftover).
        """
        rest = self.max_draws - used
        if rest < MIN_ROUND:
            return None
        n = self.first_size * self.growth ** (r - 1)
        return rest if rest - n < n * self.growth else n

    def round_sizes(self) -> list[int]:
        """The nominal schedule: draws per input of each round the budget allows when no round is shortened."""
        sizes: list[int] = []
        while (n := self.next_size(len(sizes) + 1, sum(sizes))) is not None:
            sizes.append(n)
        return sizes


_KEYS: dict[str, Callable[[str], Any]] = {
    "target": float,
    "max_draws": lambda t: check_int("max_draws", float(t)),
    "max_seconds": float,
    "first": lambda t: check_int("first", float(t)),
    "growth": lambda t: check_int("growth", float(t)),
    "policy": str,
}
_ALIASES = {"draws": "max_draws", "seconds": "max_seconds"}
_AUTO_HELP = (
    "'auto' or 'auto:target=0.95,draws=1e7,seconds=600' (keys target, draws, seconds, first, growth, "
    "policy=sequential|rounds)"
)


def parse_samples(value: Any) -> int | Auto | None:
    """``--samples`` text (or a Python value) as an integer ≥ 20, an :class:`Auto`, or None (default).

    Accepts an integer, ``"auto"``, ``"auto:key=value,..."`` with keys ``target``,
    ``draws`` (``max_draws``), ``seconds`` (``max_seconds``), ``first``, ``growth``,
    ``policy`` (``sequential`` or ``rounds``), or an :class:`Auto`. Raises :class:`PrivcheckUsageError` (one line) otherwise.
    """
    if value is None or isinstance(value, Auto):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.lower() == "auto" or text.lower().startswith("auto:"):
            kwargs: dict[str, Any] = {}
            for item in filter(None, (s.strip() for s in text[5:].split(","))):
                key, sep, val = item.partition("=")
                key = _ALIASES.get(key.strip(), key.strip())
                if not sep or key not in _KEYS:
                    raise PrivcheckUsageError(f"--samples {value!r}: bad setting {item!r}; use {_AUTO_HELP}")
                if key in kwargs:
                    raise PrivcheckUsageError(f"--samples {value!r}: {key} is set twice; give each setting once")
                try:
                    kwargs[key] = _KEYS[key](val.strip())
                except (TypeError, ValueError):
                    raise PrivcheckUsageError(
                        f"--samples {value!r}: {key} needs a number, got {val.strip()!r}"
                    ) from None
            return Auto(**kwargs)
        try:
            value = int(float(text)) if float(text).is_integer() else None
        except (ValueError, OverflowError):
            value = None
        if value is None:
            raise PrivcheckUsageError(f"--samples must be an integer >= 20 or {_AUTO_HELP}, got {text!r}")
    return check_int("--samples", value, minimum=20)


def auto_settings(auto: Any, mc_kwargs: dict) -> Auto:
    """The settings of ``samples="auto"``, refused for anything but ``"auto"``/:class:`Auto`, and for a δ claim under the
    rounds policy (``mc_kwargs``: the Monte Carlo keywords; ``delta_eps`` set means an (ε, δ) claim; the sequential
    policy pops it before calling this)."""
    parsed = parse_samples(auto)
    if not isinstance(parsed, Auto):
        raise PrivcheckUsageError(f"samples must be an integer >= 20, 'auto' or Auto(...), got {parsed!r}")
    if mc_kwargs.get("delta_eps") is not None:
        raise PrivcheckUsageError(
            "samples='auto:policy=rounds' adapts to an ε claim with δ = 0; for an (ε, δ) or μ claim use the "
            "sequential policy (samples='auto') or an integer samples"
        )
    return parsed


def planned_draws(samples: int | Auto | None, default: int) -> int:
    """The most draws per input a ``samples`` setting may take (its budget for :class:`Auto`)."""
    if isinstance(samples, Auto):
        return samples.max_draws
    return samples or default


@dataclass
class AdaptiveRound:
    """One round: its draws per input, error level ``alpha`` (confidence ``1 − alpha``), bound and time."""

    round: int
    samples: int
    alpha: float
    confidence: float
    eps_lower: float
    eps_max_certifiable: float
    event: str | None
    seconds: float


@dataclass
class AdaptiveRecord:
    """What an adaptive audit did: spending rule, rounds, why it stopped, and a one-line budget message.

    stopped: ``"target reached"``, ``"claim refuted"``, ``"draws budget"`` or
    ``"seconds budget"``. message: None when the target was reached or the claim
    refuted, else one line saying the budget could not reach the target.
    needed_draws: predicted draws per input for the best event to reach the
    target (None when not predictable); alpha_spent: ``Σ α_r`` over the rounds run.
    """

    target: float
    max_draws: int
    max_seconds: float | None
    spending: str
    alpha: float
    alpha_spent: float
    stopped: str
    best_round: int | None
    rounds: list[AdaptiveRound] = field(default_factory=list)
    message: str | None = None
    needed_draws: int | None = None

    def to_dict(self) -> dict:
        """JSON-ready dict."""
        return asdict(self)


def summary_lines(record: dict) -> list[str]:
    """Lines for :meth:`AuditResult.summary` from the record of ``samples="auto"`` (either policy)."""
    if record.get("policy") == "sequential":
        return sequential_lines(record)
    sizes = "+".join(str(r["samples"]) for r in record["rounds"])
    lines = [
        f"adaptive       {len(record['rounds'])} rounds ({sizes} draws/input), stopped: {record['stopped']}",
        f"  spending     {record['spending']}; spent {record['alpha_spent']:.4g} of {record['alpha']:.4g}",
    ]
    if record.get("message"):
        lines.append(f"  budget       {record['message']}")
    return lines


def sequential_lines(record: dict) -> list[str]:
    """Summary lines of the sequential policy's record (:class:`privcheck.auditor.sequential.SequentialRecord`)."""
    looks = record["rounds"]
    lines = [
        f"sequential     {len(looks)} batch{'es' * (len(looks) != 1)} in {record['epochs']} "
        f"selection{'s' * (record['epochs'] != 1)}, {record['draws_per_input']} "
        f"draws/input at stop, stopped: {record['stopped']}",
        _sequential_test_line(record),
    ]
    if record.get("message"):
        lines.append(f"  budget       {record['message']}")
    return lines


def _sequential_test_line(record: dict) -> str:
    """The test line of a sequential record: the e-process's level and, when it has one, the final look's."""
    final = record.get("alpha_final") or 0.0
    if not final:
        return f"  test         one e-process at level {record['alpha']:.4g}, valid at every batch (Ville's inequality)"
    got = record.get("final_eps_lower")
    seen = "not reached" if got is None else f"eps_lower {got:.6g}"
    return (
        f"  test         e-process at level {record['alpha'] - final:.4g} (valid at every batch: Ville) "
        f"+ final look at {final:.4g} (last epoch: {seen})"
    )


def round_alpha(alpha: float, r: int) -> float:
    """Error level of round ``r ≥ 1`` under the spending rule ``α_r = α · 2^{-r}``."""
    return alpha * 2.0 ** (-r)


def _duration(seconds: float) -> str:
    """``seconds`` as a short human duration: "45 s", "12 min", "3.4 h", "2.1 days"."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def _estimated_log_ratio(counts: tuple) -> float | None:
    """Point estimate log((k1/n1)/(k0/n0)) of an event's counts ``(k1, n1, k0, n0)`` (k0 = 0 read as 1/2,
    as :func:`needed_draws` does); None when k1 = 0."""
    k1, n1, k0, n0 = counts
    if k1 <= 0:
        return None
    return math.log((k1 / n1) / (max(k0, 0.5) / n0))


def needed_draws(counts: tuple, eps_target: float, alpha: float, limit: int = 10**13) -> int | None:
    """Predicted draws per input (estimation share included) for an event with counts
    ``(k1, n, k0, n)`` to certify ``eps_target`` at level ``alpha`` (a prediction from the
    point estimates, never a bound). None when its estimated log-ratio does not exceed the
    target or more than ``limit`` draws would be needed.
    """
    k1, n, k0, _ = counts
    p1, p0 = k1 / n, max(k0, 0.5) / n
    est = _estimated_log_ratio(counts)
    if est is None or est <= eps_target:
        return None

    def enough(m: int) -> bool:
        return log_ratio_lower_bound(round(p1 * m), m, round(p0 * m), m, alpha) >= eps_target

    hi = 1024
    while not enough(hi):
        hi *= 2
        if hi > limit:
            return None
    lo = hi // 2  # bisect to ~1 %: the prediction is rough anyway
    while hi - lo > max(1, hi // 100):
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if enough(mid) else (mid, hi)
    return int(math.ceil(hi / (1 - SELECTION_SHARE)))


def budget_message(
    auto: Auto, eps: float, bound: Any, rounds: list[AdaptiveRound], stopped: str, need: int | None, elapsed: float
) -> str:
    """The one-line message of rounds a budget stopped short of the target: what was spent and certified, and
    what the best event predicts the target needs (at this run's own rate: probe, selection and estimation
    included). ``bound``: the combined bound; ``need``: :func:`needed_draws` of its event (None: unpredictable);
    ``elapsed``: seconds since the rounds started."""
    goal = auto.target * eps if 0 < eps < math.inf else None
    total = sum(x.samples for x in rounds)
    frac = max(bound.eps_lower, 0.0) / eps if 0 < eps < math.inf else None
    spent = f"{total} draws/input" if stopped == "draws budget" else f"{elapsed:.1f} s"
    got = f"certified {frac:.3f} of the claimed eps" if frac is not None else f"eps_lower {bound.eps_lower:.4g}"
    if goal is None:
        return f"budget spent: {spent} in {len(rounds)} rounds, {got}; no refutation found (no target for an eps claim of {eps:g})"
    if need is None:
        est = _estimated_log_ratio(bound.counts) if bound.counts is not None else None
        tail = (
            "no event separated the inputs"
            if est is None
            else f"the best event found has estimated log-ratio {est:.3g}, below the target eps {goal:.3g}: no "
            "number of draws of this event can reach it (a larger selection stage may find a better event)"
        )
    else:
        tail = f"about {need:.3g} draws/input would be needed"
        if total > 0 and elapsed > 0:  # at this run's own rate (probe, selection and estimation included)
            tail += f" (≈ {_duration(need * elapsed / total)} at this run's {total / elapsed:.3g} draws/input/s)"
    return f"budget cannot reach the target: {spent} in {len(rounds)} rounds {got} (target {auto.target:g}); {tail}"
