"""``privcheck trace``: gray-box coupled runs of user code on neighbouring inputs (:func:`privcheck.trace`).

Importing the user's module and tracing it run in a forked child under ``--timeout`` seconds
(:func:`privcheck.auditor.user_code.run_isolated`); what the code does to the run (exit, crash, hang) is
verdict ``error`` in one line. Exit codes: 0 holds or inconclusive, 1 refuted or error, 2 bad usage.
"""

from __future__ import annotations

import time

import click

from privcheck.base.errors import PrivcheckUsageError
from privcheck.cli.emit import emit_and_exit

_JSON_HELP = "Write the result as JSON to PATH or '-' (stdout)."
#: findings printed under the summary (the JSON has them all)
MAX_LINES = 10


@click.command(
    "trace",
    epilog="Exit codes: 0 holds or inconclusive, 1 refuted or error (user code failed or timed out), "
    "2 bad usage, 3 internal error, 130 interrupted.",
)
@click.argument("ref", metavar="MODULE:FUNCTION")
@click.option("--pair", "pairs", multiple=True, help="Neighbouring inputs A,B (Python literals); repeatable.")
@click.option("--input", "inputs", multiple=True, help="A candidate input (every ordered pair is traced); repeatable.")
@click.option(
    "--neighbours",
    "neighbours",
    default=None,
    metavar="MODULE:FUNCTION",
    help="A function returning a hypothesis strategy of pairs (privcheck.strategies); searched for the worst pair.",
)
@click.option("--sensitivity", type=float, default=None, help="Declared sensitivity > 0 (omit: invariance only).")
@click.option("--norm", type=click.Choice(["l1", "l2", "linf"]), default="l2", show_default=True)
@click.option("--runs", type=int, default=10, show_default=True, help="Coupled runs per pair (>= 1).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the streams and the search (>= 0).")
@click.option(
    "--rng-type",
    type=click.Choice(["generator", "random_state", "global"]),
    default="generator",
    show_default=True,
    help="How FUNCTION gets randomness: fn(x, rng) with a Generator or a RandomState, or fn(x) (global state).",
)
@click.option("--examples", type=int, default=100, show_default=True, help="Search examples with --neighbours.")
@click.option("--no-nonfinite", "no_nonfinite", is_flag=True, help="Do not trace NaN/inf neighbours.")
@click.option(
    "--timeout", type=float, default=None, help="Seconds the trace may run (importing included).  [default: 600]"
)
@click.option("--json", "json_out", type=str, default=None, help=_JSON_HELP)
def trace_cmd(
    ref, pairs, inputs, neighbours, sensitivity, norm, runs, seed, rng_type, examples, no_nonfinite, timeout, json_out
):
    """Trace user code FUNCTION on neighbouring inputs with the same random stream (gray-box).

    Measures the sensitivity (the distance between what the noise is added to), finds noise scales that
    depend on the data and non-finite outputs, e.g.
    privcheck trace mypkg.release:noisy_sum --pair '[0.2, 0.9],[0.2]' --sensitivity 1 --norm l1
    """
    from privcheck.auditor.user_code import UserCodeError, parse_literal, parse_pair, run_isolated, stdout_to_stderr
    from privcheck.base.resources import DEFAULT_USER_TIMEOUT, check_timeout

    if pairs and inputs:
        raise PrivcheckUsageError("give --pair or --input (every ordered pair of them), not both")
    if not pairs and not inputs and not neighbours:
        raise PrivcheckUsageError(
            "trace needs --pair A,B, at least two --input values, or --neighbours MODULE:FUNCTION"
        )
    prs = [parse_pair(t) for t in pairs] or None
    xs = [parse_literal(t) for t in inputs] or None
    kwargs = dict(
        pairs=prs,
        inputs=xs,
        sensitivity=sensitivity,
        norm=norm,
        runs=runs,
        seed=seed,
        rng_type=rng_type,
        nonfinite=not no_nonfinite,
        examples=examples,
    )
    from privcheck.tracing.plan import make_plan

    # the request is checked here, before the child imports anything (one line, exit 2)
    make_plan(prs or (None if xs else [(0, 1)]), xs, None, sensitivity, norm, runs, seed, True, examples)
    limit = DEFAULT_USER_TIMEOUT if timeout is None else check_timeout(timeout)
    t0 = time.perf_counter()
    with stdout_to_stderr(json_out == "-"):
        try:
            res = run_isolated(_traced, (ref, neighbours, kwargs), timeout=limit, name=ref)
        except UserCodeError as exc:  # the child was ended: exit, crash, or past the deadline
            from privcheck.tracing.core import failed

            res = failed(ref, exc, time.perf_counter() - t0, sensitivity, norm, runs)
    _print(res, json_out)


def _traced(ref: str, neighbours: str | None, kwargs: dict):
    """Load ``ref`` (and the strategy) and trace it (runs in the child process)."""
    from privcheck.auditor.user_code import load_reference
    from privcheck.tracing.core import trace

    fn = load_reference(ref, what="function")
    strategy = None
    if neighbours:
        make = load_reference(neighbours, what="strategy")
        from privcheck.auditor.user_code import call_user

        strategy = call_user(make, (), neighbours, "building the neighbours strategy")
    return trace(fn, neighbours=strategy, name=ref, **kwargs)


def _print(res, json_out: str | None) -> None:
    from privcheck.cli import guard

    code = 1 if res.verdict in ("refuted", "error") else 0
    tb = res.details.pop("user_traceback", None)
    if tb and guard.DEBUG:
        click.echo(tb.rstrip("\n"), err=True)
    emit_and_exit(res, json_out, text_lines, code)


def text_lines(res) -> list[str]:
    """The text report of a trace: the summary, then the findings and other divergences, then the scope."""
    lines = [res.summary]
    findings = res.findings
    for f in findings[:MAX_LINES]:
        lines.append(f"  finding: {f}")
    other = [d for d in res.divergences if not d.finding]
    for d in other[: max(0, MAX_LINES - len(findings))]:
        lines.append(f"  no finding: {d.line()}")
    hidden = len(findings) + len(other) - MAX_LINES
    if hidden > 0:
        lines.append(f"  ... {hidden} more (--json has them all)")
    for note in res.details.get("notes", []) + res.details.get("noise_dependent_difference", [])[:2]:
        lines.append(f"  note: {note}")
    if res.verdict != "error":
        lines.append(
            f"  {res.runs} coupled run(s), {res.pairs} pair(s), {res.calls} random calls recorded, "
            f"randomness: {res.coupling}, {res.seconds:.3g} s"
        )
    return lines
