"""What a trace returns: :class:`TraceResult`, with its :class:`Divergence` and :class:`NonFinite` findings."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from privcheck.base.jsonable import plain

#: verdicts of a trace (those of the claim model)
VERDICTS = ("holds", "refuted", "inconclusive", "error")


@dataclass
class Divergence:
    """A random call that differs between the two inputs of a pair, with the same stream.

    kind: ``scale`` (a noise scale differs: the noise reads the data), ``sequence`` (a different method,
    or a call made on one input only), ``shape`` (a different number of values drawn), ``parameter``
    (another parameter differs, e.g. the probabilities of randomised response: how such mechanisms
    work, reported but no finding); method/param: the call and parameter; site: ``file:line`` of the
    call in the caller's code; value_a/value_b: the parameter (or method, or shape) on each input, as
    short text; pair: the inputs (short text); run: the first run where it was seen, count: in how many
    runs; finding: whether it refutes (a ``scale`` divergence always; ``sequence``/``shape`` of a noise
    call when the two inputs have the same size).
    """

    kind: str
    method: str
    param: str | None
    site: str
    value_a: str
    value_b: str
    pair: tuple[str, str]
    run: int
    finding: bool
    count: int = 1

    def key(self) -> tuple:
        """What identifies a divergence across runs (kind, call, parameter, site, pair)."""
        return (self.kind, self.method, self.param, self.site, self.pair)

    def line(self) -> str:
        """One line: what differs, where, and both values."""
        what = f"{self.method}({self.param}=…)" if self.param else self.method
        kinds = {
            "scale": "noise scale depends on the data",
            "sequence": "the random calls differ",
            "shape": "the number of values drawn differs",
            "parameter": "a draw parameter differs",
        }
        return (
            f"{kinds.get(self.kind, self.kind)}: {what} at {self.site}: {self.value_a} vs {self.value_b} "
            f"on pair ({self.pair[0]}, {self.pair[1]})"
        )


@dataclass
class NonFinite:
    """A non-finite input (NaN, ±inf as a neighbour) that gave a non-finite output, or a non-finite output.

    input: the input (short text); clean: its finite neighbour; output: the output (short text); run.
    """

    input: str
    clean: str
    output: str
    run: int

    def line(self) -> str:
        """One line naming the input and the output."""
        return f"input {self.input} (neighbour of {self.clean}) gave the non-finite output {self.output}"


@dataclass
class TraceResult:
    """The result of :func:`privcheck.trace`.

    verdict: ``holds`` (no violation on the pairs and runs traced — a trace tests, it does not prove),
    ``refuted`` (a measured distance above the declared sensitivity, a data-dependent noise scale, a
    noise call made on one input only, or a non-finite output), ``inconclusive`` (the randomness could
    not be coupled, or nothing could be measured) or ``error`` (the function crashed, exited or hung);
    sensitivity: the declared Δ (None: invariance only); norm; sensitivity_lower: the largest distance
    measured (a certain lower bound on the sensitivity: no statistics involved), with worst_pair and
    worst_run; divergences; nonfinite; runs: coupled runs per pair; pairs: pairs traced; calls: random
    calls recorded; coupling: how fn received its randomness; seconds; summary: one line; reason: why
    the verdict is not ``holds`` (one line); details: the measurement notes, tolerance and search record.
    """

    verdict: str
    sensitivity: float | None
    norm: str
    sensitivity_lower: float | None
    worst_pair: tuple | None
    divergences: list[Divergence] = field(default_factory=list)
    nonfinite: list[NonFinite] = field(default_factory=list)
    runs: int = 0
    pairs: int = 0
    calls: int = 0
    coupling: str = ""
    seconds: float = 0.0
    summary: str = ""
    reason: str | None = None
    function: str = ""
    worst_run: int | None = None
    details: dict = field(default_factory=dict)

    @property
    def findings(self) -> list[str]:
        """Every finding as one line (divergences that refute, non-finite outputs)."""
        return [d.line() for d in self.divergences if d.finding] + [n.line() for n in self.nonfinite]

    def to_dict(self) -> dict:
        """JSON-ready: the fields, pairs and values as text, non-finite numbers as strings."""
        out = asdict(self)
        out["worst_pair"] = None if self.worst_pair is None else [repr(v) for v in self.worst_pair]
        out["findings"] = self.findings
        return plain(out)

    def __str__(self) -> str:
        return self.summary
