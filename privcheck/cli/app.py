"""The ``privcheck`` command line: verify, audit, budget, list.

Exit codes: 0 when every claim run matched its expectation (built-in claims
expect nothing, so only ``error`` fails), 1 when a verdict differs from a user
claim's declared expectation or a check errored (or timed out), 2 on bad usage
or a refused request (one line on standard error, never a traceback), 3 on an
internal error (one line; ``--debug`` shows the traceback), 130 on Ctrl-C
(see :mod:`privcheck.cli.guard`).
"""

from __future__ import annotations

import math
import os
import re
import sys

import click

from privcheck.base.errors import PrivcheckUsageError
from privcheck.cli.guard import GuardedGroup, harden_options, usage_error_exit, user_code_error_exit


class _Group(GuardedGroup):
    """Turns every usage error raised inside a command into one line and exit code 2.

    Commands of their own modules are registered by name (:meth:`add_lazy_command`) and imported when the
    command line names them or help lists them, so that ``privcheck audit`` does not load ``budget`` (issue 33).
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy_commands: dict[str, str] = {}

    def add_lazy_command(self, name: str, where: str) -> None:
        """Register command ``name`` as ``"module:attribute"``, imported on first use."""
        self.lazy_commands[name] = where

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | set(self.lazy_commands))

    def get_command(self, ctx, name):
        where = self.lazy_commands.get(name)
        if where is not None and name not in self.commands:
            import importlib

            module, attr = where.split(":")
            cmd = getattr(importlib.import_module(module), attr)
            harden_options(cmd)
            self.add_command(cmd, name)
        return super().get_command(ctx, name)

    def invoke(self, ctx):
        from privcheck.auditor.user_code import UserCodeError

        try:
            return super().invoke(ctx)
        except UserCodeError as exc:  # the user's code failed outside a check's line: one line, exit 1
            user_code_error_exit(ctx, exc)
        except (PrivcheckUsageError, ValueError, KeyError, FileNotFoundError, OSError) as exc:
            if isinstance(exc, click.exceptions.Exit):
                raise
            usage_error_exit(ctx, exc)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="privcheck")
@click.option("--debug", is_flag=True, help="Show the traceback of internal errors (accepted anywhere on the line).")
def main(debug: bool = False) -> None:
    """Verify and account for differential privacy in federated learning.

    Exit codes: 0 all as expected, 1 a verdict differs from an expectation or a
    check errored/timed out, 2 bad usage or a refused request, 3 internal error,
    130 interrupted.
    """


def _parse_params(items: tuple[str, ...]) -> dict:
    out = {}
    for item in items:
        if "=" not in item:
            raise PrivcheckUsageError(f"--param takes NAME=VALUE, got {item!r}")
        key, _, val = item.partition("=")
        key = key.strip()
        if key in out:
            raise PrivcheckUsageError(f"--param {key} is given twice ({out[key]!r} and {val.strip()!r}); give it once")
        if re.fullmatch(r"\s*[+-]?[0-9]+\s*", val):  # an integer as typed: no rounding through a float
            out[key] = int(val)
            continue
        try:
            num = float(val)
        except ValueError:  # a word (e.g. selector=pe): the mechanism validates it
            out[key] = val.strip()
            continue
        if math.isnan(num) or math.isinf(num):
            raise PrivcheckUsageError(f"--param {key}: value must be a finite number, got {val!r}")
        out[key] = int(num) if num.is_integer() and "." not in val and "e" not in val.lower() else num
    return out


@main.command("list")
@click.argument("patterns", nargs=-1)
@click.option("--json", "json_out", type=str, default=None, help="Write the catalogue as JSON to PATH or '-'.")
@click.option("-v", "--verbose", is_flag=True, help="Also print each claim's statement.")
def list_cmd(patterns, json_out: str | None, verbose: bool) -> None:
    """List the claim catalogue and the mechanisms, with sources (PATTERNS: ids, names or globs)."""
    from privcheck.reports.listing import catalogue_listing, filter_listing, mechanism_signature
    from privcheck.reports.sources import cite_source

    data = filter_listing(catalogue_listing(), list(patterns))
    if patterns and not data["claims"] and not data["mechanisms"]:
        raise PrivcheckUsageError(
            f"no claim or mechanism matches {' '.join(patterns)!r} "
            "(globs such as 'fedsel.*' work; 'privcheck list' shows everything)"
        )
    if json_out:
        out = {
            "claims": [dict(c, citation=cite_source(c["source"])) for c in data["claims"]],
            "mechanisms": [dict(m, citation=cite_source(m["source"])) for m in data["mechanisms"]],
        }
        import json

        text = json.dumps(out, indent=2, ensure_ascii=False)
        if json_out == "-":
            click.echo(text)
        else:
            with open(json_out, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
        return
    # one line per claim and per mechanism: ids stay whole and grep-able at any width
    if data["claims"]:
        click.echo(f"claims ({len(data['claims'])}): id  [methods]  kind  — source")
        w = max(len(c["id"]) for c in data["claims"])
        for c in data["claims"]:
            click.echo(f"  {c['id']:<{w}}  [{', '.join(c['methods'])}]  {c['kind']}  — {cite_source(c['source'])}")
            if verbose:
                click.echo(f"  {'':<{w}}    {c['statement']}")
    if data["mechanisms"]:
        click.echo(f"mechanisms ({len(data['mechanisms'])}): name (parameters=defaults)  — source")
        w = max(len(m["name"]) for m in data["mechanisms"])
        for m in data["mechanisms"]:
            click.echo(f"  {m['name']:<{w}}  ({mechanism_signature(m)})  — {cite_source(m['source'])}")
    click.echo("papers: 'privcheck papers' cites them by authors, title and venue")


@main.command("papers")
def papers_cmd() -> None:
    """The papers behind the built-in catalogue: authors, title, venue, and how many claims each has."""
    from privcheck.reports.listing import catalogue_listing
    from privcheck.reports.sources import PAPERS, paper_of

    counts: dict[str, int] = {}
    for c in catalogue_listing()["claims"]:
        p = paper_of(c["source"])
        if p is not None:
            counts[p.key] = counts.get(p.key, 0) + 1
    for p in PAPERS.values():
        click.echo(f"[{p.key}] {p.citation()}")
        click.echo(f"      {counts.get(p.key, 0)} claims; 'privcheck list' shows them as [{p.key}] {p.short}")


@main.command(
    epilog="Exit codes: 0 every check met its expectation (refuted built-in claims are findings); "
    "1 an expectation not met, an error (or a --timeout), or a --fail-on verdict; 2 bad usage "
    "or a refused request; 3 internal error; 130 interrupted."
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
def verify(
    patterns,
    files,
    samples,
    seed,
    jobs,
    quick,
    methods,
    confidence,
    json_out,
    md_out,
    junit_out,
    html_out,
    quiet,
    verbose,
    fail_on,
    timeout,
    max_memory,
    dask,
):
    """Run claims (ids or globs; default: the whole built-in catalogue) and print verdicts.

    One line per check (verdict, id [method], seconds; claimed → measured when
    they fit), then the findings (claimed against measured for every refuted
    check) and a summary line. Without a terminal (CI logs) each check's line
    is printed as soon as it finishes.
    """
    import time

    from rich.console import Console

    from privcheck import reports
    from privcheck.auditor.sizing import check_run_samples
    from privcheck.base.resources import DEFAULT_USER_TIMEOUT, check_timeout, set_memory_limit
    from privcheck.runner import MIN_SAMPLES, RunOptions, load_catalogue, run, select

    if samples is not None and samples < MIN_SAMPLES:
        raise PrivcheckUsageError(f"--samples must be an integer >= {MIN_SAMPLES}, got {samples}")
    from privcheck.base.seeding import default_jobs

    set_memory_limit(max_memory)  # every check of the run (claim files included) is sized against it
    if files:  # the claims files' code runs in this (supervised) process: capped at the limit too
        from privcheck.cli.guard import cap_supervised_memory

        cap_supervised_memory()
    check_run_samples(samples, jobs=jobs or default_jobs(), distributed=dask is not None)
    if timeout is not None:
        timeout = check_timeout(timeout)
    if timeout is None and files:
        timeout = DEFAULT_USER_TIMEOUT
    if quiet and verbose:
        raise PrivcheckUsageError("-q and -v exclude each other")
    verbosity = -1 if quiet else verbose
    opts = RunOptions(
        seed=seed, jobs=jobs, quick=quick, samples=samples, confidence=confidence, timeout=timeout, client=dask
    )
    user_ids: list[str] = []
    from privcheck.auditor.user_code import stdout_to_stderr, user_deadline

    with stdout_to_stderr(json_out == "-"):  # a user's print must not corrupt the JSON on stdout
        if files:
            from privcheck.claimsfile import load_user_file

            for f in files:  # importing the file and probing its samplers run user code: under the deadline
                with user_deadline(timeout, f"loading {f}"):
                    user_ids.extend(load_user_file(f, distributed=dask is not None))
        pats = list(patterns) or (user_ids if files else None)
        from privcheck.claim_index import indexed
        from privcheck.claims import CATALOGUE

        # only the catalogue modules the selection needs (claim index); everything without a selection
        wanted = None if pats is None else [p for p in pats if p not in user_ids] + indexed(user_ids)
        registry = load_catalogue(wanted) if wanted != [] else CATALOGUE
        checks = select(pats, methods=list(methods) or None, registry=registry)
        if not checks:
            raise PrivcheckUsageError("the selection contains no checks (try without --method)")
        to_stdout = json_out == "-"
        console = Console(stderr=to_stdout, highlight=False)
        if not console.is_terminal and "COLUMNS" not in os.environ:
            console = Console(stderr=to_stdout, width=160, highlight=False)  # logs and pipes: room for the values
        if quick and verbosity >= 0:
            console.print("[yellow]--quick: reduced Monte Carlo power; verdicts are labelled quick[/]")
        if verbosity >= 0 and any(c.claim_id.startswith("zoo.") for c in checks):
            from rich.markup import escape

            from privcheck.catalogue.zoo.engine import selection_lines

            for line in selection_lines(c.claim_id for c in checks):
                console.print(f"[yellow]{escape(line)}[/]")
        streaming = not console.is_terminal and verbosity >= 0
        t0 = time.perf_counter()
        if streaming:  # CI: one line per check as it finishes, no progress bar
            vw = len("inconclusive")  # the widest standard verdict: columns stay aligned while streaming

            def on_record(rec):
                if quick and isinstance(rec.details, dict):
                    rec.details.setdefault("quick", True)
                reports.print_check(rec, console, verbosity, vw)
                console.file.flush()

            records = run(checks, opts, progress=on_record)
        else:
            from rich.progress import Progress

            with Progress(console=console, transient=True, disable=not console.is_terminal) as bar:
                task = bar.add_task("verifying", total=len(checks))
                records = run(checks, opts, progress=lambda rec: bar.advance(task))
    seconds = time.perf_counter() - t0
    if quick:
        for r in records:
            r.details.setdefault("quick", True)
    reports.print_report(records, console, verbosity=verbosity, listed=not streaming, seconds=seconds, quick=quick)
    if json_out:
        reports.write_json(records, json_out, quick=quick)
    if md_out:
        reports.write_markdown(records, md_out, fail_on=fail_on)
    if junit_out:
        reports.write_junit(records, junit_out, fail_on=fail_on)
    if html_out:
        reports.write_html(records, html_out, fail_on=fail_on)
    failed = any(not r.met_expectation or r.verdict in fail_on for r in records)
    from privcheck.reports.text import not_run_reason

    if records and all(not_run_reason(r) is not None for r in records):
        # nothing ran (every library missing): a CI job without the extras must not pass silently
        console.print(f"[red]nothing ran: all {len(records)} selected checks were skipped (see the install hints)[/]")
        failed = True
    sys.exit(1 if failed else 0)


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


@main.command(cls=_AuditCommand)
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
def audit(
    mechanism_name,
    params,
    eps,
    samples,
    exact,
    monte_carlo,
    confidence,
    seed,
    jobs,
    json_out,
    inputs,
    pairs,
    per_sample,
    seed_global,
    view,
    delta,
    max_memory,
    dask,
    mu,
    accountant_specs,
    family,
    timeout,
    canaries,
):
    """Audit one mechanism's ε: a built-in MECHANISM, or user code MODULE:FUNCTION.

    User code is a sampler f(x, n, rng) returning n outputs (or, with
    --per-sample, one output per call), audited at the given --input values
    (all ordered pairs) or --pair neighbours, e.g.
    privcheck audit mypkg.mech:sample --input 0 --input 1 --eps 1

    Exits 1 when the verdict is refuted or error (so CI can gate on it), 0 otherwise.
    User code runs in a child process under --timeout: whatever it does (exit,
    crash, hang) is reported as verdict error naming the function.
    """
    from estimators.registry import mechanism
    from privcheck.auditor.adaptive import parse_samples, planned_draws
    from privcheck.auditor.sizing import check_audit_request
    from privcheck.auditor.user_code import is_reference
    from privcheck.base.resources import DEFAULT_USER_TIMEOUT, check_timeout, set_memory_limit

    if canaries is not None:  # a training run audited in one run (privcheck.cli.training)
        from privcheck.cli.training import training_audit

        training_audit(mechanism_name, _parse_params(params), canaries, eps, delta, confidence, seed, json_out)
        return
    if exact is False and not monte_carlo:
        raise PrivcheckUsageError("--no-exact with --no-mc leaves nothing to audit; drop one of them")
    set_memory_limit(max_memory)  # mechanism constructors and the auditor size their work against it
    if timeout is not None:
        timeout = check_timeout(timeout)
    samples = parse_samples(samples)
    curve = _curve_claim(mu, accountant_specs, eps, delta)
    if family is not None:  # the μ the (ε, δ) claim implies (privcheck.auditor.family), passed with the claim
        curve = {**curve, "family": family}
    if is_reference(mechanism_name):
        if params or exact:
            raise PrivcheckUsageError("--param and --exact are for built-in mechanisms; user code takes --input/--pair")
        _audit_user_code(
            mechanism_name,
            inputs,
            pairs,
            per_sample,
            seed_global,
            view,
            eps,
            delta,
            samples,
            monte_carlo,
            confidence,
            seed,
            jobs,
            json_out,
            dask,
            curve,
            timeout=DEFAULT_USER_TIMEOUT if timeout is None else timeout,
        )
        return
    for flag, val in (
        ("--input", inputs),
        ("--pair", pairs),
        ("--per-sample", per_sample),
        ("--seed-global", seed_global),
        ("--view", view),
    ):
        if val:
            raise PrivcheckUsageError(f"{flag} is for user code (MODULE:FUNCTION); built-in mechanisms take --param")
    mech = mechanism(mechanism_name, **_parse_params(params))
    if (
        eps is None
        and not curve
        and not callable(getattr(mech, "accountant", None))
        and not math.isfinite(float(getattr(mech, "eps_nominal", math.inf) or math.inf))
    ):
        _no_eps_claim(mech, json_out)
        return
    from privcheck.auditor import DEFAULT_SAMPLES

    n = planned_draws(samples, DEFAULT_SAMPLES)
    check_audit_request(
        mech,
        n,
        jobs=jobs,
        monte_carlo=monte_carlo,  # before len(mech.inputs()) builds them
        distributed=dask is not None,
    )
    kwargs = dict(
        eps=eps,
        samples=samples or n,
        seed=seed,
        confidence=confidence,
        exact=exact,
        monte_carlo=monte_carlo,
        jobs=jobs,
        client=dask,
        **({"delta": delta} if delta is not None else {}),
        **curve,
    )
    if timeout is None:
        res = _run_audit(mech, n * len(mech.inputs()), **kwargs)
    else:
        from privcheck.auditor.user_code import UserCodeError, run_isolated

        try:
            import functools

            res = run_isolated(
                functools.partial(_run_audit, mech, n * len(mech.inputs()), **kwargs),
                (),
                timeout=timeout,
                name=f"the audit of {mechanism_name}" + (f" ({', '.join(params)})" if params else ""),
            )
        except UserCodeError as exc:
            res = _failed_audit(repr(mech), eps, delta, confidence, n, exc, timeout)
    _print_audit(res, json_out)


def _curve_claim(mu, accountant_specs, eps, delta) -> dict:
    """``audit``'s curve claim as keyword arguments: ``{"mu": M}``, ``{"accountant": PLDAccountant}`` or ``{}``."""
    if mu is not None and accountant_specs:
        raise PrivcheckUsageError("give one claim: --mu or --accountant, not both")
    if (mu is not None or accountant_specs) and eps is not None:
        raise PrivcheckUsageError(
            "--mu/--accountant are claims of their own; drop --eps (--delta D alone adds the "
            "certified eps lower bound at delta D)"
        )
    if mu is not None:
        if not (math.isfinite(mu) and mu > 0):
            raise PrivcheckUsageError(f"--mu must be a finite number > 0, got {mu}")
        return {"mu": mu}
    if accountant_specs:
        from privcheck.cli.budget import pld_accountant

        return {"accountant": pld_accountant(accountant_specs, option="--accountant")[0]}
    return {}


def _run_audit(sampler, total: int, **kwargs):
    """:func:`privcheck.auditor.audit` of ``sampler`` with a progress bar of ``total`` draws on a terminal."""
    from privcheck.auditor import audit as run_audit

    if not _rich_terminal(sys.stderr):  # rich would disable the bar: skip importing it
        return run_audit(sampler, **kwargs)
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True)
    with Progress(console=console, transient=True, disable=not console.is_terminal) as bar:
        task = bar.add_task("sampling", total=total)
        return run_audit(sampler, progress=lambda k: bar.advance(task, k), **kwargs)


def _audit_user_code(
    ref,
    inputs,
    pairs,
    per_sample,
    seed_global,
    view,
    eps,
    delta,
    samples,
    monte_carlo,
    confidence,
    seed,
    jobs,
    json_out,
    dask=None,
    curve: dict | None = None,
    timeout: float | None = None,
) -> None:
    """``privcheck audit MODULE:FUNCTION ...``: resolve the user's code and audit it.

    Importing, probing and auditing the code run in a forked child under
    ``timeout`` seconds (:func:`privcheck.auditor.user_code.run_isolated`), with
    standard output sent to standard error when the JSON goes to ``-``; what the
    code does to the run (exit, crash, hang, ±inf) becomes verdict ``error``.
    """
    import time

    from privcheck.auditor import DEFAULT_SAMPLES
    from privcheck.auditor.adaptive import planned_draws
    from privcheck.auditor.user_code import UserCodeError, parse_literal, parse_pair, run_isolated, stdout_to_stderr

    if not monte_carlo:
        raise PrivcheckUsageError(
            "--no-mc leaves nothing to run for user code (no exact ε without a built-in mechanism)"
        )
    curve = curve or {}
    if eps is None and not curve:
        raise PrivcheckUsageError("--eps (the claimed ε), --mu or --accountant is required for user code")
    if seed_global and not per_sample:
        raise PrivcheckUsageError("--seed-global needs --per-sample")
    xs = [parse_literal(t) for t in inputs]
    prs = [parse_pair(t) for t in pairs]
    for i, x in enumerate(xs):
        if any(_same(x, y) for y in xs[:i]):
            raise PrivcheckUsageError(
                f"--input {inputs[i]} is given twice; give distinct inputs (all pairs are searched)"
            )
    if len(xs) < 2 and not prs:
        raise PrivcheckUsageError("user code needs at least two --input values (or --pair A,B)")
    n = planned_draws(samples, DEFAULT_SAMPLES)
    args = (
        ref,
        xs,
        prs,
        per_sample,
        seed_global,
        view,
        dict(
            eps=eps,
            samples=samples or n,
            seed=seed,
            confidence=confidence,
            jobs=jobs,
            delta=delta,
            client=dask,
            **curve,
        ),
    )
    t0 = time.perf_counter()
    with stdout_to_stderr(json_out == "-"):
        try:
            if timeout is None:
                res = _user_code_audit(*args)
            else:
                res = run_isolated(_user_code_audit, args, timeout=timeout, name=ref)
        except UserCodeError as exc:
            res = _failed_audit(ref, eps, delta, confidence, n, exc, time.perf_counter() - t0)
    _print_audit(res, json_out)


def _user_code_audit(ref, xs, prs, per_sample, seed_global, view, kwargs):
    """Load, probe and audit user code ``ref`` (runs in the child process of :func:`_audit_user_code`)."""
    from privcheck.auditor.adaptive import planned_draws
    from privcheck.auditor.user_code import UserCodeError, guard_user_code, load_reference, probe_sampler

    fn = load_reference(ref)
    view_fn = load_reference(view, what="view") if view else None
    if per_sample:
        from privcheck.auditor.per_sample import per_sample as wrap

        sampler = wrap(fn, seed_global=seed_global)
    else:
        sampler = fn
    probe_sampler(
        sampler,
        xs or list(dict.fromkeys(v for pr in prs for v in pr if _hashable(v))) or [prs[0][0]],
        ref,
        view_fn,
        per_sample,
    )
    try:
        res = _run_audit(
            guard_user_code(sampler, ref),
            planned_draws(kwargs["samples"], 0) * max(2, len(xs)),
            inputs=xs or None,
            pairs=prs or None,
            view=view_fn,
            **kwargs,
        )
    except UserCodeError as exc:
        if exc.function is not None:
            raise
        raise UserCodeError(str(exc).replace("the sampler", ref, 1), ref, exc.kind) from None
    res.mechanism = ref
    return res


def _failed_audit(name: str, eps, delta, confidence, samples, exc, seconds: float):
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


def _print_audit(res, json_out) -> None:
    """Print an audit result (and its JSON) and exit: 1 when refuted or error, else 0.

    Under ``--debug`` the user's own traceback of an ``error`` is printed to standard error first.
    """
    from privcheck.cli import guard

    code = 1 if res.verdict in ("refuted", "error") else 0
    tb = res.details.pop("user_traceback", None) if isinstance(res.details, dict) else None
    if tb and guard.DEBUG:
        click.echo(tb.rstrip("\n"), err=True)
    if json_out:
        import json

        text = json.dumps(res.to_dict(), indent=2)
        if json_out == "-":
            click.echo(text)
            sys.exit(code)
        with open(json_out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    _print_text(res.summary())
    sys.exit(code)


def _rich_terminal(stream) -> bool:
    """Whether a rich ``Console`` on ``stream`` would treat it as a terminal (rich's own rule:
    ``TTY_COMPATIBLE`` 0/1, then ``FORCE_COLOR``, then ``isatty()``)."""
    compatible = os.environ.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "1"
    force = os.environ.get("FORCE_COLOR")
    if force is not None:
        return force != ""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


#: text rich might print differently: backslash escapes, markup tags, ``:emoji:`` codes, tabs, control codes
_RICH_SPECIAL = re.compile(r"\\|\[[a-z#/@]|:\S*?:|[\t\x07\x08\x0b\x0c\r]")


def _print_text(text: str) -> None:
    """Print ``text`` to standard output exactly as ``Console(highlight=False).print(text, soft_wrap=True)``
    does, without importing rich when the text holds nothing rich would render differently."""
    if _RICH_SPECIAL.search(text) is None:
        click.echo(text)
        return
    from rich.console import Console

    Console(highlight=False).print(text, soft_wrap=True)


#: ε values at which ``audit`` prints δ(ε) for a mechanism without an ε claim
DELTA_CURVE_EPS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)


def _no_eps_claim(mech, json_out: str | None) -> None:
    """A mechanism with no finite ε claim (e.g. Gaussian): print its exact δ(ε) curve, or ask for --eps."""
    if not hasattr(mech, "delta_at"):
        raise PrivcheckUsageError(f"{mech!r} has no ε claim to audit; pass the claimed ε with --eps E")
    rows = [{"eps": e, "delta": float(mech.delta_at(e))} for e in DELTA_CURVE_EPS]
    if json_out:
        import json

        text = json.dumps(
            {"mechanism": repr(mech), "eps_claimed": None, "verdict": None, "delta_of_eps": rows}, indent=2
        )
        if json_out == "-":
            click.echo(text)
            return
        with open(json_out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    click.echo(f"mechanism        {mech!r}")
    click.echo("eps claimed      none: this mechanism is not ε-DP for a finite ε at δ = 0, so nothing is audited")
    click.echo("δ(ε) closed form " + "   ".join(f"ε={r['eps']:g}: {r['delta']:.6g}" for r in rows))
    click.echo("to audit a claim, pass it: --eps E (with --param delta=D for an (ε, δ) claim)")


def _register_commands() -> None:
    """The command groups of their own modules (one module per command group), imported when named (start-up)."""
    main.add_lazy_command("budget", "privcheck.cli.budget:budget")
    main.add_lazy_command("omp", "privcheck.cli.omp:omp_cmd")
    main.add_lazy_command("check-sampling", "privcheck.cli.sampling:check_sampling_cmd")
    main.add_lazy_command("trace", "privcheck.cli.trace:trace_cmd")
    main.add_lazy_command("audit-calibrator", "privcheck.cli.calibrator:calibrator_cmd")
    main.add_lazy_command("audit-scores", "privcheck.cli.scores:audit_scores_cmd")


_register_commands()
harden_options(main)


if __name__ == "__main__":  # pragma: no cover
    main()
