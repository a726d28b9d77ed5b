"""``privcheck.trace``: coupled runs of a function on neighbouring inputs (gray-box; see :mod:`privcheck.tracing`)."""

from __future__ import annotations

import time
from typing import Any, Callable

from privcheck.base.errors import UserCodeError
from privcheck.base.seeding import derive
from privcheck.tracing.compare import REL_TOL, equal
from privcheck.tracing.coupling import Coupler, Run, short
from privcheck.tracing.nonfinite import variants
from privcheck.tracing.plan import DEFAULT_EXAMPLES, DEFAULT_RUNS, TracePlan, make_plan
from privcheck.tracing.result import TraceResult
from privcheck.tracing.search import RUNS_PER_EXAMPLE, SearchRecord, search
from privcheck.tracing.tally import Reading, Tally, read_pair

#: runs in which the first input is traced twice to see whether the stream drives the function
COUPLING_PROBES = 2
#: distinct inputs whose NaN/±inf neighbours are traced, and runs per non-finite neighbour
NONFINITE_INPUTS = 4
NONFINITE_RUNS = 2

UNCOUPLED = (
    "cannot couple the randomness of {name}: two runs at input {x} with the same stream differ ({what}); its "
    "random numbers do not come from the generator it is given, numpy's/random's global state or "
    "np.random.default_rng (numba, a Rust or C sampler such as OpenDP's, os.urandom or random.SystemRandom, a "
    "generator kept between calls), so a gray-box trace "
    "says nothing: audit it black-box (privcheck audit)"
)


COMPILED = (
    "cannot couple the randomness of {name}: it is compiled by numba, whose random numbers come from numba's own "
    "generator (not the generator it is given or numpy's/random's global state), so a gray-box trace says "
    "nothing: audit it black-box (privcheck audit)"
)


def _compiled_by_numba(fn: Any) -> bool:
    """Whether ``fn`` is a numba dispatcher (``@numba.njit``/``@numba.jit``): its draws cannot be coupled."""
    return type(fn).__module__.split(".")[0] == "numba"


class _Uncoupled(Exception):
    """The self-coupling probe failed: the message says how."""


def trace(
    fn: Callable,
    pairs: list | None = None,
    inputs: list | None = None,
    neighbours: Any = None,
    sensitivity: float | None = None,
    norm: str = "l2",
    runs: int = DEFAULT_RUNS,
    seed: int = 0,
    rng_type: str = "generator",
    nonfinite: bool = True,
    examples: int = DEFAULT_EXAMPLES,
    timeout: float | None = None,
    name: str | None = None,
) -> TraceResult:
    """Trace ``fn`` on neighbouring inputs with coupled randomness: sensitivity, invariance, non-finite inputs.

    Each run calls ``fn`` on both inputs of a pair with the *same* random stream, every random call
    recorded (method, parameters, shape, call site). While the calls agree, the noise values are equal,
    so the difference of the outputs (noise added last) and of the draws' location parameters
    (``rng.normal(loc=value)``) is the difference of what the noise was added to: the largest over runs
    and pairs, in ``norm``, is a certain lower bound on the sensitivity (Re:cord-play, Cebere et al.,
    PETS 2026: record on D, replay on D′ with the randomness frozen). The verdict is ``refuted`` when
    it exceeds ``sensitivity`` (relative tolerance 1e−9 plus the float rounding of the values), when
    a noise scale differs between the inputs (the noise reads the data), when a noise call is made on
    one input only (inputs of equal size), or when a NaN/±inf neighbour yields a non-finite output;
    ``inconclusive`` when the randomness cannot be coupled (two runs on the same input with the same
    stream differ: numba, OpenDP's Rust sampler) or nothing numeric could be measured; ``error``
    (one line) when ``fn`` crashes, exits or runs past ``timeout``.

    Parameters
    ----------
    fn : ``fn(x, rng) -> output`` (a Generator; ``rng_type="random_state"``: a RandomState) or
        ``fn(x)`` drawing from ``numpy.random`` / ``random`` (coupled and recorded too); the signature
        is detected as in :func:`privcheck.per_sample`. The output is the noisy release (numbers,
        arrays, nested lists); post-processing that stretches distances belongs after it.
    pairs : neighbouring inputs ``[(x, x2), ...]`` (the two of a pair of one type);
    inputs : candidate inputs, every ordered pair traced (local DP: any two clients' values);
    neighbours : a hypothesis strategy of pairs (:mod:`privcheck.strategies`), searched with
        ``hypothesis.target`` for the largest distance and shrunk to a simplest refuting pair
        (``examples`` examples, seeded from ``seed``, no database written);
    sensitivity : the declared Δ > 0 under the relation the pairs express, or None (invariance only);
    norm : ``"l1"``, ``"l2"`` or ``"linf"``; runs : coupled runs per pair (≥ 1); seed : ≥ 0;
    nonfinite : also trace the NaN/±inf neighbours of the first numeric inputs;
    timeout : seconds; when given, the trace runs in a child process and a hang becomes verdict ``error``.

    Bad requests (fn not callable, pairs of different types, sensitivity ≤ 0, unknown norm) raise
    :class:`~privcheck.base.errors.PrivcheckUsageError` with one line.
    """
    plan = make_plan(pairs, inputs, neighbours, sensitivity, norm, runs, seed, nonfinite, examples)
    coupler = Coupler(fn, rng_type, name)
    if timeout is None:
        return _guarded(coupler, plan)
    from privcheck.auditor.user_code import run_isolated
    from privcheck.base.resources import check_timeout

    t0 = time.perf_counter()
    try:
        return run_isolated(_guarded, (coupler, plan), timeout=check_timeout(timeout), name=coupler.name)
    except UserCodeError as exc:
        return _error(coupler, plan, exc, time.perf_counter() - t0)


def _guarded(coupler: Coupler, plan: TracePlan) -> TraceResult:
    t0 = time.perf_counter()
    try:
        return _run(coupler, plan, t0)
    except UserCodeError as exc:
        return _error(coupler, plan, exc, time.perf_counter() - t0)


def _error(coupler: Coupler, plan: TracePlan, exc: UserCodeError, seconds: float) -> TraceResult:
    return failed(coupler.name, exc, seconds, plan.sensitivity, plan.norm, plan.runs, coupler.mode)


def failed(
    name: str,
    exc: UserCodeError,
    seconds: float,
    sensitivity: float | None = None,
    norm: str = "l2",
    runs: int = 0,
    coupling: str = "",
) -> TraceResult:
    """The trace result of verdict ``error`` for a run that user code ``name`` (or a deadline) ended."""
    line = str(exc)
    return TraceResult(
        "error",
        sensitivity,
        norm,
        None,
        None,
        runs=runs,
        coupling=coupling,
        seconds=round(seconds, 4),
        summary=f"error: {line}",
        reason=line,
        function=name,
        details={"error_kind": exc.kind, "user_traceback": exc.user_traceback},
    )


def _run(coupler: Coupler, plan: TracePlan, t0: float) -> TraceResult:
    tally = Tally(plan.norm)
    calls = [0]
    notes: list[str] = []

    def call(x: Any, run: int) -> Run:
        r = coupler.call(x, derive(plan.seed, "trace", run), where=f"at input {short(x)} (run {run})")
        calls[0] += len(r.draws)
        return r

    if _compiled_by_numba(coupler.fn):  # known before any call: and numba may not even compile under the recorder
        return _result(coupler, plan, tally, t0, 0, notes, None, uncoupled=COMPILED.format(name=coupler.name))
    try:
        for run in range(plan.runs):
            outs = [call(x, run) for x in plan.inputs] if plan.pairs else []
            if run < COUPLING_PROBES and plan.inputs:
                _probe(
                    coupler, plan.inputs[0], outs[0] if outs else call(plan.inputs[0], run), call(plan.inputs[0], run)
                )
            for k, (i, j) in enumerate(plan.pairs):
                tally.add(
                    read_pair(outs[i], outs[j], plan.inputs[i], plan.inputs[j], run, plan.norm, plan.sensitivity), k
                )
        refused = _nonfinite(plan, call, tally) if plan.nonfinite else 0
        if refused:
            notes.append(f"{coupler.name} refused {refused} non-finite neighbour(s) (raised): a correct answer")
        record = _search(coupler, plan, call, tally) if plan.strategy is not None else None
    except _Uncoupled as exc:
        return _result(coupler, plan, tally, t0, calls[0], notes, None, uncoupled=str(exc))
    return _result(coupler, plan, tally, t0, calls[0], notes, record)


def _probe(coupler: Coupler, x: Any, first: Run, again: Run) -> None:
    """Raise :class:`_Uncoupled` when the same input and stream give a different output or draws."""
    if not equal(first.output, again.output):
        raise _Uncoupled(UNCOUPLED.format(name=coupler.name, x=short(x, 40), what="different outputs"))
    same = len(first.draws) == len(again.draws) and all(
        a.method == b.method and a.shape == b.shape and all(equal(v, b.params.get(k)) for k, v in a.params.items())
        for a, b in zip(first.draws, again.draws)
    )
    if not same:
        raise _Uncoupled(UNCOUPLED.format(name=coupler.name, x=short(x, 40), what="different random calls"))


def _nonfinite(plan: TracePlan, call, tally: Tally) -> int:
    """Trace the NaN/±inf neighbours of the first numeric inputs; returns how many the function refused."""
    refused = 0
    for x in plan.inputs[:NONFINITE_INPUTS]:
        for bad in variants(x):
            for run in range(min(plan.runs, NONFINITE_RUNS)):
                try:
                    rb = call(bad, run)
                except UserCodeError as exc:
                    if exc.kind != "raised":
                        raise
                    refused += 1
                    break
                rd = read_pair(call(x, run), rb, x, bad, run, plan.norm, None)  # distances do not count here
                rd.nonfinite = [n for n in rd.nonfinite if n.input == short(bad, 40)]
                rd.distance = None
                tally.add(rd)
    return refused


def _search(coupler: Coupler, plan: TracePlan, call, tally: Tally) -> SearchRecord:
    probed: list[bool] = []

    def trace_pair(x, x2) -> list[Reading]:
        if not probed:  # the first example: does the stream drive the function?
            _probe(coupler, x, call(x, 0), call(x, 0))
            probed.append(True)
        return [
            read_pair(call(x, run), call(x2, run), x, x2, run, plan.norm, plan.sensitivity)
            for run in range(min(plan.runs, RUNS_PER_EXAMPLE))
        ]

    record = search(plan.strategy, plan.examples, plan.seed, trace_pair, passthrough=(_Uncoupled,))
    for rd in record.readings:
        tally.add(rd)
    return record


def _result(
    coupler: Coupler,
    plan: TracePlan,
    tally: Tally,
    t0: float,
    calls: int,
    notes: list[str],
    record: SearchRecord | None,
    uncoupled: str | None = None,
) -> TraceResult:
    from privcheck.tracing.verdict import decide

    n_pairs = len(plan.pairs) + (record.examples if record else 0)
    res = TraceResult(
        "inconclusive",
        plan.sensitivity,
        plan.norm,
        tally.best.distance if tally.best else None,
        tally.best.pair if tally.best else None,
        divergences=sorted(tally.divergences.values(), key=lambda d: (not d.finding, d.run)),
        nonfinite=list(tally.nonfinite),
        runs=plan.runs,
        pairs=n_pairs,
        calls=calls,
        coupling=coupler.mode,
        function=coupler.name,
        worst_run=tally.best.run if tally.best else None,
    )
    details: dict = {
        "tolerance": f"refuted when a distance exceeds sensitivity * (1 + {REL_TOL:g}) plus the float rounding of "
        "the values compared (8 units in the last place of their magnitude per component)",
        "readings": tally.readings,
        "measured": tally.measured,
        "desynced": tally.desynced,
        "seed": plan.seed,
    }
    if notes:
        details["notes"] = notes
    if tally.varying:
        details["noise_dependent_difference"] = tally.varying
    if record is not None:
        details["search"] = {"examples": record.examples, "refused": record.refused, "note": record.note}
    decide(res, tally, record, uncoupled)
    res.details.update(details)
    res.seconds = round(time.perf_counter() - t0, 4)
    return res
