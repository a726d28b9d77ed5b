"""The one claim runner: select claims by id or glob, run their checks, collect records.

Used by :func:`privcheck.verify`, the CLI, the pytest plugin and the reports.
Checks run in worker processes (``jobs``), each from its own SeedSequence
derived from the run seed, the claim id and the method, so results do not
depend on the order or the number of workers.
"""

from __future__ import annotations

import fnmatch
import multiprocessing as mp
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from privcheck.base.errors import PrivcheckUsageError, UnknownNameError
from privcheck.base.seeding import default_jobs, derive
from privcheck.base.validation import check_confidence, check_int
from privcheck.claims import (
    CATALOGUE,
    METHODS,
    RANDOM_METHODS,
    Check,
    Registry,
    RunContext,
    VerdictRecord,
    verdict_for_method,
)

#: the smallest Monte Carlo size a run accepts (the auditor splits draws into selection and estimation)
MIN_SAMPLES = 20
#: claim-id prefixes left out of a run without patterns (``privcheck verify 'zoo.*'`` runs them)
OPT_IN_PREFIXES = ("zoo.",)


def load_catalogue(patterns: Sequence[str] | None = None) -> Registry:
    """Import the built-in catalogue (idempotent) and return its registry.

    With ``patterns`` (claim ids or globs) only the modules the claim index names for them are
    imported (:func:`privcheck.claim_index.load_for`), unless the index does not cover them;
    without, every module is.
    """
    if patterns:
        from privcheck.claim_index import load_for

        if load_for(patterns):
            return CATALOGUE
    import privcheck.catalogue

    privcheck.catalogue.load_all()
    return CATALOGUE


def select(
    patterns: Sequence[str] | None = None,
    *,
    methods: Sequence[str] | None = None,
    registry: Registry | None = None,
) -> list[Check]:
    """The checks whose claim id matches any of ``patterns`` (ids or shell globs).

    ``None`` or an empty list selects everything but the opt-in families (:data:`OPT_IN_PREFIXES`). A pattern that matches no
    claim raises :class:`UnknownNameError`; ``methods`` keeps only those methods.
    """
    reg = registry or load_catalogue()
    if methods:
        for m in methods:
            if m not in METHODS:
                raise PrivcheckUsageError(f"unknown method {m!r}; allowed: {', '.join(METHODS)}")
    ids = list(reg.claims)
    chosen: list[str] = []
    if not patterns:  # opt-in families (the zoo: optional libraries, minutes of library calls) need a pattern
        chosen = [i for i in ids if not i.startswith(OPT_IN_PREFIXES)]
    else:
        for pat in patterns:
            hits = [i for i in ids if fnmatch.fnmatchcase(i, pat)]
            if not hits:
                raise UnknownNameError(
                    f"no claim matches {pat!r}; run 'privcheck list' for the ids (globs such as 'fedsel.*' work)"
                )
            chosen.extend(h for h in hits if h not in chosen)
    out = []
    for cid in chosen:
        for chk in reg.checks.get(cid, []):
            if methods and chk.method not in methods:
                continue
            out.append(chk)
    return out


def run_check(chk: Check, ctx_base: RunContext, registry: Registry | None = None) -> VerdictRecord:
    """Run one check and wrap its outcome in a :class:`VerdictRecord` (exceptions become ``error``)."""
    reg = registry or CATALOGUE
    claim = reg.claim(chk.claim_id)
    random = chk.method in RANDOM_METHODS
    family = max(1, ctx_base.family) if random else 1
    ctx = RunContext(
        seed=ctx_base.seed,
        seed_seq=derive(ctx_base.seed, chk.claim_id, chk.method, *((chk.part,) if chk.part else ())),
        quick=ctx_base.quick,
        samples=ctx_base.samples,
        jobs=ctx_base.jobs,
        confidence=1.0 - (1.0 - ctx_base.confidence) / family,
        family=family,
    )
    t0 = time.perf_counter()
    try:
        out = chk.fn(ctx)
        verdict_for_method(chk.method, out.verdict)  # a calculator cannot 'hold'; only it 'computes'
        verdict, claimed, measured, details, samples = out.verdict, out.claimed, out.measured, out.details, out.samples
    except (Exception, SystemExit, KeyboardInterrupt) as exc:  # a check that crashes is reported, never hidden
        from privcheck.auditor.user_code import UserCodeError, describe_failure, interrupt_is_real

        if isinstance(exc, KeyboardInterrupt) and interrupt_is_real():
            raise
        if isinstance(exc, (SystemExit, KeyboardInterrupt, MemoryError)):  # a claim file's check exiting is its
            exc = describe_failure(exc, f"the check {chk.key}", "while running")  # failure (memory: past the cap)
        verdict, claimed, measured, samples = "error", None, None, None
        if isinstance(exc, UserCodeError):  # the user's code failed: its own words and its own traceback
            details = {"error": str(exc), "traceback": exc.user_traceback or traceback.format_exc(limit=6)}
        else:
            details = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(limit=6)}
    if ctx_base.quick:  # --quick runs are labelled in every report format, with the sizes they cut
        details = dict(details, quick=True)
        if ctx.sizes and ctx_base.samples is None:
            full, used = ctx.sizes[0]
            details.setdefault("quick_size", {"used": used, "full": full})
    if random:
        details = dict(details)
        details.setdefault("confidence", ctx.confidence)
        details["run_confidence"] = {
            "family_wise": ctx_base.confidence,
            "random_checks": family,
            "per_check": ctx.confidence,
            "correction": "Bonferroni",
        }
    return VerdictRecord(
        id=claim.id,
        source=claim.source,
        kind=claim.kind,
        method=chk.method,
        verdict=verdict,
        claimed=claimed,
        measured=measured,
        details=details,
        seed=ctx_base.seed,
        samples=samples,
        seconds=round(time.perf_counter() - t0, 4),
        expect=chk.expect,
        part=chk.part,
    )


def _run_key(key: tuple[str, str, str], ctx: RunContext, timeout: float | None = None) -> VerdictRecord:
    claim_id, method, part = key
    for chk in CATALOGUE.checks[claim_id]:
        if chk.method == method and chk.part == part:
            return _run_timed(chk, ctx, timeout)
    raise KeyError(key)


def _run_timed(chk: Check, ctx: RunContext, timeout: float | None) -> VerdictRecord:
    """:func:`run_check`, stopped after ``timeout`` seconds (then an ``error`` record "timed out after N s").

    The check runs in a forked child, so user code that ends or crashes the
    process (``os._exit``, a segfault) becomes an ``error`` record saying so;
    checks of user code name it (``chk.fn.user_code``, e.g. ``"mymod:sampler"``).
    """
    if not timeout:
        return run_check(chk, ctx)
    from privcheck.base.resources import CheckTimeout, ChildDied, call_with_timeout

    try:
        return call_with_timeout(run_check, (chk, ctx), timeout, limit_memory=True)
    except (CheckTimeout, RuntimeError) as exc:
        rec = run_check(Check(chk.claim_id, chk.method, _raiser(exc), chk.expect, chk.part), ctx)
        who = getattr(chk.fn, "user_code", None)
        if isinstance(exc, ChildDied):
            rec.details["error"] = f"{who or 'the check'} {exc.what}"
        else:
            rec.details["error"] = str(exc) + (f" in {who}" if who and isinstance(exc, CheckTimeout) else "")
        rec.details.pop("traceback", None)  # the check ran elsewhere: this process's stack says nothing
        if isinstance(exc, CheckTimeout):
            rec.seconds = float(timeout)
        return rec


@dataclass
class RunOptions:
    """Options of one verification run (validated)."""

    seed: int = 0
    jobs: int | None = None
    quick: bool = False
    samples: int | None = None
    confidence: float = 0.95
    client: Any = None  # Dask: "local", "tcp://HOST:PORT" or a distributed.Client (checks become tasks)
    #: seconds per check before it is stopped and recorded as an error (None: no limit)
    timeout: float | None = None

    def __post_init__(self) -> None:
        if self.timeout is not None:
            from privcheck.base.validation import check_positive

            self.timeout = check_positive("timeout", self.timeout)
        self.seed = check_int("seed", self.seed, minimum=0)
        if self.jobs is not None:
            self.jobs = check_int("jobs", self.jobs, minimum=1)
        if self.samples is not None:
            self.samples = check_int("samples", self.samples, minimum=MIN_SAMPLES)
            from privcheck.base.resources import check_samples

            check_samples(self.samples, "samples")
        self.confidence = check_confidence(self.confidence)


def run(
    checks: Iterable[Check],
    options: RunOptions | None = None,
    *,
    progress: Callable[[VerdictRecord], None] | None = None,
) -> list[VerdictRecord]:
    """Run ``checks`` and return their records in the order given.

    The run's ``confidence`` is family-wise over its random (``mc``,
    ``scaling``) checks: each runs at ``1 − (1 − confidence)/m`` for ``m`` such
    checks (Bonferroni), so that the chance of any false Monte Carlo finding in
    the whole run is at most ``1 − confidence``. With more than one job, checks of the built-in or loaded registry run in
    forked worker processes; each check then runs single-threaded. With
    ``options.client`` (Dask) every check is one task on the cluster; records
    are the same because each check's seed derives from the run seed.
    """
    opts = options or RunOptions()
    checks = list(checks)
    jobs = opts.jobs or default_jobs()
    family = sum(c.method in RANDOM_METHODS for c in checks)
    base = RunContext(
        seed=opts.seed, quick=opts.quick, samples=opts.samples, jobs=1, confidence=opts.confidence, family=family
    )
    if opts.client is not None:
        return _run_on_backend(checks, base, opts, progress)
    if jobs == 1 or len(checks) <= 1:
        base.jobs = jobs
        records = []
        for chk in checks:
            rec = _run_timed(chk, base, opts.timeout)
            if progress:
                progress(rec)
            records.append(rec)
        return records
    results: dict[int, VerdictRecord] = {}
    ctx = mp.get_context("fork")
    from privcheck.base.children import die_with_parent

    # workers die with this process (parent-death signal); their timed checks' groups die with them
    pool = ProcessPoolExecutor(max_workers=min(jobs, len(checks)), mp_context=ctx, initializer=die_with_parent)
    try:
        futs = {
            pool.submit(_run_key, (c.claim_id, c.method, c.part), base, opts.timeout): i for i, c in enumerate(checks)
        }
        for fut in as_completed(futs):
            i = futs[fut]
            try:
                rec = fut.result()
            except Exception as exc:  # worker died
                c = checks[i]
                rec = run_check(Check(c.claim_id, c.method, _raiser(exc), c.expect, c.part), base)
            results[i] = rec
            if progress:
                progress(rec)
    except BaseException:  # Ctrl-C (or any failure here): stop the workers now, do not wait for queued checks
        _stop_pool(pool)
        raise
    pool.shutdown(wait=True)
    return [results[i] for i in range(len(checks))]


def _run_shipped(base: RunContext, payload: bytes) -> VerdictRecord:
    """Worker side of a distributed run: unpickle ``(claim, check)`` and run it."""
    import pickle

    claim, chk, timeout = pickle.loads(payload)
    CATALOGUE.claims.setdefault(claim.id, claim)  # a user's claim: known on this worker from now on
    if timeout and not mp.current_process().daemon:
        return _run_timed(chk, base, timeout)
    return run_check(chk, base)  # Dask workers are daemonic: they cannot fork the timeout's child


def _run_on_backend(
    checks: list[Check], base: RunContext, opts: RunOptions, progress: Callable[[VerdictRecord], None] | None
) -> list[VerdictRecord]:
    """Every check as one task on the Dask (or other) backend of ``opts.client``; records in order."""
    import functools

    from privcheck.base.scheduler import dumps_task, get_backend

    payloads = []
    for chk in checks:
        dumps_task(chk.fn, f"the function of check {chk.key}")  # one clear line if it cannot travel
        payloads.append(dumps_task((CATALOGUE.claim(chk.claim_id), chk, opts.timeout), f"check {chk.key}"))
    with get_backend(opts.jobs, opts.client) as backend:
        return backend.map(functools.partial(_run_shipped, base), payloads, progress=progress)


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel queued checks and terminate the worker processes (used on Ctrl-C: exit within 2 s)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        if p.is_alive():
            p.terminate()
    deadline = time.monotonic() + 0.3
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            p.kill()


def _raiser(exc: Exception):
    def fn(ctx):
        raise exc

    return fn


def verify(
    patterns: Sequence[str] | None = None,
    *,
    seed: int = 0,
    jobs: int | None = None,
    quick: bool = False,
    samples: int | None = None,
    methods: Sequence[str] | None = None,
    confidence: float = 0.95,
    client: Any = None,
    timeout: float | None = None,
) -> list[VerdictRecord]:
    """Run the built-in (and any loaded user) claims matching ``patterns``; return verdict records.

    Parameters: ``patterns`` ids or globs (default: all); ``seed`` ≥ 0;
    ``jobs`` ≥ 1 worker processes (default: all cores); ``quick`` reduced
    power; ``samples`` overrides Monte Carlo sizes; ``methods`` a subset of
    exact/symbolic/numeric/mc/scaling; ``confidence`` in (0, 1); ``timeout``
    seconds per check (> 0; a check past it becomes an ``error`` record; not
    enforced on Dask workers); ``client`` runs each check as a task on Dask
    (``"local"``, ``"tcp://HOST:PORT"`` or a ``distributed.Client``; extra
    ``privcheck[dask]``), with the same records.
    """
    opts = RunOptions(
        seed=seed, jobs=jobs, quick=quick, samples=samples, confidence=confidence, timeout=timeout, client=client
    )
    return run(select(patterns, methods=methods), opts)
