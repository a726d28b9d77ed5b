"""``privcheck audit-calibrator``: a library's noise calibration against the exact curve (:func:`privcheck.audit_calibrator`).

The user's module is imported and its calibrator run in a forked child under ``--timeout`` seconds; a
crash, exit or hang is verdict ``error`` in one line. Exit codes: 0 holds or inconclusive, 1 refuted or
error, 2 bad usage.
"""

from __future__ import annotations

import time

import click

from privcheck.cli.emit import emit_and_exit

#: points printed under the summary (the JSON has them all)
MAX_LINES = 10


@click.command(
    "audit-calibrator",
    epilog="Exit codes: 0 holds or inconclusive, 1 refuted or error (user code failed or timed out), "
    "2 bad usage, 3 internal error, 130 interrupted.",
)
@click.argument("ref", metavar="MODULE:FUNCTION")
@click.option(
    "--mechanism",
    type=click.Choice(["gaussian", "laplace", "discrete-laplace", "discrete-gaussian"]),
    default="gaussian",
    show_default=True,
    help="The mechanism whose scale FUNCTION returns (sigma, b, t, sigma).",
)
@click.option("--eps", "eps", type=float, multiple=True, help="A claimed eps > 0; repeatable.  [default: 0.01 ... 50]")
@click.option(
    "--delta",
    "delta",
    type=float,
    multiple=True,
    help="A claimed delta in [0, 1); repeatable.  [default: 1e-3 ... 1e-12, or 0 for laplace and discrete-laplace]",
)
@click.option("--sensitivity", type=float, default=1.0, show_default=True, help="Sensitivity > 0 passed to FUNCTION.")
@click.option("--timeout", type=float, default=None, help="Seconds the audit may run.  [default: 600]")
@click.option("--json", "json_out", type=str, default=None, help="Write the result as JSON to PATH or '-' (stdout).")
def calibrator_cmd(ref, mechanism, eps, delta, sensitivity, timeout, json_out):
    """Check the noise calibration FUNCTION(eps=, delta=, sensitivity=) -> scale on a grid of (eps, delta).

    Each point's scale is put into the exact privacy curve of --mechanism (certified intervals): refuted
    where the true delta at the claimed eps exceeds the claimed delta, with the true eps at the claimed
    delta and the noise wasted where it over-noises, e.g.
    privcheck audit-calibrator mypkg.noise:sigma_for --mechanism gaussian --eps 1 --eps 10 --delta 1e-5
    """
    from privcheck.auditor.user_code import UserCodeError, run_isolated, stdout_to_stderr
    from privcheck.base.resources import DEFAULT_USER_TIMEOUT, check_timeout
    from privcheck.calibration.audit import check_request
    from privcheck.calibration.result import CalibratorResult

    check_request(mechanism, list(eps) or None, list(delta) or None, sensitivity)  # before the child: exit 2
    limit = DEFAULT_USER_TIMEOUT if timeout is None else check_timeout(timeout)
    kwargs = dict(mechanism=mechanism, eps=list(eps) or None, delta=list(delta) or None, sensitivity=sensitivity)
    t0 = time.perf_counter()
    with stdout_to_stderr(json_out == "-"):
        try:
            res = run_isolated(_audited, (ref, kwargs), timeout=limit, name=ref)
        except UserCodeError as exc:
            res = CalibratorResult(
                "error",
                mechanism,
                ref,
                sensitivity,
                summary=f"error: {exc}",
                reason=str(exc),
                seconds=time.perf_counter() - t0,
            )
    _print(res, json_out)


def _audited(ref: str, kwargs: dict):
    from privcheck.auditor.user_code import load_reference
    from privcheck.calibration.audit import audit_calibrator

    return audit_calibrator(load_reference(ref, what="calibrator"), name=ref, **kwargs)


def text_lines(res) -> list[str]:
    """The text report: the summary, the refuted points (or the worst point), the most wasteful point."""
    lines = [res.summary]
    bad = [p for p in res.points if p.verdict == "refuted"]
    for p in bad[:MAX_LINES]:
        lines.append(f"  refuted: {p.line()}")
    if len(bad) > MAX_LINES:
        lines.append(f"  ... {len(bad) - MAX_LINES} more refuted points (--json has them all)")
    if not bad and res.worst is not None:
        lines.append(f"  closest to its claim: {res.worst.line()}")
    if res.most_wasted is not None and res.most_wasted.wasted:
        lines.append(f"  most wasteful: {res.most_wasted.line()}")
    if res.verdict != "error":
        lines.append(f"  {len(res.points)} points, curve: {res.details.get('curve')}, {res.seconds:.3g} s")
    return lines


def _print(res, json_out: str | None) -> None:
    code = 1 if res.verdict in ("refuted", "error") else 0
    emit_and_exit(res, json_out, text_lines, code)
