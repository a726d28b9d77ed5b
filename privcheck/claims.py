"""The claim model: claims, checks, outcomes and verdict records.

A :class:`Claim` is a statement from a paper (or from a user) with an id, a
source and a kind. A :class:`Check` is one way of testing it (``exact``,
``symbolic``, ``numeric``, ``mc``, ``scaling``, ``calculator``): a function that takes a
:class:`RunContext` and returns an :class:`Outcome`. The runner turns each
outcome into a :class:`VerdictRecord`, the row printed in tables and written to
JSON (field names are stable API).

Checks register themselves with :func:`check`::

    @check("fedsel.pe.ldp", "exact")
    def _pe_exact(ctx: RunContext) -> Outcome:
        ...
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Literal

import numpy as np

from privcheck.base.errors import PrivcheckUsageError, UnknownNameError

Verdict = Literal["holds", "refuted", "inconclusive", "error", "computed"]
#: ``computed`` is the verdict of a ``calculator`` check: the formula was evaluated as printed and
#: passed its self-consistency tests (domain, limits, stated monotonicity), which is *no* evidence
#: that the paper's claim is true. Runs and exit codes treat it like ``holds`` (not a failure);
#: reports must show it as "computed", never count it as a confirmation.
VERDICTS: tuple[str, ...] = ("holds", "refuted", "inconclusive", "error", "computed")
#: ``calculator``: the check evaluates a formula as printed and tests only its internal consistency
#: (it cannot confirm the paper); its passing verdict is ``computed``, never ``holds``.
METHODS: tuple[str, ...] = ("exact", "symbolic", "numeric", "mc", "scaling", "calculator")
#: verdicts that count as passing a declared expectation of ``holds``
PASSING: tuple[str, ...] = ("holds", "computed")
#: methods whose verdicts are random (Monte Carlo); a run corrects them for multiplicity together
RANDOM_METHODS: tuple[str, ...] = ("mc", "scaling")
KINDS: tuple[str, ...] = ("privacy", "estimator", "formula", "bound")


@dataclass(frozen=True)
class Claim:
    """A statement to check.

    id: stable dotted id (``fedsel.pe.ldp``); paper: paper file or ``user``;
    where: section/equation; kind: one of :data:`KINDS`; statement: the claim
    as published; methods: the methods that must each have a check.
    """

    id: str
    paper: str
    where: str
    kind: str
    statement: str
    methods: tuple[str, ...]

    @property
    def source(self) -> str:
        """``paper, where`` as shown in tables."""
        return f"{self.paper} {self.where}".strip()


@dataclass
class RunContext:
    """What a check receives: the randomness, the effort and the parallelism.

    seed_seq: the check's own SeedSequence (derived from the run seed, the
    claim id and the method). quick: reduced power (``--quick``). samples:
    a user override of the Monte Carlo size (per input / replicates), or None
    for the check's default. jobs: worker threads the check may use.
    confidence: confidence level of this check's Monte Carlo statements. The
    runner sets it so that the run's confidence holds *family-wise* over all
    its random checks (Bonferroni over ``family`` checks).
    family: the number of random (``mc``/``scaling``) checks in the run.
    """

    seed: int = 0
    seed_seq: np.random.SeedSequence = field(default_factory=lambda: np.random.SeedSequence(0))
    quick: bool = False
    samples: int | None = None
    jobs: int = 1
    confidence: float = 0.95
    family: int = 1
    #: (default, used) of every :meth:`n` call: what a ``--quick`` run's reports say about its reduced size
    sizes: list = field(default_factory=list)

    def rng(self, *keys) -> np.random.Generator:
        """A generator derived from this check's SeedSequence and ``keys``."""
        from privcheck.base.seeding import generator

        return generator(self.seed_seq, *keys)

    def n(self, default: int, quick: int | None = None) -> int:
        """The sample size to use: the user's override, else ``quick`` under --quick, else ``default``."""
        used = int(self.samples if self.samples is not None else quick if self.quick and quick is not None else default)
        self.sizes.append((int(default), used))
        return used


@dataclass
class Outcome:
    """What a check returns: a verdict and the numbers behind it.

    claimed/measured: JSON-serialisable values (numbers, strings, small dicts)
    in the units of the claim; details: anything else worth reporting
    (intervals, counterexamples, maximising inputs); samples: Monte Carlo
    draws used, if any.
    """

    verdict: str
    claimed: Any = None
    measured: Any = None
    details: dict = field(default_factory=dict)
    samples: int | None = None

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}, got {self.verdict!r}")


def verdict_for_method(method: str, verdict: str) -> str:
    """The verdict a ``method`` check may report: ``calculator`` checks cannot confirm (``holds`` → error).

    A ``calculator`` check returns ``computed`` (formula evaluated, self-consistent), ``refuted``
    (a property the paper states, e.g. a monotonicity, fails), ``inconclusive`` or ``error``; any other
    method must not return ``computed``. A mismatch is a bug of the check and raises ``ValueError``.
    """
    if method == "calculator" and verdict == "holds":
        raise ValueError("a calculator check cannot return 'holds' (use 'computed')")
    if method != "calculator" and verdict == "computed":
        raise ValueError(f"only calculator checks return 'computed', not {method!r} checks")
    return verdict


@dataclass
class Check:
    """One method of checking one claim."""

    claim_id: str
    method: str
    fn: Callable[[RunContext], Outcome]
    expect: str | None = None  # user claims: the declared expected verdict
    part: str = ""  # distinguishes several checks of one method (e.g. "ldp" and "moments")

    @property
    def key(self) -> str:
        """``claim[method]`` or ``claim[method:part]``, as shown in messages."""
        return f"{self.claim_id}[{self.method}{':' + self.part if self.part else ''}]"


@dataclass
class VerdictRecord:
    """One row of a verification run (stable JSON field names)."""

    id: str
    source: str
    kind: str
    method: str
    verdict: str
    claimed: Any
    measured: Any
    details: dict
    seed: int
    samples: int | None
    seconds: float
    expect: str | None = None
    part: str = ""

    @property
    def paper(self) -> str:
        """The paper file (first word of ``source``)."""
        return self.source.split(" ")[0] if self.source else ""

    @property
    def met_expectation(self) -> bool:
        """True unless the verdict is ``error`` or differs from a declared expectation.

        ``computed`` (a calculator's verdict) meets an expectation of ``holds``.
        """
        if self.verdict == "error":
            return False
        if self.expect == "holds" and self.verdict in PASSING:
            return True
        return self.expect is None or self.verdict == self.expect

    def to_dict(self) -> dict:
        """JSON-ready dict: NaN/inf become strings, numpy scalars plain numbers."""
        return _jsonable(asdict(self))


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        f = float(obj)
        if math.isnan(f) or math.isinf(f):
            return str(f)
        return f
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    if obj is None or isinstance(obj, (str, int, bool)):
        return obj
    return str(obj)


class Registry:
    """Claims and their checks, keyed by id. One instance holds the built-in catalogue."""

    def __init__(self) -> None:
        self.claims: dict[str, Claim] = {}
        self.checks: dict[str, list[Check]] = {}

    def add_claim(self, claim: Claim) -> Claim:
        """Register ``claim``; its kind and methods must be known, its id new (or identical)."""
        if claim.kind not in KINDS:
            raise PrivcheckUsageError(f"claim {claim.id}: kind must be one of {', '.join(KINDS)}, got {claim.kind!r}")
        for m in claim.methods:
            if m not in METHODS:
                raise PrivcheckUsageError(f"claim {claim.id}: method must be one of {', '.join(METHODS)}, got {m!r}")
        if claim.id in self.claims and self.claims[claim.id] != claim:
            raise PrivcheckUsageError(f"claim id {claim.id!r} is defined twice")
        self.claims[claim.id] = claim
        return claim

    def add_check(self, chk: Check) -> Check:
        """Register a check; one per (claim, method, part)."""
        if chk.method not in METHODS:
            raise PrivcheckUsageError(f"{chk.key}: method must be one of {', '.join(METHODS)}")
        lst = self.checks.setdefault(chk.claim_id, [])
        if any(c.method == chk.method and c.part == chk.part for c in lst):
            raise PrivcheckUsageError(f"{chk.key} is registered twice")
        lst.append(chk)
        return chk

    def claim(self, claim_id: str) -> Claim:
        """The claim with this id, or :class:`UnknownNameError` naming where to find the ids."""
        try:
            return self.claims[claim_id]
        except KeyError:
            raise UnknownNameError(f"unknown claim id {claim_id!r}; run 'privcheck list' for the ids") from None


#: The built-in catalogue (filled by importing :mod:`privcheck.catalogue`).
CATALOGUE = Registry()


def check(claim_id: str, method: str, part: str = "", registry: Registry | None = None):
    """Decorator registering ``fn(ctx) -> Outcome`` as the ``method`` check of ``claim_id``.

    ``part`` names one of several checks with the same method (for example the
    ``ldp`` and ``moments`` Monte Carlo checks of ``fedsel.duchi.ldp``).
    """

    def deco(fn: Callable[[RunContext], Outcome]):
        (registry or CATALOGUE).add_check(Check(claim_id, method, fn, part=part))
        return fn

    return deco


def compare_value(claimed: float, measured: float, rel_tol: float = 1e-9, abs_tol: float = 0.0) -> str:
    """``holds`` if two deterministic numbers agree within tolerance, else ``refuted``."""
    return "holds" if math.isclose(float(claimed), float(measured), rel_tol=rel_tol, abs_tol=abs_tol) else "refuted"
