"""The ``privcheck`` command line: verify, audit, budget, list.

Exit codes: 0 when every claim run matched its expectation (built-in claims
expect nothing, so only ``error`` fails), 1 when a verdict differs from a user
claim's declared expectation or a check errored, 2 on bad usage (one line on
standard error, never a traceback).
"""
from __future__ import annotations

import json
import math
import os
import sys

import click
from rich.console import Console

from privcheck.errors import PrivcheckUsageError


class _Group(click.Group):
    """Turns every usage error raised inside a command into one line and exit code 2."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (PrivcheckUsageError, ValueError, KeyError, FileNotFoundError, OSError) as exc:
            if isinstance(exc, click.exceptions.Exit):
                raise
            msg = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
            click.echo(f"privcheck: error: {msg.splitlines()[0] if msg else type(exc).__name__}", err=True)
            ctx.exit(2)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="privcheck")
def main() -> None:
    """Verify and account for differential privacy in federated learning."""


def _parse_params(items: tuple[str, ...]) -> dict:
    out = {}
    for item in items:
        if "=" not in item:
            raise PrivcheckUsageError(f"--param takes NAME=VALUE, got {item!r}")
        key, _, val = item.partition("=")
        key = key.strip()
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
@click.option("--json", "json_out", type=str, default=None, help="Write the catalogue as JSON to PATH or '-'.")
def list_cmd(json_out: str | None) -> None:
    """List the claim catalogue and the mechanisms, with sources."""
    from estimators.registry import MECHANISMS, mechanism_names, mechanism_parameters
    from privcheck.runner import load_catalogue

    reg = load_catalogue()
    claims = [
        {"id": c.id, "source": c.source, "kind": c.kind, "statement": c.statement,
         "methods": [k.method for k in reg.checks.get(c.id, [])] or list(c.methods)}
        for c in reg.claims.values()
    ]
    mechs = [{"name": n, "source": MECHANISMS[n].source, "parameters": mechanism_parameters(n)}
             for n in mechanism_names()]
    if json_out:
        text = json.dumps({"claims": claims, "mechanisms": mechs}, indent=2, ensure_ascii=False)
        if json_out == "-":
            click.echo(text)
        else:
            with open(json_out, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
        return
    from rich.table import Table

    console = Console()
    t = Table(title="claims", header_style="bold")
    for col in ("id", "source", "kind", "methods"):
        t.add_column(col, overflow="fold")
    for c in claims:
        t.add_row(c["id"], c["source"], c["kind"], ", ".join(c["methods"]))
    console.print(t)
    m = Table(title="mechanisms", header_style="bold")
    for col in ("name", "source", "parameters"):
        m.add_column(col, overflow="fold")
    for d in mechs:
        m.add_row(d["name"], d["source"], ", ".join(d["parameters"]))
    console.print(m)


@main.command()
@click.argument("patterns", nargs=-1)
@click.option("--file", "files", multiple=True, type=str, help="User claims file (.py or .toml); repeatable.")
@click.option("--samples", type=int, default=None, help="Override Monte Carlo sample sizes (>= 20).")
@click.option("--seed", type=int, default=0, show_default=True, help="Run seed (>= 0).")
@click.option("--jobs", type=int, default=None, help="Worker processes (default: all cores).")
@click.option("--quick", is_flag=True, help="Reduced Monte Carlo power, labelled as such.")
@click.option("--method", "methods", multiple=True, help="Only these methods (exact, symbolic, numeric, mc, scaling).")
@click.option("--confidence", type=float, default=0.95, show_default=True, help="Confidence of Monte Carlo statements.")
@click.option("--json", "json_out", type=str, default=None, help="Write verdict records as JSON to PATH or '-'.")
@click.option("--markdown", "md_out", type=str, default=None, help="Write a Markdown report to PATH.")
@click.option("--junit", "junit_out", type=str, default=None, help="Write a JUnit XML report to PATH.")
@click.option("--html", "html_out", type=str, default=None, help="Write an HTML report with plots to PATH.")
@click.option("--dask", "dask", type=str, default=None, metavar="local|tcp://HOST:PORT",
              help="Run each check as a task on Dask: 'local' starts a cluster here (extra privcheck[dask]).")
def verify(patterns, files, samples, seed, jobs, quick, methods, confidence, json_out, md_out, junit_out, html_out,
           dask):
    """Run claims (ids or globs; default: the whole built-in catalogue) and print verdicts."""
    from privcheck import reports
    from privcheck.runner import MIN_SAMPLES, RunOptions, load_catalogue, run, select

    if samples is not None and samples < MIN_SAMPLES:
        raise PrivcheckUsageError(f"--samples must be an integer >= {MIN_SAMPLES}, got {samples}")
    opts = RunOptions(seed=seed, jobs=jobs, quick=quick, samples=samples, confidence=confidence, client=dask)
    load_catalogue()
    user_ids: list[str] = []
    if files:
        from privcheck.userfile import load_user_file

        for f in files:
            user_ids.extend(load_user_file(f))
    pats = list(patterns) or (user_ids if files else None)
    checks = select(pats, methods=list(methods) or None)
    if not checks:
        raise PrivcheckUsageError("the selection contains no checks (try without --method)")
    to_stdout = json_out == "-"
    console = Console(stderr=to_stdout)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(stderr=to_stdout, width=160)  # logs and pipes: a wide, readable table
    if quick:
        console.print("[yellow]--quick: reduced Monte Carlo power; verdicts are labelled quick[/]")
    from rich.progress import Progress

    with Progress(console=console, transient=True, disable=not console.is_terminal) as bar:
        task = bar.add_task("verifying", total=len(checks))
        records = run(checks, opts, progress=lambda rec: bar.advance(task))
    if quick:
        for r in records:
            r.details.setdefault("quick", True)
    reports.print_table(records, console=console)
    if json_out:
        reports.write_json(records, json_out)
    if md_out:
        reports.write_markdown(records, md_out)
    if junit_out:
        reports.write_junit(records, junit_out)
    if html_out:
        reports.write_html(records, html_out)
    sys.exit(0 if all(r.met_expectation for r in records) else 1)


@main.command()
@click.argument("mechanism_name", metavar="MECHANISM")
@click.option("--param", "params", multiple=True, help="Mechanism parameter NAME=VALUE; repeatable.")
@click.option("--eps", type=float, default=None, help="Claimed ε (default: the mechanism's nominal ε).")
@click.option("--samples", type=int, default=None, help="Monte Carlo draws per input (>= 20).")
@click.option("--exact/--no-exact", default=None, help="Compute the exact ε (default: when available).")
@click.option("--mc/--no-mc", "monte_carlo", default=True, show_default=True, help="Run the Monte Carlo lower bound.")
@click.option("--confidence", type=float, default=0.95, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--jobs", type=int, default=None, help="Worker threads (default: all cores).")
@click.option("--json", "json_out", type=str, default=None, help="Write the result as JSON to PATH or '-'.")
@click.option("--dask", "dask", type=str, default=None, metavar="local|tcp://HOST:PORT",
              help="Run the Monte Carlo chunks on Dask: 'local' starts a cluster here (extra privcheck[dask]).")
def audit(mechanism_name, params, eps, samples, exact, monte_carlo, confidence, seed, jobs, json_out, dask):
    """Audit one built-in mechanism's ε: exact where computable, Monte Carlo lower bound."""
    from privcheck.auditor import audit as run_audit
    from privcheck.auditor import DEFAULT_SAMPLES
    from estimators.registry import mechanism

    mech = mechanism(mechanism_name, **_parse_params(params))
    if samples is not None and samples < 20:
        raise PrivcheckUsageError(f"--samples must be an integer >= 20, got {samples}")
    n = samples or DEFAULT_SAMPLES
    from rich.progress import Progress

    console = Console(stderr=True)
    with Progress(console=console, transient=True, disable=not console.is_terminal) as bar:
        task = bar.add_task("sampling", total=n * len(mech.inputs()))
        res = run_audit(mech, eps=eps, samples=n, seed=seed, confidence=confidence, exact=exact,
                        monte_carlo=monte_carlo, jobs=jobs, progress=lambda k: bar.advance(task, k), client=dask)
    if json_out:
        text = json.dumps(res.to_dict(), indent=2)
        if json_out == "-":
            click.echo(text)
            return
        with open(json_out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    Console().print(res.summary())


def _register_budget() -> None:
    from privcheck.cli_budget import budget

    main.add_command(budget)


_register_budget()


if __name__ == "__main__":  # pragma: no cover
    main()
