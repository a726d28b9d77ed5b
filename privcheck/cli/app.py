"""The ``privcheck`` command line: the top-level group, ``list`` and ``papers``; the other commands by name.

Exit codes: 0 when every claim run matched its expectation (built-in claims
expect nothing, so only ``error`` fails), 1 when a verdict differs from a user
claim's declared expectation or a check errored (or timed out), 2 on bad usage
or a refused request (one line on standard error, never a traceback), 3 on an
internal error (one line; ``--debug`` shows the traceback), 130 on Ctrl-C
(see :mod:`privcheck.cli.guard`).
"""

from __future__ import annotations

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


def _register_commands() -> None:
    """The command groups of their own modules (one module per command group), imported when named (start-up)."""
    main.add_lazy_command("verify", "privcheck.cli.verify:verify")
    main.add_lazy_command("audit", "privcheck.cli.audit:audit")
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
