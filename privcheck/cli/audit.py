"""``privcheck audit``: audit one mechanism's claim, a built-in MECHANISM or user code MODULE:FUNCTION.

The command turns its options into an :class:`AuditRequest` (one plan object) and dispatches: a training run
with ``--canaries`` (:mod:`privcheck.cli.training`), user code (:mod:`privcheck.cli.audit_user`), or a built-in
mechanism (here). Running and printing are shared by both audits (:mod:`privcheck.cli.audit_run`).
"""

from __future__ import annotations

import math
from typing import Any

import click

from privcheck.base.errors import PrivcheckUsageError
from privcheck.cli.audit_request import AuditRequest, curve_claim, parse_params
from privcheck.cli.audit_run import failed_audit, print_audit, run_with_progress
from privcheck.cli.emit import write_json


class _AuditCommand(click.Command):
    """``audit --help`` ends with the mechanisms, their parameters and defaults (from the listing cache)."""

    def format_epilog(self, ctx, formatter) -> None:
        super().format_epilog(ctx, formatter)
        try:
            from privcheck.reports.listing import catalogue_listing, mechanism_signature

            mechs = catalogue_listing()["mechanisms"]
        except Exception:  # pragma: no cover - help must never fail
            return
        with formatter.section("Mechanisms (parameters=defaults)"):
            formatter.write_dl([(m["name"], mechanism_signature(m)) for m in mechs])
        formatter.write_paragraph()
        formatter.write_text(
            "Exit codes: 0 holds or inconclusive, 1 refuted or error (user code failed or timed "
            "out), 2 bad usage or a refused request, 3 internal error, 130 interrupted."
        )


@click.command("audit", cls=_AuditCommand)
@click.argument("mechanism_name", metavar="MECHANISM")
@click.option("--param", "params", multiple=True, help="Mechanism parameter NAME=VALUE; repeatable (see below).")
@click.option(
    "--eps",
    type=float,
    default=None,
    help="Claimed ε  [default: the mechanism's nominal ε; without one the δ(ε) curve is printed]",
)
@click.option(
    "--samples",
    type=str,
    default=None,
    help="Monte Carlo draws per input (>= 20), or 'auto[:target=0.95,draws=1e7,seconds=S]' "
    "(anytime-valid batches until refuted, certified or budget; 'auto:policy=rounds' for rounds).  "
    "[default: 1000000]",
)
@click.option("--exact/--no-exact", default=None, help="Compute the exact ε.  [default: when available]")
@click.option("--mc/--no-mc", "monte_carlo", default=True, show_default=True, help="Run the Monte Carlo lower bound.")
@click.option("--confidence", type=float, default=0.95, show_default=True, help="Confidence of the lower bound.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of every random draw.")
@click.option("--jobs", type=int, default=None, help="Worker threads.  [default: all cores]")
@click.option("--json", "json_out", type=str, default=None, help="Write the result as JSON to PATH or '-'.")
@click.option(
    "--input", "inputs", multiple=True, help="User code: a candidate input (Python literal, else a string); repeatable."
)
@click.option(
    "--pair",
    "pairs",
    multiple=True,
    help="User code: neighbouring inputs A,B (only these pairs are searched); repeatable.",
)
@click.option(
    "--per-sample",
    "per_sample",
    is_flag=True,
    help="User code: FUNCTION returns one output per call, fn(x, rng) or fn(x).",
)
@click.option(
    "--seed-global",
    "seed_global",
    is_flag=True,
    help="With --per-sample: seed numpy's and random's global RNGs per chunk.",
)
@click.option(
    "--view",
    "view",
    type=str,
    default=None,
    help="User code: audit MODULE:FUNCTION(outputs) instead (post-processing).",
)
@click.option(
    "--delta",
    type=float,
    default=None,
    help="Claimed δ (default: the mechanism's nominal δ; 0 for user code); with --mu, --accountant or dp-sgd's own accountant: the δ at which eps_lower_at_delta is certified.",
)
@click.option(
    "--max-memory",
    type=str,
    default=None,
    help="Refuse requests estimated above this size (e.g. 4G, 50%; default: half the machine's RAM).",
)
@click.option(
    "--dask",
    "dask",
    type=str,
    default=None,
    metavar="ADDRESS",
    help="Run the Monte Carlo chunks on Dask: 'local' (a cluster here) or tcp://HOST:PORT (extra privcheck[dask]).",
)
@click.option(
    "--mu",
    type=float,
    default=None,
    help="Claimed μ of a μ-GDP claim (instead of --eps): audited as a trade-off curve.",
)
@click.option(
    "--accountant",
    "accountant_specs",
    multiple=True,
    metavar="EVENT",
    help="Claim: the accountant of these events, KIND:NAME=VALUE,...[xCOUNT] (the 'budget pld "
    "--event' syntax; repeat to compose), against its certified trade-off curve.  [default for dp-sgd/dp-fedavg: their own]",
)
@click.option(
    "--family",
    type=click.Choice(["gaussian"]),
    default=None,
    help="Declare the mechanism Gaussian-additive: audit the mu the (--eps, --delta) claim implies (a stronger "
    "test than delta at eps); the verdict is conditional on the declared family.",
)
@click.option(
    "--timeout",
    type=float,
    default=None,
    help="Seconds the audit may run (user code: importing it, probing and drawing) before it stops with "
    "verdict error 'timed out'.  [default: 600 for user code, none for built-in mechanisms]",
)
@click.option(
    "--canaries",
    type=int,
    default=None,
    help="dp-sgd/dp-fedavg: audit one training run with this many canaries (one-run audit; see "
    "docs/site/training-runs.md) instead of the mechanism's transcript.",
)
def audit(**options: Any) -> None:
    """Audit one mechanism's ε: a built-in MECHANISM, or user code MODULE:FUNCTION.

    User code is a sampler f(x, n, rng) returning n outputs (or, with
    --per-sample, one output per call), audited at the given --input values
    (all ordered pairs) or --pair neighbours, e.g.
    privcheck audit mypkg.mech:sample --input 0 --input 1 --eps 1

    Exits 1 when the verdict is refuted or error (so CI can gate on it), 0 otherwise.
    User code runs in a child process under --timeout: whatever it does (exit,
    crash, hang) is reported as verdict error naming the function.
    """
    run_audit_request(AuditRequest(**options))


def run_audit_request(req: AuditRequest) -> None:
    """Dispatch ``req``: a training run (``--canaries``), user code, or a built-in mechanism; print and exit."""
    from privcheck.auditor.adaptive import parse_samples
    from privcheck.auditor.user_code import is_reference
    from privcheck.base.resources import DEFAULT_USER_TIMEOUT, check_timeout, set_memory_limit

    if req.canaries is not None:  # a training run audited in one run (privcheck.cli.training)
        from privcheck.cli.training import training_audit

        params = parse_params(req.params)
        training_audit(
            req.mechanism_name, params, req.canaries, req.eps, req.delta, req.confidence, req.seed, req.json_out
        )
        return
    if req.exact is False and not req.monte_carlo:
        raise PrivcheckUsageError("--no-exact with --no-mc leaves nothing to audit; drop one of them")
    set_memory_limit(req.max_memory)  # mechanism constructors and the auditor size their work against it
    if req.timeout is not None:
        req.timeout = check_timeout(req.timeout)
    req.samples = parse_samples(req.samples)
    curve = curve_claim(req.mu, req.accountant_specs, req.eps, req.delta)
    if req.family is not None:  # the μ the (ε, δ) claim implies (privcheck.auditor.family), passed with the claim
        curve = {**curve, "family": req.family}
    if is_reference(req.mechanism_name):
        if req.params or req.exact:
            raise PrivcheckUsageError("--param and --exact are for built-in mechanisms; user code takes --input/--pair")
        from privcheck.cli.audit_user import UserCodeRequest, audit_user_code

        user = UserCodeRequest.from_audit(req, curve)
        audit_user_code(user, timeout=DEFAULT_USER_TIMEOUT if req.timeout is None else req.timeout)
        return
    _audit_builtin(req, curve)


def _audit_builtin(req: AuditRequest, curve: dict) -> None:
    """Audit built-in mechanism ``req.mechanism_name`` (in a child under ``--timeout`` when given)."""
    from estimators.registry import mechanism
    from privcheck.auditor import DEFAULT_SAMPLES
    from privcheck.auditor.adaptive import planned_draws
    from privcheck.auditor.sizing import check_audit_request

    for flag, val in (
        ("--input", req.inputs),
        ("--pair", req.pairs),
        ("--per-sample", req.per_sample),
        ("--seed-global", req.seed_global),
        ("--view", req.view),
    ):
        if val:
            raise PrivcheckUsageError(f"{flag} is for user code (MODULE:FUNCTION); built-in mechanisms take --param")
    mech = mechanism(req.mechanism_name, **parse_params(req.params))
    if req.eps is None and not curve and not _has_claim(mech):
        _no_eps_claim(mech, req.json_out)
        return
    n = planned_draws(req.samples, DEFAULT_SAMPLES)
    # before len(mech.inputs()) builds them
    check_audit_request(mech, n, jobs=req.jobs, monte_carlo=req.monte_carlo, distributed=req.dask is not None)
    kwargs = req.auditor_kwargs(n, curve)
    kwargs.update(exact=req.exact, monte_carlo=req.monte_carlo)
    if req.delta is not None:  # else the mechanism's nominal δ
        kwargs["delta"] = req.delta
    total = n * len(mech.inputs())
    if req.timeout is None:
        print_audit(run_with_progress(mech, total, **kwargs), req.json_out)
        return
    from privcheck.auditor.user_code import UserCodeError, run_isolated

    name = f"the audit of {req.mechanism_name}" + (f" ({', '.join(req.params)})" if req.params else "")
    try:
        import functools

        res = run_isolated(
            functools.partial(run_with_progress, mech, total, **kwargs), (), timeout=req.timeout, name=name
        )
    except UserCodeError as exc:
        res = failed_audit(repr(mech), req.eps, req.delta, req.confidence, n, exc, req.timeout)
    print_audit(res, req.json_out)


def _has_claim(mech) -> bool:
    """Whether ``mech`` carries a claim of its own: an accountant, or a finite nominal ε."""
    if callable(getattr(mech, "accountant", None)):
        return True
    return math.isfinite(float(getattr(mech, "eps_nominal", math.inf) or math.inf))


#: ε values at which ``audit`` prints δ(ε) for a mechanism without an ε claim
DELTA_CURVE_EPS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)


def _no_eps_claim(mech, json_out: str | None) -> None:
    """A mechanism with no finite ε claim (e.g. Gaussian): print its exact δ(ε) curve, or ask for --eps."""
    if not hasattr(mech, "delta_at"):
        raise PrivcheckUsageError(f"{mech!r} has no ε claim to audit; pass the claimed ε with --eps E")
    rows = [{"eps": e, "delta": float(mech.delta_at(e))} for e in DELTA_CURVE_EPS]
    if json_out:
        write_json({"mechanism": repr(mech), "eps_claimed": None, "verdict": None, "delta_of_eps": rows}, json_out)
        if json_out == "-":
            return
    click.echo(f"mechanism        {mech!r}")
    click.echo("eps claimed      none: this mechanism is not ε-DP for a finite ε at δ = 0, so nothing is audited")
    click.echo("δ(ε) closed form " + "   ".join(f"ε={r['eps']:g}: {r['delta']:.6g}" for r in rows))
    click.echo("to audit a claim, pass it: --eps E (with --param delta=D for an (ε, δ) claim)")
