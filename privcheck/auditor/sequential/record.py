"""The sequential policy's record (``details["adaptive"]`` of an audit) and its one-line budget message."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

#: what the test is and how it spends α, stated in every record
TEST = (
    "one e-process at level alpha_e = alpha - alpha_final: paired draws (Y under x, Z under x') bet on g = e^-theta*1[Y in E] - 1[Z in E] "
    "(mean <= 0 under the claim; (eps, delta) and mu-GDP claims: e^-e*(1[Y in E] - d) - 1[Z in E]), Kelly bets from earlier draws only, events re-selected on fresh selection "
    "draws of each epoch; slots averaged (no union bound); Ville: stopping at any batch keeps the level alpha_e; "
    "plus one fixed-sample Clopper-Pearson test at alpha_final of the schedule's last epoch (all its pairs, "
    "Bonferroni over its events); union bound: alpha_e + alpha_final = alpha"
)


@dataclass
class Look:
    """One batch of the sequential policy and what the test showed after it.

    round: the look's number (1, 2, …); epoch: the selection its events come from; samples: draws per input
    this look took (the epoch's selection draws counted in its first look); pairs: estimation pairs of the batch;
    draws_per_input: draws per input so far; eps_lower: the lower bound after the batch (valid at every batch at
    once); eps_max_certifiable: the power statement so far; log_e_claim: log of the test's wealth at the grid
    point just above the claimed ε (refutation when ≥ log(1/α)); event: the best slot's event; seconds: time."""

    round: int
    epoch: int
    samples: int
    pairs: int
    draws_per_input: int
    eps_lower: float
    eps_max_certifiable: float
    log_e_claim: float | None
    event: str | None
    seconds: float


@dataclass
class SequentialRecord:
    """What a sequential audit did. Keys shared with the rounds' record (``target``, ``max_draws``,
    ``max_seconds``, ``alpha``, ``alpha_spent``, ``stopped``, ``rounds`` — here the looks, ``message``,
    ``needed_draws``) mean the same; ``policy`` is ``"sequential"``, ``spending`` states the test, ``epochs`` the
    number of event selections, ``draws_per_input`` the draws per input at stop, ``log_threshold`` = log(1/α_e)
    (the e-process's level ``α_e = α − alpha_final``); ``alpha_final`` the final look's level and
    ``final_eps_lower`` its bound (None when the audit stopped before the schedule's last epoch ended or the final
    look had no event), ``final_pairs`` the most pairs one of its events was counted on (earlier epochs pooled); ``bounds`` what the
    grid bounds (``eps``, ``delta`` at the claimed ε, or ``mu``) and, for a μ-GDP claim, ``mu_lower`` (the lower
    bound on μ, valid like ``eps_lower``) and ``mu_max_certifiable`` (the power statement)."""

    target: float
    max_draws: int
    max_seconds: float | None
    alpha: float
    stopped: str
    draws_per_input: int
    epochs: int
    rounds: list[Look] = field(default_factory=list)
    message: str | None = None
    needed_draws: int | None = None
    policy: str = "sequential"
    spending: str = TEST
    alpha_spent: float = 0.0
    log_threshold: float = 0.0
    alpha_final: float = 0.0
    final_eps_lower: float | None = None
    final_pairs: int = 0
    bounds: str = "eps"  # what the grid bounds: "eps", "delta" (at the claimed ε) or "mu" (μ-GDP)
    mu_claimed: float | None = None
    mu_lower: float | None = None  # μ-GDP claims: the lower bound on μ (refuted when above mu_claimed)
    mu_max_certifiable: float | None = None

    def __post_init__(self) -> None:
        self.alpha_spent = self.alpha  # the e-process and the final look share alpha; re-selection takes no share
        self.log_threshold = math.log(1.0 / self.alpha)

    def to_dict(self) -> dict:
        """JSON-ready dict."""
        return asdict(self)


def budget_line(
    target: float, eps: float, eps_lower: float, used: int, looks: int, stopped: str, need: int | None, elapsed: float
) -> str:
    """The one line of a sequential audit a budget stopped short of its target: what was spent and certified,
    and (a prediction, labelled so) the draws per input the best event's estimated rate would need."""
    spent = f"{used} draws/input" if stopped == "draws budget" else f"{elapsed:.1f} s"
    if not (0 < eps < math.inf):
        return f"budget spent: {spent} in {looks} batches, eps_lower {eps_lower:.4g}; no refutation found"
    got = f"certified {max(eps_lower, 0.0) / eps:.3f} of the claimed eps"
    if need is None:
        tail = "the best event's estimated growth at the target is not positive: more draws of it cannot reach it"
    else:
        tail = f"about {need:.3g} draws/input would be needed (a prediction from the best event's estimated rate)"
    return f"budget cannot reach the target: {spent} in {looks} batches {got} (target {target:g}); {tail}"
