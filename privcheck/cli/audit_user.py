"""``privcheck audit MODULE:FUNCTION``: audit a user's sampler at the inputs or pairs the command line gives.

Importing, probing and auditing the code run in a forked child under a deadline
(:func:`privcheck.auditor.user_code.run_isolated`); what the code does to the run (exit, crash, hang, ±inf)
becomes verdict ``error`` naming the function. The command's options arrive as one :class:`UserCodeRequest`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from privcheck.base.errors import PrivcheckUsageError
from privcheck.cli.audit_request import AuditRequest
from privcheck.cli.audit_run import failed_audit, print_audit, run_with_progress


@dataclass
class UserCodeRequest:
    """What an audit of user code needs: the reference, the parsed inputs/pairs, how to call the code, and
    the auditor's keyword arguments (claim, draws, seed, confidence, jobs, backend)."""

    ref: str
    inputs: list = field(default_factory=list)
    pairs: list = field(default_factory=list)
    per_sample: bool = False
    seed_global: bool = False
    view: str | None = None
    audit_kwargs: dict[str, Any] = field(default_factory=dict)
    json_out: str | None = None
    draws: int = 0  # planned draws per input (for the progress bar and an error record)

    @classmethod
    def from_audit(cls, req: AuditRequest, curve: dict) -> UserCodeRequest:
        """Validate ``audit``'s options for user code and parse its ``--input``/``--pair`` literals."""
        from privcheck.auditor import DEFAULT_SAMPLES
        from privcheck.auditor.adaptive import planned_draws
        from privcheck.auditor.user_code import parse_literal, parse_pair

        if not req.monte_carlo:
            raise PrivcheckUsageError(
                "--no-mc leaves nothing to run for user code (no exact ε without a built-in mechanism)"
            )
        if req.eps is None and not curve:
            raise PrivcheckUsageError("--eps (the claimed ε), --mu or --accountant is required for user code")
        if req.seed_global and not req.per_sample:
            raise PrivcheckUsageError("--seed-global needs --per-sample")
        xs = [parse_literal(t) for t in req.inputs]
        prs = [parse_pair(t) for t in req.pairs]
        for i, x in enumerate(xs):
            if any(_same(x, y) for y in xs[:i]):
                raise PrivcheckUsageError(
                    f"--input {req.inputs[i]} is given twice; give distinct inputs (all pairs are searched)"
                )
        if len(xs) < 2 and not prs:
            raise PrivcheckUsageError("user code needs at least two --input values (or --pair A,B)")
        n = planned_draws(req.samples, DEFAULT_SAMPLES)
        kwargs = {**req.auditor_kwargs(n, curve), "delta": req.delta}
        return cls(req.mechanism_name, xs, prs, req.per_sample, req.seed_global, req.view, kwargs, req.json_out, n)


def audit_user_code(req: UserCodeRequest, timeout: float | None) -> None:
    """Audit ``req`` (in a child under ``timeout`` seconds when given), print the result and exit.

    Standard output goes to standard error while the JSON goes to ``-``.
    """
    from privcheck.auditor.user_code import UserCodeError, run_isolated, stdout_to_stderr

    t0 = time.perf_counter()
    kw = req.audit_kwargs
    with stdout_to_stderr(req.json_out == "-"):
        try:
            if timeout is None:
                res = user_code_audit(req)
            else:
                res = run_isolated(user_code_audit, (req,), timeout=timeout, name=req.ref)
        except UserCodeError as exc:
            elapsed = time.perf_counter() - t0
            res = failed_audit(req.ref, kw["eps"], kw["delta"], kw["confidence"], req.draws, exc, elapsed)
    print_audit(res, req.json_out)


def user_code_audit(req: UserCodeRequest):
    """Load, probe and audit user code ``req.ref`` (runs in the child process of :func:`audit_user_code`)."""
    from privcheck.auditor.adaptive import planned_draws
    from privcheck.auditor.user_code import UserCodeError, guard_user_code, load_reference, probe_sampler

    fn = load_reference(req.ref)
    view_fn = load_reference(req.view, what="view") if req.view else None
    if req.per_sample:
        from privcheck.auditor.per_sample import per_sample as wrap

        sampler = wrap(fn, seed_global=req.seed_global)
    else:
        sampler = fn
    probe_at = req.inputs or list(dict.fromkeys(v for pr in req.pairs for v in pr if _hashable(v))) or [req.pairs[0][0]]
    probe_sampler(sampler, probe_at, req.ref, view_fn, req.per_sample)
    try:
        res = run_with_progress(
            guard_user_code(sampler, req.ref),
            planned_draws(req.audit_kwargs["samples"], 0) * max(2, len(req.inputs)),
            inputs=req.inputs or None,
            pairs=req.pairs or None,
            view=view_fn,
            **req.audit_kwargs,
        )
    except UserCodeError as exc:
        if exc.function is not None:
            raise
        raise UserCodeError(str(exc).replace("the sampler", req.ref, 1), req.ref, exc.kind) from None
    res.mechanism = req.ref
    return res


def _same(a, b) -> bool:
    """Whether two parsed inputs are the same value (``0`` and ``0.0`` are; arrays compare element-wise)."""
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - e.g. arrays of different shapes, or an ambiguous truth value
        return repr(a) == repr(b)


def _hashable(v) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True
