"""Running and printing one audit, shared by the built-in and the user-code audits of ``privcheck audit``.

A progress bar on a terminal only (rich is not imported otherwise), the ``error`` record of a run that user
code or a deadline ended, and the printer that exits 1 on refuted or error.
"""

from __future__ import annotations

import sys

import click

from privcheck.cli.emit import write_json
from privcheck.cli.terminal import print_text, rich_terminal


def run_with_progress(sampler, total: int, **kwargs):
    """:func:`privcheck.auditor.audit` of ``sampler`` with a progress bar of ``total`` draws on a terminal."""
    from privcheck.auditor import audit as run_audit

    if not rich_terminal(sys.stderr):  # rich would disable the bar: skip importing it
        return run_audit(sampler, **kwargs)
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True)
    with Progress(console=console, transient=True, disable=not console.is_terminal) as bar:
        task = bar.add_task("sampling", total=total)
        return run_audit(sampler, progress=lambda k: bar.advance(task, k), **kwargs)


def failed_audit(name: str, eps, delta, confidence, samples, exc, seconds: float):
    """The audit result of verdict ``error`` for a run that user code (or a deadline) ended: ``exc`` is the reason."""
    from privcheck.auditor.result import AuditResult

    return AuditResult(
        mechanism=name,
        eps_claimed=eps,
        eps_exact=None,
        eps_exact_text=None,
        eps_lower=None,
        confidence=confidence,
        samples=samples,
        seconds=round(float(seconds), 4),
        verdict="error",
        verdict_exact=None,
        verdict_mc=None,
        worst_pair=None,
        event=None,
        eps_max_certifiable=None,
        delta_claimed=delta or 0.0,
        details={
            "error": str(exc),
            "error_kind": getattr(exc, "kind", None),
            "function": getattr(exc, "function", None),
            "user_traceback": getattr(exc, "user_traceback", None),
        },
        reason=str(exc),
    )


def print_audit(res, json_out) -> None:
    """Print an audit result (and its JSON) and exit: 1 when refuted or error, else 0.

    Under ``--debug`` the user's own traceback of an ``error`` is printed to standard error first.
    """
    from privcheck.cli import guard

    code = 1 if res.verdict in ("refuted", "error") else 0
    tb = res.details.pop("user_traceback", None) if isinstance(res.details, dict) else None
    if tb and guard.DEBUG:
        click.echo(tb.rstrip("\n"), err=True)
    if json_out:
        write_json(res.to_dict(), json_out)
        if json_out == "-":
            sys.exit(code)
    print_text(res.summary())
    sys.exit(code)
