"""The plan of one training run with canaries, and its result."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_int, check_positive, check_probability

__all__ = ["TrainingConfig", "TrainingRun", "BUGS", "CANARY_KINDS", "SCORE_VIEWS", "ALGORITHMS", "MODELS"]

ALGORITHMS = ("dp-sgd", "dp-fedavg")
MODELS = ("logreg", "mlp")
#: "gradient": a Dirac gradient (DP-SGD) or model update (DP-FedAvg, a canary client) of norm
#: ``canary_norm`` on a coordinate of its own; "input": a mislabelled training point with a rare
#: one-hot feature of its own (DP-SGD only)
CANARY_KINDS = ("gradient", "input")
#: "all-iterates": every step's released noisy sum is seen (white-box, the threat model of the
#: accountant); "final": only the final model
SCORE_VIEWS = ("all-iterates", "final")
#: deliberately broken implementations, each a real bug pattern:
#: "noise-ignores-clip" noise N(0, σ²) instead of N(0, (σC)²) (the multiplier used as the scale);
#: "clip-escape" canary gradients are not clipped (the norm is computed over the model's parameters
#: only, so another parameter group escapes); "sampling-rate" the sampler uses a larger rate than the
#: accountant is told (``sampling_factor`` × q, default 4: e.g. q computed from the whole dataset while sampling
#: from a quarter of it); "noise-per-epoch" noise is added once per epoch (every ⌈1/q⌉ steps)
#: instead of at every step
BUGS = ("none", "noise-ignores-clip", "clip-escape", "sampling-rate", "noise-per-epoch")


@dataclass(frozen=True)
class TrainingConfig:
    """One training run: algorithm, model, privacy parameters, canaries, and a deliberate bug (or none).

    algorithm: "dp-sgd" or "dp-fedavg"; model: "logreg" or "mlp" (hidden units ``hidden``);
    q: Poisson sampling rate of examples (DP-SGD) or clients (DP-FedAvg), in (0, 1]; sigma: noise
    multiplier > 0; C: clipping norm > 0; steps: steps (rounds) ≥ 1; lr: learning rate > 0;
    n: real training examples; d: input features; clients: real clients (DP-FedAvg; the examples
    are split among them); local_steps / local_lr: each client's local SGD; canaries: m ≥ 1;
    canary_kind: one of :data:`CANARY_KINDS`; canary_norm: the norm of a gradient canary
    (≥ C: clipped to C by a correct run); view: :data:`SCORE_VIEWS`; bug: :data:`BUGS`; sampling_factor:
    the real rate is ``sampling_factor`` × q under the "sampling-rate" bug.
    """

    algorithm: str = "dp-sgd"
    model: str = "logreg"
    q: float = 0.1
    sigma: float = 1.0
    C: float = 1.0
    steps: int = 100
    lr: float = 0.5
    n: int = 1000
    d: int = 10
    hidden: int = 8
    clients: int = 100
    local_steps: int = 2
    local_lr: float = 0.5
    canaries: int = 1000
    canary_kind: str = "gradient"
    canary_norm: float = 4.0
    view: str = "all-iterates"
    bug: str = "none"
    sampling_factor: float = 4.0
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self):
        for name, allowed in (
            ("algorithm", ALGORITHMS),
            ("model", MODELS),
            ("canary_kind", CANARY_KINDS),
            ("view", SCORE_VIEWS),
            ("bug", BUGS),
        ):
            if getattr(self, name) not in allowed:
                raise PrivcheckUsageError(f"{name} must be one of {', '.join(allowed)}, got {getattr(self, name)!r}")
        check_probability("q", self.q, open_low=True)
        for name in ("sigma", "C", "lr", "local_lr", "canary_norm", "sampling_factor"):
            check_positive(name, getattr(self, name))
        check_int("steps", self.steps, minimum=1, maximum=100_000)
        check_int("n", self.n, minimum=1, maximum=1_000_000)
        check_int("d", self.d, minimum=1, maximum=10_000)
        check_int("hidden", self.hidden, minimum=1, maximum=1_024)
        check_int("clients", self.clients, minimum=1, maximum=100_000)
        check_int("local_steps", self.local_steps, minimum=1, maximum=1_000)
        check_int("canaries", self.canaries, minimum=1, maximum=1_000_000)
        if self.algorithm == "dp-fedavg" and self.canary_kind != "gradient":
            raise PrivcheckUsageError("dp-fedavg takes canary clients: canary_kind must be 'gradient'")
        if self.canary_kind == "input" and self.view != "final":
            raise PrivcheckUsageError("input-space canaries are scored on the final model: view must be 'final'")
        work = self.steps * (
            self.canaries * (self.hidden if self.model == "mlp" and self.canary_kind == "input" else 1)
        )
        if work > 5e8:
            raise PrivcheckUsageError(
                f"this run would draw {work:.2g} noise values; at most 5e8 (fewer steps/canaries)"
            )

    def with_(self, **changes) -> "TrainingConfig":
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)

    @property
    def q_actual(self) -> float:
        """The sampling rate the run really uses (``sampling_factor`` × q under the "sampling-rate" bug, at most 1)."""
        return min(1.0, self.sampling_factor * self.q) if self.bug == "sampling-rate" else self.q

    def noise_std(self, step: int) -> float:
        """Standard deviation of the Gaussian noise added at ``step`` (0-based), bugs included."""
        if self.bug == "noise-per-epoch":
            epoch = max(1, int(round(1.0 / self.q)))
            if step % epoch != 0:
                return 0.0
        return self.sigma if self.bug == "noise-ignores-clip" else self.sigma * self.C


@dataclass(frozen=True)
class TrainingRun:
    """What one run gives the auditor: ``included`` (bool per canary, each drawn with probability ½)
    and ``scores`` (float per canary, larger = more likely included), plus what was trained."""

    config: TrainingConfig
    included: np.ndarray
    scores: np.ndarray
    score_name: str
    accuracy: float
    seconds: float

    @property
    def scores_in(self) -> np.ndarray:
        """Scores of the canaries that were included."""
        return self.scores[self.included]

    @property
    def scores_out(self) -> np.ndarray:
        """Scores of the canaries that were left out."""
        return self.scores[~self.included]
