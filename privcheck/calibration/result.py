"""What a calibrator audit returns: :class:`CalibratorResult` and one :class:`CalibratorPoint` per (ε, δ)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from privcheck.base.jsonable import plain

Interval = tuple[float, float]


@dataclass
class CalibratorPoint:
    """One grid point: the claimed ``eps``/``delta``, the ``scale`` the calibrator returned and what it buys.

    verdict: ``holds`` (true δ at ε ≤ δ), ``refuted`` (true δ at ε > δ: under-noised), ``refused`` (the
    calibrator raised: it does not calibrate this point), ``error`` (it returned something that is not a
    number, or NaN) or ``inconclusive`` (the certified interval straddles δ);
    delta_true: the true δ at the claimed ε (certified interval); eps_true: the true ε at the claimed δ
    (for δ = 0 of a pure mechanism: ε0); optimal: the smallest scale meeting (ε, δ) (large side);
    wasted: scale/optimal − 1 where it over-noises (≥ 0), else None; note: one line (refusal, error).
    """

    eps: float
    delta: float
    scale: float | None
    verdict: str
    delta_true: Interval | None = None
    eps_true: Interval | None = None
    optimal: float | None = None
    wasted: float | None = None
    note: str | None = None

    @property
    def spent(self) -> float | None:
        """True ε at the claimed δ over the claimed ε (lower end): above 1 the point under-noises."""
        if self.eps_true is None:
            return None
        return self.eps_true[0] / self.eps

    def line(self) -> str:
        """One line: the point, the scale and the true δ and ε."""
        head = f"eps={self.eps:g}, delta={self.delta:g}"
        if self.scale is None:
            return f"{head}: {self.verdict} ({self.note})"
        parts = [f"{head}: scale {self.scale:.6g}"]
        if self.delta_true is not None:
            parts.append(f"true delta at eps {_iv(self.delta_true)}")
        if self.eps_true is not None:
            parts.append(f"true eps at delta {_iv(self.eps_true)}")
        if self.wasted is not None:
            parts.append(f"{100 * self.wasted:.3g}% more noise than needed")
        return ", ".join(parts) + f" -> {self.verdict}"


def _iv(iv: Interval) -> str:
    lo, hi = iv
    if f"{lo:.6g}" == f"{hi:.6g}":
        return f"{lo:.6g}"
    return f"[{lo:.6g}, {hi:.6g}]"


@dataclass
class CalibratorResult:
    """The result of :func:`privcheck.audit_calibrator`.

    verdict: ``refuted`` when some point under-noises (its certified true δ exceeds the claimed δ beyond
    the relative tolerance), ``holds`` when every calibrated point meets its claim, ``inconclusive`` when
    no point could be decided (all refused), ``error`` when the calibrator misbehaved (crashed, exited,
    hung, returned a non-number); mechanism; function; sensitivity; points; worst: the point spending the
    most of its claim (largest true ε at the claimed δ over the claimed ε); most_wasted: the point with the
    most surplus noise; refused: points the calibrator refused; seconds; summary: one line; reason.
    """

    verdict: str
    mechanism: str
    function: str
    sensitivity: float
    points: list[CalibratorPoint] = field(default_factory=list)
    worst: CalibratorPoint | None = None
    most_wasted: CalibratorPoint | None = None
    refused: int = 0
    seconds: float = 0.0
    summary: str = ""
    reason: str | None = None
    details: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """JSON-ready: the fields, intervals as two-element lists, non-finite numbers as strings."""
        return plain(asdict(self))

    def __str__(self) -> str:
        return self.summary
