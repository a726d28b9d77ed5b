"""The auditor's result types: :class:`MonteCarloBound` (what the estimate stage certifies) and
:class:`AuditResult` (everything an audit found; its JSON field names are the contract of ../shared/DESIGN.md)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class MonteCarloBound:
    """A Monte Carlo lower bound on ε (and δ), with what limited it.

    eps_lower: lower bound on ε holding with probability ≥ ``confidence``
    (``-inf`` when no event separated the inputs). delta_lower: lower bound on
    δ at ``delta_eps`` (None when not requested). eps_max_certifiable: the
    largest ε these sample sizes could ever certify. worst_pair: the inputs
    of the best event; event: its description; counts: its estimation counts
    ``(k_x, n, k_x', n)``; candidates: every tested candidate; pilot_samples:
    the part of the selection draws that fixed the output coding.
    """

    eps_lower: float
    confidence: float
    samples_per_input: int
    selection_samples: int
    estimation_samples: int
    eps_max_certifiable: float
    worst_pair: tuple | None
    event: str | None
    counts: tuple | None
    candidates: list[dict]
    delta_eps: float | None = None
    delta_lower: float | None = None
    reproducible: bool = True
    pilot_samples: int = 0
    pairs_audited: int = 0
    draws: int = 0
    view: str | None = None


@dataclass
class AuditResult:
    """Everything an audit found (JSON names are stable; see :meth:`to_dict`).

    certified_fraction: ``max(eps_lower, 0) / eps_claimed``, how much of the
    claimed ε the Monte Carlo bound certified (None without a Monte Carlo part
    or for an ε = 0 claim); reason: why the verdict is what it is when it is
    not a plain exact/Monte Carlo decision (e.g. why it is inconclusive).
    """

    mechanism: str
    eps_claimed: float | None
    eps_exact: float | None
    eps_exact_text: str | None
    eps_lower: float | None
    confidence: float
    samples: int
    seconds: float
    verdict: str
    verdict_exact: str | None
    verdict_mc: str | None
    worst_pair: Any
    event: Any
    eps_max_certifiable: float | None
    delta_claimed: float | None = 0.0
    delta_exact: float | None = None
    delta_lower: float | None = None
    reproducible: bool = True
    details: dict = field(default_factory=dict)
    certified_fraction: float | None = None
    reason: str | None = None
    mu_claimed: float | None = None
    mu_lower: float | None = None
    eps_lower_at_delta: float | None = None
    accountant: str | None = None
    curve_points: list | None = None

    def to_dict(self) -> dict:
        """JSON-ready dict with the DESIGN.md field names."""
        from privcheck.claims import _jsonable

        return _jsonable(asdict(self))

    def summary(self) -> str:
        """A few human-readable lines (:func:`privcheck.auditor.summary.summary_text`)."""
        from privcheck.auditor.summary import summary_text

        return summary_text(self)


def curve_result(mechanism: str, started: float, verdict: str, **fields: Any) -> AuditResult:
    """The result of an audit of a trade-off curve or μ-GDP claim: no ε fields, the Monte Carlo verdict is the
    verdict (``started``: ``time.perf_counter()`` at the call); ``fields`` are the remaining :class:`AuditResult`
    fields (confidence, samples, worst_pair, event, reproducible, details, reason, mu_claimed, ...)."""
    import time

    return AuditResult(
        mechanism=mechanism,
        eps_claimed=None,
        eps_exact=None,
        eps_exact_text=None,
        eps_lower=None,
        seconds=round(time.perf_counter() - started, 4),
        verdict=verdict,
        verdict_exact=None,
        verdict_mc=verdict,
        eps_max_certifiable=None,
        **fields,
    )
