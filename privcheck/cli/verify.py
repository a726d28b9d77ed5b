"""``privcheck verify``: run claims of the catalogue (and users' claims files) and report the verdicts.

The command turns its options into a :class:`VerifyRequest` (one plan object), then runs four short steps:
the run's options (validated), the selection of checks, the run itself (streamed lines in CI logs, a progress
bar on a terminal) and the reports; the exit code says whether every check met its expectation.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from typing import Any

import click

from privcheck.base.errors import PrivcheckUsageError


@dataclass
class VerifyRequest:
    """The options of one ``privcheck verify`` command line (names as the command's parameters)."""

    patterns: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    samples: int | None = None
    seed: int = 0
    jobs: int | None = None
    quick: bool = False
    methods: tuple[str, ...] = ()
    confidence: float = 0.95
    json_out: str | None = None
    md_out: str | None = None
    junit_out: str | None = None
    html_out: str | None = None
    quiet: bool = False
    verbose: int = 0
    fail_on: tuple[str, ...] = ()
    timeout: float | None = None
    max_memory: str | None = None
    dask: str | None = None

    @property
    def verbosity(self) -> int:
        """-1 with ``-q``, else the number of ``-v``."""
        return -1 if self.quiet else self.verbose


@click.command(
    "verify",
    epilog="Exit codes: 0 every check met its expectation (refuted built-in claims are findings); "
    "1 an expectation not met, an error (or a --timeout), or a --fail-on verdict; 2 bad usage "
    "or a refused request; 3 internal error; 130 interrupted.",
)
@click.argument("patterns", nargs=-1)
@click.option("--file", "files", multiple=True, type=str, help="User claims file (.py or .toml); repeatable.")
@click.option("--samples", type=int, default=None, help="Override Monte Carlo sample sizes (>= 20).")
@click.option("--seed", type=int, default=0, show_default=True, help="Run seed (>= 0).")
@click.option("--jobs", type=int, default=None, help="Worker processes (default: all cores).")
@click.option("--quick", is_flag=True, help="Reduced Monte Carlo power, labelled as such.")
@click.option(
    "--method", "methods", multiple=True, help="Only these methods (exact, symbolic, numeric, mc, scaling, calculator)."
)
@click.option("--confidence", type=float, default=0.95, show_default=True, help="Confidence of Monte Carlo statements.")
@click.option("--json", "json_out", type=str, default=None, help="Write verdict records as JSON to PATH or '-'.")
@click.option("--markdown", "md_out", type=str, default=None, help="Write a Markdown report to PATH.")
@click.option("--junit", "junit_out", type=str, default=None, help="Write a JUnit XML report to PATH.")
@click.option(
    "--html", "html_out", type=str, default=None, help="Write a self-contained HTML report (figures embedded) to PATH."
)
@click.option("-q", "--quiet", is_flag=True, help="Print only the summary line.")
@click.option("-v", "--verbose", count=True, help="Print claimed, measured and every number of each check's details.")
@click.option(
    "--fail-on",
    "fail_on",
    multiple=True,
    type=click.Choice(["refuted", "inconclusive"]),
    help="Also exit 1 (and mark JUnit failures) when a check has this verdict; repeatable. "
    "By default refuted built-in claims are findings, not failures.",
)
@click.option(
    "--timeout",
    type=float,
    default=None,
    help="Seconds per check; a check past it becomes an error 'timed out' (default: none, 600 with --file).",
)
@click.option(
    "--max-memory",
    type=str,
    default=None,
    help="Refuse --samples whose estimated memory exceeds this (e.g. 4G, 50%; default: half the RAM).",
)
@click.option(
    "--dask",
    "dask",
    type=str,
    default=None,
    metavar="ADDRESS",
    help="Run each check as a task on Dask: 'local' (a cluster here) or tcp://HOST:PORT (extra privcheck[dask]).",
)
def verify(**options: Any) -> None:
    """Run claims (ids or globs; default: the whole built-in catalogue) and print verdicts.

    One line per check (verdict, id [method], seconds; claimed → measured when
    they fit), then the findings (claimed against measured for every refuted
    check) and a summary line. Without a terminal (CI logs) each check's line
    is printed as soon as it finishes.
    """
    run_verify(VerifyRequest(**options))


def run_verify(req: VerifyRequest) -> None:
    """Run ``req``: select, run, report, then exit 0 (every expectation met) or 1."""
    from privcheck import reports
    from privcheck.auditor.user_code import stdout_to_stderr

    opts = _run_options(req)
    with stdout_to_stderr(req.json_out == "-"):  # a user's print must not corrupt the JSON on stdout
        checks = _select_checks(req, opts.timeout)
        console = _console(req)
        _print_preamble(req, checks, console)
        t0 = time.perf_counter()
        records, streaming = _run_checks(req, checks, opts, console)
    seconds = time.perf_counter() - t0
    if req.quick:
        for r in records:
            r.details.setdefault("quick", True)
    reports.print_report(
        records, console, verbosity=req.verbosity, listed=not streaming, seconds=seconds, quick=req.quick
    )
    _write_reports(req, records)
    sys.exit(_exit_code(req, records, console))


def _run_options(req: VerifyRequest):
    """The validated :class:`privcheck.runner.RunOptions` of ``req`` (memory limit and sizes checked first)."""
    from privcheck.auditor.sizing import check_run_samples
    from privcheck.base.resources import DEFAULT_USER_TIMEOUT, check_timeout, set_memory_limit
    from privcheck.base.seeding import default_jobs
    from privcheck.runner import MIN_SAMPLES, RunOptions

    if req.samples is not None and req.samples < MIN_SAMPLES:
        raise PrivcheckUsageError(f"--samples must be an integer >= {MIN_SAMPLES}, got {req.samples}")
    set_memory_limit(req.max_memory)  # every check of the run (claim files included) is sized against it
    if req.files:  # the claims files' code runs in this (supervised) process: capped at the limit too
        from privcheck.cli.guard import cap_supervised_memory

        cap_supervised_memory()
    check_run_samples(req.samples, jobs=req.jobs or default_jobs(), distributed=req.dask is not None)
    timeout = check_timeout(req.timeout) if req.timeout is not None else None
    if timeout is None and req.files:
        timeout = DEFAULT_USER_TIMEOUT
    if req.quiet and req.verbose:
        raise PrivcheckUsageError("-q and -v exclude each other")
    return RunOptions(
        seed=req.seed,
        jobs=req.jobs,
        quick=req.quick,
        samples=req.samples,
        confidence=req.confidence,
        timeout=timeout,
        client=req.dask,
    )


def _select_checks(req: VerifyRequest, timeout: float | None) -> list:
    """The checks ``req`` selects: its claims files loaded (under the deadline), then only the catalogue
    modules the selection needs (claim index), everything without a selection."""
    from privcheck.auditor.user_code import user_deadline
    from privcheck.claim_index import indexed
    from privcheck.claims import CATALOGUE
    from privcheck.runner import load_catalogue, select

    user_ids: list[str] = []
    if req.files:
        from privcheck.claimsfile import load_user_file

        for f in req.files:  # importing the file and probing its samplers run user code: under the deadline
            with user_deadline(timeout, f"loading {f}"):
                user_ids.extend(load_user_file(f, distributed=req.dask is not None))
    pats = list(req.patterns) or (user_ids if req.files else None)
    wanted = None if pats is None else [p for p in pats if p not in user_ids] + indexed(user_ids)
    registry = load_catalogue(wanted) if wanted != [] else CATALOGUE
    checks = select(pats, methods=list(req.methods) or None, registry=registry)
    if not checks:
        raise PrivcheckUsageError("the selection contains no checks (try without --method)")
    return checks


def _console(req: VerifyRequest):
    """rich's console for the report: standard error when the JSON goes to ``-``; 160 columns in logs."""
    from rich.console import Console

    to_stderr = req.json_out == "-"
    console = Console(stderr=to_stderr, highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(stderr=to_stderr, width=160, highlight=False)  # logs and pipes: room for the values
    return console


def _print_preamble(req: VerifyRequest, checks: list, console) -> None:
    """The lines before the run: the ``--quick`` label and which zoo libraries the selection covers."""
    if req.verbosity < 0:
        return
    if req.quick:
        console.print("[yellow]--quick: reduced Monte Carlo power; verdicts are labelled quick[/]")
    if any(c.claim_id.startswith("zoo.") for c in checks):
        from rich.markup import escape

        from privcheck.catalogue.zoo.engine import selection_lines

        for line in selection_lines(c.claim_id for c in checks):
            console.print(f"[yellow]{escape(line)}[/]")


def _run_checks(req: VerifyRequest, checks: list, opts, console) -> tuple[list, bool]:
    """Run ``checks``: in CI logs one line per check as it finishes, on a terminal a transient progress bar.

    Returns the records (in the order of ``checks``) and whether the lines were streamed.
    """
    from privcheck import reports
    from privcheck.runner import run

    streaming = not console.is_terminal and req.verbosity >= 0
    if streaming:
        width = len("inconclusive")  # the widest standard verdict: columns stay aligned while streaming

        def on_record(rec) -> None:
            if req.quick and isinstance(rec.details, dict):
                rec.details.setdefault("quick", True)
            reports.print_check(rec, console, req.verbosity, width)
            console.file.flush()

        return run(checks, opts, progress=on_record), True
    from rich.progress import Progress

    with Progress(console=console, transient=True, disable=not console.is_terminal) as bar:
        task = bar.add_task("verifying", total=len(checks))
        return run(checks, opts, progress=lambda rec: bar.advance(task)), False


def _write_reports(req: VerifyRequest, records: list) -> None:
    """The report files ``req`` asks for (JSON, Markdown, JUnit, HTML)."""
    from privcheck import reports

    if req.json_out:
        reports.write_json(records, req.json_out, quick=req.quick)
    if req.md_out:
        reports.write_markdown(records, req.md_out, fail_on=req.fail_on)
    if req.junit_out:
        reports.write_junit(records, req.junit_out, fail_on=req.fail_on)
    if req.html_out:
        reports.write_html(records, req.html_out, fail_on=req.fail_on)


def _exit_code(req: VerifyRequest, records: list, console) -> int:
    """1 when an expectation is not met, a ``--fail-on`` verdict occurs, or nothing ran at all; else 0."""
    from privcheck.reports.text import not_run_reason

    failed = any(not r.met_expectation or r.verdict in req.fail_on for r in records)
    if records and all(not_run_reason(r) is not None for r in records):
        # nothing ran (every library missing): a CI job without the extras must not pass silently
        console.print(f"[red]nothing ran: all {len(records)} selected checks were skipped (see the install hints)[/]")
        failed = True
    return 1 if failed else 0
